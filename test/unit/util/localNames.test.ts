import * as assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, sep } from 'node:path';
import { SAFETY } from '../../../src/api';
import { RunEventStore, localIdName } from '../../../src/runFollowing/runStore';
import { LocalPathEscapeError, resolveInside, resolveInsidePosix, safeFileName } from '../../../src/util/paths';

/** True when `file` lies strictly inside `folder`. */
const inside = (folder: string, file: string): boolean => {
	const rel = relative(folder, file);
	return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep);
};

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

	test('resolveInside joins names and refuses every way out of the folder', () => {
		const root = join(tmpdir(), 'cloud-agents-root');
		assert.equal(resolveInside(root, 'a', 'b.txt'), join(root, 'a', 'b.txt'));
		for (const names of [['..'], ['../x'], ['a', '../../x'], ['/etc/passwd'], ['.'], [''], ['a/../..'], [join(root, '..', 'x')]]) {
			assert.throws(() => resolveInside(root, ...names), LocalPathEscapeError, JSON.stringify(names));
		}
		assert.equal(resolveInside(root, 'a/../b'), join(root, 'b'), 'a path that stays inside is fine');
		assert.throws(() => resolveInside(root, safeFileName('..'), '..', '..'), LocalPathEscapeError);
		assert.equal(resolveInsidePosix('/s/artifacts', 'k', 'x.png'), '/s/artifacts/k/x.png');
		assert.throws(() => resolveInsidePosix('/s/artifacts', '../../../../tmp/pwned'), LocalPathEscapeError);
		assert.throws(() => resolveInsidePosix('/s/artifacts', '/tmp/pwned'), LocalPathEscapeError);
		assert.throws(() => resolveInsidePosix('/s/artifacts', '..'), LocalPathEscapeError);
		// A sibling folder whose name starts like the root is outside.
		assert.throws(() => resolveInsidePosix('/s/artifacts', '../artifacts-evil/x'), LocalPathEscapeError);
	});
});

suite('runFollowing/RunEventStore file names from server ids', () => {
	let root: string;
	setup(async () => {
		root = await mkdtemp(join(tmpdir(), 'cloud-agents-runs-'));
	});
	teardown(async () => {
		await rm(root, { recursive: true, force: true });
	});

	test('ordinary ids keep the names earlier versions used', () => {
		const agentId = '3f0c1d2e-4b5a-4c6d-8e7f-0a1b2c3d4e5f.claude';
		assert.equal(basename(new RunEventStore(root).fileOf(agentId, 'run_0001')), 'run_0001.jsonl');
		assert.equal(
			basename(dirname(new RunEventStore(root).fileOf(agentId, 'run_0001'))),
			'3f0c1d2e-4b5a-4c6d-8e7f-0a1b2c3d4e5f%2Eclaude',
		);
	});

	test('hostile ids become safe, distinct, short names inside the root, and appends land there', async () => {
		const store = new RunEventStore(root);
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
		const files = new Set<string>();
		for (const id of ids) {
			const file = store.fileOf(id, id);
			assert.ok(inside(root, file), `${JSON.stringify(id)} → ${file}`);
			assert.equal(dirname(dirname(file)), root, 'exactly <root>/<agent>/<run>.jsonl');
			for (const part of [basename(dirname(file)), basename(file)]) {
				assert.ok(part.length <= SAFETY.localNameMaxChars, `${part.length} characters`);
				assert.equal(safeFileName(part, ''), part, `${JSON.stringify(id)} → ${part} is a safe file name`);
				assert.ok(!/^(con|prn|aux|nul|com\d|lpt\d)(\.|$)/i.test(part), part);
			}
			files.add(file);
			assert.equal(localIdName(id), localIdName(id), 'stable');
		}
		assert.equal(files.size, ids.length, 'distinct ids never share a file');
		await store.append('../../../../tmp/pwned', '../escape', [{ seq: 1, type: 'run.started', data: {} }]);
		await store.flushed();
		assert.equal((await store.read('../../../../tmp/pwned', '../escape')).length, 1);
		const [agentDir] = await readdir(root);
		assert.ok(agentDir);
		assert.deepEqual((await readdir(join(root, agentDir))).length, 1);
	});
});
