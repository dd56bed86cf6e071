import { appendFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire, findSourceMap } from 'node:module';
import { join } from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import type { TestReport, TestResult } from './report';

import { EXTENSION_ID } from '../../../../src/ids';
import { SLOWDOWN, within } from '../../support/cloudAgents';

/**
 * Requires every integration suite. They are bundled separately into `suites.js` next to this file
 * (scripts/lib/bundle-tests.mjs) and loaded only after source maps are enabled, so failures point
 * at the .ts files.
 */
function loadSuites(): void {
	process.setSourceMapsEnabled(true);
	const suites = createRequire(__filename)(join(__dirname, 'suites.js')) as { loadSuites(): void };
	suites.loadSuites();
}

/** Multiplies every time-out a suite or test sets (`this.timeout(ms)`) by `factor`. */
function scaleTimeouts(factor: number): void {
	if (factor === 1) {
		return;
	}
	type Timeout = (this: unknown, ms?: string | number) => unknown;
	for (const proto of [Mocha.Runnable.prototype, Mocha.Suite.prototype] as unknown as Array<{ timeout: Timeout }>) {
		const original = proto.timeout;
		proto.timeout = function (this: unknown, ms?: string | number) {
			return ms === undefined ? original.call(this) : original.call(this, typeof ms === 'number' && ms > 0 ? ms * factor : ms);
		};
	}
}

/** The settings a suite may change (ours, the proxy and certificate ones, auto save, chat auto-approve), as they were before any suite ran. */
const BASELINE_SETTINGS = [
	'http.proxy',
	'http.proxyStrictSSL',
	'http.proxySupport',
	'http.noProxy',
	'http.proxyAuthorization',
	'files.autoSave',
	'chat.tools.global.autoApprove',
];

interface Baseline {
	settings: Map<string, { global: unknown; workspace: unknown }>;
}

async function takeBaseline(): Promise<Baseline> {
	const ours = vscode.extensions.getExtension(EXTENSION_ID);
	const properties = (ours?.packageJSON as { contributes?: { configuration?: { properties?: Record<string, unknown> } } } | undefined)
		?.contributes?.configuration?.properties;
	const keys = [...Object.keys(properties ?? {}), ...BASELINE_SETTINGS];
	const settings = new Map<string, { global: unknown; workspace: unknown }>();
	for (const key of keys) {
		const info = vscode.workspace.getConfiguration().inspect(key);
		settings.set(key, { global: info?.globalValue, workspace: info?.workspaceValue });
	}
	return { settings };
}

/**
 * Puts back what a suite may have left behind: the emulator's faults and outage cleared, the
 * settings as they were, editors and notifications closed, signed in with the dev token. Each
 * step is bounded; every step runs even when one fails, and the first failure is thrown.
 */
async function restoreBaseline(baseline: Baseline): Promise<void> {
	const failures: string[] = [];
	const step = async (what: string, fn: () => PromiseLike<unknown>): Promise<void> => {
		try {
			await within(`restoring the baseline: ${what}`, fn(), 15_000);
		} catch (err) {
			failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
		}
	};
	const emulator = process.env.CLOUD_AGENTS_EMULATOR_URL?.replace(/\/+$/, '');
	if (emulator) {
		await step('clearing the emulator faults', () =>
			fetch(`${emulator}/_emulator/faults`, { method: 'DELETE' }).then((r) => r.arrayBuffer()),
		);
		await step('ending an emulator outage', async () => {
			const outage = (await (await fetch(`${emulator}/_emulator/outage`)).json()) as { active?: boolean; admin_url?: string };
			if (outage.active && outage.admin_url) {
				await (await fetch(`${outage.admin_url.replace(/\/+$/, '')}/_emulator/outage`, { method: 'DELETE' })).arrayBuffer();
			}
		});
	}
	for (const [key, was] of baseline.settings) {
		const info = vscode.workspace.getConfiguration().inspect(key);
		if (JSON.stringify(info?.globalValue) !== JSON.stringify(was.global)) {
			await step(`the user setting ${key}`, () =>
				vscode.workspace.getConfiguration().update(key, was.global, vscode.ConfigurationTarget.Global),
			);
		}
		if (JSON.stringify(info?.workspaceValue) !== JSON.stringify(was.workspace)) {
			await step(`the workspace setting ${key}`, () =>
				vscode.workspace.getConfiguration().update(key, was.workspace, vscode.ConfigurationTarget.Workspace),
			);
		}
	}
	// A document a failed test left unsaved would make "close all" ask whether to save it — a
	// dialog nobody answers, so every later suite's restore timed out and its editors stayed
	// (one failure failed fourteen tests). Each is reverted and closed first.
	const dirty = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.isDirty);
	for (const tab of dirty) {
		const uri = tab.input instanceof vscode.TabInputText ? tab.input.uri : undefined;
		if (uri) {
			await step(`reverting the unsaved ${uri.scheme}:${uri.path}`, async () => {
				await vscode.window.showTextDocument(uri, { preview: false });
				await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
			});
		}
	}
	await step('closing editors', () => vscode.commands.executeCommand('workbench.action.closeAllEditors'));
	await step('clearing notifications', () => vscode.commands.executeCommand('notifications.clearAll'));
	const token = process.env.CLOUD_AGENTS_DEV_TOKEN;
	const api = vscode.extensions.getExtension<{ session: { getToken(): Promise<string | undefined> } } | undefined>(EXTENSION_ID)?.exports;
	if (
		token &&
		api &&
		(await within('restoring the baseline: reading the token', api.session.getToken(), 15_000).catch(() => undefined)) !== token
	) {
		await step('signing in with the dev token', async () => {
			if ((await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: token })) !== true) {
				throw new Error('cloudAgents.signIn did not sign in');
			}
		});
	}
	if (failures.length > 0) {
		throw new Error(failures.join('\n'));
	}
}

interface RunnableLike {
	titlePath(): string[];
	duration?: number;
}

/**
 * Maps `file:line:col` frames of bundled files back to the .ts sources. The extension host replaces
 * Error.prepareStackTrace, so Node does not apply source maps to stacks by itself.
 */
function mapStack(stack: string | undefined): string | undefined {
	return stack?.replace(/(\/[^\s()]+\.js):(\d+):(\d+)/g, (frame, file: string, line: string, column: string) => {
		const entry = findSourceMap(file)?.findEntry(Number(line) - 1, Number(column) - 1);
		if (!entry || !('originalSource' in entry)) {
			return frame;
		}
		const source = entry.originalSource.replace(/^file:\/\//, '');
		return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
	});
}

function describeError(err: unknown): { message: string; stack?: string } {
	if (err instanceof Error) {
		return { message: err.message, stack: mapStack(err.stack) };
	}
	return { message: String(err) };
}

/** Runs every integration suite with mocha in this extension host and returns the report. */
export async function runSuites(): Promise<TestReport> {
	const started = Date.now();
	const report: TestReport = {
		host: {
			vscodeVersion: vscode.version,
			node: process.version,
			appName: vscode.env.appName,
			appHost: vscode.env.appHost,
			uiKind: vscode.env.uiKind === vscode.UIKind.Web ? 'web' : 'desktop',
		},
		stats: { suites: 0, tests: 0, passes: 0, pending: 0, failures: 0, durationMs: 0 },
		tests: [],
	};
	// `npm run test:integration -- --ui-only`: no suite runs; the driver goes on to the UI tests at once.
	if (process.env.CLOUD_AGENTS_TEST_SKIP_SUITES === '1') {
		return report;
	}
	const mocha = new Mocha({
		ui: 'tdd',
		timeout: Number(process.env.CLOUD_AGENTS_TEST_TIMEOUT ?? 30_000),
		color: false,
		grep: process.env.CLOUD_AGENTS_TEST_GREP || undefined,
		// The report is collected from runner events below; this reporter prints nothing.
		reporter: class {
			constructor(_runner: Mocha.Runner) {
				// Silent: code-server's extension host log is not where people look.
			}
		} as unknown as Mocha.ReporterConstructor,
	});
	scaleTimeouts(SLOWDOWN);
	try {
		mocha.suite.emit('pre-require', globalThis, 'cloud-agents-suites', mocha);
		loadSuites();
		const baseline = await takeBaseline();
		// After each top-level suite, whatever its own teardown managed: the next one starts from the
		// baseline, so one failure fails one suite's tests, not the suites after it.
		for (const suite of mocha.suite.suites) {
			suite.afterAll('restore the baseline for the next suite', async function () {
				this.timeout(60_000); // scaled by scaleTimeouts
				await restoreBaseline(baseline);
			});
		}
	} catch (err) {
		report.fatal = `Loading the integration suites failed: ${describeError(err).stack ?? String(err)}`;
		return report;
	}
	// One line per test start and end, so the driver can show progress and name a test that hangs.
	const progressPath = process.env.CLOUD_AGENTS_TEST_REPORT ? `${process.env.CLOUD_AGENTS_TEST_REPORT}.progress` : undefined;
	const progress = (event: string, t: RunnableLike): void => {
		if (progressPath) {
			appendFileSync(progressPath, `${JSON.stringify({ event, titlePath: t.titlePath(), durationMs: t.duration })}\n`);
		}
	};
	await new Promise<void>((resolve) => {
		const runner = mocha.run(() => resolve());
		const add = (t: RunnableLike, state: TestResult['state'], err?: unknown): void => {
			report.tests.push({
				titlePath: t.titlePath(),
				state,
				durationMs: t.duration ?? 0,
				error: err === undefined ? undefined : describeError(err),
			});
			progress(state, t);
		};
		runner.on('test', (t: RunnableLike) => progress('start', t));
		runner.on('suite', () => {
			report.stats.suites++;
		});
		runner.on('pass', (t: RunnableLike) => add(t, 'passed'));
		runner.on('pending', (t: RunnableLike) => add(t, 'pending'));
		runner.on('fail', (t: RunnableLike, err: unknown) => add(t, 'failed', err));
	});
	report.stats.tests = report.tests.length;
	report.stats.passes = report.tests.filter((t) => t.state === 'passed').length;
	report.stats.pending = report.tests.filter((t) => t.state === 'pending').length;
	report.stats.failures = report.tests.filter((t) => t.state === 'failed').length;
	report.stats.durationMs = Date.now() - started;
	return report;
}

let started = false;

/**
 * code-server mode: activated on startup; when CLOUD_AGENTS_TEST_REPORT names a file, runs the
 * suites once and writes the report there (atomically, so the driver never reads half a file).
 */
export function activate(): void {
	const reportPath = process.env.CLOUD_AGENTS_TEST_REPORT;
	// A reloaded window (a UI test adding a workspace folder) must not run the suites again.
	if (!reportPath || started || existsSync(reportPath)) {
		return;
	}
	started = true;
	void runSuites()
		.catch((err: unknown): TestReport => ({
			host: {
				vscodeVersion: vscode.version,
				node: process.version,
				appName: vscode.env.appName,
				appHost: vscode.env.appHost,
				uiKind: String(vscode.env.uiKind),
			},
			stats: { suites: 0, tests: 0, passes: 0, pending: 0, failures: 0, durationMs: 0 },
			tests: [],
			fatal: describeError(err).stack ?? String(err),
		}))
		.then((report) => {
			const tmp = `${reportPath}.tmp-${process.pid}`;
			writeFileSync(tmp, JSON.stringify(report, null, 2));
			renameSync(tmp, reportPath);
		});
}

/** @vscode/test-electron mode (`extensionTestsPath`): runs the suites and rejects on any failure. */
export async function run(): Promise<void> {
	const report = await runSuites();
	const reportPath = process.env.CLOUD_AGENTS_TEST_REPORT;
	if (reportPath) {
		writeFileSync(reportPath, JSON.stringify(report, null, 2));
	}
	for (const t of report.tests) {
		console.log(`${t.state === 'passed' ? '✔' : t.state === 'pending' ? '-' : '✗'} ${t.titlePath.join(' › ')}`);
		if (t.error) {
			console.log(t.error.stack ?? t.error.message);
		}
	}
	if (report.fatal) {
		throw new Error(report.fatal);
	}
	if (report.stats.failures > 0) {
		throw new Error(`${report.stats.failures} integration test(s) failed`);
	}
}
