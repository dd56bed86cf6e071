import * as assert from 'node:assert/strict';
import { SAFETY } from '../../../../src/base/limits';
import type { AccountTokenSavingsPage, TokenSavingEventRecord, TokenSavingsQuery } from '../../../../src/api/types';
import {
	CSV_HEADER,
	SavingsAggregator,
	parseTime,
	csvCell,
	csvEventRow,
	csvRow,
	exportSavingsCsv,
	loadRuntimeSummaries,
	loadSavings,
	streamSavings,
} from '../../../../src/webviews/savings/data';
import type { SavingsSource } from '../../../../src/webviews/savings/data';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A fixed "now" on a whole UTC hour, away from DST changes in common time zones. */
const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);

function ev(overrides: Partial<TokenSavingEventRecord> & { t?: number } = {}): TokenSavingEventRecord {
	const { t, ...rest } = overrides;
	return {
		id: 'e1',
		event_id: 'evt_1',
		runtime_id: 'rt-a',
		runtime_name: 'atlas',
		observed_at: new Date(t ?? NOW - HOUR).toISOString(),
		saved_wire_bytes: 100,
		saved_estimated_tokens: 25,
		methods: ['json_array'],
		...rest,
	};
}

/** A SavingsSource over an in-memory list of events, paged like the service (newest first unless told), recording queries. */
function memorySource(
	events: TokenSavingEventRecord[],
	opts: { pageSize?: number; ignoreRuntime?: boolean } = {},
): SavingsSource & { queries: TokenSavingsQuery[] } {
	const queries: TokenSavingsQuery[] = [];
	return {
		queries,
		async listTokenSavings(q: TokenSavingsQuery): Promise<AccountTokenSavingsPage> {
			queries.push(q);
			const selected = q.runtimeId && !opts.ignoreRuntime ? events.filter((e) => e.runtime_id === q.runtimeId) : events;
			const size = opts.pageSize ?? q.limit ?? 50;
			const start = q.cursor ? Number(q.cursor) : 0;
			const items = selected.slice(start, start + size);
			const next = start + size < selected.length ? String(start + size) : undefined;
			const totals = {
				applied_events: selected.length,
				saved_wire_bytes: selected.reduce((a, e) => a + (e.saved_wire_bytes ?? 0), 0),
				saved_estimated_tokens: selected.reduce((a, e) => a + (e.saved_estimated_tokens ?? 0), 0),
			};
			return {
				items,
				nextCursor: next,
				totals,
				dropped: 0,
				runtimeFilterIgnored: q.runtimeId !== undefined && opts.ignoreRuntime === true,
			};
		},
		async listRuntimeTokenSavings(runtimeId: string) {
			if (runtimeId === 'rt-broken') {
				throw new Error('boom (request 0192)');
			}
			return {
				items: [],
				nextCursor: undefined,
				summary: { applied_events: 3, saved_wire_bytes: 30, saved_estimated_tokens: 9, malformed_events: 1 },
			};
		},
	};
}

suite('token-savings dashboard data', () => {
	suite('aggregation', () => {
		test('buckets a 24-hour range by hour, fills empty hours with 0 and sums tokens, bytes and events', () => {
			const agg = new SavingsAggregator(NOW - DAY, NOW);
			agg.add(ev({ t: NOW - 90 * 60_000, saved_estimated_tokens: 10, saved_wire_bytes: 40 })); // 10:30 UTC
			agg.add(ev({ t: NOW - 80 * 60_000, saved_estimated_tokens: 5, saved_wire_bytes: 20 })); // 10:40 UTC, same hour
			agg.add(ev({ t: NOW - 5 * 60_000, saved_estimated_tokens: 7, saved_wire_bytes: 1 })); // 11:55 UTC
			const r = agg.result();
			assert.equal(r.series.unit, 'hour');
			assert.equal(r.series.t.length, 25, 'every hour from the range start to now');
			assert.equal(r.series.t[0], NOW - DAY);
			const at = (ms: number): number => r.series.t.indexOf(ms);
			assert.equal(r.series.tokens[at(NOW - 2 * HOUR)], 15);
			assert.equal(r.series.bytes[at(NOW - 2 * HOUR)], 60);
			assert.equal(r.series.events[at(NOW - 2 * HOUR)], 2);
			assert.equal(r.series.tokens[at(NOW - HOUR)], 7);
			assert.equal(
				r.series.tokens.reduce((a, b) => a + b, 0),
				22,
			);
			assert.equal(r.series.tokens.filter((x) => x === 0).length, 23);
			assert.deepEqual(r.totals, { events: 3, tokens: 22, bytes: 61 });
		});

		test('buckets a 30-day range by local day and counts events before the range as out of range', () => {
			const agg = new SavingsAggregator(NOW - 30 * DAY, NOW);
			agg.add(ev({ t: NOW - 2 * HOUR, saved_estimated_tokens: 1 }));
			agg.add(ev({ t: NOW - 3 * HOUR, saved_estimated_tokens: 2 }));
			agg.add(ev({ t: NOW - 10 * DAY, saved_estimated_tokens: 4 }));
			agg.add(ev({ t: NOW - 31 * DAY, saved_estimated_tokens: 1000 }));
			const r = agg.result();
			assert.equal(r.series.unit, 'day');
			assert.ok(r.series.t.length === 31 || r.series.t.length === 32, `30 days of buckets, got ${r.series.t.length}`);
			for (const t of r.series.t) {
				const d = new Date(t);
				assert.deepEqual([d.getHours(), d.getMinutes()], [0, 0], 'each bucket starts at local midnight');
			}
			const dayOf = (ms: number): number => {
				const d = new Date(ms);
				d.setHours(0, 0, 0, 0);
				return d.getTime();
			};
			assert.equal(r.series.tokens[r.series.t.indexOf(dayOf(NOW - 10 * DAY))], 4);
			assert.equal(
				r.series.tokens.reduce((a, b) => a + b, 0),
				7,
			);
			assert.equal(r.outOfRange, 1);
			assert.deepEqual(r.totals, { events: 3, tokens: 7, bytes: 300 });
		});

		test('"all" picks hours for events within a week and days beyond', () => {
			const short = new SavingsAggregator(undefined, NOW);
			short.add(ev({ t: NOW - 2 * DAY }));
			short.add(ev({ t: NOW - HOUR }));
			assert.equal(short.result().series.unit, 'hour');
			assert.equal(short.result().series.t.length, 48, 'from the first event hour to the last');
			const long = new SavingsAggregator(undefined, NOW);
			long.add(ev({ t: NOW - 40 * DAY }));
			long.add(ev({ t: NOW - HOUR }));
			assert.equal(long.result().series.unit, 'day');
			assert.equal(
				long.result().series.tokens.reduce((a, b) => a + b, 0),
				50,
			);
		});

		test('ignores malformed values: bad counts add 0 and count as malformed, unreadable or implausible times are left out', () => {
			const agg = new SavingsAggregator(NOW - DAY, NOW);
			agg.add(ev({ saved_estimated_tokens: 10, saved_wire_bytes: 10 }));
			agg.add(ev({ saved_estimated_tokens: -5, saved_wire_bytes: 10 }));
			agg.add(ev({ saved_estimated_tokens: 1.5, saved_wire_bytes: Number.NaN }));
			agg.add(ev({ saved_estimated_tokens: undefined, saved_wire_bytes: 7 }));
			agg.add(ev({ observed_at: 'yesterday-ish' }));
			agg.add(ev({ observed_at: undefined }));
			agg.add(ev({ t: NOW + 3 * DAY }));
			agg.add(ev({ observed_at: '1970-01-01T00:00:00Z' }));
			const r = agg.result();
			assert.equal(r.malformed, 7);
			assert.deepEqual(r.totals, { events: 4, tokens: 10 + 5 * 0, bytes: 27 + 10 - 10 });
			assert.equal(
				r.series.tokens.reduce((a, b) => a + b, 0),
				10,
			);
			assert.ok(r.series.t.every((t) => Number.isFinite(t)));
		});

		test('breaks down by method (an event under each of its methods) and by runtime, most tokens first', () => {
			const agg = new SavingsAggregator(undefined, NOW);
			agg.add(ev({ methods: ['json_array', 'log'], saved_estimated_tokens: 10 }));
			agg.add(ev({ methods: ['log'], saved_estimated_tokens: 30, runtime_id: 'rt-b', runtime_name: 'borealis' }));
			agg.add(ev({ methods: [], saved_estimated_tokens: 1 }));
			const r = agg.result();
			assert.deepEqual(
				r.methods.map((m) => [m.method, m.events, m.tokens]),
				[
					['log', 2, 40],
					['json_array', 1, 10],
				],
			);
			assert.deepEqual(
				r.runtimes.map((x) => [x.runtimeId, x.runtimeName, x.events, x.tokens]),
				[
					['rt-b', 'borealis', 1, 30],
					['rt-a', 'atlas', 2, 11],
				],
			);
		});

		test('bounds the breakdowns: keys past SAFETY.savingsMaxKeys add up under ""', () => {
			const agg = new SavingsAggregator(undefined, NOW);
			const n = SAFETY.savingsMaxKeys + 50;
			for (let i = 0; i < n; i++) {
				agg.add(ev({ methods: [`m${i}`], runtime_id: `rt-${i}`, saved_estimated_tokens: 1 }));
			}
			const r = agg.result();
			assert.equal(r.methods.length, SAFETY.savingsMaxKeys + 1);
			assert.equal(r.methods.find((m) => m.method === '')?.events, 50);
			assert.equal(r.runtimes.length, SAFETY.savingsMaxKeys + 1);
			assert.equal(
				r.methods.reduce((a, m) => a + m.events, 0),
				n,
			);
		});

		test('keeps the newest events for the recent table, newest first, whatever the order they arrive in', () => {
			const agg = new SavingsAggregator(undefined, NOW);
			const times = Array.from({ length: SAFETY.savingsRecentRows + 40 }, (_, i) => NOW - ((i * 7919) % 500) * 60_000 - i);
			for (const [i, t] of times.entries()) {
				agg.add(ev({ id: `e${i}`, t }));
			}
			const recent = agg.result().recent;
			assert.equal(recent.length, SAFETY.savingsRecentRows);
			const expected = [...times].sort((a, b) => b - a).slice(0, SAFETY.savingsRecentRows);
			assert.deepEqual(
				recent.map((r) => r.observedMs),
				expected,
			);
		});

		test('reads RFC 3339 times digit by digit exactly as Date.parse does, and falls back to it for other forms', () => {
			for (const s of [
				'2026-11-23T10:00:00Z',
				'2026-11-23T10:00:00.123Z',
				'2026-11-23T10:00:00.1Z',
				'2026-11-23T10:00:00.123456789Z',
				'2026-11-23t10:00:00z',
				'2026-11-23T10:00:00+05:30',
				'2026-11-23T10:00:00.5-08:00',
				'2024-02-29T23:59:59Z',
				'2026-11-23',
				'Mon, 23 Nov 2026 10:00:00 GMT',
				'2026-11-23T10:00:00',
			]) {
				assert.equal(parseTime(s), Date.parse(s), s);
			}
			for (const bad of [
				'',
				'yesterday',
				'2026-13-01T00:00:00Z',
				'2026-11-23T25:00:00Z',
				'2026-11-23T10:00:00.Z',
				'2026-11-23T10:00:00+0530x',
			]) {
				assert.ok(Number.isNaN(parseTime(bad)), bad);
			}
		});

		test('aggregates 100,000 events in well under a second', () => {
			const agg = new SavingsAggregator(NOW - 90 * DAY, NOW);
			const methods = ['json_array', 'log', 'search_results', 'git_diff'];
			const events = Array.from({ length: 100_000 }, (_, i) =>
				ev({ id: `e${i}`, t: NOW - i * 77_760, methods: [methods[i % 4]!], saved_estimated_tokens: i % 1000 }),
			);
			// CPU time (a busy machine makes the wall time longer, not the work).
			const start = process.cpuUsage();
			for (const e of events) {
				agg.add(e);
			}
			const r = agg.result();
			const used = process.cpuUsage(start);
			const ms = (used.user + used.system) / 1000;
			assert.equal(r.totals.events, 100_000);
			assert.equal(
				r.series.events.reduce((a, b) => a + b, 0),
				100_000,
			);
			assert.ok(ms < 1000, `took ${ms.toFixed(0)} ms of CPU time`);
		});
	});

	suite('streaming', () => {
		const many = (n: number, step = 10 * 60_000): TokenSavingEventRecord[] =>
			Array.from({ length: n }, (_, i) => ev({ id: `e${i}`, t: NOW - i * step }));

		test('reads every page with progress, and the account totals come from the first page', async () => {
			const source = memorySource(many(250));
			const progress: number[] = [];
			const data = await loadSavings(source, { range: 'all' }, { now: NOW, onProgress: (p) => progress.push(p.events) });
			assert.equal(data.events, 250);
			assert.equal(data.pages, 3);
			assert.deepEqual(progress, [100, 200, 250]);
			assert.equal(data.accountTotals?.applied_events, 250);
			assert.equal(data.aggregate.totals.tokens, data.accountTotals?.saved_estimated_tokens);
			assert.deepEqual(
				source.queries.map((q) => q.limit),
				[100, 100, 100],
			);
		});

		test("the account totals stay the whole account's when the filter picks a runtime; the runtime's are its own", async () => {
			const events = [
				...Array.from({ length: 30 }, (_, i) => ev({ id: `a${i}`, runtime_id: 'rt-a', t: NOW - i * HOUR })),
				...Array.from({ length: 12 }, (_, i) =>
					ev({ id: `b${i}`, runtime_id: 'rt-b', runtime_name: 'borealis', t: NOW - i * HOUR }),
				),
			];
			const all = await loadSavings(memorySource(events), { range: 'all' }, { now: NOW });
			const source = memorySource(events);
			const one = await loadSavings(source, { range: 'all', runtimeId: 'rt-a' }, { now: NOW });
			assert.equal(one.aggregate.totals.events, 30);
			assert.equal(one.filterTotals?.applied_events, 30);
			assert.deepEqual(one.accountTotals, all.accountTotals);
			assert.equal(one.accountTotals?.applied_events, 42);
			assert.equal(one.accountTotals?.saved_estimated_tokens, 42 * 25);
			assert.deepEqual(
				source.queries.map((q) => [q.runtimeId, q.limit]),
				[
					['rt-a', 100],
					[undefined, 1],
				],
				"one page of the runtime's events and one event of the account's, for its totals",
			);
			const plain = memorySource(events);
			await loadSavings(plain, { range: '7d' }, { now: NOW });
			assert.equal(plain.queries.length, 1, 'without a runtime the first page carries the account totals');
		});

		test('stops at the cap and says so', async () => {
			const source = memorySource(many(1000));
			const data = await loadSavings(source, { range: 'all' }, { now: NOW, maxEvents: 250 });
			assert.equal(data.capped, true);
			assert.equal(data.events, 250);
			assert.equal(data.aggregate.totals.events, 250);
			assert.equal(source.queries.length, 3, 'no page after the cap');
		});

		test('on a newest-first listing, stops after the page that passes the range start', async () => {
			const source = memorySource(many(1000, HOUR)); // 1000 hours back
			const data = await loadSavings(source, { range: '24h' }, { now: NOW });
			assert.equal(data.stoppedAtRangeStart, true);
			assert.equal(source.queries.length, 1);
			assert.equal(data.aggregate.totals.events, 25, 'events at now, now-1h … now-24h (the start is inclusive)');
		});

		test('on a listing in another order, reads to the end', async () => {
			const events = many(300, HOUR).reverse(); // oldest first
			const source = memorySource(events);
			const data = await loadSavings(source, { range: '24h' }, { now: NOW });
			assert.equal(data.stoppedAtRangeStart, false);
			assert.equal(source.queries.length, 3);
			assert.equal(data.aggregate.totals.events, 25);
		});

		test("sends the runtime filter, and skips other runtimes' events when the server ignored it", async () => {
			const events = [ev({ id: 'a', runtime_id: 'rt-a' }), ev({ id: 'b', runtime_id: 'rt-b' }), ev({ id: 'c', runtime_id: 'rt-a' })];
			const honest = memorySource(events);
			const d1 = await loadSavings(honest, { range: 'all', runtimeId: 'rt-a' }, { now: NOW });
			assert.equal(honest.queries[0]?.runtimeId, 'rt-a');
			assert.equal(d1.aggregate.totals.events, 2);
			assert.equal(d1.runtimeFilterIgnored, false);
			const deaf = memorySource(events, { ignoreRuntime: true });
			const d2 = await loadSavings(deaf, { range: 'all', runtimeId: 'rt-a' }, { now: NOW });
			assert.equal(d2.aggregate.totals.events, 2);
			assert.equal(d2.runtimeFilterIgnored, true);
		});

		test('a server repeating its cursor ends the stream with what arrived and the reason', async () => {
			const source: SavingsSource = {
				async listTokenSavings(q) {
					return {
						items: [ev({ id: `x${q.cursor ?? 0}`, t: NOW - 1000 * Number(q.cursor ?? 0) })],
						nextCursor: '1',
						totals: undefined,
						dropped: 0,
						runtimeFilterIgnored: false,
					};
				},
				async listRuntimeTokenSavings() {
					throw new Error('unused');
				},
			};
			const data = await loadSavings(source, { range: 'all' }, { now: NOW });
			assert.equal(data.events, 2);
			assert.match(data.listingStopped ?? '', /repeated a page cursor/);
		});

		test('an abort stops the stream', async () => {
			const controller = new AbortController();
			const source = memorySource(many(1000));
			await assert.rejects(
				streamSavings(source, { range: 'all' }, () => controller.abort(), { now: NOW, signal: controller.signal }),
				(err: Error) => err.name === 'AbortError',
			);
			assert.equal(source.queries.length, 1);
		});

		test('runtime summaries: one row per runtime, a failure stays in its row', async () => {
			const source = memorySource([]);
			const rows = await loadRuntimeSummaries(
				source,
				[
					{ id: 'rt-a', name: 'atlas' },
					{ id: 'rt-broken', name: 'broken' },
					{ id: '..', name: 'unsafe' },
				],
				(err) => String((err as Error).message),
			);
			assert.deepEqual(
				rows.map((r) => [r.runtimeName, r.summary?.applied_events, r.error]),
				[
					['atlas', 3, undefined],
					['broken', undefined, 'boom (request 0192)'],
				],
			);
		});
	});

	suite('CSV', () => {
		test('quotes text, doubles inner quotes and keeps numbers plain', () => {
			assert.equal(csvCell('plain'), '"plain"');
			assert.equal(csvCell('say "hi", twice'), '"say ""hi"", twice"');
			assert.equal(csvCell('two\r\nlines'), '"two\r\nlines"');
			assert.equal(csvCell(42), '42');
			assert.equal(csvCell(undefined), '');
			assert.equal(csvCell(Number.NaN), '');
		});

		test('neutralises formula injection: cells starting with = + - @ tab or CR get a leading quote', () => {
			for (const bad of ['=HYPERLINK("http://x")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1']) {
				const cell = csvCell(bad);
				assert.ok(cell.startsWith(`"'`), `${JSON.stringify(bad)} → ${cell}`);
			}
			assert.equal(csvCell('=cmd|"/c calc"!A0'), `"'=cmd|""/c calc""!A0"`);
			assert.equal(csvCell('a=b'), '"a=b"');
		});

		test('an event row follows the header and writes the time as ISO UTC', () => {
			const line = csvEventRow(ev({ runtime_name: '=evil()', methods: ['json_array', 'log'] }), NOW - HOUR);
			assert.equal(line, `"2026-11-23T11:00:00.000Z","evt_1","e1","'=evil()","rt-a","json_array log",25,100\r\n`);
			assert.equal(csvRow(CSV_HEADER).split(',').length, line.split(',').length);
		});

		test('the export streams the events in range to the sink page by page', async () => {
			const events = Array.from({ length: 250 }, (_, i) => ev({ id: `e${i}`, t: NOW - i * 10 * 60_000 }));
			const chunks: string[] = [];
			const result = await exportSavingsCsv(
				memorySource(events),
				{ range: '24h' },
				{
					write: async (c) => {
						chunks.push(c);
					},
				},
				{ now: NOW },
			);
			const lines = chunks.join('').split('\r\n').filter(Boolean);
			assert.equal(lines[0], CSV_HEADER.map((h) => `"${h}"`).join(','));
			assert.equal(result.rows, 145, 'one every ten minutes from now back to the range start, both ends included');
			assert.equal(lines.length, 146);
			assert.ok(chunks.length >= 2, 'written in chunks, not one string');
		});
	});
});
