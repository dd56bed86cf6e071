import * as assert from 'node:assert/strict';
import { posix } from 'node:path';
import { SAFETY } from '../../../src/api';
import { LocalPathEscapeError, localIdName, resolveInsidePosix, safeFileName } from '../../../src/util/paths';

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
