/** The two folders "Compare with Local Folder…" asks for when it is not told them (src/changes/changesActions.ts). */
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../api';
import { singleLine } from '../util/text';
import { pickItem, pickWhenLoaded } from '../views/ui';

/** The agent-side folder: the workspace root or one of its top-level folders; undefined when dismissed. */
export async function pickAgentFolder(
	client: CloudAgentsClient,
	agentId: string,
	agentName: string,
	title: string,
): Promise<string | undefined> {
	const root: vscode.QuickPickItem & { folder: string } = {
		label: vscode.l10n.t('$(root-folder) Workspace root'),
		description: singleLine(agentName, 80),
		folder: '',
	};
	const items = async (): Promise<Array<vscode.QuickPickItem & { folder: string }>> => {
		const out = [root];
		let n = 0;
		for await (const entry of client.iterateWorkspace(agentId, '', { limit: 500 })) {
			if (++n > 2_000) {
				break;
			}
			if (entry.type === 'directory' && /^[^/\\\0]+$/.test(entry.name) && entry.name !== '.' && entry.name !== '..') {
				out.push(pickItem({ label: entry.name, description: vscode.l10n.t('folder') }, { folder: entry.name }));
			}
		}
		return out;
	};
	const picked = await pickWhenLoaded(items, { title, placeHolder: vscode.l10n.t('Which folder of the agent workspace?') });
	return picked?.folder;
}

/**
 * The local folder: a workspace folder this extension host can compare with (`canCompare`: the
 * platform's, src/platform/types.ts; the one whose name matches first) or one chosen in a dialog.
 */
export async function pickLocalFolder(
	name: string,
	title: string,
	canCompare: (uri: vscode.Uri) => boolean,
): Promise<vscode.Uri | undefined> {
	const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => canCompare(f.uri));
	const wanted = name.split('/').pop()?.toLowerCase() ?? '';
	const sorted = [...folders].sort((a, b) => Number(b.name.toLowerCase() === wanted) - Number(a.name.toLowerCase() === wanted));
	const browse: vscode.QuickPickItem & { uri?: vscode.Uri } = { label: vscode.l10n.t('$(folder-opened) Choose a Folder…') };
	let chosen: vscode.Uri | undefined;
	if (sorted.length > 0) {
		const picked = await vscode.window.showQuickPick(
			[
				...sorted.map((f): vscode.QuickPickItem & { uri?: vscode.Uri } => ({
					label: f.name,
					description: f.uri.fsPath,
					uri: f.uri,
				})),
				browse,
			],
			{ title, placeHolder: vscode.l10n.t('Which local folder?') },
		);
		if (!picked) {
			return undefined;
		}
		chosen = picked.uri;
	}
	if (!chosen) {
		const uris = await vscode.window.showOpenDialog({
			canSelectFiles: false,
			canSelectFolders: true,
			canSelectMany: false,
			openLabel: vscode.l10n.t('Compare'),
		});
		chosen = uris?.[0];
	}
	return chosen;
}
