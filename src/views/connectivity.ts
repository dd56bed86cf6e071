/**
 * Whether the Cloud Agents service answers, as one state every view (and any other part) shares:
 * online, or offline since a moment, for a reason, with the next attempt at a known time. Without
 * VS Code: the tree views (listTree.ts) report their reads here and draw their "Offline — retrying
 * in N s" row from it, the status bar item (connectivityStatus.ts) shows "reconnecting" while it is
 * offline, and the client reports every answer (src/auth/session.ts), so the first request that
 * gets through — from a view, a command, the workspace file system — brings the lists back at once.
 *
 * Bounded by design: one timer for the whole extension, whatever the number of offline lists; one
 * attempt at a time, and when it gets an answer every offline list is re-read once. With a probe
 * (HEAD /healthz in the extension: a few bytes), an attempt is the probe and the waits stop growing
 * at 10 s, so a service that is back is seen within about 10 s however long it was out (issue 42,
 * item 2: "Offline — retrying in 57 s" after a 2.5-minute outage); every LIST_EVERY-th attempt
 * re-reads a list instead, in case the probe's path fails where the lists' would not. Without a
 * probe, an attempt re-reads one offline list (round robin) and the waits back off to 60 s. The
 * waits: 5 s, 10 s, 20 s, 40 s, then 60 s (10 s with a probe), each up to 20 % shorter at random so
 * that windows do not retry in step. A list whose view is hidden leaves: nothing is read for it
 * until it shows again.
 *
 * While an attempt is due the timer ticks every second (on the second of the countdown), which keeps
 * "retrying in N s" true and notices a machine that slept: Node's timers do not advance while it
 * sleeps, the wall clock does, so a tick that comes far later than asked means the machine woke up,
 * and the attempt runs at once instead of waiting out a backoff set before the sleep.
 */
import { SLEEP_JUMP_MS, backoffDelay, isAbortError, isUnreachable, sleptDuring, systemClock, type Clock } from '../api';

export type { Clock } from '../api';

/** The first wait after the service stopped answering. */
export const RETRY_BASE_MS = 5_000;
/** The longest wait between two attempts. */
export const RETRY_MAX_MS = 60_000;
/** The longest wait between two attempts when they are probes (HEAD /healthz): the service back is seen this soon. */
export const PROBE_MAX_MS = 10_000;
/** With a probe, every this many attempts one re-reads a list instead (the probe's path may fail where a list's would not). */
export const LIST_EVERY = 6;
/** Each wait is up to this fraction shorter, at random. */
export const RETRY_JITTER = 0.2;
/** The countdown's tick while an attempt is due. */
export const TICK_MS = 1_000;
/** A tick this much later than asked (wall clock) means the machine slept: the attempt runs at once. */
export const LATE_MS = SLEEP_JUMP_MS;

/**
 * The wait before attempt number `level + 1` after going offline: RETRY_BASE_MS doubled `level`
 * times, at most RETRY_MAX_MS, then up to RETRY_JITTER shorter (`random` in [0, 1)).
 */
export function retryDelayMs(level: number, random: () => number = Math.random, maxDelayMs = RETRY_MAX_MS): number {
	// Here `random` says how much shorter than the ceiling (0: not at all); backoffDelay's, how far into the jitter window (0: its start).
	return backoffDelay(level + 1, {
		baseDelayMs: RETRY_BASE_MS,
		maxDelayMs,
		jitter: RETRY_JITTER,
		random: () => 1 - random(),
	});
}

/** Something that could not read from the service and reads again when asked (an offline list). */
export interface Participant {
	/** Reads again what could not be read; reports the outcome to the connectivity itself. Never rejects. */
	retry(): Promise<void>;
}

/** The offline state: since when, why, and when the next attempt runs. */
export interface OfflineState {
	/** When the service stopped answering (wall clock, ms). */
	readonly since: number;
	/** The last failure that said so. */
	readonly reason: unknown;
	/** When the next attempt runs (wall clock, ms); undefined while one runs, or while nothing waits to be retried. */
	readonly nextAttemptAt: number | undefined;
	/** True while an attempt runs. */
	readonly attempting: boolean;
	/** Attempts made since going offline. */
	readonly attempts: number;
}

/** What `Connectivity` is built with; every member is optional. */
export interface ConnectivityOptions {
	clock?: Clock;
	/** Random source in [0, 1) for the jitter. */
	random?: () => number;
	/**
	 * Asks the service whether it answers (HEAD /healthz, bounded): the attempts while offline (with
	 * waits of PROBE_MAX_MS at most), but every LIST_EVERY-th, which re-reads a waiting list; without
	 * it, an attempt re-reads a list, and with none waiting nothing is attempted.
	 */
	probe?: () => Promise<unknown>;
}

/** A listener list without VS Code: `event(listener)` returns a disposable (a `vscode.Event` in shape). */
class Listeners<T> {
	private readonly all = new Set<(value: T) => void>();
	readonly event = (listener: (value: T) => void): { dispose(): void } => {
		this.all.add(listener);
		return { dispose: () => this.all.delete(listener) };
	};
	fire(value: T): void {
		for (const listener of [...this.all]) {
			try {
				listener(value);
			} catch {
				// A listener's failure is its own; the others still hear.
			}
		}
	}
	clear(): void {
		this.all.clear();
	}
}

/** A mutable OfflineState. */
interface Offline {
	since: number;
	reason: unknown;
	nextAttemptAt: number | undefined;
	attempting: boolean;
	attempts: number;
}

/** The shared online/offline state, its retry timer and the lists waiting to be read again. */
export class Connectivity {
	private readonly clock: Clock;
	private readonly random: () => number;
	private readonly probe: (() => Promise<unknown>) | undefined;
	private offline: Offline | undefined;
	/** The offline lists, in the order attempts take them (round robin). */
	private readonly waiting: Participant[] = [];
	private timer: unknown;
	/** When the tick was set and how long it asked for: a tick far later than that means the machine slept. */
	private tickSetAt = 0;
	private tickAskedMs = 0;
	private attemptRun: Promise<void> | undefined;
	/** Attempts made in this run of the backoff: the next wait is retryDelayMs(level). */
	private level = 0;
	/** When the service last answered (wall clock); a failure of a request sent before that is stale. */
	private lastAnswerAt = Number.NEGATIVE_INFINITY;
	/** When the state last became online. */
	private onlineSince = Number.NEGATIVE_INFINITY;
	private readonly changes = new Listeners<void>();
	private readonly ticks = new Listeners<void>();
	/** Fires when the state changes: online or offline, an attempt starting or ending, the next attempt set. */
	readonly onDidChange = this.changes.event;
	/** Fires on each second of the countdown to the next attempt (for "retrying in N s"). */
	readonly onDidTick = this.ticks.event;

	constructor(options: ConnectivityOptions = {}) {
		this.clock = options.clock ?? systemClock;
		this.random = options.random ?? Math.random;
		this.probe = options.probe;
	}

	/** True unless the service was last found out of reach. */
	get online(): boolean {
		return this.offline === undefined;
	}

	/** The offline state, or undefined while online. */
	get state(): OfflineState | undefined {
		return this.offline === undefined ? undefined : { ...this.offline };
	}

	/** Whole seconds until the next attempt (rounded up, at least 0); undefined when none is due. */
	secondsToNextAttempt(): number | undefined {
		const at = this.offline?.nextAttemptAt;
		return at === undefined ? undefined : Math.max(0, Math.ceil((at - this.clock.now()) / 1000));
	}

	/**
	 * Reports how a request ended: `undefined` for an answer, else the error. An answer (any status,
	 * a 401 or a 500 too) means the service is there; an unreachable one (`isUnreachable`) that it is
	 * not; a cancellation or an error raised before sending says nothing. `startedAt` (wall clock)
	 * is when the request was sent: a failure of a request sent before the last answer is stale.
	 * `participant` is the list that failed, retried with the others.
	 */
	report(err: unknown, options: { participant?: Participant; startedAt?: number } = {}): void {
		if (err === undefined) {
			this.reportAnswered(options.participant);
		} else if (isUnreachable(err)) {
			this.reportUnreachable(err, options);
		} else if (!isAbortError(err) && answered(err)) {
			this.reportAnswered(options.participant);
		}
	}

	/**
	 * The service answered. When it was offline: online now, the timer stops, and every list that
	 * waited (but `from`, which has what it asked for) is read again at once.
	 */
	reportAnswered(from?: Participant): void {
		this.lastAnswerAt = this.clock.now();
		this.remove(from);
		if (this.offline === undefined) {
			return;
		}
		const waiting = this.waiting.splice(0);
		this.stopTimer();
		this.offline = undefined;
		this.onlineSince = this.clock.now();
		this.changes.fire();
		for (const participant of waiting) {
			void participant.retry().catch(() => undefined);
		}
	}

	/**
	 * The service did not answer (`err` says how). Offline from now (unless it already is), with the
	 * list `participant` waiting to be read again; the next attempt is set when none is due. A failure
	 * of a request sent before the last answer (`startedAt`) is stale: while online it changes nothing,
	 * and its list reads again at once.
	 */
	reportUnreachable(err: unknown, options: { participant?: Participant; startedAt?: number } = {}): void {
		const { participant, startedAt } = options;
		if (this.offline === undefined && startedAt !== undefined && startedAt < this.lastAnswerAt) {
			void participant?.retry().catch(() => undefined);
			return;
		}
		if (this.offline === undefined) {
			// Going offline again soon after coming back (a service that flaps) keeps the longer wait.
			if (this.clock.now() - this.onlineSince >= RETRY_MAX_MS) {
				this.level = 0;
			}
			this.offline = { since: this.clock.now(), reason: err, nextAttemptAt: undefined, attempting: false, attempts: 0 };
			if (participant) {
				this.waiting.push(participant);
			}
			this.schedule();
			this.changes.fire();
			return;
		}
		this.offline.reason = err;
		if (participant && !this.waiting.includes(participant)) {
			this.waiting.push(participant);
		}
		if (this.offline.nextAttemptAt === undefined && !this.offline.attempting) {
			this.schedule();
			this.changes.fire();
		}
	}

	/**
	 * A list that still waits (its view shown again): read again at once when the service answers
	 * meanwhile, else kept for the next attempt.
	 */
	join(participant: Participant): void {
		if (this.offline === undefined) {
			void participant.retry().catch(() => undefined);
			return;
		}
		if (!this.waiting.includes(participant)) {
			this.waiting.push(participant);
		}
		if (this.offline.nextAttemptAt === undefined && !this.offline.attempting) {
			this.schedule();
			this.changes.fire();
		}
	}

	/** A list that no longer waits (its view hidden, or reset). With nothing left to retry and no probe, the timer stops. */
	leave(participant: Participant): void {
		this.remove(participant);
		if (this.offline && this.waiting.length === 0 && !this.probe && this.offline.nextAttemptAt !== undefined) {
			this.stopTimer();
			this.offline.nextAttemptAt = undefined;
			this.changes.fire();
		}
	}

	/**
	 * "Retry now": the next attempt runs at once. While one runs, this is that one (never two at a
	 * time); online, nothing to do.
	 */
	retryNow(): Promise<void> {
		return this.offline === undefined ? Promise.resolve() : this.attempt();
	}

	/** Online, with nothing waiting (another API URL, a sign-out): the lists start over by themselves. */
	reset(): void {
		this.waiting.splice(0);
		this.stopTimer();
		this.level = 0;
		this.lastAnswerAt = Number.NEGATIVE_INFINITY;
		const wasOffline = this.offline !== undefined;
		this.offline = undefined;
		if (wasOffline) {
			this.changes.fire();
		}
	}

	/** Stops the timer and forgets the listeners. */
	dispose(): void {
		this.stopTimer();
		this.waiting.splice(0);
		this.changes.clear();
		this.ticks.clear();
	}

	private remove(participant: Participant | undefined): void {
		const i = participant === undefined ? -1 : this.waiting.indexOf(participant);
		if (i >= 0) {
			this.waiting.splice(i, 1);
		}
	}

	/** Sets the next attempt after the backoff's next wait, when something can be attempted. */
	private schedule(): void {
		const offline = this.offline;
		if (offline === undefined || offline.attempting || this.timer !== undefined) {
			return;
		}
		if (this.waiting.length === 0 && !this.probe) {
			offline.nextAttemptAt = undefined;
			return;
		}
		offline.nextAttemptAt = this.clock.now() + retryDelayMs(this.level, this.random, this.probe ? PROBE_MAX_MS : RETRY_MAX_MS);
		this.armTick();
	}

	/** The next tick: on the next second of the countdown, at most TICK_MS away. */
	private armTick(): void {
		const at = this.offline?.nextAttemptAt;
		if (at === undefined) {
			return;
		}
		const remaining = at - this.clock.now();
		const ms = remaining <= 0 ? 0 : remaining % TICK_MS || TICK_MS;
		this.tickSetAt = this.clock.now();
		this.tickAskedMs = ms;
		this.timer = this.clock.setTimeout(() => this.tick(), ms);
	}

	private tick(): void {
		this.timer = undefined;
		const offline = this.offline;
		if (offline?.nextAttemptAt === undefined) {
			return;
		}
		const now = this.clock.now();
		const expected = this.tickSetAt + this.tickAskedMs;
		if (sleptDuring(this.tickSetAt, this.tickAskedMs, now, LATE_MS)) {
			// The machine slept: the backoff was set before, the service may well be back.
			void this.attempt();
			return;
		}
		if (now < expected - TICK_MS) {
			// The wall clock was set back: keep the wait that was left.
			offline.nextAttemptAt -= expected - now;
		}
		if (now >= offline.nextAttemptAt) {
			void this.attempt();
			return;
		}
		this.armTick();
		this.ticks.fire();
	}

	/**
	 * One attempt: the probe asks (its answer re-reads every waiting list), or one waiting list reads
	 * again (round robin: without a probe, or every LIST_EVERY-th attempt); then the next is set if
	 * still offline.
	 */
	private attempt(): Promise<void> {
		if (this.attemptRun) {
			return this.attemptRun;
		}
		const offline = this.offline;
		if (offline === undefined) {
			return Promise.resolve();
		}
		this.stopTimer();
		offline.nextAttemptAt = undefined;
		offline.attempting = true;
		offline.attempts++;
		this.level++;
		const byList = this.waiting.length > 0 && (!this.probe || offline.attempts % LIST_EVERY === 0);
		const participant = byList ? this.waiting.shift() : undefined;
		if (participant) {
			this.waiting.push(participant);
		}
		this.changes.fire();
		const run = (async () => {
			try {
				if (participant) {
					await participant.retry();
				} else if (this.probe) {
					const startedAt = this.clock.now();
					try {
						await this.probe();
						this.reportAnswered();
					} catch (err) {
						this.report(err, { startedAt });
					}
				}
			} catch {
				// A participant never rejects; if one does, the next attempt is set all the same.
			} finally {
				this.attemptRun = undefined;
				if (this.offline === offline) {
					offline.attempting = false;
					this.schedule();
					this.changes.fire();
				}
			}
		})();
		this.attemptRun = run;
		return run;
	}

	private stopTimer(): void {
		if (this.timer !== undefined) {
			this.clock.clearTimeout(this.timer);
			this.timer = undefined;
		}
	}
}

/** Whether an error is an answer of the service (an ApiError with an HTTP status: 401, 404, 500, a malformed body). */
function answered(err: unknown): boolean {
	const e = err as { name?: unknown; status?: unknown } | undefined;
	return typeof e?.status === 'number' && e.status > 0 && (e.name === 'ApiError' || err instanceof Error);
}
