import * as vscode from 'vscode';
import type { Agent } from '../api';
import { contextToken } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import { agentStatusIcon, joinParts, oneLine, plainTooltip, relativeTime } from '../views/format';
import { runtimesList } from './runtimes';

/** Agent statuses that change on their own, so the list refreshes itself while one is shown. */
const MOVING_AGENT_STATUSES = new Set(['provisioning', 'running', 'deleting']);

/** globalState key: agent ids used recently, most recent first (the agent pick lists them first). */
export const RECENT_AGENTS_KEY = 'cloudAgents.recentAgents';

const RECENT_MAX = 10;

/** Agent ids used recently, most recent first (globalState). */
export function recentAgentIds(context: vscode.ExtensionContext): string[] {
	const ids = context.globalState.get<unknown>(RECENT_AGENTS_KEY);
	return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
}

/** Moves an agent id to the front of the recently used list. */
export async function rememberAgent(context: vscode.ExtensionContext, agentId: string): Promise<void> {
	const ids = [agentId, ...recentAgentIds(context).filter((id) => id !== agentId)].slice(0, RECENT_MAX);
	await context.globalState.update(RECENT_AGENTS_KEY, ids);
}

/** What an agent command receives: `{agent}` (a row, the resolver). */
export interface AgentTarget {
	agent: Agent;
}

/**
 * The Agents view: every agent, newest first, a page (`cloudAgents.pageSize`) at a time through the
 * service's cursors. Selecting an agent drives the Runs and Artifacts views. A row's `contextValue`
 * is `agent:<status>` (menus match `^agent:`); its tooltip names the runtime as the Runtimes view does.
 */
export const agentsList: ListDescriptor<Agent, AgentTarget> = {
	key: 'agents',
	kind: 'agent',
	viewId: 'cloudAgents.agents',
	commands: { refresh: 'cloudAgents.agents.refresh', loadMore: 'cloudAgents.agents.loadMore' },
	source: { page: (ctx, request) => ctx.client().listAgents(request) },
	keyOf: (agent) => agent.id,
	name: (agent) => agent.name || undefined,
	fields: (agent) => ({ agent }),
	isActive: (agent) => agent.status !== undefined && MOVING_AGENT_STATUSES.has(agent.status),
	signature: (a) => [a.id, a.name, a.status, a.updated_at_unix_seconds],
	row(agent, ctx) {
		const status = agent.status ?? 'unknown';
		const runtimeName = agent.runtime_id ? ctx.lookup(runtimesList, agent.runtime_id)?.display_name || undefined : undefined;
		return {
			label: agent.name || agent.id,
			contextValue: `agent:${contextToken(status)}`,
			icon: agentStatusIcon(agent.status),
			description: joinParts(status, relativeTime(agent.updated_at_unix_seconds ?? agent.created_at_unix_seconds)),
			tooltip: plainTooltip(agent.name, [
				[vscode.l10n.t('Status'), status],
				[vscode.l10n.t('ID'), agent.id],
				[vscode.l10n.t('Runtime'), runtimeName ? `${runtimeName} (${agent.runtime_id ?? ''})` : agent.runtime_id],
				[vscode.l10n.t('Harness'), agent.harness_id],
				[
					vscode.l10n.t('Created'),
					agent.created_at_unix_seconds !== undefined
						? new Date(agent.created_at_unix_seconds * 1000).toLocaleString()
						: undefined,
				],
				[
					vscode.l10n.t('Updated'),
					agent.updated_at_unix_seconds !== undefined
						? new Date(agent.updated_at_unix_seconds * 1000).toLocaleString()
						: undefined,
				],
				[vscode.l10n.t('Latest reply'), agent.latest_reply?.text ? oneLine(agent.latest_reply.text, 200) : undefined],
			]),
		};
	},
	target: {
		idField: 'agentId',
		get: (ctx, id) => ctx.client().getAgent(id),
		choices: async (ctx) => (await ctx.client().listAgents({ limit: 100 })).items,
		pickText: (agent) => ({ label: agent.name || agent.id, description: agent.status, detail: agent.id }),
		placeholder: () => vscode.l10n.t('Pick an agent'),
		preferLoaded: true,
		recentKey: RECENT_AGENTS_KEY,
	},
};
