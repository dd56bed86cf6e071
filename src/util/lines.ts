const NEWLINE = 0x0a;

/**
 * The newest whole lines of `bytes` (newline-terminated records) that fit in `max` bytes: when
 * `bytes` is longer, it is cut at a line's start, never inside a record. A line longer than `max`
 * is dropped whole; nothing fits, nothing is kept.
 */
export function newestWholeLines(bytes: Uint8Array, max: number): Uint8Array {
	if (bytes.byteLength <= max) {
		return bytes;
	}
	const from = bytes.byteLength - Math.max(0, max);
	if (from > 0 && bytes[from - 1] === NEWLINE) {
		return bytes.slice(from);
	}
	const next = bytes.indexOf(NEWLINE, from);
	return next < 0 ? new Uint8Array(0) : bytes.slice(next + 1);
}
