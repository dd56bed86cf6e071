import * as assert from 'node:assert/strict';
import { SAFETY } from '../../../../src/api';
import type { WorkspaceEntry } from '../../../../src/api';
import { AgentCache, count, entryNameProblem, entryType, statOf } from '../../../../src/workspace/fs/agentCache';
import type { Shown } from '../../../../src/workspace/fs/agentCache';
import type { EntryStat } from '../../../../src/workspace/fs/workspaceModel';

const FILE: EntryStat = { type: 'file', size: 1, mtime: 1 };
const DIR: EntryStat = { type: 'directory', size: 0, mtime: 1 };

/** A cache holding `paths` in its known entries, listings and virtual folders alike. */
function cacheWith(paths: string[]): AgentCache {
	const cache = new AgentCache(new Map());
	for (const path of paths) {
		cache.known.set(path, { stat: path.endsWith('.txt') ? FILE : DIR, at: 1 });
		cache.listings.set(path, { names: new Set(), at: 1 });
		cache.virtualDirs.set(path, 1);
	}
	return cache;
}

const keys = (cache: AgentCache): string[][] => [
	[...cache.known.keys()].sort(),
	[...cache.listings.keys()].sort(),
	[...cache.virtualDirs.keys()].sort(),
];

suite('fs/agentCache', () => {
	suite('AgentCache.forgetBelow', () => {
		test('drops the path and everything below it, in known entries, listings and virtual folders; a sibling sharing the prefix stays', () => {
			const cache = cacheWith(['src', 'src/a.txt', 'src/lib', 'src/lib/b.txt', 'src2', 'src2/c.txt', 'srcx.txt', 'docs']);
			cache.forgetBelow('src');
			const left = ['docs', 'src2', 'src2/c.txt', 'srcx.txt'];
			assert.deepEqual(keys(cache), [left, left, left]);
		});

		test('a path below a folder drops only that branch; a path nothing is known of drops nothing', () => {
			const cache = cacheWith(['src', 'src/lib', 'src/lib/b.txt', 'src/a.txt']);
			cache.forgetBelow('src/lib');
			assert.deepEqual(keys(cache)[0], ['src', 'src/a.txt']);
			cache.forgetBelow('nowhere');
			cache.forgetBelow('src/a.txt/inner');
			assert.deepEqual(keys(cache)[0], ['src', 'src/a.txt']);
		});

		test('the root ("") drops every entry and the root listing; a forget below the root keeps the root listing', () => {
			const cache = cacheWith(['', 'a', 'a/b.txt', 'c.txt']);
			cache.forgetBelow('a');
			assert.ok(cache.listings.has(''), 'the root listing stays when a child is forgotten');
			cache.forgetBelow('');
			assert.deepEqual(
				keys(cache),
				[[''], [], ['']],
				"only the root's own known entry and virtual mark stay (the root is always a folder)",
			);
		});

		test('leaves what is not a map of paths alone: what stat showed, approvals, reported folders and the root mtime', () => {
			const shown = new Map<string, Shown>([['a/b.txt', { size: 1, serviceMtime: 5, mtime: 5 }]]);
			const cache = new AgentCache(shown);
			cache.known.set('a/b.txt', { stat: FILE, at: 1 });
			cache.approvedLarge.add('a/b.txt');
			cache.reportedFolders.add('a');
			cache.rootMtime = 42;
			cache.forgetBelow('a');
			assert.equal(cache.known.size, 0);
			assert.equal(cache.shown, shown);
			assert.deepEqual([...shown.keys()], ['a/b.txt'], 'the reported mtimes outlive forgetting, so they only grow');
			assert.ok(cache.approvedLarge.has('a/b.txt'));
			assert.ok(cache.reportedFolders.has('a'));
			assert.equal(cache.rootMtime, 42);
		});
	});

	suite('entryType, count and statOf', () => {
		test('entryType: "directory" is a folder, anything else the service says is a file', () => {
			const entry = (type: unknown): WorkspaceEntry => ({ name: 'x', path: 'x', type, size: 0 }) as unknown as WorkspaceEntry;
			assert.equal(entryType(entry('directory')), 'directory');
			assert.equal(entryType(entry('file')), 'file');
			assert.equal(entryType(entry('symlink')), 'file');
			assert.equal(entryType(entry('Directory')), 'file');
			assert.equal(entryType(entry(undefined)), 'file');
		});

		test('count: only non-negative safe integers pass', () => {
			for (const ok of [0, 1, 1_760_000_000_000, Number.MAX_SAFE_INTEGER]) {
				assert.equal(count(ok), ok);
			}
			for (const [i, bad] of [
				-1,
				1.5,
				Number.NaN,
				Infinity,
				-Infinity,
				Number.MAX_SAFE_INTEGER + 1,
				'5',
				null,
				undefined,
				{},
				5n,
			].entries()) {
				assert.equal(count(bad), undefined, `value #${i}`);
			}
		});

		test('statOf: the type as entryType reads it, a bad size as 0, a bad mtime as undefined', () => {
			assert.deepEqual(statOf({ type: 'file', size: 12, mtime_unix_ms: 1_760_000_000_000 }), {
				type: 'file',
				size: 12,
				mtime: 1_760_000_000_000,
			});
			assert.deepEqual(statOf({ type: 'directory' }), { type: 'directory', size: 0, mtime: undefined });
			assert.deepEqual(statOf({ type: 'socket', size: -3, mtime_unix_ms: 1e300 }), { type: 'file', size: 0, mtime: undefined });
			assert.deepEqual(statOf({ size: '12', mtime_unix_ms: '1760000000000' }), { type: 'file', size: 0, mtime: undefined });
			assert.deepEqual(statOf({ size: 2 ** 53, mtime_unix_ms: -1 }), { type: 'file', size: 0, mtime: undefined });
		});
	});

	suite('entryNameProblem', () => {
		const none = new Set<string>();

		test('ordinary names, unicode and dots within a name included, are usable', () => {
			for (const name of [
				'README.md',
				'.gitignore',
				'...',
				'a..b',
				'ünïcode name.md',
				'日本語',
				'emoji 😀.txt',
				'x'.repeat(SAFETY.entryNameMaxChars),
			]) {
				assert.equal(entryNameProblem(name, none), undefined, name);
			}
		});

		test('each unusable name says why', () => {
			const cases: Array<[unknown, string]> = [
				['', 'empty'],
				[undefined, 'empty'],
				[42, 'empty'],
				[null, 'empty'],
				['.', '"."'],
				['..', '".."'],
				['a/b', 'a path separator'],
				['/', 'a path separator'],
				['a\\b', 'a path separator'],
				['x'.repeat(SAFETY.entryNameMaxChars + 1), `longer than ${SAFETY.entryNameMaxChars} characters`],
				['bell\u0007', 'control or invisible characters'],
				['tab\there', 'control or invisible characters'],
				['nul\u0000', 'control or invisible characters'],
				['line\nbreak', 'control or invisible characters'],
				['rtl\u202Etxt.exe', 'control or invisible characters'],
				['zero\u200Bwidth', 'control or invisible characters'],
				['bom\uFEFF', 'control or invisible characters'],
				['lone\uD800', 'control or invisible characters'],
			];
			for (const [name, problem] of cases) {
				assert.equal(entryNameProblem(name, none), problem, JSON.stringify(name));
			}
		});

		test('a name already seen in the listing is a duplicate; names are compared exactly', () => {
			const seen = new Set(['a.txt', 'B']);
			assert.equal(entryNameProblem('a.txt', seen), 'a duplicate');
			assert.equal(entryNameProblem('A.txt', seen), undefined);
			assert.equal(entryNameProblem('b', seen), undefined);
			assert.equal(entryNameProblem('a.txt ', seen), undefined);
		});

		test('the length bound counts UTF-16 units: 255 is fine, 256 is not, whatever the characters', () => {
			const max = SAFETY.entryNameMaxChars;
			const atBound = '😀'.repeat(Math.floor(max / 2)) + 'x'.repeat(max % 2); // '😀' is two UTF-16 units
			assert.equal(atBound.length, max);
			assert.equal(entryNameProblem(atBound, none), undefined);
			assert.equal(entryNameProblem(`${atBound}x`, none), `longer than ${max} characters`);
		});
	});
});
