/**
 * The bench's report of an activation in Node's extension host (src/extension.ts calls it when
 * `activate()` returns); nothing happens unless the bench asks.
 */
import * as vscode from 'vscode';

/**
 * With CLOUD_AGENTS_ACTIVATION_REPORT set to a file path (the bench's activation section does this),
 * writes there, after activation, how long loading the code and `activate()` took and which of our
 * bundles Node had loaded by then (only dist/extension.js: not the body, dist/main.js, nor what it loads, the HTTP client,
 * dist/client.js, and the commands, dist/features.js: see esbuild.mjs). The load time is the extension host's own pair of marks around
 * `require(main)` (ms resolution, as in "Show Running Extensions").
 */
export function reportActivation(context: vscode.ExtensionContext, activateStart: number, activateEnd: number): void {
	const path = process.env.CLOUD_AGENTS_ACTIVATION_REPORT;
	if (!path) {
		return;
	}
	type Marks = { getMarks(): Array<{ name: string; startTime: number }> };
	const marks = (globalThis as { MonacoPerformanceMarks?: Marks }).MonacoPerformanceMarks?.getMarks() ?? [];
	const mark = (name: string): number | undefined =>
		marks.find((m) => m.name === `code/extHost/${name}/${context.extension.id}`)?.startTime;
	// Our own files only (other extensions share the extension host and its module cache).
	const ours = vscode.Uri.joinPath(context.extensionUri, 'dist').fsPath;
	const loaded = Object.keys(require.cache)
		.filter((f) => f.startsWith(ours))
		.map((f) => `dist/${f.slice(ours.length + 1)}`);
	const report = {
		willLoad: mark('willLoadExtensionCode'),
		didLoad: mark('didLoadExtensionCode'),
		activateMs: activateEnd - activateStart,
		activateEndEpochMs: performance.timeOrigin + activateEnd,
		dist: loaded,
	};
	void import('node:fs/promises').then((fs) => fs.writeFile(path, JSON.stringify(report)));
}
