import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import {
	agentPathOf,
	baseName,
	checkRelativePath,
	UnsafePathError,
	isSameOrBelow,
	joinPath,
	localIdName,
	LocalPathEscapeError,
	normalizeWorkspacePath,
	parentPath,
	resolveInsidePosix,
	safeFileName,
	WorkspacePathError,
} from '../../../src/util/paths';
import { join, posix } from 'node:path';
import { assertSafeLocalWrite, localPathOf } from '../../../src/platform/node/nodeLocalFiles';
import { SAFETY } from '../../../src/api';

/** src/util/paths.ts: workspace paths, local paths (with the Node local folder's write checks that use them), local names from server data. */
suite('util/paths: workspace paths', () => {
	test('normalises URI paths to workspace paths (leading slash, empty and "." segments dropped)', () => {
		assert.equal(normalizeWorkspacePath('/'), '');
		assert.equal(normalizeWorkspacePath(''), '');
		assert.equal(normalizeWorkspacePath('/src/lib/util.ts'), 'src/lib/util.ts');
		assert.equal(normalizeWorkspacePath('//src/./lib//util.ts/'), 'src/lib/util.ts');
		assert.equal(normalizeWorkspacePath('/naïve ✓.md'), 'naïve ✓.md');
	});

	test('refuses escapes from the root, backslashes and NUL with a stable problem code', () => {
		const problem = (p: string): string | undefined => {
			try {
				normalizeWorkspacePath(p);
				return undefined;
			} catch (err) {
				assert.ok(err instanceof WorkspacePathError);
				return err.problem;
			}
		};
		assert.equal(problem('/../etc/passwd'), 'escape');
		assert.equal(problem('/src/../../x'), 'escape');
		assert.equal(problem('/src/..'), 'escape');
		assert.equal(problem('/a\\b'), 'backslash');
		assert.equal(problem('/a\0b'), 'nul');
		assert.equal(problem('/src/..x/ok'), undefined, '"..x" is an ordinary name');
	});

	test('refuses paths over 4,096 UTF-8 bytes and accepts exactly 4,096', () => {
		assert.equal(normalizeWorkspacePath(`/${'a'.repeat(4096)}`).length, 4096);
		assert.throws(
			() => normalizeWorkspacePath(`/${'a'.repeat(4097)}`),
			(err: unknown) => err instanceof WorkspacePathError && err.problem === 'too_long',
		);
		// 2,049 two-byte characters are 4,098 bytes.
		assert.throws(() => normalizeWorkspacePath(`/${'é'.repeat(2049)}`), WorkspacePathError);
	});

	test('parent, base name, join and ancestry', () => {
		assert.equal(parentPath('a/b/c'), 'a/b');
		assert.equal(parentPath('a'), '');
		assert.equal(baseName('a/b/c'), 'c');
		assert.equal(joinPath('', 'x'), 'x');
		assert.equal(joinPath('a', 'x'), 'a/x');
		assert.ok(isSameOrBelow('a/b', 'a'));
		assert.ok(isSameOrBelow('a', 'a'));
		assert.ok(!isSameOrBelow('ab', 'a'));
		assert.ok(isSameOrBelow('anything', ''));
	});
});

/**
 * Paths of a comparison (issue 21): hostile relative paths are refused before any use, local
 * targets stay inside the linked folder (no `..`, no symlinked component). Local hashing: fileRead.test.ts.
 */

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

suite('util/paths: local file names from server data', () => {
	test('safeFileName never yields a separator, "." or "..", a hidden or empty name', () => {
		const hostile = [
			'../../../../tmp/pwned',
			'..\\..\\windows\\system32',
			'/etc/passwd',
			'a/b\\c',
			'..',
			'.',
			'',
			'...',
			'   ',
			'.bashrc',
			'. .',
			'\\',
			'/',
		];
		for (const raw of hostile) {
			const name = safeFileName(raw, 'artifact');
			assert.ok(name.length > 0, JSON.stringify(raw));
			assert.ok(!/[/\\]/.test(name), `${JSON.stringify(raw)} → ${name}`);
			assert.ok(name !== '.' && name !== '..' && !name.startsWith('.'), `${JSON.stringify(raw)} → ${name}`);
		}
		assert.equal(safeFileName('../../evil.txt'), '_.._evil.txt');
		assert.equal(safeFileName('', 'artifact'), 'artifact');
		assert.equal(safeFileName('..', '../also-bad'), '_also-bad');
		assert.equal(safeFileName(undefined), 'file');
		assert.equal(safeFileName('report.txt'), 'report.txt', 'ordinary names are kept');
		assert.equal(safeFileName('Ünïcödé naïve.md'), 'Ünïcödé naïve.md');
	});

	test('safeFileName drops control, bidi and invisible characters and Windows-reserved characters', () => {
		assert.equal(safeFileName('x\u0007y\u0000z\n.txt'), 'xyz.txt');
		assert.equal(safeFileName('invoice\u202Etxt.exe'), 'invoicetxt.exe');
		assert.equal(safeFileName('a\u200Bb\u2066c\uFEFF'), 'abc');
		assert.equal(safeFileName('a<b>c:d"e|f?g*h'), 'a_b_c_d_e_f_g_h');
		assert.equal(safeFileName('lone\uD800surrogate'), 'lonesurrogate');
		assert.equal(safeFileName('\u0085\u009f'), 'file');
	});

	test('safeFileName renames Windows device names with any extension and in any case', () => {
		for (const raw of ['CON', 'con', 'PRN.txt', 'aux.tar.gz', 'NUL', 'nul.', 'COM1', 'com9.log', 'LPT1', 'lpt9.md', 'COM¹']) {
			const name = safeFileName(raw);
			assert.ok(!/^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i.test(name), `${raw} → ${name}`);
		}
		assert.equal(safeFileName('CON.txt'), '_CON.txt');
		assert.equal(safeFileName('console.log'), 'console.log', 'only the exact device names');
		assert.equal(safeFileName('COM10'), 'COM10');
	});

	test('safeFileName removes trailing dots and spaces and cuts long names, keeping the extension', () => {
		assert.equal(safeFileName('name. . '), 'name');
		const long = safeFileName(`${'a'.repeat(500)}.png`);
		assert.equal(long.length, SAFETY.localNameMaxChars);
		assert.ok(long.endsWith('.png'));
		const emoji = safeFileName('😀'.repeat(200));
		assert.ok(emoji.length <= SAFETY.localNameMaxChars);
		assert.ok(!/[\ud800-\udbff]$/.test(emoji), 'no half surrogate pair at the cut');
		assert.ok(safeFileName('x'.repeat(10_000)).length <= SAFETY.localNameMaxChars);
	});

	test('resolveInsidePosix joins names as node:path.posix resolves them and refuses every way out of the folder', () => {
		const root = '/tmp/cloud-agents-root';
		assert.equal(resolveInsidePosix(root, 'a', 'b.txt'), posix.join(root, 'a', 'b.txt'));
		for (const names of [
			['..'],
			['../x'],
			['a', '../../x'],
			['/etc/passwd'],
			['.'],
			[''],
			['a/../..'],
			[posix.join(root, '..', 'x')],
		]) {
			assert.throws(() => resolveInsidePosix(root, ...names), LocalPathEscapeError, JSON.stringify(names));
		}
		assert.equal(resolveInsidePosix(root, 'a/../b'), posix.join(root, 'b'), 'a path that stays inside is fine');
		for (const names of [['a/./b//c'], ['a', '/tmp/cloud-agents-root/x'], ['x/..', 'y'], ['a', '..', 'b', 'c/../d']]) {
			assert.equal(resolveInsidePosix(`${root}/`, ...names), posix.resolve(root, ...names), JSON.stringify(names));
		}
		assert.throws(() => resolveInsidePosix(root, safeFileName('..'), '..', '..'), LocalPathEscapeError);
		assert.equal(resolveInsidePosix('/s/artifacts', 'k', 'x.png'), '/s/artifacts/k/x.png');
		assert.throws(() => resolveInsidePosix('/s/artifacts', '../../../../tmp/pwned'), LocalPathEscapeError);
		assert.throws(() => resolveInsidePosix('/s/artifacts', '/tmp/pwned'), LocalPathEscapeError);
		assert.throws(() => resolveInsidePosix('/s/artifacts', '..'), LocalPathEscapeError);
		// A sibling folder whose name starts like the root is outside.
		assert.throws(() => resolveInsidePosix('/s/artifacts', '../artifacts-evil/x'), LocalPathEscapeError);
	});
});

suite('localIdName: the file names of run histories from server ids (the store itself: test/integration/suite/runStore.test.ts)', () => {
	test('ordinary ids keep the names earlier versions used', () => {
		assert.equal(localIdName('run_0001'), 'run_0001');
		assert.equal(localIdName('3f0c1d2e-4b5a-4c6d-8e7f-0a1b2c3d4e5f.claude'), '3f0c1d2e-4b5a-4c6d-8e7f-0a1b2c3d4e5f%2Eclaude');
	});

	test('hostile ids become safe, distinct, stable, short single names', () => {
		const ids = [
			'../../../../tmp/pwned',
			'..',
			'.',
			'',
			'CON',
			'nul.txt',
			'a/b',
			'a\\b',
			'x'.repeat(300),
			'y'.repeat(300),
			'lone\uD800',
			'bidi\u202Eexe',
			"it's(*)!",
			'a%2Fb',
		];
		const names = new Set<string>();
		for (const id of ids) {
			const name = localIdName(id);
			for (const part of [name, `${name}.jsonl`]) {
				assert.ok(part.length <= SAFETY.localNameMaxChars, `${part.length} characters`);
				assert.equal(safeFileName(part, ''), part, `${JSON.stringify(id)} → ${part} is a safe file name`);
				assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(part), part);
				assert.ok(!/[\\/]/.test(part) && part !== '.' && part !== '..', part);
			}
			names.add(name);
			assert.equal(localIdName(id), name, 'stable');
		}
		assert.equal(names.size, ids.length, 'distinct ids never share a name');
	});
});
