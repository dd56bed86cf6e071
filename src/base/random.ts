/**
 * Random values and digests through Web Crypto (`globalThis.crypto`), which both the Node extension
 * host and a browser's extension host (VS Code for the Web) have: no `node:crypto`. Web Crypto's
 * digest is asynchronous only; the synchronous SHA-256 of small inputs (cache keys, fingerprints)
 * is @noble/hashes' audited pure-JS implementation.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import { base64Encode } from './bytes';

/** `bytes` random bytes from the platform's cryptographic source. */
function randomBytes(bytes: number): Uint8Array {
	return globalThis.crypto.getRandomValues(new Uint8Array(bytes));
}

/** `bytes` random bytes as lower-case hex (twice as many digits). */
export function randomHex(bytes: number): string {
	return toHex(randomBytes(bytes));
}

/** `bytes` random bytes as base64 (with padding), e.g. a CSP nonce. */
export function randomBase64(bytes: number): string {
	return btoa(String.fromCharCode(...randomBytes(bytes)));
}

/** A random (version 4) UUID. */
export function randomUuid(): string {
	return globalThis.crypto.randomUUID();
}

/** The SHA-256 of `content` as lower-case hex (native speed, asynchronous). */
export async function sha256Hex(content: Uint8Array): Promise<string> {
	return toHex(new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', content)));
}

/**
 * The SHA-256 of `data` (a string is hashed as its UTF-8, a lone surrogate as U+FFFD, as
 * `node:crypto`'s `update(string)` does) as lower-case hex, synchronously: for small inputs.
 */
export function sha256HexSync(data: string | Uint8Array): string {
	return bytesToHex(sha256Sync(data));
}

/** The SHA-256 of `data` (as `sha256HexSync`) as standard base64 with `=` padding, synchronously. */
export function sha256Base64Sync(data: string | Uint8Array): string {
	return base64Encode(sha256Sync(data));
}

function sha256Sync(data: string | Uint8Array): Uint8Array {
	return sha256(typeof data === 'string' ? utf8ToBytes(data) : data);
}

function toHex(bytes: Uint8Array): string {
	let out = '';
	for (const b of bytes) {
		out += b.toString(16).padStart(2, '0');
	}
	return out;
}
