/**
 * "Go to File in Agent Workspace…": the closest a published extension gets to Quick Open for
 * `cloud-agent:` (file search for extension file systems is a proposed API): a pick filled by a
 * bounded, cancellable breadth-first walk of the workspace through the cache.
 */
import * as vscode from 'vscode';
import { baseName, normalizeWorkspacePath, parentPath } from '../util/paths';
import { WALK_LIMITS } from './fs/workspaceCache';
import type { AgentWorkspaces } from './deploymentWorkspace';

/** One file in the "Go to File" pick. */
interface FileItem extends vscode.QuickPickItem {
	uri: vscode.Uri;
}

/** How often the "Go to File" pick takes in the files listed so far while the walk runs. */
const PICK_REFRESH_MS = 150;

/** Shows the pick of an agent's files (titled with `name`) and opens the chosen one; resolves with its URI. */
export async function goToWorkspaceFile(feature: AgentWorkspaces, agentId: string, name: string): Promise<vscode.Uri | undefined> {
	const uri = await pickWorkspaceFile(feature, agentId, name);
	if (uri) {
		await vscode.window.showTextDocument(uri, { preview: true });
	}
	return uri;
}

/** Automation: walks the workspace, opens `rawPath` if it is one of the files found, returns them all. */
export async function openWalkedFile(feature: AgentWorkspaces, agentId: string, rawPath: string): Promise<string[]> {
	const path = normalizeWorkspacePath(rawPath);
	const { files, truncated } = await feature.cache.walkFiles(agentId);
	if (!files.includes(path)) {
		throw new Error(
			truncated
				? vscode.l10n.t(
						'"{0}" is not among the {1} files listed in the workspace of agent {2} (the listing stops at {3} files and folders and {4} folder levels).',
						path,
						files.length,
						agentId,
						WALK_LIMITS.maxEntries,
						WALK_LIMITS.maxDepth,
					)
				: files.length === 1
					? vscode.l10n.t('"{0}" is not a file in the workspace of agent {1} (1 file listed).', path, agentId)
					: vscode.l10n.t('"{0}" is not a file in the workspace of agent {1} ({2} files listed).', path, agentId, files.length),
		);
	}
	await vscode.window.showTextDocument(feature.uriFor(agentId, path), { preview: true });
	return files;
}

/** Shows the file pick while the walk fills it; resolves with the chosen file, undefined when dismissed. */
function pickWorkspaceFile(feature: AgentWorkspaces, agentId: string, name: string): Promise<vscode.Uri | undefined> {
	const pick = vscode.window.createQuickPick<FileItem>();
	pick.title = vscode.l10n.t('Go to File in {0}', name);
	pick.placeholder = vscode.l10n.t('Listing the files of the agent workspace…');
	pick.matchOnDescription = true;
	pick.keepScrollPosition = true;
	pick.busy = true;
	const controller = new AbortController();
	const items: FileItem[] = [];
	let timer: ReturnType<typeof setTimeout> | undefined;
	const refresh = (): void => {
		timer = undefined;
		pick.items = items.slice();
		pick.placeholder =
			items.length === 1
				? vscode.l10n.t('Type to filter the 1 file listed so far (still listing…)')
				: vscode.l10n.t('Type to filter the {0} files listed so far (still listing…)', items.length);
	};
	return new Promise<vscode.Uri | undefined>((resolve, reject) => {
		let done = false;
		const finish = (settle: () => void): void => {
			if (done) {
				return;
			}
			done = true;
			controller.abort();
			if (timer !== undefined) {
				clearTimeout(timer);
			}
			pick.dispose();
			settle();
		};
		pick.onDidAccept(() => {
			const item = pick.selectedItems[0] ?? pick.activeItems[0];
			if (item) {
				finish(() => resolve(item.uri));
			}
		});
		pick.onDidHide(() => finish(() => resolve(undefined)));
		pick.show();
		feature.cache
			.walkFiles(agentId, {
				signal: controller.signal,
				onFiles: (paths) => {
					for (const path of paths) {
						const folder = parentPath(path);
						items.push({ label: baseName(path), description: folder || undefined, uri: feature.uriFor(agentId, path) });
					}
					timer ??= setTimeout(refresh, PICK_REFRESH_MS);
				},
			})
			.then(
				({ truncated }) => {
					if (done) {
						return;
					}
					if (timer !== undefined) {
						clearTimeout(timer);
						timer = undefined;
					}
					pick.items = items;
					pick.busy = false;
					pick.placeholder =
						items.length === 0
							? vscode.l10n.t('The agent workspace has no files')
							: truncated
								? vscode.l10n.t(
										'Type to filter the first {0} files (truncated: the listing stops at {1} files and folders and {2} folder levels)',
										items.length,
										WALK_LIMITS.maxEntries,
										WALK_LIMITS.maxDepth,
									)
								: items.length === 1
									? vscode.l10n.t('Type to filter 1 file')
									: vscode.l10n.t('Type to filter {0} files', items.length);
				},
				(err: unknown) => {
					finish(() => reject(err instanceof Error ? err : new Error(String(err))));
				},
			);
	});
}
