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
 * Returns a function that cancels `fn` if it has not run yet.
 */
export function afterReplies(fn: () => void): () => void {
	let timer: ReturnType<typeof setTimeout> | undefined;
	let cancelled = false;
	const immediate = setImmediate(() => {
		if (!cancelled) {
			timer = setTimeout(fn, 0);
		}
	});
	return () => {
		cancelled = true;
		clearImmediate(immediate);
		clearTimeout(timer);
	};
}
