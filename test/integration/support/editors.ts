import * as vscode from 'vscode';

/**
 * Closing editors in the in-host suites and in the runner's baseline restore
 * (runner-extension/src/core.ts). "Close all" asks whether to save a document with unsaved changes:
 * a dialog nobody answers in a test, so the call never ends, the suite's teardown times out and
 * every later step waits behind the dialog (issue 41: a model provider document a failed test left
 * unsaved). Such a document is reverted and closed first. Suites call `closeAllEditors()`, never the
 * command itself (an ESLint rule on test/integration/suite/ says so).
 */

/** The documents of the editor tabs with unsaved changes (of a diff, its modified side), each once. */
export function unsavedTabDocuments(): vscode.Uri[] {
	const uris = new Map<string, vscode.Uri>();
	for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
		const uri = !tab.isDirty
			? undefined
			: tab.input instanceof vscode.TabInputText
				? tab.input.uri
				: tab.input instanceof vscode.TabInputTextDiff
					? tab.input.modified
					: undefined;
		if (uri) {
			uris.set(uri.toString(), uri);
		}
	}
	return [...uris.values()];
}

/** Drops a document's unsaved changes and closes its editor (shown first: the command acts on the active editor). */
export async function revertAndClose(uri: vscode.Uri): Promise<void> {
	await vscode.window.showTextDocument(uri, { preview: false });
	await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
}

/** Closes every editor, reverting the documents left with unsaved changes first, so nothing asks whether to save. */
export async function closeAllEditors(): Promise<void> {
	for (const uri of unsavedTabDocuments()) {
		await revertAndClose(uri);
	}
	await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}
