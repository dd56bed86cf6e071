/**
 * Node's extension host (VS Code desktop, a remote's server, code-server): undici with VS Code's
 * proxy and certificate settings. The web build leaves this module out (esbuild.mjs).
 */
import { nodeConnect } from '../api/network';
import type { Platform } from './platform';

export const nodePlatform: Platform = {
	name: 'node',
	// Read on the first request, not at activation: src/api/network.ts is in dist/client.js, loaded on first use.
	connect: (base, options) => nodeConnect(base, options),
};
