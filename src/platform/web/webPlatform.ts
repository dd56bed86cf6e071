/**
 * The browser's extension host (VS Code for the Web: vscode.dev, github.dev, code-server in a
 * browser): a web worker with `fetch`, no Node. Proxies and certificates are the browser's; a
 * comparison reads its local folder through `vscode.workspace.fs` on the extension host's thread.
 */
import { fetchConnect } from './fetchWire';
import { TAB_SCHEMES } from '../../ids';
import { workspaceLocalFiles } from './workspaceLocalFiles';
import { webClaimStore } from './claimStore';
import type { Platform } from '../types';

export const webPlatform: Platform = {
	name: 'web',
	// Read on the first request, not at activation: the web build evaluates src/platform/web/fetchWire.ts with the
	// rest of the HTTP client on first use (esbuild.mjs webLazyClient).
	connect: (base, options) => fetchConnect(base, options),
	// A web worker reaches no home folder and cannot write ~/.ssh: the commands that would say so.
	userFiles: { homeFolder: () => undefined, knownHosts: undefined },
	// Any folder VS Code's file system reaches, except our own documents (an agent's workspace among them).
	localFiles: (root) => ((TAB_SCHEMES as readonly string[]).includes(root.scheme) ? undefined : workspaceLocalFiles(root)),
	claims: (folder) => webClaimStore(folder),
};
