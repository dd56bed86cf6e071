/**
 * src/flows/activity.ts on the `vscode` fake: the Activity view's rows (server text as plain text,
 * unread marked, the default action), its badge, the notifications with the actions that fit each
 * kind, and opening an entry (which marks it read; the only link opened is an https: one).
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ActivityEvent } from '../../../src/activity/events';
import type { HistoryEntry } from '../../../src/activity/history';
import { ActivityPresenter, ActivityTree, actionsOf, activityCommands, activityRow } from '../../../src/flows/activity';
import * as fake from '../support/vscodeFake';

const NOW = Date.UTC(2026, 11, 6, 12, 0, 0);
const event = (over: Partial<ActivityEvent>): ActivityEvent => ({ key: 'k1', kind: 'runEnded', at: NOW - 5 * 60_000, ...over });

/** An Activity of fixed entries: what the tree and the presenter read and change. */
class Entries {
	private readonly changed = new vscode.EventEmitter<void>();
	readonly onDidChange = this.changed.event;
	readonly read: string[] = [];
	constructor(public list: HistoryEntry[]) {}
	entries(): readonly HistoryEntry[] {
		return this.list;
	}
	get unreadCount(): number {
		return this.list.filter((e) => !e.read).length;
	}
	get(key: string): HistoryEntry | undefined {
		return this.list.find((e) => e.event.key === key);
	}
	markRead(key: string): boolean {
		this.read.push(key);
		this.list = this.list.map((e) => (e.event.key === key ? { ...e, read: true } : e));
		this.changed.fire();
		return true;
	}
	markAllRead(): void {
		this.list = this.list.map((e) => ({ ...e, read: true }));
		this.changed.fire();
	}
	async checkNow(): Promise<void> {}
}

suite('flows/activity', () => {
	test('a row: what happened as plain text, when, unread marked, its kind as icon, a click opens it', () => {
		const row = activityRow(
			{
				event: event({
					agentName: 'Docs\u202e writer',
					agentId: 'a1',
					runId: 'r1',
					outcome: 'failed',
					status: 'FAILED',
					detail: 'boom',
				}),
				read: false,
			},
			NOW,
		);
		assert.equal(row.label, 'Docs writer: run failed (FAILED)', 'bidi control removed');
		assert.match(String(row.description), /^● unread · 5 mins ago$/);
		assert.equal((row.iconPath as vscode.ThemeIcon).id, 'error');
		assert.equal(row.contextValue, 'activity:unread');
		assert.deepEqual(row.command?.arguments, ['k1']);
		assert.equal(row.command?.command, 'cloudAgents.activity.open');
		assert.equal(typeof row.tooltip, 'string', 'plain text, never Markdown');
		assert.match(row.tooltip as string, /Status \(as the service wrote it\): FAILED/);
		const read = activityRow({ event: event({ agentName: 'Docs writer', outcome: 'succeeded' }), read: true }, NOW);
		assert.equal(read.description, '5 mins ago');
		assert.equal((read.iconPath as vscode.ThemeIcon).id, 'pass');
		assert.equal(read.contextValue, 'activity');
	});

	test('the view: entries newest first as given, the badge counts the unread and goes when all are read', () => {
		const entries = new Entries([
			{ event: event({ key: 'k2', agentName: 'B' }), read: false },
			{ event: event({ key: 'k1', agentName: 'A' }), read: true },
		]);
		const tree = new ActivityTree(entries, () => NOW);
		const view = { badge: undefined as vscode.ViewBadge | undefined };
		tree.attach(view as unknown as vscode.TreeView<HistoryEntry>);
		assert.deepEqual(
			tree.getChildren().map((e) => e.event.key),
			['k2', 'k1'],
		);
		assert.deepEqual(tree.getChildren(entries.list[0]), [], 'rows have no children');
		assert.deepEqual(view.badge, { value: 1, tooltip: '1 unread activity' });
		let redrawn = 0;
		tree.onDidChangeTreeData(() => redrawn++);
		entries.markAllRead();
		assert.equal(view.badge, undefined);
		assert.equal(redrawn, 1);
		tree.dispose();
	});

	test('the actions that fit each kind; a GitHub request without an https link offers none', () => {
		const ids = (e: ActivityEvent): string[] => actionsOf(e).map((a) => a.id);
		assert.deepEqual(ids(event({})), ['openResult', 'showAgent']);
		assert.deepEqual(ids(event({ kind: 'agentWaiting' })), ['showAgent']);
		assert.deepEqual(ids(event({ kind: 'githubAuthorization', authorizationUrl: 'https://github.com/login/device' })), [
			'openAuthorization',
		]);
		assert.deepEqual(ids(event({ kind: 'githubAuthorization' })), []);
		assert.deepEqual(ids(event({ kind: 'runtimeFailed', runtimeId: 'rt1' })), ['showRuntime']);
		assert.deepEqual(ids(event({ kind: 'buildEnded', buildId: 'b1' })), ['showBuilds']);
	});

	test("another deployment's event (issue 47): nothing that would open the default deployment's records; its row names it", () => {
		const ids = (e: ActivityEvent): string[] => actionsOf(e).map((a) => a.id);
		const theirs = { deploymentId: 'staging-example-com-0123456789ab', deployment: 'Staging' };
		assert.deepEqual(ids(event({ ...theirs })), []);
		assert.deepEqual(ids(event({ ...theirs, kind: 'runtimeFailed', runtimeId: 'rt1' })), []);
		assert.deepEqual(ids(event({ ...theirs, kind: 'githubAuthorization', authorizationUrl: 'https://github.com/login/device' })), [
			'openAuthorization',
		]);
		const row = activityRow({ event: event({ ...theirs, agentName: 'Docs', outcome: 'succeeded' }), read: true }, Date.now());
		assert.equal(row.label, 'Docs: run succeeded · Staging');
		const mine = activityRow({ event: event({ agentName: 'Docs', outcome: 'succeeded' }), read: true }, Date.now());
		assert.equal(mine.label, 'Docs: run succeeded', 'with one deployment: no name');
	});

	suite('announcing and opening', () => {
		let opened: string[];
		let entries: Entries;
		let presenter: ActivityPresenter;
		setup(() => {
			opened = [];
			entries = new Entries([]);
			presenter = new ActivityPresenter(
				entries,
				{
					openRunResult: async (a, r) => opened.push(`result ${a} ${r}`),
					revealAgent: async (a) => opened.push(`agent ${a}`),
					revealRuntime: async (r) => opened.push(`runtime ${r}`),
					revealBuilds: async () => opened.push('builds'),
					revealActivity: async () => opened.push('activity'),
				},
				{ warn: () => undefined },
			);
		});

		test('a notification per event, as plain text: information for a success, a warning for what failed or waits; its action opens and marks read', async () => {
			let chosen: (v: string | undefined) => void = () => undefined;
			fake.answer('window.showInformationMessage', () => new Promise((resolve) => (chosen = resolve)));
			const succeeded = event({ key: 'ok', agentId: 'a1', agentName: 'Docs writer', runId: 'r1', outcome: 'succeeded' });
			presenter.present(succeeded);
			const [text, ...items] = fake.calls('window.showInformationMessage')[0] as string[];
			assert.equal(text, 'Docs writer: run succeeded');
			assert.deepEqual(items, ['Open Result', 'Show Agent']);
			chosen('Open Result');
			await new Promise((resolve) => setImmediate(resolve));
			assert.deepEqual(opened, ['result a1 r1']);
			assert.deepEqual(entries.read, ['ok']);
			fake.answer('window.showWarningMessage', async () => undefined);
			presenter.present(
				event({
					key: 'w',
					kind: 'githubAuthorization',
					requestedBy: 'agent:Docs',
					reason: 'Open a PR',
					authorizationUrl: 'https://github.com/x',
				}),
			);
			const [warning, action] = fake.calls('window.showWarningMessage')[0] as string[];
			assert.equal(warning, 'agent:Docs asks for GitHub access: Open a PR');
			assert.equal(action, 'Open Authorization Page');
		});

		test('a look announces each run end and up to two other events one by one; more others, one notification that counts them, a warning, whose action shows Activity', async () => {
			fake.answer('window.showInformationMessage', async () => undefined);
			const ended = (key: string, name: string): ActivityEvent =>
				event({ key, agentId: key, agentName: name, runId: `${key}-r`, outcome: 'succeeded' });
			const asks = (key: string, who: string): ActivityEvent =>
				event({ key, kind: 'githubAuthorization', requestedBy: `agent:${who}`, reason: 'Push' });
			let chosen: (v: string | undefined) => void = () => undefined;
			fake.answer('window.showWarningMessage', () => new Promise((resolve) => (chosen = resolve)));
			{
				presenter.presentAll([ended('a', 'Alpha'), asks('g1', 'Delta'), asks('g2', 'Eta')]);
				assert.deepEqual(
					fake.calls('window.showInformationMessage').map(([text]) => text),
					['Alpha: run succeeded'],
				);
				assert.equal(fake.calls('window.showWarningMessage').length, 2, 'two others: one each');
			}
			presenter.presentAll([ended('b', 'Beta'), asks('g3', 'Delta'), ended('c', 'Gamma'), asks('g4', 'Eta'), asks('g5', 'Theta')]);
			assert.deepEqual(
				fake.calls('window.showInformationMessage').map(([text]) => text),
				['Alpha: run succeeded', 'Beta: run succeeded', 'Gamma: run succeeded'],
				'each run end on its own',
			);
			const warnings = fake.calls('window.showWarningMessage') as string[][];
			assert.equal(warnings.length, 3, 'three others: one notification');
			assert.deepEqual(warnings[2], [
				'Cloud Agents: 3 new in Activity — agent:Delta asks for GitHub access: Push; agent:Eta asks for GitHub access: Push and 1 more',
				'Show Activity',
			]);
			chosen('Show Activity');
			await new Promise((resolve) => setImmediate(resolve));
			assert.deepEqual(opened, ['activity']);
			assert.deepEqual(entries.read, [], 'showing Activity marks nothing read');
		});

		test('opening an entry (a click): its first action; an https page opens, nothing else does; an unknown key does nothing', async () => {
			entries.list = [
				{ event: event({ key: 'run', agentId: 'a1', runId: 'r1' }), read: false },
				{
					event: event({ key: 'gh', kind: 'githubAuthorization', authorizationUrl: 'https://github.com/login/device' }),
					read: false,
				},
				{ event: event({ key: 'bad', kind: 'githubAuthorization', authorizationUrl: 'http://evil.test/' }), read: false },
				{ event: event({ key: 'rt', kind: 'runtimeFailed', runtimeId: 'rt1' }), read: false },
			];
			const [command] = activityCommands(entries, presenter);
			const open = command!.run as (key: unknown) => Promise<void>;
			for (const key of ['run', 'gh', 'bad', 'rt', 'missing', 42]) {
				await open(key);
			}
			assert.deepEqual(opened, ['result a1 r1', 'runtime rt1']);
			assert.deepEqual(
				fake.calls('env.openExternal').map(([uri]) => String(uri)),
				['https://github.com/login/device'],
			);
			assert.deepEqual(entries.read, ['run', 'gh', 'bad', 'rt'], 'each opened entry is read');
		});
	});
});
