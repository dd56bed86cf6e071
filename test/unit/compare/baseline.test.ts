import * as assert from 'node:assert/strict';
import { checkBaseline } from '../../../src/compare/baseline';
import type { Baseline } from '../../../src/compare/types';

const SHA = 'a'.repeat(64);

suite('compare: a baseline read back from disk', () => {
	const good: Baseline = {
		version: 1,
		since: 1_700_000_000_000,
		taken: 1_700_000_100_000,
		entries: { 'src/a.ts': { size: 3, mtime: 1_700_000_000_500, sha256: SHA, agentChanged: true }, 'b.txt': { size: 0, mtime: 1 } },
		deleted: ['gone.txt'],
	};

	test('a baseline written as JSON reads back the same', () => {
		const back = checkBaseline(JSON.parse(JSON.stringify(good)), 100);
		assert.deepEqual(JSON.parse(JSON.stringify(back)), good);
		const noSince = checkBaseline(JSON.parse(JSON.stringify({ ...good, since: undefined })), 100);
		assert.equal(noSince?.since, undefined);
	});

	test('anything that is not a baseline of this version is unusable (the next comparison is a first one)', () => {
		for (const raw of [
			null,
			'text',
			[],
			{ ...good, version: 2 },
			{ ...good, taken: -1 },
			{ ...good, taken: 1.5 },
			{ ...good, since: 'yesterday' },
			{ ...good, entries: [] },
			{ ...good, entries: null },
			{ ...good, deleted: 'gone.txt' },
		]) {
			assert.equal(checkBaseline(raw, 100), undefined, JSON.stringify(raw));
		}
	});

	test('unusable entries are dropped one by one: unsafe paths, bad sizes and times; a bad hash is forgotten, not trusted', () => {
		const raw = JSON.parse(
			JSON.stringify({
				...good,
				entries: {
					'../escape.txt': { size: 1, mtime: 1 },
					'/abs.txt': { size: 1, mtime: 1 },
					'a\\b.txt': { size: 1, mtime: 1 },
					'nul\u0000.txt': { size: 1, mtime: 1 },
					'neg.txt': { size: -1, mtime: 1 },
					'float.txt': { size: 1, mtime: 1.5 },
					'str.txt': { size: '1', mtime: 1 },
					'null.txt': null,
					'badsha.txt': { size: 1, mtime: 1, sha256: 'XYZ', agentChanged: 'yes' },
					'ok.txt': { size: 1, mtime: 1 },
				},
				deleted: ['../x', 'd.txt', 'd.txt', 7, '/etc/passwd', 'e/f.txt'],
			}),
		);
		const b = checkBaseline(raw, 100);
		assert.deepEqual(Object.keys(b?.entries ?? {}).sort(), ['badsha.txt', 'ok.txt']);
		assert.deepEqual(b?.entries['badsha.txt'], { size: 1, mtime: 1 });
		assert.deepEqual(b?.deleted, ['d.txt', 'e/f.txt']);
	});

	test('a path named __proto__ is an entry like any other and pollutes nothing', () => {
		const b = checkBaseline(
			JSON.parse(
				'{"version":1,"taken":1,"entries":{"__proto__":{"size":1,"mtime":2},"x/constructor":{"size":3,"mtime":4}},"deleted":[]}',
			),
			100,
		);
		assert.ok(b);
		assert.equal(Object.getPrototypeOf(b.entries), null);
		assert.deepEqual(Object.keys(b.entries).sort(), ['__proto__', 'x/constructor']);
		assert.deepEqual(b.entries['__proto__'], { size: 1, mtime: 2 });
		assert.equal(({} as Record<string, unknown>).size, undefined);
	});

	test('at most maxEntries entries and deleted paths are kept', () => {
		const entries: Record<string, unknown> = {};
		for (let i = 0; i < 50; i++) {
			entries[`f${i}.txt`] = { size: i, mtime: i };
		}
		const b = checkBaseline({ version: 1, taken: 1, entries, deleted: Object.keys(entries) }, 10);
		assert.equal(Object.keys(b?.entries ?? {}).length, 10);
		assert.equal(b?.deleted.length, 10);
	});
});
