import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The signs of life of `npm start`'s long steps (scripts/lib/progress.mjs; issue 33, item 13): the
// first start sat ~3 min on "building code-server's native modules" with nothing on the screen.

interface ProgressModule {
	formatDuration(ms: number): string;
	lastOutputLine(text: string, max?: number): string;
	progressLine(what: string, elapsedMs: number, lastLine: string): string;
	runWithProgress(
		cmd: string,
		args: string[],
		opts: { what: string; log: (line: string) => void; everyMs?: number; cwd?: string; env?: NodeJS.ProcessEnv },
	): Promise<string>;
	withHeartbeat<T>(what: string, promise: Promise<T>, opts: { log: (line: string) => void; everyMs?: number }): Promise<T>;
	nativeBuildEnv(env: NodeJS.ProcessEnv, nodeDir: string, nodeVersion: string): NodeJS.ProcessEnv;
}

const ROOT = join(__dirname, '..', '..', '..', '..', '..');

suite('scripts/lib/progress', function () {
	this.timeout(30_000);
	let m: ProgressModule;
	let dir: string;
	suiteSetup(async () => {
		m = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'progress.mjs')).href)) as ProgressModule;
	});
	setup(() => {
		dir = mkdtempSync(join(tmpdir(), 'progress-test-'));
	});
	teardown(() => {
		rmSync(dir, { recursive: true, force: true });
	});

	test('durations read as a person says them', () => {
		assert.equal(m.formatDuration(0), '0 s');
		assert.equal(m.formatDuration(45_900), '45 s');
		assert.equal(m.formatDuration(185_000), '3 min 05 s');
	});

	test("the last line of a tool's output: colours dropped, a line rewritten with \\r read as it ends, cut", () => {
		assert.equal(m.lastOutputLine('first\n\u001b[32mgyp info\u001b[0m ok\n\n'), 'gyp info ok');
		assert.equal(m.lastOutputLine('progress 10%\rprogress 50%\rprogress 90%\r\n'), 'progress 90%');
		assert.equal(m.lastOutputLine('\n  \n'), '');
		assert.equal(m.lastOutputLine('x'.repeat(150), 20), `${'x'.repeat(19)}…`);
		assert.equal(
			m.progressLine("building code-server's native modules", 80_000, 'CXX(target) kerberos.o'),
			"building code-server's native modules: still working, 1 min 20 s so far (last output: CXX(target) kerberos.o)",
		);
		assert.equal(m.progressLine('building the extension', 10_000, ''), 'building the extension: still working, 10 s so far');
	});

	test('a long step says it is still working, with its latest output, until it ends', async () => {
		// The child prints a line, then waits until the test has seen that line in a progress line
		// (or 10 s: without progress lines it ends anyway and the assertion below fails).
		const flag = join(dir, 'seen');
		const script = [
			"console.log('compiling kerberos');",
			'const end = Date.now() + 10000;',
			"const t = setInterval(() => { if (require('fs').existsSync(process.argv[1]) || Date.now() > end) { clearInterval(t); console.log('done'); } }, 10);",
		].join('\n');
		const lines: string[] = [];
		const output = await m.runWithProgress(process.execPath, ['-e', script, flag], {
			what: 'building native modules',
			everyMs: 20,
			log: (line) => {
				lines.push(line);
				if (line.includes('compiling kerberos')) {
					writeFileSync(flag, '');
				}
			},
		});
		assert.ok(existsSync(flag), `no progress line named the step's latest output: ${JSON.stringify(lines)}`);
		assert.match(lines[0] ?? '', /^building native modules: still working, \d+ s so far/);
		assert.match(output, /compiling kerberos\ndone\n$/);
	});

	test('a step that fails rejects with its last output and how long it ran', async () => {
		const script = "console.log('gyp ERR! build error'); console.error('make: *** [kerberos.o] Error 1'); process.exit(3);";
		await assert.rejects(
			m.runWithProgress(process.execPath, ['-e', script], { what: 'x', log: () => undefined }),
			(err: Error) =>
				/failed \(exit 3\) after \d+ s:/.test(err.message) &&
				err.message.includes('gyp ERR! build error') &&
				err.message.includes('Error 1'),
		);
	});

	test('withHeartbeat speaks while a promise is pending and returns its value', async () => {
		const lines: string[] = [];
		let release: (v: string) => void = () => undefined;
		const pending = new Promise<string>((r) => (release = r));
		const result = m.withHeartbeat('building the extension', pending, {
			everyMs: 10,
			log: (line) => {
				lines.push(line);
				release('vsix');
			},
		});
		assert.equal(await result, 'vsix');
		assert.match(lines[0] ?? '', /^building the extension: still working, 0 s so far$/);
	});

	test("the native build's progress line names what its build scripts print (npm runs them in the foreground), with every core compiling", async function () {
		// Issue 42, item 14: code-server's postinstall (npm rebuilding native modules) said nothing for
		// minutes: npm keeps a build script's output to itself unless it runs in the foreground.
		this.timeout(60_000);
		const pkg = join(dir, 'node_modules', 'native-thing');
		mkdirSync(pkg, { recursive: true });
		writeFileSync(
			join(dir, 'package.json'),
			JSON.stringify({ name: 'root', version: '1.0.0', dependencies: { 'native-thing': '1.0.0' } }),
		);
		// The build script prints a compile line, then works until the test saw that line in a progress line.
		const seen = join(dir, 'seen');
		writeFileSync(
			join(pkg, 'build.js'),
			`console.log('CXX(target) Release/obj.target/thing.o jobs=' + process.env.JOBS);
const fs = require('fs');
const started = Date.now();
const wait = () => (fs.existsSync(${JSON.stringify(seen)}) || Date.now() - started > 30000 ? undefined : setTimeout(wait, 50));
wait();
`,
		);
		writeFileSync(
			join(pkg, 'package.json'),
			JSON.stringify({ name: 'native-thing', version: '1.0.0', scripts: { install: 'node build.js' } }),
		);
		const lines: string[] = [];
		const env = m.nativeBuildEnv({ ...process.env, npm_config_loglevel: 'error' }, join(dir, 'node'), 'v24.0.0');
		await m.runWithProgress('npm', ['rebuild', '--no-audit', '--no-fund'], {
			what: "building code-server's native modules",
			everyMs: 100,
			cwd: dir,
			env,
			log: (line) => {
				lines.push(line);
				if (line.includes('CXX(target)')) {
					writeFileSync(seen, '');
				}
			},
		});
		assert.ok(
			lines.some((l) => l.includes('(last output: CXX(target) Release/obj.target/thing.o jobs=max)')),
			`the progress lines: ${JSON.stringify(lines.slice(-3))}`,
		);
	});
});
