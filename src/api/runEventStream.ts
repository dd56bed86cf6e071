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
import { abortError, isAbortError } from '../base/async';
import { type Clock, type SleepWatchOptions, SleepWatcher, systemClock, waitAwake } from '../base/clock';
import { ApiError, isUnreachable } from './errors';
import { NetworkError, type Transport, toNetworkError } from './http';
import { SAFETY } from '../base/limits';
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
	/** Where time comes from (default the system clock; tests pass a fake one, the soak bench a compressed one). */
	clock?: Clock;
	/**
	 * How the stream notices that the machine slept (`SleepWatcher`), so that it reconnects at once on
	 * waking instead of waiting for the idle time-out or a backoff set before the sleep; `false`: not.
	 */
	sleepWatch?: SleepWatchOptions | false;
}

/**
 * What a stream that waits for the service reports (`waitForService`): the service went out of
 * reach (`start`, with the failure), each wait before the next try (`retry`), and the service
 * answering again (`end`, with how long it was away and how many tries it took).
 */
export type StreamOutageEvent =
	| { type: 'start'; error: Error }
	| { type: 'retry'; delayMs: number; attempt: number }
	| { type: 'end'; durationMs: number; attempts: number };

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
	/**
	 * Keep trying while the service is out of reach (`isUnreachable`: refused, DNS, reset, time-outs,
	 * 502/503/504, a proxy down), with backoff capped at `reconnectMaxMs`, until `signal` aborts;
	 * such failures count toward neither `maxReconnectAttempts` nor `reconnectsPerMinute` (those stop
	 * a server that answers badly, not one that is away). Default false: they count like any other.
	 */
	waitForService?: boolean;
	/** Outage reports (only with `waitForService`). */
	onOutage?: (event: StreamOutageEvent) => void;
	/**
	 * How each attempt to open the stream ended (`undefined`: connected), as every other request of
	 * the client tells its outcome (CloudAgentsClientOptions.onOutcome): a stream that reconnects is
	 * news that the service is back for everything waiting on it.
	 */
	onConnectOutcome?: (err: unknown, startedAt: number) => void;
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
	/** The records of the last chunk read (a new array per chunk: nextBatch hands it out whole). */
	private buf: EventRecord[] = [];
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
	private readonly clock: Clock;
	private readonly watcher: SleepWatcher | undefined;
	private stopWatching: (() => void) | undefined;
	/** The machine woke from a sleep: the next reconnect goes at once. */
	private woke = false;
	/** The service is out of reach (waitForService): since when, tries so far, its Retry-After (s) if it said. */
	private outage: { since: number; attempts: number; retryAfter: number | undefined } | undefined;

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
		this.clock = p.reconnect.clock ?? systemClock;
		this.watcher = p.reconnect.sleepWatch === false ? undefined : SleepWatcher.of(this.clock, p.reconnect.sleepWatch ?? {});
	}

	/** True while the service is out of reach and the stream waits for it (waitForService). */
	get waitingForService(): boolean {
		return this.outage !== undefined;
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
		return this.pull().then((more) =>
			more ? { value: this.buf[this.index++] as EventRecord, done: false } : { value: undefined, done: true },
		);
	}

	/**
	 * The records not handed out yet, as they came: the rest of the last network chunk's, else the
	 * next chunk's (never empty); undefined when the stream has ended. One await per chunk instead of
	 * one per record, for a reader that takes them all (readRunEvents); the same records, errors and
	 * end as iterating, and the two can be mixed.
	 */
	async nextBatch(): Promise<readonly EventRecord[] | undefined> {
		if (this.index >= this.buf.length && !(await this.pull())) {
			return undefined;
		}
		const batch = this.index === 0 ? this.buf : this.buf.slice(this.index);
		this.buf = [];
		this.index = 0;
		return batch;
	}

	return(): Promise<IteratorResult<EventRecord>> {
		this.closed = true;
		this.dropConnection();
		this.unwatch();
		return Promise.resolve({ value: undefined, done: true });
	}

	/** Listens for the machine waking (from the first read until the stream ends). */
	private watch(): void {
		if (this.stopWatching || !this.watcher || this.closed) {
			return;
		}
		this.stopWatching = this.watcher.onWake((wake) => {
			this.woke = true;
			if (this.conn) {
				// The connection most likely died during the sleep; the idle time-out would notice only much later.
				this.p.transport.debug(
					`events ${this.p.runId}: the machine woke (the clock jumped ${Math.round(wake.lateMs / 1000)} s); reconnecting after seq ${this.decoder.last}`,
				);
				this.dropConnection();
			}
		});
	}

	private unwatch(): void {
		this.stopWatching?.();
		this.stopWatching = undefined;
	}

	private report(event: StreamOutageEvent): void {
		try {
			this.p.onOutage?.(event);
		} catch {
			// A listener's failure is not the stream's.
		}
	}

	private requestId(): string | undefined {
		return this.conn?.requestId();
	}

	private dropConnection(): void {
		this.conn?.close();
		this.conn = undefined;
	}

	/** Reads until the next chunk's records are in `buf` (true) or the stream has ended (false). */
	private async pull(): Promise<boolean> {
		this.buf = [];
		this.index = 0;
		const signal = this.p.signal;
		this.watch();
		try {
			for (;;) {
				if (this.streamError && this.buf.length === 0) {
					throw this.streamError;
				}
				if (this.closed || this.decoder.ended) {
					this.dropConnection();
					this.unwatch();
					return false;
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
					if (signal?.aborted) {
						throw abortError(signal);
					}
					if (this.conn !== conn) {
						continue; // Dropped on purpose (the machine woke): reconnect.
					}
					if (isAbortError(err)) {
						throw err;
					}
					this.p.transport.debug(
						`events ${this.p.runId}: stream dropped after seq ${this.decoder.last} (${toNetworkError(err).message})`,
					);
					this.dropConnection();
					continue;
				}
				if (this.conn !== conn) {
					continue; // Dropped on purpose while the chunk was read (the machine woke): reconnect.
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
					return true;
				}
				if (this.streamError) {
					throw this.streamError;
				}
			}
		} catch (err) {
			this.closed = true;
			this.dropConnection();
			this.unwatch();
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
		let run: Run;
		try {
			run = await this.p.getRun(signal);
		} catch (err) {
			if (this.p.waitForService && !signal?.aborted && isUnreachable(err)) {
				// The service went away right after ending the stream: reconnecting waits for it.
				this.p.transport.debug(`events ${this.p.runId}: could not read the run after a clean end (${(err as Error).message})`);
				return;
			}
			throw err;
		}
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

	/**
	 * Opens (or re-opens) the stream at `after` = last delivered id: at once after the machine woke,
	 * after a capped backoff while the service is out of reach (waitForService), otherwise after the
	 * pause the misbehaving-server caps allow.
	 */
	private async connect(): Promise<void> {
		const signal = this.p.signal;
		for (;;) {
			if (this.connections > 0) {
				const delay = this.outage ? this.outageDelay(this.outage) : this.woke ? this.wakeDelay() : this.countedDelay();
				this.woke = false;
				const outcome = await waitAwake(delay, { clock: this.clock, watcher: this.watcher, signal });
				if (outcome === 'woke') {
					this.p.transport.debug(`events ${this.p.runId}: the machine woke; reconnecting now`);
					if (this.outage) {
						this.outage.attempts = 0; // Perhaps another network now: start the backoff again.
					}
				}
				this.woke = false;
			}
			this.connections++;
			this.progress = false;
			const startedAt = Date.now();
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
				this.endOutage();
				this.p.onConnectOutcome?.(undefined, startedAt);
				return;
			} catch (err) {
				this.p.onConnectOutcome?.(err, startedAt);
				if (signal?.aborted) {
					throw abortError(signal);
				}
				if (this.p.waitForService && isUnreachable(err)) {
					this.startOutage(err);
					continue;
				}
				if (isAbortError(err)) {
					throw err;
				}
				this.endOutage(); // It answered, if badly: the caps below apply again.
				if (err instanceof ApiError && err.status !== 0 && err.status !== 429 && err.status < 500) {
					throw err; // 4xx (an authentication failure among them): the stream will not come back by retrying.
				}
				this.p.transport.debug(`events ${this.p.runId}: connect failed (${err instanceof Error ? err.message : String(err)})`);
			}
		}
	}

	/**
	 * The pause before a reconnect that counts toward the caps of a misbehaving server: throws when
	 * `maxReconnectAttempts` reconnects in a row brought nothing, or `reconnectsPerMinute` is passed.
	 */
	private countedDelay(): number {
		const opts = this.p.reconnect;
		this.failures++;
		if (this.failures > (opts.maxReconnectAttempts ?? 8)) {
			throw new NetworkError(
				'network_error',
				`The event stream of run ${this.p.runId} kept failing; gave up after ${this.failures - 1} reconnects`,
				true,
			);
		}
		this.countPerMinute();
		// The first reconnect after a connection that delivered events waits only the minimum; later ones back off.
		const minMs = opts.reconnectMinMs ?? SAFETY.streamReconnectMinMs;
		return this.failures === 1 && this.progress
			? minMs
			: Math.max(
					minMs,
					backoffDelay(this.failures, {
						baseDelayMs: opts.reconnectBaseMs ?? this.serverRetry ?? 1000,
						maxDelayMs: opts.reconnectMaxMs ?? 30_000,
						random: opts.random ?? Math.random,
					}),
				);
	}

	/** Never more than `reconnectsPerMinute` counted reconnects a minute, however much each connection delivered. */
	private countPerMinute(): void {
		const now = this.clock.now();
		while (this.reconnectTimes.length > 0 && now - (this.reconnectTimes[0] as number) > 60_000) {
			this.reconnectTimes.shift();
		}
		if (this.reconnectTimes.length >= (this.p.reconnect.reconnectsPerMinute ?? SAFETY.streamReconnectsPerMinute)) {
			throw new ApiError(
				0,
				'reconnect_limit',
				`The event stream of run ${this.p.runId} was dropped ${this.reconnectTimes.length} times within a minute; stopped following`,
				this.requestId(),
			);
		}
		this.reconnectTimes.push(now);
	}

	/** After a wake: the minimum pause only (counted per minute, so a clock that keeps jumping cannot storm). */
	private wakeDelay(): number {
		this.countPerMinute();
		return this.p.reconnect.reconnectMinMs ?? SAFETY.streamReconnectMinMs;
	}

	/** While the service is out of reach: jittered backoff, never longer than `reconnectMaxMs` (a 503's Retry-After honoured up to it). */
	private outageDelay(outage: { attempts: number; retryAfter: number | undefined }): number {
		const opts = this.p.reconnect;
		outage.attempts++;
		const capMs = opts.reconnectMaxMs ?? 30_000;
		const minMs = Math.min(capMs, opts.reconnectMinMs ?? SAFETY.streamReconnectMinMs);
		let delay = backoffDelay(Math.min(outage.attempts, 32), {
			baseDelayMs: opts.reconnectBaseMs ?? this.serverRetry ?? 1000,
			maxDelayMs: capMs,
			random: opts.random ?? Math.random,
		});
		if (outage.retryAfter !== undefined) {
			delay = Math.max(delay, outage.retryAfter * 1000);
		}
		delay = Math.min(capMs, Math.max(minMs, delay));
		this.report({ type: 'retry', delayMs: delay, attempt: outage.attempts });
		return delay;
	}

	private startOutage(err: unknown): void {
		const error = err instanceof Error ? err : new Error(String(err));
		const retryAfter = err instanceof ApiError ? err.retryAfter : undefined;
		this.p.transport.debug(`events ${this.p.runId}: the service is out of reach (${error.message}); waiting for it`);
		if (this.outage) {
			this.outage.retryAfter = retryAfter;
			return;
		}
		this.outage = { since: this.clock.now(), attempts: 0, retryAfter };
		this.report({ type: 'start', error });
	}

	private endOutage(): void {
		const outage = this.outage;
		if (!outage) {
			return;
		}
		this.outage = undefined;
		this.p.transport.debug(`events ${this.p.runId}: the service answers again; resuming after seq ${this.decoder.last}`);
		this.report({ type: 'end', durationMs: this.clock.now() - outage.since, attempts: outage.attempts });
	}
}
