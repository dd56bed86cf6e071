/** "Open Agent Workspace": an agent's workspace as a folder of this window or of a new one. */
import * as vscode from 'vscode';
import { agentIdOf, workspaceUri } from './fs/workspaceFs';
import { notificationText, singleLine } from '../util/text';
import type { WorkspaceFeature } from './workspaceFeature';

/** How the workspace opens: added as a folder of this window, or in a new window; undefined asks. */
export type OpenWorkspaceMode = 'add' | 'newWindow';

/**
 * Opens an agent's workspace. Opening it again retries a workspace whose interface differed; when
 * the window already shows it, the Explorer comes to the front. Without `mode` a modal asks how.
 */
export async function openAgentWorkspace(
	feature: WorkspaceFeature,
	agentId: string,
	name: string,
	mode: OpenWorkspaceMode | undefined,
): Promise<void> {
	const uri = workspaceUri(agentId);
	const folders = vscode.workspace.workspaceFolders ?? [];
	// Opening again is a retry of a workspace whose interface differed.
	feature.retryInterface(agentId);
	if (folders.some((f) => agentIdOf(f.uri) === agentId && f.uri.path.replace(/\/+$/, '') === '')) {
		await vscode.commands.executeCommand('workbench.view.explorer');
		return;
	}
	if (mode === undefined) {
		const add = vscode.l10n.t('Add to Workspace');
		const newWindow = vscode.l10n.t('Open in New Window');
		const answer = await vscode.window.showInformationMessage(
			notificationText(vscode.l10n.t('Open the workspace of "{0}"', singleLine(name))),
			{ modal: true },
			add,
			newWindow,
		);
		mode = answer === add ? 'add' : answer === newWindow ? 'newWindow' : undefined;
	}
	if (mode === 'add') {
		const ok = vscode.workspace.updateWorkspaceFolders(folders.length, 0, { uri, name: vscode.l10n.t('Agent: {0}', singleLine(name)) });
		if (!ok) {
			throw new Error(vscode.l10n.t('VS Code refused to add the workspace folder of "{0}".', name));
		}
		await vscode.commands.executeCommand('workbench.view.explorer');
	} else if (mode === 'newWindow') {
		await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
	}
}
