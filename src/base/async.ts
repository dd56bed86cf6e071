/**
 * The async helpers every layer shares: cancellable sleeps, abort checks and the error a
 * cancelled call raises. Plain Node (no vscode), so the client, the views, the file system and
 * the run follower all use these and keep no copies of their own.
 */

/** True for cancellations through an AbortSignal, whichever layer raised them. */
export function isAbortError(err: unknown): boolean {
	if (typeof err !== 'object' || err === null) {
		return false;
	}
	const e = err as { name?: unknown; code?: unknown };
	return e.name === 'AbortError' || e.code === 'ABORT_ERR' || e.code === 'UND_ERR_ABORTED';
}

/** Creates the error raised when a signal aborts a call (its reason when that is an Error). */
export function abortError(signal: AbortSignal | undefined): Error {
	const reason: unknown = signal?.reason;
	if (reason instanceof Error && reason.name === 'AbortError') {
		return reason;
	}
	const err = new Error('The operation was aborted', { cause: reason });
	err.name = 'AbortError';
	return err;
}

/** Throws the abort error when the signal has aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
	if (signal?.aborted) {
		throw abortError(signal);
	}
}

/** Resolves after `ms`, or rejects with an AbortError as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
	if (signal?.aborted) {
		return Promise.reject(abortError(signal));
	}
	if (!(ms > 0)) {
		return Promise.resolve();
	}
	return new Promise((resolve, reject) => {
		const onAbort = (): void => {
			clearTimeout(timer);
			reject(abortError(signal));
		};
		const timer = setTimeout(() => {
			signal?.removeEventListener('abort', onAbort);
			resolve();
		}, ms);
		signal?.addEventListener('abort', onAbort, { once: true });
	});
}

/** Resolves after `ms` or as soon as the signal aborts, never rejecting (for polling loops that check state after). */
export function sleepUntilAborted(ms: number, signal?: AbortSignal): Promise<void> {
	return sleep(ms, signal).catch(() => undefined);
}

/** Clamps a number into [min, max]; NaN and non-numbers become `fallback` (itself clamped). */
export function clamp(value: unknown, min: number, max: number, fallback: number): number {
	const n = typeof value === 'number' && Number.isFinite(value) ? value : fallback;
	return Math.min(max, Math.max(min, n));
}
