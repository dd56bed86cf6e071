/**
 * The core of CloudAgentsClient (src/api/client.ts): its options, the state it keeps per server and
 * the steps its endpoint methods are built from, and the small readers of answer bodies they share.
 */
import { ApiError, OutcomeUnknownError, ValidationError } from '../errors';
import { SAFETY } from '../../base/limits';
import {
	type HttpMethod,
	type HttpResult,
	NetworkError,
	type QueryValue,
	type RequestSpec,
	Transport,
	type TransportOptions,
} from '../http';
import { ListingStoppedError, checkPageSize } from '../pagination';
import { isJsonObject, membersOf } from '../validation';
import type { StreamOutageEvent, StreamReconnectOptions } from '../sse';
import * as D from '../decode';
import { isSafeId } from '../decode';
import type * as T from '../types';

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

/** One call of an endpoint method: the transport's RequestSpec with its route template required. */
export interface Call {
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
export function e(id: string): string {
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

/** The members of a JSON object answer, or none: the one check, api/validation.ts `membersOf`. */
export const obj = membersOf;
/** `{data: X}` → X; tolerates an unwrapped record. */
export function unwrap<R>(body: unknown): R {
	const b = obj(body);
	return ('data' in b ? b.data : body) as R;
}
/** An array from the body itself or one of the given members (of the body or of body.data). */
export function arrayOf<R>(body: unknown, ...keys: string[]): R[] {
	const items = rawArrayOf(body, keys);
	checkPageSize(items);
	return items as R[];
}
export function rawArrayOf(body: unknown, keys: readonly string[]): unknown[] {
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
export function nextCursorOf(body: Record<string, unknown>): string | undefined {
	const p = obj(body.pagination);
	for (const v of [body.next_cursor, body.next_page_token, body.next, p.next_cursor, p.next_page_token]) {
		if (typeof v === 'string' && v !== '') {
			return p.has_more === false ? undefined : v;
		}
	}
	return undefined;
}
export function timeOf(value: unknown): number | undefined {
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
	const first = items[0];
	return isJsonObject(first) && (typeof first.id === 'string' || typeof first.id === 'number')
		? `id:${first.id}`
		: JSON.stringify(first)?.slice(0, 512);
}

/**
 * What every endpoint group shares: the transport, the per-server findings (cursor and filter
 * parameter names), and the steps every endpoint method is built from (send, decode, reconcile).
 * Holds all of the client's state: the groups (src/api/endpoints/*.ts) add methods only.
 */
export class ClientCore {
	/** The transport (exposed for diagnostics and the retry budget). */
	readonly transport: Transport;
	/** Per listing: the cursor parameter name found to work on this server (this client is per origin). */
	protected readonly cursorParams = new Map<string, string>();
	/** Per listing: the identity of its first page, to tell when a server ignored a cursor. */
	protected readonly firstPages = new Map<string, string | undefined>();
	/** The runtime filter parameter of GET /v2/token-savings found to work on this server. */
	protected runtimeFilterParam: string = RUNTIME_FILTER_PARAMETER_NAMES[0] ?? 'runtime_id';
	/** Request id of the last workspace operation answered (for WorkspaceInterfaceError messages). */
	protected lastWorkspaceRequestId: string | undefined;
	/** Per agent: a listing of its workspace root on its way to tell what a 422 meant (WorkspaceEndpoints). */
	protected readonly workspaceRootChecks = new Map<string, Promise<boolean>>();

	constructor(protected readonly options: CloudAgentsClientOptions) {
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

	protected async call<R>(c: Call): Promise<R> {
		return (await this.send<R>(c)).body;
	}

	/** One request through the transport, its outcome told to `onOutcome`. */
	protected async send<R>(spec: RequestSpec): Promise<HttpResult<R>> {
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

	protected tell(err: unknown, startedAt: number): void {
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
	protected async pageWithCursor<I, P extends T.Page<I> = T.Page<I>>(
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
	protected async decoded<R>(c: Call, decode: (body: unknown, ctx: D.DecodeContext) => R): Promise<R> {
		const res = await this.send<unknown>(c);
		return decode(res.body, { requestId: res.requestId });
	}

	/** A decoder of a listing: the array under one of `keys`, each item decoded, bad items dropped (logged once). */
	protected listOf<R>(decode: D.Decoder<unknown>, ...keys: string[]): (body: unknown, ctx: D.DecodeContext) => R[] {
		return (body, ctx) => {
			const items = rawArrayOf(body, keys);
			checkPageSize(items, ctx.requestId);
			return D.decodeList(items, decode, ctx, (count, first) =>
				this.transport.debug(`dropped ${count} invalid record(s) from a listing: ${first.message}`),
			) as R[];
		};
	}

	/** A decoder of one record, unwrapping `{data: …}` first when `wrapped`. */
	protected one<R>(decode: D.Decoder<unknown>, wrapped = false): (body: unknown, ctx: D.DecodeContext) => R {
		return (body, ctx) => decode(wrapped ? unwrap(body) : body, ctx) as R;
	}

	/**
	 * Runs a create that has no idempotency key. On an ambiguous failure (time-out or reset after
	 * the request was sent) it never re-sends: it looks for the resource and returns it when exactly
	 * one candidate matches, else throws OutcomeUnknownError.
	 */
	protected async createOnce<R>(kind: string, send: () => Promise<R>, find: (since: number) => Promise<R[]>): Promise<R> {
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
	protected async mutateOnce<R>(kind: string, send: () => Promise<R>): Promise<R> {
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
}
