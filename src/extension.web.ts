/**
 * The entry point of VS Code for the Web's extension host (package.json `browser`, built as
 * dist/web/extension.js): the same activation as Node's (src/extension.ts), the body on the
 * browser's platform (src/platform/web/webPlatform.ts). The body is in the same bundle, evaluated
 * when it starts (esbuild wraps a module reached through `require` in a function it calls then).
 */
import type * as vscode from 'vscode';
import { activateShell } from './shell/standIns';
import type { CloudAgentsTestApi } from './shell/main';
import type { startWeb } from './shell/webMain';
import { reportActivation } from './platform/web/activationReport';

/** Called by VS Code on the first contributed activation event, in the browser's extension host. */
function activate(context: vscode.ExtensionContext): CloudAgentsTestApi | undefined {
	const activateStart = performance.now();
	const api = activateShell(context, () => {
		// eslint-disable-next-line @typescript-eslint/no-require-imports
		const body = require('./shell/webMain') as { startWeb: typeof startWeb };
		return body.startWeb;
	});
	reportActivation(context, activateStart, performance.now());
	return api as CloudAgentsTestApi | undefined;
}

/** Nothing to do: every resource is owned by `context.subscriptions`. */
function deactivate(): void {
	// Disposal happens through context.subscriptions.
}

// The module's exports assigned at once (esbuild writes `module.exports = {…}`): an ES `export` made
// esbuild add its interop (a getter per export defined over a loop of property names), which cost
// the web worker a tenth of a millisecond of the bundle's load (issue 44). Nothing imports this file.
export = { activate, deactivate };
