/**
 * Activation: what VS Code must find registered the moment `activate()` returns, and nothing else
 * (issue 44: activation costs what registering costs VS Code, measured against a static extension
 * that registers the same things, bench/sections/activation.ts). Each registration is a stand-in
 * for the extension's body (src/shell/main.ts: the session, the views' lists, the run follower, the
 * lazily loaded commands), which is loaded in the first idle moment after activation, or at once by
 * the first call VS Code makes to a stand-in — a command run, a view drawn, a file read, a panel
 * restored, a tool called, the Accounts menu asking for sessions —, whichever comes first.
 *
 * While it starts, the body hands its real providers to the stand-ins (`Registrations`,
 * src/util/registrations.ts) instead of registering them; the commands' stand-ins give way to the
 * body's own registrations (as src/shell/lazy.ts's do to the features'), and the invoked command
 * runs again with the same arguments. This module loads nothing of the extension but the ids: in
 * Node's build it is dist/extension.js, and the body dist/main.js (esbuild.mjs).
 */
import * as vscode from 'vscode';
import {
	ALL_VIEW_IDS,
	AUTH_PROVIDER_ID,
	AUTH_PROVIDER_LABEL,
	COLLAPSE_ALL_VIEWS,
	COMMAND_IDS,
	DOCUMENT_SCHEMES,
	FILE_SYSTEM_SCHEMES,
	TEST_HARNESS_ENV,
	TOOL_NAMES,
	WEBVIEW_TYPES,
} from '../ids';
import { type ToolHandlers, registerLazyTools } from '../chat/lazyTools';
import type { FileSystemOptions, Registrations, TreeViewOptions } from '../util/registrations';

/** What the body gives the stand-ins once it has started. */
export interface Body {
	/** Restores a webview panel VS Code brings back after a reload (by its view type). */
	restorePanel(viewType: string, panel: vscode.WebviewPanel, state: unknown): Promise<void>;
	/** The language-model tools' code, by tool name. */
	readonly tools: ToolHandlers;
	/** What the integration tests read (src/shell/main.ts `CloudAgentsTestApi`), when they may. */
	readonly testApi: object | undefined;
	/** Whether the HTTP client has been loaded (issue 44: never by activation). */
	readonly clientLoaded: boolean;
}

/** Starts the body: builds the services and features, handing its providers to `shell`. */
export type StartBody = (context: vscode.ExtensionContext, shell: Shell) => Body;

/** What activation left behind, for the tests (issue 44: activation stays lean). */
export interface ActivationFacts {
	/** Whether the body had been loaded when `activate()` returned (it must not be). */
	readonly bodyLoaded: boolean;
	/** Whether the HTTP client had been loaded when `activate()` returned (it must not be). */
	readonly clientLoaded: boolean;
}

/**
 * What every stand-in holds: the body's provider once it is attached, whose change events it
 * passes on to VS Code (which subscribed to the stand-in's at registration).
 */
abstract class StandIn<P, E> {
	// Fields are declared and assigned in the constructor, not defined as class fields: a defined
	// field is a property definition per instance and an initializer per class that V8 compiles at
	// the first instance, all during activation (issue 44; `declare` emits nothing).
	declare protected readonly changes: vscode.EventEmitter<E>;
	declare protected real: P | undefined;
	declare private subscription: vscode.Disposable | undefined;
	declare protected readonly shell: Shell;
	declare private readonly subscribe: (real: P, fire: (e: E) => void) => vscode.Disposable | undefined;

	constructor(shell: Shell, subscribe: (real: P, fire: (e: E) => void) => vscode.Disposable | undefined) {
		this.shell = shell;
		this.subscribe = subscribe;
		this.changes = new vscode.EventEmitter<E>();
	}

	attach(real: P | undefined): void {
		this.subscription?.dispose();
		this.real = real;
		// VS Code has asked the stand-in for nothing yet when the body starts at idle: its first call starts the body, which attaches.
		this.subscription = real === undefined ? undefined : this.subscribe(real, (e) => this.changes.fire(e));
	}

	/** The body's provider, the body started first if it had not. */
	protected target(): P | undefined {
		this.shell.load();
		return this.real;
	}

	dispose(): void {
		this.subscription?.dispose();
		this.changes.dispose();
	}
}

/** Forwards VS Code's calls for one tree view to the body's provider, loading the body first. */
class TreeStandIn extends StandIn<vscode.TreeDataProvider<unknown>, unknown> implements vscode.TreeDataProvider<unknown> {
	declare readonly onDidChangeTreeData: vscode.Event<unknown>;

	constructor(shell: Shell) {
		super(shell, (real, fire) => real.onDidChangeTreeData?.(fire));
		this.onDidChangeTreeData = this.changes.event;
	}

	getTreeItem(element: unknown): vscode.TreeItem | Thenable<vscode.TreeItem> {
		const real = this.target();
		return real ? real.getTreeItem(element) : new vscode.TreeItem('');
	}

	getChildren(element?: unknown): vscode.ProviderResult<unknown[]> {
		return this.target()?.getChildren(element) ?? [];
	}

	getParent(element: unknown): vscode.ProviderResult<unknown> {
		return this.target()?.getParent?.(element);
	}

	resolveTreeItem(item: vscode.TreeItem, element: unknown, token: vscode.CancellationToken): vscode.ProviderResult<vscode.TreeItem> {
		const real = this.target();
		return real?.resolveTreeItem ? real.resolveTreeItem(item, element, token) : item;
	}
}

/**
 * Forwards VS Code's calls for one file system scheme to the body's provider, loading the body
 * first. It offers `copy` only for a scheme whose provider copies (FILE_SYSTEM_SCHEMES `copies`):
 * without it VS Code copies by reading and writing.
 */
class FileSystemStandIn extends StandIn<vscode.FileSystemProvider, vscode.FileChangeEvent[]> implements vscode.FileSystemProvider {
	declare readonly onDidChangeFile: vscode.Event<vscode.FileChangeEvent[]>;
	declare readonly copy?: vscode.FileSystemProvider['copy'];

	constructor(shell: Shell, copies: boolean) {
		super(shell, (real, fire) => real.onDidChangeFile(fire));
		this.onDidChangeFile = this.changes.event;
		if (copies) {
			this.copy = (source, destination, options) => {
				const real = this.provider();
				if (!real.copy) {
					throw vscode.FileSystemError.NoPermissions(source);
				}
				return real.copy(source, destination, options);
			};
		}
	}

	private provider(): vscode.FileSystemProvider {
		const real = this.target();
		if (!real) {
			throw vscode.FileSystemError.Unavailable(vscode.l10n.t('Cloud Agents is shutting down.'));
		}
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

/** Forwards VS Code's calls for one read-only document scheme to the body's provider, loading the body first. */
class DocumentStandIn extends StandIn<vscode.TextDocumentContentProvider, vscode.Uri> implements vscode.TextDocumentContentProvider {
	declare readonly onDidChange: vscode.Event<vscode.Uri>;

	constructor(shell: Shell) {
		super(shell, (real, fire) => real.onDidChange?.(fire));
		this.onDidChange = this.changes.event;
	}

	provideTextDocumentContent(uri: vscode.Uri, token: vscode.CancellationToken): vscode.ProviderResult<string> {
		return this.target()?.provideTextDocumentContent(uri, token) ?? '';
	}
}

/** Forwards the Accounts menu's calls to the body's authentication provider, loading the body first. */
class AuthenticationStandIn
	extends StandIn<vscode.AuthenticationProvider, vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>
	implements vscode.AuthenticationProvider
{
	declare readonly onDidChangeSessions: vscode.Event<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>;

	constructor(shell: Shell) {
		super(shell, (real, fire) => real.onDidChangeSessions(fire));
		this.onDidChangeSessions = this.changes.event;
	}

	async getSessions(
		scopes: readonly string[] | undefined,
		options: vscode.AuthenticationProviderSessionOptions,
	): Promise<vscode.AuthenticationSession[]> {
		return (await this.target()?.getSessions(scopes, options)) ?? [];
	}
	async createSession(
		scopes: readonly string[],
		options: vscode.AuthenticationProviderSessionOptions,
	): Promise<vscode.AuthenticationSession> {
		const real = this.target();
		if (!real) {
			throw new vscode.CancellationError();
		}
		return real.createSession(scopes, options);
	}
	async removeSession(sessionId: string): Promise<void> {
		await this.target()?.removeSession(sessionId);
	}
}

/**
 * Whether `activate()` returns what the integration tests read: under the test harness, or outside
 * production mode (src/testing.ts `startRecording` decides the same way: it can read the token).
 */
function testApiWanted(context: vscode.ExtensionContext): boolean {
	return process.env[TEST_HARNESS_ENV] !== undefined || context.extensionMode !== vscode.ExtensionMode.Production;
}

/**
 * Activation's registrations (see the file's comment), and the `Registrations` the body starts with.
 * Everything it creates is owned by the extension context.
 */
export class Shell implements Registrations {
	/** The extension's log ("Cloud Agents" in the Output view), created at activation as VS Code shows it from the start. */
	declare readonly log: vscode.LogOutputChannel;
	// Declared, and assigned in the constructor (see StandIn).
	declare private body: Body | undefined;
	declare private starting: boolean;
	declare private failure: Error | undefined;
	declare private readonly trees: Map<string, { standIn: TreeStandIn; view: vscode.TreeView<unknown> }>;
	declare private readonly fileSystems: Map<string, FileSystemStandIn>;
	declare private readonly documents: Map<string, DocumentStandIn>;
	declare private readonly auth: AuthenticationStandIn;
	declare private commandStandIns: vscode.Disposable[];
	declare private idleTimer: ReturnType<typeof setTimeout> | undefined;
	declare private readonly context: vscode.ExtensionContext;
	declare private readonly loadStart: () => StartBody;
	declare private readonly report: (message: string) => void;

	/**
	 * @param context the extension's context (owns every registration)
	 * @param loadStart loads the body's code (synchronously: a `require`) and gives its start
	 * @param report tells the person that the body could not start (an error notification unless given)
	 */
	constructor(
		context: vscode.ExtensionContext,
		loadStart: () => StartBody,
		report: (message: string) => void = (message) => void vscode.window.showErrorMessage(message),
	) {
		this.context = context;
		this.loadStart = loadStart;
		this.report = report;
		this.starting = false;
		this.trees = new Map();
		this.fileSystems = new Map();
		this.documents = new Map();
		this.commandStandIns = [];
		const keep = <T extends vscode.Disposable>(d: T): T => {
			context.subscriptions.push(d);
			return d;
		};
		this.log = keep(vscode.window.createOutputChannel('Cloud Agents', { log: true }));
		this.installCommandStandIns();
		keep({ dispose: () => this.disposeCommandStandIns() });
		for (const viewId of ALL_VIEW_IDS) {
			const standIn = keep(new TreeStandIn(this));
			const view = keep(
				vscode.window.createTreeView(viewId, { treeDataProvider: standIn, showCollapseAll: COLLAPSE_ALL_VIEWS.has(viewId) }),
			);
			this.trees.set(viewId, { standIn, view });
		}
		for (const [scheme, options] of Object.entries(FILE_SYSTEM_SCHEMES)) {
			const standIn = keep(new FileSystemStandIn(this, options.copies === true));
			keep(
				vscode.workspace.registerFileSystemProvider(scheme, standIn, {
					isCaseSensitive: options.isCaseSensitive,
					isReadonly: options.isReadonly,
				}),
			);
			this.fileSystems.set(scheme, standIn);
		}
		for (const scheme of DOCUMENT_SCHEMES) {
			const standIn = keep(new DocumentStandIn(this));
			keep(vscode.workspace.registerTextDocumentContentProvider(scheme, standIn));
			this.documents.set(scheme, standIn);
		}
		for (const viewType of Object.values(WEBVIEW_TYPES)) {
			keep(
				vscode.window.registerWebviewPanelSerializer(viewType, {
					deserializeWebviewPanel: async (panel, state: unknown) => this.load().restorePanel(viewType, panel, state),
				}),
			);
		}
		for (const d of registerLazyTools(TOOL_NAMES, () => this.load().tools)) {
			keep(d);
		}
		this.auth = keep(new AuthenticationStandIn(this));
		keep(
			vscode.authentication.registerAuthenticationProvider(AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL, this.auth, {
				supportsMultipleAccounts: false,
			}),
		);
		keep({ dispose: () => clearTimeout(this.idleTimer) });
	}

	/** Whether the body has started. */
	get isLoaded(): boolean {
		return this.body !== undefined;
	}

	/** What activation left behind (read at the end of `activate()`). */
	facts(): ActivationFacts {
		return { bodyLoaded: this.isLoaded, clientLoaded: this.body?.clientLoaded ?? false };
	}

	/** Starts the body in the first idle moment after activation (a stand-in's first call starts it sooner). */
	loadWhenIdle(): void {
		this.idleTimer = setTimeout(() => {
			try {
				this.load();
			} catch {
				// Said and logged by load().
			}
		}, 0);
	}

	/**
	 * Starts the body (once) and gives it. Throws when it could not start: the error is logged and
	 * said once; every later call throws it again (a reload of the window tries anew).
	 */
	load(): Body {
		if (this.body) {
			return this.body;
		}
		if (this.failure !== undefined) {
			throw this.failure;
		}
		if (this.starting) {
			throw new Error('Cloud Agents is still starting: a stand-in was called while the extension started.');
		}
		this.starting = true;
		const started = performance.now();
		// The commands' stand-ins go first: the body registers its own under the same ids.
		this.disposeCommandStandIns();
		try {
			this.body = this.loadStart()(this.context, this);
		} catch (err) {
			this.failure = err instanceof Error ? err : new Error(String(err));
			this.installCommandStandIns();
			const message = err instanceof Error ? err.message : String(err);
			this.log.error('Starting Cloud Agents failed:', err instanceof Error ? err : message);
			this.report(vscode.l10n.t('Cloud Agents could not start: {0}. Reload the window to try again.', message));
			throw err;
		} finally {
			this.starting = false;
		}
		this.log.info(`Started in ${(performance.now() - started).toFixed(1)} ms after activation`);
		return this.body;
	}

	/**
	 * What `activate()` returns to the integration tests, when they may read it (see testApiWanted):
	 * each member of the body's test API, read on first use (reading one starts the body), and what
	 * activation left behind.
	 */
	testApi(facts: ActivationFacts): object | undefined {
		if (!testApiWanted(this.context)) {
			return undefined;
		}
		return new Proxy(
			{ activation: facts },
			{
				// `then` is read by every promise this object resolves (VS Code's activation among them):
				// not a member, and no reason to start the body.
				get: (target, key) =>
					key === 'activation'
						? target.activation
						: key === 'then'
							? undefined
							: (this.load().testApi as Record<PropertyKey, unknown> | undefined)?.[key],
			},
		);
	}

	// Registrations: the body hands its providers to the stand-ins.

	treeView<T>(viewId: string, provider: vscode.TreeDataProvider<T>, options: TreeViewOptions): vscode.TreeView<T> {
		const tree = this.trees.get(viewId);
		if (!tree) {
			throw new Error(`No view ${viewId} is contributed (package.json contributes.views).`);
		}
		if (options.showCollapseAll !== COLLAPSE_ALL_VIEWS.has(viewId)) {
			throw new Error(
				`The view ${viewId} is drawn ${options.showCollapseAll ? 'with' : 'without'} Collapse All: list it in COLLAPSE_ALL_VIEWS (src/ids.ts) accordingly.`,
			);
		}
		tree.standIn.attach(provider);
		return tree.view as vscode.TreeView<T>;
	}

	fileSystem(scheme: string, provider: vscode.FileSystemProvider, options: FileSystemOptions): vscode.Disposable {
		const standIn = this.fileSystems.get(scheme);
		const registered = FILE_SYSTEM_SCHEMES[scheme];
		if (
			!standIn ||
			!registered ||
			registered.isReadonly !== options.isReadonly ||
			registered.isCaseSensitive !== options.isCaseSensitive ||
			(registered.copies === true) !== (typeof provider.copy === 'function')
		) {
			throw new Error(`The file system ${scheme} is not registered at activation as asked (FILE_SYSTEM_SCHEMES, src/ids.ts).`);
		}
		standIn.attach(provider);
		return new vscode.Disposable(() => standIn.attach(undefined));
	}

	textDocuments(scheme: string, provider: vscode.TextDocumentContentProvider): vscode.Disposable {
		const standIn = this.documents.get(scheme);
		if (!standIn) {
			throw new Error(`The document scheme ${scheme} is not registered at activation (DOCUMENT_SCHEMES, src/ids.ts).`);
		}
		standIn.attach(provider);
		return new vscode.Disposable(() => standIn.attach(undefined));
	}

	authentication(id: string, _label: string, provider: vscode.AuthenticationProvider): vscode.Disposable {
		if (id !== AUTH_PROVIDER_ID) {
			throw new Error(`The authentication provider ${id} is not registered at activation.`);
		}
		this.auth.attach(provider);
		return new vscode.Disposable(() => this.auth.attach(undefined));
	}

	private installCommandStandIns(): void {
		for (const id of COMMAND_IDS) {
			try {
				this.commandStandIns.push(vscode.commands.registerCommand(id, (...args: unknown[]) => this.runCommand(id, args)));
			} catch {
				// Registered by the body before it failed: its command answers.
			}
		}
	}

	private disposeCommandStandIns(): void {
		for (const d of this.commandStandIns.splice(0)) {
			d.dispose();
		}
	}

	private async runCommand(id: string, args: unknown[]): Promise<unknown> {
		try {
			this.load();
		} catch {
			return undefined;
		}
		return vscode.commands.executeCommand(id, ...args);
	}
}

/**
 * Activation on a platform's entry (src/extension.ts, src/extension.web.ts): registers the
 * stand-ins, schedules the body's start, and returns what the integration tests read (or nothing).
 */
export function activateShell(context: vscode.ExtensionContext, loadStart: () => StartBody): object | undefined {
	const shell = new Shell(context, loadStart);
	shell.loadWhenIdle();
	return shell.testApi(shell.facts());
}
