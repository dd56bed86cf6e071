/**
 * Bytes without Node's `Buffer`: base64, UTF-8 lengths and byte equality through what both the Node
 * extension host and a browser's extension host (VS Code for the Web, a web worker) have — `atob`,
 * `TextEncoder`, `TextDecoder` — with the same results as `Buffer`.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
/** The character codes of the base64 alphabet, by value. */
const CODES = Uint8Array.from(ALPHABET, (c) => c.charCodeAt(0));
const EQUALS = 0x3d;

const asciiDecoder = new TextDecoder();

/**
 * `bytes` as standard base64 with `=` padding (what `Buffer#toString('base64')` gives). A table
 * encoder into ASCII bytes that TextDecoder turns into the string: several times faster than
 * `btoa` over a binary string for the megabytes of an image or a file.
 */
export function base64Encode(bytes: Uint8Array): string {
	const n = bytes.length;
	const out = new Uint8Array(Math.ceil(n / 3) * 4);
	let o = 0;
	let i = 0;
	for (; i + 2 < n; i += 3) {
		const v = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
		out[o++] = CODES[v >> 18]!;
		out[o++] = CODES[(v >> 12) & 63]!;
		out[o++] = CODES[(v >> 6) & 63]!;
		out[o++] = CODES[v & 63]!;
	}
	if (i < n) {
		const two = i + 1 < n;
		const v = (bytes[i]! << 16) | (two ? bytes[i + 1]! << 8 : 0);
		out[o++] = CODES[v >> 18]!;
		out[o++] = CODES[(v >> 12) & 63]!;
		out[o++] = two ? CODES[(v >> 6) & 63]! : EQUALS;
		out[o] = EQUALS;
	}
	return asciiDecoder.decode(out);
}

/**
 * The bytes of base64 `text` through `atob` (forgiving: padding optional, ASCII whitespace skipped,
 * bits after the last whole byte ignored, like `Buffer.from(text, 'base64')`). Unlike Buffer it
 * throws on a character outside the alphabet instead of skipping it: callers that must be strict
 * check the text first (decode.ts `decodeBase64Strict`, validation.ts `checkImages`).
 */
export function base64Decode(text: string): Uint8Array {
	const binary = atob(text);
	const out = new Uint8Array(binary.length);
	for (let i = 0; i < binary.length; i++) {
		out[i] = binary.charCodeAt(i);
	}
	return out;
}

/** Below this many UTF-16 code units a plain loop is cheaper than a call into TextEncoder. */
const LOOP_MAX_UNITS = 512;
/** The UTF-16 code units measured per `encodeInto` call on a long string. */
const CHUNK_UNITS = 16 * 1024;
const encoder = new TextEncoder();
/** Room for a chunk's UTF-8 (at most 3 bytes per code unit). */
let scratch: Uint8Array | undefined;

/**
 * The UTF-8 byte length of a string, as `Buffer.byteLength(text, 'utf8')`: a lone surrogate counts
 * 3 bytes (it is encoded as U+FFFD). Short strings are counted in a loop; long ones through
 * `TextEncoder#encodeInto` into a reused buffer, chunk by chunk (native speed, no big allocation).
 */
export function utf8Length(text: string): number {
	const length = text.length;
	if (length <= LOOP_MAX_UNITS) {
		let bytes = length;
		for (let i = 0; i < length; i++) {
			const c = text.charCodeAt(i);
			if (c < 0x80) {
				continue;
			}
			if (c < 0x800) {
				bytes += 1;
				continue;
			}
			bytes += 2;
			if ((c & 0xfc00) === 0xd800 && i + 1 < length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
				i++; // a surrogate pair: 4 bytes for its 2 code units
			}
		}
		return bytes;
	}
	scratch ??= new Uint8Array(CHUNK_UNITS * 3);
	let bytes = 0;
	for (let start = 0; start < length;) {
		let end = Math.min(length, start + CHUNK_UNITS);
		if (end < length && (text.charCodeAt(end - 1) & 0xfc00) === 0xd800) {
			end--; // never split a surrogate pair between two chunks
		}
		bytes += encoder.encodeInto(text.slice(start, end), scratch).written;
		start = end;
	}
	return bytes;
}

/** True when `a` and `b` hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
	const n = a.length; // read once: a property read in the loop's test makes it >10× slower
	if (n !== b.length) {
		return false;
	}
	for (let i = 0; i < n; i++) {
		if (a[i] !== b[i]) {
			return false;
		}
	}
	return true;
}

/** The chunks as one array of `total` bytes. */
export function concatBytes(chunks: readonly Uint8Array[], total: number): Uint8Array {
	if (chunks.length === 1) {
		return chunks[0] as Uint8Array;
	}
	const out = new Uint8Array(total);
	let at = 0;
	for (const chunk of chunks) {
		out.set(chunk, at);
		at += chunk.byteLength;
	}
	return out;
}
