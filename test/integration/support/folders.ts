/**
 * Adding and removing workspace folders from a suite. `updateWorkspaceFolders` answers false while
 * an earlier change (of this suite or one before it) is unconfirmed, and `workspaceFolders` shows a
 * change before VS Code has confirmed it: so a change is retried until VS Code takes it, and is
 * done only once a change event arrives with the folders as asked.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function changeFolders(update: () => boolean, done: () => boolean, what: string): Promise<void> {
	let sub: vscode.Disposable | undefined;
	const confirmed = new Promise<void>((resolve) => {
		sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
			if (done()) {
				resolve();
			}
		});
	});
	try {
		for (let attempt = 0; !update(); attempt++) {
			if (attempt >= 100) {
				assert.fail(`VS Code did not take the folder change (${what}) for 20 s`);
			}
			await sleep(200);
		}
		const timeout = sleep(20_000).then(() => assert.fail(`no folder change event for ${what} in 20 s`));
		await Promise.race([confirmed, timeout]);
	} finally {
		sub?.dispose();
	}
}

/** The folder's index; authorities compared in lower case (VS Code lower-cases them when it writes a URI out). */
const indexOf = (uri: vscode.Uri): number => {
	const key = (u: vscode.Uri): string => u.with({ authority: u.authority.toLowerCase() }).toString();
	return vscode.workspace.workspaceFolders?.findIndex((f) => key(f.uri) === key(uri)) ?? -1;
};

/** Adds `uri` as the last workspace folder (unless it is one) and waits until VS Code confirmed it; true when it added it. */
export async function addFolder(uri: vscode.Uri, name: string): Promise<boolean> {
	if (indexOf(uri) >= 0) {
		return false;
	}
	await changeFolders(
		() => vscode.workspace.updateWorkspaceFolders(vscode.workspace.workspaceFolders?.length ?? 0, 0, { uri, name }),
		() => indexOf(uri) >= 0,
		`adding ${uri.toString()}`,
	);
	return true;
}

/** Removes the workspace folder `uri` (if it is one) and waits until VS Code confirmed it. */
export async function removeFolder(uri: vscode.Uri): Promise<void> {
	if (indexOf(uri) < 0) {
		return;
	}
	await changeFolders(
		() => indexOf(uri) >= 0 && vscode.workspace.updateWorkspaceFolders(indexOf(uri), 1),
		() => indexOf(uri) < 0,
		`removing ${uri.toString()}`,
	);
}
