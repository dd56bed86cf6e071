/**
 * A fake of the `vscode` module for the unit tests of modules that import it (the in-host suites
 * in test/integration run the real one). `require('vscode')` resolves here in the unit run
 * (support/rootHooks.ts); a test imports the same objects from this file to answer and inspect:
 *
 *   fake.answer('window.showQuickPick', async (items) => items[0]);  // until the test ends
 *   fake.settings['cloudAgents.apiUrl'] = 'https://example.test';
 *   assert.deepEqual(fake.calls('window.showErrorMessage')[0], ['…']);
 *
 * Every namespace function records its calls and answers `undefined` unless a test answers it;
 * `resetFake()` (a root `afterEach`) puts every answer, setting, command, document, folder and file
 * back, so tests pass in any order. What the API gives as classes and enums is here as small real
 * implementations (`Uri` is `vscode-uri`, the same code as VS Code's). A name the fake lacks throws
 * when a test reaches it, naming itself: add it here rather than stubbing around it.
 */
import { URI, Utils } from 'vscode-uri';

// ---- classes and enums -------------------------------------------------------------------------

type UriStatic = typeof URI & { joinPath(base: URI, ...segments: string[]): URI };
Object.defineProperty(URI, 'joinPath', { value: (base: URI, ...segments: string[]) => Utils.joinPath(base, ...segments) });
export const Uri = URI as UriStatic;

export class Disposable {
	static from(...items: { dispose(): unknown }[]): Disposable {
		return new Disposable(() => items.forEach((d) => d.dispose()));
	}
	private done = false;
	constructor(private readonly callOnDispose: () => unknown) {}
	dispose(): void {
		if (!this.done) {
			this.done = true;
			this.callOnDispose();
		}
	}
}

export type Listener<T> = (e: T) => unknown;
export class EventEmitter<T> {
	private listeners = new Set<Listener<T>>();
	readonly event = (listener: Listener<T>, thisArgs?: unknown, disposables?: Disposable[]): Disposable => {
		const bound: Listener<T> = (e) => listener.call(thisArgs, e);
		this.listeners.add(bound);
		const d = new Disposable(() => this.listeners.delete(bound));
		disposables?.push(d);
		return d;
	};
	fire(e: T): void {
		for (const l of [...this.listeners]) {
			l(e);
		}
	}
	dispose(): void {
		this.listeners.clear();
	}
}

export class CancellationError extends Error {
	constructor() {
		super('Canceled');
		this.name = 'Canceled';
	}
}

export class CancellationTokenSource {
	private readonly emitter = new EventEmitter<void>();
	readonly token = {
		isCancellationRequested: false,
		onCancellationRequested: this.emitter.event,
	};
	cancel(): void {
		if (!this.token.isCancellationRequested) {
			this.token.isCancellationRequested = true;
			this.emitter.fire();
		}
	}
	dispose(): void {
		this.emitter.dispose();
	}
}

export enum TreeItemCollapsibleState {
	None = 0,
	Collapsed = 1,
	Expanded = 2,
}
export class TreeItem {
	id?: string;
	description?: string | boolean;
	tooltip?: unknown;
	iconPath?: unknown;
	contextValue?: string;
	command?: { command: string; title: string; arguments?: unknown[] };
	resourceUri?: URI;
	accessibilityInformation?: { label: string; role?: string };
	constructor(
		public label: string | { label: string },
		public collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
	) {}
}
export class ThemeIcon {
	static readonly File = new ThemeIcon('file');
	static readonly Folder = new ThemeIcon('folder');
	constructor(
		readonly id: string,
		readonly color?: ThemeColor,
	) {}
}
export class ThemeColor {
	constructor(readonly id: string) {}
}
export class MarkdownString {
	isTrusted?: boolean;
	supportThemeIcons?: boolean;
	constructor(
		public value = '',
		supportThemeIcons = false,
	) {
		this.supportThemeIcons = supportThemeIcons;
	}
	appendText(text: string): this {
		this.value += text.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, '\\$&');
		return this;
	}
	appendMarkdown(text: string): this {
		this.value += text;
		return this;
	}
	appendCodeblock(code: string, language = ''): this {
		this.value += `\n\`\`\`${language}\n${code}\n\`\`\`\n`;
		return this;
	}
}
export class Position {
	constructor(
		readonly line: number,
		readonly character: number,
	) {}
}
export class Range {
	readonly start: Position;
	readonly end: Position;
	constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
		this.start = typeof a === 'number' ? new Position(a, b as number) : a;
		this.end = typeof a === 'number' ? new Position(c!, d!) : (b as Position);
	}
}
export class Selection extends Range {}
export enum DiagnosticSeverity {
	Error = 0,
	Warning = 1,
	Information = 2,
	Hint = 3,
}
export class Diagnostic {
	source?: string;
	code?: unknown;
	constructor(
		readonly range: Range,
		readonly message: string,
		readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
	) {}
}
export class TextEdit {
	static replace(range: Range, newText: string): TextEdit {
		return new TextEdit(range, newText);
	}
	static setEndOfLine(eol: EndOfLine): TextEdit {
		const edit = new TextEdit(new Range(0, 0, 0, 0), '');
		edit.newEol = eol;
		return edit;
	}
	newEol?: EndOfLine;
	constructor(
		readonly range: Range,
		readonly newText: string,
	) {}
}
export class WorkspaceEdit {
	readonly edits: { uri: URI; edit: TextEdit }[] = [];
	replace(uri: URI, range: Range, newText: string): void {
		this.edits.push({ uri, edit: TextEdit.replace(range, newText) });
	}
	set(uri: URI, edits: TextEdit[]): void {
		for (const edit of edits) {
			this.edits.push({ uri, edit });
		}
	}
}
export class RelativePattern {
	constructor(
		readonly base: URI | string,
		readonly pattern: string,
	) {}
}
export class FileDecoration {
	constructor(
		readonly badge?: string,
		readonly tooltip?: string,
		readonly color?: ThemeColor,
	) {}
}
export class LanguageModelTextPart {
	constructor(readonly value: string) {}
}
export class LanguageModelToolResult {
	constructor(readonly content: unknown[]) {}
}
export class TabInputText {
	constructor(readonly uri: URI) {}
}
export class TabInputTextDiff {
	constructor(
		readonly original: URI,
		readonly modified: URI,
	) {}
}
export class TabInputWebview {
	constructor(readonly viewType: string) {}
}
export class TabInputCustom {
	constructor(
		readonly uri: URI,
		readonly viewType: string,
	) {}
}

/** As the extension host's: the name says the code (`FileNotFound (FileSystemError)`), `code` too. */
export class FileSystemError extends Error {
	static FileNotFound = (m?: string | URI): FileSystemError => new FileSystemError(m, 'FileNotFound');
	static FileExists = (m?: string | URI): FileSystemError => new FileSystemError(m, 'FileExists');
	static FileNotADirectory = (m?: string | URI): FileSystemError => new FileSystemError(m, 'FileNotADirectory');
	static FileIsADirectory = (m?: string | URI): FileSystemError => new FileSystemError(m, 'FileIsADirectory');
	static NoPermissions = (m?: string | URI): FileSystemError => new FileSystemError(m, 'NoPermissions');
	static Unavailable = (m?: string | URI): FileSystemError => new FileSystemError(m, 'Unavailable');
	constructor(
		messageOrUri?: string | URI,
		readonly code = 'Unknown',
	) {
		super(URI.isUri(messageOrUri) ? messageOrUri.toString(true) : (messageOrUri ?? ''));
		this.name = `${code} (FileSystemError)`;
	}
}

export enum FileType {
	Unknown = 0,
	File = 1,
	Directory = 2,
	SymbolicLink = 64,
}
export enum FilePermission {
	Readonly = 1,
}
export enum FileChangeType {
	Changed = 1,
	Created = 2,
	Deleted = 3,
}
export enum ProgressLocation {
	SourceControl = 1,
	Window = 10,
	Notification = 15,
}
export enum StatusBarAlignment {
	Left = 1,
	Right = 2,
}
export enum ViewColumn {
	Active = -1,
	Beside = -2,
	One = 1,
	Two = 2,
}
export enum ConfigurationTarget {
	Global = 1,
	Workspace = 2,
	WorkspaceFolder = 3,
}
export enum QuickPickItemKind {
	Separator = -1,
	Default = 0,
}
export enum InputBoxValidationSeverity {
	Info = 1,
	Warning = 2,
	Error = 3,
}
export enum UIKind {
	Desktop = 1,
	Web = 2,
}
export enum EndOfLine {
	LF = 1,
	CRLF = 2,
}
export const QuickInputButtons = { Back: { iconPath: new ThemeIcon('arrow-left') } };
export const version = '1.99.0-fake';

// ---- l10n: VS Code's formatting of `{0}` and `{name}` ------------------------------------------

export const l10n = {
	t(message: string | { message: string; args?: unknown[] | Record<string, unknown> }, ...rest: unknown[]): string {
		const text = typeof message === 'string' ? message : message.message;
		const args: unknown[] | Record<string, unknown> =
			typeof message === 'string'
				? rest.length === 1 && rest[0] !== null && typeof rest[0] === 'object' && !Array.isArray(rest[0])
					? (rest[0] as Record<string, unknown>)
					: rest
				: (message.args ?? []);
		return text.replace(/\{([^}]+)\}/g, (whole, key: string) => {
			const value = Array.isArray(args) ? args[Number(key)] : args[key];
			return value === undefined ? whole : typeof value === 'object' ? JSON.stringify(value) : `${value as string}`;
		});
	},
	bundle: undefined,
	uri: undefined,
};

// ---- namespaces: recorded calls, answers a test sets -------------------------------------------

type Fn = (...args: never[]) => unknown;
const recorded = new Map<string, unknown[][]>();
const answers = new Map<string, Fn>();

/** A namespace function `name` (`'window.showQuickPick'`): records each call, then answers. */
function recorder(name: string, fallback: Fn = () => undefined): Fn {
	return (...args: never[]) => {
		const list = recorded.get(name) ?? [];
		list.push(args);
		recorded.set(name, list);
		return (answers.get(name) ?? fallback)(...args);
	};
}

/** A namespace whose unknown names throw when read, naming themselves. */
function namespace<T extends object>(name: string, members: T): T {
	return new Proxy(members, {
		get(target, key, receiver) {
			if (typeof key === 'symbol' || key in target || key === 'then' || key === 'toJSON') {
				return Reflect.get(target, key, receiver) as unknown;
			}
			throw new Error(`vscode fake: ${name}.${key} is not implemented — add it to test/unit/support/vscodeFake.ts`);
		},
	});
}

const events = {
	configuration: new EventEmitter<{ affectsConfiguration(section: string): boolean }>(),
	folders: new EventEmitter<unknown>(),
	openDoc: new EventEmitter<unknown>(),
	closeDoc: new EventEmitter<unknown>(),
	changeDoc: new EventEmitter<unknown>(),
	saveDoc: new EventEmitter<unknown>(),
	willSaveDoc: new EventEmitter<unknown>(),
	sessions: new EventEmitter<unknown>(),
	activeEditor: new EventEmitter<unknown>(),
	tabs: new EventEmitter<unknown>(),
	windowState: new EventEmitter<unknown>(),
};

const registered = new Map<string, (...args: unknown[]) => unknown>();

/** An in-memory `workspace.fs` (files by URI string). */
const files = new Map<string, Uint8Array>();
const memoryFs = {
	async readFile(uri: URI): Promise<Uint8Array> {
		const data = files.get(uri.toString());
		if (!data) {
			throw FileSystemError.FileNotFound(uri);
		}
		return data;
	},
	async writeFile(uri: URI, content: Uint8Array): Promise<void> {
		files.set(uri.toString(), content);
	},
	async delete(uri: URI): Promise<void> {
		const key = uri.toString();
		const below = [...files.keys()].filter((k) => k === key || k.startsWith(`${key}/`));
		if (below.length === 0) {
			throw FileSystemError.FileNotFound(uri);
		}
		below.forEach((k) => files.delete(k));
	},
	async rename(from: URI, to: URI, options?: { overwrite?: boolean }): Promise<void> {
		const data = await memoryFs.readFile(from);
		if (files.has(to.toString()) && !options?.overwrite) {
			throw FileSystemError.FileExists(to);
		}
		files.delete(from.toString());
		files.set(to.toString(), data);
	},
	async stat(uri: URI): Promise<{ type: FileType; size: number; ctime: number; mtime: number }> {
		const key = uri.toString();
		const data = files.get(key);
		if (data) {
			return { type: FileType.File, size: data.byteLength, ctime: 0, mtime: 0 };
		}
		if ([...files.keys()].some((k) => k.startsWith(`${key}/`))) {
			return { type: FileType.Directory, size: 0, ctime: 0, mtime: 0 };
		}
		throw FileSystemError.FileNotFound(uri);
	},
	async readDirectory(uri: URI): Promise<[string, FileType][]> {
		const prefix = `${uri.toString()}/`;
		const names = new Map<string, FileType>();
		for (const k of files.keys()) {
			if (k.startsWith(prefix)) {
				const [first, ...more] = k.slice(prefix.length).split('/');
				names.set(first!, more.length ? FileType.Directory : FileType.File);
			}
		}
		return [...names];
	},
	async createDirectory(): Promise<void> {},
	isWritableFileSystem: (): boolean => true,
};

export const window = namespace('window', {
	showInformationMessage: recorder('window.showInformationMessage'),
	showWarningMessage: recorder('window.showWarningMessage'),
	showErrorMessage: recorder('window.showErrorMessage'),
	showQuickPick: recorder('window.showQuickPick'),
	showInputBox: recorder('window.showInputBox'),
	showOpenDialog: recorder('window.showOpenDialog'),
	showSaveDialog: recorder('window.showSaveDialog'),
	showTextDocument: recorder('window.showTextDocument'),
	setStatusBarMessage: recorder('window.setStatusBarMessage', () => new Disposable(() => undefined)),
	withProgress: recorder('window.withProgress', async (_options: unknown, task: (p: unknown, t: unknown) => unknown) =>
		task({ report: recorder('progress.report') }, new CancellationTokenSource().token),
	),
	createOutputChannel: recorder('window.createOutputChannel', (name: string) => fakeChannel(name)),
	createStatusBarItem: recorder('window.createStatusBarItem', () => ({
		text: '',
		tooltip: undefined,
		command: undefined,
		show() {},
		hide() {},
		dispose() {},
	})),
	createTreeView: recorder('window.createTreeView'),
	createQuickPick: recorder('window.createQuickPick'),
	createInputBox: recorder('window.createInputBox'),
	createWebviewPanel: recorder('window.createWebviewPanel'),
	registerWebviewPanelSerializer: recorder('window.registerWebviewPanelSerializer', () => new Disposable(() => undefined)),
	registerFileDecorationProvider: recorder('window.registerFileDecorationProvider', () => new Disposable(() => undefined)),
	activeTextEditor: undefined,
	visibleTextEditors: [] as unknown[],
	onDidChangeActiveTextEditor: events.activeEditor.event,
	onDidChangeWindowState: events.windowState.event,
	state: { focused: true },
	tabGroups: { all: [] as unknown[], onDidChangeTabs: events.tabs.event, close: recorder('window.tabGroups.close') },
});

export const commands = namespace('commands', {
	registerCommand: recorder('commands.registerCommand', (id: string, fn: (...args: unknown[]) => unknown) => {
		if (registered.has(id)) {
			throw new Error(`command '${id}' already exists`);
		}
		registered.set(id, fn);
		return new Disposable(() => registered.delete(id));
	}),
	executeCommand: recorder('commands.executeCommand', async (id: string, ...args: unknown[]) => registered.get(id)?.(...args)),
	getCommands: async (): Promise<string[]> => [...registered.keys()],
});

/** The settings `workspace.getConfiguration` reads, by full key (`'cloudAgents.apiUrl'`). */
export const settings: Record<string, unknown> = {};

export const workspace = namespace('workspace', {
	getConfiguration: (section?: string) => {
		const full = (key: string): string => (section ? `${section}.${key}` : key);
		return {
			get: <T>(key: string, fallback?: T): T | undefined => (full(key) in settings ? (settings[full(key)] as T) : fallback),
			has: (key: string): boolean => full(key) in settings,
			inspect: (key: string) => ({ key: full(key), globalValue: settings[full(key)] }),
			update: recorder('workspace.configuration.update', async (key: string, value: unknown) => {
				settings[full(key)] = value;
			}),
		};
	},
	onDidChangeConfiguration: events.configuration.event,
	onDidChangeWorkspaceFolders: events.folders.event,
	onDidOpenTextDocument: events.openDoc.event,
	onDidCloseTextDocument: events.closeDoc.event,
	onDidChangeTextDocument: events.changeDoc.event,
	onDidSaveTextDocument: events.saveDoc.event,
	onWillSaveTextDocument: events.willSaveDoc.event,
	workspaceFolders: undefined as unknown[] | undefined,
	workspaceFile: undefined as URI | undefined,
	textDocuments: [] as unknown[],
	fs: memoryFs,
	openTextDocument: recorder('workspace.openTextDocument'),
	applyEdit: recorder('workspace.applyEdit', async () => true),
	updateWorkspaceFolders: recorder('workspace.updateWorkspaceFolders', () => true),
	registerFileSystemProvider: recorder('workspace.registerFileSystemProvider', () => new Disposable(() => undefined)),
	registerTextDocumentContentProvider: recorder('workspace.registerTextDocumentContentProvider', () => new Disposable(() => undefined)),
	createFileSystemWatcher: recorder('workspace.createFileSystemWatcher'),
});

export const env = namespace('env', {
	clipboard: {
		readText: recorder('env.clipboard.readText', async () => clipboardText.value),
		writeText: recorder('env.clipboard.writeText', async (t: string) => void (clipboardText.value = t)),
	},
	openExternal: recorder('env.openExternal', async () => true),
	asExternalUri: recorder('env.asExternalUri', async (u: URI) => u),
	language: 'en',
	appName: 'Visual Studio Code (fake)',
	uiKind: UIKind.Desktop,
	machineId: 'fake-machine',
	sessionId: 'fake-session',
});
const clipboardText = { value: '' };

export const authentication = namespace('authentication', {
	getSession: recorder('authentication.getSession'),
	registerAuthenticationProvider: recorder('authentication.registerAuthenticationProvider', () => new Disposable(() => undefined)),
	onDidChangeSessions: events.sessions.event,
});
export const scm = namespace('scm', { createSourceControl: recorder('scm.createSourceControl') });
export const languages = namespace('languages', {
	setTextDocumentLanguage: recorder('languages.setTextDocumentLanguage'),
	createDiagnosticCollection: recorder('languages.createDiagnosticCollection'),
});
export const lm = namespace('lm', {
	tools: [] as unknown[],
	registerTool: recorder('lm.registerTool', () => new Disposable(() => undefined)),
});

/** An output channel that keeps its lines (`fake.channels.get(name).lines`). */
export interface FakeChannel {
	name: string;
	lines: string[];
	[key: string]: unknown;
}
export const channels = new Map<string, FakeChannel>();
function fakeChannel(name: string): FakeChannel {
	const lines: string[] = [];
	const log =
		(level: string) =>
		(message: string, ...rest: unknown[]) =>
			lines.push(`[${level}] ${[message, ...rest.map(String)].join(' ')}`);
	const channel: FakeChannel = {
		name,
		lines,
		append: (s: string) => lines.push(s),
		appendLine: (s: string) => lines.push(s),
		replace: (s: string) => lines.splice(0, lines.length, s),
		clear: () => lines.splice(0),
		show: () => undefined,
		hide: () => undefined,
		dispose: () => channels.delete(name),
		trace: log('trace'),
		debug: log('debug'),
		info: log('info'),
		warn: log('warning'),
		error: log('error'),
		logLevel: 2,
		onDidChangeLogLevel: new EventEmitter<number>().event,
	};
	channels.set(name, channel);
	return channel;
}

// ---- the test's handle -------------------------------------------------------------------------

/** The calls of `name` so far, each its arguments. */
export function calls(name: string): unknown[][] {
	return recorded.get(name) ?? [];
}

/** Answers `name` with `fn` until the test ends. */
export function answer(name: string, fn: Fn): void {
	answers.set(name, fn);
}

/** Runs a registered command as VS Code would. */
export function registeredCommand(id: string): ((...args: unknown[]) => unknown) | undefined {
	return registered.get(id);
}

/** Fires `workspace.onDidChangeConfiguration` for `keys` (full keys) after setting them. */
export function changeSettings(values: Record<string, unknown>): void {
	Object.assign(settings, values);
	const keys = Object.keys(values);
	events.configuration.fire({ affectsConfiguration: (section) => keys.some((k) => k === section || k.startsWith(`${section}.`)) });
}

export const fire = events;

/** The files of the in-memory `workspace.fs`, by URI string. */
export const memoryFiles = files;

const windowDefaults = { activeTextEditor: undefined, visibleTextEditors: [], state: { focused: true } };
const workspaceDefaults = { workspaceFolders: undefined, workspaceFile: undefined, textDocuments: [] };

/** Puts the fake back as it started: a root `afterEach` calls it after every unit test. */
export function resetFake(): void {
	recorded.clear();
	answers.clear();
	registered.clear();
	files.clear();
	channels.clear();
	clipboardText.value = '';
	for (const key of Object.keys(settings)) {
		delete settings[key];
	}
	Object.assign(window, { ...windowDefaults, visibleTextEditors: [] });
	window.tabGroups.all = [];
	Object.assign(workspace, { ...workspaceDefaults, textDocuments: [] });
	for (const e of Object.values(events)) {
		e.dispose();
	}
}

// ---- added for views (quick inputs) ----

/**
 * What a QuickPick and an InputBox share, as the fake gives them: the properties the code under test
 * sets, and what a person does (`hide`, `trigger` a button, `type`, Enter). As in VS Code, hiding a
 * shown input fires `onDidHide` once, and disposing a shown one hides it. `until(predicate)` waits for
 * something the code sets: it checks now and after every property set on the input.
 */
abstract class FakeQuickInput {
	title: string | undefined;
	step: number | undefined;
	totalSteps: number | undefined;
	placeholder: string | undefined;
	value = '';
	buttons: readonly unknown[] = [];
	busy = false;
	enabled = true;
	ignoreFocusOut = false;
	shown = false;
	disposed = false;
	private readonly checks = new Set<() => void>();
	protected readonly accepted = new EventEmitter<void>();
	private readonly hidden = new EventEmitter<void>();
	private readonly triggered = new EventEmitter<unknown>();
	private readonly changed = new EventEmitter<string>();
	readonly onDidAccept = this.accepted.event;
	readonly onDidHide = this.hidden.event;
	readonly onDidTriggerButton = this.triggered.event;
	readonly onDidChangeValue = this.changed.event;
	constructor() {
		// Every property set (by the code under test or the test) runs the pending `until` checks.
		return new Proxy(this, {
			set: (target, name, value): boolean => {
				Reflect.set(target, name, value);
				for (const check of [...target.checks]) {
					check();
				}
				return true;
			},
		});
	}
	/** Resolves when `predicate` holds (checked now and after every property set). */
	until(predicate: () => boolean): Promise<void> {
		return new Promise((resolve) => {
			const check = (): void => {
				if (predicate()) {
					this.checks.delete(check);
					resolve();
				}
			};
			this.checks.add(check);
			check();
		});
	}
	show(): void {
		this.shown = true;
	}
	hide(): void {
		if (this.shown) {
			this.shown = false;
			this.hidden.fire();
		}
	}
	dispose(): void {
		this.disposed = true;
		this.hide();
	}
	/** A person presses `button` (one of `buttons`, or Back). */
	trigger(button: unknown): void {
		this.triggered.fire(button);
	}
	/** The one of `buttons` whose tooltip is `tooltip` (throws, naming those there, when none is). */
	button(tooltip: string): unknown {
		const tooltips = this.buttons.map((b) => (b as { tooltip?: string }).tooltip);
		const at = tooltips.indexOf(tooltip);
		if (at < 0) {
			throw new Error(`no button "${tooltip}" among ${tooltips.join(', ')}`);
		}
		return this.buttons[at];
	}
	/** A person types `value` (replacing what was there). */
	type(value: string): void {
		this.value = value;
		this.changed.fire(value);
	}
}

/** An item of a QuickPick, as far as the fake reads one. */
export interface QuickPickItem {
	label: string;
	description?: string;
	detail?: string;
}

/**
 * A QuickPick as `window.createQuickPick` gives it, driven by the test: answer
 * `window.createQuickPick` with `() => new FakeQuickPick()` (or keep the instance to drive it), then
 * `accept(item)`, `hide()`, `trigger(button)`, `triggerItem(item, button)`, `type(value)`.
 */
export class FakeQuickPick<T extends { label: string } = QuickPickItem> extends FakeQuickInput {
	items: readonly T[] = [];
	activeItems: readonly T[] = [];
	selectedItems: readonly T[] = [];
	matchOnDetail = false;
	matchOnDescription = false;
	keepScrollPosition = false;
	private readonly itemTriggered = new EventEmitter<{ item: T; button: unknown }>();
	readonly onDidTriggerItemButton = this.itemTriggered.event;
	readonly onDidChangeActive = new EventEmitter<readonly T[]>().event;
	readonly onDidChangeSelection = new EventEmitter<readonly T[]>().event;
	/** Enter on `item` (selected), or on nothing selected when undefined. */
	accept(item?: T): void {
		this.selectedItems = item === undefined ? [] : [item];
		this.accepted.fire();
	}
	/** A person presses `button` of `item`'s row. */
	triggerItem(item: T, button: unknown): void {
		this.itemTriggered.fire({ item, button });
	}
}

/** An InputBox as `window.createInputBox` gives it, driven by the test (`type`, `accept`, `hide`, `trigger`). */
export class FakeInputBox extends FakeQuickInput {
	prompt: string | undefined;
	password = false;
	validationMessage: string | { message: string; severity: number } | undefined;
	/** A person presses Enter. */
	accept(): void {
		this.accepted.fire();
	}
}

/**
 * Answers `window.createQuickPick` and `window.createInputBox` with fakes (until the test ends);
 * `picks` and `boxes` hold those created, in order, and `nextPick()`/`nextBox()` give the next one
 * not yet taken (waiting for it to be created).
 */
export function installQuickInputs<T extends { label: string } = QuickPickItem>(): {
	picks: FakeQuickPick<T>[];
	boxes: FakeInputBox[];
	nextPick(): Promise<FakeQuickPick<T>>;
	nextBox(): Promise<FakeInputBox>;
} {
	const picks = made('window.createQuickPick', () => new FakeQuickPick<T>());
	const boxes = made('window.createInputBox', () => new FakeInputBox());
	return { picks: picks.all, boxes: boxes.all, nextPick: picks.next, nextBox: boxes.next };
}

/** Answers `name` with `create()`; `all` holds what was created, `next()` the next one not yet taken. */
function made<I>(name: string, create: () => I): { all: I[]; next: () => Promise<I> } {
	const all: I[] = [];
	const waiting: Array<(input: I) => void> = [];
	let taken = 0;
	answer(name, () => {
		const input = create();
		all.push(input);
		waiting.splice(0).forEach((w) => w(input));
		return input;
	});
	return {
		all,
		next: () =>
			all.length > taken ? Promise.resolve(all[taken++]!) : new Promise((r) => waiting.push((input) => (taken++, r(input)))),
	};
}

// ---- added for workspace (openWorkspace, agentWindow) ----
// `readDirectory` gave the names as they stand in the URI strings (`Old%20name.code-workspace`);
// VS Code gives them decoded (`Old name.code-workspace`), so joining one to its folder names the file.
{
	const encodedNames = memoryFs.readDirectory.bind(memoryFs);
	memoryFs.readDirectory = async (uri: URI): Promise<[string, FileType][]> =>
		(await encodedNames(uri)).map(([name, type]): [string, FileType] => [decodeURIComponent(name), type]);
}

// ---- added for changes (Apply to Local: file operations of a WorkspaceEdit) ----
/** A file operation of a `WorkspaceEdit` (createFile, deleteFile), as recorded. */
export interface FileOperation {
	op: 'create' | 'delete';
	uri: URI;
	options: { overwrite?: boolean; ignoreIfNotExists?: boolean; ignoreIfExists?: boolean; contents?: Uint8Array };
	metadata?: unknown;
}
Object.assign(WorkspaceEdit.prototype, {
	createFile(
		this: WorkspaceEdit & { fileOperations?: FileOperation[] },
		uri: URI,
		options: FileOperation['options'] = {},
		metadata?: unknown,
	): void {
		(this.fileOperations ??= []).push({ op: 'create', uri, options, metadata });
	},
	deleteFile(
		this: WorkspaceEdit & { fileOperations?: FileOperation[] },
		uri: URI,
		options: FileOperation['options'] = {},
		metadata?: unknown,
	): void {
		(this.fileOperations ??= []).push({ op: 'delete', uri, options, metadata });
	},
});

// ---- added for auth (a SecretStorage a test makes: src/auth/session.ts and its users) ----
/** An in-memory `vscode.SecretStorage`: `onDidChange` fires on store and delete, as VS Code's does (also for another window's). */
export class FakeSecretStorage {
	readonly values = new Map<string, string>();
	/** How many times each key was read. */
	readonly reads = new Map<string, number>();
	private readonly changed = new EventEmitter<{ key: string }>();
	readonly onDidChange = this.changed.event;
	async get(key: string): Promise<string | undefined> {
		this.reads.set(key, (this.reads.get(key) ?? 0) + 1);
		return this.values.get(key);
	}
	async store(key: string, value: string): Promise<void> {
		this.values.set(key, value);
		this.changed.fire({ key });
	}
	async delete(key: string): Promise<void> {
		this.values.delete(key);
		this.changed.fire({ key });
	}
	async keys(): Promise<string[]> {
		return [...this.values.keys()];
	}
	/** Another window stored (or, `undefined`, deleted) the value of `key`. */
	changeElsewhere(key: string, value: string | undefined): void {
		if (value === undefined) {
			this.values.delete(key);
		} else {
			this.values.set(key, value);
		}
		this.changed.fire({ key });
	}
}

// ---- added for shell (activation's stand-ins: src/shell/standIns.ts) ----

export enum ExtensionMode {
	Production = 1,
	Development = 2,
	Test = 3,
}
