/**
 * Node's extension host (VS Code desktop, a remote's server, code-server): undici with VS Code's
 * proxy and certificate settings; the comparison's local side in a worker thread with `node:fs`.
 * The web build leaves this module out (esbuild.mjs).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { nodeConnect } from '../api/network';
import { nodeKnownHosts } from '../util/knownHostsFile';
import type { NodeLocalFiles } from '../compare/nodeLocalFiles';
import type { Platform } from './platform';

export const nodePlatform: Platform = {
	name: 'node',
	// Read on the first request, not at activation: src/api/network.ts is in dist/client.js, loaded on first use.
	connect: (base, options) => nodeConnect(base, options),
	userFiles: {
		homeFolder: () => vscode.Uri.file(os.homedir()),
		knownHosts: nodeKnownHosts,
	},
	localFiles: (root) => {
		if (root.scheme !== 'file') {
			return undefined;
		}
		// From the features' code (dist/features.js), which only the features (Source Control) call this from: not
		// in activation's bundle. See esbuild.mjs.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const entry = require('./featureEntry') as { NodeLocalFiles: typeof NodeLocalFiles };
		return new entry.NodeLocalFiles(root.fsPath);
	},
};
