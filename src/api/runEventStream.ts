/**
 * The reconnect layer of run-event streams, and the only reconnect policy for them in the
 * extension: callers (the run follower) consume events and the outcome, and never reconnect
 * themselves. It resumes after a drop with `after` = the last delivered sequence (the service's
 * cursor, in place of SSE's Last-Event-ID), paces reconnects (never sooner than
 * `SAFETY.streamReconnectMinMs`, jittered backoff while nothing arrives, at most
 * `SAFETY.streamReconnectsPerMinute` a minute: more ends the stream with `reconnect_limit`), reads
 * the run when the server ends the stream cleanly (to tell an ended run from a pause; `finalRun`),
 * and ends on an answer retrying will not change (4xx, an authentication failure among them).
 *
 * One connection at a time comes from `sseStream.ts`; what its frames mean is decided by
 * `runEventDecoder.ts`.
 */
import { abortError, isAbortError, sleep } from './async';
import { ApiError } from './errors';
import { NetworkError, type Transport, toNetworkError } from './http';
import { SAFETY } from './limits';
import { backoffDelay } from './retry';
import { RunEventDecoder } from './runEventDecoder';
import { SseConnection, type SseSink } from './sseStream';
import { type EventRecord, type Run, isTerminalRunStatus } from './types';

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

/** What a RunEventStream reads and how it reconnects. */
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

/** Run statuses known to mean "still going": a clean end of the stream then always reconnects. */
const ACTIVE_RUN_STATUSES = new Set(['queued', 'pending', 'running', 'in_progress', 'starting', 'started', 'working', 'active']);

/**
 * Run events as an async iterator. Tracks the last sequence id; after a drop, a 5xx/429, a
 * retryable `error` event or an idle time-out it reconnects with `after` = last id (after the
 * minimum pause following a connection that made progress, then with jittered backoff) and drops
 * anything at or below that id. Ends after `run.completed`, or when a quiet stream closes and the
 * run turns out to have ended. Throws on 4xx, on a frame that breaks the contract, and when
 * reconnects stop making progress or exceed the per-minute cap.
 */
export class RunEventStream implements AsyncIterableIterator<EventRecord> {
	private readonly buf: EventRecord[] = [];
	private index = 0;
	private readonly decoder: RunEventDecoder;
	private readonly sink: SseSink;
	private conn: SseConnection | undefined;
	private closed = false;
	private serverRetry: number | undefined;
	private failures = 0;
	private progress = false;
	private streamError: Error | undefined;
	/** The run as read after the last clean end of the stream. */
	private lastRun: Run | undefined;
	/** Clean ends in a row that brought no new event. */
	private quietCleanEnds = 0;
	/** Times of the reconnects of the last minute. */
	private readonly reconnectTimes: number[] = [];
	/** Connections opened so far (diagnostics and tests). */
	connections = 0;

	constructor(private readonly p: RunEventStreamParams) {
		this.decoder = new RunEventDecoder(p.after, {
			requestId: () => this.requestId(),
			checkRequestId: (value) => p.transport.checkRequestId(value),
			scrub: (text) => p.transport.scrub(text),
		});
		this.sink = {
			message: (id, type, data) => this.decoder.push(id, type, data),
			retry: (ms) => (this.serverRetry = ms),
		};
	}

	/** The last sequence id delivered (the `after` to resume from). */
	get lastSeq(): number {
		return this.decoder.last;
	}

	/** The run as last read after a clean end of the stream (its final state once the stream has ended that way). */
	get finalRun(): Run | undefined {
		return this.lastRun;
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

	private requestId(): string | undefined {
		return this.conn?.requestId();
	}

	private dropConnection(): void {
		this.conn?.close();
		this.conn = undefined;
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
				if (this.closed || this.decoder.ended) {
					this.dropConnection();
					return { value: undefined, done: true };
				}
				if (signal?.aborted) {
					throw abortError(signal);
				}
				const conn = this.conn;
				if (!conn) {
					await this.connect();
					continue;
				}
				let read;
				try {
					read = await conn.read();
				} catch (err) {
					if (signal?.aborted || isAbortError(err)) {
						throw signal?.aborted ? abortError(signal) : err;
					}
					this.p.transport.debug(
						`events ${this.p.runId}: stream dropped after seq ${this.decoder.last} (${toNetworkError(err).message})`,
					);
					this.dropConnection();
					continue;
				}
				if (read === 'end') {
					this.dropConnection();
					if (!this.decoder.ended) {
						await this.checkRunAfterCleanEnd(signal);
					}
					continue;
				}
				if (this.decoder.flush(this.buf) > 0) {
					this.progress = true;
				}
				// Frames that broke the contract win over a bound of the raw stream hit in the same chunk.
				this.streamError = this.decoder.error ?? conn.error ?? this.streamError;
				if (this.buf.length === 0 && !this.streamError && conn.stalled()) {
					// Bytes trickle in but no whole event or keep-alive: treat as dropped (then reconnect, bounded).
					this.p.transport.debug(
						`events ${this.p.runId}: no complete event for ${this.p.transport.timeouts.streamIdleMs} ms; reconnecting`,
					);
					this.dropConnection();
					continue;
				}
				if (this.streamError) {
					// Deliver what came before the error; the next pull throws it.
					this.dropConnection();
				}
				if (this.decoder.reconnectRequested) {
					this.decoder.reconnectRequested = false;
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
			this.dropConnection();
			throw err;
		}
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
			this.decoder.ended = true;
			return;
		}
		const known = typeof run.status === 'string' && ACTIVE_RUN_STATUSES.has(run.status.toLowerCase());
		if (!known && !this.progress && this.quietCleanEnds >= 1 && previous?.status === run.status) {
			this.p.transport.debug(
				`events ${this.p.runId}: the server ended the stream again without news (run status ${String(run.status)}); treating the run as ended`,
			);
			this.decoder.ended = true;
			return;
		}
		this.quietCleanEnds = this.progress ? 0 : this.quietCleanEnds + 1;
	}

	/** Opens (or re-opens) the stream at `after` = last delivered id, backing off while nothing arrives. */
	private async connect(): Promise<void> {
		const signal = this.p.signal;
		const opts = this.p.reconnect;
		for (;;) {
			if (this.connections > 0) {
				this.failures++;
				if (this.failures > (opts.maxReconnectAttempts ?? 8)) {
					throw new NetworkError(
						'network_error',
						`The event stream of run ${this.p.runId} kept failing; gave up after ${this.failures - 1} reconnects`,
						true,
					);
				}
				// Never more than SAFETY.streamReconnectsPerMinute reconnects a minute, however much each connection delivered.
				const now = Date.now();
				while (this.reconnectTimes.length > 0 && now - (this.reconnectTimes[0] as number) > 60_000) {
					this.reconnectTimes.shift();
				}
				if (this.reconnectTimes.length >= (opts.reconnectsPerMinute ?? SAFETY.streamReconnectsPerMinute)) {
					throw new ApiError(
						0,
						'reconnect_limit',
						`The event stream of run ${this.p.runId} was dropped ${this.reconnectTimes.length} times within a minute; stopped following`,
						this.requestId(),
					);
				}
				this.reconnectTimes.push(now);
				// The first reconnect after a connection that delivered events waits only the minimum; later ones back off.
				const minMs = opts.reconnectMinMs ?? SAFETY.streamReconnectMinMs;
				const delay =
					this.failures === 1 && this.progress
						? minMs
						: Math.max(
								minMs,
								backoffDelay(this.failures, {
									baseDelayMs: opts.reconnectBaseMs ?? this.serverRetry ?? 1000,
									maxDelayMs: opts.reconnectMaxMs ?? 30_000,
									random: opts.random ?? Math.random,
								}),
							);
				await sleep(delay, signal);
			}
			this.connections++;
			this.progress = false;
			try {
				this.conn = await SseConnection.open(
					this.p.transport,
					{
						path: `/v2/agents/${encodeURIComponent(this.p.agentId)}/runs/${encodeURIComponent(this.p.runId)}/events`,
						query: { after: this.decoder.last },
						route: 'GET /v2/agents/{agent_id}/runs/{run_id}/events',
						signal,
					},
					this.sink,
				);
				this.decoder.reset();
				return;
			} catch (err) {
				if (signal?.aborted || isAbortError(err)) {
					throw signal?.aborted ? abortError(signal) : err;
				}
				if (err instanceof ApiError && err.status !== 0 && err.status !== 429 && err.status < 500) {
					throw err; // 4xx (an authentication failure among them): the stream will not come back by retrying.
				}
				this.p.transport.debug(`events ${this.p.runId}: connect failed (${err instanceof Error ? err.message : String(err)})`);
			}
		}
	}
}
