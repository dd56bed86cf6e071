import { appendFileSync, existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire, findSourceMap } from 'node:module';
import { join } from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { type RunnerHost, describeError, runSuites as runSuitesIn } from './core';
import type { TestReport } from './report';

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

/** Node's extension host: the suites from suites.js, progress appended to `<report>.progress`. */
const nodeHost: RunnerHost = {
	runtime: process.version,
	Mocha,
	loadSuites,
	mapStack,
	progress(line) {
		const report = process.env.CLOUD_AGENTS_TEST_REPORT;
		if (report) {
			appendFileSync(`${report}.progress`, line);
		}
	},
};

/** Runs every integration suite with mocha in this extension host and returns the report. */
export function runSuites(): Promise<TestReport> {
	return runSuitesIn(nodeHost);
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
			fatal: describeError(err, mapStack).stack ?? String(err),
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
