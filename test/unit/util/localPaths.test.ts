/**
 * Paths of a comparison (issue 21): hostile relative paths are refused before any use, local
 * targets stay inside the linked folder (no `..`, no symlinked component). Local hashing: fileRead.test.ts.
 */
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UnsafePathError, agentPathOf, checkRelativePath } from '../../../src/util/paths';
import { assertSafeLocalWrite, localPathOf } from '../../../src/platform/node/nodeLocalFiles';

const HOSTILE = [
	'',
	'../x',
	'a/../../x',
	'a/./b',
	'..',
	'.',
	'/etc/passwd',
	'a//b',
	'a/',
	'/',
	'a\\b',
	'..\\x',
	'a\u0000b',
	'a\nb',
	'a\u007fb',
	'C:x',
	'c:/windows',
];

suite('util/paths: hostile relative paths', () => {
	test('checkRelativePath accepts a/b/c.txt style paths unchanged', () => {
		for (const p of ['a', 'a/b/c.txt', '.gitignore', 'x..y/z', 'ünïcode/ファイル.md', 'a b/c d']) {
			assert.equal(checkRelativePath(p), p);
		}
	});

	test('checkRelativePath throws UnsafePathError (with .path) on empty, absolute, ./.. and empty segments, backslashes, control characters, drive letters', () => {
		for (const p of HOSTILE) {
			assert.throws(
				() => checkRelativePath(p),
				(err: unknown) => err instanceof UnsafePathError && err.path === p,
				JSON.stringify(p),
			);
		}
	});

	test('agentPathOf joins onto the agent folder ("" = the workspace root) and refuses hostile parts', () => {
		assert.equal(agentPathOf('', 'src/a.ts'), 'src/a.ts');
		assert.equal(agentPathOf('repo', 'src/a.ts'), 'repo/src/a.ts');
		assert.throws(() => agentPathOf('repo', '../x'), UnsafePathError);
		assert.throws(() => agentPathOf('../up', 'x'), UnsafePathError);
		assert.throws(() => agentPathOf('', 'a'.repeat(5000)), /4096/);
	});

	test('localPathOf stays strictly inside the local folder, or throws', () => {
		const root = join(tmpdir(), 'ca-root');
		assert.equal(localPathOf(root, 'a/b.txt'), join(root, 'a', 'b.txt'));
		for (const p of HOSTILE) {
			assert.throws(() => localPathOf(root, p), UnsafePathError, JSON.stringify(p));
		}
	});
});

suite('util/paths: local writes against symbolic links', () => {
	let dir: string;
	let root: string;
	let outside: string;

	suiteSetup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-compare-paths-'));
		root = join(dir, 'root');
		outside = join(dir, 'outside');
		await mkdir(join(root, 'sub'), { recursive: true });
		await mkdir(outside, { recursive: true });
		await writeFile(join(root, 'sub', 'f.txt'), 'hello');
		await writeFile(join(outside, 'secret.txt'), 'secret');
		await symlink(outside, join(root, 'escape'), 'dir'); // a symlinked folder pointing outside
		await symlink(join(outside, 'secret.txt'), join(root, 'sub', 'link.txt'), 'file');
		await symlink(join(root, 'sub'), join(root, 'inner'), 'dir'); // a symlinked folder pointing inside
	});
	suiteTeardown(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test('assertSafeLocalWrite: a plain existing or new file (new folders too) is the absolute path', async () => {
		assert.equal(await assertSafeLocalWrite(root, 'sub/f.txt'), join(root, 'sub', 'f.txt'));
		assert.equal(await assertSafeLocalWrite(root, 'new/deeper/g.txt'), join(root, 'new', 'deeper', 'g.txt'));
	});

	test('assertSafeLocalWrite: a symlinked ancestor pointing outside, one pointing inside, and a symlinked target all throw', async () => {
		for (const rel of ['escape/secret.txt', 'escape/new.txt', 'escape/a/b.txt', 'inner/f.txt', 'sub/link.txt']) {
			await assert.rejects(assertSafeLocalWrite(root, rel), UnsafePathError, rel);
		}
		for (const rel of ['../outside/secret.txt', 'a/../../outside/x']) {
			await assert.rejects(assertSafeLocalWrite(root, rel), UnsafePathError, rel);
		}
	});

	test('assertSafeLocalWrite: a root that is itself reached through a link is fine, its inside checked by real path', async () => {
		const alias = join(dir, 'alias');
		await symlink(root, alias, 'dir');
		assert.equal(await assertSafeLocalWrite(alias, 'sub/f.txt'), join(alias, 'sub', 'f.txt'));
		await assert.rejects(assertSafeLocalWrite(alias, 'escape/x'), UnsafePathError);
	});
});
