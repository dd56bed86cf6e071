// Integration tests inside a real VS Code (code-server) extension host, then Playwright UI tests
// against the same workbench, once per emulator profile.
// Usage: npm run test:integration [-- --grep TEXT] [-- --keep] [-- --profiles standard,variant] [-- --variant-all]
//                                  [-- --reverse] [-- --ui-only]
//
//  1. installs what is missing into the cache outside the clone (Node 24, code-server, and as root
//     Debian's chromium + libkrb5-dev): see scripts/lib/harness.mjs;
//  2. builds the extension .vsix and the test-runner extension (mocha + test/integration/suite/**);
//  3. per profile (default `standard,variant`; --profiles or CLOUD_AGENTS_TEST_PROFILES): starts the
//     emulator in that profile, code-server (CLOUD_AGENTS_TEST_REPORT, CLOUD_AGENTS_EMULATOR_URL and
//     CLOUD_AGENTS_EMULATOR_PROFILE in its environment, cloudAgents.apiUrl in its own user settings;
//     the network suite's certificate authorities through NODE_EXTRA_CA_CERTS, SSL_CERT_FILE and
//     CLOUD_AGENTS_TEST_NETWORK: scripts/lib/networkFixtures.mjs)
//     and a fresh browser context on loopback ports; the runner extension runs the suites on startup
//     and writes a report (--ui-only or CLOUD_AGENTS_TEST_UI_ONLY=1: no suite runs and the report is
//     empty, for a quicker round of UI tests). The standard pass runs every test; a variant pass only
//     the tests whose title contains "[variant]" (--variant-all: every test, to find candidates for
//     the tag), and is skipped when the standard pass selected no tagged test. One code-server runs
//     at a time;
//  4. runs the test/ui/*.ts selected for the pass against its workbench, one after the other in
//     file-name order; --reverse (or CLOUD_AGENTS_TEST_ORDER=reverse) runs them in the reverse order.
//     No UI test relies on another having run before it: each sets up what it needs, and one that
//     reloads the page or opens another window leaves the workbench usable (or takes it back) for
//     the next; a reversed run shows it. The in-host suites keep their order. Screenshots go to
//     test-results/screenshots/ (FAILED-<profile>-<test>.png for a variant pass);
//  5. stops every process it started (also on failure and Ctrl-C), prints every pass and ONE
//     closing "N passed, N failed" line over all of them, exits non-zero on any failure.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
	buildVsix,
	ensureCodeServer,
	ensureSystemPackages,
	freePort,
	installExtension,
	log,
	startCodeServer,
	startEmulator,
	waitForHttp,
	writeUserSettings,
} from './lib/harness.mjs';
import { buildRunnerExtension, buildUiTests, packageFolder } from './lib/bundle-tests.mjs';
import { writeNetworkFixtures } from './lib/networkFixtures.mjs';
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
const VARIANT_TAG = '[variant]';

/**
 * The mocha grep of a variant pass: titles containing VARIANT_TAG and, with --grep, matching it too
 * (mocha reads the grep as a regular expression, `/source/flags` or a plain source).
 */
function variantGrep(userGrep) {
	const tag = VARIANT_TAG.replace(/[[\]]/g, '\\$&');
	if (!userGrep) {
		return tag;
	}
	const m = userGrep.match(/^\/(.*)\/([a-z]*)$/);
	return `/^(?=[\\s\\S]*${tag})(?=[\\s\\S]*(?:${m ? m[1] : userGrep}))/${m ? m[2] : ''}`;
}
const REPORT_TIMEOUT_MS = Number(process.env.CLOUD_AGENTS_REPORT_TIMEOUT_MS ?? 600_000);

// One folder per run, so runs in parallel (several people in one checkout) do not collide.
const WORK = join(ROOT, '.vscode-test', 'integration', String(process.pid));
const RESULTS = join(ROOT, 'test-results');
const SCREENSHOTS = join(RESULTS, 'screenshots');
const LOGS = join(RESULTS, 'logs');

const procs = new Processes();
let browserServer;
let browser;
let browserPid;
procs.onStop(async () => {
	const timeout = () => new Promise((r) => setTimeout(r, 5000));
	if (browser) {
		await Promise.race([browser.close().catch(() => {}), timeout()]);
	}
	if (browserServer) {
		await Promise.race([browserServer.close().catch(() => {}), timeout()]);
	}
	if (browserPid) {
		try {
			process.kill(browserPid, 'SIGKILL');
		} catch {
			/* already gone */
		}
	}
});

/** Waits for the runner's report, printing each finished test from its progress file as it comes. */
async function waitForReport(path, isAlive) {
	const end = Date.now() + REPORT_TIMEOUT_MS;
	let seen = 0;
	let current;
	const follow = () => {
		let lines;
		try {
			lines = readFileSync(`${path}.progress`, 'utf8').split('\n').filter(Boolean);
		} catch {
			return;
		}
		for (const line of lines.slice(seen)) {
			const p = JSON.parse(line);
			if (p.event === 'start') {
				current = p.titlePath.join(' › ');
				continue;
			}
			current = undefined;
			log(`  ${p.event === 'passed' ? '\u2714' : p.event === 'pending' ? '-' : '\u2717'} ${p.titlePath.join(' › ')}`);
		}
		seen = lines.length;
	};
	while (Date.now() < end) {
		follow();
		if (existsSync(path)) {
			return JSON.parse(readFileSync(path, 'utf8'));
		}
		if (!isAlive()) {
			throw new Error('code-server exited before the in-host tests reported');
		}
		await new Promise((r) => setTimeout(r, 250));
	}
	follow();
	throw new Error(
		`no in-host test report after ${REPORT_TIMEOUT_MS / 1000}s${current ? `; still running: ${current}` : ''} (see ${relative(ROOT, LOGS)}/; CLOUD_AGENTS_REPORT_TIMEOUT_MS raises the limit)`,
	);
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
 * One code-server session: an emulator in `profile` (the standard pass may use
 * CLOUD_AGENTS_EMULATOR_URL instead), code-server with its own user data and workspace under `dir`
 * (the extensions folder is shared), a fresh browser context on the workbench; resolves once the
 * in-host report is written.
 */
async function startSession({ cs, ext, dir, logs, profile, grep }) {
	const ud = join(dir, 'user-data');
	const workspace = join(dir, 'workspace');
	for (const d of [ud, workspace, logs]) {
		mkdirSync(d, { recursive: true });
	}
	writeFileSync(join(workspace, 'README.md'), '# Cloud Agents integration test workspace\n');
	// A multi-root workspace file rather than a bare folder: adding an agent's workspace folder to a
	// single-folder browser window turns it into an untitled workspace and reloads the page, which
	// would cut the in-host run short; in a saved workspace it is a plain folder change.
	const workspaceFile = join(dir, 'integration.code-workspace');
	writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: 'workspace' }] }, null, '\t'));

	const session = { profile, consoleLog: [], children: [] };
	// CLOUD_AGENTS_EMULATOR_URL points the standard pass at an emulator (or service) that is already running.
	let emulatorUrl = profile === 'standard' ? process.env.CLOUD_AGENTS_EMULATOR_URL?.replace(/\/+$/, '') : undefined;
	if (emulatorUrl) {
		await waitForHttp(`${emulatorUrl}/healthz`, 10_000);
	} else {
		emulatorUrl = await startEmulator(procs, {
			port: await freePort(),
			profile,
			logFile: join(logs, 'emulator.log'),
			onChild: (c) => session.children.push(c),
		});
	}
	session.emulatorUrl = emulatorUrl;
	log(`emulator (${profile} profile) on ${emulatorUrl}`);
	writeUserSettings(ud, { ...CALM_SETTINGS, 'cloudAgents.apiUrl': emulatorUrl });

	// The network suite's certificate authorities: NODE_EXTRA_CA_CERTS is read at process start.
	const networkEnv = await writeNetworkFixtures(join(dir, 'network'));

	const codePort = await freePort();
	// GitHub lookups (Create Agent's owner/name) go to a stub a UI test serves on this port while it
	// runs (UiContext.githubStubUrl); nothing listens otherwise, so no test reaches the real GitHub.
	session.githubStubUrl = `http://127.0.0.1:${await freePort()}`;
	session.reportPath = join(dir, 'report.json');
	session.codeServer = await startCodeServer(procs, cs, {
		port: codePort,
		extensionsDir: ext,
		userDataDir: ud,
		folder: workspaceFile,
		logFile: join(logs, 'code-server.log'),
		env: {
			CLOUD_AGENTS_TEST_REPORT: session.reportPath,
			CLOUD_AGENTS_EMULATOR_URL: emulatorUrl,
			CLOUD_AGENTS_EMULATOR_PROFILE: profile,
			CLOUD_AGENTS_DEV_TOKEN: DEV_TOKEN,
			CLOUD_AGENTS_GITHUB_API_URL: session.githubStubUrl,
			...networkEnv,
			...(grep ? { CLOUD_AGENTS_TEST_GREP: grep } : {}),
			...(uiOnly ? { CLOUD_AGENTS_TEST_SKIP_SUITES: '1' } : {}),
		},
	});
	session.children.push(session.codeServer);
	session.workbenchUrl = `http://127.0.0.1:${codePort}/?workspace=${encodeURIComponent(workspaceFile)}`;
	log(`code-server on http://127.0.0.1:${codePort}`);

	// A fresh context per session: no storage carried over from another pass.
	session.context = await browser.newContext({ viewport: { width: 1280, height: 1024 } });
	session.page = await session.context.newPage();
	session.page.on('console', (m) => session.consoleLog.push(`[${m.type()}] ${m.text()}`));
	session.page.on('pageerror', (e) => session.consoleLog.push(`[pageerror] ${e.message}`));
	// Zero console errors from our extension: collected for the whole session, judged after its UI tests.
	session.consoleCheck = new ConsoleErrorCheck({ userDataDir: ud });
	session.consoleCheck.attach(session.page);
	session.consoleCheck.phase('in-host suites', { strict: false });
	await session.page.goto(session.workbenchUrl);
	log('workbench loading; waiting for the in-host report');
	try {
		session.report = await waitForReport(session.reportPath, () => !session.codeServer.exited);
	} finally {
		writeFileSync(join(logs, 'browser-console.log'), session.consoleLog.join('\n'));
	}
	log(`in-host tests (${profile} profile) done in ${ms(session.report.stats.durationMs)}`);
	return session;
}

/** Closes a session's browser context and stops its code-server and emulator (by pid). */
async function stopSession(session) {
	await Promise.race([session.context.close().catch(() => {}), new Promise((r) => setTimeout(r, 5000))]);
	for (const child of session.children.reverse()) {
		await procs.stop(child);
	}
}

/** Runs the UI tests whose titles pass `keepTest` against the session's workbench. */
/** Judges the errors collected over a session (scripts/lib/consoleErrors.mjs); returns a result row. */
async function checkConsoleErrors(check, logs) {
	check.phase('after the UI tests', { strict: true });
	// The extension host writes its log files asynchronously: give the last lines time to land.
	await new Promise((r) => setTimeout(r, 1500));
	return consoleCheckResult(check, join(logs, 'console-errors.log'));
}

async function runUiTests(session, uiTests, keepTest) {
	const uiResults = [];
	if (session.report.fatal) {
		return uiResults;
	}
	const { Workbench } = await import(pathToFileURL(join(WORK, 'ui', 'support', 'workbench.mjs')).href);
	const { page } = session;
	for (const t of uiTests) {
		const mod = await import(pathToFileURL(t.file).href);
		const uiTest = mod.default;
		if (!keepTest(uiTest.title)) {
			continue;
		}
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
		try {
			const workbench = new Workbench(page, SCREENSHOTS);
			await workbench.ready();
			await workbench.dismissDialogs();
			await uiTest.run({
				page,
				workbench,
				emulatorUrl: session.emulatorUrl,
				emulatorProfile: session.profile,
				githubStubUrl: session.githubStubUrl,
				devToken: DEV_TOKEN,
				screenshotDir: SCREENSHOTS,
				note,
				expectConsoleError: (re, why) => expectConsoleError(re, why),
				leavePage: (to) => leavePage(to, () => workbench.ready()),
			});
			uiResults.push({ titlePath: [t.name, uiTest.title], state: 'passed', durationMs: Date.now() - t0, notes });
		} catch (err) {
			await page.screenshot({ path: join(SCREENSHOTS, `FAILED-${shot}.png`) }).catch(() => {});
			uiResults.push({
				titlePath: [t.name, uiTest.title],
				state: 'failed',
				durationMs: Date.now() - t0,
				notes,
				error: { message: err.message, stack: err.stack },
			});
		}
	}
	const logs = session.profile === 'standard' ? LOGS : join(LOGS, session.profile);
	writeFileSync(join(logs, 'browser-console.log'), session.consoleLog.join('\n'));
	uiResults.push(await checkConsoleErrors(session.consoleCheck, logs));
	return uiResults;
}

async function main() {
	const started = Date.now();
	const cs = await ensureCodeServer();
	ensureSystemPackages({ browser: true, build: false });
	log(`code-server ready (${cs.dir})`);

	rmSync(WORK, { recursive: true, force: true });
	const ext = join(WORK, 'extensions');
	// Screenshots of an earlier run (a FAILED-… one especially) would mislead: start empty.
	rmSync(SCREENSHOTS, { recursive: true, force: true });
	for (const d of [ext, LOGS, SCREENSHOTS]) {
		mkdirSync(d, { recursive: true });
	}

	log('building the extension .vsix and the test runner');
	const vsix = buildVsix(join(WORK, 'cloud-agents.vsix'));
	const suiteFiles = await buildRunnerExtension(join(WORK, 'runner-extension'));
	const runnerVsix = packageFolder(join(WORK, 'runner-extension'), join(WORK, 'cloud-agents-test-runner.vsix'));
	const uiTests = await buildUiTests(join(WORK, 'ui'));
	if (ORDER === 'reverse') {
		uiTests.reverse();
	}
	log(
		`${uiOnly ? 'in-host suites skipped (--ui-only)' : `${suiteFiles.length} in-host suite file(s)`}, ${uiTests.length} UI test(s) in ${ORDER === 'reverse' ? 'reverse ' : ''}file-name order (${uiTests.map((t) => t.name).join(', ')}); emulator profiles: ${PROFILES.join(', ')}`,
	);
	// Installed once: every session's code-server reads the same extensions folder.
	installExtension(cs, ext, join(WORK, 'user-data'), vsix);
	installExtension(cs, ext, join(WORK, 'user-data'), runnerVsix);

	// launchServer (rather than launch) exposes the browser's pid, so cleanup can stop it by pid.
	// Playwright gives the browser a fresh temporary profile, removed when it closes.
	browserServer = await chromium.launchServer({
		executablePath: CHROMIUM,
		headless: true,
		args: [...CHROMIUM_ARGS],
	});
	browserPid = browserServer.process().pid;
	browser = await chromium.connect(browserServer.wsEndpoint());

	/** Every pass's results, with the profile in front of the title path of the non-standard ones. */
	const passes = [];
	let last;
	for (const profile of PROFILES) {
		const standard = profile === 'standard';
		if (!standard && passes.length > 0 && !variantAll) {
			// Only tests tagged [variant] run against the variant; skip the session when none is among those the standard pass selected.
			const tagged = passes[0].report.tests.filter((t) => t.titlePath.some((p) => p.includes(VARIANT_TAG)));
			const taggedUi = passes[0].ui.filter((t) => t.titlePath.some((p) => p.includes(VARIANT_TAG)));
			if (tagged.length === 0 && taggedUi.length === 0) {
				log(`no in-host test tagged ${VARIANT_TAG}${grep ? ` matches --grep ${grep}` : ''}: the ${profile} pass is skipped`);
				continue;
			}
		}
		if (last && !keep) {
			// One code-server at a time (the machine is shared): the next pass starts once this one is stopped.
			await stopSession(last);
		}
		const t0 = Date.now();
		const dir = standard ? WORK : join(WORK, profile);
		const session = await startSession({
			cs,
			ext,
			dir,
			logs: standard ? LOGS : join(LOGS, profile),
			profile,
			grep: standard || variantAll ? grep : variantGrep(grep),
		});
		last = session;
		const uiResults = await runUiTests(
			session,
			uiTests,
			(title) => (!grep || title.includes(grep)) && (standard || variantAll || title.includes(VARIANT_TAG)),
		);
		const prefix = standard ? [] : [`(emulator profile ${profile})`];
		passes.push({
			profile,
			report: session.report,
			durationMs: Date.now() - t0,
			tests: session.report.tests.map((r) => ({ ...r, titlePath: [...prefix, ...r.titlePath] })),
			ui: uiResults.map((r) => ({ ...r, titlePath: [...prefix, ...r.titlePath] })),
		});
		log(`${profile} pass done in ${ms(Date.now() - t0)}`);
	}

	if (keep && last) {
		console.log(`\n--keep: workbench (${last.profile} profile) at ${last.workbenchUrl} ; press Ctrl-C to stop`);
		await new Promise(() => {});
	}

	for (const pass of passes) {
		const h = pass.report.host;
		const against =
			pass.profile === 'standard'
				? ''
				: ` against the emulator's ${pass.profile} profile${variantAll ? '' : ` (tests tagged ${VARIANT_TAG})`}`;
		printResults(
			`In the extension host${against}: ${h.appName} ${h.vscodeVersion} (${h.appHost}, ${h.uiKind}), Node ${h.node}${uiOnly ? ' (suites skipped: --ui-only)' : ''}`,
			pass.tests,
		);
		if (pass.ui.length > 0 || (pass.profile === 'standard' && uiTests.length > 0)) {
			printResults(`UI (Playwright + Chromium)${against}`, pass.ui);
		}
	}

	const all = passes.flatMap((p) => [...p.tests, ...p.ui]);
	const fatal = passes.filter((p) => p.report.fatal);
	const passed = all.filter((r) => r.state === 'passed').length;
	const pending = all.filter((r) => r.state === 'pending').length;
	const failed = all.filter((r) => r.state === 'failed');
	console.log(
		`\n  ${paint(32, `${passed} passing`)} (${ms(Date.now() - started)}; ${passes.map((p) => `${p.profile} pass ${ms(p.durationMs)}`).join(', ')})`,
	);
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
		console.log(`\n  fatal (${p.profile} profile): ${p.report.fatal}`);
	}
	if (all.length === 0 && fatal.length === 0) {
		console.log('  no tests ran');
	}
	const shots = existsSync(SCREENSHOTS) ? (await import('node:fs')).readdirSync(SCREENSHOTS) : [];
	if (shots.length) {
		console.log(`\n  screenshots: ${shots.map((s) => relative(ROOT, join(SCREENSHOTS, s))).join(', ')}`);
	}
	console.log(`  logs: ${relative(ROOT, LOGS)}/\n`);
	// The plain closing line CI reads in any language: one summary over every pass.
	console.log(`${passed} passed, ${failed.length} failed${pending ? `, ${pending} skipped` : ''}`);
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
