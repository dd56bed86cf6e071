/** "Open Agent Workspace": an agent's workspace as a folder of this window or of a new one. */
import * as vscode from 'vscode';
import { sameAddress, workspaceAddressOf, workspaceUri } from './fs/workspaceFs';
import { encodeAgentAuthority } from './fs/agentUri';
import { SAFETY } from '../api';
import { AGENT_WINDOWS_FOLDER } from '../ids';
import { notificationText, singleLine } from '../util/text';
import type { AgentWorkspaces } from './deploymentWorkspace';
import { shownNameOfPart, withDeploymentName } from '../auth/deployments';

/** How the workspace opens: added as a folder of this window, or in a new window; undefined asks. */
export type OpenWorkspaceMode = 'add' | 'newWindow';

/**
 * Opens an agent's workspace. Opening it again retries a workspace whose interface differed; when
 * the window already shows it, the Explorer comes to the front. Without `mode` a modal asks how.
 * A new window opens a workspace file written under `storage` (the extension's global storage),
 * so the window and its folder are named after the agent; without `storage`, the bare folder.
 * The folder's address carries `feature`'s deployment part (none for the default deployment).
 */
export async function openAgentWorkspace(
	feature: AgentWorkspaces,
	agentId: string,
	name: string,
	mode: OpenWorkspaceMode | undefined,
	storage?: vscode.Uri,
): Promise<void> {
	const address = { agentId, deploymentPart: feature.deploymentPart };
	// With several deployments configured, the Explorer's folder (and a new window) names the agent's deployment.
	const deploymentName = shownNameOfPart(address.deploymentPart);
	const uri = workspaceUri(agentId, '', address.deploymentPart);
	const folders = vscode.workspace.workspaceFolders ?? [];
	// Opening again is a retry of a workspace whose interface differed.
	feature.retryInterface(agentId);
	if (folders.some((f) => sameAddress(workspaceAddressOf(f.uri), address) && f.uri.path.replace(/\/+$/, '') === '')) {
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
		const ok = vscode.workspace.updateWorkspaceFolders(folders.length, 0, {
			uri,
			name: withDeploymentName(vscode.l10n.t('Agent: {0}', singleLine(name)), deploymentName),
		});
		if (!ok) {
			throw new Error(vscode.l10n.t('VS Code refused to add the workspace folder of "{0}".', name));
		}
		await vscode.commands.executeCommand('workbench.view.explorer');
	} else if (mode === 'newWindow') {
		// A folder opened on its own is named after the last segment of its path, which for an agent's
		// root is "/" (the Explorer's folder and the window title said "/"): the new window opens a
		// workspace file that names the folder after the agent instead.
		const target = storage
			? await agentWindowFile(storage, agentId, withDeploymentName(name, deploymentName), address.deploymentPart)
			: uri;
		await vscode.commands.executeCommand('vscode.openFolder', target, { forceNewWindow: true });
	}
}

/**
 * Writes the workspace file a new window of the agent's workspace opens:
 * `<storage>/agent-windows/<agent>/<agent name>.code-workspace`, holding the one folder
 * `cloud-agent://<agent>/` named after the agent. VS Code names the window after the file ("<agent
 * name> (Workspace)") and the Explorer's folder after `name`. A file of an earlier name of the agent
 * goes, so Recent shows the agent once. The window puts the folder back when VS Code opens the
 * file without it (`agentWindow.ts`). An agent of another deployment (`deploymentPart`) has its
 * own folder: its authority carries the part (`[a-z0-9.-]` only, safe as a file name).
 */
export async function agentWindowFile(storage: vscode.Uri, agentId: string, name: string, deploymentPart?: string): Promise<vscode.Uri> {
	const authority = encodeAgentAuthority(agentId, deploymentPart);
	const folder = vscode.Uri.joinPath(storage, AGENT_WINDOWS_FOLDER, authority);
	const label = singleLine(name, SAFETY.labelMaxChars) || agentId;
	const file = vscode.Uri.joinPath(folder, `${fileNameOf(label)}.code-workspace`);
	await vscode.workspace.fs.createDirectory(folder);
	for (const [entry] of await vscode.workspace.fs.readDirectory(folder)) {
		const other = vscode.Uri.joinPath(folder, entry);
		if (entry.endsWith('.code-workspace') && other.toString() !== file.toString()) {
			await vscode.workspace.fs.delete(other).then(undefined, () => undefined);
		}
	}
	const content = { folders: [{ uri: workspaceUri(agentId, '', deploymentPart).toString(), name: label }], settings: {} };
	await vscode.workspace.fs.writeFile(file, new TextEncoder().encode(`${JSON.stringify(content, null, '\t')}\n`));
	return file;
}

/** A file name that shows `label`: characters no file system takes (and a leading dot) replaced. */
function fileNameOf(label: string): string {
	const name = label
		.replace(/[/\\:*?"<>|]/g, '_')
		.replace(/^\.+/, '_')
		.trim()
		.slice(0, 80);
	return name === '' ? 'agent' : name;
}
