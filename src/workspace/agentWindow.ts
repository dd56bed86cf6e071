/**
 * The window "Open in New Window" opens for an agent: a workspace file of ours,
 * `<storage>/agent-windows/<agent authority>/<agent name>.code-workspace`, holding the one folder
 * `cloud-agent://<agent authority>/` named after the agent (written by `openWorkspace.ts`).
 *
 * A window VS Code opened on such a file but without its folder gets the folder back when the
 * workspace feature registers (activation loads the features in such a window: src/extension.ts).
 * Seen in the UI test `agent-window` on a loaded machine: a window titled after the agent showed
 * "No Folder Opened" though its file listed the folder. Our reading of code-server's workbench:
 * it first takes a workspace file on the remote from its cache (empty the first time the file
 * opens), then reads the file itself, and an answer that comes while its workspace service is
 * still setting the workspace up is not applied.
 *
 * Putting the folder back changes the window's first folder, and VS Code reloads a window with a
 * remote authority when that happens (its WorkspaceChangeExtHostRelauncher; a desktop window
 * restarts its extension host instead): the user sees the page load once more, with the folder.
 */
import * as vscode from 'vscode';
import { AGENT_WINDOWS_FOLDER, FS_SCHEME } from '../ids';
import { SAFETY } from '../base/limits';
import { singleLine } from '../util/text';
import { isDeploymentIdShape } from '../auth/deployments';
import { parseAgentAuthority } from './fs/agentUri';

/** The largest agent-window file read back (ours are a few hundred bytes). */
const MAX_FILE_BYTES = 64 * 1024;

/** Where a failure to put the folder back is written. */
export interface AgentWindowLog {
	warn(message: string): void;
}

/**
 * The agent authority of `file` when it is an agent window's workspace file under `storage` (of
 * an agent of any deployment: the authority carries its deployment part), else undefined.
 */
export function agentWindowAuthority(storage: vscode.Uri, file: vscode.Uri | undefined): string | undefined {
	if (!file || file.scheme !== storage.scheme || file.authority !== storage.authority) {
		return undefined;
	}
	const folder = `${storage.path.replace(/\/+$/, '')}/${AGENT_WINDOWS_FOLDER}/`;
	if (!file.path.startsWith(folder) || !file.path.endsWith('.code-workspace')) {
		return undefined;
	}
	const [authority, name, ...rest] = file.path.slice(folder.length).split('/');
	if (
		authority === undefined ||
		name === undefined ||
		rest.length > 0 ||
		parseAgentAuthority(authority, isDeploymentIdShape) === undefined
	) {
		return undefined;
	}
	return authority.toLowerCase();
}

/**
 * When this window is an agent window whose workspace has no folder, adds the agent's folder under
 * the name its file gives (the file's name when it gives none). Returns whether it added it.
 */
export async function restoreAgentWindowFolder(storage: vscode.Uri, log: AgentWindowLog): Promise<boolean> {
	const file = vscode.workspace.workspaceFile;
	const authority = agentWindowAuthority(storage, file);
	if (!file || authority === undefined || (vscode.workspace.workspaceFolders?.length ?? 0) > 0) {
		return false;
	}
	const name = (await nameInFile(file, authority)) ?? (file.path.split('/').pop() ?? '').replace(/\.code-workspace$/, '');
	const uri = vscode.Uri.from({ scheme: FS_SCHEME, authority, path: '/' });
	// The workbench may have caught up meanwhile.
	if ((vscode.workspace.workspaceFolders?.length ?? 0) > 0) {
		return false;
	}
	const added = vscode.workspace.updateWorkspaceFolders(0, 0, { uri, name: singleLine(name, SAFETY.labelMaxChars) || authority });
	if (!added) {
		log.warn(`VS Code refused to put the agent's folder back into its window (${file.toString()}).`);
	}
	return added;
}

/** The name the file gives the agent's folder, when it gives one for that agent. */
async function nameInFile(file: vscode.Uri, authority: string): Promise<string | undefined> {
	try {
		const bytes = await vscode.workspace.fs.readFile(file);
		if (bytes.byteLength > MAX_FILE_BYTES) {
			return undefined;
		}
		const content: unknown = JSON.parse(new TextDecoder().decode(bytes));
		const folders = (content as { folders?: unknown } | null)?.folders;
		if (!Array.isArray(folders)) {
			return undefined;
		}
		for (const f of folders as unknown[]) {
			const entry = f as { uri?: unknown; name?: unknown } | null;
			if (typeof entry?.uri !== 'string' || typeof entry.name !== 'string') {
				continue;
			}
			const uri = vscode.Uri.parse(entry.uri);
			if (uri.scheme === FS_SCHEME && uri.authority.toLowerCase() === authority) {
				return entry.name;
			}
		}
	} catch {
		// Unreadable or not JSON: the file's name says it.
	}
	return undefined;
}
