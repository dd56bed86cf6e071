import type * as vscode from 'vscode';
import { platformCommands } from '../flows/platform';
import type { Services } from '../views/actions';
import { type FlowCommand, registerFlows } from '../views/registry';

/**
 * Registers the commands that act on no record and load on first use — the platform's (Check
 * Connection, the SSH gateway host key), Token Savings', the agent workspace's — through
 * `registerFlows`, with the session's 401 handler; the caller owns the disposables. Those that
 * answer at activation (sign-in, sign-out, Retry Connection, Refresh) are the shell's
 * (src/extension.ts `registerShellCommands`); every action on a record is a resource's
 * (src/resources), registered by the action registry.
 */
export function registerFeatureCommands(
	deps: Services,
	features: { savings: readonly FlowCommand[]; workspace: readonly FlowCommand[] },
): vscode.Disposable[] {
	const flows = [...platformCommands(deps), ...features.savings, ...features.workspace];
	return registerFlows(flows, deps.log, { onUnauthorized: deps.onUnauthorized });
}
