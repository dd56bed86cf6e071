/**
 * Time for the reconnect and retry loops, without `vscode`: a `Clock` (the wall clock and timers,
 * `systemClock` by default; tests pass a fake one, the soak bench a compressed one), a
 * `SleepWatcher` that notices when the machine slept (the wall clock jumped far more than a short
 * timer asked for), and `waitAwake`, a cancellable wait that ends early when the machine wakes up,
 * so a stream (or a view's "retrying in 20 s") reconnects at once instead of waiting out a backoff
 * that was set before the sleep.
 *
 * Why a watcher and not just a wall-clock deadline: Node's timers run on a monotonic clock that, on
 * Linux and macOS, does not advance while the machine sleeps, so a 30 s timer set before a two-hour
 * sleep still fires about 30 s after waking. A short tick (`SleepWatcher`, every 2 s) sees the wall
 * clock jump within a tick of waking.
 */
import { abortError } from './async';

/** An opaque timer handle of a `Clock`. */
export type ClockTimer = unknown;

/** Where time comes from: the wall clock and one-shot timers. */
export interface Clock {
	/** Wall-clock time in ms since the epoch (Date.now for the system clock). */
	now(): number;
	/** Calls `fn` once after `ms` (of this clock's time). `unref`: the timer alone does not keep Node running. */
	setTimeout(fn: () => void, ms: number, options?: { unref?: boolean }): ClockTimer;
	clearTimeout(timer: ClockTimer): void;
}

/** The real clock: Date.now and the host's timers (Node's can be unref'd; a browser's are numbers). */
export const systemClock: Clock = {
	now: () => Date.now(),
	setTimeout: (fn, ms, options) => {
		const timer = setTimeout(fn, Math.max(0, ms));
		if (options?.unref) {
			(timer as { unref?: () => void }).unref?.();
		}
		return timer;
	},
	clearTimeout: (timer) => clearTimeout(timer as ReturnType<typeof setTimeout>),
};

/** A timer that fires this much later than asked (wall clock) means the machine slept. */
export const SLEEP_JUMP_MS = 10_000;

/**
 * Whether a timer set at `setAt` (wall clock) for `askedMs` and firing at `now` fired so late that
 * the machine must have slept meanwhile (more than `jumpMs` late). The one test of a sleep: the
 * watcher below and the views' countdown (src/views/connectivity.ts) both ask it.
 */
export function sleptDuring(setAt: number, askedMs: number, now: number, jumpMs = SLEEP_JUMP_MS): boolean {
	return now - setAt - askedMs > jumpMs;
}

/** How a `SleepWatcher` ticks and what it counts as a sleep. */
export interface SleepWatchOptions {
	/** Period of the tick (ms of the clock; default 2000). */
	tickMs?: number;
	/** A tick that comes this much later than asked (wall clock) means the machine slept (default SLEEP_JUMP_MS). */
	jumpMs?: number;
}

/** A detected sleep: when the tick before it ran, and how far the wall clock moved beyond what was asked. */
export interface WakeEvent {
	/** The wall clock (of the watcher's clock) at the last tick before the sleep. */
	lastTick: number;
	/** The wall clock now, after waking. */
	now: number;
	/** How much longer than the tick asked the wall clock moved (ms). */
	lateMs: number;
}

/**
 * Notices the machine waking from sleep: while anyone listens it sets a short timer (unref'd) and,
 * when it fires, compares how far the wall clock moved with how long the timer asked for; moving
 * more than `jumpMs` beyond it fires `onWake`. A clock set back is not a wake. One watcher serves
 * any number of listeners (`SleepWatcher.of` shares one per clock and settings).
 */
export class SleepWatcher {
	private static readonly shared = new WeakMap<Clock, Map<string, SleepWatcher>>();

	/** The shared watcher of `clock` with these settings. */
	static of(clock: Clock = systemClock, options: SleepWatchOptions = {}): SleepWatcher {
		const key = `${options.tickMs ?? ''}/${options.jumpMs ?? ''}`;
		let byKey = SleepWatcher.shared.get(clock);
		if (!byKey) {
			byKey = new Map();
			SleepWatcher.shared.set(clock, byKey);
		}
		let watcher = byKey.get(key);
		if (!watcher) {
			watcher = new SleepWatcher(clock, options);
			byKey.set(key, watcher);
		}
		return watcher;
	}

	readonly tickMs: number;
	readonly jumpMs: number;
	private readonly listeners = new Set<(wake: WakeEvent) => void>();
	/** The pending tick while anyone listens (`ticking`). */
	private timer: ClockTimer;
	private ticking = false;
	private last = 0;
	/** Sleeps noticed so far (diagnostics and tests). */
	wakes = 0;

	constructor(
		readonly clock: Clock = systemClock,
		options: SleepWatchOptions = {},
	) {
		this.tickMs = Math.max(10, options.tickMs ?? 2_000);
		this.jumpMs = Math.max(0, options.jumpMs ?? SLEEP_JUMP_MS);
	}

	/** Calls `listener` on every wake until the returned function is called. */
	onWake(listener: (wake: WakeEvent) => void): () => void {
		this.listeners.add(listener);
		if (!this.ticking) {
			this.ticking = true;
			this.last = this.clock.now();
			this.schedule();
		}
		return () => {
			this.listeners.delete(listener);
			if (this.listeners.size === 0 && this.ticking) {
				this.ticking = false;
				this.clock.clearTimeout(this.timer);
				this.timer = undefined;
			}
		};
	}

	private schedule(): void {
		this.timer = this.clock.setTimeout(() => this.tick(), this.tickMs, { unref: true });
	}

	private tick(): void {
		const now = this.clock.now();
		const lastTick = this.last;
		this.last = now;
		this.schedule();
		if (sleptDuring(lastTick, this.tickMs, now, this.jumpMs)) {
			this.wakes++;
			for (const listener of [...this.listeners]) {
				listener({ lastTick, now, lateMs: now - lastTick - this.tickMs });
			}
		}
	}
}

/** How `waitAwake` ended: the time passed, or the machine woke from a sleep first. */
export type WaitOutcome = 'elapsed' | 'woke';

/**
 * Waits `ms` on `clock`; resolves `'woke'` early when `watcher` sees the machine wake (or when the
 * timer itself fires more than the watcher's `jumpMs` late), `'elapsed'` otherwise; rejects with an
 * AbortError as soon as `signal` aborts.
 */
export function waitAwake(ms: number, options: { clock?: Clock; watcher?: SleepWatcher; signal?: AbortSignal } = {}): Promise<WaitOutcome> {
	const { signal, watcher } = options;
	const clock = options.clock ?? watcher?.clock ?? systemClock;
	if (signal?.aborted) {
		return Promise.reject(abortError(signal));
	}
	return new Promise<WaitOutcome>((resolve, reject) => {
		const started = clock.now();
		let settled = false;
		const finish = (outcome: WaitOutcome | Error): void => {
			if (settled) {
				return;
			}
			settled = true;
			clock.clearTimeout(timer);
			stopWatching?.();
			signal?.removeEventListener('abort', onAbort);
			if (outcome instanceof Error) {
				reject(outcome);
			} else {
				resolve(outcome);
			}
		};
		const onAbort = (): void => finish(abortError(signal));
		// Neither callback can run before both are set: timers and wakes come from later turns.
		const timer = clock.setTimeout(
			() => finish(watcher && sleptDuring(started, ms, clock.now(), watcher.jumpMs) ? 'woke' : 'elapsed'),
			Math.max(0, ms),
		);
		const stopWatching = watcher?.onWake(() => finish('woke'));
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}
