import type * as vscode from 'vscode';
import { registerAccountResourceCommands } from './accountResources';
import { registerAgentCommands } from './agents';
import { registerArtifactCommands } from './artifacts';
import { registerPlatformCommands } from './platform';
import { registerPromptCommands } from './prompt';
import { registerRunCommands } from './runs';
import { registerSessionHistoryCommands } from './sessionHistory';
import type { FeatureDeps } from './support';

export type { FeatureDeps } from './support';

/** Registers the commands of the flows and features not yet moved to a resource module; the caller owns the disposables. */
export function registerFeatureCommands(deps: FeatureDeps): vscode.Disposable[] {
	return [
		...registerAgentCommands(deps),
		...registerRunCommands(deps),
		...registerPromptCommands(deps),
		...registerArtifactCommands(deps),
		...registerPlatformCommands(deps),
		...registerSessionHistoryCommands(deps),
		...registerAccountResourceCommands(deps),
	];
}
