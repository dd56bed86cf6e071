import * as assert from 'node:assert/strict';
import type { EpochMillis } from '../../../src/api';
import { fromRfc3339, fromUnixSeconds, readBuild, readCheckpoint, readProvider, readTimeMember } from '../../../src/api';
import type { relativeTime } from '../../../src/views/format';
import { localTimeText, relativeTimeText } from '../../../src/views/timeText';

const NOW = Date.parse('2026-03-10T12:00:00Z');
const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const iso = (ms: number): string => new Date(ms).toISOString();
const ago = (t: EpochMillis | undefined): string => {
	assert.ok(t !== undefined, 'the record has a time');
	return relativeTimeText(t, NOW);
};

suite('views/timeText: relative times of decoded records', () => {
	test('records decoded from the wire days ago read "N days ago", in every spelling of their times', () => {
		// What the service sends (RFC 3339) and what other servers send (Unix seconds, Unix milliseconds).
		const checkpoint = readCheckpoint({ id: 'c1', created_at: iso(NOW - 3 * DAY) });
		const provider = readProvider({ id: 'p1', updated_at: iso(NOW - 6 * DAY - 20 * MINUTE) });
		const build = readBuild({
			id: 'b1',
			created_at: Math.floor((NOW - 5 * DAY) / 1000),
			updated_at: NOW - 4 * DAY,
			attempts: [{ number: 1, started_at: iso(NOW - 4 * DAY - 10 * MINUTE), finished_at: iso(NOW - 4 * DAY) }],
		});
		assert.equal(ago(checkpoint?.createdAt), '3 days ago');
		assert.equal(ago(provider?.updatedAt), '6 days ago');
		assert.equal(ago(build?.createdAt), '5 days ago');
		assert.equal(ago(build?.updatedAt), '4 days ago');
		assert.equal(ago(build?.attempts[0]?.finishedAt), '4 days ago');
		assert.equal(ago(build?.attempts[0]?.startedAt), '4 days ago');
	});

	test('every decoded time is epoch milliseconds, whatever unit the wire used', () => {
		const t = NOW - 2 * DAY;
		assert.equal(fromRfc3339(iso(t)), t);
		assert.equal(fromUnixSeconds(t / 1000), t);
		assert.equal(readTimeMember(t / 1000), t);
		assert.equal(readTimeMember(t), t);
		assert.equal(readTimeMember(iso(t)), t);
		assert.equal(readTimeMember('not a time'), undefined);
		assert.equal(readTimeMember(0), undefined);
		assert.equal(fromUnixSeconds(Number.NaN), undefined);
		assert.equal(fromRfc3339(''), undefined);
	});

	test('the steps: just now, minutes, hours, days, then the date; a time ahead of the clock is "just now"', () => {
		const at = (ms: number): string => relativeTimeText((NOW - ms) as EpochMillis, NOW);
		assert.equal(at(0), 'just now');
		assert.equal(at(44_000), 'just now');
		assert.equal(at(-5 * MINUTE), 'just now');
		assert.equal(at(MINUTE), '1 min ago');
		assert.equal(at(5 * MINUTE), '5 mins ago');
		assert.equal(at(60 * MINUTE), '1 hr ago');
		assert.equal(at(3 * 60 * MINUTE), '3 hrs ago');
		assert.equal(at(DAY), '1 day ago');
		assert.equal(at(29 * DAY), '29 days ago');
		assert.equal(at(45 * DAY), iso(NOW - 45 * DAY).slice(0, 10));
	});

	test('the translator gets each message and its count', () => {
		const seen: Array<[unknown, unknown[]]> = [];
		relativeTimeText((NOW - 3 * DAY) as EpochMillis, NOW, {
			t: (message: string | { message: string }, ...args: unknown[]) => {
				seen.push([message, args]);
				return typeof message === 'string' ? message : message.message;
			},
		});
		assert.deepEqual(seen, [['{0} days ago', [3]]]);
	});
});

suite('views/format: relativeTime takes only decoded times', () => {
	test('a wire value (RFC 3339 text, Unix seconds) is not accepted: the rows convert with the named readers', () => {
		// Compile-time checks: the deprecated overload that took wire values is gone, so each line
		// below is a type error (tsc fails on an unused @ts-expect-error if one is accepted again).
		type Arg = Parameters<typeof relativeTime>[0];
		// @ts-expect-error RFC 3339 text as sent
		const text: Arg = '2026-03-07T12:00:00Z';
		// @ts-expect-error Unix seconds as sent
		const seconds: Arg = 1_772_884_800;
		const decoded: Arg = fromRfc3339('2026-03-07T12:00:00Z');
		assert.deepEqual([text, seconds, decoded], ['2026-03-07T12:00:00Z', 1_772_884_800, Date.parse('2026-03-07T12:00:00Z')]);
	});
});

suite('views/timeText: local date and time with how long ago', () => {
	test('a record time reads as the local date and time, then "N days ago"; never the wire\'s ISO text', () => {
		const t = fromRfc3339(iso(NOW - 3 * DAY))!;
		const text = localTimeText(t, NOW, undefined, 'en-US');
		const local = new Date(t).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });
		assert.equal(text, `${local} (3 days ago)`);
		assert.doesNotMatch(text, /\d{4}-\d{2}-\d{2}T/);
		assert.match(localTimeText((NOW - 5 * MINUTE) as EpochMillis, NOW, undefined, 'en-US'), / \(5 mins ago\)$/);
	});

	test('from 30 days on only the local date and time; an unknown locale falls back to the default one', () => {
		const old = (NOW - 45 * DAY) as EpochMillis;
		assert.equal(
			localTimeText(old, NOW, undefined, 'en-US'),
			new Date(old).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' }),
		);
		assert.match(localTimeText((NOW - DAY) as EpochMillis, NOW, undefined, 'not a locale!'), / \(1 day ago\)$/);
	});
});
