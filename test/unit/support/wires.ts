/**
 * The wires the client's boundary suites run over: Node's (undici: the desktop extension host, with
 * proxies and certificates) and the browser's (fetch: VS Code for the Web, src/platform/web/fetchWire.ts).
 * Here the fetch wire runs on Node's own fetch, which has the browser's interface (streams, abort,
 * manual redirects) but enforces no CORS: the browser-host suites cover what only a browser does.
 */
import type { Connect } from '../../../src/api';
import { fetchConnect } from '../../../src/platform/web/fetchWire';
import { nodeConnect } from '../../../src/platform/node/network';

export const WIRES: ReadonlyArray<{ name: string; connect: Connect }> = [
	{ name: 'undici', connect: nodeConnect },
	{ name: 'fetch', connect: fetchConnect },
];
