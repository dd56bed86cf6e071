/**
 * The browser's extension host (VS Code for the Web: vscode.dev, github.dev, code-server in a
 * browser): a web worker with `fetch`, no Node. Proxies and certificates are the browser's.
 */
import { fetchConnect } from '../api/fetchWire';
import type { Platform } from './platform';

export const webPlatform: Platform = {
	name: 'web',
	connect: fetchConnect,
	// A web worker reaches no home folder and cannot write ~/.ssh: the commands that would say so.
	localFiles: { homeFolder: () => undefined, knownHosts: undefined },
};
