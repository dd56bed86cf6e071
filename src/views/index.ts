import * as vscode from 'vscode';
import { SAFETY, isTerminalRunStatus } from '../api';
import type { Agent, CloudAgentsClient } from '../api';
import { VIEW_IDS } from '../ids';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import { AgentNode, AgentsTreeProvider } from './agentsTree';
import { ArtifactsTreeProvider } from './artifactsTree';
import type { ListHost } from './listTree';

/** Any of the four list providers, without its record type. */
type AnyListProvider = AgentsTreeProvider | RunsTreeProvider | RuntimesTreeProvider | ArtifactsTreeProvider;
import { RunsTreeProvider } from './runsTree';
import { RuntimesTreeProvider } from './runtimesTree';

export { AgentNode } from './agentsTree';
export { ArtifactNode, ARTIFACT_READ_CAP_BYTES, artifactKind } from './artifactsTree';
export { RunNode } from './runsTree';
export { RuntimeNode, runtimeInTransition } from './runtimesTree';
export { pageSize } from './listTree';

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

/** The view keys used by the test seam and the refresh commands. */
export type ViewKey = 'agents' | 'runs' | 'runtimes' | 'artifacts';

/**
 * The four tree views of the Cloud Agents container and their providers. Runs and Artifacts follow
 * the agent selected in the Agents view; each list keeps its own paging, scroll and refresh.
 */
export class CloudAgentViews extends Disposable {
	readonly agents: AgentsTreeProvider;
	readonly runs: RunsTreeProvider;
	readonly runtimes: RuntimesTreeProvider;
	readonly artifacts: ArtifactsTreeProvider;
	readonly agentsView: vscode.TreeView<vscode.TreeItem>;
	readonly runsView: vscode.TreeView<vscode.TreeItem>;
	readonly runtimesView: vscode.TreeView<vscode.TreeItem>;
	readonly artifactsView: vscode.TreeView<vscode.TreeItem>;
	private readonly client: () => CloudAgentsClient;

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
		this.agents = this.register(new AgentsTreeProvider(host, client));
		this.runs = this.register(new RunsTreeProvider(host, client));
		this.runtimes = this.register(new RuntimesTreeProvider(host, client));
		this.artifacts = this.register(new ArtifactsTreeProvider(host, client));
		this.agentsView = this.createView(VIEW_IDS.agents, this.agents);
		this.runsView = this.createView(VIEW_IDS.runs, this.runs);
		this.runtimesView = this.createView(VIEW_IDS.runtimes, this.runtimes);
		this.artifactsView = this.createView(VIEW_IDS.artifacts, this.artifacts);

		this.register(this.agentsView.onDidChangeSelection((e) => {
			const node = e.selection.find((n): n is AgentNode => n instanceof AgentNode);
			if (node) {
				this.selectAgent(node.agent);
			}
		}));
		// A finished run may have produced artifacts.
		this.register(this.runs.onDidSettle(() => void this.artifacts.refresh()));
		// The agent's status follows its runs: a run we just started (or one that ended) refreshes
		// the Agents view at once when its row disagrees, and the list keeps refreshing while active.
		this.register(this.runs.onDidLoad(() => this.syncAgentWithRuns()));
		this.register(this.runs.onDidRequestRefresh(() => {
			// Our own action on the agent's runs changes its status: its row refreshes now.
			void this.agents.refresh();
		}));
		// Tooltips name the runtime (as the Runtimes view does) instead of its id.
		this.agents.runtimeName = (runtimeId) => this.runtimes.records.find((r) => r.id === runtimeId)?.display_name || undefined;
		this.register(this.runtimes.onDidLoad(() => this.agents.redraw()));
		// Keep the selected agent's record (name in the view descriptions) current.
		this.register(this.agents.onDidLoad(() => {
			const current = this.runs.agent;
			const fresh = current && this.agents.find(current.id);
			if (fresh && fresh.name !== current.name) {
				this.selectAgent(fresh);
			}
		}));
		this.register(session.onDidChange(() => {
			if (!session.signedIn) {
				this.selectAgent(undefined);
			}
		}));
		this.register(vscode.workspace.onDidChangeConfiguration((e) => {
			if (e.affectsConfiguration('cloudAgents.pageSize')) {
				this.resetAll();
			}
		}));
		this.register(vscode.commands.registerCommand('_cloudAgents.views.rows', (key: ViewKey) => this.rows(key)));
		this.register(vscode.commands.registerCommand('_cloudAgents.views.click', (key: ViewKey, rowId: string) => this.click(key, rowId)));
		this.register(vscode.commands.registerCommand('_cloudAgents.views.selectAgent', (agentId: string | undefined) => this.selectAgentById(agentId)));
	}

	/** The agent and active runs last compared with the Agents view (one refresh per change, no loop). */
	private lastRunState = '';

	/**
	 * Compares the selected agent's runs with its row in the Agents view: an active run while the
	 * row is not `running` (or the reverse) means the row is stale, so the Agents view refreshes now.
	 */
	private syncAgentWithRuns(): void {
		const agent = this.runs.agent;
		if (!agent) {
			return;
		}
		const activeRuns = this.runs.records.filter((r) => !isTerminalRunStatus(r.status)).map((r) => r.id);
		const active = activeRuns.length > 0;
		this.agents.setHasActiveRuns(agent.id, active);
		const row = this.agents.find(agent.id);
		const state = `${agent.id}:${activeRuns.join(',')}`;
		if (row && (row.status === 'running') !== active && state !== this.lastRunState) {
			this.lastRunState = state;
			void this.agents.refresh();
		}
	}

	/** The agent the Runs and Artifacts views follow. */
	get selectedAgent(): Agent | undefined {
		return this.runs.agent;
	}

	/** Makes Runs and Artifacts follow `agent` (or nothing) and names it in their descriptions. */
	selectAgent(agent: Agent | undefined): void {
		if (agent) {
			this.agents.rememberName(agent);
		}
		this.runs.setAgent(agent);
		this.artifacts.setAgent(agent);
		const description = agent ? singleLine(agent.name || agent.id, SAFETY.descriptionMaxChars) : undefined;
		this.runsView.description = description;
		this.artifactsView.description = description;
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
				await this.agentsView.reveal(this.agents.nodeOf(agent), { select: true, focus: false });
			} catch {
				// Not rendered yet (view hidden): selecting the data is enough.
			}
		} else {
			agent = await this.client().getAgent(agentId);
		}
		this.selectAgent(agent);
		return agent;
	}

	/** The provider of a view by key. */
	provider(key: ViewKey): AnyListProvider {
		return this[key];
	}

	/** Refreshes every view (the `cloudAgents.refresh` command). */
	async refreshAll(): Promise<void> {
		await Promise.all([this.agents.refresh(), this.runtimes.refresh(), this.runs.refresh(), this.artifacts.refresh()]);
	}

	/** Forgets every list (page size changed) so each reloads from page one. */
	resetAll(): void {
		this.agents.reset();
		this.runtimes.reset();
		this.runs.reset();
		this.artifacts.reset();
	}

	/** The rows of a view as plain data (the test seam `_cloudAgents.views.rows`). */
	async rows(key: ViewKey): Promise<RowSnapshot[]> {
		const provider = this.provider(key);
		const nodes = await provider.getChildren();
		return nodes.map((n) => {
			const item = provider.getTreeItem(n);
			const label = typeof item.label === 'string' ? item.label : item.label?.label ?? '';
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
	async click(key: ViewKey, rowId: string): Promise<unknown> {
		const provider = this.provider(key);
		const item = (await provider.getChildren()).map((n) => provider.getTreeItem(n)).find((n) => n.id === rowId);
		if (!item?.command) {
			throw new Error(`no row ${rowId} with a command in ${key}`);
		}
		const args: unknown[] = item.command.arguments ?? [];
		return vscode.commands.executeCommand(item.command.command, ...args);
	}

	private createView(id: string, provider: AnyListProvider): vscode.TreeView<vscode.TreeItem> {
		const view = this.register(vscode.window.createTreeView(id, { treeDataProvider: provider, showCollapseAll: false }));
		provider.attach(view);
		return view;
	}
}
