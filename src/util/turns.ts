/**
 * Work that must not hold back what the extension host answers in this turn.
 *
 * VS Code's extension host does not write an answer (the rows of a `getChildren`) when its promise
 * settles: it adds the message to a buffer and writes the buffer on a timer of its own (a zero-delay
 * `setTimeout`, set when the answer settles). A zero-delay timer set in the same turn as that answer,
 * before it settles, fires first, so synchronous work there (loading the HTTP client, ~60 ms) runs
 * before the rows leave. `afterReplies` sets its timer from the next check phase (`setImmediate`),
 * after every answer of this turn has set the writer's: node fires timers of one delay in the order
 * they were set, so `fn` runs right after the buffer is written.
 *
 * A browser's extension host (a web worker) has no check phase: there the first step is a zero-delay
 * timer too, which a timer set in the same turn still precedes.
 *
 * Returns a function that cancels `fn` if it has not run yet.
 */
export function afterReplies(fn: () => void): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let cancelled = false;
	const first = nextCheck(() => {
		if (!cancelled) {
			timer = setTimeout(fn, 0);
		}
	});
	return () => {
		cancelled = true;
		first();
		clearTimeout(timer);
	};
}

/** Runs `fn` in the next check phase (Node's setImmediate), or after a zero-delay timer where there is none; returns its cancel. */
function nextCheck(fn: () => void): () => void {
	const node = globalThis as { setImmediate?: typeof setImmediate; clearImmediate?: typeof clearImmediate };
	if (node.setImmediate && node.clearImmediate) {
		const handle = node.setImmediate(fn);
		const clear = node.clearImmediate;
		return () => clear(handle);
	}
	const handle = setTimeout(fn, 0);
	return () => clearTimeout(handle);
}
