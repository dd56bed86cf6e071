/**
 * The one time type (src/base/time.ts): each reader turns its unit into epoch milliseconds and
 * refuses what is not a time; readTimeMember guesses seconds or milliseconds at 1e11.
 */
import * as assert from 'node:assert/strict';
import { fromRfc3339, fromUnixMillis, fromUnixSeconds, readTimeMember } from '../../../src/base/time';

const T = Date.UTC(2026, 2, 10, 12, 0, 0); // 2026-03-10T12:00:00Z

suite('base/time: readers by unit', () => {
	test('fromUnixMillis keeps a finite number as it is; anything else is undefined', () => {
		assert.equal(fromUnixMillis(T), T);
		assert.equal(fromUnixMillis(0), 0, 'the epoch itself is a time');
		assert.equal(fromUnixMillis(-1000), -1000, 'before 1970 too');
		for (const bad of [Number.NaN, Infinity, -Infinity, null, undefined]) {
			assert.equal(fromUnixMillis(bad), undefined, String(bad));
		}
	});

	test('fromUnixSeconds multiplies by 1000, fractions kept; anything not finite is undefined', () => {
		assert.equal(fromUnixSeconds(T / 1000), T);
		assert.equal(fromUnixSeconds(1.5), 1500);
		assert.equal(fromUnixSeconds(0), 0);
		for (const bad of [Number.NaN, Infinity, null, undefined]) {
			assert.equal(fromUnixSeconds(bad), undefined, String(bad));
		}
	});

	test('fromRfc3339 reads offsets and fractions; empty, absent and unreadable text is undefined', () => {
		assert.equal(fromRfc3339('2026-03-10T12:00:00Z'), T);
		assert.equal(fromRfc3339('2026-03-10T14:00:00+02:00'), T, 'an offset names the same instant');
		assert.equal(fromRfc3339('2026-03-10T12:00:00.250Z'), T + 250);
		for (const bad of ['', 'yesterday', '2026-13-45T99:00:00Z', null, undefined]) {
			assert.equal(fromRfc3339(bad), undefined, String(bad));
		}
	});
});

suite('base/time: readTimeMember (unit not given)', () => {
	test('a string is RFC 3339; a number below 1e11 is seconds, from 1e11 on milliseconds', () => {
		assert.equal(readTimeMember('2026-03-10T12:00:00Z'), T);
		assert.equal(readTimeMember(T / 1000), T, 'seconds');
		assert.equal(readTimeMember(T), T, 'milliseconds');
		assert.equal(readTimeMember(1e11 - 1), (1e11 - 1) * 1000, 'the largest seconds value');
		assert.equal(readTimeMember(1e11), 1e11, 'the smallest milliseconds value');
		assert.equal(readTimeMember(1), 1000, 'one second after the epoch');
	});

	test('zero, negatives, non-finite numbers, unreadable strings and other types are undefined', () => {
		for (const bad of [0, -1, -T, Number.NaN, Infinity, 'not a time', '', true, null, undefined, {}, [T], BigInt(5)]) {
			assert.equal(readTimeMember(bad), undefined, typeof bad === 'bigint' ? 'bigint' : JSON.stringify(bad));
		}
	});
});
