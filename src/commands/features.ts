import type * as vscode from 'vscode';
import { registerAgentCommands } from './agents';
import { registerPlatformCommands } from './platform';
import { registerPromptCommands } from './prompt';
import { registerRunCommands } from './runs';
import { registerSecretStubCommands } from './secretStubs';
import { registerSshKeyCommands } from './sshKeys';
import { registerGitHubCommands } from './github';
import { registerSessionHistoryCommands } from './sessionHistory';
import type { FeatureDeps } from './support';

export type { FeatureDeps } from './support';

/** Registers the commands of the flows and features not yet moved to a resource module; the caller owns the disposables. */
export function registerFeatureCommands(deps: FeatureDeps): vscode.Disposable[] {
	return [
		...registerAgentCommands(deps),
		...registerRunCommands(deps),
		...registerPromptCommands(deps),
		...registerPlatformCommands(deps),
		...registerSecretStubCommands(deps),
		...registerSshKeyCommands(deps),
		...registerGitHubCommands(deps),
		...registerSessionHistoryCommands(deps),
	];
}
