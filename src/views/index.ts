import * as vscode from 'vscode';
import { SAFETY, isTerminalRunStatus } from '../api';
import type { Agent, Artifact, CloudAgentsClient, Run, Runtime } from '../api';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import type { AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';
import { GroupedTreeProvider } from './groupTree';
import { DescriptorTreeProvider, RecordNode } from './listTree';
import type { ListHost } from './listTree';
import { LIST_DESCRIPTORS, agentsList, artifactsList, runsList, runtimesList } from './lists';
import type { AgentTarget, ArtifactTarget, RunTarget, RuntimeTarget } from './lists';

export { ACCOUNT_GROUPS, accountList, checkpointsList, imageBuildsList, imagesList, modelProvidersList } from './lists';
export {
	ARTIFACT_READ_CAP_BYTES,
	LIST_DESCRIPTORS,
	RECENT_AGENTS_KEY,
	agentsList,
	artifactKind,
	artifactsList,
	runsList,
	runtimeInTransition,
	runtimesList,
} from './lists';
export type { AgentTarget, ArtifactTarget, RunTarget, RuntimeTarget } from './lists';
export { DescriptorTreeProvider, RecordNode, pageSize } from './listTree';
export type { ActionKit, ActionSpec, AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';

/** What the views need from the session: sign-in state, its change event and the shared client. */
export interface ViewSession {
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
	readonly client: CloudAgentsClient;
}

/** A row as the test seam `_cloudAgents.views.rows` returns it: plain data, no class instances. */
export interface RowSnapshot {
	id: string | undefined;
	label: string;
	description: string | undefined;
	contextValue: string | undefined;
	tooltip: string | undefined;
	icon: string | undefined;
	command: string | undefined;
}

/** The key of a list (`agents`, `runs`, …: a descriptor's `key`), used by the test seams. */
export type ViewKey = string;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProvider = DescriptorTreeProvider<any, any, any>;

/**
 * The tree views of the Cloud Agents container, one per descriptor of the registry
 * (`LIST_DESCRIPTORS`, src/views/lists) that names a view id, each with the subtrees of the
 * descriptors nested under its rows. A list whose parent is a `selection` follows the record
 * selected in its parent's view (Runs and Artifacts follow the agent selected in Agents); each
 * list keeps its own paging, scroll and refresh.
 */
export class CloudAgentViews extends Disposable {
	private readonly providers = new Map<AnyListDescriptor, AnyProvider>();
	private readonly views = new Map<AnyListDescriptor, vscode.TreeView<vscode.TreeItem>>();
	private readonly flags = new Map<string, (key: string, parentKey: string | undefined) => boolean>();
	/** Views of group rows (`groups`), by their descriptor. */
	private readonly groupedViews = new Map<AnyListDescriptor, GroupedTreeProvider<unknown>>();
	private readonly client: () => CloudAgentsClient;
	/** What the descriptors' functions use: the client, other lists' records, flags. */
	readonly ctx: ListContext;

	constructor(session: ViewSession, log: vscode.LogOutputChannel, reportError: (err: unknown) => void) {
		super();
		const host: ListHost = {
			get signedIn() {
				return session.signedIn;
			},
			onDidChange: session.onDidChange,
			log,
			reportError,
		};
		const client = (): CloudAgentsClient => session.client;
		this.client = client;
		this.ctx = {
			client,
			lookup: <U>(descriptor: ListDescriptor<U, object, unknown>, key: string): U | undefined =>
				this.providers.get(descriptor)?.find(key) as U | undefined,
			flag: (name, key, parentKey) => this.flags.get(name)?.(key, parentKey) ?? false,
		};
		for (const descriptor of LIST_DESCRIPTORS) {
			if (descriptor.parent?.as === 'children' || descriptor.groups) {
				continue;
			}
			const children = LIST_DESCRIPTORS.filter((d) => d.parent?.as === 'children' && d.parent.of === descriptor);
			this.providers.set(descriptor, this.register(new DescriptorTreeProvider(descriptor, host, this.ctx, children)));
		}
		for (const [descriptor, provider] of this.providers) {
			if (descriptor.viewId) {
				const view = this.register(
					vscode.window.createTreeView(descriptor.viewId, { treeDataProvider: provider, showCollapseAll: false }),
				);
				provider.attach(view);
				this.views.set(descriptor, view);
			}
		}
		// Views of group rows (Account): each group is a list above, shown under its group row.
		for (const descriptor of LIST_DESCRIPTORS) {
			if (descriptor.groups && descriptor.viewId) {
				const lists = descriptor.groups.map((d) => this.providerOf(d));
				const grouped = this.register(
					new GroupedTreeProvider(
						descriptor as ListDescriptor<unknown, object, undefined>,
						this.ctx,
						lists,
						() => session.signedIn,
					),
				);
				const view = this.register(
					vscode.window.createTreeView(descriptor.viewId, { treeDataProvider: grouped, showCollapseAll: true }),
				);
				grouped.attach(view);
				this.groupedViews.set(descriptor, grouped);
			}
		}
		// Selecting a row drives the lists that follow its kind (Runs and Artifacts follow Agents).
		for (const [descriptor, view] of this.views) {
			if (LIST_DESCRIPTORS.some((d) => d.parent?.as === 'selection' && d.parent.of === descriptor)) {
				this.register(
					view.onDidChangeSelection((e) => {
						const node = e.selection.find((n): n is RecordNode => n instanceof RecordNode && n.descriptor === descriptor);
						if (node) {
							this.select(descriptor, node.record);
						}
					}),
				);
			}
		}

		// A finished run may have produced artifacts.
		this.register(this.runs.onDidSettle(() => void this.artifacts.refresh()));
		// The agent's status follows its runs: a run we just started (or one that ended) refreshes
		// the Agents view at once when its row disagrees, and the list keeps refreshing while active.
		this.register(this.runs.onDidLoad(() => this.syncAgentWithRuns()));
		this.register(
			this.runs.onDidRequestRefresh(() => {
				// Our own action on the agent's runs changes its status: its row refreshes now.
				void this.agents.refresh();
			}),
		);
		// Tooltips name the runtime (as the Runtimes view does) instead of its id: redrawn when a name
		// changed, not on every load (the Runtimes view polls while a runtime is in motion, and a
		// redraw makes VS Code drop the agent rows' handles until it has read them again: a row's
		// context menu used meanwhile would run without its row).
		let runtimeNames = '';
		this.register(
			this.runtimes.onDidLoad(() => {
				const names = JSON.stringify(this.runtimes.records.map((r) => [r.id, r.display_name]));
				if (names !== runtimeNames) {
					runtimeNames = names;
					this.agents.redraw();
				}
			}),
		);
		// Keep the selected agent's record (name in the view descriptions) current.
		this.register(
			this.agents.onDidLoad(() => {
				const current = this.runs.parent;
				const fresh = current && this.agents.find(current.id);
				if (fresh && fresh.name !== current.name) {
					this.selectAgent(fresh);
				}
			}),
		);
		this.register(
			session.onDidChange(() => {
				if (!session.signedIn) {
					for (const descriptor of this.views.keys()) {
						this.select(descriptor, undefined);
					}
				}
			}),
		);
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration('cloudAgents.pageSize')) {
					this.resetAll();
				}
			}),
		);
		this.register(
			vscode.commands.registerCommand('_cloudAgents.views.rows', (key: ViewKey, parentRowId?: string) => this.rows(key, parentRowId)),
		);
		this.register(
			vscode.commands.registerCommand('_cloudAgents.views.click', (key: ViewKey, rowId: string, parentRowId?: string) =>
				this.click(key, rowId, parentRowId),
			),
		);
		this.register(
			vscode.commands.registerCommand('_cloudAgents.views.selectAgent', (agentId: string | undefined) =>
				this.selectAgentById(agentId),
			),
		);
	}

	/** The Agents view's list. */
	get agents(): DescriptorTreeProvider<Agent, AgentTarget> {
		return this.providerOf(agentsList);
	}

	/** The Runs view's list (runs of the selected agent). */
	get runs(): DescriptorTreeProvider<Run, RunTarget, Agent> {
		return this.providerOf(runsList);
	}

	/** The Runtimes view's list. */
	get runtimes(): DescriptorTreeProvider<Runtime, RuntimeTarget> {
		return this.providerOf(runtimesList);
	}

	/** The Artifacts view's list (artifacts of the selected agent). */
	get artifacts(): DescriptorTreeProvider<Artifact, ArtifactTarget, Agent> {
		return this.providerOf(artifactsList);
	}

	/** The provider of a list (top-level; a subtree's rows are served by its parent's provider). */
	providerOf<T, F extends object, P>(descriptor: ListDescriptor<T, F, P>): DescriptorTreeProvider<T, F, P> {
		const provider =
			this.providers.get(descriptor) ?? (descriptor.parent?.as === 'children' ? this.providers.get(descriptor.parent.of) : undefined);
		if (!provider) {
			throw new Error(`no list ${descriptor.key}`);
		}
		return provider as DescriptorTreeProvider<T, F, P>;
	}

	/** The tree view of a list, when it is a view. */
	viewOf(descriptor: AnyListDescriptor): vscode.TreeView<vscode.TreeItem> | undefined {
		return this.views.get(descriptor);
	}

	/**
	 * Sets a flag the rows read through `ctx.flag` (e.g. `followed` for runs whose events stream);
	 * whoever changes what it says redraws the list.
	 */
	setFlag(name: string, test: (key: string, parentKey: string | undefined) => boolean): void {
		this.flags.set(name, test);
	}

	/** Redraws every list from the records held. */
	redrawAll(): void {
		for (const provider of this.providers.values()) {
			provider.redraw();
		}
	}

	/** The agent and active runs last compared with the Agents view (one refresh per change, no loop). */
	private lastRunState = '';

	/**
	 * Compares the selected agent's runs with its row in the Agents view: an active run while the
	 * row is not `running` (or the reverse) means the row is stale, so the Agents view refreshes now.
	 */
	private syncAgentWithRuns(): void {
		const agent = this.runs.parent;
		if (!agent) {
			return;
		}
		const activeRuns = this.runs.records.filter((r) => !isTerminalRunStatus(r.status)).map((r) => r.id);
		const active = activeRuns.length > 0;
		this.agents.markActive(agent.id, active);
		const row = this.agents.find(agent.id);
		const state = `${agent.id}:${activeRuns.join(',')}`;
		if (row && (row.status === 'running') !== active && state !== this.lastRunState) {
			this.lastRunState = state;
			void this.agents.refresh();
		}
	}

	/** The record selected in a list's view that the lists following it show (the agent of Runs). */
	selected<T>(descriptor: ListDescriptor<T, object, unknown>): T | undefined {
		for (const [d, provider] of this.providers) {
			if (d.parent?.as === 'selection' && d.parent.of === descriptor) {
				return provider.parent as T | undefined;
			}
		}
		return undefined;
	}

	/** Makes the lists that follow `descriptor`'s view show the records of `record` (or nothing) and names it in their descriptions. */
	select<T>(descriptor: ListDescriptor<T, object, unknown>, record: T | undefined): void {
		if (record !== undefined) {
			this.providers.get(descriptor)?.rememberName(record);
		}
		const description =
			record !== undefined
				? singleLine(descriptor.name?.(record) || descriptor.keyOf(record), SAFETY.descriptionMaxChars)
				: undefined;
		for (const [d, provider] of this.providers) {
			if (d.parent?.as === 'selection' && d.parent.of === descriptor) {
				provider.setParent(record);
				const view = this.views.get(d);
				if (view) {
					view.description = description;
				}
			}
		}
	}

	/** The agent the Runs and Artifacts views follow. */
	get selectedAgent(): Agent | undefined {
		return this.selected(agentsList);
	}

	/** Makes Runs and Artifacts follow `agent` (or nothing) and names it in their descriptions. */
	selectAgent(agent: Agent | undefined): void {
		this.select(agentsList, agent);
	}

	/** Selects an agent by id: reveals its row when loaded, else looks it up. Undefined clears. */
	async selectAgentById(agentId: string | undefined): Promise<Agent | undefined> {
		if (!agentId) {
			this.selectAgent(undefined);
			return undefined;
		}
		let agent = this.agents.find(agentId);
		if (agent) {
			try {
				await this.viewOf(agentsList)?.reveal(this.agents.nodeOf(agent), { select: true, focus: false });
			} catch {
				// Not rendered yet (view hidden): selecting the data is enough.
			}
		} else {
			agent = await this.client().getAgent(agentId);
		}
		this.selectAgent(agent);
		return agent;
	}

	/** The provider of a view by key (a list's, or a view of group rows). */
	provider(key: ViewKey): AnyProvider | GroupedTreeProvider<unknown> {
		for (const [descriptor, provider] of this.providers) {
			if (descriptor.key === key) {
				return provider;
			}
		}
		for (const [descriptor, provider] of this.groupedViews) {
			if (descriptor.key === key) {
				return provider;
			}
		}
		throw new Error(`no view ${key}`);
	}

	/** Refreshes every view (the `cloudAgents.refresh` command). */
	async refreshAll(): Promise<void> {
		await Promise.all([...this.providers.values()].map((p) => p.refresh()));
	}

	/** Forgets every list (page size changed) so each reloads from page one. */
	resetAll(): void {
		for (const provider of this.providers.values()) {
			provider.reset();
		}
	}

	/**
	 * The rows of a view as plain data (the test seam `_cloudAgents.views.rows`); with a row id,
	 * the rows under that row (a subtree).
	 */
	async rows(key: ViewKey, parentRowId?: string): Promise<RowSnapshot[]> {
		const provider = this.provider(key);
		const nodes = await this.childrenOf(provider, parentRowId);
		return nodes.map((n) => {
			const item = provider.getTreeItem(n);
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
		});
	}

	/**
	 * Runs a row's default action as a click does: its `command` with its arguments (the test seam
	 * `_cloudAgents.views.click`). Returns what the command returns; throws when the row has none.
	 */
	async click(key: ViewKey, rowId: string, parentRowId?: string): Promise<unknown> {
		const provider = this.provider(key);
		const item = (await this.childrenOf(provider, parentRowId)).map((n) => provider.getTreeItem(n)).find((n) => n.id === rowId);
		if (!item?.command) {
			throw new Error(`no row ${rowId} with a command in ${key}`);
		}
		const args: unknown[] = item.command.arguments ?? [];
		return vscode.commands.executeCommand(item.command.command, ...args);
	}

	/** The rows under a row given by id (searched breadth-first among the rows drawn), or the top rows. */
	private async childrenOf(
		provider: AnyProvider | GroupedTreeProvider<unknown>,
		parentRowId: string | undefined,
	): Promise<vscode.TreeItem[]> {
		const top = await provider.getChildren();
		if (parentRowId === undefined) {
			return top;
		}
		const queue = [...top];
		for (let i = 0; i < queue.length && i < SAFETY.pageMaxItems; i++) {
			const node = queue[i]!;
			if (node.id === parentRowId) {
				return provider.getChildren(node);
			}
			if (node.collapsibleState !== undefined && node.collapsibleState !== vscode.TreeItemCollapsibleState.None) {
				queue.push(...(await provider.getChildren(node)));
			}
		}
		throw new Error(`no row ${parentRowId} in ${provider.key}`);
	}
}
