/**
 * The `cloud-agent:` file system as activation registers it (and the model provider documents',
 * `cloud-agents-provider:`, the same way): a stand-in that loads the real
 * provider (the workspace feature of `src/workspace/`, in dist/features.js: see esbuild.mjs and
 * src/shell/lazy.ts) on the first call VS Code makes, and from then on hands every call to it and
 * passes its change events on. The scheme must be registered from activation (a window restored
 * with an agent folder activates the extension through `onFileSystem:cloud-agent` and reads the
 * folder at once); the cache, the transfers and the workspace commands need not be.
 */
import * as vscode from 'vscode';
import { Disposable } from '../../util/lifecycle';
import { describeError } from '../../messages/errors';

/** Where the stand-in writes why loading the real provider failed. */
export interface LazyProviderLog {
	error(message: string | Error, ...args: unknown[]): void;
}

/** A file system provider whose code loads on the first call (`load` runs once it succeeds). */
export class LazyFileSystemProvider extends Disposable implements vscode.FileSystemProvider {
	private readonly _onDidChangeFile = this.register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
	/** The real provider's events, once it is loaded. */
	readonly onDidChangeFile = this._onDidChangeFile.event;
	private real: vscode.FileSystemProvider | undefined;
	private readonly what: () => string;
	/** Offered only when the real provider copies (`copies`): without it VS Code copies by reading and writing. */
	readonly copy?: vscode.FileSystemProvider['copy'];

	/**
	 * @param load loads the real provider (synchronously: a `require`); it stays owned by its loader
	 * @param log where a failed load is written (the call fails with Unavailable; the next one tries again)
	 * @param options `what`: the file system in words, for that failure ("agent workspace file
	 * system"); `copies`: whether the real provider has `copy` (FILE_SYSTEM_SCHEMES, src/ids.ts)
	 */
	constructor(
		private readonly load: () => vscode.FileSystemProvider,
		private readonly log: LazyProviderLog,
		options: { what?: () => string; copies?: boolean } = {},
	) {
		super();
		this.what = options.what ?? (() => vscode.l10n.t('agent workspace file system'));
		if (options.copies === true) {
			this.copy = (source, destination, copyOptions) => {
				const real = this.provider();
				if (!real.copy) {
					// Offered because the real provider was said to copy; one without it cannot.
					throw vscode.FileSystemError.NoPermissions(destination);
				}
				return real.copy(source, destination, copyOptions);
			};
		}
	}

	/** Whether the real provider has been loaded. */
	get isLoaded(): boolean {
		return this.real !== undefined;
	}

	private provider(): vscode.FileSystemProvider {
		if (this.real) {
			return this.real;
		}
		if (this.isDisposed) {
			throw vscode.FileSystemError.Unavailable(vscode.l10n.t('Cloud Agents is shutting down.'));
		}
		let real: vscode.FileSystemProvider;
		try {
			real = this.load();
		} catch (err) {
			this.log.error(`Loading the ${this.what()} failed:`, err instanceof Error ? err : String(err));
			throw vscode.FileSystemError.Unavailable(
				vscode.l10n.t('Cloud Agents could not load its {0}: {1}', this.what(), describeError(err)),
			);
		}
		this.register(real.onDidChangeFile((events) => this._onDidChangeFile.fire(events)));
		this.real = real;
		return real;
	}

	watch(uri: vscode.Uri, options: { readonly recursive: boolean; readonly excludes: readonly string[] }): vscode.Disposable {
		return this.provider().watch(uri, options);
	}

	stat(uri: vscode.Uri): vscode.FileStat | Thenable<vscode.FileStat> {
		return this.provider().stat(uri);
	}

	readDirectory(uri: vscode.Uri): [string, vscode.FileType][] | Thenable<[string, vscode.FileType][]> {
		return this.provider().readDirectory(uri);
	}

	createDirectory(uri: vscode.Uri): void | Thenable<void> {
		return this.provider().createDirectory(uri);
	}

	readFile(uri: vscode.Uri): Uint8Array | Thenable<Uint8Array> {
		return this.provider().readFile(uri);
	}

	writeFile(
		uri: vscode.Uri,
		content: Uint8Array,
		options: { readonly create: boolean; readonly overwrite: boolean },
	): void | Thenable<void> {
		return this.provider().writeFile(uri, content, options);
	}

	delete(uri: vscode.Uri, options: { readonly recursive: boolean }): void | Thenable<void> {
		return this.provider().delete(uri, options);
	}

	rename(oldUri: vscode.Uri, newUri: vscode.Uri, options: { readonly overwrite: boolean }): void | Thenable<void> {
		return this.provider().rename(oldUri, newUri, options);
	}
}
