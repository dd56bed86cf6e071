/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/** HTTP helpers for the emulator tests: every response is validated against spec/openapi.yaml. */
import * as assert from 'node:assert/strict';
import { matchPath, validateResponse } from '../support/openapiValidator';
import type { RunningEmulator, StartOptions } from '../../../emulator/src/server';
import { startEmulator } from '../../../emulator/src/server';

export const DEV_TOKEN = 'ca_dev_0123456789abcdef';
export const READONLY_TOKEN = 'ca_readonly_0123456789abcdef';
export const UUID_V7_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Operations ("METHOD /template") answered with a 2xx and validated, across all suites. */
export const exercised = new Set<string>();

export interface Res<T = any> {
	status: number;
	headers: Headers;
	contentType: string;
	text: string;
	body: T;
	template: string | undefined;
}

export interface CallOptions {
	token?: string | null;
	json?: unknown;
	/** A raw body (sent with Content-Type: application/json unless headers say otherwise). */
	raw?: string;
	headers?: Record<string, string>;
	/** Skip the spec validation (admin routes, deliberately unknown routes). */
	validate?: boolean;
}

export class Client {
	constructor(readonly base: string) {}

	async call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<Res<T>> {
		const headers: Record<string, string> = { ...(opts.headers ?? {}) };
		const token = opts.token === undefined ? DEV_TOKEN : opts.token;
		if (token !== null) headers.authorization = `Bearer ${token}`;
		let body: string | undefined;
		if (opts.json !== undefined) body = JSON.stringify(opts.json);
		if (opts.raw !== undefined) body = opts.raw;
		if (body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
			headers['content-type'] = 'application/json';
		}
		const res = await fetch(this.base + path, { method, headers, body });
		const text = await res.text();
		const contentType = res.headers.get('content-type') ?? '';
		let parsed: unknown = text;
		if (contentType.startsWith('application/json') && text !== '') parsed = JSON.parse(text);
		const m = opts.validate === false ? undefined : matchPath(method, path);
		const out: Res<T> = { status: res.status, headers: res.headers, contentType, text, body: parsed as T, template: m?.pathTemplate };
		if (opts.validate !== false && m && !path.startsWith('/_emulator')) {
			const problems = validateResponse({
				method,
				pathTemplate: m.pathTemplate,
				status: res.status,
				headers: res.headers,
				body: text === '' ? undefined : parsed,
				contentType,
			});
			assert.deepEqual(
				problems,
				[],
				`${method} ${path} → ${res.status} does not match the spec:\n${problems.join('\n')}\n${text.slice(0, 500)}`,
			);
			if (res.status >= 200 && res.status < 300) exercised.add(`${method} ${m.pathTemplate}`);
		}
		return out;
	}

	get<T = any>(path: string, opts?: CallOptions) {
		return this.call<T>('GET', path, opts);
	}
	post<T = any>(path: string, json?: unknown, opts: CallOptions = {}) {
		return this.call<T>('POST', path, { ...opts, json });
	}
	put<T = any>(path: string, json?: unknown, opts: CallOptions = {}) {
		return this.call<T>('PUT', path, { ...opts, json });
	}
	patch<T = any>(path: string, json?: unknown, opts: CallOptions = {}) {
		return this.call<T>('PATCH', path, { ...opts, json });
	}
	del<T = any>(path: string, opts: CallOptions = {}) {
		return this.call<T>('DELETE', path, opts);
	}
	admin<T = any>(method: string, path: string, json?: unknown) {
		return this.call<T>(method, `/_emulator${path}`, { json, token: null, validate: false });
	}
}

export async function boot(opts: StartOptions = {}): Promise<{ emu: RunningEmulator; c: Client }> {
	const emu = await startEmulator({ port: 0, seed: 'demo', quiet: true, ...opts });
	return { emu, c: new Client(emu.url) };
}

/** Polls until fn returns a truthy value. */
export async function until<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 10_000, everyMs = 50): Promise<T> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const v = await fn();
		if (v) return v;
		if (Date.now() > end) throw new Error('timed out waiting');
		await new Promise((r) => setTimeout(r, everyMs));
	}
}

export interface SseEvent {
	id?: string;
	event?: string;
	data: string;
}

/** Parses a text/event-stream body (complete or partial). */
export function parseSse(text: string): { events: SseEvent[]; comments: string[]; retry?: number } {
	const events: SseEvent[] = [];
	const comments: string[] = [];
	let retry: number | undefined;
	for (const block of text.split(/\n\n/)) {
		if (block.trim() === '') continue;
		const ev: SseEvent = { data: '' };
		let hasField = false;
		const data: string[] = [];
		for (const line of block.split('\n')) {
			if (line.startsWith(':')) {
				comments.push(line.slice(1).trim());
			} else if (line.startsWith('id: ')) {
				ev.id = line.slice(4);
				hasField = true;
			} else if (line.startsWith('event: ')) {
				ev.event = line.slice(7);
				hasField = true;
			} else if (line.startsWith('data: ')) {
				data.push(line.slice(6));
				hasField = true;
			} else if (line.startsWith('retry: ')) {
				retry = Number(line.slice(7));
			}
		}
		ev.data = data.join('\n');
		if (hasField) events.push(ev);
	}
	return { events, comments, retry };
}

/** Reads an SSE stream to its end (or until the connection is cut); cut = ended without a clean end. */
export async function readSse(
	base: string,
	path: string,
	token = DEV_TOKEN,
): Promise<{ status: number; headers: Headers; text: string; cut: boolean }> {
	const res = await fetch(base + path, { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } });
	let text = '';
	let cut = false;
	if (!res.body) return { status: res.status, headers: res.headers, text, cut };
	const reader = res.body.getReader();
	const dec = new TextDecoder();
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) break;
			text += dec.decode(value, { stream: true });
		}
	} catch {
		cut = true;
	}
	return { status: res.status, headers: res.headers, text, cut };
}

export const b64 = (s: string | Buffer): string => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s).toString('base64');
export const unb64 = (s: string): string => Buffer.from(s, 'base64').toString('utf8');
