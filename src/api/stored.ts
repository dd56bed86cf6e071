/**
 * Records kept locally (the rows as last loaded, src/views/rowCache.ts) and read back: what was
 * stored came from the server and sat in VS Code's global state, so it is read as strictly as an
 * answer: only the named fields, each of its kind, an id that `isSafeId` accepts, or nothing.
 */
import { SAFETY } from '../base/limits';
import { isJsonObject, isSafeId } from './validation';

/** What a field of a stored record must be: an id (`isSafeId`), a text, or a whole number ≥ 0. */
export type StoredField = 'id' | 'text' | 'count';

/**
 * Reads a stored record back strictly: an object whose `id` is a safe id and whose other fields named
 * in `fields` are absent or of their kind; only those fields are kept. Undefined for anything else.
 */
export function restoreRecord<T>(value: unknown, fields: Readonly<Record<string, StoredField>>): T | undefined {
	if (!isJsonObject(value) || !isSafeId(value.id)) {
		return undefined;
	}
	const out: Record<string, unknown> = {};
	for (const [name, kind] of Object.entries(fields)) {
		const v = value[name];
		if (v === undefined) {
			continue;
		}
		const ok =
			kind === 'id'
				? isSafeId(v)
				: kind === 'text'
					? typeof v === 'string' && v.length <= SAFETY.storedTextMaxChars
					: typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
		if (!ok) {
			return undefined;
		}
		out[name] = v;
	}
	return out as T;
}

/** Copies the named fields of a record (the ones `restoreRecord` reads back). */
export function storeRecord(record: object, fields: Readonly<Record<string, StoredField>>): Record<string, unknown> {
	const source = record as Record<string, unknown>;
	return Object.fromEntries(Object.keys(fields).flatMap((name) => (source[name] === undefined ? [] : [[name, source[name]]])));
}
