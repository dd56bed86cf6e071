/**
 * The token-savings dashboard's data, on the extension side (plain TypeScript, no `vscode`): the
 * account-wide savings events streamed page by page (progress, cancel, a cap), aggregated on the
 * fly into hour or day buckets of saved tokens and bytes, a per-method and a per-runtime
 * breakdown and a short table of recent events — without keeping the events themselves, so
 * 100,000 events cost a few typed arrays and maps, not 100,000 objects. The same stream writes a
 * CSV export line by line (`csvRow`, injection-safe).
 *
 * Time: events are bucketed by UTC hour; a day is the local calendar day of its hours (the chart
 * shows local time). A range longer than seven days is drawn by day, a shorter one by hour.
 */
import { ListingStoppedError, PageChain } from '../../api/pagination';
import { SAFETY } from '../../base/limits';
import { isSafeId } from '../../api/decode';
import type {
	AccountTokenSavingsPage,
	TokenSavingEventRecord,
	TokenSavingSummaryCounts,
	TokenSavingTotalsCounts,
	TokenSavingsPage,
	TokenSavingsQuery,
} from '../../api/types';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Events read per request (the documented maximum page size). */
export const SAVINGS_PAGE_SIZE = 100;

/** The time ranges the dashboard offers. */
export const RANGE_IDS = ['24h', '7d', '30d', '90d', 'all'] as const;
/** A time range of the dashboard. */
export type RangeId = (typeof RANGE_IDS)[number];

/** Length of each range (undefined: everything). */
export const RANGE_MS: Readonly<Record<RangeId, number | undefined>> = {
	'24h': DAY_MS,
	'7d': 7 * DAY_MS,
	'30d': 30 * DAY_MS,
	'90d': 90 * DAY_MS,
	all: undefined,
};

/** Bucket size of the chart. */
export type BucketUnit = 'hour' | 'day';

/** The dashboard's filter: a time range and optionally one runtime. */
export interface SavingsFilter {
	range: RangeId;
	/** Only this runtime's events (a runtime id); undefined for all runtimes. */
	runtimeId?: string | undefined;
}

/** Saved tokens and bytes of a group of events. */
export interface SavingsSums {
	events: number;
	tokens: number;
	bytes: number;
}

/** One row of a breakdown by method. */
export interface MethodRow extends SavingsSums {
	/** The method's name as the server sent it (server text); '' for "other methods". */
	method: string;
}

/** One row of the breakdown by runtime, from the events in range. */
export interface RuntimeEventsRow extends SavingsSums {
	runtimeId: string;
	/** Server text. */
	runtimeName: string;
}

/** One row of the recent-events table (server text in `runtimeName`, `methods`, `eventId`). */
export interface RecentRow {
	id: string;
	eventId: string;
	runtimeId: string;
	runtimeName: string;
	observedMs: number;
	tokens: number | undefined;
	bytes: number | undefined;
	methods: string[];
}

/** The time series the chart draws: bucket starts (ms) and the sums per bucket, gaps filled with 0. */
export interface SavingsSeries {
	unit: BucketUnit;
	t: number[];
	events: number[];
	tokens: number[];
	bytes: number[];
}

/** What the aggregation of one stream produced. */
export interface SavingsAggregate {
	series: SavingsSeries;
	/** Sums over the events in range (malformed values count as 0). */
	totals: SavingsSums;
	/** Events in range with a malformed value (a count that is not a non-negative integer) or with no readable time. */
	malformed: number;
	/** Events read but outside the range. */
	outOfRange: number;
	/** By method, most saved tokens first; an event with several methods counts under each. */
	methods: MethodRow[];
	/** By runtime, from the events, most saved tokens first. */
	runtimes: RuntimeEventsRow[];
	/** The newest events in range, newest first (SAFETY.savingsRecentRows at most). */
	recent: RecentRow[];
}

function digitsAt(s: string, at: number, n: number): number {
	let v = 0;
	for (let i = at; i < at + n; i++) {
		const d = s.charCodeAt(i) - 48;
		if (d < 0 || d > 9) {
			return -1;
		}
		v = v * 10 + d;
	}
	return v;
}

/**
 * Milliseconds of an RFC 3339 time: the common `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)` read digit by
 * digit (several times faster than Date.parse, which dominated the aggregation), anything else
 * through Date.parse. NaN when unreadable.
 */
export function parseTime(s: string): number {
	if (
		s.length >= 20 &&
		s.charCodeAt(4) === 45 &&
		s.charCodeAt(7) === 45 &&
		(s.charCodeAt(10) === 84 || s.charCodeAt(10) === 116) &&
		s.charCodeAt(13) === 58 &&
		s.charCodeAt(16) === 58
	) {
		const y = digitsAt(s, 0, 4);
		const mo = digitsAt(s, 5, 2);
		const d = digitsAt(s, 8, 2);
		const h = digitsAt(s, 11, 2);
		const mi = digitsAt(s, 14, 2);
		const sec = digitsAt(s, 17, 2);
		let i = 19;
		let ms = 0;
		if (s.charCodeAt(i) === 46) {
			const start = ++i;
			while (i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) {
				i++;
			}
			const frac = s.slice(start, Math.min(i, start + 3)).padEnd(3, '0');
			ms = i > start ? digitsAt(frac, 0, 3) : -1;
		}
		let offset = -1;
		const zone = s.charCodeAt(i);
		if ((zone === 90 || zone === 122) && i + 1 === s.length) {
			offset = 0;
		} else if ((zone === 43 || zone === 45) && i + 6 === s.length && s.charCodeAt(i + 3) === 58) {
			const oh = digitsAt(s, i + 1, 2);
			const om = digitsAt(s, i + 4, 2);
			if (oh >= 0 && om >= 0) {
				offset = (oh * 60 + om) * 60_000 * (zone === 43 ? 1 : -1);
			}
		}
		if (
			y >= 0 &&
			mo >= 1 &&
			mo <= 12 &&
			d >= 1 &&
			d <= 31 &&
			h >= 0 &&
			h <= 23 &&
			mi >= 0 &&
			mi <= 59 &&
			sec >= 0 &&
			sec <= 60 &&
			ms >= 0 &&
			offset !== -1
		) {
			return Date.UTC(y, mo - 1, d, h, mi, sec, ms) - offset;
		}
	}
	return Date.parse(s);
}

/** The time of an event in ms, or undefined when missing, unreadable or outside the plausible window. */
export function eventTime(ev: Pick<TokenSavingEventRecord, 'observed_at'>, now: number): number | undefined {
	if (ev.observed_at === undefined) {
		return undefined;
	}
	const t = parseTime(ev.observed_at);
	return Number.isFinite(t) && t >= SAFETY.savingsEarliestMs && t <= now + SAFETY.savingsFutureSlackMs ? t : undefined;
}

function count(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** Local midnight of the day holding `ms`. */
function localDay(ms: number): number {
	const d = new Date(ms);
	d.setHours(0, 0, 0, 0);
	return d.getTime();
}

/** The next local midnight after the local midnight `dayMs` (23 or 25 hours on a DST change). */
function nextLocalDay(dayMs: number): number {
	const d = new Date(dayMs);
	d.setDate(d.getDate() + 1);
	d.setHours(0, 0, 0, 0);
	return d.getTime();
}

/** A keyed breakdown bounded by SAFETY.savingsMaxKeys; further keys add up under ''. */
class Breakdown<Extra> {
	readonly rows = new Map<string, SavingsSums & Extra>();

	constructor(private readonly make: (key: string) => Extra) {}

	add(key: string, tokens: number, bytes: number): void {
		let row = this.rows.get(key);
		if (row === undefined) {
			const k = this.rows.size >= SAFETY.savingsMaxKeys ? '' : key;
			row = this.rows.get(k);
			if (row === undefined) {
				row = { events: 0, tokens: 0, bytes: 0, ...this.make(k) };
				this.rows.set(k, row);
			}
		}
		row.events++;
		row.tokens += tokens;
		row.bytes += bytes;
	}

	sorted(): Array<SavingsSums & Extra> {
		return [...this.rows.values()].sort((a, b) => b.tokens - a.tokens || b.events - a.events);
	}
}

/**
 * Aggregates savings events one at a time into hourly buckets (a map from the UTC hour to a slot
 * of three growing Float64Arrays), the breakdowns and the recent rows. Memory grows with the
 * number of distinct hours, methods and runtimes, never with the number of events.
 */
export class SavingsAggregator {
	private readonly slotOfHour = new Map<number, number>();
	private hours = new Float64Array(256);
	private events = new Float64Array(256);
	private tokens = new Float64Array(256);
	private bytes = new Float64Array(256);
	private slots = 0;
	private readonly totals: SavingsSums = { events: 0, tokens: 0, bytes: 0 };
	private malformed = 0;
	private outOfRange = 0;
	private minT = Infinity;
	private maxT = -Infinity;
	private readonly methods = new Breakdown<{ method: string }>((method) => ({ method }));
	private readonly runtimes = new Breakdown<{ runtimeId: string; runtimeName: string }>((runtimeId) => ({ runtimeId, runtimeName: '' }));
	private readonly recent: RecentRow[] = [];

	/**
	 * @param fromMs start of the range (inclusive; undefined: no start)
	 * @param now the time the range ends (events up to a day later are accepted: clock skew)
	 */
	constructor(
		readonly fromMs: number | undefined,
		readonly now: number,
	) {}

	/** Adds one event. Returns its time (undefined when unreadable), so a caller can watch the order. */
	add(ev: TokenSavingEventRecord): number | undefined {
		const t = eventTime(ev, this.now);
		if (t === undefined) {
			this.malformed++;
			return undefined;
		}
		if (this.fromMs !== undefined && t < this.fromMs) {
			this.outOfRange++;
			return t;
		}
		const tokens = count(ev.saved_estimated_tokens);
		const bytes = count(ev.saved_wire_bytes);
		if (tokens === undefined || bytes === undefined) {
			this.malformed++;
		}
		const tk = tokens ?? 0;
		const by = bytes ?? 0;
		const hour = Math.floor(t / HOUR_MS);
		let slot = this.slotOfHour.get(hour);
		if (slot === undefined) {
			slot = this.slots++;
			if (slot >= this.hours.length) {
				this.grow();
			}
			this.slotOfHour.set(hour, slot);
			this.hours[slot] = hour * HOUR_MS;
		}
		this.events[slot]! += 1;
		this.tokens[slot]! += tk;
		this.bytes[slot]! += by;
		this.totals.events++;
		this.totals.tokens += tk;
		this.totals.bytes += by;
		if (t < this.minT) {
			this.minT = t;
		}
		if (t > this.maxT) {
			this.maxT = t;
		}
		for (const m of ev.methods) {
			this.methods.add(m, tk, by);
		}
		const runtimeId = ev.runtime_id ?? '';
		this.runtimes.add(runtimeId, tk, by);
		const row = this.runtimes.rows.get(runtimeId);
		if (row && row.runtimeName === '' && ev.runtime_name) {
			row.runtimeName = ev.runtime_name;
		}
		this.keepRecent(ev, t, tokens, bytes);
		return t;
	}

	private grow(): void {
		const size = this.hours.length * 2;
		const bigger = (a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
			const b = new Float64Array(size);
			b.set(a);
			return b;
		};
		this.hours = bigger(this.hours);
		this.events = bigger(this.events);
		this.tokens = bigger(this.tokens);
		this.bytes = bigger(this.bytes);
	}

	private keepRecent(ev: TokenSavingEventRecord, t: number, tokens: number | undefined, bytes: number | undefined): void {
		const rows = this.recent;
		const max = SAFETY.savingsRecentRows;
		if (rows.length >= max && t <= rows[rows.length - 1]!.observedMs) {
			return; // The common case on a newest-first listing: one comparison.
		}
		const row: RecentRow = {
			id: ev.id ?? ev.event_id ?? '',
			eventId: ev.event_id ?? '',
			runtimeId: ev.runtime_id ?? '',
			runtimeName: ev.runtime_name ?? '',
			observedMs: t,
			tokens,
			bytes,
			methods: ev.methods.slice(0, 8),
		};
		let i = rows.length;
		while (i > 0 && rows[i - 1]!.observedMs < t) {
			i--;
		}
		rows.splice(i, 0, row);
		if (rows.length > max) {
			rows.pop();
		}
	}

	/** The bucket size for this range: hours up to seven days, days beyond (for "all", the span of the events decides). */
	unit(): BucketUnit {
		const span = this.fromMs !== undefined ? this.now - this.fromMs : this.maxT - this.minT;
		return span <= 7 * DAY_MS ? 'hour' : 'day';
	}

	/** The aggregate so far (the aggregator can go on after). */
	result(): SavingsAggregate {
		return {
			series: this.series(),
			totals: { ...this.totals },
			malformed: this.malformed,
			outOfRange: this.outOfRange,
			methods: this.methods.sorted(),
			runtimes: this.runtimes.sorted(),
			recent: this.recent.map((r) => ({ ...r, methods: [...r.methods] })),
		};
	}

	private series(): SavingsSeries {
		const unit = this.unit();
		const hasEvents = this.totals.events > 0;
		const start = this.fromMs ?? (hasEvents ? this.minT : undefined);
		const end = this.fromMs !== undefined ? Math.max(this.now, hasEvents ? this.maxT : this.now) : hasEvents ? this.maxT : undefined;
		const out: SavingsSeries = { unit, t: [], events: [], tokens: [], bytes: [] };
		if (start === undefined || end === undefined) {
			return out;
		}
		const index = new Map<number, number>();
		const push = (bucket: number): void => {
			index.set(bucket, out.t.length);
			out.t.push(bucket);
			out.events.push(0);
			out.tokens.push(0);
			out.bytes.push(0);
		};
		if (unit === 'hour') {
			for (let h = Math.floor(start / HOUR_MS); h <= Math.floor(end / HOUR_MS); h++) {
				push(h * HOUR_MS);
			}
		} else {
			for (let d = localDay(start); d <= end; d = nextLocalDay(d)) {
				push(d);
			}
		}
		for (let slot = 0; slot < this.slots; slot++) {
			const hourMs = this.hours[slot]!;
			const i = index.get(unit === 'hour' ? hourMs : localDay(hourMs));
			if (i !== undefined) {
				out.events[i]! += this.events[slot]!;
				out.tokens[i]! += this.tokens[slot]!;
				out.bytes[i]! += this.bytes[slot]!;
			}
		}
		return out;
	}
}

/** What the dashboard needs of the API client (CloudAgentsClient satisfies it). */
export interface SavingsSource {
	listTokenSavings(query: TokenSavingsQuery): Promise<AccountTokenSavingsPage>;
	listRuntimeTokenSavings(runtimeId: string, options: { limit?: number; signal?: AbortSignal }): Promise<TokenSavingsPage>;
}

/** Progress of a stream of savings pages. */
export interface SavingsProgress {
	pages: number;
	events: number;
}

/** How a stream of savings pages ended. */
export interface SavingsStreamResult {
	/** The totals of the first page: everything the filter's runtime (or the account, without one) saved, all time. */
	filterTotals: TokenSavingTotalsCounts | undefined;
	pages: number;
	events: number;
	/** Events the client's decoder refused (not counted in `events`). */
	dropped: number;
	/** Stopped at SAFETY.savingsMaxEvents (or the cap given). */
	capped: boolean;
	/** Stopped before the last page because the listing is newest first and passed the range's start. */
	stoppedAtRangeStart: boolean;
	/** The server ignored the runtime filter: events of other runtimes were skipped and the account totals are not the runtime's. */
	runtimeFilterIgnored: boolean;
	/** Why the server's paging stopped the listing early (repeated cursor, …), as text; undefined when it ended normally. */
	listingStopped: string | undefined;
}

/** Options of `streamSavings`. */
export interface StreamSavingsOptions {
	signal?: AbortSignal | undefined;
	now?: number;
	/** Most events read (default SAFETY.savingsMaxEvents). */
	maxEvents?: number;
	onProgress?: (progress: SavingsProgress) => void;
	/** Awaited after each page's events were visited (an export writes them here, with backpressure). */
	afterPage?: () => Promise<void>;
}

/** Start of the filter's range, or undefined for "all". */
export function rangeStart(range: RangeId, now: number): number | undefined {
	const ms = RANGE_MS[range];
	return ms === undefined ? undefined : now - ms;
}

/**
 * Streams the account-wide savings events of `filter` page by page into `visit` (each event with
 * its time, undefined when unreadable). Bounded: SAFETY.savingsMaxEvents events at most, PageChain's
 * page and cursor checks. The listing's order is not documented: while every event read is no
 * newer than the one before (newest first, as the service answers), the stream stops after the
 * page that passes the range's start; otherwise it reads to the end. Events of other runtimes
 * (a server that ignored the runtime filter) never reach `visit`.
 */
export async function streamSavings(
	source: SavingsSource,
	filter: SavingsFilter,
	visit: (ev: TokenSavingEventRecord, t: number | undefined) => void,
	options: StreamSavingsOptions = {},
): Promise<SavingsStreamResult> {
	const now = options.now ?? Date.now();
	const maxEvents = options.maxEvents ?? SAFETY.savingsMaxEvents;
	const from = rangeStart(filter.range, now);
	const chain = new PageChain(SAFETY.listingMaxPages, Number.MAX_SAFE_INTEGER);
	const result: SavingsStreamResult = {
		filterTotals: undefined,
		pages: 0,
		events: 0,
		dropped: 0,
		capped: false,
		stoppedAtRangeStart: false,
		runtimeFilterIgnored: false,
		listingStopped: undefined,
	};
	let cursor: string | undefined;
	let newestFirst = true;
	let last = Infinity;
	for (;;) {
		options.signal?.throwIfAborted();
		const page = await source.listTokenSavings({
			limit: SAVINGS_PAGE_SIZE,
			cursor,
			runtimeId: filter.runtimeId,
			signal: options.signal,
		});
		if (result.pages === 0) {
			result.filterTotals = page.totals;
		}
		result.pages++;
		result.dropped += page.dropped;
		result.runtimeFilterIgnored ||= page.runtimeFilterIgnored;
		let passedStart = false;
		for (const ev of page.items) {
			if (result.events >= maxEvents) {
				result.capped = true;
				break;
			}
			if (filter.runtimeId !== undefined && ev.runtime_id !== filter.runtimeId) {
				continue;
			}
			result.events++;
			const t = eventTime(ev, now);
			visit(ev, t);
			if (t !== undefined) {
				if (t > last) {
					newestFirst = false;
				}
				last = t;
				if (from !== undefined && t < from) {
					passedStart = true;
				}
			}
		}
		options.onProgress?.({ pages: result.pages, events: result.events });
		await options.afterPage?.();
		if (result.capped) {
			return result;
		}
		let next: string | undefined;
		try {
			next = chain.accept(page, cursor);
		} catch (err) {
			if (err instanceof ListingStoppedError) {
				result.listingStopped = err.message;
				return result;
			}
			throw err;
		}
		if (next === undefined) {
			return result;
		}
		if (passedStart && newestFirst) {
			result.stoppedAtRangeStart = true;
			return result;
		}
		if (result.events >= maxEvents) {
			result.capped = true;
			return result;
		}
		cursor = next;
	}
}

/** The dashboard's data for one filter: the aggregate and how the stream ended. */
export interface SavingsData extends SavingsStreamResult {
	filter: SavingsFilter;
	/** When the data was read (ms). */
	now: number;
	aggregate: SavingsAggregate;
	/** The whole account's totals (all time, from the service), whatever runtime the filter picks. */
	accountTotals: TokenSavingTotalsCounts | undefined;
}

/**
 * Streams and aggregates the savings events of `filter` (see `streamSavings`). The account totals
 * are the first page's when the filter takes every runtime; with a runtime, that page's totals are
 * the runtime's, and one more request (a page of one event, no runtime) reads the account's.
 */
export async function loadSavings(source: SavingsSource, filter: SavingsFilter, options: StreamSavingsOptions = {}): Promise<SavingsData> {
	const now = options.now ?? Date.now();
	const aggregator = new SavingsAggregator(rangeStart(filter.range, now), now);
	const [stream, account] = await Promise.all([
		streamSavings(source, filter, (ev) => aggregator.add(ev), { ...options, now }),
		filter.runtimeId === undefined ? undefined : source.listTokenSavings({ limit: 1, signal: options.signal }),
	]);
	return {
		...stream,
		filter,
		now,
		aggregate: aggregator.result(),
		accountTotals: account === undefined ? stream.filterTotals : account.totals,
	};
}

/** A runtime whose savings summary the dashboard shows. */
export interface RuntimeRef {
	id: string;
	/** Server text. */
	name: string;
}

/** A runtime's savings summary (all time), or why it could not be read. */
export interface RuntimeSummaryRow {
	runtimeId: string;
	runtimeName: string;
	summary: TokenSavingSummaryCounts | undefined;
	/** The error's text (with its request id) when the summary could not be read. */
	error: string | undefined;
}

/**
 * Reads each runtime's savings summary (GET /v1/runtimes/{id}/tokensaver/savings?limit=1: the
 * summary covers all its records), four at a time, at most SAFETY.savingsMaxRuntimeSummaries
 * runtimes. A failure is that runtime's row, not the whole table's; an abort ends it all.
 */
export async function loadRuntimeSummaries(
	source: SavingsSource,
	runtimes: readonly RuntimeRef[],
	describe: (err: unknown) => string,
	signal?: AbortSignal,
): Promise<RuntimeSummaryRow[]> {
	const list = runtimes.filter((r) => isSafeId(r.id)).slice(0, SAFETY.savingsMaxRuntimeSummaries);
	const rows: RuntimeSummaryRow[] = list.map((r) => ({ runtimeId: r.id, runtimeName: r.name, summary: undefined, error: undefined }));
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < rows.length) {
			const row = rows[next++]!;
			signal?.throwIfAborted();
			try {
				const page = await source.listRuntimeTokenSavings(row.runtimeId, { limit: 1, signal });
				row.summary = page.summary;
			} catch (err) {
				if (signal?.aborted) {
					throw err;
				}
				row.error = describe(err);
			}
		}
	};
	await Promise.all([worker(), worker(), worker(), worker()]);
	return rows;
}

// ---------------------------------------------------------------- CSV
// Hand-written on purpose (issue 43 asked for a library where one does the job): csv-stringify, the
// CSV project's writer, does the same (RFC 4180 quoting, CRLF, escape_formulas) but builds a Node
// Buffer when it loads, so in VS Code for the Web's worker it throws "Buffer is not defined" unless
// its browser build comes along (80 KB with a Buffer polyfill; the web bundle carries no
// polyfills). These fifteen lines and their tests (test/unit/webviews/savings/data.test.ts) do it.

/** Characters that make a spreadsheet read a cell as a formula (and tab / CR, which some also treat so). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One CSV cell (RFC 4180). Numbers are written as they are; text is always quoted with inner
 * quotes doubled, and text that a spreadsheet would run as a formula (starting with `=`, `+`,
 * `-`, `@`, tab or CR) gets a leading `'` (OWASP "CSV injection").
 */
export function csvCell(value: string | number | undefined): string {
	if (value === undefined) {
		return '';
	}
	if (typeof value === 'number') {
		return Number.isFinite(value) ? String(value) : '';
	}
	const text = FORMULA_START.test(value) ? `'${value}` : value;
	return `"${text.replace(/"/g, '""')}"`;
}

/** One CSV line (CRLF-terminated). */
export function csvRow(cells: ReadonlyArray<string | number | undefined>): string {
	return `${cells.map(csvCell).join(',')}\r\n`;
}

/** The header of the events export. */
export const CSV_HEADER = [
	'observed_at',
	'event_id',
	'id',
	'runtime_name',
	'runtime_id',
	'methods',
	'saved_estimated_tokens',
	'saved_wire_bytes',
] as const;

/** One event as a CSV line (in the order of CSV_HEADER); the time as ISO 8601 UTC when readable. */
export function csvEventRow(ev: TokenSavingEventRecord, t: number | undefined): string {
	return csvRow([
		t !== undefined ? new Date(t).toISOString() : ev.observed_at,
		ev.event_id,
		ev.id,
		ev.runtime_name,
		ev.runtime_id,
		ev.methods.join(' '),
		ev.saved_estimated_tokens,
		ev.saved_wire_bytes,
	]);
}

/** Where an export writes; `write` resolves when the chunk may be followed by the next (backpressure). */
export interface CsvSink {
	write(chunk: string): Promise<void>;
}

/**
 * Writes the events of `filter` in its range as CSV to `sink`, streamed from the service page by
 * page (the same bounds as the dashboard); a page's lines are written as one chunk. Returns how
 * the stream ended and the number of rows written.
 */
export async function exportSavingsCsv(
	source: SavingsSource,
	filter: SavingsFilter,
	sink: CsvSink,
	options: StreamSavingsOptions = {},
): Promise<SavingsStreamResult & { rows: number }> {
	const now = options.now ?? Date.now();
	const from = rangeStart(filter.range, now);
	await sink.write(csvRow(CSV_HEADER));
	let chunk: string[] = [];
	let rows = 0;
	const flush = async (): Promise<void> => {
		if (chunk.length > 0) {
			const text = chunk.join('');
			chunk = [];
			await sink.write(text);
		}
	};
	const result = await streamSavings(
		source,
		filter,
		(ev, t) => {
			if (from !== undefined && (t === undefined || t < from)) {
				return;
			}
			chunk.push(csvEventRow(ev, t));
			rows++;
		},
		{ ...options, now, afterPage: flush },
	);
	await flush();
	return { ...result, rows };
}
