import { invalid } from './errors';
import { IDENT_RE, UUID_RE } from './ids';
import type { Profile } from './profile';
import { STANDARD } from './profile';
import { utf8Bytes } from './util';

export const MAX_PROMPT_BYTES = 65_536;
export const MAX_IMAGES = 8;
export const MAX_IMAGE_BASE64_BYTES = 35_000_000;
export const MAX_IMAGES_TOTAL_BASE64_BYTES = 70_000_000;
export const MAX_NAME_BYTES = 255;
export const ARTIFACT_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;
export const OUTPUT_CAP_BYTES = 2 * 1024 * 1024;

export function checkIdent(field: string, v: string): string {
	if (!IDENT_RE.test(v)) {
		throw invalid(
			`${field}: must be 1 to 160 ASCII letters, digits, '_' or '-' (got ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}, ${v.length} characters)`,
		);
	}
	return v;
}

/** Agent ids are `<runtime-uuid><separator><harness-id>`; the separator is the profile's (`.` in the standard profile). */
export function checkAgentId(v: string, profile: Profile = STANDARD): string {
	const sep = profile.agentIds.separator;
	const at = v.indexOf(sep);
	const prefix = at >= 0 ? v.slice(0, at) : v;
	if (at < 0 || !UUID_RE.test(prefix)) {
		throw invalid(
			`agent_id: must be <runtime-uuid>${sep}<harness-id>; the runtime prefix must be a UUID (got ${JSON.stringify(v.slice(0, 60))})`,
		);
	}
	checkIdent('agent_id (harness part)', v.slice(at + sep.length));
	return v;
}

export function checkUuid(field: string, v: string): string {
	if (!UUID_RE.test(v)) throw invalid(`${field}: must be a UUID (got ${JSON.stringify(v.slice(0, 60))})`);
	return v;
}

/** Names are 1 to 255 bytes after trimming; returns the trimmed name. */
export function checkName(field: string, v: string, max = MAX_NAME_BYTES): string {
	const t = v.trim();
	const n = utf8Bytes(t);
	if (n < 1 || n > max) throw invalid(`${field}: must be 1 to ${max} bytes after trimming (got ${n})`);
	return t;
}

export interface PromptImage {
	data: string;
	media_type?: string;
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function sniff(head: Buffer): string | undefined {
	if (head.length >= 8 && head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
	if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
	if (head.length >= 6 && (head.subarray(0, 6).toString('latin1') === 'GIF87a' || head.subarray(0, 6).toString('latin1') === 'GIF89a')) {
		return 'image/gif';
	}
	if (head.length >= 12 && head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') {
		return 'image/webp';
	}
	return undefined;
}

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

export function checkImages(images: PromptImage[] | undefined, field = 'images'): number {
	if (!images) return 0;
	if (images.length > MAX_IMAGES) throw invalid(`${field}: at most ${MAX_IMAGES} images per prompt (got ${images.length})`);
	let total = 0;
	images.forEach((img, i) => {
		const f = `${field}[${i}].data`;
		const len = img.data.length;
		if (len === 0) throw invalid(`${f}: must not be empty`);
		if (len > MAX_IMAGE_BASE64_BYTES) {
			throw invalid(`${f}: encoded image data must be at most ${MAX_IMAGE_BASE64_BYTES} bytes (got ${len})`);
		}
		total += len;
		if (len % 4 !== 0 || !B64_RE.test(img.data)) {
			throw invalid(`${f}: must be raw standard base64 (no data: URL prefix, no whitespace)`);
		}
		const kind = sniff(Buffer.from(img.data.slice(0, 16), 'base64'));
		if (!kind) throw invalid(`${f}: not a PNG, JPEG, GIF or WebP image (checked the magic bytes)`);
		if (img.media_type !== undefined) {
			if (!IMAGE_TYPES.includes(img.media_type)) throw invalid(`${field}[${i}].media_type: must be one of ${IMAGE_TYPES.join(', ')}`);
			if (img.media_type !== kind) throw invalid(`${field}[${i}].media_type: says ${img.media_type} but the data is ${kind}`);
		}
	});
	if (total > MAX_IMAGES_TOTAL_BASE64_BYTES) {
		throw invalid(`${field}: encoded image data must total at most ${MAX_IMAGES_TOTAL_BASE64_BYTES} bytes (got ${total})`);
	}
	return images.length;
}

/** Prompts are up to 65,536 UTF-8 bytes after trimming; empty only with images. Returns the trimmed prompt. */
export function checkPrompt(prompt: string | undefined, imageCount: number, field = 'prompt'): string {
	const t = (prompt ?? '').trim();
	const n = utf8Bytes(t);
	if (n > MAX_PROMPT_BYTES) throw invalid(`${field}: must be at most ${MAX_PROMPT_BYTES} UTF-8 bytes after trimming (got ${n})`);
	if (n === 0 && imageCount === 0) throw invalid(`${field}: must not be empty unless images are sent`);
	return t;
}

export function checkArtifactName(name: string): string {
	if (!ARTIFACT_NAME_RE.test(name)) {
		throw invalid(
			`name: must be 1 to 255 ASCII characters, the first a letter or digit, then letters, digits, '.', '_' or '-' (got ${JSON.stringify(name.slice(0, 60))})`,
		);
	}
	return name;
}
