import * as assert from 'node:assert/strict';
import { balancedStarts, followBalancedOrder } from '../../../bench/order';

/** How often each ordered pair (a → b) is consecutive in `seq`, read as a closed walk when `closed`. */
function pairCounts(seq: readonly number[], closed: boolean): Map<string, number> {
	const counts = new Map<string, number>();
	const last = closed ? seq.length : seq.length - 1;
	for (let i = 0; i < last; i++) {
		const key = `${seq[i]}>${seq[(i + 1) % seq.length]}`;
		counts.set(key, (counts.get(key) ?? 0) + 1);
	}
	return counts;
}

suite('bench: the order of starts (bench/order.ts)', () => {
	test('one lap holds every ordered pair of variants once, a variant followed by itself included', () => {
		for (let n = 1; n <= 7; n++) {
			const lap = followBalancedOrder(n);
			assert.equal(lap.length, n * n, `n=${n}`);
			const counts = pairCounts(lap, true);
			assert.equal(counts.size, n * n, `n=${n}: ${[...counts.keys()].join(' ')}`);
			assert.ok(
				[...counts.values()].every((c) => c === 1),
				`n=${n}`,
			);
			for (let v = 0; v < n; v++) {
				assert.equal(lap.filter((x) => x === v).length, n, `n=${n}, variant ${v}`);
			}
		}
	});

	test('the starts: whole laps, each variant after each (itself included) equally often, warm-up ending as a lap ends', () => {
		const { warmUp, counted, perVariant } = balancedStarts(5, 20);
		assert.equal(perVariant, 20);
		assert.deepEqual([...warmUp].sort(), [0, 1, 2, 3, 4]);
		assert.equal(warmUp[warmUp.length - 1], counted[counted.length - 1]);
		for (let v = 0; v < 5; v++) {
			assert.equal(counted.filter((x) => x === v).length, 20);
		}
		// The walk the machine sees: the last warm-up start, then the counted ones.
		const counts = pairCounts([warmUp[warmUp.length - 1]!, ...counted], false);
		assert.equal(counts.size, 25);
		assert.ok(
			[...counts.values()].every((c) => c === 4),
			JSON.stringify([...counts]),
		);
		// Asked for 21 starts of each: rounded up to whole laps (5 of each a lap).
		assert.equal(balancedStarts(5, 21).perVariant, 25);
		assert.equal(balancedStarts(1, 3).counted.length, 3);
	});
});
