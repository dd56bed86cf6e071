import * as vscode from 'vscode';
import { LIMITS, isTerminalRunStatus } from '../api';
import type { Agent, Run } from '../api';
import { contextToken, iconSafe, singleLine } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, oneLine, plainTooltip, relativeTime, runStatusIcon } from '../views/format';
import { agentsList } from './agents';

/** How much of the prompt a run row shows: short enough that the status after it fits the default sidebar. */
const RUN_LABEL_CHARS = 32;

/** What a run command receives: `{agentId, run}` (a row, the resolver). */
export interface RunTarget {
	agentId: string;
	run: Run;
}

function joinFlags(...parts: Array<string | false>): string {
	return parts.filter((p): p is string => typeof p === 'string').join(':');
}

/**
 * The Runs view: runs of the agent selected in the Agents view, newest first. The runs endpoint
 * has only `limit` (1–500) and no cursor, so "Load more…" re-fetches with a larger limit
 * (limit += `cloudAgents.pageSize`); the list refreshes itself while a run is queued or running.
 * A row's `contextValue` is `run:<status>` plus `:active` for runs still going or `:terminal` for
 * ended ones (TERMINAL_RUN_STATUSES, any spelling), `:hasResult` when a result or error text exists
 * and `:followed` while its events stream (the flag `followed`, set by the extension).
 */
export const runsList: ListDescriptor<Run, RunTarget, Agent> = {
	key: 'runs',
	kind: 'run',
	viewId: 'cloudAgents.runs',
	parent: {
		as: 'selection',
		of: agentsList,
		selectLabel: () => vscode.l10n.t('Select an agent'),
		selectTooltip: () => vscode.l10n.t('Select an agent in the Agents view to see its runs.'),
	},
	commands: { refresh: 'cloudAgents.runs.refresh', loadMore: 'cloudAgents.runs.loadMore' },
	source: {
		async list(ctx, { pages, pageSize, signal }, agent) {
			const limit = Math.min(pages * pageSize, LIMITS.runListLimit.max);
			const runs = await ctx.client().listRuns(agent.id, { limit, signal });
			return { items: runs, more: runs.length >= limit && limit < LIMITS.runListLimit.max };
		},
	},
	keyOf: (run) => run.id,
	fields: (run, agentId) => ({ agentId: agentId ?? run.agent_id ?? '', run }),
	isActive: (run) => !isTerminalRunStatus(run.status),
	signature: (r) => [r.id, r.status, r.updated_at],
	row(run, ctx) {
		const agentId = ctx.parentKey ?? run.agent_id ?? '';
		const terminal = isTerminalRunStatus(run.status);
		const followed = ctx.flag('followed', run.id, agentId);
		return {
			label: oneLine(run.prompt, RUN_LABEL_CHARS) || run.id,
			contextValue: joinFlags(
				`run:${contextToken(run.status)}`,
				terminal ? 'terminal' : 'active',
				run.result || run.error ? 'hasResult' : false,
				followed && 'followed',
			),
			icon: runStatusIcon(run.status),
			// Status first, so a narrow sidebar still shows it after the short prompt (the icon also says it).
			description: joinParts(run.status, relativeTime(run.created_at)),
			tooltip: plainTooltip(vscode.l10n.t('Run {0}', run.id), [
				[vscode.l10n.t('Status'), run.status],
				[vscode.l10n.t('Created'), run.created_at ? new Date(run.created_at).toLocaleString() : undefined],
				[vscode.l10n.t('Updated'), run.updated_at ? new Date(run.updated_at).toLocaleString() : undefined],
				[vscode.l10n.t('Session'), run.dsh_session_id],
				[vscode.l10n.t('Follows run'), run.parent_run_id],
				[vscode.l10n.t('Prompt'), oneLine(run.prompt, 300)],
				[vscode.l10n.t('Result'), run.result ? oneLine(run.result, 300) : undefined],
				[vscode.l10n.t('Error'), run.error ? oneLine(run.error, 300) : undefined],
			]),
			// Clicking a row: an active run opens its live output (following it), a finished one its result.
			command: terminal
				? { command: 'cloudAgents.runs.openResult', title: vscode.l10n.t('Open Result') }
				: { command: 'cloudAgents.runs.follow', title: vscode.l10n.t('Show Run Output'), arguments: [{ agentId, runId: run.id }] },
		};
	},
	target: {
		idField: 'runId',
		get: (ctx, id, agentId) => ctx.client().getRun(agentId ?? '', id),
		choices: (ctx, agentId) => ctx.client().listRuns(agentId ?? '', { limit: 100 }),
		pickText: (run) => ({
			label: singleLine(run.prompt, 80) || run.id,
			description: joinParts(run.status, relativeTime(run.created_at)),
			detail: run.id,
		}),
		placeholder: (agent) => vscode.l10n.t('Pick a run of {0}', iconSafe(agent?.name || agent?.id || '')),
	},
};
