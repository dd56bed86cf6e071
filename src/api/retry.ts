/**
 * Retry policy: bounded exponential backoff with full jitter, Retry-After honoured up to a cap,
 * and a client-wide retry budget (a token bucket) so an outage fails fast instead of multiplying
 * traffic. Which requests may be retried is decided by the caller (http.ts): idempotent ones only.
 */
import { SAFETY } from '../base/limits';

/** Tunables of the retry policy. Defaults suit an editor extension; tests shrink them. */
export interface RetryOptions {
	/** Attempts in total, first one included (default 3). 1 disables retries. */
	maxAttempts?: number;
	/** Backoff base in ms: attempt n waits random(0, min(maxDelayMs, baseDelayMs * 2^(n-1))) (default 500). */
	baseDelayMs?: number;
	/** Backoff cap in ms (default 10000). */
	maxDelayMs?: number;
	/** Longest Retry-After honoured in ms; a longer one is not waited for but surfaced (default 30000). */
	maxRetryAfterMs?: number;
	/** Retry budget: tokens in the bucket (default 20). Each retry spends one. */
	budget?: number;
	/** Tokens a successful request puts back (default 0.2, up to the capacity). */
	budgetRefill?: number;
	/** Shortest wait between retries, whatever backoff or Retry-After say (default SAFETY.retryMinDelayMs). */
	minDelayMs?: number;
	/** Random source in [0, 1) for jitter (tests pin it). */
	random?: () => number;
}

export type ResolvedRetryOptions = Required<RetryOptions>;

export function resolveRetryOptions(options: RetryOptions | undefined): ResolvedRetryOptions {
	return {
		maxAttempts: Math.max(1, options?.maxAttempts ?? 3),
		baseDelayMs: options?.baseDelayMs ?? 500,
		maxDelayMs: options?.maxDelayMs ?? SAFETY.retryMaxDelayMs,
		maxRetryAfterMs: Math.min(options?.maxRetryAfterMs ?? SAFETY.retryAfterMaxMs, SAFETY.retryAfterMaxMs),
		minDelayMs: options?.minDelayMs ?? SAFETY.retryMinDelayMs,
		budget: options?.budget ?? 20,
		budgetRefill: options?.budgetRefill ?? 0.2,
		random: options?.random ?? Math.random,
	};
}

/**
 * The backoff formula of every retry loop (requests, the run-event stream's reconnects, the views'
 * offline retries): the wait before retry number `retry` (1-based). Its ceiling is `baseDelayMs`
 * doubled `retry - 1` times (at most 32 times), at most `maxDelayMs`; the wait lies in the last
 * `jitter` part of it: 1 (the default) is full jitter, anywhere in [0, ceiling); 0.2 waits at least
 * 80 % of the ceiling. `random()` places it: 0 the shortest, towards 1 the longest (clamped to [0, 1]).
 */
export function backoffDelay(
	retry: number,
	options: Pick<ResolvedRetryOptions, 'baseDelayMs' | 'maxDelayMs' | 'random'> & { jitter?: number },
): number {
	const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** Math.min(Math.max(0, retry - 1), 32));
	const jitter = Math.min(Math.max(options.jitter ?? 1, 0), 1);
	const r = Math.min(Math.max(options.random(), 0), 1);
	return Math.floor(ceiling * (1 - jitter) + ceiling * jitter * r);
}

/**
 * The wait before retry number `retry` (1-based): the server's Retry-After (seconds) when given,
 * else full-jitter backoff; never shorter than `minDelayMs`. Undefined when Retry-After asks for
 * longer than `maxRetryAfterMs`: the caller surfaces the error instead of waiting.
 */
export function retryDelay(retry: number, retryAfterSeconds: number | undefined, options: ResolvedRetryOptions): number | undefined {
	if (retryAfterSeconds !== undefined) {
		const ms = retryAfterSeconds * 1000;
		if (!(ms <= options.maxRetryAfterMs)) {
			return undefined;
		}
		return Math.max(options.minDelayMs, ms);
	}
	return Math.max(options.minDelayMs, backoffDelay(retry, options));
}

/**
 * Least time a retry must still have before the request's overall deadline, after its wait, to be
 * started at all: one that could not get an answer in time is not sent.
 */
export const RETRY_MIN_ATTEMPT_MS = 500;

/**
 * One overall deadline of a request, from its first attempt's start: it covers every attempt and
 * the waits between them. Time comes from `now` (tests pass a fake clock).
 */
export class OverallDeadline {
	/** When it passes (on the `now` clock). */
	readonly at: number;
	constructor(
		/** Its length in ms. */
		readonly ms: number,
		private readonly now: () => number = Date.now,
	) {
		this.at = now() + ms;
	}
	/** Milliseconds left (negative once passed). */
	remaining(): number {
		return this.at - this.now();
	}
	/** True when it has passed. */
	passed(): boolean {
		return this.remaining() <= 0;
	}
	/** Whether a retry that first waits `delayMs` still has RETRY_MIN_ATTEMPT_MS before the deadline. */
	allowsRetryAfter(delayMs: number): boolean {
		return delayMs + RETRY_MIN_ATTEMPT_MS <= this.remaining();
	}
	/**
	 * Whether an attempt started now needs the deadline to abort it: true when the connect and header
	 * time-outs together could outlast what is left (once the headers are in, the deadline ends a
	 * trickling body by itself).
	 */
	needsAbort(connectMs: number, headersMs: number): boolean {
		return connectMs + headersMs >= this.remaining();
	}
}

/** A duration for messages: whole seconds, or one decimal below 10 s when not whole ("3 s", "0.8 s"). */
export function formatSeconds(ms: number): string {
	const s = ms / 1000;
	return `${Number.isInteger(s) || s >= 10 ? Math.round(s) : s.toFixed(1)} s`;
}

/**
 * Parses Retry-After (delta seconds or an HTTP date) into seconds, or undefined when absent or
 * malformed. Fractions are accepted (some servers send them).
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
	const raw = Array.isArray(value) ? value[0] : value;
	if (raw === undefined || raw.trim() === '') {
		return undefined;
	}
	const trimmed = raw.trim();
	if (/^\d{1,10}(\.\d{1,6})?$/.test(trimmed)) {
		return Number(trimmed);
	}
	if (/^[-+\d.eE]+$/.test(trimmed)) {
		return undefined; // Negative, exponent or absurdly long numbers: malformed.
	}
	const date = Date.parse(trimmed);
	if (Number.isNaN(date)) {
		return undefined;
	}
	return Math.max(0, (date - now) / 1000);
}

/**
 * A token bucket shared by every request of one client. Retries spend tokens; successes put a
 * fraction back. When empty, requests fail on their first error: an outage fails fast.
 */
export class RetryBudget {
	private tokens: number;
	constructor(
		private readonly capacity: number,
		private readonly refill: number,
	) {
		this.tokens = capacity;
	}
	/** Takes one token when available. */
	tryAcquire(): boolean {
		if (this.tokens >= 1) {
			this.tokens -= 1;
			return true;
		}
		return false;
	}
	/** Records a success. */
	onSuccess(): void {
		if (this.tokens < this.capacity) {
			this.tokens = Math.min(this.capacity, this.tokens + this.refill);
		}
	}
	get available(): number {
		return this.tokens;
	}
}

export { sleep } from '../base/async';
