/**
 * Node's extension host (VS Code desktop, a remote's server, code-server): undici with VS Code's
 * proxy and certificate settings; the comparison's local side in a worker thread with `node:fs`.
 * The web build leaves this module out (esbuild.mjs).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import type { LocalFiles } from '../../compare/localFiles';
import type { Platform } from '../types';
import { nodeConnect } from './network';
import { nodeKnownHosts } from './knownHostsFile';

/**
 * Node's platform. `loadLocalFiles` gives the comparison's local side of a folder on disk
 * (nodeLocalFiles.ts): the entry hands it over from the features' bundle (dist/features.js), which
 * only the features (Source Control) call it from, so activation's bundle does not hold it (esbuild.mjs).
 */
export function nodePlatform(loadLocalFiles: (folder: string) => LocalFiles): Platform {
	return {
		name: 'node',
		// Read on the first request, not at activation: network.ts is in dist/client.js, loaded on first use.
		connect: (base, options) => nodeConnect(base, options),
		userFiles: {
			homeFolder: () => vscode.Uri.file(os.homedir()),
			knownHosts: nodeKnownHosts,
		},
		localFiles: (root) => (root.scheme === 'file' ? loadLocalFiles(root.fsPath) : undefined),
		reportActivation,
	};
}

/**
 * With CLOUD_AGENTS_ACTIVATION_REPORT set to a file path (the bench's activation section does this),
 * writes there, after activation, how long loading the code and `activate()` took and which of our
 * bundles Node had loaded by then (the HTTP client, dist/client.js, and the commands, dist/features.js,
 * must not be: see esbuild.mjs). The load time is the extension host's own pair of marks around
 * `require(main)` (ms resolution, as in "Show Running Extensions").
 */
function reportActivation(context: vscode.ExtensionContext, activateStart: number, activateEnd: number): void {
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
