import * as vscode from 'vscode';

/**
 * Closing editors in the in-host suites and in the runner's baseline restore
 * (runner-extension/src/core.ts). "Close all" asks whether to save a document with unsaved changes:
 * a dialog nobody answers in a test, so the call never ends, the suite's teardown times out and
 * every later step waits behind the dialog (issue 41: a model provider document a failed test left
 * unsaved). Such a document is reverted and closed first. Suites call `closeAllEditors()`, never the
 * command itself (an ESLint rule on test/integration/suite/ says so).
 */

/**
 * The documents of the editor tabs with unsaved changes (of a diff, its modified side), each once.
 * A tab counts when either the tab or its document says so: the extension host learns a tab's dirty
 * state from a message of its own, after the document's, so right after an edit or a failed save
 * the tab can still read clean while "close all" already finds the editor dirty and asks.
 */
export function unsavedTabDocuments(): vscode.Uri[] {
	const dirtyDocs = new Set(vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()));
	const uris = new Map<string, vscode.Uri>();
	for (const tab of vscode.window.tabGroups.all.flatMap((g) => g.tabs)) {
		const uri =
			tab.input instanceof vscode.TabInputText
				? tab.input.uri
				: tab.input instanceof vscode.TabInputTextDiff
					? tab.input.modified
					: undefined;
		if (uri && (tab.isDirty || dirtyDocs.has(uri.toString()))) {
			uris.set(uri.toString(), uri);
		}
	}
	return [...uris.values()];
}

/** The open tabs in words (group, label, kind, unsaved), for a failure message when closing them took too long. */
export function describeTabs(): string {
	const tabs = vscode.window.tabGroups.all.flatMap((g) =>
		g.tabs.map((t) => {
			const kind = (t.input as object | undefined)?.constructor?.name ?? 'unknown';
			const uri =
				t.input instanceof vscode.TabInputText
					? t.input.uri.toString()
					: t.input instanceof vscode.TabInputTextDiff
						? t.input.modified.toString()
						: '';
			return `group ${g.viewColumn}: "${t.label}" (${kind}${uri ? ` ${uri}` : ''}${t.isDirty ? ', unsaved' : ''})`;
		}),
	);
	const dirtyDocs = vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString());
	return `open tabs: ${tabs.join('; ') || 'none'}; documents with unsaved changes: ${dirtyDocs.join(', ') || 'none'}`;
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
