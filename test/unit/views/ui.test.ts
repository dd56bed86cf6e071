import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, NetworkError, SAFETY, ValidationError } from '../../../src/api';
import { automation } from '../../../src/views/automation';
import {
	argBoolean,
	argFlag,
	argObject,
	argString,
	argValue,
	confirmUnlessTold,
	displayName,
	isStatus,
	pickItem,
	pickWhenLoaded,
	showInfo,
	showModalQuestion,
	showModalWarning,
	showValidation,
	showWarning,
	toAbortSignal,
	validationMessage,
} from '../../../src/views/ui';
import { until } from '../support/until';
import * as fake from '../support/vscodeFake';

type Item = vscode.QuickPickItem & { n?: number };

/** A quick pick the next `createQuickPick` returns, for the test to drive. */
function nextPick(): fake.FakeQuickPick<Item> {
	const pick = new fake.FakeQuickPick<Item>();
	fake.answer('window.createQuickPick', () => pick);
	return pick;
}

const unreachable = (): NetworkError => new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:9', false);

/** src/views/ui.ts on the `vscode` fake. */
suite('views/ui', () => {
	test('pickItem: server text on one line, cut, $(icon) shown as typed; the extra members kept', () => {
		const item = pickItem(
			{ label: `$(trash) evil\nname${'x'.repeat(SAFETY.labelMaxChars)}`, description: 'a\u202Eb', detail: undefined },
			{ record: 7 },
		);
		assert.equal(item.record, 7);
		assert.ok(item.label.startsWith('\\$(trash) evil name'), item.label);
		assert.ok(item.label.length <= SAFETY.labelMaxChars + 1, `${item.label.length}`);
		assert.ok(!item.description!.includes('\u202E'));
		assert.equal(item.detail, undefined);
		assert.equal(pickItem({ label: undefined }, {}).label, '');
	});

	test('displayName: the name made safe, else the fallback', () => {
		assert.equal(displayName('$(x) bot\nname'), '\\$(x) bot name');
		assert.equal(displayName('', 'agent-1'), 'agent-1');
		assert.equal(displayName(undefined), '');
	});

	test('pickWhenLoaded: busy and disabled while loading, then the items; accepting one resolves it and disposes the pick', async () => {
		const pick = nextPick();
		let release!: (items: Item[]) => void;
		const result = pickWhenLoaded(new Promise<Item[]>((resolve) => (release = resolve)), {
			title: 'Pick an agent',
			placeHolder: 'Agent',
			matchOnDetail: true,
		});
		assert.ok(pick.shown);
		assert.equal(pick.title, 'Pick an agent');
		assert.equal(pick.placeholder, 'Agent');
		assert.equal(pick.matchOnDetail, true);
		assert.equal(pick.busy, true);
		assert.equal(pick.enabled, false);
		assert.deepEqual(pick.items, []);
		const items = [
			{ label: 'one', n: 1 },
			{ label: 'two', n: 2 },
		];
		release(items);
		await until(() => !pick.busy, 'the items');
		assert.equal(pick.items, items);
		assert.equal(pick.enabled, true);
		pick.accept(items[1]);
		assert.equal(await result, items[1]);
		assert.ok(pick.disposed);
	});

	test('pickWhenLoaded: dismissing resolves undefined, also while still loading', async () => {
		const pick = nextPick();
		const result = pickWhenLoaded(new Promise<Item[]>(() => undefined));
		assert.equal(pick.matchOnDetail, false);
		pick.hide();
		assert.equal(await result, undefined);
		assert.ok(pick.disposed);
	});

	test('pickWhenLoaded: a failure other than "no answer" closes the pick and rejects with it', async () => {
		const pick = nextPick();
		const refused = new ApiError(403, 'forbidden', 'no access', undefined);
		await assert.rejects(
			pickWhenLoaded(async () => {
				throw refused;
			}),
			(err) => err === refused,
		);
		assert.ok(pick.disposed);
	});

	test('pickWhenLoaded: no answer from a plain promise rejects too (it cannot be loaded again)', async () => {
		nextPick();
		const err = unreachable();
		await assert.rejects(pickWhenLoaded(Promise.reject(err)), (e) => e === err);
	});

	test('pickWhenLoaded: no answer shows the failure in the pick; Retry loads again in the same pick', async () => {
		const pick = nextPick();
		let loads = 0;
		const result = pickWhenLoaded(async () => {
			loads++;
			if (loads === 1) {
				throw unreachable();
			}
			return [{ label: 'found' }];
		});
		await until(() => pick.items.length === 3, 'the failure rows');
		const [cannot, retry, configure] = pick.items;
		assert.equal(cannot!.label, 'Cannot reach the Cloud Agents service');
		assert.match(cannot!.detail!, /ECONNREFUSED/);
		assert.equal(retry!.label, 'Retry');
		assert.equal(configure!.label, 'Configure API URL');
		assert.deepEqual(pick.activeItems, [retry]);
		assert.match(pick.placeholder!, /Cannot reach/);
		assert.equal(pick.busy, false);
		pick.accept(retry);
		assert.equal(pick.busy, true, 'loading again');
		await until(() => pick.items.length === 1, 'the items of the second load');
		assert.equal(loads, 2);
		assert.equal(pick.placeholder, undefined, 'the placeholder is the caller’s again');
		pick.accept(pick.items[0]);
		assert.deepEqual(await result, { label: 'found' });
	});

	test('pickWhenLoaded: accepting the failure row itself retries too', async () => {
		const pick = nextPick();
		let loads = 0;
		void pickWhenLoaded(async () => {
			loads++;
			throw unreachable();
		});
		await until(() => pick.items.length === 3, 'the failure rows');
		pick.accept(pick.items[0]);
		await until(() => loads === 2, 'a second load');
		pick.hide();
	});

	test('pickWhenLoaded: Configure API URL resolves undefined and opens the setting', async () => {
		const pick = nextPick();
		const result = pickWhenLoaded(async () => {
			throw unreachable();
		});
		await until(() => pick.items.length === 3, 'the failure rows');
		pick.accept(pick.items[2]);
		assert.equal(await result, undefined);
		assert.deepEqual(fake.calls('commands.executeCommand')[0], ['workbench.action.openSettings', 'cloudAgents.apiUrl']);
	});

	test('messages: server text loses its links and line breaks; a modal warning keeps its detail apart', async () => {
		fake.answer('window.showInformationMessage', async () => 'OK');
		assert.equal(await showInfo('Agent [x](command:rm)\ndone', 'OK'), 'OK');
		const [info] = fake.calls('window.showInformationMessage');
		assert.equal(info![0], 'Agent [x] (command: rm) done');
		assert.equal(info![1], 'OK');
		await showWarning('w\u202Earn');
		assert.ok(!(fake.calls('window.showWarningMessage')[0]![0] as string).includes('\u202E'));
		await showModalWarning('Delete [a](https://x)?', 'detail [b](command:y)', 'Delete');
		const modal = fake.calls('window.showWarningMessage')[1]!;
		assert.equal(modal[0], 'Delete [a] (https://x)?');
		assert.deepEqual(modal[1], { modal: true, detail: 'detail [b] (command: y)' });
		assert.equal(modal[2], 'Delete');
		await showModalWarning('m', undefined);
		assert.deepEqual(fake.calls('window.showWarningMessage')[2]![1], { modal: true, detail: undefined });
	});

	test('showModalQuestion: the dismiss button is the close affordance; choosing it or Escape is undefined', async () => {
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => args[2]);
		assert.equal(await showModalQuestion('Cancel the run?', undefined, 'Keep Running', 'Cancel Run'), 'Cancel Run');
		const call = fake.calls('window.showWarningMessage')[0]!;
		assert.deepEqual(call.slice(2), [{ title: 'Cancel Run' }, { title: 'Keep Running', isCloseAffordance: true }]);
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => args[3]);
		assert.equal(await showModalQuestion('Cancel the run?', undefined, 'Keep Running', 'Cancel Run'), undefined);
		fake.answer('window.showWarningMessage', async () => undefined);
		assert.equal(await showModalQuestion('Cancel the run?', 'd', 'Keep Running', 'Cancel Run'), undefined);
	});

	test('argString and argBoolean read a typed field of any object; anything else is undefined', () => {
		assert.equal(argString({ agentId: 'a1' }, 'agentId'), 'a1');
		assert.equal(argString({ agentId: 1 }, 'agentId'), undefined);
		assert.equal(argString('a1', 'agentId'), undefined);
		assert.equal(argString(null, 'agentId'), undefined);
		assert.equal(argString(undefined, 'agentId'), undefined);
		assert.equal(argBoolean({ quiet: false }, 'quiet'), false);
		assert.equal(argBoolean({ quiet: 'true' }, 'quiet'), undefined);
	});

	test('argValue, argFlag and argObject read only an automation object', () => {
		const auto = automation({ limit: 3, quiet: true, dryRun: 'yes', options: { a: 1 }, list: [1] });
		assert.equal(argValue(auto, 'limit'), 3);
		assert.equal(argValue({ limit: 3 }, 'limit'), undefined, 'no marker: not read');
		assert.equal(argFlag(auto, 'quiet'), true);
		assert.equal(argFlag(auto, 'dryRun'), false, 'only true itself');
		assert.equal(argFlag({ quiet: true }, 'quiet'), false);
		assert.deepEqual(argObject(auto, 'options'), { a: 1 });
		assert.equal(argObject(auto, 'list'), undefined, 'an array is no object');
		assert.equal(argObject({ options: { a: 1 } }, 'options'), undefined);
	});

	test('confirmUnlessTold: an automation object with confirm:false skips the question; anyone else is asked', async () => {
		assert.equal(await confirmUnlessTold(automation({ confirm: false }), 'Delete?', undefined, 'Delete'), true);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
		fake.answer('window.showWarningMessage', async () => 'Delete');
		assert.equal(await confirmUnlessTold({ confirm: false }, 'Delete?', undefined, 'Delete'), true);
		assert.equal(fake.calls('window.showWarningMessage').length, 1, 'no marker: asked');
		fake.answer('window.showWarningMessage', async () => undefined);
		assert.equal(await confirmUnlessTold(automation({}), 'Delete?', undefined, 'Delete'), false);
	});

	test('a ValidationError is shown as a warning naming the field and limit; any other error is rethrown', async () => {
		const err = new ValidationError('prompt', 'at most 10 bytes');
		assert.equal(validationMessage(err), 'Not sent: prompt must be at most 10 bytes.');
		await showValidation(err);
		assert.equal(fake.calls('window.showWarningMessage')[0]![0], 'Not sent: prompt must be at most 10 bytes.');
		const other = new Error('boom');
		await assert.rejects(showValidation(other), (e) => e === other);
	});

	test('isStatus: only an ApiError with that status', () => {
		assert.equal(isStatus(new ApiError(404, 'not_found', 'gone', undefined), 404), true);
		assert.equal(isStatus(new ApiError(409, 'conflict', 'x', undefined), 404), false);
		assert.equal(isStatus({ name: 'ApiError', status: 404 }, 404), false);
	});

	test('toAbortSignal: aborts when the token is cancelled, at once if it already is; dispose stops listening', () => {
		const source = new vscode.CancellationTokenSource();
		const live = toAbortSignal(source.token);
		assert.equal(live.signal.aborted, false);
		source.cancel();
		assert.equal(live.signal.aborted, true);
		live.dispose();
		const already = toAbortSignal(source.token);
		assert.equal(already.signal.aborted, true);
		const other = new vscode.CancellationTokenSource();
		const disposed = toAbortSignal(other.token);
		disposed.dispose();
		other.cancel();
		assert.equal(disposed.signal.aborted, false, 'not listening any more');
	});
});
