/**
 * Client-side checks of every documented limit (service-api.md "Limits" and
 * docs/contract-choices.md), run before anything is sent. Every limit number lives in LIMITS.
 */
import { base64Decode, base64Encode, utf8Length } from '../base/bytes';
import { ValidationError } from './errors';
import { LIMITS, SAFETY } from '../base/limits';
import type { PromptImage } from './types';

export { LIMITS } from '../base/limits';

const IDENTIFIER = /^[A-Za-z0-9_-]{1,160}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** What follows the UUID of an agent id: an optional printable separator, then a harness identifier. */
const AGENT_ID_REST = /^[\x21-\x2c\x2e-\x2f\x3a-\x40\x5b-\x5e\x60\x7b-\x7e]?[A-Za-z0-9_-]{1,160}$/;
/** The artifact-name pattern of the service: a letter or digit, then letters, digits, `.`, `_`, `-` (≤ 255). */
export const ARTIFACT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** True for a JSON object (not null, not an array): a request document or automation member to send, a record kept locally. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
	return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The members of a JSON object; an empty object for any other value (a reader's default: every member absent). */
export function membersOf(value: unknown): Record<string, unknown> {
	return isJsonObject(value) ? value : {};
}

/** True for an id that may go into a route segment or a local name: 1–255 characters, no control characters, not `.` or `..`. */
export function isSafeId(value: unknown): value is string {
	return (
		typeof value === 'string' &&
		value.length > 0 &&
		value.length <= SAFETY.idMaxChars &&
		value !== '.' &&
		value !== '..' &&
		!CONTROL.test(value)
	);
}

/** UTF-8 byte length of a string (how the service counts name and prompt limits). */
export { utf8Length };

function fail(field: string, limit: string): never {
	throw new ValidationError(field, limit);
}

/** Checks an integer in [min, max] when given. */
export function checkRange(field: string, value: number | undefined, range: { min: number; max: number }): void {
	if (value === undefined) {
		return;
	}
	if (!Number.isInteger(value) || value < range.min || value > range.max) {
		fail(field, `an integer from ${range.min} to ${range.max}`);
	}
}

/** A harness, run or session identifier: 1 to 160 ASCII letters, digits, `_`, `-`. */
export function checkIdentifier(field: string, value: string): void {
	if (typeof value !== 'string' || !IDENTIFIER.test(value)) {
		fail(field, `1 to ${LIMITS.identifierLength.max} ASCII letters, digits, "_" or "-"`);
	}
}

/**
 * An agent id. The description states only that it starts with the runtime's UUID and carries a
 * harness identifier; the separator between them is not shown. So: a UUID (any case), then at most
 * 170 printable ASCII characters that hold a harness identifier (1 to 160 letters, digits, `_`,
 * `-`), optionally after one separator character. Case is kept as sent.
 */
export function checkAgentId(value: string): void {
	const ok = typeof value === 'string' && UUID.test(value.slice(0, 36)) && AGENT_ID_REST.test(value.slice(36));
	if (!ok) {
		fail(
			'agentId',
			'a runtime UUID followed by a harness identifier of 1 to 160 ASCII letters, digits, "_" or "-" (optionally after one separator)',
		);
	}
}

/** Any other opaque path identifier: non-empty, at most 255 characters, no control characters. */
export function checkOpaqueId(field: string, value: string): void {
	// eslint-disable-next-line no-control-regex
	if (typeof value !== 'string' || value.length === 0 || value.length > 255 || /[\u0000-\u001f]/.test(value)) {
		fail(field, 'a non-empty identifier of at most 255 characters');
	}
}

/** Agent name: 1 to 255 UTF-8 bytes after trimming. Returns the trimmed name. */
export function checkAgentName(name: string): string {
	const trimmed = typeof name === 'string' ? name.trim() : '';
	const bytes = utf8Length(trimmed);
	if (bytes < LIMITS.agentNameBytes.min || bytes > LIMITS.agentNameBytes.max) {
		fail('name', `1 to ${LIMITS.agentNameBytes.max} UTF-8 bytes after trimming`);
	}
	return trimmed;
}

/** Artifact file name: 1 to 255 ASCII, first a letter or digit, then letters, digits, `.`, `_`, `-`. */
export function checkArtifactName(name: string): void {
	if (typeof name !== 'string' || !ARTIFACT_NAME.test(name)) {
		fail('name', '1 to 255 ASCII characters: a letter or digit, then letters, digits, ".", "_" or "-"');
	}
}

/** Run prompt: at most 65,536 UTF-8 bytes after trimming; empty only with images. Returns it trimmed. */
export function checkPrompt(prompt: string | undefined, imageCount: number, field = 'prompt'): string {
	const trimmed = (prompt ?? '').trim();
	if (utf8Length(trimmed) > LIMITS.promptBytes) {
		fail(field, `at most ${LIMITS.promptBytes} UTF-8 bytes after trimming`);
	}
	if (trimmed.length === 0 && imageCount === 0) {
		fail(field, 'not empty unless images are sent');
	}
	return trimmed;
}

/** Media type judged from the first bytes, or undefined when not PNG, JPEG, GIF or WebP. */
export function sniffImageType(head: Uint8Array): string | undefined {
	const b = head;
	if (
		b.length >= 8 &&
		b[0] === 0x89 &&
		b[1] === 0x50 &&
		b[2] === 0x4e &&
		b[3] === 0x47 &&
		b[4] === 0x0d &&
		b[5] === 0x0a &&
		b[6] === 0x1a &&
		b[7] === 0x0a
	) {
		return 'image/png';
	}
	if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) {
		return 'image/jpeg';
	}
	if (
		b.length >= 6 &&
		b[0] === 0x47 &&
		b[1] === 0x49 &&
		b[2] === 0x46 &&
		b[3] === 0x38 &&
		(b[4] === 0x37 || b[4] === 0x39) &&
		b[5] === 0x61
	) {
		return 'image/gif';
	}
	if (
		b.length >= 12 &&
		b[0] === 0x52 &&
		b[1] === 0x49 &&
		b[2] === 0x46 &&
		b[3] === 0x46 &&
		b[8] === 0x57 &&
		b[9] === 0x45 &&
		b[10] === 0x42 &&
		b[11] === 0x50
	) {
		return 'image/webp';
	}
	return undefined;
}

/**
 * Prompt images: at most 8; each PNG/JPEG/GIF/WebP judged from its bytes; at most 35,000,000
 * encoded bytes each and 70,000,000 in total. Returns the wire form `{data (base64), media_type}`.
 */
export function checkImages(images: readonly PromptImage[] | undefined): Array<{ data: string; media_type: string }> | undefined {
	if (images === undefined) {
		return undefined;
	}
	if (!Array.isArray(images) || images.length > LIMITS.images) {
		fail('images', `at most ${LIMITS.images} images`);
	}
	let total = 0;
	const out: Array<{ data: string; media_type: string }> = [];
	images.forEach((image: PromptImage, i: number) => {
		const field = `images[${i}]`;
		let data: string;
		let head: Uint8Array;
		if (image.data instanceof Uint8Array) {
			if (Math.ceil(image.data.byteLength / 3) * 4 > LIMITS.imageEncodedBytes) {
				fail(field, `at most ${LIMITS.imageEncodedBytes} encoded bytes`);
			}
			data = base64Encode(image.data);
			head = image.data.subarray(0, 16);
		} else if (typeof image.data === 'string') {
			data = image.data;
			if (data.length > LIMITS.imageEncodedBytes) {
				fail(field, `at most ${LIMITS.imageEncodedBytes} encoded bytes`);
			}
			if (data.length % 4 !== 0 || !BASE64.test(data)) {
				fail(field, 'raw base64 data (no data: URL prefix, no line breaks)');
			}
			head = base64Decode(data.slice(0, 24)); // checked above: atob cannot throw
		} else {
			fail(field, 'base64 data or bytes');
		}
		if (data.length > LIMITS.imageEncodedBytes) {
			fail(field, `at most ${LIMITS.imageEncodedBytes} encoded bytes`);
		}
		total += data.length;
		if (total > LIMITS.imagesEncodedBytesTotal) {
			fail('images', `at most ${LIMITS.imagesEncodedBytesTotal} encoded bytes in total`);
		}
		const sniffed = sniffImageType(head);
		if (!sniffed) {
			fail(field, 'a PNG, JPEG, GIF or WebP image (judged from its bytes)');
		}
		if (image.media_type !== undefined && image.media_type.toLowerCase() !== sniffed) {
			fail(`${field}.media_type`, `the type of the image bytes (${sniffed})`);
		}
		out.push({ data, media_type: sniffed });
	});
	return out;
}

/** Workspace path: at most 4,096 UTF-8 bytes. */
export function checkWorkspacePath(path: string, field = 'path'): void {
	if (typeof path !== 'string' || utf8Length(path) > LIMITS.workspacePathBytes) {
		fail(field, `at most ${LIMITS.workspacePathBytes} UTF-8 bytes`);
	}
}

/** Search query: 1 to 256 UTF-8 bytes. */
export function checkSearchQuery(query: string): void {
	const bytes = typeof query === 'string' ? utf8Length(query) : 0;
	if (bytes < LIMITS.searchQueryBytes.min || bytes > LIMITS.searchQueryBytes.max) {
		fail('query', `1 to ${LIMITS.searchQueryBytes.max} UTF-8 bytes`);
	}
}

/** Artifact and workspace writes: at most 32 MiB decoded. */
export function checkWriteSize(field: string, bytes: Uint8Array): void {
	if (!(bytes instanceof Uint8Array)) {
		fail(field, 'bytes (Uint8Array)');
	}
	if (bytes.byteLength > LIMITS.writeBytes) {
		fail(field, `at most ${LIMITS.writeBytes} bytes (32 MiB) decoded`);
	}
}

/** Event cursor: an integer of at least -1. */
export function checkEventCursor(after: number | undefined): void {
	if (after !== undefined && (!Number.isSafeInteger(after) || after < LIMITS.eventCursorMin)) {
		fail('after', `an integer of at least ${LIMITS.eventCursorMin}`);
	}
}

/** expected_revision: an integer of at least 1. */
export function checkRevision(value: number | undefined, required: boolean): void {
	if (value === undefined) {
		if (required) {
			fail('expectedRevision', 'required, an integer of at least 1');
		}
		return;
	}
	if (!Number.isSafeInteger(value) || value < LIMITS.expectedRevisionMin) {
		fail('expectedRevision', 'an integer of at least 1');
	}
}

/** A JSON body against a route's body limit (checked on the serialised size). */
export function checkBodySize(field: string, body: unknown, max: number): void {
	// Only large bodies are worth measuring exactly; small ones are far below every limit.
	const json = JSON.stringify(body);
	if (json.length > max / 4 && utf8Length(json) > max) {
		fail(field, `a request body of at most ${max} bytes`);
	}
}

export function base64(bytes: Uint8Array): string {
	return base64Encode(bytes);
}
