/**
 * The order of starts for a section that compares variants start by start on one machine (the
 * activation section): each start can leave work behind for the next (a stopped code-server's
 * extension host, a closed browser context), so a variant always started after the same other one
 * carries that one's leftovers in every start. Rotating a fixed order round by round does exactly
 * that (the predecessor of each variant never changes). This order is a closed walk through every
 * ordered pair of variants once, a variant followed by itself included (`followBalancedOrder`, a de
 * Bruijn sequence, as the api section interleaves its calls), repeated: every variant is preceded by
 * each variant, itself included, equally often, so all see the same mix of leftovers, across laps too.
 */

/**
 * A cyclic order of `n` sides in which each ordered pair of sides (a side after itself included)
 * occurs exactly once: the de Bruijn sequence B(n, 2), by the Lyndon-word construction. Each side
 * appears `n` times in its `n²` places, and is preceded by every side once.
 */
export function followBalancedOrder(n: number): number[] {
	const order: number[] = [];
	const a = [0, 0, 0];
	const step = (t: number, p: number): void => {
		if (t > 2) {
			if (2 % p === 0) {
				order.push(...a.slice(1, p + 1));
			}
			return;
		}
		a[t] = a[t - p] as number;
		step(t + 1, p);
		for (let j = (a[t - p] as number) + 1; j < n; j++) {
			a[t] = j;
			step(t + 1, t);
		}
	};
	step(1, 1);
	return order;
}

/**
 * The order of `perVariant` counted starts of each of `n` variants (rounded up to whole laps of
 * `followBalancedOrder`, n starts of each a lap), after one warm-up start of each that ends with the
 * lap's last variant, so the first counted start follows the same variant as every later lap's.
 */
export function balancedStarts(n: number, perVariant: number): { warmUp: number[]; counted: number[]; perVariant: number } {
	const lap = followBalancedOrder(n);
	const laps = Math.max(1, Math.ceil(perVariant / n));
	const last = lap[lap.length - 1]!;
	const warmUp = [...Array.from({ length: n }, (_, v) => v).filter((v) => v !== last), last];
	const counted: number[] = [];
	for (let i = 0; i < laps; i++) {
		counted.push(...lap);
	}
	return { warmUp, counted, perVariant: laps * n };
}
