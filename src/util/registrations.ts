/**
 * Where the extension's parts register what VS Code asks them for by name — a tree view's rows, a
 * file system or a document scheme's contents, the Accounts menu's sessions. In the extension,
 * activation has registered each of these already, as a stand-in that loads the extension's body on
 * VS Code's first call (src/shell/standIns.ts: activation registers and does nothing else, issue
 * 44); the body then hands its real provider to the stand-in here instead of registering it. The
 * unit tests, and anything built outside the shell, use `directRegistrations`: VS Code's own calls.
 */
import * as vscode from 'vscode';

/** How a tree view is drawn (what `createTreeView` takes besides its provider). */
export interface TreeViewOptions {
	readonly showCollapseAll: boolean;
}

/** How a file system is registered (what `registerFileSystemProvider` takes besides its provider). */
export interface FileSystemOptions {
	readonly isCaseSensitive?: boolean;
	readonly isReadonly?: boolean;
}

/** The registrations of the extension's providers (see the file's comment). */
export interface Registrations {
	/** The tree view of `viewId`, drawn by `provider`. */
	treeView<T>(viewId: string, provider: vscode.TreeDataProvider<T>, options: TreeViewOptions): vscode.TreeView<T>;
	/** `provider` serves the URIs of `scheme` until the disposable is disposed. */
	fileSystem(scheme: string, provider: vscode.FileSystemProvider, options: FileSystemOptions): vscode.Disposable;
	/** `provider` gives the read-only documents of `scheme` until the disposable is disposed. */
	textDocuments(scheme: string, provider: vscode.TextDocumentContentProvider): vscode.Disposable;
	/** `provider` answers VS Code's Accounts menu for the authentication provider `id`. */
	authentication(id: string, label: string, provider: vscode.AuthenticationProvider): vscode.Disposable;
}

/** VS Code's own registrations, one call each. */
export const directRegistrations: Registrations = {
	treeView: (viewId, provider, options) =>
		vscode.window.createTreeView(viewId, { treeDataProvider: provider, showCollapseAll: options.showCollapseAll }),
	fileSystem: (scheme, provider, options) => vscode.workspace.registerFileSystemProvider(scheme, provider, options),
	textDocuments: (scheme, provider) => vscode.workspace.registerTextDocumentContentProvider(scheme, provider),
	authentication: (id, label, provider) =>
		vscode.authentication.registerAuthenticationProvider(id, label, provider, { supportsMultipleAccounts: false }),
};
