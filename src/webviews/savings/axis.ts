/**
 * The y axes of the Token Savings chart: counts (saved tokens) and byte sizes (saved bytes) only
 * take whole values, so their ticks are whole numbers, and an axis over nothing (a range without
 * events) is a single 0. Shared by the page (src/webviews/pages/savings/chart.ts, which hands the
 * ticks to uPlot) and the unit tests; imports neither vscode nor node.
 */

/** Where an axis ends and the values it labels. */
export interface CountAxis {
	/** The top of the scale (the bottom is 0). */
	max: number;
	/** The labelled values, from 0 up, each a whole multiple of the step. */
	ticks: number[];
}

/** At most this many steps between 0 and the top. */
const MAX_STEPS = 5;
/** The multipliers of a "nice" step: 1, 2 and 5 times a power of ten. */
const NICE = [1, 2, 5] as const;

/** The smallest nice step (`NICE` × 10^k, at least 1) that covers `span` in at most MAX_STEPS steps. */
function niceStep(span: number): number {
	const raw = span / MAX_STEPS;
	let power = 1;
	while (power * 10 <= raw) {
		power *= 10;
	}
	for (;;) {
		for (const n of NICE) {
			if (n * power >= raw) {
				return n * power;
			}
		}
		power *= 10;
	}
}

/**
 * The axis of a series whose largest value is `dataMax`, ticks in whole multiples of `unit` (1 for
 * counts; 1024, 1024², … for bytes, so ticks read "2 KiB", "4 KiB", never "1.9 KiB"). Nothing to
 * draw (`dataMax` 0, negative or not finite) gives the scale 0..1 with the one tick 0, instead of
 * the fractions 0, 0.2, … 1 that a count axis printed as "0, 0, 0, 1, 1, 1".
 */
export function countAxis(dataMax: number, unit = 1): CountAxis {
	if (!Number.isFinite(dataMax) || dataMax <= 0) {
		return { max: 1, ticks: [0] };
	}
	const step = niceStep(dataMax / unit) * unit;
	const max = Math.ceil(dataMax / step) * step;
	const ticks: number[] = [];
	for (let i = 0; i * step <= max; i++) {
		ticks.push(i * step);
	}
	return { max, ticks };
}

/** The binary unit a byte axis steps in: the largest of 1, 1024, 1024², … not above `dataMax`. */
export function byteUnit(dataMax: number): number {
	let unit = 1;
	while (unit * 1024 <= dataMax) {
		unit *= 1024;
	}
	return unit;
}

/** The axis of saved bytes: whole multiples of the binary unit of its largest value. */
export function byteAxis(dataMax: number): CountAxis {
	return countAxis(dataMax, Number.isFinite(dataMax) && dataMax > 0 ? byteUnit(dataMax) : 1);
}
