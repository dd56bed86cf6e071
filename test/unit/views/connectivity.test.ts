import * as assert from 'node:assert/strict';
import { ApiError, NetworkError, ValidationError } from '../../../src/api';
import {
	Connectivity,
	LATE_MS,
	LIST_EVERY,
	PROBE_MAX_MS,
	RETRY_BASE_MS,
	RETRY_JITTER,
	RETRY_MAX_MS,
	retryDelayMs,
	type ConnectivityOptions,
} from '../../../src/views/connectivity';
import { FakeClock } from '../support/fakeClock';

/**
 * The shared connectivity of the views (src/views/connectivity.ts) on a fake clock
 * (test/unit/support/fakeClock.ts): `advance` moves time and runs the timers due; `sleep` moves the
 * wall clock alone, as a machine that slept (Node's timers do not advance meanwhile).
 */
function setup(options: Omit<ConnectivityOptions, 'clock'> = {}) {
	const fake = new FakeClock(Date.UTC(2025, 0, 1, 12, 0, 0));
	const c = new Connectivity({ random: () => 0, ...options, clock: fake });
	let changes = 0;
	let ticks = 0;
	c.onDidChange(() => changes++);
	c.onDidTick(() => ticks++);
	return {
		fake,
		c,
		changes: () => changes,
		ticks: () => ticks,
		/** Seconds since the start of the test. */
		at: () => (fake.now() - Date.UTC(2025, 0, 1, 12, 0, 0)) / 1000,
	};
}

const refused = (): NetworkError => new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:8787', false);

/** A list that reads again when asked: `answers` says whether the service is back; it reports to `c` as a view does. */
function list(c: Connectivity, at: () => number) {
	const p = {
		answers: false,
		/** When (test seconds) each retry ran. */
		retries: [] as number[],
		retry: async (): Promise<void> => {
			p.retries.push(at());
			await Promise.resolve();
			c.report(p.answers ? undefined : refused(), { participant: p });
		},
	};
	return p;
}

suite('views/connectivity: the shared offline state, its backoff and its recovery (fake clock)', () => {
	test('the waits: 5 s, 10 s, 20 s, 40 s, then 60 s at most; jitter only ever shortens, by up to 20 %', () => {
		assert.deepEqual(
			[0, 1, 2, 3, 4, 5, 30, 1000].map((level) => retryDelayMs(level, () => 0)),
			[5_000, 10_000, 20_000, 40_000, 60_000, 60_000, 60_000, 60_000],
		);
		for (const level of [0, 2, 4, 9]) {
			const ceiling = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** level);
			const shortest = retryDelayMs(level, () => 0.999999);
			assert.ok(shortest >= ceiling * (1 - RETRY_JITTER) && shortest < ceiling, `${level}: ${shortest}`);
			assert.ok(retryDelayMs(level, () => 1.5) <= RETRY_MAX_MS, 'an odd random source cannot lengthen it');
		}
	});

	test('an offline list is retried with capped backoff, one attempt at a time, until the service answers; then nothing more', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		assert.equal(c.online, false);
		assert.equal(c.secondsToNextAttempt(), 5);
		await fake.advance(3 * 60_000 + 15_000);
		assert.deepEqual(agents.retries, [5, 15, 35, 75, 135, 195], 'waits of 5, 10, 20, 40, 60, 60 s');
		agents.answers = true;
		await fake.advance(60_000);
		assert.equal(c.online, true);
		assert.deepEqual(agents.retries, [5, 15, 35, 75, 135, 195, 255]);
		await fake.advance(10 * 60_000);
		assert.equal(agents.retries.length, 7, 'online: no attempt, no timer');
		assert.equal(fake.pending().length, 0);
	});

	test('several offline lists share one timer: each attempt reads one of them (round robin); its answer reads every other at once', async () => {
		const { fake, c, at } = setup();
		const [agents, runs, runtimes] = [list(c, at), list(c, at), list(c, at)];
		for (const l of [agents, runs, runtimes]) {
			c.reportUnreachable(refused(), { participant: l, startedAt: fake.now() });
		}
		assert.equal(fake.pending().length, 1, 'one timer for three lists');
		await fake.advance(5_000 + 10_000 + 20_000);
		assert.deepEqual([agents.retries, runs.retries, runtimes.retries], [[5], [15], [35]], 'one read per attempt, in turn: no storm');
		for (const l of [agents, runs, runtimes]) {
			l.answers = true;
		}
		await fake.advance(40_000);
		assert.equal(c.online, true);
		assert.deepEqual(
			[agents.retries, runs.retries, runtimes.retries],
			[
				[5, 75],
				[15, 75],
				[35, 75],
			],
			'the attempt at 75 s read the Agents list; its answer read the two others at once',
		);
	});

	test('an answer from anywhere else (another request of the extension) reads every offline list at once and stops the timer', async () => {
		const { fake, c, at, changes } = setup();
		const [agents, runs] = [list(c, at), list(c, at)];
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		c.reportUnreachable(refused(), { participant: runs, startedAt: fake.now() });
		await fake.advance(5_000);
		assert.deepEqual([agents.retries, runs.retries], [[5], []]);
		agents.answers = runs.answers = true;
		await fake.advance(2_000);
		const before = changes();
		c.report(undefined); // e.g. Check Connection, or a command's request, got through
		assert.equal(c.online, true);
		assert.equal(changes(), before + 1);
		await fake.advance(0);
		assert.deepEqual([agents.retries, runs.retries], [[5, 7], [7]], 'both read at once, once each');
		assert.equal(fake.pending().length, 0);
		await fake.advance(5 * 60_000);
		assert.deepEqual([agents.retries, runs.retries], [[5, 7], [7]]);
	});

	test('Retry Now runs the attempt at once; while one runs, another Retry Now (or the timer) starts nothing more', async () => {
		const { fake, c } = setup();
		let release: () => void = () => undefined;
		let calls = 0;
		const slow = {
			retry: (): Promise<void> => {
				calls++;
				return new Promise<void>((resolve) => {
					release = () => {
						c.reportUnreachable(refused(), { participant: slow });
						resolve();
					};
				});
			},
		};
		c.reportUnreachable(refused(), { participant: slow, startedAt: fake.now() });
		await fake.advance(1_000);
		const first = c.retryNow();
		const second = c.retryNow();
		assert.equal(first, second, 'the same attempt');
		assert.equal(calls, 1);
		assert.equal(c.state?.attempting, true);
		assert.equal(c.secondsToNextAttempt(), undefined, 'no countdown while it runs');
		assert.equal(fake.pending().length, 0, 'no timer while it runs');
		await fake.advance(10 * 60_000);
		assert.equal(calls, 1, 'a read that hangs holds the next attempt back');
		release();
		await first;
		assert.equal(c.state?.attempting, false);
		assert.equal(c.secondsToNextAttempt(), 10, 'the next wait of the backoff');
		const third = c.retryNow();
		assert.equal(calls, 2, 'a later Retry Now runs another attempt at once');
		release();
		await third;
	});

	test('the countdown ticks once a second, on the second: "retrying in N s" stays true', async () => {
		const { fake, c, ticks, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		const seen: Array<number | undefined> = [];
		c.onDidTick(() => seen.push(c.secondsToNextAttempt()));
		await fake.advance(4_999);
		assert.deepEqual(seen, [4, 3, 2, 1]);
		assert.equal(ticks(), 4, 'at most one tick a second');
		await fake.advance(1);
		assert.deepEqual(agents.retries, [5]);
	});

	test('after the machine sleeps, the attempt runs as soon as a tick sees the wall clock jump, not after the backoff set before', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		await fake.advance(5_000 + 10_000 + 20_000); // attempts at 5, 15, 35 s; the next wait is 40 s
		assert.equal(agents.retries.length, 3);
		assert.equal(c.secondsToNextAttempt(), 40);
		await fake.advance(2_000);
		// The lid closes for 25 minutes: the wall clock moves, Node's timers do not.
		fake.sleep(25 * 60_000);
		agents.answers = true;
		await fake.advance(1_000);
		assert.equal(agents.retries.length, 4, 'retried within a second of waking');
		assert.equal(c.online, true);
	});

	test('a sleep shorter than the wait left (15 s of 38 s) is noticed too: the attempt runs at once, not 23 s later', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		await fake.advance(5_000 + 10_000 + 20_000 + 2_000);
		assert.equal(c.secondsToNextAttempt(), 38);
		fake.sleep(15_000);
		await fake.advance(1_000);
		assert.deepEqual(agents.retries, [5, 15, 35, 53]);
	});

	test('a tick a little late (a busy extension host) is not a sleep; a clock set back keeps the wait that was left', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		fake.sleep(LATE_MS - 2_000);
		await fake.advance(1_000);
		assert.equal(agents.retries.length, 1, 'the wall clock passed the attempt time: it ran');
		assert.equal(c.secondsToNextAttempt(), 10);
		fake.sleep(-3_600_000); // set back an hour
		await fake.advance(1_000);
		assert.ok((c.secondsToNextAttempt() ?? 0) <= 10, `${c.secondsToNextAttempt()} s left`);
		await fake.advance(10_000);
		assert.equal(agents.retries.length, 2);
	});

	test('what counts as an answer: 401, 403, 500 and a malformed body do; a cancellation and a refused input say nothing', () => {
		for (const err of [
			new ApiError(401, 'unauthenticated', 'token rejected', 'req-1'),
			new ApiError(403, 'permission_denied', 'no', undefined),
			new ApiError(500, 'internal', 'boom', 'req-2'),
			new ApiError(200, 'invalid_response', 'not JSON', undefined),
		]) {
			const { c } = setup();
			c.reportUnreachable(refused());
			c.report(err);
			assert.equal(c.online, true, err.message);
		}
		for (const err of [new DOMException('aborted', 'AbortError'), new ValidationError('prompt', 'at most 64 KiB')]) {
			const { c } = setup();
			c.reportUnreachable(refused());
			c.report(err);
			assert.equal(c.online, false, String(err));
		}
		const { c } = setup();
		c.report(refused());
		assert.equal(c.online, false, 'connection refused');
		assert.match(String((c.state?.reason as Error).message), /ECONNREFUSED/);
	});

	test('a failure of a request sent before the last answer is stale: still online, and its list reads again at once', async () => {
		const { fake, c, at, changes } = setup();
		const runs = list(c, at);
		const sent = fake.now();
		await fake.advance(1_000);
		c.report(undefined); // an answer to a later request
		await fake.advance(500);
		runs.answers = true;
		c.reportUnreachable(refused(), { participant: runs, startedAt: sent });
		assert.equal(c.online, true);
		assert.equal(changes(), 0);
		await fake.advance(0);
		assert.deepEqual(runs.retries, [1.5]);
	});

	test('a hidden list leaves: with nothing to retry and no probe, no timer runs; shown again, it waits (or reads at once when online)', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		c.leave(agents);
		assert.equal(fake.pending().length, 0);
		assert.equal(c.secondsToNextAttempt(), undefined);
		assert.equal(c.online, false, 'still offline: nothing said otherwise');
		await fake.advance(5 * 60_000);
		assert.deepEqual(agents.retries, []);
		c.join(agents);
		assert.equal(c.secondsToNextAttempt(), 5);
		c.leave(agents);
		c.report(undefined);
		c.join(agents);
		await fake.advance(0);
		assert.equal(agents.retries.length, 1, 'online when shown again: read at once');
	});

	test('with no list waiting, the probe asks (HEAD /healthz in the extension); its waits stop at 10 s; its answer ends the offline state', async () => {
		let probes = 0;
		let up = false;
		const { fake, c } = setup({
			probe: async () => {
				probes++;
				await Promise.resolve();
				if (!up) {
					throw refused();
				}
			},
		});
		c.report(refused()); // e.g. a command's request found no service
		await fake.advance(5_000 + PROBE_MAX_MS);
		assert.equal(probes, 2);
		up = true;
		await fake.advance(PROBE_MAX_MS);
		assert.equal(probes, 3);
		assert.equal(c.online, true);
		await fake.advance(10 * 60_000);
		assert.equal(probes, 3);
	});

	test('with a probe, the service back after a 2.5-minute outage is seen within 10 s, and every offline list reads again at once (issue 42, item 2)', async () => {
		let probes: number[] = [];
		let up = false;
		const { fake, c, at } = setup({
			probe: async () => {
				probes.push(at());
				await Promise.resolve();
				if (!up) {
					throw refused();
				}
			},
		});
		const [agents, runs] = [list(c, at), list(c, at)];
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		c.reportUnreachable(refused(), { participant: runs, startedAt: fake.now() });
		await fake.advance(150_000);
		assert.deepEqual(probes.slice(0, 3), [5, 15, 25], 'waits of 5 s, then 10 s at most');
		const attempts = [...probes, ...agents.retries, ...runs.retries].sort((a, b) => a - b);
		assert.ok(
			attempts.every((t, i) => i === 0 || t - (attempts[i - 1] as number) <= 10),
			`no wait longer than 10 s between two attempts (${attempts.join(', ')})`,
		);
		// Every LIST_EVERY-th attempt reads a list instead of the probe (round robin): a probe path that fails alone cannot keep the views offline.
		assert.deepEqual([agents.retries, runs.retries], [[55], [115]]);
		assert.equal(c.secondsToNextAttempt(), 5);
		up = agents.answers = runs.answers = true;
		probes = [];
		await fake.advance(10_000);
		assert.equal(c.online, true, 'online at the next probe');
		assert.deepEqual(probes, [155]);
		assert.deepEqual(
			[agents.retries, runs.retries],
			[
				[55, 155],
				[115, 155],
			],
			'both lists read once, at once',
		);
		assert.equal(fake.pending().length, 0);
		assert.equal(LIST_EVERY, 6);
	});

	test('coming back and going away again within a minute keeps the longer wait (a flapping service is not hammered); after a calm minute it starts at 5 s', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		await fake.advance(5_000 + 10_000 + 20_000);
		agents.answers = true;
		c.report(undefined);
		await fake.advance(1_000);
		assert.equal(c.online, true);
		agents.answers = false;
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		assert.equal(c.secondsToNextAttempt(), 40);
		agents.answers = true;
		c.report(undefined);
		await fake.advance(RETRY_MAX_MS);
		assert.equal(c.online, true);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		assert.equal(c.secondsToNextAttempt(), 5);
	});

	test('reset (another API URL, signed out): online, nothing waiting, no timer', async () => {
		const { fake, c, at } = setup();
		const agents = list(c, at);
		c.reportUnreachable(refused(), { participant: agents, startedAt: fake.now() });
		c.reset();
		assert.equal(c.online, true);
		assert.equal(fake.pending().length, 0);
		await fake.advance(5 * 60_000);
		assert.deepEqual(agents.retries, []);
	});
});
