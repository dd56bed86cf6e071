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
import { nodeClaimStore } from './claimFiles';

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
		claims: (folder) => nodeClaimStore(folder.fsPath),
	};
}
