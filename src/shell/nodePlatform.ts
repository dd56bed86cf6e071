/**
 * Node's extension host (VS Code desktop, a remote's server, code-server): undici with VS Code's
 * proxy and certificate settings. The web build leaves this module out (esbuild.mjs).
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { nodeConnect } from '../api/network';
import { nodeKnownHosts } from '../util/knownHostsFile';
import type { Platform } from './platform';

export const nodePlatform: Platform = {
	name: 'node',
	// Read on the first request, not at activation: src/api/network.ts is in dist/client.js, loaded on first use.
	connect: (base, options) => nodeConnect(base, options),
	localFiles: {
		homeFolder: () => vscode.Uri.file(os.homedir()),
		knownHosts: nodeKnownHosts,
	},
};
