/**
 * The in-host runner in VS Code for the Web's extension host, a web worker (package.json `browser`
 * of the web lanes' runner: scripts/lib/bundle-tests.mjs `buildWebRunnerExtension`, the suites
 * tagged [web] bundled in). A web worker has no file system and no environment: the lane's
 * environment is written into the bundle by the harness (`process.env`), and the report and the
 * progress lines go through `vscode.workspace.fs` to the paths the harness named, on the machine
 * code-server serves the workspace from (the workspace file's scheme and authority).
 */
import type Mocha from 'mocha';
import * as vscode from 'vscode';
import { type RunnerHost, describeError, runSuites } from './core';
import type { TestReport } from './report';

let loadSuites: (() => void) | undefined;

/** Called by the bundle's entry (bundle-tests.mjs) with the function that defines the [web] suites. */
export function useSuites(load: () => void): void {
	loadSuites = load;
}

/** A path on code-server's machine as a URI this extension host can write through workspace.fs. */
function serverUri(path: string): vscode.Uri {
	const base = vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri;
	if (!base) {
		throw new Error('the web runner needs a workspace (the harness opens one) to reach the report folder');
	}
	return base.with({ path, query: '', fragment: '' });
}

const utf8 = new TextEncoder();

/** The progress file, rewritten whole after each line (workspace.fs cannot append), one write at a time. */
class Progress {
	private text = '';
	private writing: Promise<void> = Promise.resolve();
	constructor(private readonly uri: vscode.Uri | undefined) {}
	add(line: string): void {
		if (!this.uri) {
			return;
		}
		this.text += line;
		const uri = this.uri;
		const snapshot = this.text;
		this.writing = this.writing.then(() => vscode.workspace.fs.writeFile(uri, utf8.encode(snapshot))).then(undefined, () => undefined);
	}
	flushed(): Promise<void> {
		return this.writing;
	}
}

let started = false;

/** Runs the [web] suites once when the harness named a report path, and writes the report there. */
export function activate(): void {
	const reportPath = process.env.CLOUD_AGENTS_TEST_REPORT;
	if (!reportPath || started) {
		return;
	}
	started = true;
	void (async () => {
		const report = serverUri(reportPath);
		// A reloaded window (a UI test adding a workspace folder) must not run the suites again.
		if (
			await vscode.workspace.fs.stat(report).then(
				() => true,
				() => false,
			)
		) {
			return;
		}
		const progress = new Progress(serverUri(`${reportPath}.progress`));
		// mocha's browser build: defines the globals `Mocha` and `mocha` (the constructor is what the runner needs).
		// eslint-disable-next-line @typescript-eslint/no-require-imports -- the prebuilt browser bundle, bundled by esbuild
		require('mocha/mocha.js');
		const host: RunnerHost = {
			runtime: `web worker (${(globalThis as unknown as { navigator?: { userAgent?: string } }).navigator?.userAgent ?? 'no user agent'})`,
			Mocha: (globalThis as unknown as { Mocha: typeof Mocha }).Mocha,
			loadSuites: () => {
				if (!loadSuites) {
					throw new Error('the web runner was built without its suites');
				}
				loadSuites();
			},
			mapStack: (stack) => stack,
			progress: (line) => progress.add(line),
		};
		const result = await runSuites(host).catch((err: unknown): TestReport => ({
			host: {
				vscodeVersion: vscode.version,
				node: host.runtime,
				appName: vscode.env.appName,
				appHost: vscode.env.appHost,
				uiKind: 'web',
			},
			stats: { suites: 0, tests: 0, passes: 0, pending: 0, failures: 0, durationMs: 0 },
			tests: [],
			fatal: describeError(err).stack ?? String(err),
		}));
		await progress.flushed();
		// Written aside, then renamed: the driver never reads half a report.
		const tmp = serverUri(`${reportPath}.tmp-web`);
		await vscode.workspace.fs.writeFile(tmp, utf8.encode(JSON.stringify(result, null, 2)));
		await vscode.workspace.fs.rename(tmp, report, { overwrite: true });
	})();
}
