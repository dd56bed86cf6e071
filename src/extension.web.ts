/**
 * The entry point of VS Code for the Web's extension host (package.json `browser`, built as
 * dist/web/extension.js): the same extension on the browser's platform (src/platform/web/webPlatform.ts).
 */
import type * as vscode from 'vscode';
import { type CloudAgentsTestApi, activateWith } from './extension';
import { webPlatform } from './platform/web/webPlatform';

/** Called by VS Code on the first contributed activation event, in the browser's extension host. */
export function activate(context: vscode.ExtensionContext): CloudAgentsTestApi | undefined {
	return activateWith(context, webPlatform);
}

/** Nothing to do: every resource is owned by `context.subscriptions`. */
export function deactivate(): void {
	// Disposal happens through context.subscriptions.
}
