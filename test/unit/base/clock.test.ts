/**
 * The clock module (src/base/clock.ts) on a fake clock: a sleep of the machine is noticed within a
 * tick of waking, a wait ends early then, and nothing else counts as a sleep.
 */
import * as assert from 'node:assert/strict';
import { SleepWatcher, systemClock, waitAwake } from '../../../src/base/clock';
import { FakeClock, settle } from '../support/fakeClock';

suite('base/clock: sleep detection and waits that wake (fake clock)', () => {
	test('ticks that come on time are no wake; a wall-clock jump beyond jumpMs is one, noticed at the next tick', async () => {
		const clock = new FakeClock();
		const watcher = new SleepWatcher(clock, { tickMs: 2_000, jumpMs: 10_000 });
		const wakes: number[] = [];
		const stop = watcher.onWake((w) => wakes.push(w.lateMs));
		await clock.advance(60_000);
		assert.deepEqual(wakes, [], 'thirty ticks on time');
		clock.sleep(9_000); // Shorter than jumpMs: not a sleep worth a reconnect.
		await clock.advance(2_000);
		assert.deepEqual(wakes, []);
		clock.sleep(15 * 60_000);
		await clock.advance(1_999);
		assert.deepEqual(wakes, [], 'not before the tick');
		await clock.advance(1);
		assert.deepEqual(wakes, [15 * 60_000]);
		assert.equal(watcher.wakes, 1);
		stop();
		assert.deepEqual(clock.pending(), [], 'no tick left once nobody listens');
	});

	test('the tick does not keep Node running, and one watcher is shared per clock and settings', () => {
		const clock = new FakeClock();
		const a = SleepWatcher.of(clock, { tickMs: 1000 });
		assert.equal(SleepWatcher.of(clock, { tickMs: 1000 }), a);
		assert.notEqual(SleepWatcher.of(clock, { tickMs: 500 }), a);
		assert.notEqual(SleepWatcher.of(systemClock, { tickMs: 1000 }), a);
		const stop = a.onWake(() => undefined);
		const stop2 = a.onWake(() => undefined);
		assert.deepEqual(
			clock.pending().map((t) => [t.ms, t.unref]),
			[[1000, true]],
			'one unref-ed tick for two listeners',
		);
		stop();
		assert.equal(clock.pending().length, 1);
		stop2();
		assert.equal(clock.pending().length, 0);
	});

	test('waitAwake: elapsed after its time; woke at once when the machine wakes, long before a 30 s wait is over', async () => {
		const clock = new FakeClock();
		const watcher = new SleepWatcher(clock, { tickMs: 2_000, jumpMs: 10_000 });
		const plain = waitAwake(5_000, { clock, watcher });
		await clock.advance(5_000);
		assert.equal(await plain, 'elapsed');

		let outcome: string | undefined;
		void waitAwake(30_000, { clock, watcher }).then((o) => (outcome = o));
		await clock.advance(1_000);
		clock.sleep(20 * 60_000);
		await clock.advance(1_000); // The next tick, one second after waking.
		assert.equal(outcome, 'woke');
		assert.equal(clock.elapsed, 7_000, 'woke 2 s after the wait began by the timers, not 30 s');
		assert.deepEqual(clock.pending(), [], 'the wait and the tick are gone');
	});

	test('waitAwake: a timer that itself fires minutes late (by the wall clock) is a wake; an abort rejects at once', async () => {
		const clock = new FakeClock();
		const watcher = new SleepWatcher(clock, { tickMs: 60_000, jumpMs: 10_000 });
		const late = waitAwake(3_000, { clock, watcher });
		clock.sleep(5 * 60_000);
		await clock.advance(3_000);
		assert.equal(await late, 'woke');

		const controller = new AbortController();
		const aborted = waitAwake(30_000, { clock, watcher, signal: controller.signal });
		controller.abort();
		await assert.rejects(aborted, { name: 'AbortError' });
		await settle();
		assert.deepEqual(clock.pending(), []);
		await assert.rejects(waitAwake(1, { clock, signal: controller.signal }), { name: 'AbortError' });
	});
});
