/**
 * Text ↔ base64 for the suites, in both extension hosts (Node's and the web worker's, which has no
 * Buffer): through the extension's own src/base/bytes.ts.
 */
import { base64Decode, base64Encode } from '../../../src/base/bytes';

/** UTF-8 text as base64 (the service's `content_base64`). */
export function textBase64(text: string): string {
	return base64Encode(new TextEncoder().encode(text));
}

/** base64 as UTF-8 text. */
export function base64Text(b64: string): string {
	return new TextDecoder().decode(base64Decode(b64));
}

/** Hex digits as base64. */
export function hexBase64(hex: string): string {
	const bytes = new Uint8Array(hex.length / 2);
	for (let i = 0; i < bytes.length; i++) {
		bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
	}
	return base64Encode(bytes);
}
