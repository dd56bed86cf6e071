/**
 * The Token Savings dashboard: the time to aggregate and draw 100,000 savings events (goal < 1 s)
 * and the heap that takes (goal < 50 MB), with 10,000 events measured in the same run as the
 * baseline (the 100,000 / 10,000 time ratio shows whether the cost is linear).
 *
 * Aggregate (Node): the dashboard's own path, `loadSavings` (src/webviews/savings/data.ts), over a
 * source that serves pages of 100 raw JSON events the way the service sends them, each decoded by
 * the client's `decodeTokenSavingEvent` — so the time covers decoding, the page loop and the
 * aggregation, and the memory is that of streaming (pages are made on demand, not held). Heap:
 * the highest `heapUsed` sampled after each page, less the heap after a gc before the run.
 *
 * Draw (Chromium): the page's chart module (src/webviews/pages/savings/chart.ts, bundled here with
 * esbuild as the page bundle is) draws the aggregate with uPlot in headless Chromium; time from
 * `new SavingsChart` to the end of the drawing, median of several draws. Two series shapes: the
 * 100,000 events over 90 days (by day) and over the last 7 days (by hour, the most buckets a
 * range has).
 */
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { decodeTokenSavingEvent } from '../../src/api/decode';
import type { AccountTokenSavingsPage, TokenSavingsQuery } from '../../src/api/types';
import { type SavingsData, type SavingsSource, loadSavings } from '../../src/webviews/savings/data';
import { type BenchContext, type Row, median } from '../report';

const ROOT = join(__dirname, '..', '..', '..');
const CHROMIUM = '/usr/bin/chromium';
const GOAL_MS = 1000;
const GOAL_HEAP_MB = 50;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const METHODS = ['json_array', 'log', 'search_results', 'git_diff'];
const RUNTIMES = Array.from({ length: 12 }, (_, i) => ({
	id: `0190a1b2-0000-7000-8000-${String(i).padStart(12, '0')}`,
	name: `runtime-${i}`,
}));

/** The pages of `count` events spread over `spanMs` before `now`, newest first, as JSON texts of 100 events (made before the clock starts). */
function syntheticPages(count: number, spanMs: number, now: number): string[] {
	const step = spanMs / count;
	const pages: string[] = [];
	for (let start = 0; start < count; start += 100) {
		const raw: unknown[] = [];
		for (let i = start; i < Math.min(count, start + 100); i++) {
			const rt = RUNTIMES[i % RUNTIMES.length]!;
			raw.push({
				id: `0190a1b2-${String(i % 10_000).padStart(4, '0')}-7000-8000-${String(i).padStart(12, '0')}`,
				event_id: `evt_${i}`,
				runtime_id: rt.id,
				runtime_name: rt.name,
				observed_at: new Date(now - i * step).toISOString(),
				saved_wire_bytes: 1000 + (i % 9000),
				saved_estimated_tokens: 250 + (i % 2250),
				methods: i % 7 === 0 ? [{ method: METHODS[i % 4]! }, { method: 'log' }] : [{ method: METHODS[i % 4]! }],
			});
		}
		pages.push(JSON.stringify({ data: { events: raw } }));
	}
	return pages;
}

/** A source over prepared pages: each request parses its page's JSON (time counted in `parseMs`: the transport's share) and decodes its events as the client does. */
function pageSource(pages: readonly string[], count: number, spent: { parseMs: number }): SavingsSource {
	return {
		async listTokenSavings(q: TokenSavingsQuery): Promise<AccountTokenSavingsPage> {
			const t0 = performance.now();
			const index = q.cursor ? Number(q.cursor) : 0;
			const body = JSON.parse(pages[index]!) as { data: { events: unknown[] } };
			spent.parseMs += performance.now() - t0;
			const items = body.data.events.map((e) => decodeTokenSavingEvent(e, {}));
			return {
				items,
				nextCursor: index + 1 < pages.length ? String(index + 1) : undefined,
				totals: { applied_events: count, saved_wire_bytes: undefined, saved_estimated_tokens: undefined },
				dropped: 0,
				runtimeFilterIgnored: false,
			};
		},
		async listRuntimeTokenSavings() {
			throw new Error('not used');
		},
	};
}

interface Measured {
	ms: number;
	parseMs: number;
	heapMb: number;
	retainedMb: number;
	series: SavingsData['aggregate']['series'];
}

async function aggregate(count: number, range: '90d' | '7d', gc: () => void): Promise<Measured> {
	const now = Date.now();
	const pages: string[] = syntheticPages(count, range === '90d' ? 89 * DAY : 7 * DAY - HOUR, now);
	const spent = { parseMs: 0 };
	const source = pageSource(pages, count, spent);
	gc();
	const base = process.memoryUsage().heapUsed;
	let peak = base;
	let n = 0;
	const t0 = performance.now();
	let data: SavingsData | undefined = await loadSavings(
		source,
		{ range },
		{
			now,
			onProgress: () => {
				if (++n % 10 === 0) {
					const h = process.memoryUsage().heapUsed;
					if (h > peak) {
						peak = h;
					}
				}
			},
		},
	);
	const ms = performance.now() - t0 - spent.parseMs;
	const end = process.memoryUsage().heapUsed;
	if (data.aggregate.totals.events !== count) {
		throw new Error(`aggregated ${data.aggregate.totals.events} of ${count} events`);
	}
	// What the dashboard keeps: the heap with the result alive less the heap without it (both after gc).
	const series = data.aggregate.series;
	pages.length = 0;
	gc();
	const withData = process.memoryUsage().heapUsed;
	// eslint-disable-next-line no-useless-assignment -- dropping the only reference is the point: gc may then free it.
	data = undefined;
	gc();
	const retained = withData - process.memoryUsage().heapUsed;
	return {
		ms,
		parseMs: spent.parseMs,
		heapMb: (Math.max(peak, end) - base) / (1024 * 1024),
		retainedMb: retained / (1024 * 1024),
		series,
	};
}

/** Median draw time (ms) of `series` with the page's chart module in headless Chromium. */
async function drawTimes(
	browser: Browser,
	bundle: string,
	css: string,
	series: SavingsData['aggregate']['series'],
	rounds: number,
): Promise<{ ms: number; buckets: number }> {
	const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
	try {
		await page.setContent(
			`<!DOCTYPE html><html><head><style>${css}</style></head><body><div id="chart" style="width:1200px"></div></body></html>`,
		);
		await page.addScriptTag({ content: bundle });
		const input = { t: series.t.map((ms) => ms / 1000), tokens: series.tokens, bytes: series.bytes };
		await page.evaluate(`window.__series = ${JSON.stringify(input)};`);
		const times: number[] = [];
		let buckets = 0;
		for (let i = 0; i < rounds; i++) {
			const r = await page.evaluate<{ ms: number; buckets: number }>(`(() => {
				const el = document.getElementById('chart');
				el.replaceChildren();
				const t0 = performance.now();
				const chart = new SavingsBench.SavingsChart(el, { tokens: 'Saved tokens', bytes: 'Saved bytes' });
				chart.draw(window.__series);
				// Read a canvas pixel so the drawing has happened before the clock stops.
				el.querySelector('canvas').getContext('2d').getImageData(0, 0, 1, 1);
				const ms = performance.now() - t0;
				const buckets = Number(el.dataset.buckets);
				chart.dispose();
				return { ms, buckets };
			})()`);
			times.push(r.ms);
			buckets = r.buckets;
		}
		return { ms: median(times), buckets };
	} finally {
		await page.close();
	}
}

export async function run(ctx: BenchContext): Promise<void> {
	const gc = (globalThis as { gc?: () => void }).gc;
	if (!gc) {
		throw new Error('run node with --expose-gc');
	}
	ctx.log('savings: aggregating 10,000 and 100,000 events…');
	// Warm-up (JIT), then alternate baseline and full runs; medians of three each.
	await aggregate(10_000, '90d', gc);
	const small: Measured[] = [];
	const full: Measured[] = [];
	for (let i = 0; i < 3; i++) {
		small.push(await aggregate(10_000, '90d', gc));
		full.push(await aggregate(100_000, '90d', gc));
	}
	const hourly = await aggregate(100_000, '7d', gc);
	const med = (xs: Measured[], key: 'ms' | 'parseMs' | 'heapMb'): number => median(xs.map((x) => x[key]));
	const aggMs = med(full, 'ms');
	const aggHeap = Math.max(...full.map((x) => x.heapMb), hourly.heapMb);
	const smallMs = med(small, 'ms');

	ctx.log('savings: drawing with uPlot in headless Chromium…');
	const built = await esbuild.build({
		entryPoints: [join(ROOT, 'src', 'webviews', 'pages', 'savings', 'chart.ts')],
		bundle: true,
		format: 'iife',
		globalName: 'SavingsBench',
		platform: 'browser',
		target: ['chrome120'],
		minify: true,
		write: false,
		outdir: 'out-bench',
		logLevel: 'silent',
	});
	const js = built.outputFiles.find((f) => f.path.endsWith('.js'))?.text ?? '';
	const css = built.outputFiles.find((f) => f.path.endsWith('.css'))?.text ?? '';
	const browser: Browser = await chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
	});
	let draws: Array<{ ms: number; buckets: number }>;
	try {
		draws = [
			await drawTimes(browser, js, css, small[0]!.series, 7),
			await drawTimes(browser, js, css, full[0]!.series, 7),
			await drawTimes(browser, js, css, hourly.series, 7),
		];
	} finally {
		await browser.close();
	}
	const [smallDraw, daily, hourlyDraw] = draws as [
		{ ms: number; buckets: number },
		{ ms: number; buckets: number },
		{ ms: number; buckets: number },
	];
	const total = aggMs + daily.ms;
	const totalHourly = hourly.ms + hourlyDraw.ms;
	const totalSmall = smallMs + smallDraw.ms;
	const rows: Row[] = [
		{
			metric: 'aggregate + draw 100,000 savings events, 90 days by day (ms)',
			value: `${total.toFixed(0)} (decode + aggregate ${aggMs.toFixed(0)}, draw ${daily.ms.toFixed(1)}, ${daily.buckets} buckets)`,
			target: `< ${GOAL_MS}`,
			pass: total < GOAL_MS,
		},
		{
			metric: 'aggregate + draw 100,000 savings events, 7 days by hour (ms)',
			value: `${totalHourly.toFixed(0)} (decode + aggregate ${hourly.ms.toFixed(0)}, draw ${hourlyDraw.ms.toFixed(1)}, ${hourlyDraw.buckets} buckets)`,
			target: `< ${GOAL_MS}`,
			pass: totalHourly < GOAL_MS,
		},
		{
			metric: "JSON parsing of the 1,000 pages, the transport's share of reading them (ms; not in the rows above)",
			value: med(full, 'parseMs').toFixed(0),
		},
		{
			metric: 'heap while aggregating 100,000 savings events (MB, peak above the start)',
			value: aggHeap.toFixed(1),
			target: `< ${GOAL_HEAP_MB}`,
			pass: aggHeap < GOAL_HEAP_MB,
		},
		{
			metric: 'heap the dashboard keeps after aggregating 100,000 events (KB, after gc)',
			value: Math.max(0, full[0]!.retainedMb * 1024).toFixed(0),
		},
		{
			metric: 'baseline: aggregate + draw 10,000 events (ms)',
			value: `${totalSmall.toFixed(0)} (aggregate ${smallMs.toFixed(0)}, draw ${smallDraw.ms.toFixed(1)})`,
		},
		{ metric: 'aggregation time ratio 100,000 / 10,000 events (10 = linear)', value: (aggMs / smallMs).toFixed(2) },
	];
	ctx.addSection({
		title: 'Token savings dashboard (aggregate in Node, draw with uPlot in headless Chromium)',
		rows,
		notes: [
			"Aggregation runs the dashboard's own loadSavings over pages of 100 events as JSON texts (made before the clock starts; each parsed and decoded per page like the client does; no HTTP). The timed rows count what the dashboard does with the events it receives (the client's decoder, the aggregation, the drawing); the JSON parsing that the transport does on every response is timed apart. Heap: the highest heapUsed sampled every ten pages and at the end, above the heap after a gc before the run. The chart draws the aggregate, never the raw events: 100,000 events over 90 days are 90 daily buckets, over 7 days 169 hourly buckets. Medians of three aggregation runs (alternating with the baseline) and seven draws.",
		],
	});
}
