/**
 * Collects every log line and error message the API tests produce, so a final test can check that
 * no token ever appears in them.
 */
import type { Logger } from '../../../src/api';

export const collected: string[] = [];

/** A logger that records every line (with its arguments). */
export const recordingLogger: Logger = {
	debug: (message: string, ...args: unknown[]) => {
		collected.push(message, ...args.map((a) => JSON.stringify(a) ?? String(a)));
	},
	warn: (message: string, ...args: unknown[]) => {
		collected.push(message, ...args.map((a) => JSON.stringify(a) ?? String(a)));
	},
};

/** Records an error: its string form, stack, own fields and causes. */
export function recordError(err: unknown): void {
	let e: unknown = err;
	for (let depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
		if (e instanceof Error) {
			collected.push(String(e), e.stack ?? '');
			try {
				collected.push(JSON.stringify(e));
			} catch {
				// Circular: the fields above are enough.
			}
			e = e.cause;
		} else {
			collected.push(typeof e === 'string' ? e : (JSON.stringify(e) ?? ''));
			break;
		}
	}
}

/** Awaits a promise that must reject, records and returns its error. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
	try {
		await promise;
	} catch (err) {
		recordError(err);
		return err;
	}
	throw new Error('expected the call to fail');
}
