/**
 * The one time type past the API boundary: a point in time as epoch milliseconds, branded so that a
 * plain number (Unix seconds from the wire, a count, a duration) cannot be passed where a decoded
 * time is expected. The service spells times several ways (RFC 3339 strings, `…_unix_seconds`,
 * `…_unix_ms`); the decoders turn each into an `EpochMillis` with the reader that names its unit,
 * and the views format only `EpochMillis` (src/views/format.ts `relativeTime`).
 */

declare const epochMillisBrand: unique symbol;

/** Milliseconds since 1970-01-01T00:00:00Z, as decoded from the wire (never a raw wire number). */
export type EpochMillis = number & { readonly [epochMillisBrand]: true };

/** Epoch milliseconds as an `EpochMillis`; undefined when not a finite number. */
export function fromUnixMillis(ms: number | null | undefined): EpochMillis | undefined {
	return typeof ms === 'number' && Number.isFinite(ms) ? (ms as EpochMillis) : undefined;
}

/** Unix seconds (a `…_unix_seconds` member) as an `EpochMillis`; undefined when not a finite number. */
export function fromUnixSeconds(seconds: number | null | undefined): EpochMillis | undefined {
	return typeof seconds === 'number' && Number.isFinite(seconds) ? ((seconds * 1000) as EpochMillis) : undefined;
}

/** An RFC 3339 time (any string Date.parse reads) as an `EpochMillis`; undefined when absent or unreadable. */
export function fromRfc3339(text: string | null | undefined): EpochMillis | undefined {
	if (typeof text !== 'string' || text === '') {
		return undefined;
	}
	const ms = Date.parse(text);
	return Number.isFinite(ms) ? (ms as EpochMillis) : undefined;
}

/**
 * Below this a bare number is read as Unix seconds, from it on as milliseconds: 1e11 seconds is the
 * year 5138, 1e11 milliseconds is March 1973, so no time a server sends today is ambiguous.
 */
const SECONDS_BELOW = 1e11;

/**
 * A time member whose unit the description does not give (records of other servers: RFC 3339, Unix
 * seconds or milliseconds): a string as RFC 3339, a positive number as seconds below 1e11 and as
 * milliseconds from there. Only for members whose unit is not known: a member that names its unit
 * is read with `fromUnixSeconds` / `fromUnixMillis`.
 */
export function readTimeMember(value: unknown): EpochMillis | undefined {
	if (typeof value === 'string') {
		return fromRfc3339(value);
	}
	if (typeof value === 'number' && Number.isFinite(value) && value > 0) {
		return value < SECONDS_BELOW ? fromUnixSeconds(value) : fromUnixMillis(value);
	}
	return undefined;
}
