/**
 * A fake `Clock` (src/base/clock.ts) for tests of waits, backoffs and sleep detection. It keeps two
 * times, as a real machine does: the wall clock (`now()`, Date.now) and the monotonic time timers
 * run on. `advance(ms)` moves both and fires the timers due on the way, each at its own time;
 * `sleep(ms)` is the machine sleeping: the wall clock jumps, timers do not move (Linux and macOS
 * timers do not count suspended time), so a timer fires "minutes late" by the wall clock.
 */
import type { Clock, ClockTimer } from '../../../src/base/clock';

interface FakeTimer {
	id: number;
	/** Monotonic time it is due. */
	due: number;
	/** What it asked for (ms). */
	ms: number;
	unref: boolean;
	fn: () => void;
}

export class FakeClock implements Clock {
	private wall: number;
	private mono = 0;
	private nextId = 1;
	private timers: FakeTimer[] = [];

	constructor(start = Date.UTC(2030, 0, 1)) {
		this.wall = start;
	}

	now(): number {
		return this.wall;
	}

	/** Monotonic time since the clock was made. */
	get elapsed(): number {
		return this.mono;
	}

	setTimeout(fn: () => void, ms: number, options?: { unref?: boolean }): ClockTimer {
		const timer: FakeTimer = {
			id: this.nextId++,
			due: this.mono + Math.max(0, ms),
			ms: Math.max(0, ms),
			unref: options?.unref ?? false,
			fn,
		};
		this.timers.push(timer);
		return timer;
	}

	clearTimeout(timer: ClockTimer): void {
		this.timers = this.timers.filter((t) => t !== timer);
	}

	/** The timers pending now: what each asked for and when (monotonic) it is due. */
	pending(): Array<{ ms: number; due: number; unref: boolean }> {
		return this.timers.map((t) => ({ ms: t.ms, due: t.due, unref: t.unref }));
	}

	/** The machine sleeps `ms`: the wall clock moves, timers do not. */
	sleep(ms: number): void {
		this.wall += ms;
	}

	/** Moves both clocks by `ms`, firing every timer due on the way at its time (then letting promise callbacks run). */
	async advance(ms: number): Promise<void> {
		const end = this.mono + ms;
		for (;;) {
			const next = this.timers.filter((t) => t.due <= end).sort((a, b) => a.due - b.due || a.id - b.id)[0];
			if (!next) {
				break;
			}
			this.wall += next.due - this.mono;
			this.mono = next.due;
			this.timers = this.timers.filter((t) => t !== next);
			next.fn();
			await settle();
		}
		this.wall += end - this.mono;
		this.mono = end;
		await settle();
	}

	/**
	 * Waits (real time, up to `timeoutMs`) until a pending timer matches `match` (code under test
	 * doing real I/O first, then setting its next timer), and returns it.
	 */
	async waitForTimer(match: (t: { ms: number; unref: boolean }) => boolean, timeoutMs = 10_000): Promise<{ ms: number; due: number }> {
		const until = Date.now() + timeoutMs;
		for (;;) {
			const found = this.timers.find((t) => match(t));
			if (found) {
				return { ms: found.ms, due: found.due };
			}
			if (Date.now() > until) {
				throw new Error(`no matching timer within ${timeoutMs} ms (pending: ${JSON.stringify(this.pending())})`);
			}
			await new Promise((r) => setTimeout(r, 2));
		}
	}
}

/** Lets pending promise callbacks run (a few turns of the event loop, no real waiting). */
export async function settle(): Promise<void> {
	for (let i = 0; i < 3; i++) {
		await new Promise((r) => setImmediate(r));
	}
}
