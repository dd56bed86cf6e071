/**
 * The browser's extension host (VS Code for the Web: vscode.dev, github.dev, code-server in a
 * browser): a web worker with `fetch`, no Node. Proxies and certificates are the browser's.
 */
import { fetchConnect } from '../api/fetchWire';
import type { Platform } from './platform';

/** The name of the activation's entry in the worker's performance timeline. */
export const ACTIVATION_MEASURE = 'cloud-agents/activate';

export const webPlatform: Platform = {
	name: 'web',
	// Read on the first request, not at activation: the web build evaluates src/api/fetchWire.ts with the
	// rest of the HTTP client on first use (esbuild.mjs webLazyClient).
	connect: (base, options) => fetchConnect(base, options),
	// A web worker has no environment to be asked through nor a file system of its own: activate()
	// is one entry in the worker's performance timeline (as VS Code's own marks are), which the
	// bench's activation section reads in the worker (bench/sections/activation.ts).
	reportActivation: (_context, activateStart, activateEnd) => {
		performance.measure(ACTIVATION_MEASURE, { start: activateStart, end: activateEnd });
	},
};
