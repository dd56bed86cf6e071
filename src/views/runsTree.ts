import * as vscode from 'vscode';
import { LIMITS, isTerminalRunStatus } from '../api';
import type { Agent, CloudAgentsClient, Run } from '../api';
import { joinParts, oneLine, plainTooltip, relativeTime, runStatusIcon } from './format';
import { AgentListTreeProvider, pageSize } from './listTree';
import { contextToken } from '../util/text';
import type { ListHost, Loaded } from './listTree';

/** How much of the prompt a run row shows: short enough that the status after it fits the default sidebar. */
const RUN_LABEL_CHARS = 32;

/**
 * A row of the Runs view. `contextValue` is `run:<status>` plus `:active` for runs still going or `:terminal` for ended ones (TERMINAL_RUN_STATUSES, any spelling)
 * runs, `:hasResult` when a result or error text exists and `:followed` while its events stream.
 */
export class RunNode extends vscode.TreeItem {
	constructor(readonly agentId: string, readonly run: Run, followed = false) {
		super(oneLine(run.prompt, RUN_LABEL_CHARS) || run.id, vscode.TreeItemCollapsibleState.None);
		const terminal = isTerminalRunStatus(run.status);
		this.id = `run/${agentId}/${run.id}`;
		this.contextValue = joinFlags(`run:${contextToken(run.status)}`, terminal ? 'terminal' : 'active', (run.result || run.error) ? 'hasResult' : false, followed && 'followed');
		this.iconPath = runStatusIcon(run.status);
		// Status first, so a narrow sidebar still shows it after the short prompt (the icon also says it).
		this.description = joinParts(run.status, relativeTime(run.created_at));
		this.tooltip = plainTooltip(vscode.l10n.t('Run {0}', run.id), [
			[vscode.l10n.t('Status'), run.status],
			[vscode.l10n.t('Created'), run.created_at ? new Date(run.created_at).toLocaleString() : undefined],
			[vscode.l10n.t('Updated'), run.updated_at ? new Date(run.updated_at).toLocaleString() : undefined],
			[vscode.l10n.t('Session'), run.dsh_session_id],
			[vscode.l10n.t('Follows run'), run.parent_run_id],
			[vscode.l10n.t('Prompt'), oneLine(run.prompt, 300)],
			[vscode.l10n.t('Result'), run.result ? oneLine(run.result, 300) : undefined],
			[vscode.l10n.t('Error'), run.error ? oneLine(run.error, 300) : undefined],
		]);
		// Clicking a row: an active run opens its live output (following it), a finished one its result.
		this.command = terminal
			? { command: 'cloudAgents.runs.openResult', title: vscode.l10n.t('Open Result'), arguments: [this] }
			: { command: 'cloudAgents.runs.follow', title: vscode.l10n.t('Show Run Output'), arguments: [{ agentId, runId: run.id }] };
	}
}

function joinFlags(...parts: Array<string | false>): string {
	return parts.filter((p): p is string => typeof p === 'string').join(':');
}

/**
 * The Runs view: runs of the agent selected in the Agents view, newest first. The runs endpoint
 * has only `limit` (1–500) and no cursor, so "Load more…" re-fetches with a larger limit
 * (limit += `cloudAgents.pageSize`); the list refreshes itself while a run is queued or running.
 */
export class RunsTreeProvider extends AgentListTreeProvider<Run> {
	private readonly _onDidSettle = this.register(new vscode.EventEmitter<void>());
	/** Fires when a run that was active is seen terminal (artifacts may have appeared). */
	readonly onDidSettle = this._onDidSettle.event;
	private active = new Set<string>();
	/** Whether a run's events are being followed (set by the extension; adds `:followed`). */
	isFollowed: (agentId: string, runId: string) => boolean = () => false;
	private readonly _onDidRequestRefresh = this.register(new vscode.EventEmitter<Agent>());
	/**
	 * Fires when the runs of an agent are refreshed on request: after one of our own actions on its
	 * runs (send, resume, follow up, cancel) or the Refresh button, even while the view is hidden.
	 */
	readonly onDidRequestRefresh = this._onDidRequestRefresh.event;

	constructor(host: ListHost, private readonly client: () => CloudAgentsClient) {
		super('runs', host, { refresh: 'cloudAgents.runs.refresh', loadMore: 'cloudAgents.runs.loadMore' });
		this.register(this.onDidLoad(() => {
			const nowActive = new Set(this.items.filter((r) => !isTerminalRunStatus(r.status)).map((r) => r.id));
			const settled = [...this.active].some((id) => !nowActive.has(id));
			this.active = nowActive;
			if (settled) {
				this._onDidSettle.fire();
			}
		}));
	}

	override async refresh(): Promise<void> {
		if (this.agent) {
			this._onDidRequestRefresh.fire(this.agent);
		}
		await super.refresh();
	}

	protected override selectAgentText(): string {
		return vscode.l10n.t('Select an agent in the Agents view to see its runs.');
	}

	protected override agentChanged(): void {
		this.active.clear();
	}

	protected override async fetchOf(agent: Agent, pages: number, signal: AbortSignal): Promise<Loaded<Run>> {
		const limit = Math.min(pages * pageSize(), LIMITS.runListLimit.max);
		const runs = await this.client().listRuns(agent.id, { limit, signal });
		return { items: runs, more: runs.length >= limit && limit < LIMITS.runListLimit.max };
	}

	protected override keyOf(run: Run): string {
		return run.id;
	}

	protected override toNode(run: Run): vscode.TreeItem {
		const agentId = this.agent?.id ?? run.agent_id ?? '';
		return new RunNode(agentId, run, this.isFollowed(agentId, run.id));
	}

	protected override isChanging(): boolean {
		return this.items.some((r) => !isTerminalRunStatus(r.status));
	}

	protected override signature(items: readonly Run[]): string {
		return JSON.stringify(items.map((r) => [r.id, r.status, r.updated_at]));
	}
}
