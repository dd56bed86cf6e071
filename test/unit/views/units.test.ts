import * as assert from 'node:assert/strict';
import { formatBytes, formatMemoryMib } from '../../../src/views/units';

suite('views/units', () => {
	test('memory reads as people write it: 8192 MiB is "8 GiB", not "8192.0 MiB"', () => {
		assert.equal(formatMemoryMib(8192), '8 GiB');
		assert.equal(formatMemoryMib(512), '512 MiB');
		assert.equal(formatMemoryMib(1536), '1.5 GiB');
		assert.equal(formatMemoryMib(16384), '16 GiB');
		assert.equal(formatMemoryMib(undefined), undefined);
		assert.equal(formatMemoryMib(Number.NaN), undefined);
	});

	test('byte counts: whole units without ".0", one decimal below 10, the next unit instead of 1024', () => {
		assert.equal(formatBytes(0), '0 B');
		assert.equal(formatBytes(512), '512 B');
		assert.equal(formatBytes(1536), '1.5 KiB');
		assert.equal(formatBytes(2 * 1024 * 1024), '2 MiB');
		assert.equal(formatBytes(150 * 1024), '150 KiB');
		assert.equal(formatBytes(1024 * 1024 - 1), '1 MiB');
		assert.equal(formatBytes(-1), undefined);
		assert.equal(formatBytes(Number.POSITIVE_INFINITY), undefined);
	});
});
