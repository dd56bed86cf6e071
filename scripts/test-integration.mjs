// Integration tests inside a real VS Code (code-server) extension host, then Playwright UI tests
// against the same workbench. Usage: npm run test:integration [-- --grep TEXT] [-- --keep]
//
//  1. installs what is missing into the cache outside the clone (Node 24, code-server, and as root
//     Debian's chromium + libkrb5-dev): see scripts/lib/harness.mjs;
//  2. builds the extension .vsix and the test-runner extension (mocha + test/integration/suite/**);
//  3. starts the emulator, code-server (with CLOUD_AGENTS_TEST_REPORT in its environment) and
//     Chromium on loopback ports; the runner extension runs the suites on startup and writes a report;
//  4. runs every test/ui/*.ts against the open workbench; screenshots go to test-results/screenshots/;
//  5. stops every process it started (also on failure and Ctrl-C), prints a summary, exits non-zero
//     on any failure.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import {
	CALM_SETTINGS, CHROMIUM, DEV_TOKEN, ROOT, Processes, buildVsix, ensureCodeServer, ensureSystemPackages, freePort,
	installExtension, log, startCodeServer, startEmulator, waitForHttp, writeUserSettings,
} from './lib/harness.mjs';
import { buildRunnerExtension, buildUiTests, packageFolder } from './lib/bundle-tests.mjs';
import { ConsoleErrorCheck, consoleCheckResult } from './lib/consoleErrors.mjs';

const args = process.argv.slice(2);
const grepIndex = args.indexOf('--grep');
const grep = grepIndex >= 0 ? args[grepIndex + 1] : undefined;
const keep = args.includes('--keep');
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
	if (browser) { await Promise.race([browser.close().catch(() => {}), timeout()]); }
	if (browserServer) { await Promise.race([browserServer.close().catch(() => {}), timeout()]); }
	if (browserPid) { try { process.kill(browserPid, 'SIGKILL'); } catch { /* already gone */ } }
});

/** Waits for the runner's report, printing each finished test from its progress file as it comes. */
async function waitForReport(path, isAlive) {
	const end = Date.now() + REPORT_TIMEOUT_MS;
	let seen = 0;
	let current;
	const follow = () => {
		let lines;
		try { lines = readFileSync(`${path}.progress`, 'utf8').split('\n').filter(Boolean); } catch { return; }
		for (const line of lines.slice(seen)) {
			const p = JSON.parse(line);
			if (p.event === 'start') { current = p.titlePath.join(' › '); continue; }
			current = undefined;
			log(`  ${p.event === 'passed' ? '\u2714' : p.event === 'pending' ? '-' : '\u2717'} ${p.titlePath.join(' › ')}`);
		}
		seen = lines.length;
	};
	while (Date.now() < end) {
		follow();
		if (existsSync(path)) { return JSON.parse(readFileSync(path, 'utf8')); }
		if (!isAlive()) { throw new Error('code-server exited before the in-host tests reported'); }
		await new Promise((r) => setTimeout(r, 250));
	}
	follow();
	throw new Error(`no in-host test report after ${REPORT_TIMEOUT_MS / 1000}s${current ? `; still running: ${current}` : ''} (see ${relative(ROOT, LOGS)}/; CLOUD_AGENTS_REPORT_TIMEOUT_MS raises the limit)`);
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
		while (same < suites.length && suites[same] === previous[same]) { same++; }
		for (let i = same; i < suites.length; i++) { console.log(`${'  '.repeat(i + 2)}${suites[i]}`); }
		previous = suites;
		const indent = '  '.repeat(suites.length + 2);
		const title = r.titlePath[r.titlePath.length - 1];
		if (r.state === 'passed') { console.log(`${indent}\u2714 ${title}${r.durationMs > 75 ? ` (${ms(r.durationMs)})` : ''}`); }
		else if (r.state === 'pending') { console.log(`${indent}- ${title}`); }
		else { r.failureNo = ++printResults.failures; console.log(`${indent}${r.failureNo}) ${title}`); }
		for (const n of r.notes ?? []) { console.log(`${indent}    ${paint(90, n.replace(ROOT + '/', ''))}`); }
	}
}
printResults.failures = 0;

/** Judges the errors collected over the run (scripts/lib/consoleErrors.mjs); returns a result row. */
async function checkConsoleErrors(check) {
	check.phase('after the UI tests', { strict: true });
	// The extension host writes its log files asynchronously: give the last lines time to land.
	await new Promise((r) => setTimeout(r, 1500));
	return consoleCheckResult(check, join(LOGS, 'console-errors.log'));
}

async function main() {
	const started = Date.now();
	const cs = await ensureCodeServer();
	ensureSystemPackages({ browser: true, build: false });
	log(`code-server ready (${cs.dir})`);

	rmSync(WORK, { recursive: true, force: true });
	const ext = join(WORK, 'extensions');
	const ud = join(WORK, 'user-data');
	const workspace = join(WORK, 'workspace');
	// Screenshots of an earlier run (a FAILED-… one especially) would mislead: start empty.
	rmSync(SCREENSHOTS, { recursive: true, force: true });
	for (const d of [ext, ud, workspace, LOGS, SCREENSHOTS]) { mkdirSync(d, { recursive: true }); }
	writeFileSync(join(workspace, 'README.md'), '# Cloud Agents integration test workspace\n');
	// A multi-root workspace file rather than a bare folder: adding an agent's workspace folder to a
	// single-folder browser window turns it into an untitled workspace and reloads the page, which
	// would cut the in-host run short; in a saved workspace it is a plain folder change.
	const workspaceFile = join(WORK, 'integration.code-workspace');
	writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: 'workspace' }] }, null, '\t'));

	log('building the extension .vsix and the test runner');
	const vsix = buildVsix(join(WORK, 'cloud-agents.vsix'));
	const suiteFiles = await buildRunnerExtension(join(WORK, 'runner-extension'));
	const runnerVsix = packageFolder(join(WORK, 'runner-extension'), join(WORK, 'cloud-agents-test-runner.vsix'));
	const uiTests = await buildUiTests(join(WORK, 'ui'));
	log(`${suiteFiles.length} in-host suite file(s), ${uiTests.length} UI test(s)`);

	const [emulatorPort, codePort] = [await freePort(), await freePort()];
	// CLOUD_AGENTS_EMULATOR_URL points the run at an emulator (or service) that is already running.
	let emulatorUrl = process.env.CLOUD_AGENTS_EMULATOR_URL?.replace(/\/+$/, '');
	if (emulatorUrl) {
		await waitForHttp(`${emulatorUrl}/healthz`, 10_000);
	} else {
		emulatorUrl = await startEmulator(procs, { port: emulatorPort, logFile: join(LOGS, 'emulator.log') });
	}
	log(`emulator on ${emulatorUrl}`);

	installExtension(cs, ext, ud, vsix);
	installExtension(cs, ext, ud, runnerVsix);
	writeUserSettings(ud, { ...CALM_SETTINGS, 'cloudAgents.apiUrl': emulatorUrl });

	const reportPath = join(WORK, 'report.json');
	const codeServer = await startCodeServer(procs, cs, {
		port: codePort, extensionsDir: ext, userDataDir: ud, folder: workspaceFile, logFile: join(LOGS, 'code-server.log'),
		env: {
			CLOUD_AGENTS_TEST_REPORT: reportPath,
			CLOUD_AGENTS_EMULATOR_URL: emulatorUrl,
			CLOUD_AGENTS_DEV_TOKEN: DEV_TOKEN,
			...(grep ? { CLOUD_AGENTS_TEST_GREP: grep } : {}),
		},
	});
	const workbenchUrl = `http://127.0.0.1:${codePort}/?workspace=${encodeURIComponent(workspaceFile)}`;
	log(`code-server on http://127.0.0.1:${codePort}`);

	// launchServer (rather than launch) exposes the browser's pid, so cleanup can stop it by pid.
	// Playwright gives the browser a fresh temporary profile, removed when it closes.
	browserServer = await chromium.launchServer({
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
			'--disable-component-update', '--disable-sync'],
	});
	browserPid = browserServer.process().pid;
	browser = await chromium.connect(browserServer.wsEndpoint());
	const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	const page = await context.newPage();
	const consoleLog = [];
	page.on('console', (m) => consoleLog.push(`[${m.type()}] ${m.text()}`));
	page.on('pageerror', (e) => consoleLog.push(`[pageerror] ${e.message}`));
	// Zero console errors from our extension: collected for the whole run, judged at the end.
	const consoleCheck = new ConsoleErrorCheck({ userDataDir: ud });
	consoleCheck.attach(page);
	consoleCheck.phase('in-host suites', { strict: false });
	await page.goto(workbenchUrl);
	log('workbench loading; waiting for the in-host report');

	let report;
	try {
		report = await waitForReport(reportPath, () => !codeServer.exited);
	} finally {
		writeFileSync(join(LOGS, 'browser-console.log'), consoleLog.join('\n'));
	}
	log(`in-host tests done in ${ms(report.stats.durationMs)}`);

	const uiResults = [];
	if (!report.fatal) {
		const { Workbench } = await import(pathToFileURL(join(WORK, 'ui', 'support', 'workbench.mjs')).href);
		for (const t of uiTests) {
			const mod = await import(pathToFileURL(t.file).href);
			const uiTest = mod.default;
			if (grep && !uiTest.title.includes(grep)) { continue; }
			const t0 = Date.now();
			const notes = [];
			const note = (line) => { notes.push(String(line)); };
			const expectConsoleError = consoleCheck.phase(`UI ${t.name}`, { strict: true });
			try {
				const workbench = new Workbench(page, SCREENSHOTS);
				await workbench.ready();
				await workbench.dismissDialogs();
				await uiTest.run({ page, workbench, emulatorUrl, devToken: DEV_TOKEN, screenshotDir: SCREENSHOTS, note, expectConsoleError });
				uiResults.push({ titlePath: [t.name, uiTest.title], state: 'passed', durationMs: Date.now() - t0, notes });
			} catch (err) {
				await page.screenshot({ path: join(SCREENSHOTS, `FAILED-${t.name}.png`) }).catch(() => {});
				uiResults.push({ titlePath: [t.name, uiTest.title], state: 'failed', durationMs: Date.now() - t0, notes, error: { message: err.message, stack: err.stack } });
			}
		}
	}
	writeFileSync(join(LOGS, 'browser-console.log'), consoleLog.join('\n'));
	uiResults.push(await checkConsoleErrors(consoleCheck));

	if (keep) {
		console.log(`\n--keep: workbench at ${workbenchUrl} ; press Ctrl-C to stop`);
		await new Promise(() => {});
	}

	const h = report.host;
	printResults(`In the extension host: ${h.appName} ${h.vscodeVersion} (${h.appHost}, ${h.uiKind}), Node ${h.node}`, report.tests);
	if (uiResults.length > 0) { printResults('UI (Playwright + Chromium)', uiResults); }

	const all = [...report.tests, ...uiResults];
	const passes = all.filter((r) => r.state === 'passed').length;
	const pending = all.filter((r) => r.state === 'pending').length;
	const failed = all.filter((r) => r.state === 'failed');
	console.log(`\n  ${paint(32, `${passes} passing`)} (${ms(Date.now() - started)})`);
	if (pending) { console.log(`  ${paint(36, `${pending} pending`)}`); }
	if (failed.length) { console.log(`  ${paint(31, `${failed.length} failing`)}`); }
	for (const f of failed) {
		console.log(`\n  ${f.failureNo}) ${f.titlePath.join('\n       ')}:\n     ${(f.error?.stack ?? f.error?.message ?? '').split('\n').join('\n     ')}`);
	}
	if (report.fatal) { console.log(`\n  fatal: ${report.fatal}`); }
	if (all.length === 0 && !report.fatal) { console.log('  no tests ran'); }
	const shots = existsSync(SCREENSHOTS) ? (await import('node:fs')).readdirSync(SCREENSHOTS) : [];
	if (shots.length) { console.log(`\n  screenshots: ${shots.map((s) => relative(ROOT, join(SCREENSHOTS, s))).join(', ')}`); }
	console.log(`  logs: ${relative(ROOT, LOGS)}/\n`);
	// The plain closing line CI reads in any language.
	console.log(`${passes} passed, ${failed.length} failed${pending ? `, ${pending} skipped` : ''}`);
	return failed.length > 0 || report.fatal || all.length === 0 ? 1 : 0;
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
if (code === 0 && !keep) { rmSync(WORK, { recursive: true, force: true }); }
process.exit(code);
