/** src/activity/history.ts: the bounded, persisted Activity history, read state, and what is stored read back strictly. */
import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { ActivityEvent } from '../../../src/activity/events';
import {
	ActivityHistory,
	HISTORY_KEY_PREFIX,
	HISTORY_MAX_ENTRIES,
	describeEvent,
	historyKey,
	restoreEvent,
} from '../../../src/activity/history';

class MemoryMemento implements Pick<vscode.Memento, 'get' | 'update'> {
	readonly values = new Map<string, unknown>();
	get<T>(key: string): T | undefined {
		// What globalState gives back is a copy of what was stored (JSON), never the object itself.
		return this.values.has(key) ? (JSON.parse(JSON.stringify(this.values.get(key))) as T) : undefined;
	}
	async update(key: string, value: unknown): Promise<void> {
		this.values.set(key, value);
		await Promise.resolve();
	}
}

/**
 * globalState as the windows of a profile hold it: each window a copy of the shared store, written
 * through, that hears of the other windows' writes only when told (`hear`), a moment later in VS Code.
 */
class SharedStore {
	readonly values = new Map<string, unknown>();
	window(): WindowMemento {
		return new WindowMemento(this);
	}
}

class WindowMemento implements Pick<vscode.Memento, 'get' | 'update'> {
	private copy: Map<string, string>;
	constructor(private readonly store: SharedStore) {
		this.copy = this.snapshot();
	}
	/** This window hears of every write made so far. */
	hear(): void {
		this.copy = this.snapshot();
	}
	get<T>(key: string): T | undefined {
		const json = this.copy.get(key);
		return json === undefined ? undefined : (JSON.parse(json) as T);
	}
	async update(key: string, value: unknown): Promise<void> {
		this.copy.set(key, JSON.stringify(value));
		this.store.values.set(key, JSON.parse(JSON.stringify(value)));
		await Promise.resolve();
	}
	private snapshot(): Map<string, string> {
		return new Map([...this.store.values].map(([k, v]) => [k, JSON.stringify(v)]));
	}
}

/** Two windows of a profile over one store, each with its copy of globalState and its history of SCOPE. */
function twoWindows(): { store: SharedStore; one: WindowMemento; two: WindowMemento; a: ActivityHistory; b: ActivityHistory } {
	const store = new SharedStore();
	const one = store.window();
	const two = store.window();
	return { store, one, two, a: new ActivityHistory(one, SCOPE), b: new ActivityHistory(two, SCOPE) };
}

const SCOPE = { apiUrl: 'https://api.example.test/', account: 'acct-fp-1' };
const T0 = Date.UTC(2026, 11, 6);

function ended(n: number, over: Partial<ActivityEvent> = {}): ActivityEvent {
	return {
		key: `run-ended:run-${n}`,
		kind: 'runEnded',
		at: T0 + n * 1_000,
		outcome: 'succeeded',
		status: 'succeeded',
		runId: `run-${n}`,
		agentId: 'ag-1',
		agentName: 'Docs writer',
		...over,
	};
}

suite('activity history', () => {
	test('newest first, unread until read; Mark All Read; the same key is one entry', () => {
		const history = new ActivityHistory(new MemoryMemento(), SCOPE);
		let changes = 0;
		history.onDidChange(() => changes++);
		assert.equal(history.add([ended(1), ended(3), ended(2)]).length, 3);
		assert.deepEqual(
			history.entries().map((e) => [e.event.runId, e.read]),
			[
				['run-3', false],
				['run-2', false],
				['run-1', false],
			],
		);
		assert.equal(history.unreadCount, 3);
		assert.equal(history.add([ended(2)]).length, 0, 'a key already kept is not added again');
		assert.equal(history.markRead('run-ended:run-2'), true);
		assert.equal(history.markRead('nope'), false);
		assert.equal(history.unreadCount, 2);
		history.markAllRead();
		assert.equal(history.unreadCount, 0);
		assert.equal(history.newestAt, T0 + 3_000);
		assert.ok(changes >= 3);
	});

	test('survives a reload: a new history over the same globalState has the same entries and read state', () => {
		const memento = new MemoryMemento();
		const first = new ActivityHistory(memento, SCOPE);
		first.add([ended(1), ended(2)]);
		first.markRead('run-ended:run-1');
		const again = new ActivityHistory(memento, SCOPE);
		assert.deepEqual(
			again.entries().map((e) => [e.event.key, e.read]),
			[
				['run-ended:run-2', false],
				['run-ended:run-1', true],
			],
		);
		assert.deepEqual(again.get('run-ended:run-2')?.event, ended(2));
	});

	test('one history per account and API URL, under a key that names neither', () => {
		const memento = new MemoryMemento();
		new ActivityHistory(memento, SCOPE).add([ended(1)]);
		assert.equal(new ActivityHistory(memento, { ...SCOPE, account: 'acct-fp-2' }).entries().length, 0);
		assert.equal(new ActivityHistory(memento, { ...SCOPE, apiUrl: 'https://other.test/' }).entries().length, 0);
		const key = historyKey(SCOPE);
		assert.match(key, new RegExp(`^${HISTORY_KEY_PREFIX.replace(/\./g, '\\.')}[0-9a-f]{32}$`));
		assert.deepEqual([...memento.values.keys()], [key]);
		assert.notEqual(historyKey(SCOPE), historyKey({ ...SCOPE, account: 'acct-fp-2' }));
	});

	test(`bounded: at most ${HISTORY_MAX_ENTRIES} entries, the newest; memory and storage do not grow with time`, () => {
		const memento = new MemoryMemento();
		const history = new ActivityHistory(memento, SCOPE);
		let size = 0;
		for (let batch = 0; batch < 50; batch++) {
			history.add(Array.from({ length: 40 }, (_, i) => ended(batch * 40 + i, { detail: 'x'.repeat(400) })));
			assert.ok(history.entries().length <= HISTORY_MAX_ENTRIES);
			const json = JSON.stringify(memento.values.get(historyKey(SCOPE))).length;
			if (batch === 10) {
				size = json;
			}
			if (batch > 10) {
				assert.ok(json <= size * 1.05, `stored ${json} bytes at batch ${batch}, ${size} at batch 10`);
			}
		}
		assert.equal(history.entries().length, HISTORY_MAX_ENTRIES);
		assert.equal(history.entries()[0]?.event.runId, 'run-1999');
		assert.equal(history.entries().at(-1)?.event.runId, `run-${2000 - HISTORY_MAX_ENTRIES}`);
		assert.deepEqual(history.add([ended(5)]), [], 'older than everything a full history keeps: not added');
	});

	test('two windows of a profile: entries added by each are both kept, and read wins', () => {
		const memento = new MemoryMemento();
		const a = new ActivityHistory(memento, SCOPE);
		const b = new ActivityHistory(memento, SCOPE);
		a.add([ended(1)]);
		b.add([ended(2), ended(1)]);
		a.markRead('run-ended:run-1');
		b.markRead('run-ended:run-2');
		const c = new ActivityHistory(memento, SCOPE);
		assert.deepEqual(
			c.entries().map((e) => [e.event.key, e.read]),
			[
				['run-ended:run-2', true],
				['run-ended:run-1', true],
			],
		);
		let fired = 0;
		a.onDidChange(() => fired++);
		a.reload();
		assert.equal(a.unreadCount, 0);
		assert.equal(fired, 1);
	});

	test("a window that has not heard of another's read yet adds an event: what was read stays read, after a reload too", () => {
		const { store, one, two, a, b } = twoWindows();
		a.add([ended(1)]);
		two.hear();
		b.add([ended(1)]);
		// A person reads the entry in the first window; the second adds a new event before it hears of that.
		assert.equal(a.markRead('run-ended:run-1'), true);
		b.add([ended(2)]);
		const reloaded = new ActivityHistory(store.window(), SCOPE);
		assert.deepEqual(
			reloaded.entries().map((e) => [e.event.key, e.read]),
			[
				['run-ended:run-2', false],
				['run-ended:run-1', true],
			],
		);
		// The first window hears of the second's write: its entry stays read, and the new one is there.
		one.hear();
		a.reload();
		assert.deepEqual(
			a.entries().map((e) => [e.event.key, e.read]),
			[
				['run-ended:run-2', false],
				['run-ended:run-1', true],
			],
		);
	});

	test("a window's entry another window wrote over before hearing of it is stored again when the first reloads", () => {
		const { store, one, a, b } = twoWindows();
		a.add([ended(1)]);
		b.add([ended(2)]);
		assert.deepEqual(
			new ActivityHistory(store.window(), SCOPE).entries().map((e) => e.event.key),
			['run-ended:run-2'],
			"the second window wrote over the first one's entry",
		);
		one.hear();
		a.reload();
		assert.deepEqual(
			new ActivityHistory(store.window(), SCOPE).entries().map((e) => e.event.key),
			['run-ended:run-2', 'run-ended:run-1'],
		);
	});

	test('a reload with nothing new writes nothing (it runs each time a window gets focus)', () => {
		const { one, two, a, b } = twoWindows();
		a.add([ended(1), ended(2)]);
		a.markRead('run-ended:run-1');
		two.hear();
		b.reload();
		const writes: string[] = [];
		const update = one.update.bind(one);
		one.update = async (key, value) => {
			writes.push(key);
			await update(key, value);
		};
		one.hear();
		a.reload();
		assert.deepEqual(writes, []);
		assert.deepEqual(
			a.entries().map((e) => [e.event.key, e.read]),
			[
				['run-ended:run-2', false],
				['run-ended:run-1', true],
			],
		);
	});

	test('what is stored is read back strictly: bad entries dropped, text bounded and neutralised, only https links', () => {
		const memento = new MemoryMemento();
		const good = { event: ended(1), read: true };
		memento.values.set(historyKey(SCOPE), {
			v: 1,
			entries: [
				good,
				null,
				{ event: { ...ended(2), kind: 'rm -rf' } },
				{ event: { ...ended(3), at: 'soon' } },
				{ event: { ...ended(4), key: 'k'.repeat(10_000) } },
				{
					event: {
						key: 'github:g1',
						kind: 'githubAuthorization',
						at: T0,
						requestId: 'g1',
						reason: `\u202egive me ${'a'.repeat(5_000)}`,
						authorizationUrl: 'javascript:alert(1)',
						runId: '../../x\u0000',
					},
				},
				...Array.from({ length: 500 }, (_, i) => ({ event: ended(100 + i) })),
			],
		});
		const history = new ActivityHistory(memento, SCOPE);
		assert.ok(history.entries().length <= HISTORY_MAX_ENTRIES);
		assert.equal(history.get('run-ended:run-1')?.read, true);
		assert.equal(history.get('run-ended:run-2'), undefined);
		assert.equal(history.get('run-ended:run-3'), undefined);
		const github = history.get('github:g1')?.event;
		assert.ok(github);
		assert.equal(github.authorizationUrl, undefined);
		assert.equal(github.runId, undefined);
		assert.ok((github.reason ?? '').length <= 400);
		assert.ok(!(github.reason ?? '').includes('\u202e'));
		assert.equal(restoreEvent('nope'), undefined);
		assert.equal(restoreEvent({ ...ended(1), outcome: 'exploded' })?.outcome, undefined);
	});

	test('describeEvent says what happened in one line, with the server text neutralised', () => {
		assert.equal(describeEvent(ended(1)), 'Docs writer: run succeeded');
		assert.equal(describeEvent(ended(1, { outcome: 'failed', status: 'errored' })), 'Docs writer: run failed (errored)');
		assert.equal(describeEvent(ended(1, { outcome: 'ended', status: 'wrapped_up' })), 'Docs writer: run ended (wrapped_up)');
		assert.equal(
			describeEvent({
				key: 'github:g',
				kind: 'githubAuthorization',
				at: T0,
				requestedBy: 'agent:\u202eDocs',
				reason: 'Push\nthe branch',
			}),
			'agent:Docs asks for GitHub access: Push the branch',
		);
		assert.equal(
			describeEvent({ key: 'r', kind: 'runtimeFailed', at: T0, runtimeId: 'rt', runtimeName: 'atlas', status: 'crashed' }),
			'Runtime atlas is crashed',
		);
		assert.equal(
			describeEvent({ key: 'b', kind: 'buildEnded', at: T0, buildId: 'b1', outcome: 'succeeded', status: 'ready' }),
			'Image build b1 succeeded',
		);
	});
});
