import type * as vscode from 'vscode';
import { registerAccountResourceCommands } from './accountResources';
import { registerArtifactCommands } from './artifacts';
import { registerPlatformCommands } from './platform';
import type { FeatureDeps } from './support';

export type { FeatureDeps } from './support';

/** Registers the commands of the flows and features not yet moved to a resource module; the caller owns the disposables. */
export function registerFeatureCommands(deps: FeatureDeps): vscode.Disposable[] {
	return [...registerArtifactCommands(deps), ...registerPlatformCommands(deps), ...registerAccountResourceCommands(deps)];
}
