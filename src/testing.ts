/**
 * The test harness's seams: commands that are not contributed, registered only when the extension
 * runs under the harness (scripts/test-integration.mjs and scripts/test-desktop.mjs set
 * CLOUD_AGENTS_TEST_REPORT). Everything the integration and UI tests reach that a user cannot is
 * here, in one place:
 * - `_cloudAgents.views.rows(key, parentRowId?)`: a view's rows as plain data;
 * - `_cloudAgents.views.click(key, rowId, parentRowId?)`: a row's default action, as a click runs it;
 * - `_cloudAgents.views.selectAgent(agentId?)`: the agent the Runs and Artifacts views follow;
 * - `_cloudAgents.views.restoreAgent(agentId)`: selects the agent as a reload restores the selection it kept;
 * - `_cloudAgents.workspace.clearCache()`: the `cloud-agent:` file system starts from an empty cache;
 * - `_cloudAgents.views.runOnRow(key, rowId, command, options?, parentRowId?)`: a command on a row, as its context menu runs it;
 * - `_cloudAgents.window.messages()`: the messages (information, warning, error) shown so far, in order;
 * - `_cloudAgents.workspace.retry(agentId?)`: asks an agent's workspace interface again;
 * - `_cloudAgents.workspace.resetSearchHint()`: the once-per-machine search hint may show again;
 * - `_cloudAgents.chat.prepare(toolName, input)`: a language-model tool's `prepareInvocation` as plain
 *   data (`vscode.lm.invokeTool` shows its confirmation only as a dialog, outside any chat).
 * The workspace feature loads with the commands, on first use: until it has, there is no cache to
 * clear; of the workspace seams only resetSearchHint loads it.
 * And what the tests read from `activate`'s result (`TestRecorder`: notifications and prompts shown).
 *
 * The seams read what they report through the interfaces the features themselves use: a view's rows
 * through its `TreeDataProvider` (as VS Code draws them), a message through `vscode.window` (as the
 * user sees it), the search hint's "shown" mark through the global state it is kept in.
 */
import * as vscode from 'vscode';
import { SAFETY } from './base/limits';
import type { WorkspaceFeature } from './workspace/workspaceFeature';
import type { ToolHandlers } from './chat/lazyTools';
import { type CloudAgentViews, RecordNode } from './views';
import type { AnyListDescriptor } from './views/descriptor';
import { RUN_NOTIFIED_KEY, SEARCH_HINT_KEY, TEST_HARNESS_ENV } from './ids';
import { workbenchShowsChannel } from './util/outputChannels';

/** The environment variable the harness sets; without it no seam is registered. */
export { TEST_HARNESS_ENV };

/** Whether the extension runs under the test harness. */
export function underTestHarness(): boolean {
	return process.env[TEST_HARNESS_ENV] !== undefined;
}

/** The environment variable that points GitHub lookups (Create Agent's owner/name) at a stub; read only under the harness. */
export const GITHUB_API_URL_ENV = 'CLOUD_AGENTS_GITHUB_API_URL';

/** The GitHub REST API base the tests set (GITHUB_API_URL_ENV, read at each lookup), else undefined (GitHub's own). */
export function githubApiUrlForTests(): string | undefined {
	return underTestHarness() ? process.env[GITHUB_API_URL_ENV] || undefined : undefined;
}

/** A function of `vscode.window` as the recorder wraps it. */
type WindowFunction = (...args: unknown[]) => unknown;

/** A Source Control row as shown: its group's id, the file's URI, its context value and tooltip. */
export interface ScmRowSnapshot {
	group: string;
	uri: string;
	contextValue: string | undefined;
	tooltip: string | undefined;
}

/** A status bar item as shown: its text, tooltip and command id. */
export interface StatusBarSnapshot {
	text: string;
	tooltip: string;
	command: string | undefined;
}

/**
 * What the user saw, recorded where the extension shows it (its own `vscode.window`: other
 * extensions' messages and items are not seen), read by the tests through the test API
 * (`activate`'s result): the messages shown, the output channels open, the status bar items as
 * shown. Installed before anything is created (`startRecording`); undone on dispose.
 */
export class TestRecorder {
	/** Every message shown (information, warning, error), in order. */
	readonly messages: ShownMessage[] = [];
	/**
	 * The names of the output channels the extension disposed while the workbench's Output view
	 * showed them (it may then still be applying an append: "Model is disposed!"), in order.
	 */
	readonly channelsDisposedWhileShown: string[] = [];
	private readonly channels = new Set<vscode.OutputChannel>();
	private readonly items = new Map<string, { item: vscode.StatusBarItem; visible: boolean }>();
	private readonly controls = new Map<string, { groups: vscode.SourceControlResourceGroup[] }>();
	private readonly undo: Array<() => void> = [];

	constructor(private readonly globalState: vscode.Memento) {}

	/** The names of the output channels the extension created after recording started and has not disposed, oldest first. */
	outputChannels(): string[] {
		return [...this.channels].map((c) => c.name);
	}

	/** The status bar item of this id as shown, or undefined while hidden. */
	statusBarItem(id: string): StatusBarSnapshot | undefined {
		const entry = this.items.get(id);
		if (!entry?.visible) {
			return undefined;
		}
		const { item } = entry;
		return {
			text: item.text,
			tooltip: typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? ''),
			command: typeof item.command === 'string' ? item.command : item.command?.command,
		};
	}

	/** Whether the end of this run was announced (in any window): the run follower's mark in global state. */
	wasNotified(runId: string): boolean {
		const notified = this.globalState.get<unknown>(RUN_NOTIFIED_KEY);
		return Array.isArray(notified) && notified.includes(runId);
	}

	/** Wraps a function of the extension's `vscode.window` or `vscode.scm`; undone by `dispose`. */
	wrap(
		name:
			| 'showInformationMessage'
			| 'showWarningMessage'
			| 'showErrorMessage'
			| 'createOutputChannel'
			| 'createStatusBarItem'
			| 'createSourceControl',
		wrapper: (original: WindowFunction) => WindowFunction,
	): void {
		const target = (name === 'createSourceControl' ? vscode.scm : vscode.window) as unknown as Record<string, WindowFunction>;
		const original = target[name] as WindowFunction;
		target[name] = wrapper(original);
		this.undo.push(() => {
			target[name] = original;
		});
	}

	/**
	 * The rows a source control of the extension shows now, by its id, group by group in the order
	 * the groups were created; undefined for no such source control (or one disposed).
	 */
	scmRows(id: string): ScmRowSnapshot[] | undefined {
		const control = this.controls.get(id);
		if (!control) {
			return undefined;
		}
		return control.groups.flatMap((group) =>
			group.resourceStates.map((state) => ({
				group: group.id,
				uri: state.resourceUri.toString(),
				contextValue: state.contextValue,
				tooltip: state.decorations?.tooltip,
			})),
		);
	}

	trackControl(control: vscode.SourceControl): void {
		const entry = { groups: [] as vscode.SourceControlResourceGroup[] };
		this.controls.set(control.id, entry);
		const createGroup = control.createResourceGroup.bind(control);
		control.createResourceGroup = (id: string, label: string): vscode.SourceControlResourceGroup => {
			const group = createGroup(id, label);
			entry.groups.push(group);
			return group;
		};
		const dispose = control.dispose.bind(control);
		control.dispose = (): void => {
			if (this.controls.get(control.id) === entry) {
				this.controls.delete(control.id);
			}
			dispose();
		};
	}

	track(channel: vscode.OutputChannel): void {
		this.channels.add(channel);
		const dispose = channel.dispose.bind(channel);
		channel.dispose = (): void => {
			if (this.channels.delete(channel) && workbenchShowsChannel(channel.name)) {
				this.channelsDisposedWhileShown.push(channel.name);
			}
			dispose();
		};
	}

	trackItem(id: string | undefined, item: vscode.StatusBarItem): void {
		if (id === undefined) {
			return;
		}
		const entry = { item, visible: false };
		this.items.set(id, entry);
		const show = item.show.bind(item);
		const hide = item.hide.bind(item);
		const dispose = item.dispose.bind(item);
		item.show = (): void => {
			entry.visible = true;
			show();
		};
		item.hide = (): void => {
			entry.visible = false;
			hide();
		};
		item.dispose = (): void => {
			entry.visible = false;
			dispose();
		};
	}

	dispose(): void {
		for (const undo of this.undo.splice(0).reverse()) {
			undo();
		}
	}
}

/**
 * Starts recording what the extension shows (under the harness or in development, where `activate`
 * returns the test API; else undefined): messages, output channels and status bar items created
 * from now on.
 */
export function startRecording(context: vscode.ExtensionContext): TestRecorder | undefined {
	if (!underTestHarness() && context.extensionMode === vscode.ExtensionMode.Production) {
		return undefined;
	}
	const recorder = new TestRecorder(context.globalState);
	for (const [severity, name] of Object.entries(SHOW) as Array<[ShownMessage['severity'], (typeof SHOW)[ShownMessage['severity']]]>) {
		recorder.wrap(name, (show) => (text, ...rest) => {
			const items = rest.flatMap((item) => (typeof item === 'string' ? [item] : isMessageItem(item) ? [item.title] : []));
			recorder.messages.push({ severity, text: String(text), items });
			return show.call(vscode.window, text, ...rest);
		});
	}
	recorder.wrap('createOutputChannel', (create) => (...args) => {
		const channel = create.apply(vscode.window, args) as vscode.OutputChannel;
		recorder.track(channel);
		return channel;
	});
	recorder.wrap('createSourceControl', (create) => (...args) => {
		const control = create.apply(vscode.scm, args) as vscode.SourceControl;
		recorder.trackControl(control);
		return control;
	});
	recorder.wrap('createStatusBarItem', (create) => (...args) => {
		const item = create.apply(vscode.window, args) as vscode.StatusBarItem;
		recorder.trackItem(typeof args[0] === 'string' ? args[0] : undefined, item);
		return item;
	});
	return recorder;
}

/** A row as the seam `_cloudAgents.views.rows` returns it: plain data, no class instances. */
export interface RowSnapshot {
	id: string | undefined;
	label: string;
	description: string | undefined;
	contextValue: string | undefined;
	tooltip: string | undefined;
	icon: string | undefined;
	command: string | undefined;
}

/** A message shown to the user (the seam `_cloudAgents.window.messages`): its severity, its text and its buttons. */
export interface ShownMessage {
	severity: 'information' | 'warning' | 'error';
	text: string;
	items: string[];
}

/** What the seams reach. */
export interface TestSeamDeps {
	views: CloudAgentViews;
	/** Every list of the extension (src/resources), to find a view's by its key. */
	lists: readonly AnyListDescriptor[];
	/** Where the search hint's "shown" mark is kept (the extension's global state). */
	globalState: vscode.Memento;
	/** The list whose selection `_cloudAgents.views.selectAgent` sets (the Agents list). */
	agents: AnyListDescriptor;
	/** The commands loaded on first use, with the agent workspace (`workspace` of what they load). */
	features: { load(): LoadedForSeams; readonly current: LoadedForSeams | undefined };
	/** What the extension showed (startRecording); undefined outside the harness and development. */
	recorder: TestRecorder | undefined;
}

/** What the seams use of the loaded features (src/shell/lazy.ts `LoadedFeatures`). */
export interface LoadedForSeams {
	readonly workspace: Pick<WorkspaceFeature, 'cache' | 'retryInterface'>;
	readonly chatTools: ToolHandlers;
}

/** Registers the seams (only under the harness); the caller owns the disposables. */
export function registerTestSeams(deps: TestSeamDeps): vscode.Disposable[] {
	const { features, recorder } = deps;
	if (!underTestHarness() || !recorder) {
		return [];
	}
	const rowsOf = (key: string): vscode.TreeDataProvider<vscode.TreeItem> => viewRows(deps, key);
	return [
		vscode.commands.registerCommand('_cloudAgents.views.rows', (key: string, parentRowId?: string, options?: { asShown?: boolean }) =>
			rowSnapshots(key, rowsOf(key), parentRowId, options),
		),
		vscode.commands.registerCommand('_cloudAgents.views.click', (key: string, rowId: string, parentRowId?: string) =>
			click(key, rowsOf(key), rowId, parentRowId),
		),
		vscode.commands.registerCommand(
			'_cloudAgents.views.runOnRow',
			(key: string, rowId: string, command: string, options?: Record<string, unknown>, parentRowId?: string) =>
				runOnRow(key, rowsOf(key), rowId, command, options, parentRowId),
		),
		vscode.commands.registerCommand('_cloudAgents.window.messages', () => recorder.messages.slice()),
		vscode.commands.registerCommand('_cloudAgents.views.selectAgent', (agentId: string | undefined) =>
			deps.views.selectById(deps.agents, agentId),
		),
		vscode.commands.registerCommand('_cloudAgents.views.restoreAgent', (agentId: string) =>
			deps.views.restoreSelection(deps.agents, agentId),
		),
		vscode.commands.registerCommand('_cloudAgents.workspace.clearCache', () => features.current?.workspace.cache.clear()),
		vscode.commands.registerCommand('_cloudAgents.workspace.retry', (agentId?: string) =>
			features.current?.workspace.retryInterface(agentId),
		),
		// The hint shows once per machine: the mark goes, and the workspace feature is loaded to watch the folders.
		vscode.commands.registerCommand('_cloudAgents.workspace.resetSearchHint', async () => {
			await deps.globalState.update(SEARCH_HINT_KEY, undefined);
			features.load();
		}),
		vscode.commands.registerCommand('_cloudAgents.chat.prepare', async (name: string, input: unknown) => {
			const prepared = await features.load().chatTools.prepare(name, { input }, new vscode.CancellationTokenSource().token);
			const text = (m: string | vscode.MarkdownString | undefined): string | undefined => (typeof m === 'string' ? m : m?.value);
			return {
				invocationMessage: text(prepared?.invocationMessage),
				title: text(prepared?.confirmationMessages?.title),
				message: text(prepared?.confirmationMessages?.message),
			};
		}),
	];
}

/** The `vscode.window` function that shows a message of each severity. */
const SHOW = {
	information: 'showInformationMessage',
	warning: 'showWarningMessage',
	error: 'showErrorMessage',
} as const;

function isMessageItem(value: unknown): value is vscode.MessageItem {
	return typeof value === 'object' && value !== null && typeof (value as { title?: unknown }).title === 'string';
}

/** What draws a view's rows, by its list's key: a view's (list or group rows), else a list's own (a group of a view). */
function viewRows(deps: Pick<TestSeamDeps, 'views' | 'lists'>, key: string): vscode.TreeDataProvider<vscode.TreeItem> {
	const descriptor = deps.lists.find((d) => d.key === key);
	if (!descriptor) {
		throw new Error(`no view ${key}`);
	}
	return deps.views.viewOf(descriptor)?.rows ?? deps.views.providerOf(descriptor);
}

/** The rows of a tree as VS Code asks for them: the top rows, or those under a row given by id (searched breadth-first). */
async function childrenOf(
	key: string,
	tree: vscode.TreeDataProvider<vscode.TreeItem>,
	parentRowId: string | undefined,
): Promise<vscode.TreeItem[]> {
	const top = (await tree.getChildren()) ?? [];
	if (parentRowId === undefined) {
		return top;
	}
	const queue = [...top];
	for (let i = 0; i < queue.length && i < SAFETY.pageMaxItems; i++) {
		const node = queue[i]!;
		if (node.id === parentRowId) {
			return (await tree.getChildren(node)) ?? [];
		}
		if (node.collapsibleState !== undefined && node.collapsibleState !== vscode.TreeItemCollapsibleState.None) {
			queue.push(...((await tree.getChildren(node)) ?? []));
		}
	}
	throw new Error(`no row ${parentRowId} in ${key}`);
}

/** Whether rows are the rows as last loaded still waiting for their first answer (only marked records). */
function waitingForAnswer(nodes: readonly vscode.TreeItem[]): boolean {
	return nodes.length > 0 && nodes.every((n) => n instanceof RecordNode && n.cachedAt !== undefined);
}

/** How many redraws `rowSnapshots` waits through for a list's first answer. */
const MAX_REDRAWS = 100;

/**
 * The rows of a view as plain data, drawn as VS Code draws them (a tooltip built on request is built,
 * as a hover would). Rows as last loaded are read again once the list's first answer redraws it
 * (an error row then stands above them), unless `asShown`.
 */
async function rowSnapshots(
	key: string,
	tree: vscode.TreeDataProvider<vscode.TreeItem>,
	parentRowId?: string,
	options: { asShown?: boolean } = {},
): Promise<RowSnapshot[]> {
	let redraws = 0;
	let redrawn: () => void = () => undefined;
	const watch = tree.onDidChangeTreeData?.(() => {
		redraws++;
		redrawn();
	});
	try {
		let nodes = await childrenOf(key, tree, parentRowId);
		for (let seen = 0; !options.asShown && watch && waitingForAnswer(nodes) && seen < MAX_REDRAWS; seen = redraws) {
			if (redraws === seen) {
				await new Promise<void>((resolve) => (redrawn = resolve));
			}
			nodes = await childrenOf(key, tree, parentRowId);
		}
		return await Promise.all(nodes.map((n) => snapshotOf(tree, n)));
	} finally {
		watch?.dispose();
	}
}

/** One row as plain data. */
async function snapshotOf(tree: vscode.TreeDataProvider<vscode.TreeItem>, node: vscode.TreeItem): Promise<RowSnapshot> {
	let item = await tree.getTreeItem(node);
	if (item.tooltip === undefined && tree.resolveTreeItem) {
		item = (await tree.resolveTreeItem(item, node, new vscode.CancellationTokenSource().token)) ?? item;
	}
	const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
	const tooltip = item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : item.tooltip;
	const icon = item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined;
	return {
		id: item.id,
		label,
		description: typeof item.description === 'string' ? item.description : undefined,
		contextValue: item.contextValue,
		tooltip,
		icon,
		command: item.command?.command,
	};
}

/** Runs a row's default action as a click does: its `command` with its arguments; throws when the row has none. */
async function click(key: string, tree: vscode.TreeDataProvider<vscode.TreeItem>, rowId: string, parentRowId?: string): Promise<unknown> {
	for (const node of await childrenOf(key, tree, parentRowId)) {
		const item = await tree.getTreeItem(node);
		if (item.id === rowId && item.command) {
			return vscode.commands.executeCommand(item.command.command, ...((item.command.arguments as unknown[] | undefined) ?? []));
		}
	}
	throw new Error(`no row ${rowId} with a command in ${key}`);
}

/**
 * Runs a command on a row as its context menu does (the row as the argument), with `options` set on
 * it as an automation caller passes them: a top row, or one under the row `parentRowId` (a
 * deployment's root row).
 */
async function runOnRow(
	key: string,
	tree: vscode.TreeDataProvider<vscode.TreeItem>,
	rowId: string,
	command: string,
	options: Record<string, unknown> = {},
	parentRowId?: string,
): Promise<unknown> {
	const row = (await childrenOf(key, tree, parentRowId)).find((n) => n.id === rowId);
	if (!row) {
		throw new Error(`no row ${rowId} in ${key}`);
	}
	return vscode.commands.executeCommand(command, Object.assign(row, options));
}
