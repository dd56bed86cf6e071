import type * as vscode from 'vscode';
import { registerAccountResourceCommands } from './accountResources';
import { registerAgentCommands } from './agents';
import { registerArtifactCommands } from './artifacts';
import { registerPlatformCommands } from './platform';
import { registerPromptCommands } from './prompt';
import { registerListCommands } from './listActions';
import { registerRunCommands } from './runs';
import { registerRuntimeCommands } from './runtimes';
import { registerSecretStubCommands } from './secretStubs';
import { registerSshKeyCommands } from './sshKeys';
import { registerGitHubCommands } from './github';
import { registerSessionHistoryCommands } from './sessionHistory';
import type { FeatureDeps } from './support';

export type { FeatureDeps } from './support';
export { registerListCommands } from './listActions';

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
		...registerSecretStubCommands(deps),
		...registerSshKeyCommands(deps),
		...registerGitHubCommands(deps),
		...registerSessionHistoryCommands(deps),
		...registerAccountResourceCommands(deps),
	];
}
