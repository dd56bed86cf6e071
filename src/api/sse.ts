/**
 * Server-sent events: an incremental parser pipeline (UTF-8 decoding → eventsource-parser), a raw
 * single-connection message stream, and the run-event iterator that resumes after drops.
 *
 * Both iterators are hand-written AsyncIterators rather than async generators: events parsed from
 * one chunk are handed out from a small array with already-resolved promises, which keeps the
 * per-event cost close to the parser's own. Memory stays bounded by one network chunk plus the
 * parser's buffer, however long the stream runs.
 */
import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { abortError, isAbortError, sleep } from './async';
import { InvalidResponseError } from './decode';
import { ApiError, STATUS_BY_CODE } from './errors';
import { NetworkError, type Transport, toNetworkError } from './http';
import { SAFETY } from './limits';
import { backoffDelay } from './retry';
import { type EventRecord, type Run, isTerminalRunStatus } from './types';

/** One dispatched SSE message, with the spec's sticky last event id. */
export interface SseMessage {
	/** Event type; `message` when the stream named none (or an empty one). */
	event: string;
	data: string;
	/** The last event ID in effect at dispatch (sticky across messages; `''` when none). */
	lastEventId: string;
	/** The reconnection time (ms) last announced by `retry:`, if any. */
	retry: number | undefined;
}

/** Largest event (in characters) the parser buffers before giving up on the stream. */
export const MAX_EVENT_CHARS = SAFETY.sseEventMaxChars;

/** An SSE `id:` the client accepts as a run-local sequence number: plain decimal, a safe integer. */
const PLAIN_DECIMAL = /^\d{1,16}$/;

/**
 * Incremental UTF-8 decoding that keeps characters split across chunks intact and strips one
 * leading BOM, as the SSE spec's decode step does. (node's StringDecoder is several times faster
 * than TextDecoder in streaming mode.)
 */
export class Utf8Stream {
	private readonly decoder = new StringDecoder('utf8');
	private first = true;
	decode(chunk: Uint8Array): string {
		let text = this.decoder.write(chunk);
		if (this.first && text.length > 0) {
			this.first = false;
			if (text.charCodeAt(0) === 0xfeff) {
				text = text.slice(1);
			}
		}
		return text;
	}
}

/** Destroys a response body without an unhandled 'error' event (undici emits one when nobody reads). */
export function discard(res: Dispatcher.ResponseData | undefined): void {
	if (res && !res.body.destroyed) {
		res.body.on('error', () => undefined);
		res.body.destroy();
	}
}

const MEDIA_TYPE = /^\s*text\/event-stream\s*(;|$)/i;

/** Throws unless the response is an event stream (a missing Content-Type is tolerated). */
export function checkEventStreamResponse(res: Dispatcher.ResponseData): void {
	const value = res.headers['content-type'];
	const type = Array.isArray(value) ? value[0] : value;
	if (type !== undefined && !MEDIA_TYPE.test(type)) {
		discard(res);
		const id = res.headers['x-request-id'];
		throw new ApiError(res.statusCode, 'invalid_content_type', `Expected an event stream, got Content-Type ${type}`, Array.isArray(id) ? id[0] : id);
	}
}

/** Options of the raw SSE stream. */
export interface SseStreamOptions {
	signal?: AbortSignal;
	query?: Record<string, string | number | undefined>;
}

/**
 * A single-connection SSE stream at `path` below the base URL, as raw messages. Ends at the end
 * of the response; no reconnection (see RunEventStream for that).
 */
export function streamSse(transport: Transport, path: string, options: SseStreamOptions = {}): AsyncIterableIterator<SseMessage> {
	return new SseMessageStream(transport, path, options);
}

class SseMessageStream implements AsyncIterableIterator<SseMessage> {
	private readonly queue: SseMessage[] = [];
	private index = 0;
	private body: AsyncIterator<Uint8Array> | undefined;
	private res: Dispatcher.ResponseData | undefined;
	private finished = false;
	private lastEventId = '';
	private retry: number | undefined;
	private readonly decoder = new Utf8Stream();
	private readonly parser: EventSourceParser;
	private parseError: Error | undefined;
	private endsWithCr = false;

	constructor(private readonly transport: Transport, private readonly path: string, private readonly options: SseStreamOptions) {
		this.parser = createParser({
			maxBufferSize: MAX_EVENT_CHARS,
			onEvent: (msg: EventSourceMessage) => {
				if (msg.id !== undefined) {
					this.lastEventId = msg.id;
				}
				this.queue.push({ event: msg.event || 'message', data: msg.data, lastEventId: this.lastEventId, retry: this.retry });
			},
			onRetry: (ms: number) => {
				this.retry = ms;
			},
			onError: (err: Error & { type?: string }) => {
				if (err.type === 'max-buffer-size-exceeded') {
					this.parseError = new ApiError(200, 'event_too_large', `An event exceeded ${MAX_EVENT_CHARS} characters`, undefined);
				}
			},
		});
	}

	[Symbol.asyncIterator](): AsyncIterableIterator<SseMessage> {
		return this;
	}

	next(): Promise<IteratorResult<SseMessage>> {
		if (this.index < this.queue.length) {
			return Promise.resolve({ value: this.queue[this.index++] as SseMessage, done: false });
		}
		return this.pull();
	}

	private async pull(): Promise<IteratorResult<SseMessage>> {
		this.queue.length = 0;
		this.index = 0;
		try {
			if (!this.body && !this.finished) {
				const res = await this.transport.openStream({ method: 'GET', path: this.path, query: this.options.query, signal: this.options.signal });
				checkEventStreamResponse(res);
				this.res = res;
				this.body = (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
			}
			while (!this.finished && this.body) {
				const r = await this.body.next();
				if (r.done) {
					// A CR at the very end still ends its line (the parser waits for a possible LF);
					// an incomplete event is discarded (the parser keeps it buffered).
					if (this.endsWithCr) {
						this.parser.feed('\n');
					}
					this.close();
					if (this.queue.length > 0) {
						return { value: this.queue[this.index++] as SseMessage, done: false };
					}
					break;
				}
				const text = this.decoder.decode(r.value);
				if (text.length > 0) {
					this.endsWithCr = text.charCodeAt(text.length - 1) === 13;
				}
				this.parser.feed(text);
				if (this.parseError) {
					throw this.parseError;
				}
				if (this.queue.length > 0) {
					return { value: this.queue[this.index++] as SseMessage, done: false };
				}
			}
		} catch (err) {
			this.close();
			if (this.options.signal?.aborted) {
				throw abortError(this.options.signal);
			}
			throw err instanceof ApiError || isAbortError(err) ? err : toNetworkError(err);
		}
		return { value: undefined, done: true };
	}

	return(): Promise<IteratorResult<SseMessage>> {
		this.close();
		return Promise.resolve({ value: undefined, done: true });
	}

	private close(): void {
		this.finished = true;
		discard(this.res);
		this.res = undefined;
		this.body = undefined;
	}
}

/** Reconnection settings of run-event streams. */
export interface StreamReconnectOptions {
	/** Backoff base (ms) between reconnects that made no progress; default: the server's `retry:` or 1000. */
	reconnectBaseMs?: number;
	/** Backoff cap (ms) (default 30000). */
	reconnectMaxMs?: number;
	/** Consecutive reconnects without a new event before giving up (default 8). */
	maxReconnectAttempts?: number;
	/** Shortest pause before any reconnect, even after progress (default SAFETY.streamReconnectMinMs). */
	reconnectMinMs?: number;
	/** Most reconnects within a minute before the stream ends with an error (default SAFETY.streamReconnectsPerMinute). */
	reconnectsPerMinute?: number;
	/** Random source for jitter. */
	random?: () => number;
}

export interface RunEventStreamParams {
	transport: Transport;
	agentId: string;
	runId: string;
	after: number;
	signal: AbortSignal | undefined;
	reconnect: StreamReconnectOptions;
	/** Reads the run (to tell whether it ended when a stream closes without news). */
	getRun: (signal: AbortSignal | undefined) => Promise<Run>;
}

const RETRYABLE_STREAM_CODES = new Set(['unavailable', 'internal', 'deadline_exceeded', 'rate_limited']);

/** Run statuses known to mean "still going": a clean end of the stream then always reconnects. */
const ACTIVE_RUN_STATUSES = new Set(['queued', 'pending', 'running', 'in_progress', 'starting', 'started', 'working', 'active']);

/**
 * Run events as an async iterator. Tracks the last sequence id; after a drop, a 5xx/429 or an
 * idle time-out it reconnects with `after` = last id (immediately after a connection that made
 * progress, then with jittered backoff) and drops anything at or below that id. Ends after
 * `run.completed`, or when a quiet stream closes and the run turns out to have ended. Throws on
 * 4xx and when reconnects stop making progress.
 */
export class RunEventStream implements AsyncIterableIterator<EventRecord> {
	private readonly buf: EventRecord[] = [];
	private index = 0;
	private readonly pendingIds: Array<string | undefined> = [];
	private readonly pendingTypes: Array<string | undefined> = [];
	private readonly pendingData: string[] = [];
	/** An `error` event is among the pending messages (they are then decoded frame by frame). */
	private pendingError = false;
	private res: Dispatcher.ResponseData | undefined;
	private body: AsyncIterator<Uint8Array> | undefined;
	private decoder = new Utf8Stream();
	private readonly parser: EventSourceParser;
	private last: number;
	private ended = false;
	private closed = false;
	private serverRetry: number | undefined;
	private failures = 0;
	private progress = false;
	private streamError: Error | undefined;
	private reconnectRequested = false;
	/** When the current connection last delivered a whole event or a keep-alive comment. */
	private lastActivity = 0;
	/** The current chunk (with the previous tail) holds a token this transport sent. */
	private tokenSeen = false;
	/** The end of the previous chunk's text. */
	private tail = '';
	/** The run as read after the last clean end of the stream. */
	private lastRun: Run | undefined;
	/** Clean ends in a row that brought no new event. */
	private quietCleanEnds = 0;
	/** Times of the reconnects of the last minute. */
	private readonly reconnectTimes: number[] = [];
	/** Connections opened so far (diagnostics and tests). */
	connections = 0;

	constructor(private readonly p: RunEventStreamParams) {
		this.last = p.after;
		this.parser = createParser({
			maxBufferSize: MAX_EVENT_CHARS,
			onEvent: (m) => this.onMessage(m),
			onComment: () => (this.lastActivity = Date.now()),
			onRetry: (ms) => (this.serverRetry = ms),
			onError: (e) => this.onParseError(e),
		});
	}

	/** The last sequence id delivered (the `after` to resume from). */
	get lastSeq(): number {
		return this.last;
	}

	[Symbol.asyncIterator](): AsyncIterableIterator<EventRecord> {
		return this;
	}

	next(): Promise<IteratorResult<EventRecord>> {
		if (this.index < this.buf.length) {
			return Promise.resolve({ value: this.buf[this.index++] as EventRecord, done: false });
		}
		return this.pull();
	}

	return(): Promise<IteratorResult<EventRecord>> {
		this.closed = true;
		this.dropConnection();
		return Promise.resolve({ value: undefined, done: true });
	}

	/** Collects a parsed SSE message; records are decoded per network chunk in flushPending. */
	private onMessage(msg: EventSourceMessage): void {
		this.pendingIds.push(msg.id);
		// A token the server echoes is redacted, per message only when the chunk held one (see pull).
		this.pendingTypes.push(msg.event !== undefined && this.tokenSeen ? this.p.transport.redactTokens(msg.event) : msg.event);
		this.pendingData.push(this.tokenSeen ? this.p.transport.redactTokens(msg.data) : msg.data);
		if (msg.event === 'error') {
			this.pendingError = true;
		}
	}

	/**
	 * Decodes the messages of one network chunk. The JSON payloads are parsed with one JSON.parse
	 * over `[d1,d2,…]` (cheaper than one call per small record, and the parse runs apart from the
	 * line parser's allocations) and frame by frame whenever that batch does not parse into exactly one record per
	 * frame whose `seq` matches the frame's id (a malformed frame). Error events are handled in
	 * order; nothing after `run.completed` is delivered.
	 */
	private flushPending(): void {
		const datas = this.pendingData;
		const n = datas.length;
		if (n === 0) {
			return;
		}
		const ids = this.pendingIds;
		const types = this.pendingTypes;
		let batch: unknown[] | undefined;
		if (n > 1 && !this.pendingError) {
			// The brackets go onto the first and last payloads, so the one join yields the flat
			// array text JSON.parse wants (no second copy of the batch to flatten `[` + … + `]`).
			const first = datas[0] as string;
			const lastData = datas[n - 1] as string;
			datas[0] = `[${first}`;
			datas[n - 1] = `${lastData}]`;
			try {
				const parsed: unknown = JSON.parse(datas.join(','));
				if (Array.isArray(parsed) && parsed.length === n) {
					batch = parsed;
				}
			} catch {
				// A malformed frame: decode one by one below.
			}
			datas[0] = first;
			datas[n - 1] = lastData;
		}
		for (let i = 0; i < n && !this.ended; i++) {
			const type = types[i];
			const data = datas[i] as string;
			if (type === 'error') {
				this.onErrorEvent(data);
				continue;
			}
			const id = ids[i];
			if (id !== undefined && id !== '' && !(PLAIN_DECIMAL.test(id) && Number.isSafeInteger(Number(id)))) {
				this.streamError = new InvalidResponseError('event id', `a plain decimal sequence number (got ${JSON.stringify(id.slice(0, 40))})`, this.requestId());
				break;
			}
			let seq = id !== undefined && id !== '' ? Number(id) : NaN;
			let value: unknown = batch?.[i];
			if (batch === undefined || (Number.isSafeInteger(seq) && (value as { seq?: unknown } | null)?.seq !== seq)) {
				try {
					value = JSON.parse(data);
				} catch {
					value = undefined;
				}
			}
			const record: EventRecord =
				value !== null && typeof value === 'object' && !Array.isArray(value)
					? (value as EventRecord)
					: { seq, type: type ?? 'message', data: value === undefined ? { raw: data } : { value } };
			if (!Number.isSafeInteger(seq) && record.seq !== undefined) {
				if (typeof record.seq !== 'number' || !Number.isSafeInteger(record.seq) || record.seq < 0) {
					this.streamError = new InvalidResponseError('event seq', 'a non-negative safe integer', this.requestId());
					break;
				}
				seq = record.seq;
			}
			if (Number.isSafeInteger(seq)) {
				if (seq <= this.last) {
					continue; // Replayed after a reconnect: already delivered.
				}
				this.last = seq;
				if (record.seq === undefined) {
					record.seq = seq;
				}
			}
			if (record.type === undefined) {
				record.type = type ?? 'message';
			}
			this.progress = true;
			this.buf.push(record);
			if (record.type === 'run.completed') {
				this.ended = true;
			}
		}
		ids.length = 0;
		types.length = 0;
		datas.length = 0;
		this.pendingError = false;
	}

	private onErrorEvent(data: string): void {
		let code = 'internal';
		let message = 'The event stream reported an error';
		try {
			const body = JSON.parse(data) as { error?: { code?: unknown; message?: unknown } };
			if (typeof body.error?.code === 'string') {
				code = body.error.code;
			}
			if (typeof body.error?.message === 'string') {
				message = body.error.message;
			}
		} catch {
			// Keep the defaults.
		}
		if (RETRYABLE_STREAM_CODES.has(code)) {
			this.reconnectRequested = true;
		} else {
			const rid = this.res?.headers['x-request-id'];
			this.streamError = new ApiError(STATUS_BY_CODE[code] ?? 500, code, this.p.transport.scrub(message), Array.isArray(rid) ? rid[0] : rid);
		}
	}

	private requestId(): string | undefined {
		const rid = this.res?.headers['x-request-id'];
		return Array.isArray(rid) ? rid[0] : rid;
	}

	private onParseError(err: Error & { type?: string }): void {
		if (err.type === 'max-buffer-size-exceeded') {
			this.streamError = new ApiError(200, 'event_too_large', `An event exceeded ${MAX_EVENT_CHARS} characters`, undefined);
		}
	}

	private dropConnection(): void {
		discard(this.res);
		this.res = undefined;
		this.body = undefined;
	}

	private async pull(): Promise<IteratorResult<EventRecord>> {
		this.buf.length = 0;
		this.index = 0;
		const signal = this.p.signal;
		try {
			for (;;) {
				if (this.streamError && this.buf.length === 0) {
					throw this.streamError;
				}
				if (this.closed || this.ended) {
					this.finish();
					return { value: undefined, done: true };
				}
				if (signal?.aborted) {
					throw abortError(signal);
				}
				if (!this.body) {
					await this.connect();
					continue;
				}
				let r: IteratorResult<Uint8Array>;
				try {
					r = await this.body.next();
				} catch (err) {
					if (signal?.aborted || isAbortError(err)) {
						throw signal?.aborted ? abortError(signal) : err;
					}
					this.p.transport.debug(`events ${this.p.runId}: stream dropped after seq ${this.last} (${toNetworkError(err).message})`);
					this.dropConnection();
					continue;
				}
				if (r.done) {
					this.dropConnection();
					if (!this.ended) {
						await this.checkRunAfterCleanEnd(signal);
					}
					continue;
				}
				const text = this.decoder.decode(r.value);
				// One search per chunk (with the previous chunk's tail, for a token split across two).
				this.tokenSeen = this.p.transport.containsToken(this.tail + text);
				this.tail = text.slice(-64);
				this.parser.feed(text);
				if (this.pendingData.length > 0) {
					this.lastActivity = Date.now();
				}
				this.flushPending();
				if (this.buf.length === 0 && !this.streamError && Date.now() - this.lastActivity > this.p.transport.timeouts.streamIdleMs) {
					// Bytes trickle in but no whole event or keep-alive: treat as dropped (then reconnect, bounded).
					this.p.transport.debug(`events ${this.p.runId}: no complete event for ${this.p.transport.timeouts.streamIdleMs} ms; reconnecting`);
					this.dropConnection();
					continue;
				}
				if (this.streamError) {
					// Deliver what came before the error; the next pull throws it.
					this.dropConnection();
				}
				if (this.reconnectRequested) {
					this.reconnectRequested = false;
					this.dropConnection();
				}
				if (this.buf.length > 0) {
					this.failures = 0;
					return { value: this.buf[this.index++] as EventRecord, done: false };
				}
				if (this.streamError) {
					throw this.streamError;
				}
			}
		} catch (err) {
			this.closed = true;
			this.finish();
			throw err;
		}
	}

	private finish(): void {
		this.dropConnection();
	}

	/**
	 * A clean end of the stream without a completion event: read the run before any reconnect. A
	 * terminal status (TERMINAL_RUN_STATUSES) ends the stream. A status no list knows ends it when
	 * the server has now ended the stream twice in a row without news and the status did not move:
	 * what the server does says the run has nothing more to send. Known active statuses reconnect.
	 */
	private async checkRunAfterCleanEnd(signal: AbortSignal | undefined): Promise<void> {
		const run = await this.p.getRun(signal);
		const previous = this.lastRun;
		this.lastRun = run;
		if (isTerminalRunStatus(run.status)) {
			this.ended = true;
			return;
		}
		const known = typeof run.status === 'string' && ACTIVE_RUN_STATUSES.has(run.status.toLowerCase());
		if (!known && !this.progress && this.quietCleanEnds >= 1 && previous?.status === run.status) {
			this.p.transport.debug(`events ${this.p.runId}: the server ended the stream again without news (run status ${String(run.status)}); treating the run as ended`);
			this.ended = true;
			return;
		}
		this.quietCleanEnds = this.progress ? 0 : this.quietCleanEnds + 1;
	}

	/** The run as last read after a clean end of the stream (its final state once the stream has ended that way). */
	get finalRun(): Run | undefined {
		return this.lastRun;
	}

	/** Opens (or re-opens) the stream at `after` = last delivered id, backing off while nothing arrives. */
	private async connect(): Promise<void> {
		const signal = this.p.signal;
		const opts = this.p.reconnect;
		for (;;) {
			if (this.connections > 0) {
				this.failures++;
				if (this.failures > (opts.maxReconnectAttempts ?? 8)) {
					throw new NetworkError('network_error', `The event stream of run ${this.p.runId} kept failing; gave up after ${this.failures - 1} reconnects`, true);
				}
				// Never more than SAFETY.streamReconnectsPerMinute reconnects a minute, however much each connection delivered.
				const now = Date.now();
				while (this.reconnectTimes.length > 0 && now - (this.reconnectTimes[0] as number) > 60_000) {
					this.reconnectTimes.shift();
				}
				if (this.reconnectTimes.length >= (opts.reconnectsPerMinute ?? SAFETY.streamReconnectsPerMinute)) {
					throw new ApiError(0, 'reconnect_limit', `The event stream of run ${this.p.runId} was dropped ${this.reconnectTimes.length} times within a minute; stopped following`, this.requestId());
				}
				this.reconnectTimes.push(now);
				// The first reconnect after a connection that delivered events waits only the minimum; later ones back off.
				const minMs = opts.reconnectMinMs ?? SAFETY.streamReconnectMinMs;
				const delay = this.failures === 1 && this.progress
					? minMs
					: Math.max(minMs, backoffDelay(this.failures, { baseDelayMs: opts.reconnectBaseMs ?? this.serverRetry ?? 1000, maxDelayMs: opts.reconnectMaxMs ?? 30_000, random: opts.random ?? Math.random }));
				await sleep(delay, signal);
			}
			this.connections++;
			this.progress = false;
			try {
				const res = await this.p.transport.openStream({ method: 'GET', path: `/v2/agents/${encodeURIComponent(this.p.agentId)}/runs/${encodeURIComponent(this.p.runId)}/events`, query: { after: this.last }, signal, route: 'GET /v2/agents/{agent_id}/runs/{run_id}/events' });
				checkEventStreamResponse(res);
				this.res = res;
				this.body = (res.body as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
				this.parser.reset();
				this.pendingIds.length = 0;
				this.pendingTypes.length = 0;
				this.pendingData.length = 0;
				this.pendingError = false;
				this.decoder = new Utf8Stream();
				this.lastActivity = Date.now();
				return;
			} catch (err) {
				if (signal?.aborted || isAbortError(err)) {
					throw signal?.aborted ? abortError(signal) : err;
				}
				if (err instanceof ApiError && err.status !== 0 && err.status !== 429 && err.status < 500) {
					throw err; // 4xx: the stream will not come back by retrying.
				}
				this.p.transport.debug(`events ${this.p.runId}: connect failed (${err instanceof Error ? err.message : String(err)})`);
			}
		}
	}
}
