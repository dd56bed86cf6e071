/**
 * Agents: list, create, read, rename, delete, and their computer (VNC) sessions. One group of
 * CloudAgentsClient's methods (src/api/client.ts puts them on the one client object).
 */
import { paginate } from '../pagination';
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { ClientCore, e, obj, nextCursorOf, timeOf } from './core';

/** Endpoint methods of CloudAgentsClient: agents. */
export class AgentEndpoints extends ClientCore {
	/** GET /v2/agents: one page (newest first). */
	async listAgents(options: T.PageOptions = {}): Promise<T.Page<T.Agent>> {
		V.checkRange('limit', options.limit, V.LIMITS.agentListLimit);
		return this.pageWithCursor('agents', options.cursor, async (param, cursor) => {
			const res = await this.send<unknown>({
				method: 'GET',
				path: '/v2/agents',
				route: 'GET /v2/agents',
				query: { limit: options.limit, [param]: cursor },
				idempotent: true,
				signal: options.signal,
			});
			// A bare array is the agents themselves, as for the other listings.
			return {
				items: this.listOf<T.Agent>(D.decodeAgent, 'agents')(res.body, { requestId: res.requestId }),
				nextCursor: nextCursorOf(obj(res.body)),
			};
		});
	}

	/** Every agent, page by page. */
	iterateAgents(options: Omit<T.PageOptions, 'cursor'> = {}): AsyncGenerator<T.Agent, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.agentListLimit);
		return paginate((cursor) => this.listAgents({ ...options, cursor }));
	}

	/**
	 * POST /v2/agents. Never retried; after an ambiguous failure the agent is looked up by name
	 * and creation time and returned, or OutcomeUnknownError is thrown.
	 */
	async createAgent(request: T.CreateAgentRequest, options: T.CallOptions = {}): Promise<T.Agent> {
		const name = V.checkAgentName(request.name);
		if (request.harness_id !== undefined) {
			V.checkIdentifier('harness_id', request.harness_id);
		}
		const body = { ...request, name };
		return this.createOnce(
			'agent',
			() =>
				this.decoded(
					{ method: 'POST', path: '/v2/agents', route: 'POST /v2/agents', body, idempotent: false, signal: options.signal },
					this.one<T.Agent>(D.decodeAgent),
				),
			async (since) => {
				const page = await this.listAgents({ limit: V.LIMITS.agentListLimit.max, signal: options.signal });
				return page.items.filter((a) => a.name === name && (timeOf(a.created_at_unix_seconds) ?? since) >= since);
			},
		);
	}

	/** GET /v2/agents/{agent_id}. */
	async getAgent(agentId: string, options: T.CallOptions = {}): Promise<T.Agent> {
		V.checkAgentId(agentId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}`,
				route: 'GET /v2/agents/{agent_id}',
				idempotent: true,
				signal: options.signal,
			},
			this.one<T.Agent>(D.decodeAgent),
		);
	}

	/** PATCH /v2/agents/{agent_id} {name}. */
	async renameAgent(agentId: string, name: string, options: T.CallOptions = {}): Promise<T.Agent> {
		V.checkAgentId(agentId);
		const trimmed = V.checkAgentName(name);
		return this.decoded(
			{
				method: 'PATCH',
				path: `/v2/agents/${e(agentId)}`,
				route: 'PATCH /v2/agents/{agent_id}',
				body: { name: trimmed },
				idempotent: false,
				signal: options.signal,
			},
			this.one<T.Agent>(D.decodeAgent),
		);
	}

	/** DELETE /v2/agents/{agent_id}[?delete_runtime=true]. */
	async deleteAgent(agentId: string, options: T.CallOptions & { deleteRuntime?: boolean } = {}): Promise<T.DeleteAgentResult> {
		V.checkAgentId(agentId);
		const res = await this.send<unknown>({
			method: 'DELETE',
			path: `/v2/agents/${e(agentId)}`,
			route: 'DELETE /v2/agents/{agent_id}',
			query: { delete_runtime: options.deleteRuntime ? 'true' : undefined },
			idempotent: false,
			signal: options.signal,
		});
		const b = obj(res.body);
		return {
			runtimeDeletionRequested: res.status === 202,
			runtime_id: typeof b.runtime_id === 'string' ? b.runtime_id : undefined,
			status: typeof b.status === 'string' ? b.status : undefined,
		};
	}

	/** POST /v2/agents/{agent_id}/computer-sessions: a short-lived VNC session. */
	async createComputerSession(agentId: string, options: T.CallOptions = {}): Promise<T.ComputerSession> {
		V.checkAgentId(agentId);
		return this.mutateOnce('computer session', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v2/agents/${e(agentId)}/computer-sessions`,
					route: 'POST /v2/agents/{agent_id}/computer-sessions',
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.ComputerSession>(D.decodeComputerSession),
			),
		);
	}
}
