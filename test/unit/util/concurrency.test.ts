import assert from 'node:assert/strict';
import { drain, forEachLimited } from '../../../src/util/concurrency';

/** A promise resolved from outside. */
function deferred(): { promise: Promise<void>; resolve: () => void } {
	let resolve!: () => void;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
}

/** Lets every pending continuation run. */
const settle = (): Promise<void> => new Promise((r) => setImmediate(r));

suite('util/concurrency: bounded concurrency (forEachLimited, drain)', () => {
	test('at most `limit` items at once, started in order; every item done; an empty list resolves', async () => {
		const started: number[] = [];
		const gates = new Map<number, { promise: Promise<void>; resolve: () => void }>();
		let running = 0;
		let most = 0;
		const done = forEachLimited([1, 2, 3, 4, 5, 6, 7], 3, async (n) => {
			started.push(n);
			running++;
			most = Math.max(most, running);
			const gate = deferred();
			gates.set(n, gate);
			await gate.promise;
			running--;
		});
		await settle();
		assert.deepEqual(started, [1, 2, 3]);
		gates.get(2)!.resolve();
		await settle();
		assert.deepEqual(started, [1, 2, 3, 4]);
		for (let n = 1; n <= 7; n++) {
			gates.get(n)?.resolve();
			await settle();
		}
		for (const gate of gates.values()) {
			gate.resolve();
		}
		await done;
		assert.deepEqual(started, [1, 2, 3, 4, 5, 6, 7]);
		assert.equal(most, 3);
		await forEachLimited([], 4, () => Promise.reject(new Error('never called')));
	});

	test('the first error rejects, and no item starts after it (a synchronous throw too)', async () => {
		const started: number[] = [];
		const gate = deferred();
		const done = forEachLimited([1, 2, 3, 4, 5], 2, async (n) => {
			started.push(n);
			if (n === 2) {
				throw new Error('two failed');
			}
			await gate.promise;
		});
		await assert.rejects(done, /two failed/);
		gate.resolve();
		await settle();
		assert.deepEqual(started, [1, 2]);
		const sync = forEachLimited([1, 2], 1, (n) => {
			if (n === 1) {
				throw new Error('at once');
			}
			return Promise.resolve();
		});
		await assert.rejects(sync, /at once/);
	});

	test('drain: work may add items while others run (nothing is missed when the queue is briefly empty); next() may throw', async () => {
		const queue = ['root'];
		const seen: string[] = [];
		const gate = deferred();
		await drain(
			() => queue.shift(),
			2,
			async (dir) => {
				seen.push(dir);
				if (dir === 'root') {
					queue.push('a', 'b');
				} else if (dir === 'a') {
					// The queue is empty while `a` waits; `b` is still running beside it.
					await gate.promise;
					queue.push('a/c');
				} else if (dir === 'b') {
					gate.resolve();
				}
			},
		);
		assert.deepEqual(seen, ['root', 'a', 'b', 'a/c']);
		let asked = 0;
		await assert.rejects(
			drain(
				() => {
					if (++asked > 2) {
						throw new Error('aborted');
					}
					return asked;
				},
				1,
				() => Promise.resolve(),
			),
			/aborted/,
		);
	});
});
