/**
 * Collects every log line and error message the API tests produce; after each test file (a root
 * hook, support/rootHooks.ts: mocha runs it once per file, also in parallel mode) no token may
 * appear in them.
 */
import type { Logger } from '../../../src/api';
import { DEV_TOKEN, READONLY_TOKEN } from './emulator';

export const collected: string[] = [];

/** Every token the unit tests use. */
export const TEST_TOKENS: readonly string[] = [
	DEV_TOKEN,
	READONLY_TOKEN,
	'ca_first_token_1',
	'ca_second_token_2',
	'wrong-token',
	'ca_wrong_9f8e7d6c5b4a3210',
];

/** Throws naming the first line of `lines` that holds one of the tests' tokens. */
export function assertNoTokenIn(lines: readonly string[]): void {
	for (const line of lines) {
		for (const token of TEST_TOKENS) {
			if (line.includes(token)) {
				throw new Error(`a token leaked into: ${line.slice(0, 200)}`);
			}
		}
	}
}

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
