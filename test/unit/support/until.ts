import * as assert from 'node:assert/strict';

/** Resolves once `cond` holds, checking after each turn of the event loop (never a timed sleep). */
export async function until(cond: () => boolean, what: string): Promise<void> {
	for (let i = 0; i < 1000; i++) {
		if (cond()) {
			return;
		}
		await new Promise((resolve) => setImmediate(resolve));
	}
	assert.fail(`never: ${what}`);
}

/** A timer `captureTimeouts` took instead of arming it: the test runs `fn` itself. */
export interface CapturedTimer {
	fn: () => void;
	ms: number | undefined;
	cleared: boolean;
}

/**
 * In the calling suite, each test's `setTimeout(fn, ms)` for exactly `ms` is captured into the returned
 * list (emptied before each test) and never fires by itself; `clearTimeout` of one marks it cleared.
 * Other timers are the real ones; the globals are restored after each test.
 */
export function captureTimeouts(ms: number): CapturedTimer[] {
	const realSetTimeout = globalThis.setTimeout;
	const realClearTimeout = globalThis.clearTimeout;
	const timers: CapturedTimer[] = [];

	setup(() => {
		timers.splice(0);
		globalThis.setTimeout = ((fn: () => void, delay?: number) => {
			if (delay !== ms) {
				return realSetTimeout(fn, delay);
			}
			const timer: CapturedTimer = { fn, ms: delay, cleared: false };
			timers.push(timer);
			return timer;
		}) as typeof setTimeout;
		globalThis.clearTimeout = (handle: unknown) => {
			const timer = timers.find((t) => t === handle);
			if (timer) {
				timer.cleared = true;
			} else {
				realClearTimeout(handle as NodeJS.Timeout);
			}
		};
	});

	teardown(() => {
		globalThis.setTimeout = realSetTimeout;
		globalThis.clearTimeout = realClearTimeout;
	});

	return timers;
}

/** In the calling suite: a list whose disposables are disposed (and dropped) after each test. */
export function disposedAfterEach(): Array<{ dispose(): unknown }> {
	const disposables: Array<{ dispose(): unknown }> = [];
	teardown(() => {
		for (const d of disposables.splice(0)) {
			d.dispose();
		}
	});
	return disposables;
}
