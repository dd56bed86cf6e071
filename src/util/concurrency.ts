/**
 * Bounded concurrency: work on many items with at most a few at a time (the comparison's agent-side
 * reads, the workspace walk's folder listings). Plain Node.
 *
 * Hand-written on purpose (issue 43 asked for p-limit where it does the job): p-limit limits calls
 * handed to it up front and, after one fails, still starts every call already queued (unless the
 * queue is cleared). A walk needs a queue that grows while it is worked (each listing adds folders,
 * `next()` is asked again as items end), stops at a bound `next()` decides, and starts nothing after
 * the first error; on p-limit that takes a wrapper as long as `drain` itself.
 */

/**
 * Runs `work` on each item `next()` hands out, at most `limit` at a time, until `next()` has none
 * (undefined) and nothing runs. `next()` is asked again each time an item's work ends, so the work
 * may add items (a walk's queue grows as folders are listed) and `next()` may stop handing them out
 * (a bound reached) or throw (an abort). The first error, of `work` or of `next()`, rejects at once
 * and no item starts after it; work already running is left to end on its own.
 */
export async function drain<T>(next: () => T | undefined, limit: number, work: (item: T) => Promise<void>): Promise<void> {
	const most = Math.max(1, Math.floor(limit));
	const running = new Set<Promise<void>>();
	let failure: { err: unknown } | undefined;
	for (;;) {
		while (failure === undefined && running.size < most) {
			const item = next();
			if (item === undefined) {
				break;
			}
			let started: Promise<void>;
			try {
				started = work(item);
			} catch (err) {
				failure ??= { err };
				break;
			}
			const task: Promise<void> = started
				.catch((err: unknown) => {
					failure ??= { err };
				})
				.finally(() => running.delete(task));
			running.add(task);
		}
		if (failure !== undefined) {
			throw failure.err;
		}
		if (running.size === 0) {
			return;
		}
		await Promise.race(running);
	}
}

/** Runs `work` on every item of `items` in order, at most `limit` at a time; stops starting items at the first error, which it rejects with. */
export async function forEachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
	let i = 0;
	await drain(
		() => (i < items.length ? { item: items[i++]! } : undefined),
		limit,
		({ item }) => work(item),
	);
}
