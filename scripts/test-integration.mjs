// Integration tests inside a real VS Code (code-server) extension host, then Playwright UI tests
// against the same workbench, once per emulator profile.
// Usage: npm run test:integration [-- --grep TEXT] [-- --keep] [-- --profiles standard,variant] [-- --variant-all]
//                                  [-- --reverse] [-- --ui-only]
//
//  1. installs what is missing into the cache outside the clone (Node 24, code-server, and as root
//     Debian's chromium + libkrb5-dev): see scripts/lib/harness.mjs;
//  2. builds the extension .vsix and the test-runner extension (mocha + test/integration/suite/**);
//  3. runs lanes side by side (CLOUD_AGENTS_TEST_LANES=1: one after the other), each its own
//     emulator, code-server (CLOUD_AGENTS_TEST_REPORT, CLOUD_AGENTS_EMULATOR_URL and
//     CLOUD_AGENTS_EMULATOR_PROFILE in its environment, cloudAgents.apiUrl in its own user settings;
//     the network suite's certificate authorities through NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and
//     CLOUD_AGENTS_TEST_NETWORK: scripts/lib/networkFixtures.mjs) and browser (its own clipboard):
//       - `standard`: every in-host suite against the standard profile;
//       - `standard-ui`: the UI tests against the standard profile, shared out between two windows
//         of their own (standard-ui-1, standard-ui-2; CLOUD_AGENTS_TEST_UI_WINDOWS; their runner
//         runs no suite: the extension signs in with the dev token at start-up);
//       - one lane per other profile (`variant`): the in-host and UI tests whose title contains
//         "[variant]" (--variant-all: every test, to find candidates for the tag);
//       - `standard-web`: the in-host tests tagged "[web]", with the web build in VS Code for the
//         Web's extension host (a web worker);
//     which test runs where is read from the tests' tags in scripts/lib/lanes.mjs (test/README.md
//     has the matrix). The web build's UI journeys (scripts/test-web.mjs) take the pool's last slot.
//     No page runs CSS animations (a spinning icon kept Chromium compositing: harness stillPageScript),
//     and while a lane's in-host suites run nothing of its page is rendered (nobody looks at it);
//     The runner extension runs the suites on startup, reports each test's start and end as it
//     goes and writes a report; the run fails a lane whose in-host tests stall (nothing started or
//     ended for CLOUD_AGENTS_STALL_MS, 300 s), not one that is merely long. After each top-level
//     suite the runner puts the baseline back (emulator faults and outage cleared, its clock
//     released, settings as they were, editors closed, signed in with the dev token), bounded, so
//     one failure fails one suite. CLOUD_AGENTS_TEST_SLOWDOWN=N multiplies every ceiling (mocha's time-outs, waits, the
//     stall and UI limits) on a slow machine;
//  4. runs the test/ui/*.ts selected for the lane against its workbench, one after the other in
//     file-name order; --reverse (or CLOUD_AGENTS_TEST_ORDER=reverse) runs them in the reverse order,
//     and the lanes and each lane's top-level in-host suites last to first too.
//     No UI test relies on another having run before it: each sets up what it needs, and one that
//     reloads the page or opens another window leaves the workbench usable (or takes it back) for
//     the next; a reversed run shows it. Before each UI test the emulator's faults and outage are
//     cleared and its clock released; a UI test that fails (or passes 300 s) leaves a reloaded workbench to the next.
//     A UI test that declares `secondEmulator: true` gets a second emulator of the lane's profile
//     (UiContext.secondEmulatorUrl), started when the lane's first such test runs, never in a lane without one.
//     Screenshots go to test-results/screenshots/ (FAILED-<profile>-<test>.png for a variant lane);
//  5. stops every process it started (also on failure and Ctrl-C), prints every lane, where the time
//     went (also test-results/timings.json) and ONE closing "N passed, N failed" line over all of
//     them, exits non-zero on any failure.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import {
	CALM_SETTINGS,
	CHROMIUM,
	CHROMIUM_ARGS,
	DEV_TOKEN,
	ROOT,
	Processes,
	SKIPPED_BUILTINS,
	allowMotion,
	buildVsixAsync,
	buildWebHarnessVsix,
	ensureCodeServer,
	ensureSystemPackages,
	freePort,
	installExtensions,
	log,
	startCodeServer,
	startEmulator,
	stillPageScript,
	waitForHttp,
	writeUserSettings,
} from './lib/harness.mjs';
import { buildRunnerExtension, buildUiTests, buildWebRunnerExtension, packageFolder, writeHarnessEnv } from './lib/bundle-tests.mjs';
import { writeNetworkFixtures } from './lib/networkFixtures.mjs';
import { VARIANT_TAG, WEB_TAG, lanesOf } from './lib/lanes.mjs';
import { ConsoleErrorCheck, consoleCheckResult } from './lib/consoleErrors.mjs';

const args = process.argv.slice(2);
const grepIndex = args.indexOf('--grep');
const grep = grepIndex >= 0 ? args[grepIndex + 1] : undefined;
const keep = args.includes('--keep');
// The emulator profiles to run against, in order (emulator/README.md "Profiles"). The standard pass
// runs every in-host and UI test (or those --grep selects); a variant pass runs only those whose
// title (or a suite's) contains VARIANT_TAG, unless --variant-all (to find tests that could be tagged).
const profilesIndex = args.indexOf('--profiles');
const PROFILES = (profilesIndex >= 0 ? args[profilesIndex + 1] : process.env.CLOUD_AGENTS_TEST_PROFILES || 'standard,variant')
	.split(',')
	.map((p) => p.trim())
	.filter(Boolean);
for (const p of PROFILES) {
	if (!['standard', 'variant', 'variant-strict'].includes(p)) {
		throw new Error(`--profiles: unknown emulator profile ${JSON.stringify(p)}`);
	}
}
const variantAll = args.includes('--variant-all');
// The order of the UI tests: file-name order, or its reverse (to show that none depends on another).
const ORDER = args.includes('--reverse') ? 'reverse' : process.env.CLOUD_AGENTS_TEST_ORDER || 'normal';
if (!['normal', 'reverse'].includes(ORDER)) {
	throw new Error(`CLOUD_AGENTS_TEST_ORDER: ${JSON.stringify(ORDER)} is neither "normal" nor "reverse"`);
}
// Only the UI tests: the runner extension skips the in-host suites (the extension still signs in with
// the dev token at start-up, as in a full run).
const uiOnly = args.includes('--ui-only') || process.env.CLOUD_AGENTS_TEST_UI_ONLY === '1';
// The web lanes (the in-host suites tagged WEB_TAG in VS Code for the Web's extension host): on by
// default; --no-web leaves them out, --web-only runs only them.
const webOnly = args.includes('--web-only');
const web = !uiOnly && !args.includes('--no-web');

/**
 * The mocha grep of a lane that runs only tagged tests: titles containing every tag and, with --grep,
 * matching it too (mocha reads the grep as a regular expression, `/source/flags` or a plain source).
 */
function taggedGrep(tags, userGrep) {
	const looks = tags.map((t) => `(?=[\\s\\S]*${t.replace(/[[\]]/g, '\\$&')})`);
	if (userGrep) {
		const m = userGrep.match(/^\/(.*)\/([a-z]*)$/);
		return `/^${looks.join('')}(?=[\\s\\S]*(?:${m ? m[1] : userGrep}))/${m ? m[2] : ''}`;
	}
	return `/^${looks.join('')}/`;
}

/** The mocha grep of a variant pass: titles containing VARIANT_TAG (and --grep's text). */
const variantGrep = (userGrep) => taggedGrep([VARIANT_TAG], userGrep);
// Slow machines: every ceiling of the run (a stalled in-host test, a UI test, mocha's default
// time-out in the extension host, the suites' own waits) is multiplied by this factor.
const SLOWDOWN = Number(process.env.CLOUD_AGENTS_TEST_SLOWDOWN ?? 1);
if (!(SLOWDOWN >= 1 && SLOWDOWN <= 20)) {
	throw new Error(`CLOUD_AGENTS_TEST_SLOWDOWN: ${JSON.stringify(process.env.CLOUD_AGENTS_TEST_SLOWDOWN)} is not a number from 1 to 20`);
}
// The in-host run fails only when it stalls: no test started or ended for this long (mocha's own
// time-outs end a slow test well before; this catches a host that hangs or died).
const STALL_MS = Number(process.env.CLOUD_AGENTS_STALL_MS ?? 300_000) * SLOWDOWN;
// A UI test that has not finished after this long fails (its own waits end far sooner).
const UI_TEST_LIMIT_MS = 300_000 * SLOWDOWN;
// How many lanes (code-server sessions) run at once: all by default; 1 runs them one after the other.
const LANES_AT_ONCE = Math.max(1, Number(process.env.CLOUD_AGENTS_TEST_LANES ?? (keep ? 1 : 3)));
// The windows the standard profile's UI tests share out (lane standard-ui of scripts/lib/lanes.mjs).
const UI_WINDOWS = Math.max(1, Number(process.env.CLOUD_AGENTS_TEST_UI_WINDOWS ?? (keep ? 1 : 2)));

// One folder per run, so runs in parallel (several people in one checkout) do not collide.
const WORK = join(ROOT, '.vscode-test', 'integration', String(process.pid));
const RESULTS = join(ROOT, 'test-results');
const SCREENSHOTS = join(RESULTS, 'screenshots');
const LOGS = join(RESULTS, 'logs');

const procs = new Processes();
/**
 * The browsers the lanes run (one per lane: a browser's clipboard is shared by all its contexts, and
 * a UI test pasting in one window took the text another window's test had just copied).
 * launchServer (rather than launch) exposes each browser's pid, so cleanup can stop it by pid.
 */
const browsers = new Set();
async function launchBrowser() {
	// Playwright gives the browser a fresh temporary profile, removed when it closes.
	const server = await chromium.launchServer({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS] });
	const entry = { server, pid: server.process().pid, browser: undefined };
	browsers.add(entry);
	entry.browser = await chromium.connect(server.wsEndpoint());
	return entry;
}
async function closeBrowser(entry) {
	const timeout = () => new Promise((r) => setTimeout(r, 5000));
	browsers.delete(entry);
	if (entry.browser) {
		await Promise.race([entry.browser.close().catch(() => {}), timeout()]);
	}
	await Promise.race([entry.server.close().catch(() => {}), timeout()]);
	try {
		process.kill(entry.pid, 'SIGKILL');
	} catch {
		/* already gone */
	}
}
procs.onStop(async () => {
	for (const entry of [...browsers]) {
		await closeBrowser(entry);
	}
});

/**
 * Waits for the runner's report, printing each finished test from its progress file as it comes
 * (prefixed with the lane's name) and recording when each test started and ended. Fails only when
 * no test has started or ended for STALL_MS, naming the test that stalled.
 */
async function waitForReport(session, isAlive) {
	const path = session.reportPath;
	let lastProgress = Date.now();
	let seen = 0;
	let current;
	const follow = () => {
		let lines;
		try {
			// Only whole lines: the web runner rewrites the file whole (vscode.workspace.fs cannot
			// append), so a read may find it shorter, or its last line cut; the next read has them.
			lines = readFileSync(`${path}.progress`, 'utf8').split('\n').slice(0, -1).filter(Boolean);
		} catch {
			return;
		}
		if (lines.length < seen) {
			return;
		}
		for (const line of lines.slice(seen)) {
			const p = JSON.parse(line);
			lastProgress = Date.now();
			if (p.event === 'start') {
				current = p.titlePath.join(' › ');
				continue;
			}
			current = undefined;
			log(
				`  [${session.lane}] ${p.event === 'passed' ? '\u2714' : p.event === 'pending' ? '-' : '\u2717'} ${p.titlePath.join(' › ')}`,
			);
		}
		seen = lines.length;
	};
	for (;;) {
		follow();
		if (existsSync(path)) {
			return JSON.parse(readFileSync(path, 'utf8'));
		}
		if (!isAlive()) {
			throw new Error(`code-server (${session.lane}) exited before the in-host tests reported`);
		}
		if (Date.now() - lastProgress > STALL_MS) {
			throw new Error(
				`in-host tests (${session.lane}) stalled: nothing started or ended for ${STALL_MS / 1000}s${current ? `; still running: ${current}` : ''} (see ${relative(ROOT, session.logs)}/; CLOUD_AGENTS_STALL_MS or CLOUD_AGENTS_TEST_SLOWDOWN raise the limit)`,
			);
		}
		await new Promise((r) => setTimeout(r, 250));
	}
}

const paint = (code, text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[${code}m${text}\x1b[0m` : text);
const ms = (n) => (n >= 1000 ? `${(n / 1000).toFixed(1)}s` : `${n}ms`);

/** Prints results grouped by suite, mocha's spec style. */
function printResults(heading, results) {
	console.log(`\n  ${heading}`);
	let previous = [];
	for (const r of results) {
		const suites = r.titlePath.slice(0, -1);
		let same = 0;
		while (same < suites.length && suites[same] === previous[same]) {
			same++;
		}
		for (let i = same; i < suites.length; i++) {
			console.log(`${'  '.repeat(i + 2)}${suites[i]}`);
		}
		previous = suites;
		const indent = '  '.repeat(suites.length + 2);
		const title = r.titlePath[r.titlePath.length - 1];
		if (r.state === 'passed') {
			console.log(`${indent}\u2714 ${title}${r.durationMs > 75 ? ` (${ms(r.durationMs)})` : ''}`);
		} else if (r.state === 'pending') {
			console.log(`${indent}- ${title}`);
		} else {
			r.failureNo = ++printResults.failures;
			console.log(`${indent}${r.failureNo}) ${title}`);
		}
		for (const n of r.notes ?? []) {
			console.log(`${indent}    ${paint(90, n.replace(ROOT + '/', ''))}`);
		}
	}
}
printResults.failures = 0;

/**
 * One lane: an emulator in `profile`, code-server with its own user data, extensions folder and
 * workspace under `dir`, a fresh browser context on the workbench; resolves once the in-host report
 * is written (at once when the lane runs no suite). Lanes run side by side: each has its own
 * emulator, so no lane sees another's records, sign-in or faults.
 */
async function startSession({ lane, cs, extSource, dir, logs, profile, grep, suites, web }) {
	const ud = join(dir, 'user-data');
	const workspace = join(dir, 'workspace');
	const ext = join(dir, 'extensions');
	for (const d of [ud, workspace, logs]) {
		mkdirSync(d, { recursive: true });
	}
	// Each lane its own copy of the installed extensions: code-server writes to the folder it reads.
	cpSync(extSource, ext, { recursive: true });
	writeFileSync(join(workspace, 'README.md'), '# Cloud Agents integration test workspace\n');
	// A multi-root workspace file rather than a bare folder: adding an agent's workspace folder to a
	// single-folder browser window turns it into an untitled workspace and reloads the page, which
	// would cut the in-host run short; in a saved workspace it is a plain folder change.
	const workspaceFile = join(dir, 'integration.code-workspace');
	writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: 'workspace' }] }, null, '\t'));

	const session = { lane, profile, logs, userDataDir: ud, consoleLog: [], children: [], timings: { lane, profile, started: Date.now() } };
	const codePort = await freePort();
	// CLOUD_AGENTS_EMULATOR_URL points the standard lanes at an emulator (or service) that is already running.
	let emulatorUrl = profile === 'standard' && !web ? process.env.CLOUD_AGENTS_EMULATOR_URL?.replace(/\/+$/, '') : undefined;
	if (emulatorUrl) {
		await waitForHttp(`${emulatorUrl}/healthz`, 10_000);
	} else {
		emulatorUrl = await startEmulator(procs, {
			port: await freePort(),
			profile,
			logFile: join(logs, 'emulator.log'),
			onChild: (c) => session.children.push(c),
			// A web lane's requests come from the workbench's origin, cross-origin to the emulator, as from vscode.dev to the service.
			corsOrigin: web ? `http://127.0.0.1:${codePort}` : undefined,
		});
	}
	session.emulatorUrl = emulatorUrl;
	log(`[${lane}] emulator (${profile} profile) on ${emulatorUrl}`);
	writeUserSettings(ud, { ...CALM_SETTINGS, 'cloudAgents.apiUrl': emulatorUrl });

	// The network suite's certificate authorities: NODE_EXTRA_CA_CERTS is read at process start.
	const networkEnv = await writeNetworkFixtures(join(dir, 'network'));

	// GitHub lookups (Create Agent's owner/name) go to a stub a UI test serves on this port while it
	// runs (UiContext.githubStubUrl); nothing listens otherwise, so no test reaches the real GitHub.
	session.githubStubUrl = `http://127.0.0.1:${await freePort()}`;
	session.reportPath = join(dir, 'report.json');
	const env = {
		CLOUD_AGENTS_TEST_REPORT: session.reportPath,
		CLOUD_AGENTS_EMULATOR_URL: emulatorUrl,
		CLOUD_AGENTS_EMULATOR_PROFILE: profile,
		CLOUD_AGENTS_DEV_TOKEN: DEV_TOKEN,
		CLOUD_AGENTS_GITHUB_API_URL: session.githubStubUrl,
		CLOUD_AGENTS_TEST_SLOWDOWN: String(SLOWDOWN),
		CLOUD_AGENTS_TEST_ORDER: ORDER,
		...(web ? {} : networkEnv),
		...(grep ? { CLOUD_AGENTS_TEST_GREP: grep } : {}),
		...(suites ? {} : { CLOUD_AGENTS_TEST_SKIP_SUITES: '1' }),
	};
	if (web) {
		// A web worker has no environment: the lane's is written into its bundles.
		writeHarnessEnv(ext, env);
	}
	session.codeServer = await startCodeServer(procs, cs, {
		port: codePort,
		extensionsDir: ext,
		userDataDir: ud,
		folder: workspaceFile,
		logFile: join(logs, 'code-server.log'),
		env,
		// The variant lane keeps every built-in extension: our extension still runs beside Git, npm and the rest.
		skipBuiltins: profile === 'standard' ? SKIPPED_BUILTINS : [],
	});
	session.children.push(session.codeServer);
	session.workbenchUrl = `http://127.0.0.1:${codePort}/?workspace=${encodeURIComponent(workspaceFile)}`;
	log(`[${lane}] code-server on http://127.0.0.1:${codePort}`);

	// A fresh context per lane: no storage shared with another lane.
	session.browser = await launchBrowser();
	session.context = await session.browser.browser.newContext({ viewport: { width: 1280, height: 1024 } });
	// A workbench page's "load" came after Playwright's 30 s default on a loaded machine (a UI test's
	// reload, a new window): navigations get the harness's ceiling, as every other wait does.
	session.context.setDefaultNavigationTimeout(120_000 * SLOWDOWN);
	// Every spinning icon (a running agent's row) and progress bar made Chromium repaint and
	// composite the page many times a second: a steady share of the two cores, taken from every lane.
	// No page animates; while in-host suites run nothing is rendered either, and the UI tests of the
	// lane get rendering back (allowMotion).
	await session.context.addInitScript({ content: stillPageScript({ hidden: Boolean(suites) }) });
	session.page = await session.context.newPage();
	session.page.on('console', (m) => session.consoleLog.push(`[${m.type()}] ${m.text()}`));
	session.page.on('pageerror', (e) => session.consoleLog.push(`[pageerror] ${e.message}`));
	// A window a UI test opens (Open in New Window) is a page of its own: its console goes to the same log.
	let windows = 0;
	session.context.on('page', (p) => {
		if (p === session.page) {
			return;
		}
		const n = ++windows;
		p.on('console', (m) => session.consoleLog.push(`[window ${n}] [${m.type()}] ${m.text()}`));
		p.on('pageerror', (e) => session.consoleLog.push(`[window ${n}] [pageerror] ${e.message}`));
	});
	// Zero console errors from our extension: collected for the whole lane, judged at its end.
	session.consoleCheck = new ConsoleErrorCheck({ userDataDir: ud });
	session.consoleCheck.attach(session.page);
	session.consoleCheck.phase('in-host suites', { strict: false });
	// Waiting only for the page's first answer: the workbench's own loading is watched by the
	// report's stall limit, which a loaded machine does not trip as a fixed 30 s "load" did.
	await session.page.goto(session.workbenchUrl, { waitUntil: 'commit', timeout: 120_000 * SLOWDOWN });
	session.timings.workbenchLoading = Date.now();
	log(`[${lane}] workbench loading; ${suites ? 'waiting for the in-host report' : 'no in-host suite in this lane'}`);
	try {
		session.report = await waitForReport(session, () => !session.codeServer.exited);
	} finally {
		writeFileSync(join(logs, 'browser-console.log'), session.consoleLog.join('\n'));
	}
	session.timings.reported = Date.now();
	if (suites) {
		log(`[${lane}] in-host tests (${profile} profile) done in ${ms(session.report.stats.durationMs)}`);
	}
	return session;
}

/** Closes a lane's browser context and stops its code-server and emulator (by pid). */
async function stopSession(session) {
	await Promise.race([session.context.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
	if (session.browser) {
		await closeBrowser(session.browser);
	}
	for (const child of session.children.reverse()) {
		await procs.stop(child);
	}
}

/** Judges the errors collected over a lane (scripts/lib/consoleErrors.mjs); returns a result row. */
async function checkConsoleErrors(check, logs, { afterUi }) {
	if (afterUi) {
		check.phase('after the UI tests', { strict: true });
	}
	// The extension host writes its log files asynchronously: wait until they stop growing.
	await logsSettled(logs);
	return consoleCheckResult(check, join(logs, 'console-errors.log'));
}

/** Resolves once the size of the lane's code-server log and user-data logs stays the same for 500 ms (at most 5 s). */
async function logsSettled(logs) {
	const sizes = () => {
		try {
			return readdirSync(logs, { recursive: true })
				.map((f) => {
					try {
						return statSync(join(logs, String(f))).size;
					} catch {
						return 0;
					}
				})
				.join(',');
		} catch {
			return '';
		}
	};
	let last = sizes();
	const end = Date.now() + 5000;
	await new Promise((r) => setTimeout(r, 500));
	while (Date.now() < end) {
		const now = sizes();
		if (now === last) {
			return;
		}
		last = now;
		await new Promise((r) => setTimeout(r, 500));
	}
}

/** Runs `fn`, failing it when it has not settled after `ms` (the promise it started is left to itself). */
function withLimit(fn, ms, what) {
	let timer;
	return Promise.race([
		fn(),
		new Promise((_, reject) => {
			timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000}s`)), ms);
		}),
	]).finally(() => clearTimeout(timer));
}

/**
 * The lane's second emulator (same profile, demo seed: the same agent ids as the first), for the UI
 * tests that declare `secondEmulator: true` (several deployments side by side, issue 47). Started
 * when the first such test of the lane runs, so a lane without one starts none; it serves every
 * such test of the lane and stops with the lane's other processes.
 */
async function startSecondEmulator(session) {
	if (session.secondEmulatorUrl) {
		return;
	}
	session.secondEmulatorUrl = await startEmulator(procs, {
		port: await freePort(),
		profile: session.profile,
		logFile: join(session.logs, 'emulator-2.log'),
		onChild: (c) => session.children.push(c),
	});
	log(`[${session.lane}] second emulator (${session.profile} profile) on ${session.secondEmulatorUrl}`);
}

/** Runs the lane's UI tests (already chosen by title) against its workbench. */
async function runUiTests(session, uiTests) {
	const uiResults = [];
	if (session.report.fatal) {
		return uiResults;
	}
	const { Workbench } = await import(pathToFileURL(join(WORK, 'ui', 'support', 'workbench.mjs')).href);
	const { page } = session;
	await allowMotion(page);
	session.timings.ui = [];
	for (const t of uiTests) {
		const mod = await import(pathToFileURL(t.file).href);
		const uiTest = mod.default;
		const t0 = Date.now();
		const notes = [];
		const note = (line) => {
			notes.push(String(line));
		};
		const shot = session.profile === 'standard' ? t.name : `${session.profile}-${t.name}`;
		let expectConsoleError = session.consoleCheck.phase(`UI ${t.name}`, { strict: true });
		// Navigating away unloads the workbench: what it cancels then is judged in a phase of its own.
		const leavePage = async (to, ready) => {
			session.consoleCheck.phase(`UI ${t.name} (page unload)`, { strict: true, unload: true });
			if (typeof to === 'string') {
				await page.goto(to);
			} else {
				await to();
			}
			await ready();
			await new Promise((r) => setTimeout(r, 1000));
			expectConsoleError = session.consoleCheck.phase(`UI ${t.name}`, { strict: true });
		};
		let state = 'passed';
		let error;
		try {
			const workbench = new Workbench(page, SCREENSHOTS);
			await withLimit(
				async () => {
					await workbench.ready();
					await workbench.dismissDialogs();
					if (uiTest.secondEmulator === true) {
						await startSecondEmulator(session);
					}
					await resetEmulatorFaults(session.emulatorUrl);
					if (session.secondEmulatorUrl) {
						await resetEmulatorFaults(session.secondEmulatorUrl);
					}
					await uiTest.run({
						page,
						workbench,
						emulatorUrl: session.emulatorUrl,
						secondEmulatorUrl: uiTest.secondEmulator === true ? session.secondEmulatorUrl : undefined,
						emulatorProfile: session.profile,
						githubStubUrl: session.githubStubUrl,
						userDataDir: session.userDataDir,
						devToken: DEV_TOKEN,
						screenshotDir: SCREENSHOTS,
						note,
						expectConsoleError: (re, why) => expectConsoleError(re, why),
						leavePage: (to) => leavePage(to, () => workbench.ready()),
					});
					// A tab left unsaved is backed up and restored into the lane's next window on this
					// folder, where a save meets "File Modified Since" (d9fe8b3's quiet run): the test
					// that leaves one fails, and the next starts without it.
					const dirty = await workbench.dirtyEditors();
					if (dirty.length > 0) {
						await workbench.revertDirtyEditors();
						throw new Error(`the UI test left unsaved editors behind: ${JSON.stringify(dirty)}`);
					}
				},
				UI_TEST_LIMIT_MS,
				`the UI test ${t.name}`,
			);
		} catch (err) {
			state = 'failed';
			error = { message: err.message, stack: err.stack };
			await page.screenshot({ path: join(SCREENSHOTS, `FAILED-${shot}.png`) }).catch(() => {});
			// One failure fails one test: the next starts from a freshly loaded workbench with the
			// emulator's faults and outage cleared and its clock released, whatever this one left behind.
			await resetEmulatorFaults(session.emulatorUrl).catch(() => {});
			if (session.secondEmulatorUrl) {
				await resetEmulatorFaults(session.secondEmulatorUrl).catch(() => {});
			}
			await new Workbench(page, SCREENSHOTS).revertDirtyEditors().catch(() => {});
			// Nor does it find this one's tabs restored: their files may be gone with its clean-up.
			await new Workbench(page, SCREENSHOTS).runCommand('View: Close All Editors').catch(() => {});
			await leavePage(session.workbenchUrl, () => new Workbench(page, SCREENSHOTS).ready()).catch(() => {});
		}
		const durationMs = Date.now() - t0;
		uiResults.push({ titlePath: [t.name, uiTest.title], state, durationMs, notes, error });
		session.timings.ui.push({ name: t.name, durationMs });
		log(`  [${session.lane}] ${state === 'passed' ? '\u2714' : '\u2717'} UI ${t.name} (${ms(durationMs)})`);
	}
	writeFileSync(join(session.logs, 'browser-console.log'), session.consoleLog.join('\n'));
	return uiResults;
}

/**
 * The web build's UI journeys (scripts/test-web.mjs: each scenario its own emulator, code-server and
 * Chromium) as one more task of the pool, so they use a slot the short lanes leave free instead of
 * running after every lane; their output goes to test-results/logs/web-ui/test-web.log and their
 * results join the lanes' in the summary.
 */
async function runWebJourneys() {
	const logs = join(LOGS, 'web-ui');
	mkdirSync(logs, { recursive: true });
	const logFile = join(logs, 'test-web.log');
	const started = Date.now();
	log('[web-ui] test:web (the web build in a browser window) started');
	const child = procs.spawn('test:web', process.execPath, [join(ROOT, 'scripts', 'test-web.mjs')], { logFile, cwd: ROOT });
	const code = await new Promise((resolve) => {
		if (child.exited) {
			resolve(child.exitCode);
		} else {
			child.once('exit', (c) => resolve(c));
		}
	});
	const text = existsSync(logFile) ? readFileSync(logFile, 'utf8') : '';
	const results = [...text.matchAll(/^\[[ \d.]+s\] web: (\u2714|\u2717) ([\w-]+)(.*)$/gm)].map((m) => ({
		titlePath: ['(VS Code for the Web)', '[web-ui]', m[2]],
		state: m[1] === '\u2714' ? 'passed' : 'failed',
		durationMs: 0,
		notes: [],
		error: m[1] === '\u2714' ? undefined : { message: `${m[2]}${m[3]} (see ${relative(ROOT, logFile)})` },
	}));
	if (code !== 0 && !results.some((r) => r.state === 'failed')) {
		results.push({
			titlePath: ['(VS Code for the Web)', '[web-ui]', 'test:web'],
			state: 'failed',
			durationMs: Date.now() - started,
			notes: [],
			error: { message: `test:web exited ${code} (see ${relative(ROOT, logFile)})` },
		});
	}
	log(`[web-ui] test:web done in ${ms(Date.now() - started)}: ${results.filter((r) => r.state === 'passed').length} passed`);
	return { lane: 'web-ui', journeys: true, results, timings: { lane: 'web-ui', started, ended: Date.now() } };
}

/**
 * Clears the emulator's injected faults, ends an outage (its admin routes; the outage's own admin
 * listener answers during one) and releases a held clock (a UI test's hold must not leak into the next).
 */
async function resetEmulatorFaults(emulatorUrl) {
	const call = (method, path) =>
		fetch(`${emulatorUrl}${path}`, { method, signal: AbortSignal.timeout(5000) }).then((r) => r.arrayBuffer());
	await call('DELETE', '/_emulator/faults');
	const outage = await fetch(`${emulatorUrl}/_emulator/outage`, { signal: AbortSignal.timeout(5000) }).then((r) => r.json());
	if (outage.active) {
		await fetch(`${outage.admin_url.replace(/\/+$/, '')}/_emulator/outage`, { method: 'DELETE', signal: AbortSignal.timeout(5000) });
	}
	const clock = await fetch(`${emulatorUrl}/_emulator/clock`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ held: false }),
		signal: AbortSignal.timeout(5000),
	});
	await clock.arrayBuffer();
	if (!clock.ok) {
		throw new Error(`releasing the emulator clock: PUT /_emulator/clock answered ${clock.status}`);
	}
}

/**
 * Runs `tasks` (functions returning promises) with at most `limit` at once; resolves with their
 * results in order (a rejection is kept as `{ error }`).
 */
async function inLanes(tasks, limit) {
	const results = new Array(tasks.length);
	let next = 0;
	const worker = async () => {
		while (next < tasks.length) {
			const i = next++;
			results[i] = await tasks[i]().catch((error) => ({ error }));
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
	return results;
}

/** Writes the lanes' timings (test-results/timings.json) and prints where the time went. */
function reportTimings(started, lanes, buildMs) {
	const rows = [];
	for (const l of lanes) {
		const t = l.timings;
		if (!t) {
			continue;
		}
		const startup = (t.workbenchLoading ?? t.started) - t.started;
		const suites = l.report?.stats.durationMs ?? 0;
		const ui = (t.ui ?? []).reduce((a, u) => a + u.durationMs, 0);
		rows.push({
			lane: t.lane,
			startupMs: startup,
			// From the page's navigation to the first suite (or the empty report of a UI lane).
			workbenchMs: (t.reported ?? t.started) - (t.workbenchLoading ?? t.started) - suites,
			inHostMs: suites,
			uiMs: ui,
			consoleCheckMs: (t.ended ?? Date.now()) - (t.uiEnded ?? t.ended ?? Date.now()),
			totalMs: (t.ended ?? Date.now()) - t.started,
			ui: t.ui ?? [],
		});
	}
	const out = {
		totalMs: Date.now() - started,
		buildMs,
		lanes: rows,
		tests: lanes.flatMap((l) => l.report?.tests.map((r) => ({ lane: l.lane, titlePath: r.titlePath, durationMs: r.durationMs })) ?? []),
	};
	writeFileSync(join(RESULTS, 'timings.json'), JSON.stringify(out, null, '\t'));
	console.log(`\n  Where the time went (test-results/timings.json): builds ${ms(buildMs)}`);
	for (const r of rows) {
		console.log(
			`    ${r.lane}: ${ms(r.totalMs)} — emulator + code-server ${ms(r.startupMs)}, workbench load ${ms(r.workbenchMs)}, in-host ${ms(r.inHostMs)}, UI ${ms(r.uiMs)}, console check ${ms(r.consoleCheckMs)}`,
		);
	}
}

async function main() {
	const started = Date.now();
	const cs = await ensureCodeServer();
	ensureSystemPackages({ browser: true, build: false });
	log(`code-server ready (${cs.dir})`);

	rmSync(WORK, { recursive: true, force: true });
	const ext = join(WORK, 'extensions');
	const extWeb = join(WORK, 'extensions-web');
	// Screenshots of an earlier run (a FAILED-… one especially) would mislead: start empty.
	rmSync(SCREENSHOTS, { recursive: true, force: true });
	rmSync(LOGS, { recursive: true, force: true });
	for (const d of [ext, extWeb, LOGS, SCREENSHOTS]) {
		mkdirSync(d, { recursive: true });
	}

	log('building the extension .vsix and the test runner');
	const buildStarted = Date.now();
	const [vsix, suiteFiles, uiTests, webSuiteFiles] = await Promise.all([
		buildVsixAsync(join(WORK, 'cloud-agents.vsix')),
		buildRunnerExtension(join(WORK, 'runner-extension')),
		buildUiTests(join(WORK, 'ui')),
		web ? buildWebRunnerExtension(join(WORK, 'web-runner-extension')) : [],
	]);
	const runnerVsix = packageFolder(join(WORK, 'runner-extension'), join(WORK, 'cloud-agents-test-runner.vsix'));
	if (ORDER === 'reverse') {
		uiTests.reverse();
	}
	// Installed once; each lane copies the folder.
	installExtensions(cs, ext, join(WORK, 'user-data'), [vsix, runnerVsix]);
	if (web) {
		// The web build (after the .vsix's build: it takes the webview pages from dist/) and the web runner, for the web lanes.
		const webVsix = await buildWebHarnessVsix(join(WORK, 'web', 'cloud-agents-web.vsix'));
		const webRunnerVsix = packageFolder(join(WORK, 'web-runner-extension'), join(WORK, 'cloud-agents-test-runner-web.vsix'));
		installExtensions(cs, extWeb, join(WORK, 'user-data-web'), [webVsix, webRunnerVsix]);
	}
	const buildMs = Date.now() - buildStarted;

	// The UI tests' titles decide which lane runs them (a UI test is tagged by its title).
	const uiTitles = new Map();
	for (const t of uiTests) {
		uiTitles.set(t, (await import(pathToFileURL(t.file).href)).default.title);
	}
	// --grep reads as mocha reads it (a regular expression, `/source/flags` or a plain source), for UI titles too.
	const grepRe = grep ? ((m) => new RegExp(m ? m[1] : grep, m ? m[2] : ''))(grep.match(/^\/(.*)\/([a-z]*)$/)) : undefined;
	// A UI test is picked by its title or its file's name (`--grep reopen-folder`).
	const wantsUi = (t, profile) =>
		(!grepRe || grepRe.test(uiTitles.get(t)) || grepRe.test(t.name)) &&
		(variantAll || lanesOf('ui', [uiTitles.get(t)]).includes(profile === 'standard' ? 'standard-ui' : 'variant'));

	// The lanes: the standard profile's in-host suites, the standard profile's UI tests in a window
	// of their own, then each other profile (its tagged in-host and UI tests) in one window.
	const lanes = [];
	for (const profile of PROFILES) {
		const standard = profile === 'standard';
		const ui = uiTests.filter((t) => wantsUi(t, profile));
		if (standard) {
			if (!uiOnly) {
				lanes.push({ lane: 'standard', profile, suites: true, ui: [], grep });
			}
			// The UI tests in UI_WINDOWS windows (every other test to each, in order): one window held
			// the whole run's tail alone while the other lanes had ended and a core stood idle.
			for (let w = 0; w < UI_WINDOWS; w++) {
				const part = ui.filter((_, i) => i % UI_WINDOWS === w);
				if (part.length > 0) {
					lanes.push({ lane: UI_WINDOWS > 1 ? `standard-ui-${w + 1}` : 'standard-ui', profile, suites: false, ui: part, grep });
				}
			}
		} else if (!uiOnly || ui.length > 0) {
			lanes.push({ lane: profile, profile, suites: !uiOnly, ui, grep: variantAll ? grep : variantGrep(grep) });
		}
	}
	if (webOnly) {
		lanes.length = 0;
	}
	// Reversed: the lanes start last to first too (and each lane's tests run last to first).
	const laneOrder = (list) => (ORDER === 'reverse' ? [...list].reverse() : list);
	// The web lane: the tests tagged WEB_TAG with the web build in code-server's web worker extension
	// host, against the standard profile. There is no variant-web lane (scripts/lib/lanes.mjs): the
	// web platform differs in its wire, stores and sinks, which the service's choices do not reach;
	// the variant's decoding runs in `variant`, and the fetch wire against the variant emulator in the
	// unit tests (test/unit/support/wires.ts).
	if (web && webSuiteFiles.length > 0 && PROFILES.includes('standard')) {
		lanes.push({ lane: 'standard-web', profile: 'standard', suites: true, ui: [], grep: taggedGrep([WEB_TAG], grep), web: true });
	}
	log(
		`${uiOnly ? 'in-host suites skipped (--ui-only)' : `${suiteFiles.length} in-host suite file(s) (${webSuiteFiles.length} also in the web lanes)`}, ${uiTests.length} UI test(s) in ${ORDER === 'reverse' ? 'reverse ' : ''}file-name order; lanes: ${lanes.map((l) => l.lane).join(', ')} (${Math.min(LANES_AT_ONCE, lanes.length)} at once); emulator profiles: ${PROFILES.join(', ')}`,
	);

	let kept;
	const runLane = async (l) => {
		const logs = join(LOGS, l.lane);
		const session = await startSession({
			lane: l.lane,
			cs,
			extSource: l.web ? extWeb : ext,
			web: l.web,
			dir: join(WORK, l.lane),
			logs,
			profile: l.profile,
			grep: l.grep,
			suites: l.suites,
		});
		try {
			const uiResults = l.ui.length > 0 ? await runUiTests(session, l.ui) : [];
			session.timings.uiEnded = Date.now();
			uiResults.push(await checkConsoleErrors(session.consoleCheck, logs, { afterUi: l.ui.length > 0 }));
			session.timings.ended = Date.now();
			return { ...l, session, report: session.report, timings: session.timings, uiResults };
		} finally {
			if (keep) {
				kept = session;
			} else {
				await stopSession(session);
			}
		}
	};
	// The web build's UI journeys (npm run test:web) take a slot of the pool after the long lanes (the
	// in-host suites and the UI windows): started last, they held the run's tail alone;
	// not with --grep (they are not selected by title) or without the web lanes.
	const journeys = web && !grep;
	const ordered = laneOrder(lanes);
	const tasks = ordered.map((l) => () => runLane(l));
	const journeysAt = journeys ? Math.min(tasks.length, LANES_AT_ONCE) : -1;
	if (journeys) {
		tasks.splice(journeysAt, 0, runWebJourneys);
	}
	const results = await inLanes(tasks, LANES_AT_ONCE);
	const journeyResult = journeys ? results.splice(journeysAt, 1)[0] : undefined;

	if (keep && kept) {
		console.log(`\n--keep: workbench (${kept.lane}) at ${kept.workbenchUrl} ; press Ctrl-C to stop`);
		await new Promise(() => {});
	}

	const all = [];
	const fatal = [];
	for (const [i, r] of results.entries()) {
		const l = ordered[i];
		const prefix = [
			...(l.web ? ['(VS Code for the Web)'] : []),
			...(l.profile === 'standard' ? [] : [`(emulator profile ${l.profile})`]),
		];
		const tagged = [...(l.web ? [WEB_TAG] : []), ...(l.profile === 'standard' || variantAll ? [] : [VARIANT_TAG])];
		const against = `${l.web ? ', the web build in the web worker extension host' : ''}${
			l.profile === 'standard' ? '' : ` against the emulator's ${l.profile} profile`
		}${tagged.length > 0 ? ` (tests tagged ${tagged.join(' and ')})` : ''}`;
		if (r.error) {
			fatal.push(`${l.lane}: ${r.error.stack ?? r.error}`);
			continue;
		}
		if (r.report.fatal) {
			fatal.push(`${l.lane}: ${r.report.fatal}`);
		}
		const tests = r.report.tests.map((t) => ({ ...t, titlePath: [...prefix, ...t.titlePath] }));
		const ui = r.uiResults.map((t) => ({ ...t, titlePath: [...prefix, `[${l.lane}]`, ...t.titlePath] }));
		if (l.suites) {
			const h = r.report.host;
			printResults(
				`In the extension host${against}: ${h.appName} ${h.vscodeVersion} (${h.appHost}, ${h.uiKind}), ${l.web ? h.node : `Node ${h.node}`}`,
				tests,
			);
		}
		printResults(l.ui.length > 0 ? `UI (Playwright + Chromium)${against}` : `Console (${l.lane})`, ui);
		all.push(...tests, ...ui);
	}

	if (journeyResult?.error) {
		fatal.push(`web-ui: ${journeyResult.error.stack ?? journeyResult.error}`);
	} else if (journeyResult) {
		printResults('VS Code for the Web: the web build in a browser window (scripts/test-web.mjs)', journeyResult.results);
		all.push(...journeyResult.results);
	}

	const passed = all.filter((r) => r.state === 'passed').length;
	const pending = all.filter((r) => r.state === 'pending').length;
	const failed = all.filter((r) => r.state === 'failed');
	reportTimings(
		started,
		[...results, ...(journeyResult ? [journeyResult] : [])].filter((r) => !r.error),
		buildMs,
	);
	console.log(`\n  ${paint(32, `${passed} passing`)} (${ms(Date.now() - started)})`);
	if (pending) {
		console.log(`  ${paint(36, `${pending} pending`)}`);
	}
	if (failed.length) {
		console.log(`  ${paint(31, `${failed.length} failing`)}`);
	}
	for (const f of failed) {
		console.log(
			`\n  ${f.failureNo}) ${f.titlePath.join('\n       ')}:\n     ${(f.error?.stack ?? f.error?.message ?? '').split('\n').join('\n     ')}`,
		);
	}
	for (const p of fatal) {
		console.log(`\n  fatal (${p})`);
	}
	if (all.length === 0 && fatal.length === 0) {
		console.log('  no tests ran');
	}
	const shots = existsSync(SCREENSHOTS) ? readdirSync(SCREENSHOTS) : [];
	if (shots.length) {
		console.log(`\n  screenshots: ${shots.map((s) => relative(ROOT, join(SCREENSHOTS, s))).join(', ')}`);
	}
	console.log(`  logs: ${relative(ROOT, LOGS)}/\n`);
	// The plain closing line CI reads in any language: one summary over every lane.
	console.log(`${passed} passed, ${failed.length + fatal.length} failed${pending ? `, ${pending} skipped` : ''}`);
	return failed.length > 0 || fatal.length > 0 || all.length === 0 ? 1 : 0;
}

let code;
try {
	code = await main();
} catch (err) {
	console.error(`\ntest:integration failed: ${err.stack ?? err}`);
	console.error(`logs: ${relative(ROOT, LOGS)}/`);
	code = 1;
} finally {
	await procs.stopAll();
}
// Keep the run folder (extensions, user data, report) only when something failed.
if (code === 0 && !keep) {
	rmSync(WORK, { recursive: true, force: true });
}
process.exit(code);
