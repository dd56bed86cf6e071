import { ApiError, invalid } from './errors';

export const nowIso = (ms = Date.now()): string => new Date(ms).toISOString();
export const unixSeconds = (ms = Date.now()): number => Math.floor(ms / 1000);
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const utf8Bytes = (s: string): number => Buffer.byteLength(s, 'utf8');

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes strict standard base64 (no data: prefix, no whitespace) or answers 422 naming the field. */
export function decodeBase64(field: string, value: string): Buffer {
	if (value.length % 4 !== 0 || !B64_RE.test(value)) {
		throw invalid(`${field}: must be standard base64 (A-Z, a-z, 0-9, +, /, '=' padding; no data: prefix or whitespace)`);
	}
	return Buffer.from(value, 'base64');
}

/** Decoded size of a base64 string without decoding it. */
export function base64DecodedLength(value: string): number {
	let pad = 0;
	if (value.endsWith('==')) pad = 2;
	else if (value.endsWith('=')) pad = 1;
	return Math.floor((value.length * 3) / 4) - pad;
}

/** Opaque cursor: base64url of {k: last key, p: next position}. */
export function encodeCursor(key: string, pos: number): string {
	return Buffer.from(JSON.stringify({ k: key, p: pos }), 'utf8').toString('base64url');
}

export function decodeCursor(field: string, cursor: string): { k: string; p: number } {
	try {
		const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
		if (v && typeof v === 'object' && typeof (v as { k?: unknown }).k === 'string' && Number.isInteger((v as { p?: unknown }).p)) {
			return v as { k: string; p: number };
		}
	} catch {
		/* fall through */
	}
	throw invalid(`${field}: not a cursor returned by this server`);
}

export interface Page<T> {
	items: T[];
	nextCursor: string | null;
}

/** Cursor pagination over an already ordered list; cursors survive insertions and deletions. */
export function paginate<T>(
	items: readonly T[],
	key: (t: T) => string,
	limit: number,
	cursor: string | undefined,
	field = 'cursor',
): Page<T> {
	let start = 0;
	if (cursor !== undefined && cursor !== '') {
		const c = decodeCursor(field, cursor);
		const idx = items.findIndex((t) => key(t) === c.k);
		start = idx >= 0 ? idx + 1 : Math.min(Math.max(c.p, 0), items.length);
	}
	const page = items.slice(start, start + limit);
	const last = page[page.length - 1];
	const more = start + limit < items.length;
	return { items: page, nextCursor: more && last !== undefined ? encodeCursor(key(last), start + page.length) : null };
}

export function assertNever(x: never, what: string): never {
	throw new ApiError('internal', `unexpected ${what}: ${String(x)}`);
}
