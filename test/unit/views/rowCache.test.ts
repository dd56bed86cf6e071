import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { MAX_ROWS, ROW_CACHE_KEY, RowCache } from '../../../src/views/rowCache';
import type { CacheScope } from '../../../src/views/rowCache';

/** An in-memory Memento that counts its updates and can be made to refuse them. */
class Memento {
	readonly values = new Map<string, unknown>();
	updates = 0;
	refuse: Error | undefined;
	keys(): readonly string[] {
		return [...this.values.keys()];
	}
	get<T>(key: string, fallback?: T): T | undefined {
		return this.values.has(key) ? (this.values.get(key) as T) : fallback;
	}
	update(key: string, value: unknown): Promise<void> {
		this.updates++;
		if (this.refuse) {
			return Promise.reject(this.refuse);
		}
		if (value === undefined) {
			this.values.delete(key);
		} else {
			this.values.set(key, value);
		}
		return Promise.resolve();
	}
}

/** The session as the cache reads it: a scope the test sets and a change event. */
class Scope {
	private readonly emitter = new vscode.EventEmitter<void>();
	readonly onDidChange = this.emitter.event;
	constructor(public cacheScope: CacheScope | undefined) {}
	change(scope: CacheScope | undefined): void {
		this.cacheScope = scope;
		this.emitter.fire();
	}
}

const T0 = Date.UTC(2030, 0, 1);
const ALICE: CacheScope = { apiUrl: 'https://api.example.test', account: 'aaaaaaaaaaaaaaaa', since: T0 - 1000 };
const BOB: CacheScope = { ...ALICE, account: 'bbbbbbbbbbbbbbbb' };

/** src/views/rowCache.ts: what is kept, for whom, and when it is dropped. */
suite('views/rowCache', () => {
	const realNow = Date.now;
	let now = T0;
	let memento: Memento;
	let scope: Scope;
	let errors: unknown[];
	let cache: RowCache;

	setup(() => {
		now = T0;
		Date.now = () => now;
		memento = new Memento();
		scope = new Scope(ALICE);
		errors = [];
		cache = new RowCache(memento, scope, (err) => errors.push(err));
	});

	teardown(() => {
		cache.dispose();
		Date.now = realNow;
	});

	const stored = (): Record<string, { apiUrl: string; account: string; savedAt: number; items: unknown[] }> =>
		memento.get(ROW_CACHE_KEY) as never;

	test('rows written after a read that started under the current scope are read back, with when they were kept', () => {
		cache.write('agents', [{ id: 'a1' }, { id: 'a2' }], ALICE.since + 1);
		assert.deepEqual(cache.read('agents'), { savedAt: T0, items: [{ id: 'a1' }, { id: 'a2' }] });
		assert.equal(stored().agents!.apiUrl, ALICE.apiUrl);
		assert.equal(stored().agents!.account, ALICE.account);
		assert.equal(cache.read('runs'), undefined, 'another list has nothing');
	});

	test('nothing is written signed out, without a start time, or for a read started before the scope changed', () => {
		cache.write('agents', [{ id: 'a1' }], undefined);
		cache.write('agents', [{ id: 'a1' }], ALICE.since);
		cache.write('agents', [{ id: 'a1' }], ALICE.since - 5);
		scope.cacheScope = undefined;
		cache.write('agents', [{ id: 'a1' }], T0);
		assert.equal(memento.updates, 0);
		assert.equal(memento.get(ROW_CACHE_KEY), undefined);
	});

	test('at most MAX_ROWS rows are kept, as a JSON copy (later changes to the records are not kept)', () => {
		const items = Array.from({ length: MAX_ROWS + 20 }, (_, i) => ({ id: `a${i}`, when: new Date(T0) }));
		cache.write('agents', items, T0);
		items[0]!.id = 'changed';
		const read = cache.read('agents')!;
		assert.equal(read.items.length, MAX_ROWS);
		assert.deepEqual(read.items[0], { id: 'a0', when: new Date(T0).toISOString() });
		assert.deepEqual(read.items.at(-1), { id: `a${MAX_ROWS - 1}`, when: new Date(T0).toISOString() });
	});

	test('the same rows are written again only after a minute; other rows at once', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		now += 30_000;
		cache.write('agents', [{ id: 'a1' }], T0);
		assert.equal(memento.updates, 1, 'unchanged rows, within a minute: not written');
		assert.equal(cache.read('agents')!.savedAt, T0);
		cache.write('agents', [{ id: 'a1' }, { id: 'a2' }], T0);
		assert.equal(memento.updates, 2, 'changed rows are written at once');
		now += 60_000;
		cache.write('agents', [{ id: 'a1' }, { id: 'a2' }], T0);
		assert.equal(memento.updates, 3);
		assert.equal(cache.read('agents')!.savedAt, now, 'the "last loaded" time moves on');
	});

	test('lists are kept side by side; each write keeps the others', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		cache.write('runtimes', [{ id: 'rt1' }], T0);
		assert.deepEqual(Object.keys(stored()).sort(), ['agents', 'runtimes']);
		assert.deepEqual(cache.read('agents')!.items, [{ id: 'a1' }]);
		assert.deepEqual(cache.read('runtimes')!.items, [{ id: 'rt1' }]);
	});

	test('rows of another account or another URL are not read', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		scope.cacheScope = BOB;
		assert.equal(cache.read('agents'), undefined);
		scope.cacheScope = { ...ALICE, apiUrl: 'https://other.example.test' };
		assert.equal(cache.read('agents'), undefined);
		scope.cacheScope = undefined;
		assert.equal(cache.read('agents'), undefined);
		scope.cacheScope = ALICE;
		assert.deepEqual(cache.read('agents')!.items, [{ id: 'a1' }]);
	});

	test('an entry written by someone else is read strictly: wrong version, types, too many rows, a non-object', () => {
		const good = { v: 1, apiUrl: ALICE.apiUrl, account: ALICE.account, savedAt: T0 - 10, items: [{ id: 'x' }] };
		const cases: Record<string, unknown> = {
			good,
			v2: { ...good, v: 2 },
			noUrl: { ...good, apiUrl: 1 },
			nanTime: { ...good, savedAt: Number.NaN },
			infTime: { ...good, savedAt: Number.POSITIVE_INFINITY },
			strTime: { ...good, savedAt: String(T0) },
			notArray: { ...good, items: { 0: 'x' } },
			tooMany: { ...good, items: Array.from({ length: MAX_ROWS + 1 }, () => ({})) },
			array: [good],
			nothing: null,
		};
		memento.values.set(ROW_CACHE_KEY, cases);
		assert.deepEqual(cache.read('good'), { savedAt: T0 - 10, items: [{ id: 'x' }] });
		for (const key of Object.keys(cases).filter((k) => k !== 'good')) {
			assert.equal(cache.read(key), undefined, key);
		}
		memento.values.set(ROW_CACHE_KEY, ['not', 'an', 'object']);
		assert.equal(cache.read('0'), undefined);
	});

	test('a "last loaded" time in the future (a clock set back) reads as now', () => {
		memento.values.set(ROW_CACHE_KEY, {
			agents: { v: 1, apiUrl: ALICE.apiUrl, account: ALICE.account, savedAt: T0 + 3_600_000, items: [] },
		});
		assert.equal(cache.read('agents')!.savedAt, T0);
	});

	test('a change of the sign-in state drops the entries it no longer allows, and only those', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		scope.cacheScope = BOB;
		cache.write('runtimes', [{ id: 'rt1' }], T0);
		assert.deepEqual(Object.keys(stored()).sort(), ['agents', 'runtimes']);
		scope.change(BOB);
		assert.deepEqual(Object.keys(stored()), ['runtimes'], "Alice's rows are gone once Bob is signed in");
		const updates = memento.updates;
		scope.change(BOB);
		assert.equal(memento.updates, updates, 'nothing to drop: nothing written');
		scope.change({ ...BOB, apiUrl: 'https://other.example.test' });
		assert.equal(memento.get(ROW_CACHE_KEY), undefined, 'no entry left: the key is removed');
	});

	test('signed out, every entry goes; clear writes nothing when nothing is kept', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		scope.change(undefined);
		assert.equal(memento.get(ROW_CACHE_KEY), undefined);
		const updates = memento.updates;
		cache.clear();
		assert.equal(memento.updates, updates);
	});

	test('after a prune or clear, the same rows are written again at once (nothing remembered as written)', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		cache.clear();
		cache.write('agents', [{ id: 'a1' }], T0);
		assert.deepEqual(cache.read('agents')!.items, [{ id: 'a1' }]);
	});

	test('a refused globalState update goes to onError, not to the caller', async () => {
		const refused = new Error('disk full');
		memento.refuse = refused;
		cache.write('agents', [{ id: 'a1' }], T0);
		await new Promise((resolve) => setImmediate(resolve));
		assert.deepEqual(errors, [refused]);
	});

	test('after dispose, a change of the sign-in state no longer prunes', () => {
		cache.write('agents', [{ id: 'a1' }], T0);
		cache.dispose();
		scope.change(undefined);
		assert.ok(stored().agents);
	});
});
