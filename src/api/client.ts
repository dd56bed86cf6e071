/**
 * CloudAgentsClient: one method per operation of the Cloud Agents API (51), grouped below by
 * resource, plus page iterators, workspace helpers for the FileSystemProvider and the run-event
 * stream. Validates every documented limit before sending; decodes answers tolerantly.
 */
import { randomUUID } from 'node:crypto';
import { sleep } from './async';
import * as D from './decode';
import { isSafeId } from './decode';
import { ApiError, OutcomeUnknownError, ValidationError, WorkspaceInterfaceError } from './errors';
import { SAFETY } from './limits';
import {
	type HttpMethod,
	type HttpResult,
	NetworkError,
	type QueryValue,
	type RequestSpec,
	Transport,
	type TransportOptions,
	errorFromBody,
} from './http';
import { ListingStoppedError, checkPageSize, dataPage, paginate } from './pagination';
import { RunEventStream, type SseMessage, type StreamOutageEvent, type StreamReconnectOptions, streamSse } from './sse';
import type * as T from './types';
import * as V from './validation';

/** Options of a client bound to one base URL: the transport's, plus stream reconnection. */
export interface CloudAgentsClientOptions extends TransportOptions {
	/** Reconnection of run-event streams. */
	stream?: StreamReconnectOptions;
	/**
	 * Told how each request ended (retries included): `err` undefined for an answer, else the error,
	 * and when it was sent (`Date.now()`). Whether the service answers is shared from this (the
	 * views' connectivity): any request that gets through brings offline views back at once. Must
	 * not throw (a throw is ignored).
	 */
	onOutcome?: (err: unknown, startedAt: number) => void;
}

export interface StreamRunEventsOptions extends T.CallOptions {
	/** Exclusive cursor: events with seq greater than this arrive (default -1: from the start). */
	after?: number;
	/**
	 * Keep trying while the service is out of reach (refused, DNS, reset, time-outs, 502/503/504, a
	 * proxy down), every 30 s at most, until `signal` aborts (a followed run); see RunEventStreamParams.
	 */
	waitForService?: boolean;
	/** Outage reports of a stream that waits for the service. */
	onOutage?: (event: StreamOutageEvent) => void;
}

export type ListWorkspaceOptions = T.PageOptions;

export interface ReadChunkOptions extends T.CallOptions {
	offset?: number;
	length?: number;
}

interface Call {
	method: HttpMethod;
	path: string;
	route: string;
	query?: Record<string, QueryValue>;
	body?: unknown;
	idempotent: boolean;
	auth?: boolean;
	headers?: Record<string, string>;
	signal?: AbortSignal;
	acceptStatuses?: readonly number[];
	transfer?: boolean;
}

/**
 * An id as exactly one percent-encoded route segment. Empty, `.`, `..`, over-long and
 * control-character ids are refused before anything is sent (`..` would turn one route into
 * another: DELETE …/artifacts/.. is DELETE on the agent).
 */
function e(id: string): string {
	if (!isSafeId(id)) {
		throw new ValidationError(
			'id',
			`an id of 1 to ${SAFETY.idMaxChars} characters without control characters, not "." or ".."`,
			`Refused to send a request for the id ${JSON.stringify(String(id).slice(0, 40))}: not a valid id`,
		);
	}
	return encodeURIComponent(id);
}
/** Clock skew tolerated when reconciling a create by its creation time. */
const RECONCILE_SKEW_MS = 60_000;

function obj(body: unknown): Record<string, unknown> {
	return body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}
/** `{data: X}` → X; tolerates an unwrapped record. */
function unwrap<R>(body: unknown): R {
	const b = obj(body);
	return ('data' in b ? b.data : body) as R;
}
/** An array from the body itself or one of the given members (of the body or of body.data). */
function arrayOf<R>(body: unknown, ...keys: string[]): R[] {
	const items = rawArrayOf(body, keys);
	checkPageSize(items);
	return items as R[];
}
function rawArrayOf(body: unknown, keys: readonly string[]): unknown[] {
	if (Array.isArray(body)) {
		return body;
	}
	const b = obj(body);
	for (const key of keys) {
		const v = b[key] ?? obj(b.data)[key];
		if (Array.isArray(v)) {
			return v;
		}
	}
	return Array.isArray(b.data) ? b.data : [];
}
/** The next cursor of an `{items, next_cursor}` body (also `next_page_token`, `pagination.next_cursor`). */
function nextCursorOf(body: Record<string, unknown>): string | undefined {
	const p = obj(body.pagination);
	for (const v of [body.next_cursor, body.next_page_token, body.next, p.next_cursor, p.next_page_token]) {
		if (typeof v === 'string' && v !== '') {
			return p.has_more === false ? undefined : v;
		}
	}
	return undefined;
}
function timeOf(value: unknown): number | undefined {
	if (typeof value === 'number') {
		return value * 1000;
	}
	if (typeof value === 'string') {
		const t = Date.parse(value);
		return Number.isNaN(t) ? undefined : t;
	}
	return undefined;
}
/** True when the error leaves it unknown whether a mutation was applied. */
function isAmbiguous(err: unknown): boolean {
	if (err instanceof NetworkError) {
		return err.requestSent;
	}
	return err instanceof ApiError && (err.status === 502 || err.status === 504);
}

/**
 * Query parameter names a server may use for an opaque page cursor, tried in this order when the
 * name a listing uses is not shown in the description and the server ignores the one sent.
 */
export const CURSOR_PARAMETER_NAMES: readonly string[] = [
	'cursor',
	'page_token',
	'after',
	'next_cursor',
	'starting_after',
	'page',
	'continuation_token',
];

/**
 * Query parameter names a server may use for the runtime filter of GET /v2/token-savings (not
 * shown), tried in this order when a page shows the server ignored the one sent.
 */
export const RUNTIME_FILTER_PARAMETER_NAMES: readonly string[] = ['runtime_id', 'runtime'];

/** Identity of a page for cursor-ignored detection: its first item's id (or the JSON of it). */
function firstKey(items: readonly unknown[]): string | undefined {
	if (items.length === 0) {
		return undefined;
	}
	const first = items[0] as { id?: unknown } | null;
	return first && typeof first === 'object' && (typeof first.id === 'string' || typeof first.id === 'number')
		? `id:${first.id}`
		: JSON.stringify(first)?.slice(0, 512);
}

/** Client of the Cloud Agents API. Create one per base URL; `close()` when done. */
export class CloudAgentsClient {
	/** The transport (exposed for diagnostics and the retry budget). */
	readonly transport: Transport;
	/** Per listing: the cursor parameter name found to work on this server (this client is per origin). */
	private readonly cursorParams = new Map<string, string>();
	/** Per listing: the identity of its first page, to tell when a server ignored a cursor. */
	private readonly firstPages = new Map<string, string | undefined>();
	/** The runtime filter parameter of GET /v2/token-savings found to work on this server. */
	private runtimeFilterParam: string = RUNTIME_FILTER_PARAMETER_NAMES[0] ?? 'runtime_id';

	constructor(private readonly options: CloudAgentsClientOptions) {
		this.transport = new Transport(options);
	}

	/** The base URL in use. */
	get baseUrl(): URL {
		return this.transport.base;
	}

	/** Releases the connection pool (shared per base URL, closed with its last client). */
	close(): void {
		this.transport.close();
	}

	private async call<R>(c: Call): Promise<R> {
		const res = await this.send<R>(c);
		return res.body;
	}

	/** One request through the transport, its outcome told to `onOutcome`. */
	private async send<R>(spec: RequestSpec): Promise<HttpResult<R>> {
		const startedAt = Date.now();
		try {
			const res = await this.transport.send<R>(spec);
			this.tell(undefined, startedAt);
			return res;
		} catch (err) {
			this.tell(err, startedAt);
			throw err;
		}
	}

	private tell(err: unknown, startedAt: number): void {
		try {
			this.options.onOutcome?.(err, startedAt);
		} catch {
			// An observer's failure never changes the request's outcome.
		}
	}

	/**
	 * One page of a listing whose cursor parameter name is not shown. The first page records its
	 * identity; a later page that comes back as the first page again, or with the very cursor sent,
	 * means the server ignored the parameter: the other CURSOR_PARAMETER_NAMES are tried (one request
	 * each) and the one that works is remembered. When none does, ListingStoppedError
	 * (`cursor_ignored`) says so: the caller keeps what it loaded, and "Load more" ends.
	 */
	private async pageWithCursor<I, P extends T.Page<I> = T.Page<I>>(
		listing: string,
		cursor: string | undefined,
		fetch: (param: string, cursor: string | undefined) => Promise<P>,
	): Promise<P> {
		const known = this.cursorParams.get(listing) ?? 'cursor';
		if (cursor === undefined) {
			const page = await fetch(known, undefined);
			this.firstPages.set(listing, firstKey(page.items));
			return page;
		}
		const ignored = (page: P): boolean =>
			page.nextCursor === cursor ||
			(page.items.length > 0 && this.firstPages.has(listing) && firstKey(page.items) === this.firstPages.get(listing));
		const page = await fetch(known, cursor);
		if (!ignored(page)) {
			this.cursorParams.set(listing, known);
			return page;
		}
		for (const name of CURSOR_PARAMETER_NAMES) {
			if (name === known) {
				continue;
			}
			const candidate = await fetch(name, cursor);
			if (!ignored(candidate)) {
				this.transport.debug(`${listing}: the server ignores "${known}"; its cursor parameter is "${name}"`);
				this.cursorParams.set(listing, name);
				return candidate;
			}
		}
		throw new ListingStoppedError(
			'cursor_ignored',
			`This server ignored the page cursor (tried ${CURSOR_PARAMETER_NAMES.join(', ')}); only the first page can be shown`,
			0,
		);
	}

	/** Sends a call and passes its body through a decoder of the parsing boundary (src/api/decode.ts). */
	private async decoded<R>(c: Call, decode: (body: unknown, ctx: D.DecodeContext) => R): Promise<R> {
		const res = await this.send<unknown>(c);
		return decode(res.body, { requestId: res.requestId });
	}

	/** A decoder of a listing: the array under one of `keys`, each item decoded, bad items dropped (logged once). */
	private listOf<R>(decode: D.Decoder<unknown>, ...keys: string[]): (body: unknown, ctx: D.DecodeContext) => R[] {
		return (body, ctx) => {
			const items = rawArrayOf(body, keys);
			checkPageSize(items, ctx.requestId);
			return D.decodeList(items, decode, ctx, (count, first) =>
				this.transport.debug(`dropped ${count} invalid record(s) from a listing: ${first.message}`),
			) as R[];
		};
	}

	/** A decoder of one record, unwrapping `{data: …}` first when `wrapped`. */
	private one<R>(decode: D.Decoder<unknown>, wrapped = false): (body: unknown, ctx: D.DecodeContext) => R {
		return (body, ctx) => decode(wrapped ? unwrap(body) : body, ctx) as R;
	}

	/**
	 * Runs a create that has no idempotency key. On an ambiguous failure (time-out or reset after
	 * the request was sent) it never re-sends: it looks for the resource and returns it when exactly
	 * one candidate matches, else throws OutcomeUnknownError.
	 */
	private async createOnce<R>(kind: string, send: () => Promise<R>, find: (since: number) => Promise<R[]>): Promise<R> {
		const started = Date.now();
		try {
			return await send();
		} catch (err) {
			if (!isAmbiguous(err)) {
				throw err;
			}
			this.transport.debug(`create ${kind}: ambiguous failure (${(err as Error).message}); reconciling`);
			let found: R[];
			try {
				found = await find(started - RECONCILE_SKEW_MS);
			} catch (reconcileErr) {
				throw new OutcomeUnknownError(
					kind,
					`Creating the ${kind} failed without an answer, and checking whether it was created failed too; refresh before trying again.`,
					[],
					{ cause: reconcileErr },
				);
			}
			if (found.length === 1) {
				return found[0] as R;
			}
			throw new OutcomeUnknownError(
				kind,
				found.length === 0
					? `Creating the ${kind} failed without an answer and no matching ${kind} was found; it may still appear. Refresh before trying again.`
					: `Creating the ${kind} failed without an answer and ${found.length} matching ${kind}s were found; check which one is yours.`,
				found,
				{ cause: err },
			);
		}
	}

	/** Wraps an ambiguous failure of a non-reconcilable mutation as OutcomeUnknownError. */
	private async mutateOnce<R>(kind: string, send: () => Promise<R>): Promise<R> {
		try {
			return await send();
		} catch (err) {
			if (isAmbiguous(err)) {
				throw new OutcomeUnknownError(
					kind,
					`The request for the ${kind} failed without an answer; it may or may not have been applied. Refresh before trying again.`,
					[],
					{ cause: err },
				);
			}
			throw err;
		}
	}

	// ------------------------------------------------------------------ health and identity

	/** GET /healthz: resolves when the service is live. No token is sent. */
	async health(options: T.CallOptions = {}): Promise<void> {
		await this.call({ method: 'GET', path: '/healthz', route: 'GET /healthz', idempotent: true, auth: false, signal: options.signal });
	}

	/** HEAD /healthz. */
	async healthHead(options: T.CallOptions = {}): Promise<void> {
		await this.call({
			method: 'HEAD',
			path: '/healthz',
			route: 'HEAD /healthz',
			idempotent: true,
			auth: false,
			signal: options.signal,
		});
	}

	/** GET /v2/me: the current user profile. */
	async getMe(options: T.CallOptions = {}): Promise<T.Me> {
		return unwrap<T.Me>(
			await this.call({ method: 'GET', path: '/v2/me', route: 'GET /v2/me', idempotent: true, signal: options.signal }),
		);
	}

	/** GET /v2/ssh-host-key: the SSH gateway host key. */
	async getSshHostKey(options: T.CallOptions = {}): Promise<T.SshHostKey> {
		return unwrap<T.SshHostKey>(
			await this.call({
				method: 'GET',
				path: '/v2/ssh-host-key',
				route: 'GET /v2/ssh-host-key',
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	/** GET /v2/ssh-host-key, checked and normalised (key blob, its fingerprint, the gateway host and port). */
	async getGatewayHostKey(options: T.CallOptions = {}): Promise<D.GatewayHostKey> {
		return this.decoded(
			{ method: 'GET', path: '/v2/ssh-host-key', route: 'GET /v2/ssh-host-key', idempotent: true, signal: options.signal },
			this.one<D.GatewayHostKey>(D.decodeGatewayHostKey, true),
		);
	}

	// ------------------------------------------------------------------ auth and device flow

	/** POST /v2/auth/device/authorization (no token): starts the device flow. */
	async startDeviceAuthorization(request: T.DeviceAuthorizationRequest, options: T.CallOptions = {}): Promise<T.DeviceAuthorization> {
		return this.decoded(
			{
				method: 'POST',
				path: '/v2/auth/device/authorization',
				route: 'POST /v2/auth/device/authorization',
				body: request,
				idempotent: false,
				auth: false,
				signal: options.signal,
			},
			this.one<T.DeviceAuthorization>(D.decodeDeviceAuthorization),
		);
	}

	/**
	 * POST /v2/auth/device/token (no token): one poll. Pending, slow-down, expired and denied are
	 * results, not errors; other failures throw ApiError.
	 */
	async pollDeviceToken(deviceCode: string, options: T.CallOptions = {}): Promise<T.DeviceTokenResult> {
		const res = await this.send<unknown>({
			method: 'POST',
			path: '/v2/auth/device/token',
			route: 'POST /v2/auth/device/token',
			body: { device_code: deviceCode },
			idempotent: false,
			auth: false,
			signal: options.signal,
			acceptStatuses: [400],
		});
		const b = obj(res.body);
		if (res.status !== 400) {
			return {
				status: 'success',
				token: { ...b, access_token: D.checkAccessToken(b.access_token, { requestId: res.requestId }) } as T.DeviceToken,
			};
		}
		const interval =
			b.interval === undefined
				? undefined
				: D.clampSeconds(b.interval, SAFETY.devicePollMinMs, SAFETY.devicePollMaxMs, SAFETY.devicePollDefaultMs);
		// Values of `error` are not shown: RFC 8628's names, then common variants.
		switch (b.error) {
			case 'authorization_pending':
			case 'pending':
				return { status: 'pending', interval };
			case 'slow_down':
			case 'polling_too_fast':
				return { status: 'slow_down', interval };
			case 'expired_token':
			case 'expired':
			case 'invalid_device_code':
				return { status: 'expired' };
			case 'access_denied':
			case 'denied':
				return { status: 'denied' };
			default:
				throw errorFromBody(400, JSON.stringify(res.body ?? ''), res.requestId, undefined);
		}
	}

	/**
	 * Polls the device flow until it succeeds, expires or is denied, waiting `interval` seconds
	 * between polls (raised on slow_down). Cancel with the signal.
	 */
	async waitForDeviceToken(
		authorization: Pick<T.DeviceAuthorization, 'device_code' | 'interval' | 'expires_in'>,
		options: T.CallOptions & { minIntervalMs?: number } = {},
	): Promise<T.DeviceTokenResult & { status: 'success' | 'expired' | 'denied' }> {
		// The server's numbers are clamped (SAFETY.devicePoll*): an absurd interval can neither hammer the server nor stall sign-in.
		const minMs = options.minIntervalMs ?? SAFETY.devicePollMinMs;
		const bound = (ms: number): number => Math.min(SAFETY.devicePollMaxMs, Math.max(minMs, ms));
		let intervalMs = bound(D.clampSeconds(authorization.interval, minMs, SAFETY.devicePollMaxMs, SAFETY.devicePollDefaultMs) * 1000);
		const deadline =
			Date.now() + D.clampSeconds(authorization.expires_in, SAFETY.devicePollMinMs, SAFETY.deviceExpiryMaxMs, 900_000) * 1000;
		for (;;) {
			await sleep(intervalMs, options.signal);
			const result = await this.pollDeviceToken(authorization.device_code, options);
			if (result.status === 'success' || result.status === 'expired' || result.status === 'denied') {
				return result;
			}
			if (result.status === 'slow_down') {
				intervalMs = bound(Math.max(intervalMs + 5000, (result.interval ?? 0) * 1000));
			} else if (result.interval !== undefined) {
				intervalMs = bound(result.interval * 1000);
			}
			if (Date.now() + intervalMs > deadline) {
				return { status: 'expired' };
			}
		}
	}

	/** DELETE /v2/auth/token: revokes the token used for the call. */
	async revokeToken(options: T.CallOptions = {}): Promise<void> {
		await this.call({
			method: 'DELETE',
			path: '/v2/auth/token',
			route: 'DELETE /v2/auth/token',
			idempotent: false,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ agents

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
			const body = obj(res.body);
			return {
				items: this.listOf<T.Agent>(D.decodeAgent, 'agents')(body, { requestId: res.requestId }),
				nextCursor: nextCursorOf(body),
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

	// ------------------------------------------------------------------ runs and events

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

	// ------------------------------------------------------------------ artifacts

	/** GET /v2/agents/{agent_id}/artifacts. */
	async listArtifacts(agentId: string, options: T.CallOptions = {}): Promise<T.Artifact[]> {
		V.checkAgentId(agentId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/artifacts`,
				route: 'GET /v2/agents/{agent_id}/artifacts',
				idempotent: true,
				signal: options.signal,
			},
			this.listOf<T.Artifact>(D.decodeArtifact, 'artifacts'),
		);
	}

	/**
	 * POST /v2/agents/{agent_id}/artifacts. Never retried; after an ambiguous failure the artifact
	 * is looked up by run, name and creation time, or OutcomeUnknownError is thrown.
	 */
	async createArtifact(agentId: string, request: T.CreateArtifactRequest, options: T.CallOptions = {}): Promise<T.Artifact> {
		V.checkAgentId(agentId);
		V.checkIdentifier('run_id', request.run_id);
		V.checkArtifactName(request.name);
		V.checkWriteSize('content', request.content);
		const body = {
			run_id: request.run_id,
			name: request.name,
			media_type: request.media_type,
			content_base64: V.base64(request.content),
		};
		return this.createOnce(
			'artifact',
			() =>
				this.decoded(
					{
						method: 'POST',
						path: `/v2/agents/${e(agentId)}/artifacts`,
						route: 'POST /v2/agents/{agent_id}/artifacts',
						body,
						idempotent: false,
						transfer: true,
						signal: options.signal,
					},
					this.one<T.Artifact>(D.decodeArtifact),
				),
			async (since) => {
				const all = await this.listArtifacts(agentId, options);
				return all.filter(
					(a) =>
						a.name === request.name &&
						(a.run_id === undefined || a.run_id === request.run_id) &&
						(a.size === undefined || a.size === request.content.byteLength) &&
						(timeOf(a.created_at) ?? since) >= since,
				);
			},
		);
	}

	/**
	 * GET …/artifacts/{artifact_id}. How content is requested is not shown: both common spellings
	 * (`include_content=true`, `include=content`) are sent; a server ignores the one it does not know.
	 */
	async getArtifact(
		agentId: string,
		artifactId: string,
		options: T.CallOptions & { includeContent?: boolean } = {},
	): Promise<T.Artifact> {
		V.checkAgentId(agentId);
		V.checkOpaqueId('artifactId', artifactId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/agents/${e(agentId)}/artifacts/${e(artifactId)}`,
				route: 'GET /v2/agents/{agent_id}/artifacts/{artifact_id}',
				query: {
					include_content: options.includeContent ? 'true' : undefined,
					include: options.includeContent ? 'content' : undefined,
				},
				idempotent: true,
				transfer: options.includeContent === true,
				signal: options.signal,
			},
			this.one<T.Artifact>(D.decodeArtifact),
		);
	}

	/** The artifact with its decoded content. */
	async readArtifactContent(
		agentId: string,
		artifactId: string,
		options: T.CallOptions = {},
	): Promise<{ artifact: T.Artifact; content: Uint8Array }> {
		const artifact = await this.getArtifact(agentId, artifactId, { ...options, includeContent: true });
		const content = D.decodeBase64Strict(artifact.content_base64 ?? '', 'artifact.content_base64', {});
		if (artifact.size !== undefined && artifact.size !== content.byteLength) {
			throw new D.InvalidResponseError('artifact.size', `the length of the content (${content.byteLength} bytes)`, undefined);
		}
		return { artifact, content };
	}

	/** DELETE …/artifacts/{artifact_id} (idempotent, so retried). */
	async deleteArtifact(agentId: string, artifactId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkAgentId(agentId);
		V.checkOpaqueId('artifactId', artifactId);
		await this.call({
			method: 'DELETE',
			path: `/v2/agents/${e(agentId)}/artifacts/${e(artifactId)}`,
			route: 'DELETE /v2/agents/{agent_id}/artifacts/{artifact_id}',
			idempotent: true,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ workspace

	/** POST /v2/agents/{agent_id}/workspace with any operation body (list, stat, read, search: all reads, so retried). */
	async workspaceOperation<R = Record<string, unknown>>(
		agentId: string,
		body: { op: string; [member: string]: unknown },
		options: T.CallOptions = {},
	): Promise<R> {
		V.checkAgentId(agentId);
		if (typeof body.path === 'string') {
			V.checkWorkspacePath(body.path);
		}
		try {
			const res = await this.send<R>({
				method: 'POST',
				path: `/v2/agents/${e(agentId)}/workspace`,
				route: 'POST /v2/agents/{agent_id}/workspace',
				body,
				idempotent: ['list', 'stat', 'read', 'search'].includes(body.op),
				signal: options.signal,
			});
			this.lastWorkspaceRequestId = res.requestId;
			return res.body;
		} catch (err) {
			// The operation body is not shown in the description: a 400 means this server reads another shape.
			if (err instanceof ApiError && err.status === 400) {
				throw new WorkspaceInterfaceError(`the server rejected the "${body.op}" operation (${err.message})`, err.requestId, err);
			}
			throw err;
		}
	}

	/** Request id of the last workspace operation answered (for WorkspaceInterfaceError messages). */
	private lastWorkspaceRequestId: string | undefined;

	/** Throws WorkspaceInterfaceError unless `ok`: the answer lacks what the operation needs, so this server misread our body. */
	private expectWorkspace(ok: boolean, op: string, missing: string): void {
		if (!ok) {
			throw new WorkspaceInterfaceError(`the answer to the "${op}" operation has no ${missing}`, this.lastWorkspaceRequestId);
		}
	}

	/** One page of a workspace folder listing. */
	async listWorkspace(agentId: string, path: string, options: ListWorkspaceOptions = {}): Promise<T.Page<T.WorkspaceEntry>> {
		V.checkWorkspacePath(path);
		V.checkRange('limit', options.limit, V.LIMITS.workspaceListLimit);
		const raw = await this.workspaceOperation(agentId, { op: 'list', path, cursor: options.cursor, limit: options.limit }, options);
		const body = obj(raw);
		this.expectWorkspace(Array.isArray(raw) || Array.isArray(body.entries), 'list', 'entries array');
		return {
			items: this.listOf<T.WorkspaceEntry>(D.decodeWorkspaceEntry, 'entries')(body, {}),
			nextCursor: typeof body.next_cursor === 'string' && body.next_cursor ? body.next_cursor : undefined,
		};
	}

	/** Every entry of a workspace folder, page by page. */
	iterateWorkspace(
		agentId: string,
		path: string,
		options: Omit<ListWorkspaceOptions, 'cursor'> = {},
	): AsyncGenerator<T.WorkspaceEntry, void, undefined> {
		V.checkWorkspacePath(path);
		return paginate((cursor) => this.listWorkspace(agentId, path, { ...options, cursor }));
	}

	/** The whole listing of a folder as an array. */
	async listWorkspaceAll(agentId: string, path: string, options: T.CallOptions = {}): Promise<T.WorkspaceEntry[]> {
		const out: T.WorkspaceEntry[] = [];
		for await (const entry of this.iterateWorkspace(agentId, path, options)) {
			out.push(entry);
		}
		return out;
	}

	/** Metadata of a workspace path; ApiError 404 when missing. */
	async statWorkspace(agentId: string, path: string, options: T.CallOptions = {}): Promise<T.WorkspaceEntry> {
		V.checkWorkspacePath(path);
		const body = obj(await this.workspaceOperation(agentId, { op: 'stat', path }, options));
		this.expectWorkspace(body.entry !== null && typeof body.entry === 'object', 'stat', 'entry object');
		return D.decodeWorkspaceEntry(body.entry, {}) as T.WorkspaceEntry;
	}

	/** One chunk of a file (offset default 0, length 1–1,048,576, default the maximum). */
	async readWorkspaceFile(agentId: string, path: string, options: ReadChunkOptions = {}): Promise<T.WorkspaceReadChunk> {
		V.checkWorkspacePath(path);
		V.checkRange('length', options.length, V.LIMITS.workspaceReadLength);
		V.checkRange('offset', options.offset, { min: 0, max: Number.MAX_SAFE_INTEGER });
		const b = obj(
			await this.workspaceOperation(agentId, { op: 'read', path, offset: options.offset, length: options.length }, options),
		);
		this.expectWorkspace(typeof b.content_base64 === 'string', 'read', 'content_base64');
		const content = D.decodeBase64Strict(b.content_base64 ?? '', 'workspace read.content_base64', {});
		const requested = options.offset ?? 0;
		const offset = typeof b.offset === 'number' ? b.offset : requested;
		const size = typeof b.size === 'number' ? b.size : offset + content.byteLength;
		// Sizes and offsets outside their ranges fail cleanly (a hostile size would allocate or loop).
		if (offset !== requested) {
			throw new D.InvalidResponseError('workspace read.offset', `the requested offset ${requested}`, undefined);
		}
		if (!Number.isSafeInteger(size) || size < offset + content.byteLength || size > SAFETY.readMaxBytes) {
			throw new D.InvalidResponseError(
				'workspace read.size',
				`an integer from ${offset + content.byteLength} to ${SAFETY.readMaxBytes}`,
				undefined,
			);
		}
		if (content.byteLength > (options.length ?? V.LIMITS.workspaceReadLength.max)) {
			throw new D.InvalidResponseError(
				'workspace read.content_base64',
				`at most the ${options.length ?? V.LIMITS.workspaceReadLength.max} bytes asked for`,
				undefined,
			);
		}
		if (b.mtime_unix_ms !== undefined && !Number.isSafeInteger(b.mtime_unix_ms)) {
			throw new D.InvalidResponseError('workspace read.mtime_unix_ms', 'an integer', undefined);
		}
		return {
			path: typeof b.path === 'string' ? b.path : path,
			offset,
			length: typeof b.length === 'number' ? b.length : content.byteLength,
			size,
			mtime_unix_ms: typeof b.mtime_unix_ms === 'number' ? b.mtime_unix_ms : undefined,
			eof: typeof b.eof === 'boolean' ? b.eof : offset + content.byteLength >= size,
			content,
		};
	}

	/**
	 * The rest of a file whose first chunk is `first` (not at end of file), read chunk by chunk
	 * from where that chunk stopped: the whole content, or undefined when the file changed between
	 * chunks (another size or mtime, or an empty chunk) so the caller can start over.
	 */
	async readWorkspaceFileRest(
		agentId: string,
		path: string,
		first: T.WorkspaceReadChunk,
		options: T.CallOptions & { chunkLength?: number } = {},
	): Promise<Uint8Array | undefined> {
		const content = new Uint8Array(first.size);
		content.set(first.content.subarray(0, first.size), 0);
		let offset = first.content.byteLength;
		// Every chunk but the last must carry at least SAFETY.readChunkMinBytes (or all that was asked for):
		// a server that dribbles a few bytes per answer would otherwise cost millions of requests.
		const minChunk = Math.min(SAFETY.readChunkMinBytes, options.chunkLength ?? SAFETY.readChunkMinBytes);
		const tooSmall = (n: number, at: number): boolean => n < minChunk && at + n < first.size;
		if (tooSmall(first.content.byteLength, 0)) {
			throw new D.InvalidResponseError(
				'workspace read',
				`chunks of at least ${minChunk} bytes before the end of the file (got ${first.content.byteLength})`,
				undefined,
			);
		}
		while (offset < first.size) {
			const chunk = await this.readWorkspaceFile(agentId, path, { signal: options.signal, offset, length: options.chunkLength });
			if (chunk.size !== first.size || chunk.mtime_unix_ms !== first.mtime_unix_ms || chunk.content.byteLength === 0) {
				return undefined;
			}
			if (tooSmall(chunk.content.byteLength, offset)) {
				throw new D.InvalidResponseError(
					'workspace read',
					`chunks of at least ${minChunk} bytes before the end of the file (got ${chunk.content.byteLength})`,
					undefined,
				);
			}
			content.set(chunk.content.subarray(0, first.size - offset), offset);
			offset += chunk.content.byteLength;
		}
		return content;
	}

	/**
	 * A whole file, read chunk by chunk. Restarts (up to 3 times) when the file changes between
	 * chunks, so the result is never a mix of two versions.
	 */
	async readWorkspaceFileAll(
		agentId: string,
		path: string,
		options: T.CallOptions & { chunkLength?: number } = {},
	): Promise<T.WorkspaceFile> {
		for (let attempt = 0; ; attempt++) {
			const first = await this.readWorkspaceFile(agentId, path, { signal: options.signal, length: options.chunkLength });
			if (first.eof) {
				return { path: first.path, size: first.content.byteLength, mtime_unix_ms: first.mtime_unix_ms, content: first.content };
			}
			const content = await this.readWorkspaceFileRest(agentId, path, first, options);
			if (content) {
				return { path: first.path, size: first.size, mtime_unix_ms: first.mtime_unix_ms, content };
			}
			if (attempt >= 2) {
				throw new ApiError(409, 'file_changed', `The file ${path} kept changing while it was read`, undefined);
			}
		}
	}

	/** Searches file contents (query 1–256 bytes). */
	async searchWorkspace(agentId: string, query: string, options: T.WorkspaceSearchOptions = {}): Promise<T.WorkspaceSearchResult> {
		V.checkSearchQuery(query);
		if (options.path !== undefined) {
			V.checkWorkspacePath(options.path);
		}
		V.checkRange('maxResults', options.maxResults, V.LIMITS.searchMaxResults);
		const b = obj(
			await this.workspaceOperation(
				agentId,
				{ op: 'search', query, path: options.path, max_results: options.maxResults, case_sensitive: options.caseSensitive },
				options,
			),
		);
		this.expectWorkspace(Array.isArray(b.matches), 'search', 'matches array');
		return { query, matches: arrayOf<T.WorkspaceSearchMatch>(b, 'matches'), truncated: b.truncated === true };
	}

	/** PUT …/workspace/files: writes a whole file (creating parent folders). Idempotent, so retried. */
	async writeWorkspaceFile(
		agentId: string,
		path: string,
		bytes: Uint8Array,
		options: T.CallOptions = {},
	): Promise<T.WorkspaceWriteResult> {
		V.checkAgentId(agentId);
		V.checkWorkspacePath(path);
		V.checkWriteSize('content', bytes);
		const body = await this.call<T.WorkspaceWriteResult>({
			method: 'PUT',
			path: `/v2/agents/${e(agentId)}/workspace/files`,
			route: 'PUT /v2/agents/{agent_id}/workspace/files',
			body: { path, content_base64: V.base64(bytes) },
			idempotent: true,
			transfer: true,
			signal: options.signal,
		});
		const b = obj(body);
		return { ...b, path: typeof b.path === 'string' ? b.path : path, size: typeof b.size === 'number' ? b.size : bytes.byteLength };
	}

	/** DELETE …/workspace/files {path, recursive}. Idempotent, so retried. */
	async deleteWorkspacePath(agentId: string, path: string, options: T.CallOptions & { recursive?: boolean } = {}): Promise<void> {
		V.checkAgentId(agentId);
		V.checkWorkspacePath(path);
		await this.call({
			method: 'DELETE',
			path: `/v2/agents/${e(agentId)}/workspace/files`,
			route: 'DELETE /v2/agents/{agent_id}/workspace/files',
			body: { path, recursive: options.recursive ?? false },
			idempotent: true,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ model providers

	/** GET /v2/model-providers. */
	async listModelProviders(options: T.CallOptions = {}): Promise<T.ModelProviderList> {
		const b = obj(
			unwrap(
				await this.call({
					method: 'GET',
					path: '/v2/model-providers',
					route: 'GET /v2/model-providers',
					idempotent: true,
					signal: options.signal,
				}),
			),
		);
		return {
			organization_id: typeof b.organization_id === 'string' ? b.organization_id : '',
			model_providers: arrayOf<T.ModelProvider>(b, 'model_providers'),
		};
	}

	/** PATCH /v2/model-providers/{provider_id} (every configuration field required). */
	async updateModelProvider(
		providerId: string,
		request: T.UpdateModelProviderRequest | Record<string, unknown>,
		options: T.CallOptions = {},
	): Promise<T.ModelProvider> {
		V.checkOpaqueId('providerId', providerId);
		return unwrap(
			await this.call({
				method: 'PATCH',
				path: `/v2/model-providers/${e(providerId)}`,
				route: 'PATCH /v2/model-providers/{provider_id}',
				body: request,
				idempotent: false,
				signal: options.signal,
			}),
		);
	}

	// ------------------------------------------------------------------ runtimes

	/** GET /v2/runtimes: one page (cursor sent as `after`). */
	async listRuntimes(options: T.RuntimeListOptions = {}): Promise<T.Page<T.Runtime>> {
		V.checkRange('limit', options.limit, V.LIMITS.runtimeListLimit);
		return this.decoded(
			{
				method: 'GET',
				path: '/v2/runtimes',
				route: 'GET /v2/runtimes',
				query: { status: options.status?.join(','), limit: options.limit, after: options.cursor },
				idempotent: true,
				signal: options.signal,
			},
			(body, ctx) => {
				const page = dataPage<unknown>(body);
				return { items: this.listOf<T.Runtime>(D.decodeRuntime)(page.items, ctx), nextCursor: page.nextCursor };
			},
		);
	}

	/** Every runtime, page by page. */
	iterateRuntimes(options: Omit<T.RuntimeListOptions, 'cursor'> = {}): AsyncGenerator<T.Runtime, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.runtimeListLimit);
		return paginate((cursor) => this.listRuntimes({ ...options, cursor }));
	}

	/** POST /v2/runtimes/{runtime_id}/resume[?expected_revision=]. Not retried. */
	async resumeRuntime(runtimeId: string, options: T.CallOptions & { expectedRevision?: number } = {}): Promise<T.Runtime> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkRevision(options.expectedRevision, false);
		return this.mutateOnce('runtime resume', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v2/runtimes/${e(runtimeId)}/resume`,
					route: 'POST /v2/runtimes/{runtime_id}/resume',
					query: { expected_revision: options.expectedRevision },
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.Runtime>(D.decodeRuntime, true),
			),
		);
	}

	/** GET /v2/runtimes/{runtime_id}/vnc-credentials. */
	async listVncCredentials(runtimeId: string, options: T.CallOptions = {}): Promise<T.VncCredential[]> {
		V.checkOpaqueId('runtimeId', runtimeId);
		return arrayOf(
			await this.call({
				method: 'GET',
				path: `/v2/runtimes/${e(runtimeId)}/vnc-credentials`,
				route: 'GET /v2/runtimes/{runtime_id}/vnc-credentials',
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	/** DELETE /v2/runtimes/{runtime_id}/ssh-keys/{ssh_key_id}?expected_revision= (required): detaches a key. */
	async detachRuntimeSshKey(
		runtimeId: string,
		sshKeyId: string,
		options: T.CallOptions & { expectedRevision: number },
	): Promise<T.SshKey> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkOpaqueId('sshKeyId', sshKeyId);
		V.checkRevision(options.expectedRevision, true);
		return unwrap(
			await this.call({
				method: 'DELETE',
				path: `/v2/runtimes/${e(runtimeId)}/ssh-keys/${e(sshKeyId)}`,
				route: 'DELETE /v2/runtimes/{runtime_id}/ssh-keys/{ssh_key_id}',
				query: { expected_revision: options.expectedRevision },
				idempotent: false,
				signal: options.signal,
			}),
		);
	}

	/** GET /v1/runtimes/{runtime_id}/tokensaver/savings: one page with the summary. */
	async listRuntimeTokenSavings(runtimeId: string, options: T.PageOptions = {}): Promise<T.TokenSavingsPage> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkRange('limit', options.limit, V.LIMITS.runtimeTokenSavingsLimit);
		const body = await this.call({
			method: 'GET',
			path: `/v1/runtimes/${e(runtimeId)}/tokensaver/savings`,
			route: 'GET /v1/runtimes/{runtime_id}/tokensaver/savings',
			query: { limit: options.limit, after: options.cursor },
			idempotent: true,
			signal: options.signal,
		});
		const summary = obj(body).summary;
		return { ...dataPage<T.TokenSavingRecord>(body), summary: summary ? D.decodeTokenSavingSummary(summary) : undefined };
	}

	/** Every runtime token-saving record, page by page. */
	iterateRuntimeTokenSavings(
		runtimeId: string,
		options: Omit<T.PageOptions, 'cursor'> = {},
	): AsyncGenerator<T.TokenSavingRecord, void, undefined> {
		return paginate((cursor) => this.listRuntimeTokenSavings(runtimeId, { ...options, cursor }));
	}

	// ------------------------------------------------------------------ images and builds

	/** GET /v2/images. */
	async listImages(options: T.CallOptions = {}): Promise<T.ImageVariant[]> {
		return arrayOf(
			await this.call({ method: 'GET', path: '/v2/images', route: 'GET /v2/images', idempotent: true, signal: options.signal }),
			'images',
		);
	}

	/** DELETE /v2/images/{image_id}: deletes an unused custom image. */
	async deleteImage(imageId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('imageId', imageId);
		await this.call({
			method: 'DELETE',
			path: `/v2/images/${e(imageId)}`,
			route: 'DELETE /v2/images/{image_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	/** GET /v2/images/builds: one page. */
	async listImageBuilds(options: T.PageOptions = {}): Promise<T.Page<T.ImageBuild>> {
		V.checkRange('limit', options.limit, V.LIMITS.imageBuildListLimit);
		return dataPage<T.ImageBuild>(
			await this.call({
				method: 'GET',
				path: '/v2/images/builds',
				route: 'GET /v2/images/builds',
				query: { limit: options.limit, after: options.cursor },
				idempotent: true,
				signal: options.signal,
			}),
			'builds',
		);
	}

	/** Every image build, page by page. */
	iterateImageBuilds(options: Omit<T.PageOptions, 'cursor'> = {}): AsyncGenerator<T.ImageBuild, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.imageBuildListLimit);
		return paginate((cursor) => this.listImageBuilds({ ...options, cursor }));
	}

	/**
	 * POST /v2/images/builds with an Idempotency-Key (generated unless given): the one create the
	 * service makes safe to repeat, so it is retried like a read. The header's name is not shown:
	 * the key goes as `Idempotency-Key` and `X-Idempotency-Key` (the same value).
	 */
	async createImageBuild(
		request: T.CreateImageBuildRequest | Record<string, unknown>,
		options: T.CallOptions & { idempotencyKey?: string } = {},
	): Promise<T.ImageBuild> {
		const key = options.idempotencyKey ?? randomUUID();
		return unwrap(
			await this.call({
				method: 'POST',
				path: '/v2/images/builds',
				route: 'POST /v2/images/builds',
				body: request,
				headers: { 'idempotency-key': key, 'x-idempotency-key': key },
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	/** GET /v2/images/builds/{build_id}. */
	async getImageBuild(buildId: string, options: T.CallOptions = {}): Promise<T.ImageBuild> {
		V.checkOpaqueId('buildId', buildId);
		return unwrap(
			await this.call({
				method: 'GET',
				path: `/v2/images/builds/${e(buildId)}`,
				route: 'GET /v2/images/builds/{build_id}',
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	// ------------------------------------------------------------------ checkpoints

	/** GET /v2/checkpoints: one page of user-created checkpoints. */
	async listCheckpoints(options: T.PageOptions = {}): Promise<T.Page<T.Checkpoint>> {
		V.checkRange('limit', options.limit, V.LIMITS.checkpointListLimit);
		return this.pageWithCursor('checkpoints', options.cursor, async (param, cursor) =>
			dataPage<T.Checkpoint>(
				await this.call({
					method: 'GET',
					path: '/v2/checkpoints',
					route: 'GET /v2/checkpoints',
					query: { limit: options.limit, [param]: cursor },
					idempotent: true,
					signal: options.signal,
				}),
			),
		);
	}

	/** Every checkpoint, page by page. */
	iterateCheckpoints(options: Omit<T.PageOptions, 'cursor'> = {}): AsyncGenerator<T.Checkpoint, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.checkpointListLimit);
		return paginate((cursor) => this.listCheckpoints({ ...options, cursor }));
	}

	// ------------------------------------------------------------------ secrets

	/** GET /v2/secrets/{secret_id} (UUID or display name). */
	async getSecret(secretId: string, options: T.CallOptions = {}): Promise<T.Secret> {
		V.checkOpaqueId('secretId', secretId);
		return this.decoded(
			{
				method: 'GET',
				path: `/v2/secrets/${e(secretId)}`,
				route: 'GET /v2/secrets/{secret_id}',
				idempotent: true,
				signal: options.signal,
			},
			this.one<T.Secret>(D.decodeSecret, true),
		);
	}

	/** DELETE /v2/secrets/{secret_id}. */
	async deleteSecret(secretId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('secretId', secretId);
		await this.call({
			method: 'DELETE',
			path: `/v2/secrets/${e(secretId)}`,
			route: 'DELETE /v2/secrets/{secret_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ secret stubs

	/** POST /v1/runtimes/{runtime_id}/secret-stubs. Not retried. */
	async createSecretStub(runtimeId: string, request: T.CreateSecretStubRequest, options: T.CallOptions = {}): Promise<T.SecretStub> {
		V.checkOpaqueId('runtimeId', runtimeId);
		return this.mutateOnce('secret stub', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v1/runtimes/${e(runtimeId)}/secret-stubs`,
					route: 'POST /v1/runtimes/{runtime_id}/secret-stubs',
					body: request,
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.SecretStub>(D.decodeSecretStub, true),
			),
		);
	}

	/** DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}. */
	async deleteRuntimeSecretStub(runtimeId: string, stubId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkOpaqueId('stubId', stubId);
		await this.call({
			method: 'DELETE',
			path: `/v1/runtimes/${e(runtimeId)}/secret-stubs/${e(stubId)}`,
			route: 'DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	/** GET /v1/secret-stubs. */
	async listSecretStubs(options: T.CallOptions = {}): Promise<T.SecretStub[]> {
		return this.decoded(
			{ method: 'GET', path: '/v1/secret-stubs', route: 'GET /v1/secret-stubs', idempotent: true, signal: options.signal },
			this.listOf<T.SecretStub>(D.decodeSecretStub),
		);
	}

	/** DELETE /v1/secret-stubs/{stub_id}. */
	async deleteSecretStub(stubId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('stubId', stubId);
		await this.call({
			method: 'DELETE',
			path: `/v1/secret-stubs/${e(stubId)}`,
			route: 'DELETE /v1/secret-stubs/{stub_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	// ------------------------------------------------------------------ SSH keys

	/** DELETE /v2/ssh-keys/{ssh_key_id}: deletes one of the current user's keys. */
	async deleteSshKey(sshKeyId: string, options: T.CallOptions = {}): Promise<T.SshKey> {
		V.checkOpaqueId('sshKeyId', sshKeyId);
		return unwrap(
			await this.call({
				method: 'DELETE',
				path: `/v2/ssh-keys/${e(sshKeyId)}`,
				route: 'DELETE /v2/ssh-keys/{ssh_key_id}',
				idempotent: false,
				signal: options.signal,
			}),
		);
	}

	// ------------------------------------------------------------------ GitHub

	/** GET /v2/github/authorization-requests. */
	async listGitHubAuthorizationRequests(options: T.CallOptions = {}): Promise<T.GitHubAuthorizationRequest[]> {
		return this.decoded(
			{
				method: 'GET',
				path: '/v2/github/authorization-requests',
				route: 'GET /v2/github/authorization-requests',
				idempotent: true,
				signal: options.signal,
			},
			this.listOf<T.GitHubAuthorizationRequest>(D.decodeGitHubAuthorizationRequest, 'requests'),
		);
	}

	/** PUT /v2/github/runtime-bindings/{runtime_id}: atomically replaces the bindings (idempotent, so retried). */
	async setGitHubRuntimeBindings(
		runtimeId: string,
		repositories: T.RepositoryRef[],
		options: T.CallOptions = {},
	): Promise<T.GitHubRuntimeBinding[]> {
		V.checkOpaqueId('runtimeId', runtimeId);
		return arrayOf(
			await this.call({
				method: 'PUT',
				path: `/v2/github/runtime-bindings/${e(runtimeId)}`,
				route: 'PUT /v2/github/runtime-bindings/{runtime_id}',
				body: { repositories },
				idempotent: true,
				signal: options.signal,
			}),
			'bindings',
		);
	}

	// ------------------------------------------------------------------ token savings

	/**
	 * GET /v2/token-savings: one account-wide page with totals over the whole filter, events decoded
	 * (decodeTokenSavingEvent). The runtime filter's parameter name is not shown: `runtime_id` is
	 * sent; a page holding another runtime's events means the server ignored it, and the other
	 * RUNTIME_FILTER_PARAMETER_NAMES are tried (one request each) and the one that works remembered.
	 * When none works the page says so (`runtimeFilterIgnored`).
	 */
	async listTokenSavings(options: T.TokenSavingsQuery = {}): Promise<T.AccountTokenSavingsPage> {
		V.checkRange('limit', options.limit, V.LIMITS.tokenSavingsPageSize);
		const runtimeId = options.runtimeId;
		if (runtimeId !== undefined) {
			V.checkOpaqueId('runtimeId', runtimeId);
		}
		return this.pageWithCursor('token-savings', options.cursor, async (param, cursor) => {
			const fetch = async (runtimeParam: string): Promise<T.AccountTokenSavingsPage> => {
				const res = await this.send<unknown>({
					method: 'GET',
					path: '/v2/token-savings',
					route: 'GET /v2/token-savings',
					query: { page_size: options.limit, [param]: cursor, [runtimeParam]: runtimeId, method: options.method },
					idempotent: true,
					signal: options.signal,
				});
				const data = obj(obj(res.body).data);
				const raw = rawArrayOf(res.body, ['events']);
				checkPageSize(raw, res.requestId);
				let dropped = 0;
				const items = D.decodeList(raw, D.decodeTokenSavingEvent, { requestId: res.requestId }, (count, first) => {
					dropped = count;
					this.transport.debug(`dropped ${count} invalid token-saving event(s): ${first.message}`);
				});
				const totals = data.totals;
				const page = dataPage<unknown>(res.body, 'events');
				return {
					items,
					nextCursor: page.nextCursor,
					totals: totals ? D.decodeTokenSavingTotals(totals) : undefined,
					dropped,
					runtimeFilterIgnored: false,
				};
			};
			const known = this.runtimeFilterParam;
			const first = await fetch(known);
			if (runtimeId === undefined || !first.items.some((ev) => ev.runtime_id !== undefined && ev.runtime_id !== runtimeId)) {
				return first;
			}
			for (const name of RUNTIME_FILTER_PARAMETER_NAMES) {
				if (name === known) {
					continue;
				}
				const candidate = await fetch(name);
				if (!candidate.items.some((ev) => ev.runtime_id !== undefined && ev.runtime_id !== runtimeId)) {
					this.transport.debug(`token-savings: the server ignores "${known}"; its runtime filter parameter is "${name}"`);
					this.runtimeFilterParam = name;
					return candidate;
				}
			}
			return { ...first, runtimeFilterIgnored: true };
		});
	}

	/** Every account-wide token-saving record, page by page. */
	iterateTokenSavings(options: Omit<T.TokenSavingsQuery, 'cursor'> = {}): AsyncGenerator<T.TokenSavingEventRecord, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.tokenSavingsPageSize);
		return paginate((cursor) => this.listTokenSavings({ ...options, cursor }));
	}
}
