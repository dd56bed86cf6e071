/**
 * The entry point of Node's extension host (package.json `main`, built as dist/extension.js):
 * activation registers what VS Code must find and nothing else (src/shell/standIns.ts); the body
 * (src/shell/main.ts, dist/main.js) starts in the first idle moment after, or on the first call
 * VS Code makes to one of the registrations.
 */
import type * as vscode from 'vscode';
import { activateShell } from './shell/standIns';
import type { CloudAgentsTestApi, startNode } from './shell/main';
import { reportActivation } from './platform/node/activationReport';

export type { CloudAgentsTestApi } from './shell/main';

/** Called by VS Code on the first contributed activation event, in Node's extension host. */
export function activate(context: vscode.ExtensionContext): CloudAgentsTestApi | undefined {
	const activateStart = performance.now();
	const api = activateShell(context, () => {
		// The body's bundle (dist/main.js): loaded after activation, see esbuild.mjs.
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const body = require('./shell/main') as { startNode: typeof startNode };
		return body.startNode;
	});
	reportActivation(context, activateStart, performance.now());
	return api as CloudAgentsTestApi | undefined;
}

/** Nothing to do: every resource is owned by `context.subscriptions`. */
export function deactivate(): void {
	// Disposal happens through context.subscriptions.
}
