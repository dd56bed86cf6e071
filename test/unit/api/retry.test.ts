/**
 * The retry policy's time on a fake clock: one overall deadline per request, from the first
 * attempt's start, covering every attempt and the waits between them.
 */
import assert from 'node:assert/strict';
import {
	OverallDeadline,
	RETRY_MIN_ATTEMPT_MS,
	backoffDelay,
	formatSeconds,
	resolveRetryOptions,
	retryDelay,
} from '../../../src/api/retry';

/** A clock that moves only when told. */
function fakeClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
	let t = start;
	return { now: () => t, advance: (ms) => (t += ms) };
}

suite('api/retry: the overall deadline (fake clock)', () => {
	test('counts from the first attempt: time spent in attempts and waits is taken from it', () => {
		const clock = fakeClock();
		const d = new OverallDeadline(3000, clock.now);
		assert.equal(d.remaining(), 3000);
		clock.advance(1200); // attempt 1
		assert.equal(d.remaining(), 1800);
		clock.advance(500); // backoff
		clock.advance(1299); // attempt 2
		assert.equal(d.passed(), false);
		clock.advance(1);
		assert.equal(d.passed(), true);
	});

	test('a trickling server, 3 s, three attempts allowed: the first attempt uses it all and no retry starts', () => {
		const clock = fakeClock();
		const options = resolveRetryOptions({ maxAttempts: 3, random: () => 0.999 });
		const d = new OverallDeadline(3000, clock.now);
		let attempts = 0;
		for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
			attempts++;
			clock.advance(Math.max(0, d.remaining())); // the body trickles until the deadline ends it
			const delay = retryDelay(attempt, undefined, options) as number;
			if (!d.allowsRetryAfter(delay)) {
				break;
			}
			clock.advance(delay);
		}
		assert.equal(attempts, 1);
		assert.ok(d.remaining() <= 0 && d.remaining() > -1, `${d.remaining()}`);
	});

	test('fast failures retry while a retry still has time to answer; the last wait never crosses the deadline', () => {
		const clock = fakeClock();
		const options = resolveRetryOptions({ maxAttempts: 10, baseDelayMs: 500, random: () => 0.999 });
		const d = new OverallDeadline(3000, clock.now);
		const delays: number[] = [];
		for (let attempt = 1; attempt <= options.maxAttempts; attempt++) {
			clock.advance(100); // a quick 503
			const delay = retryDelay(attempt, undefined, options) as number;
			if (!d.allowsRetryAfter(delay)) {
				break;
			}
			delays.push(delay);
			clock.advance(delay);
			assert.ok(d.remaining() >= RETRY_MIN_ATTEMPT_MS, `${d.remaining()} ms left after a wait`);
		}
		// 100 + 499 + 100 + 999 = 1698 ms; a 1998 ms wait would leave none: three attempts, two waits.
		assert.deepEqual(delays, [499, 999]);
		assert.ok(!d.passed());
	});

	test('a Retry-After that would end past the deadline is not waited for', () => {
		const clock = fakeClock();
		const d = new OverallDeadline(3000, clock.now);
		const delay = retryDelay(1, 3, resolveRetryOptions({})) as number;
		assert.equal(delay, 3000);
		assert.equal(d.allowsRetryAfter(delay), false);
		assert.equal(d.allowsRetryAfter(3000 - RETRY_MIN_ATTEMPT_MS), true);
		clock.advance(1);
		assert.equal(d.allowsRetryAfter(3000 - RETRY_MIN_ATTEMPT_MS), false);
	});

	test('an attempt gets its own abort only when connect and header time-outs could outlast what is left', () => {
		const clock = fakeClock();
		const d = new OverallDeadline(120_000, clock.now);
		assert.equal(d.needsAbort(10_000, 30_000), false, 'the default first attempt: no AbortController');
		clock.advance(85_000);
		assert.equal(d.needsAbort(10_000, 30_000), true, 'a late retry');
		assert.equal(new OverallDeadline(3000, clock.now).needsAbort(10_000, 30_000), true, 'a short deadline');
	});

	test('messages state the bound as configured', () => {
		assert.equal(formatSeconds(3000), '3 s');
		assert.equal(formatSeconds(800), '0.8 s');
		assert.equal(formatSeconds(120_000), '120 s');
		assert.equal(formatSeconds(12_345), '12 s');
	});
});

suite('api/retry: the one backoff formula (backoffDelay)', () => {
	const at = (random: number, retry: number, jitter?: number): number =>
		backoffDelay(retry, { baseDelayMs: 500, maxDelayMs: 4000, random: () => random, ...(jitter === undefined ? {} : { jitter }) });

	test('the ceiling doubles from the base with each retry and stops at the maximum; full jitter places the wait in [0, ceiling)', () => {
		assert.deepEqual(
			[1, 2, 3, 4, 5, 40, 10_000].map((retry) => at(0.999, retry)),
			[499, 999, 1998, 3996, 3996, 3996, 3996],
		);
		assert.deepEqual(
			[1, 2, 3].map((retry) => at(0, retry)),
			[0, 0, 0],
		);
		assert.equal(at(0.5, 3), 1000);
	});

	test('a jitter fraction keeps the wait in the last part of the ceiling; a random value out of [0, 1] cannot leave it', () => {
		assert.equal(at(0, 4, 0.2), 3200);
		assert.equal(at(1, 4, 0.2), 4000);
		assert.equal(at(0.5, 1, 0.2), 450);
		assert.equal(at(-3, 4, 0.2), 3200);
		assert.equal(at(7, 4, 0.2), 4000);
		assert.equal(at(7, 4), 4000);
	});
});
