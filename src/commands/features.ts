import type * as vscode from 'vscode';
import { LIST_DESCRIPTORS } from '../views';
import { registerAgentCommands } from './agents';
import { registerArtifactCommands } from './artifacts';
import { registerPlatformCommands } from './platform';
import { registerPromptCommands } from './prompt';
import { commandRegistrar } from './registry';
import { registerRunCommands } from './runs';
import { registerRuntimeCommands } from './runtimes';
import type { FeatureDeps } from './support';

export type { FeatureDeps } from './support';

/**
 * Registers the commands every list declares in its descriptor (src/views/lists): `refresh`
 * re-reads the list (with a subtree's id, from its Retry row, only that subtree) and `loadMore`
 * reads one page more (with a subtree's id, of that subtree).
 */
export function registerListCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, { onUnauthorized: deps.onUnauthorized });
	const out: vscode.Disposable[] = [];
	for (const descriptor of LIST_DESCRIPTORS) {
		const { refresh, loadMore } = descriptor.commands ?? {};
		if (refresh) {
			out.push(registerCommand(refresh, (listId?: unknown) => deps.views.providerOf(descriptor).refresh(listId)));
		}
		if (loadMore) {
			out.push(registerCommand(loadMore, (listId?: unknown) => deps.views.providerOf(descriptor).loadMore(listId)));
		}
	}
	return out;
}

/** Registers the commands of the lists and their features and "Send Prompt…"; the caller owns the disposables. */
export function registerFeatureCommands(deps: FeatureDeps): vscode.Disposable[] {
	return [
		...registerListCommands(deps),
		...registerAgentCommands(deps),
		...registerRunCommands(deps),
		...registerPromptCommands(deps),
		...registerRuntimeCommands(deps),
		...registerArtifactCommands(deps),
		...registerPlatformCommands(deps),
	];
}
