/**
 * The commands loaded on first use (dist/features.js; see src/commands/lazy.ts and esbuild.mjs):
 * the lists' and features' commands, "Open Computer" and "Token Savings". Activation registers a
 * stand-in for each of their ids; the first one invoked (or a panel VS Code restores) loads this.
 */
import type * as vscode from 'vscode';
import { WEBVIEW_TYPES } from '../ids';
import { registerComputerCommands } from './computer';
import { registerFeatureCommands } from './features';
import type { LoadedFeatures } from './lazy';
import { registerSavingsCommands } from './savings';
import type { FeatureDeps } from './support';

/** Registers the features' commands; the caller owns the disposables. */
export function loadFeatures(deps: FeatureDeps): LoadedFeatures {
	const computer = registerComputerCommands(deps);
	const savings = registerSavingsCommands(deps);
	const restorers = new Map<string, (panel: vscode.WebviewPanel, state: unknown) => Promise<void>>([
		[WEBVIEW_TYPES.computer, computer.restorePanel],
		[WEBVIEW_TYPES.savings, savings.restorePanel],
	]);
	return {
		disposables: [...registerFeatureCommands(deps), ...computer.disposables, ...savings.disposables],
		restorePanel: async (viewType, panel, state) => {
			const restore = restorers.get(viewType);
			if (!restore) {
				// Not ours to restore: closed rather than left blank.
				panel.dispose();
				return;
			}
			await restore(panel, state);
		},
	};
}
