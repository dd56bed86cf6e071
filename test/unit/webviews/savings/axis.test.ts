import * as assert from 'node:assert/strict';
import { byteAxis, byteUnit, countAxis } from '../../../../src/webviews/savings/axis';

/** The page's tick labels (src/webviews/pages/savings/chart.ts `compact`), here for counts below 1000. */
const label = (n: number): string => String(Math.round(n));

suite('token-savings chart axes (src/webviews/savings/axis.ts)', () => {
	test('an empty range draws one tick, 0, not "1, 1, 1, 0, 0, 0"', () => {
		for (const max of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
			assert.deepEqual(countAxis(max), { max: 1, ticks: [0] }, String(max));
			assert.deepEqual(byteAxis(max), { max: 1, ticks: [0] }, String(max));
		}
	});

	test('small counts get whole-number ticks, each label once', () => {
		for (let max = 1; max <= 40; max++) {
			const axis = countAxis(max);
			assert.ok(
				axis.ticks.every((t) => Number.isInteger(t)),
				`${max}: ${axis.ticks.join(', ')}`,
			);
			const labels = axis.ticks.map(label);
			assert.equal(new Set(labels).size, labels.length, `${max}: ${labels.join(', ')}`);
			assert.ok(axis.max >= max, `${max}: the top ${axis.max} is below the data`);
			assert.equal(axis.ticks[0], 0);
			assert.equal(axis.ticks.at(-1), axis.max);
			assert.ok(axis.ticks.length <= 6, `${max}: ${axis.ticks.length} ticks`);
		}
		assert.deepEqual(countAxis(1).ticks, [0, 1]);
		assert.deepEqual(countAxis(3).ticks, [0, 1, 2, 3]);
		assert.deepEqual(countAxis(7).ticks, [0, 2, 4, 6, 8]);
	});

	test('large counts step by 1, 2 or 5 times a power of ten, the top just above the data', () => {
		assert.deepEqual(countAxis(19_000), { max: 20_000, ticks: [0, 5_000, 10_000, 15_000, 20_000] });
		assert.deepEqual(countAxis(12_345), { max: 15_000, ticks: [0, 5_000, 10_000, 15_000] });
		assert.deepEqual(countAxis(1_305_939).ticks, [0, 500_000, 1_000_000, 1_500_000]);
	});

	test('byte axes step in whole bytes, KiB, MiB…', () => {
		assert.equal(byteUnit(500), 1);
		assert.equal(byteUnit(1024), 1024);
		assert.equal(byteUnit(5 * 1024 * 1024), 1024 * 1024);
		assert.deepEqual(byteAxis(3).ticks, [0, 1, 2, 3]);
		assert.deepEqual(byteAxis(1500).ticks, [0, 1024, 2048]);
		assert.deepEqual(
			byteAxis(78 * 1024).ticks,
			[0, 20, 40, 60, 80].map((k) => k * 1024),
		);
		for (const max of [1, 10, 1000, 1536, 70_000, 3_000_000]) {
			assert.ok(
				byteAxis(max).ticks.every((t) => Number.isInteger(t)),
				String(max),
			);
		}
	});
});
