/**
 * The in-host runner's work in either extension host (Node's: runner.ts; the browser's web worker:
 * runner.web.ts): mocha over the suites the host loads, the baseline put back after each top-level
 * suite, a report and one progress line per test start and end. What differs between the hosts is
 * a RunnerHost. `process.env` is code-server's environment in Node, and in the web worker the lane's
 * environment the harness wrote into the bundle (esbuild.mjs --web-harness).
 */
import type Mocha from 'mocha';
import * as vscode from 'vscode';
import type { TestReport, TestResult } from './report';

import { EXTENSION_ID } from '../../../../src/ids';
import { SLOWDOWN, within } from '../../support/cloudAgents';
import { closeAllEditors, describeTabs, revertAndClose, unsavedTabDocuments } from '../../support/editors';

/** What differs between the extension hosts the runner runs in. */
export interface RunnerHost {
	/** The report's `host.node`: Node's version, or that it is a web worker. */
	runtime: string;
	/** mocha: Node's package, or its browser build. */
	Mocha: typeof Mocha;
	/** Defines the suites (mocha's `suite`/`test` globals are in place). */
	loadSuites(this: void): void;
	/** A stack with the bundle's frames mapped back to the .ts sources, where the host can. */
	mapStack(this: void, stack: string | undefined): string | undefined;
	/** Records one progress line (a JSON object and a newline) for the driver. */
	progress(this: void, line: string): void;
}

/** Multiplies every time-out a suite or test sets (`this.timeout(ms)`) by `factor`. */
function scaleTimeouts(MochaClass: typeof Mocha, factor: number): void {
	if (factor === 1) {
		return;
	}
	type Timeout = (this: unknown, ms?: string | number) => unknown;
	for (const proto of [MochaClass.Runnable.prototype, MochaClass.Suite.prototype] as unknown as Array<{ timeout: Timeout }>) {
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
 * Puts back what a suite may have left behind: the emulator's faults and outage cleared and its
 * clock released, the settings as they were, editors and notifications closed, signed in with the dev token. Each
 * step is bounded; every step runs even when one fails, and the first failure is thrown.
 */
async function restoreBaseline(baseline: Baseline): Promise<void> {
	const failures: string[] = [];
	const step = async (what: string, fn: () => PromiseLike<unknown>, explain?: () => string): Promise<void> => {
		try {
			await within(`restoring the baseline: ${what}`, fn(), 15_000);
		} catch (err) {
			failures.push(`${what}: ${err instanceof Error ? err.message : String(err)}${explain ? ` (${explain()})` : ''}`);
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
		// A test that held the emulator clock (holdClock) and failed before releasing it must not
		// leave the next suite's builds, checkpoints and runtimes standing still.
		await step('releasing a held emulator clock', async () => {
			const res = await fetch(`${emulator}/_emulator/clock`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ held: false }),
			});
			await res.arrayBuffer();
			if (!res.ok) {
				throw new Error(`PUT /_emulator/clock answered ${res.status}`);
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
	// (one failure failed fourteen tests). Each is reverted and closed first, a bounded step each
	// (the suites' closeAllEditors() does the same, support/editors.ts).
	for (const uri of unsavedTabDocuments()) {
		await step(`reverting the unsaved ${uri.scheme}:${uri.path}`, () => revertAndClose(uri));
	}
	await step('closing editors', () => closeAllEditors(), describeTabs);
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

export function describeError(err: unknown, mapStack: RunnerHost['mapStack'] = (s) => s): { message: string; stack?: string } {
	if (err instanceof Error) {
		return { message: err.message, stack: mapStack(err.stack) };
	}
	return { message: String(err) };
}

/** Runs every integration suite with mocha in this extension host and returns the report. */
export async function runSuites(host: RunnerHost): Promise<TestReport> {
	const started = Date.now();
	const report: TestReport = {
		host: {
			vscodeVersion: vscode.version,
			node: host.runtime,
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
	const mocha = new host.Mocha({
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
	scaleTimeouts(host.Mocha, SLOWDOWN);
	try {
		mocha.suite.emit('pre-require', globalThis, 'cloud-agents-suites', mocha);
		host.loadSuites();
		// CLOUD_AGENTS_TEST_ORDER=reverse (npm run test:integration -- --reverse): the top-level suites
		// run last to first, to show that none relies on what another left behind.
		if (process.env.CLOUD_AGENTS_TEST_ORDER === 'reverse') {
			mocha.suite.suites.reverse();
		}
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
		report.fatal = `Loading the integration suites failed: ${describeError(err, host.mapStack).stack ?? String(err)}`;
		return report;
	}
	// One line per test start and end, so the driver can show progress and name a test that hangs.
	const progress = (event: string, t: RunnableLike): void =>
		host.progress(`${JSON.stringify({ event, titlePath: t.titlePath(), durationMs: t.duration })}\n`);
	await new Promise<void>((resolve) => {
		const runner = mocha.run(() => resolve());
		const add = (t: RunnableLike, state: TestResult['state'], err?: unknown): void => {
			report.tests.push({
				titlePath: t.titlePath(),
				state,
				durationMs: t.duration ?? 0,
				error: err === undefined ? undefined : describeError(err, host.mapStack),
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
