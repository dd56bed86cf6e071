/**
 * What differs between the extension hosts the extension runs in, chosen once by the entry point
 * (Node's: src/extension.ts; the browser's: VS Code for the Web) and handed down to the services.
 * No feature tests for a platform itself.
 */
import type { Connect } from '../api';
import { nodeConnect } from '../api/network';

export interface Platform {
	/** How every client reaches the network (src/api/wire.ts). */
	readonly connect: Connect;
}

/**
 * Node's extension host: undici with VS Code's proxy and certificate settings. `nodeConnect` is read
 * on the first request, not at activation (src/api/network.ts is in dist/client.js, loaded on first use).
 */
export const nodePlatform: Platform = {
	connect: (base, options) => nodeConnect(base, options),
};
