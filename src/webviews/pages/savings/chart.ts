/**
 * The Token Savings chart: saved tokens (left axis) and saved bytes (right axis) per hour or day,
 * drawn by uPlot on a canvas. Colours come from CSS custom properties (savings.css maps them to
 * VS Code's `--vscode-charts-*` theme colours), read again whenever the theme changes. uPlot sets
 * element styles through the CSSOM only (no `style` attributes, no `<style>` elements, no eval), so
 * it runs under the page's CSP without `unsafe-inline`. Used by the page and by the bench.
 */
import uPlot from 'uplot';
import { byteAxis, countAxis } from '../../savings/axis';

/** What the chart draws: bucket starts in seconds and the sums per bucket. */
export interface ChartSeries {
	t: number[];
	tokens: number[];
	bytes: number[];
}

/** Labels of the two series (localised by the extension). */
export interface ChartLabels {
	tokens: string;
	bytes: string;
}

function cssColor(el: HTMLElement, name: string, fallback: string): string {
	return getComputedStyle(el).getPropertyValue(name).trim() || fallback;
}

/** 1234 → "1.2K", 5_600_000 → "5.6M" (axis ticks). */
export function compact(n: number): string {
	const abs = Math.abs(n);
	if (abs >= 1e9) {
		return `${(n / 1e9).toFixed(abs >= 1e10 ? 0 : 1)}G`;
	}
	if (abs >= 1e6) {
		return `${(n / 1e6).toFixed(abs >= 1e7 ? 0 : 1)}M`;
	}
	if (abs >= 1e3) {
		return `${(n / 1e3).toFixed(abs >= 1e4 ? 0 : 1)}K`;
	}
	return String(Math.round(n));
}

/** Byte counts for the right axis: "512 B", "1.5 KiB", "3 MiB". */
export function bytesText(n: number): string {
	const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
	let v = n;
	let i = 0;
	while (Math.abs(v) >= 1024 && i < units.length - 1) {
		v /= 1024;
		i++;
	}
	return `${i === 0 ? Math.round(v) : v.toFixed(v >= 10 ? 0 : 1)} ${units[i]}`;
}

/** A chart in `container`; `draw` replaces its data, `redraw` picks up new theme colours. */
export class SavingsChart {
	private plot: uPlot | undefined;
	private series: ChartSeries = { t: [], tokens: [], bytes: [] };
	private readonly resize: ResizeObserver;

	constructor(
		private readonly container: HTMLElement,
		private labels: ChartLabels,
		private readonly height = 280,
	) {
		this.resize = new ResizeObserver(() => {
			if (this.plot && this.container.clientWidth > 0) {
				this.plot.setSize({ width: this.container.clientWidth, height: this.height });
			}
		});
		this.resize.observe(container);
	}

	/** Draws `series` (rebuilding the chart: cheap for the few thousand buckets a range has). */
	draw(series: ChartSeries, labels: ChartLabels = this.labels): void {
		this.series = series;
		this.labels = labels;
		this.redraw();
	}

	/** Removes the chart and stops watching its container's size (signed out: the page shows no data). */
	destroy(): void {
		this.resize.disconnect();
		this.plot?.destroy();
		this.plot = undefined;
	}

	/** Builds the chart again from the current data (after a theme change). */
	redraw(): void {
		this.plot?.destroy();
		const el = this.container;
		const fg = cssColor(el, '--savings-foreground', '#888');
		const grid = cssColor(el, '--savings-grid', 'rgba(128,128,128,0.25)');
		const tokens = cssColor(el, '--savings-tokens', '#3794ff');
		const bytes = cssColor(el, '--savings-bytes', '#d18616');
		const few = this.series.t.length <= 60;
		const bars = uPlot.paths.bars?.({ size: [0.7, 48], align: 1 });
		const t = this.series.t;
		const step = t.length >= 2 ? t[t.length - 1]! - t[t.length - 2]! : 3600;
		// Whole-number ticks (src/webviews/savings/axis.ts): uPlot's own would split 0..1 into fifths.
		const tokenAxis = countAxis(this.series.tokens.reduce((a, b) => Math.max(a, b), 0));
		const byteScale = byteAxis(this.series.bytes.reduce((a, b) => Math.max(a, b), 0));
		const opts: uPlot.Options = {
			width: Math.max(el.clientWidth, 200),
			height: this.height,
			// Each bar covers its bucket [start, next start): the x range ends one bucket after the last start, so the last bar shows.
			scales: {
				x: { time: true, range: (_u, min, max) => [min, max + step] },
				tokens: { auto: true, range: () => [0, tokenAxis.max] },
				bytes: { auto: true, range: () => [0, byteScale.max] },
			},
			series: [
				{},
				// Tokens as bars, bytes as a dashed line: the two often move together, and must stay apart.
				{
					label: this.labels.tokens,
					scale: 'tokens',
					stroke: tokens,
					fill: tokens,
					alpha: 0.55,
					width: 1,
					paths: bars,
					points: { show: false },
					value: (_u, v) => (v == null ? '–' : v.toLocaleString()),
				},
				{
					label: this.labels.bytes,
					scale: 'bytes',
					stroke: bytes,
					width: 2,
					dash: [6, 3],
					points: { show: few },
					value: (_u, v) => (v == null ? '–' : bytesText(v)),
				},
			],
			axes: [
				{ stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } },
				{
					scale: 'tokens',
					stroke: fg,
					grid: { stroke: grid, width: 1 },
					ticks: { stroke: grid, width: 1 },
					splits: () => tokenAxis.ticks,
					values: (_u, ticks) => ticks.map(compact),
					size: 60,
				},
				{
					scale: 'bytes',
					side: 1,
					stroke: fg,
					grid: { show: false },
					ticks: { stroke: grid, width: 1 },
					splits: () => byteScale.ticks,
					values: (_u, ticks) => ticks.map(bytesText),
					size: 70,
				},
			],
			legend: { show: true },
			cursor: { drag: { x: false, y: false } },
		};
		this.plot = new uPlot(opts, [this.series.t, this.series.tokens, this.series.bytes], el);
		const sum = (a: ArrayLike<number | null | undefined>): number => {
			let s = 0;
			for (let i = 0; i < a.length; i++) {
				s += a[i] ?? 0;
			}
			return s;
		};
		// What uPlot holds, for tests and screen readers' neighbours: the sums of the data it draws.
		const data = this.plot.data;
		el.dataset.buckets = String(data[0].length);
		el.dataset.tokens = String(sum(data[1] ?? []));
		el.dataset.bytes = String(sum(data[2] ?? []));
		// The labels of the two y axes, as drawn (the canvas holds no text to read).
		el.dataset.tokenTicks = tokenAxis.ticks.map(compact).join(',');
		el.dataset.byteTicks = byteScale.ticks.map(bytesText).join(',');
	}

	dispose(): void {
		this.resize.disconnect();
		this.plot?.destroy();
		this.plot = undefined;
	}
}
