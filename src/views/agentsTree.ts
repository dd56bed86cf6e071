import * as vscode from 'vscode';
import type { Agent, CloudAgentsClient, Page } from '../api';
import { agentStatusIcon, joinParts, oneLine, plainTooltip, relativeTime } from './format';
import { CursorListTreeProvider } from './listTree';
import { contextToken } from '../util/text';
import type { ListHost, PageRequest } from './listTree';

/** Agent statuses that change on their own, so the list refreshes itself while one is shown. */
const MOVING_AGENT_STATUSES = new Set(['provisioning', 'running', 'deleting']);

/** A row of the Agents view; `contextValue` is `agent:<status>` (menus match `^agent:`). */
export class AgentNode extends vscode.TreeItem {
	/** @param runtimeName the display name of the agent's runtime, when the Runtimes view knows it. */
	constructor(readonly agent: Agent, runtimeName?: string) {
		super(agent.name || agent.id, vscode.TreeItemCollapsibleState.None);
		const status = agent.status ?? 'unknown';
		this.id = `agent/${agent.id}`;
		this.contextValue = `agent:${contextToken(status)}`;
		this.iconPath = agentStatusIcon(agent.status);
		this.description = joinParts(status, relativeTime(agent.updated_at_unix_seconds ?? agent.created_at_unix_seconds));
		this.tooltip = plainTooltip(agent.name, [
			[vscode.l10n.t('Status'), status],
			[vscode.l10n.t('ID'), agent.id],
			[vscode.l10n.t('Runtime'), runtimeName ? `${runtimeName} (${agent.runtime_id ?? ''})` : agent.runtime_id],
			[vscode.l10n.t('Harness'), agent.harness_id],
			[vscode.l10n.t('Created'), agent.created_at_unix_seconds !== undefined ? new Date(agent.created_at_unix_seconds * 1000).toLocaleString() : undefined],
			[vscode.l10n.t('Updated'), agent.updated_at_unix_seconds !== undefined ? new Date(agent.updated_at_unix_seconds * 1000).toLocaleString() : undefined],
			[vscode.l10n.t('Latest reply'), agent.latest_reply?.text ? oneLine(agent.latest_reply.text, 200) : undefined],
		]);
	}
}

/**
 * The Agents view: every agent, newest first, a page (`cloudAgents.pageSize`) at a time through the
 * service's cursors. Selecting an agent drives the Runs and Artifacts views.
 */
export class AgentsTreeProvider extends CursorListTreeProvider<Agent> {
	/** Agents the Runs view has seen with a queued or running run: the list is in motion while any is. */
	private readonly withActiveRuns = new Set<string>();
	/** Resolves a runtime id to its display name (the Runtimes view's records); set by CloudAgentViews. */
	runtimeName: (runtimeId: string) => string | undefined = () => undefined;

	constructor(host: ListHost, private readonly client: () => CloudAgentsClient) {
		super('agents', host, { refresh: 'cloudAgents.agents.refresh', loadMore: 'cloudAgents.agents.loadMore' });
	}

	/**
	 * Records whether an agent has an active run (seen in the Runs view, or just started by us):
	 * while one has, the list refreshes itself (when visible) so the agent's status follows.
	 */
	setHasActiveRuns(agentId: string, active: boolean): void {
		const had = this.withActiveRuns.has(agentId);
		if (active) {
			this.withActiveRuns.add(agentId);
		} else {
			this.withActiveRuns.delete(agentId);
		}
		if (active && !had) {
			this.redraw();
		}
	}

	/** The agent with this id among the loaded rows. */
	find(agentId: string): Agent | undefined {
		return this.items.find((a) => a.id === agentId);
	}

	/** Names of agents seen outside the loaded pages (selected by id, looked up): for titles. */
	private readonly names = new Map<string, string>();

	/** Remembers an agent's name (an agent selected or read outside the loaded pages). */
	rememberName(agent: Agent): void {
		if (agent.name) {
			this.names.delete(agent.id);
			this.names.set(agent.id, agent.name);
			if (this.names.size > 100) {
				this.names.delete(this.names.keys().next().value!);
			}
		}
	}

	/** The agent's name for titles: from the loaded rows, else as last seen; undefined when unknown. */
	nameOf(agentId: string): string | undefined {
		return this.find(agentId)?.name || this.names.get(agentId);
	}

	/** The row of an agent (for reveal and selection). */
	nodeOf(agent: Agent): AgentNode {
		return new AgentNode(agent, this.runtimeNameOf(agent));
	}

	protected override listPage(request: PageRequest): Promise<Page<Agent>> {
		return this.client().listAgents(request);
	}

	protected override keyOf(agent: Agent): string {
		return agent.id;
	}

	protected override toNode(agent: Agent): vscode.TreeItem {
		return new AgentNode(agent, this.runtimeNameOf(agent));
	}

	protected override isChanging(): boolean {
		return this.items.some((a) => (a.status !== undefined && MOVING_AGENT_STATUSES.has(a.status)) || this.withActiveRuns.has(a.id));
	}

	override reset(): void {
		this.withActiveRuns.clear();
		super.reset();
	}

	private runtimeNameOf(agent: Agent): string | undefined {
		return agent.runtime_id ? this.runtimeName(agent.runtime_id) : undefined;
	}

	protected override signature(items: readonly Agent[]): string {
		return JSON.stringify(items.map((a) => [a.id, a.name, a.status, a.updated_at_unix_seconds]));
	}
}
