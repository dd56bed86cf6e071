/**
 * Runs of an agent and their events: list, create, read, cancel, resume, follow up; the run-event
 * stream (RunEventStream) and a session's events. One group of CloudAgentsClient's methods
 * (src/api/client.ts puts them on the one client object).
 */
import { RunEventStream, type SseMessage, streamSse } from '../sse';
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { type StreamRunEventsOptions, ClientCore, e, obj, arrayOf, timeOf } from './core';

/** Endpoint methods of CloudAgentsClient: runs of an agent and their events. */
export class RunEndpoints extends ClientCore {
	/** GET /v2/agents/{agent_id}/runs (newest first, limit 1–500, default 100). */
	async listRuns(agentId: string, options: T.CallOptions & { limit?: number } = {}): Promise<T.Run[]> {
		V.checkAgentId(agentId);
		V.checkRange('limit', options.limit, V.LIMITS.runListLimit);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/runs`,
				route: 'GET /v2/agents/{agent_id}/runs',
				query: { limit: options.limit },
				idempotent: true,
				signal: options.signal,
			},
			this.listOf<T.Run>(D.decodeRun, 'runs'),
		);
	}

	/**
	 * POST /v2/agents/{agent_id}/runs. Never retried; after an ambiguous failure the run is looked
	 * up by prompt and creation time and returned, or OutcomeUnknownError is thrown.
	 */
	async createRun(agentId: string, request: T.CreateRunRequest, options: T.CallOptions = {}): Promise<T.Run> {
		V.checkAgentId(agentId);
		const images = V.checkImages(request.images);
		const prompt = V.checkPrompt(request.prompt, images?.length ?? 0);
		if (request.resume_session_id !== undefined) {
			V.checkIdentifier('resume_session_id', request.resume_session_id);
		}
		if (request.parent_run_id !== undefined) {
			V.checkIdentifier('parent_run_id', request.parent_run_id);
		}
		const body = { ...request, prompt, images };
		return this.createOnce(
			'run',
			() =>
				this.decoded(
					{
						method: 'POST',
						path: `/v2/agents/${e(agentId)}/runs`,
						route: 'POST /v2/agents/{agent_id}/runs',
						body,
						idempotent: false,
						signal: options.signal,
					},
					this.one<T.Run>(D.decodeRun),
				),
			async (since) => {
				const runs = await this.listRuns(agentId, { limit: 20, signal: options.signal });
				return runs
					.filter(
						(r) =>
							(r.prompt === undefined || r.prompt.trim() === prompt) &&
							(timeOf(r.created_at) ?? since) >= since &&
							(request.parent_run_id === undefined || r.parent_run_id === request.parent_run_id),
					)
					.slice(0, runs.length);
			},
		);
	}

	/** GET /v2/agents/{agent_id}/runs/{run_id}. */
	async getRun(agentId: string, runId: string, options: T.CallOptions = {}): Promise<T.Run> {
		V.checkAgentId(agentId);
		V.checkIdentifier('runId', runId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/runs/${e(runId)}`,
				route: 'GET /v2/agents/{agent_id}/runs/{run_id}',
				idempotent: true,
				signal: options.signal,
			},
			this.one<T.Run>(D.decodeRun),
		);
	}

	/** DELETE /v2/agents/{agent_id}/runs/{run_id}: cancels the run (idempotent, so retried). */
	async cancelRun(agentId: string, runId: string, options: T.CallOptions = {}): Promise<T.Run> {
		V.checkAgentId(agentId);
		V.checkIdentifier('runId', runId);
		return this.decoded(
			{
				method: 'DELETE',
				path: `/v2/agents/${e(agentId)}/runs/${e(runId)}`,
				route: 'DELETE /v2/agents/{agent_id}/runs/{run_id}',
				idempotent: true,
				signal: options.signal,
			},
			this.one<T.Run>(D.decodeRun),
		);
	}

	/** POST …/runs/{run_id}/resume: a new run in the same session. Never retried. */
	async resumeRun(agentId: string, runId: string, request: T.ResumeRunRequest = {}, options: T.CallOptions = {}): Promise<T.Run> {
		V.checkAgentId(agentId);
		V.checkIdentifier('runId', runId);
		const body = request.prompt === undefined ? {} : { prompt: V.checkPrompt(request.prompt, 1) };
		V.checkBodySize('prompt', body, V.LIMITS.ordinaryBodyBytes);
		return this.mutateOnce('run', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v2/agents/${e(agentId)}/runs/${e(runId)}/resume`,
					route: 'POST /v2/agents/{agent_id}/runs/{run_id}/resume',
					body,
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.Run>(D.decodeRun),
			),
		);
	}

	/** POST …/runs/{run_id}/follow-ups: steers the active run or starts a new one. Never retried. */
	async followUpRun(agentId: string, runId: string, request: T.FollowUpRequest, options: T.CallOptions = {}): Promise<T.Run> {
		V.checkAgentId(agentId);
		V.checkIdentifier('runId', runId);
		const images = V.checkImages(request.images);
		const prompt = V.checkPrompt(request.prompt, images?.length ?? 0);
		return this.mutateOnce('run', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v2/agents/${e(agentId)}/runs/${e(runId)}/follow-ups`,
					route: 'POST /v2/agents/{agent_id}/runs/{run_id}/follow-ups',
					body: { prompt, images },
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.Run>(D.decodeRun),
			),
		);
	}

	/**
	 * GET …/runs/{run_id}/events as an async iterator of event records, resuming after drops
	 * (see RunEventStream). `break` or the signal closes the connection.
	 */
	streamRunEvents(agentId: string, runId: string, options: StreamRunEventsOptions = {}): RunEventStream {
		V.checkAgentId(agentId);
		V.checkIdentifier('runId', runId);
		V.checkEventCursor(options.after);
		return new RunEventStream({
			transport: this.transport,
			agentId,
			runId,
			after: options.after ?? -1,
			signal: options.signal,
			reconnect: this.options.stream ?? {},
			getRun: (signal) => this.getRun(agentId, runId, { signal }),
			waitForService: options.waitForService,
			onOutage: options.onOutage,
			onConnectOutcome: (err, startedAt) => this.tell(err, startedAt),
		});
	}

	/** GET /v2/agents/{agent_id}/events: a session's events in one answer, each decoded (decodeSessionEvent). */
	async getAgentEvents(agentId: string, options: T.CallOptions & { sessionId?: string; after?: number } = {}): Promise<T.AgentEvents> {
		V.checkAgentId(agentId);
		if (options.sessionId !== undefined) {
			V.checkIdentifier('sessionId', options.sessionId);
		}
		V.checkEventCursor(options.after);
		const body = obj(
			await this.call({
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/events`,
				route: 'GET /v2/agents/{agent_id}/events',
				query: { session_id: options.sessionId, after: options.after },
				idempotent: true,
				signal: options.signal,
			}),
		);
		return {
			...body,
			agent_id: typeof body.agent_id === 'string' ? body.agent_id : agentId,
			session_id: typeof body.session_id === 'string' ? body.session_id : '',
			// Items that are not events (no usable sequence number) are dropped: see decodeSessionEvent.
			events: arrayOf<unknown>(body, 'events')
				.map(D.decodeSessionEvent)
				.filter((event): event is T.EventRecord => event !== undefined),
		};
	}

	/** A raw single-connection SSE stream at a path below the base URL (diagnostics, conformance tests). */
	streamSse(
		path: string,
		options: T.CallOptions & { query?: Record<string, string | number | undefined> } = {},
	): AsyncIterableIterator<SseMessage> {
		return streamSse(this.transport, path, options);
	}
}
