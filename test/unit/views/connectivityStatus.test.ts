import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, NetworkError } from '../../../src/api';
import { Connectivity } from '../../../src/views/connectivity';
import { ConnectionStatusBar } from '../../../src/views/connectivityStatus';
import { clockTime } from '../../../src/views/format';
import { RETRY_NOW_COMMAND } from '../../../src/views/listTree';
import { FakeClock } from '../support/fakeClock';
import * as fake from '../support/vscodeFake';

/** The status bar item the bar creates, recording whether it shows. */
interface Item {
	name?: string;
	text: string;
	tooltip?: string;
	command?: { command: string; title: string };
	visible: boolean;
	disposed: boolean;
}

function captureItem(): { item: () => Item } {
	let made: Item | undefined;
	fake.answer('window.createStatusBarItem', () => {
		const item: Item & { show(): void; hide(): void; dispose(): void } = {
			text: '',
			visible: false,
			disposed: false,
			show() {
				item.visible = true;
			},
			hide() {
				item.visible = false;
			},
			dispose() {
				item.disposed = true;
			},
		};
		made = item;
		return item;
	});
	return { item: () => made! };
}

/** The `setContext` values set for the offline key, in order. */
function offlineKeys(): unknown[] {
	return fake
		.calls('commands.executeCommand')
		.filter((c) => c[0] === 'setContext' && c[1] === 'cloudAgents.offline')
		.map((c) => c[2]);
}

const refused = (): NetworkError => new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:8787', false);

/** src/views/connectivityStatus.ts: the "reconnecting" status bar item over a real Connectivity on a fake clock. */
suite('views/connectivityStatus', () => {
	let clock: FakeClock;
	let connectivity: Connectivity;

	setup(() => {
		clock = new FakeClock(Date.UTC(2030, 0, 1, 14, 2, 11));
		connectivity = new Connectivity({ clock, random: () => 0 });
	});

	teardown(() => {
		connectivity.dispose();
	});

	test('online: the item is made (left, beside the run item) but hidden; the offline key is false', () => {
		const { item } = captureItem();
		const bar = new ConnectionStatusBar(connectivity);
		assert.deepEqual(fake.calls('window.createStatusBarItem')[0], ['cloudAgents.connection', vscode.StatusBarAlignment.Left, 49]);
		assert.equal(item().visible, false);
		assert.equal(item().name, 'Cloud Agents Connection');
		assert.equal(item().text, '$(sync~spin) Cloud Agents: reconnecting');
		assert.deepEqual(item().command, { command: RETRY_NOW_COMMAND, title: 'Retry Connection Now' });
		assert.deepEqual(offlineKeys(), [false]);
		bar.dispose();
		assert.equal(item().disposed, true);
	});

	test('offline: shown, the tooltip says since when and why; a click retries now', () => {
		const { item } = captureItem();
		const bar = new ConnectionStatusBar(connectivity);
		connectivity.reportUnreachable(refused(), { participant: { retry: async () => undefined } });
		assert.equal(item().visible, true);
		const lines = item().tooltip!.split('\n');
		assert.equal(lines[0], `Cannot reach the Cloud Agents service since ${clockTime(clock.now())}.`);
		assert.match(lines[1]!, /^Reason: .*ECONNREFUSED/);
		assert.match(lines[2]!, /refresh by themselves when it answers\. Click to retry now\./);
		assert.deepEqual(offlineKeys(), [false, true]);
		bar.dispose();
	});

	test('while an attempt runs the tooltip says so; the key is not set again for the same state', async () => {
		const { item } = captureItem();
		const bar = new ConnectionStatusBar(connectivity);
		let release!: () => void;
		const participant = {
			retry: () =>
				new Promise<void>((resolve) => {
					release = resolve;
				}),
		};
		connectivity.reportUnreachable(refused(), { participant });
		const attempt = connectivity.retryNow();
		assert.equal(connectivity.state?.attempting, true);
		assert.match(item().tooltip!, /Retrying now…$/);
		release();
		connectivity.reportUnreachable(refused(), { participant });
		await attempt;
		assert.deepEqual(offlineKeys(), [false, true], 'offline all along: set once');
		bar.dispose();
	});

	test('the service answers again: hidden at once, the key false again', () => {
		const { item } = captureItem();
		const bar = new ConnectionStatusBar(connectivity);
		connectivity.reportUnreachable(refused());
		assert.equal(item().visible, true);
		connectivity.reportAnswered();
		assert.equal(item().visible, false);
		assert.deepEqual(offlineKeys(), [false, true, false]);
		bar.dispose();
	});

	test('the reason is server text made safe: one line, a plausible request id named', () => {
		const { item } = captureItem();
		const bar = new ConnectionStatusBar(connectivity);
		const gateway = new ApiError(503, 'unavailable', 'Bad\u202Egateway\nsecond line', 'req_0123456789abcdef');
		connectivity.reportUnreachable(gateway);
		const reason = item().tooltip!.split('\n')[1]!;
		assert.ok(!reason.includes('\u202E'), reason);
		assert.match(reason, /second line/, 'the message on the same line');
		assert.match(reason, /\(request req_0123456789abcdef\)/);
		bar.dispose();
	});

	test('after dispose, a change of connectivity no longer touches the item', () => {
		const { item } = captureItem();
		const bar = new ConnectionStatusBar(connectivity);
		bar.dispose();
		connectivity.reportUnreachable(refused());
		assert.equal(item().visible, false);
		assert.deepEqual(offlineKeys(), [false]);
	});
});
