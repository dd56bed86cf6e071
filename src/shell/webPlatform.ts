/**
 * The browser's extension host (VS Code for the Web: vscode.dev, github.dev, code-server in a
 * browser): a web worker with `fetch`, no Node. Proxies and certificates are the browser's.
 */
import { fetchConnect } from '../api/fetchWire';
import type { Platform } from './platform';

export const webPlatform: Platform = {
	name: 'web',
	connect: fetchConnect,
	// Nothing to write: a web worker has no environment to be asked through nor a file system of its
	// own. The bench reads the extension host's own performance marks in the worker instead
	// (bench/sections/activation.ts).
	reportActivation: () => undefined,
};
