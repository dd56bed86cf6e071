/**
 * A local folder through `vscode.workspace.fs` (issue 34): the seam of src/compare/localFiles.ts in
 * the browser's extension host (VS Code for the Web), where there is no Node file system and no
 * worker thread. The folder is named by its URI (in a browser it is rarely a `file:` path of ours:
 * `vscode-remote:` in code-server, a virtual file system on vscode.dev). The work itself, in batches
 * on the extension host's thread, is src/compare/fileSystemLocalFiles.ts; this module only hands it
 * VS Code's file system on the folder's URI.
 */
import * as vscode from 'vscode';
import { FileSystemLocalFiles, type FolderFileSystem } from '../../compare/fileSystemLocalFiles';
import type { LocalFiles } from '../../compare/localFiles';
import { isMissingFileError } from '../../util/fileErrors';

/** `vscode.workspace.fs` on the folder `root`, by path relative to it (checked by the caller). */
export function workspaceFolderFileSystem(root: vscode.Uri): FolderFileSystem {
	const uriOf = (rel: string): vscode.Uri => (rel === '' ? root : vscode.Uri.joinPath(root, ...rel.split('/')));
	const fs = vscode.workspace.fs;
	return {
		stat: async (rel) => {
			const st = await fs.stat(uriOf(rel));
			return { type: st.type, size: st.size, mtime: st.mtime };
		},
		readDirectory: async (rel) => fs.readDirectory(uriOf(rel)),
		readFile: async (rel) => fs.readFile(uriOf(rel)),
		isMissing: isMissingFileError,
	};
}

/** The local folder `root` through `vscode.workspace.fs`. */
export function workspaceLocalFiles(root: vscode.Uri): LocalFiles {
	return new FileSystemLocalFiles(workspaceFolderFileSystem(root));
}
