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

/**
 * `bytes` up to its last newline: a record torn at the end (a write cut short) is left out, so the
 * next record written after these bytes does not continue it. Whole records are kept as they are.
 */
export function wholeLines(bytes: Uint8Array): Uint8Array {
	const end = bytes.lastIndexOf(NEWLINE) + 1;
	return end === bytes.byteLength ? bytes : bytes.slice(0, end);
}
