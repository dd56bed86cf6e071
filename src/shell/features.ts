import type * as vscode from 'vscode';
import { registerPlatformCommands } from '../flows/platform';
import type { Services } from '../views/actions';

/**
 * Registers the flows that act on no single record and are loaded on first use (Check Connection,
 * the SSH gateway host key); the caller owns the disposables. Every action on a record is a
 * resource's (src/resources), registered by the action registry.
 */
export function registerFeatureCommands(deps: Services): vscode.Disposable[] {
	return [...registerPlatformCommands(deps)];
}
