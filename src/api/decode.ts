/**
 * The parsing boundary: every record the server sends passes through a decoder here before the
 * rest of the extension sees it. A decoder checks what the rest of the code relies on — ids that
 * go into routes and local names, numbers that drive loops, sizes, revisions, expiries, URLs that
 * may be opened — and turns the value into a checked record, or throws an ApiError naming the
 * field and the request id. Members it does not check are kept as they are (the service may add
 * members; display code treats all server text as untrusted and neutralises it).
 *
 * A small field table rather than a schema library: the records must stay open (extra members,
 * unknown enum values) and the event decoder sits on the SSE hot path.
 */
import { base64Decode } from '../base/bytes';
import { ApiError } from './errors';
import { SAFETY } from '../base/limits';
import { sha256Base64Sync } from '../base/random';
import { isJsonObject, isSafeId, membersOf } from './validation';
import type { EventRecord, TokenSavingEventRecord, TokenSavingSummaryCounts, TokenSavingTotalsCounts } from './types';
import { isKnownHostsHost } from '../base/hosts';

export { isSafeId };

/** Where a value came from, for error messages. */
export interface DecodeContext {
	requestId?: string | undefined;
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Raised when a server value breaks what the client relies on. */
export class InvalidResponseError extends ApiError {
	constructor(
		/** The record and field at fault, e.g. `artifact.id`. */
		readonly field: string,
		expected: string,
		requestId: string | undefined,
	) {
		super(200, 'invalid_response', `The server sent an invalid ${field}: expected ${expected}`, requestId);
	}
}

type Obj = Record<string, unknown>;

/** `value` as a JSON object, or an InvalidResponseError naming `what`. */
function asObject(value: unknown, what: string, ctx: DecodeContext): Obj {
	if (!isJsonObject(value)) {
		throw new InvalidResponseError(what, 'an object', ctx.requestId);
	}
	return value;
}

/** Field checks over one record; each returns the checked value and throws InvalidResponseError. */
class Fields {
	constructor(
		private readonly what: string,
		readonly o: Obj,
		readonly ctx: DecodeContext,
	) {}

	private fail(field: string, expected: string): never {
		throw new InvalidResponseError(`${this.what}.${field}`, expected, this.ctx.requestId);
	}

	/** A required id (see isSafeId). */
	id(field: string): string {
		const v = this.o[field];
		if (!isSafeId(v)) {
			this.fail(field, `an id of 1 to ${SAFETY.idMaxChars} characters without control characters, not "." or ".."`);
		}
		return v;
	}

	/** An optional id: absent or null stays undefined. */
	optId(field: string): string | undefined {
		const v = this.o[field];
		return v === undefined || v === null || v === '' ? undefined : this.id(field);
	}

	/** An optional string; any other type is an error. */
	optText(field: string): string | undefined {
		const v = this.o[field];
		if (v === undefined || v === null) {
			return undefined;
		}
		if (typeof v !== 'string') {
			this.fail(field, 'a string');
		}
		return v;
	}

	/** An optional integer in [min, max] (safe integer). */
	optInt(field: string, min: number, max: number = Number.MAX_SAFE_INTEGER): number | undefined {
		const v = this.o[field];
		if (v === undefined || v === null) {
			return undefined;
		}
		if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min || v > max) {
			this.fail(field, `an integer from ${min} to ${max}`);
		}
		return v;
	}

	/** An optional RFC 3339 time (any string Date.parse understands). */
	optTime(field: string): string | undefined {
		const v = this.optText(field);
		if (v !== undefined && Number.isNaN(Date.parse(v))) {
			this.fail(field, 'an RFC 3339 time');
		}
		return v;
	}

	/** An optional URL with one of the given protocols. */
	optUrl(field: string, protocols: readonly string[]): string | undefined {
		const v = this.optText(field);
		if (v === undefined) {
			return undefined;
		}
		let url: URL;
		try {
			url = new URL(v);
		} catch {
			this.fail(field, `a ${protocols.join(' or ')} URL`);
		}
		if (!protocols.includes(url.protocol)) {
			this.fail(field, `a ${protocols.join(' or ')} URL`);
		}
		return v;
	}

	/** An optional boolean. */
	optBool(field: string): boolean | undefined {
		const v = this.o[field];
		if (v === undefined || v === null) {
			return undefined;
		}
		if (typeof v !== 'boolean') {
			this.fail(field, 'true or false');
		}
		return v;
	}

	/** The record with the checked members written over the originals (undefined ones removed). */
	with<T>(checked: Obj): T {
		// for…in over the checked members' own literal (no prototype members): no entry arrays on
		// every answer, as Object.entries would allocate.
		const o = this.o;
		let same = true;
		for (const k in checked) {
			const v = checked[k];
			if (v === undefined ? k in o : o[k] !== v) {
				same = false;
				break;
			}
		}
		if (same) {
			return o as T; // Nothing to change: no copy (the common case, on every answer).
		}
		const out: Obj = { ...o };
		for (const k in checked) {
			const v = checked[k];
			if (v === undefined) {
				delete out[k];
			} else {
				out[k] = v;
			}
		}
		return out as T;
	}
}

/** A record decoder. */
export type Decoder<T> = (value: unknown, ctx: DecodeContext) => T;

function record<T>(what: string, check: (f: Fields) => Obj): Decoder<T> {
	return (value, ctx) => {
		const f = new Fields(what, asObject(value, what, ctx), ctx);
		return f.with<T>(check(f));
	};
}

/**
 * Decodes every item of a listing. Items that fail are dropped and counted (one bad record does
 * not hide the rest); `onDropped` hears how many and the first error.
 */
export function decodeList<T>(
	items: readonly unknown[],
	decode: Decoder<T>,
	ctx: DecodeContext,
	onDropped?: (count: number, first: InvalidResponseError) => void,
): T[] {
	const out: T[] = [];
	let dropped = 0;
	let first: InvalidResponseError | undefined;
	for (const item of items) {
		try {
			out.push(decode(item, ctx));
		} catch (err) {
			if (!(err instanceof InvalidResponseError)) {
				throw err;
			}
			dropped++;
			first ??= err;
		}
	}
	if (dropped > 0 && first) {
		onDropped?.(dropped, first);
	}
	return out;
}

export const decodeAgent = record<Record<string, unknown>>('agent', (f) => ({
	id: f.id('id'),
	runtime_id: f.optId('runtime_id'),
	harness_id: f.optId('harness_id'),
	name: f.optText('name'),
	status: f.optText('status'),
	created_at_unix_seconds: f.optInt('created_at_unix_seconds', 0),
	updated_at_unix_seconds: f.optInt('updated_at_unix_seconds', 0),
	latest_reply: latestReply(f),
}));

function latestReply(f: Fields): Obj | undefined {
	const v = f.o.latest_reply;
	if (v === undefined || v === null) {
		return undefined;
	}
	const r = new Fields('agent.latest_reply', asObject(v, 'agent.latest_reply', {}), {});
	return r.with({ run_id: r.optId('run_id'), text: r.optText('text') });
}

export const decodeRun = record<Record<string, unknown>>('run', (f) => ({
	id: f.id('id'),
	agent_id: f.optId('agent_id'),
	status: f.optText('status'),
	prompt: f.optText('prompt'),
	result: f.optText('result'),
	error: f.optText('error'),
	parent_run_id: f.optId('parent_run_id'),
	dsh_session_id: f.optId('dsh_session_id'),
}));

export const decodeArtifact = record<Record<string, unknown>>('artifact', (f) => ({
	id: f.id('id'),
	run_id: f.optId('run_id'),
	name: f.optText('name'),
	media_type: f.optText('media_type'),
	size: f.optInt('size', 0),
	content_base64: f.optText('content_base64'),
}));

export const decodeRuntime = record<Record<string, unknown>>('runtime', (f) => ({
	id: f.id('id'),
	display_name: f.optText('display_name'),
	status: f.optText('status'),
	revision: f.optInt('revision', 1),
	can_manage: f.optBool('can_manage'),
	image_id: f.optText('image_id'),
	// Platform members riding on the runtime record (decoded in the platform block below).
	ssh_keys: runtimeSshKeys(f.o.ssh_keys, f.ctx),
	github_bindings: runtimeGitHubBindings(f.o.github_bindings, f.ctx),
}));

export const decodeWorkspaceEntry = record<Record<string, unknown>>('workspace entry', (f) => ({
	name: f.optText('name') ?? '',
	type: f.optText('type'),
	size: f.optInt('size', 0),
	mtime_unix_ms: f.optInt('mtime_unix_ms', Number.MIN_SAFE_INTEGER),
}));

export const decodeComputerSession = record<Record<string, unknown>>('computer session', (f) => {
	const vnc = membersOf(f.o.channels).vnc;
	if (vnc !== undefined) {
		const v = new Fields('computer session.channels.vnc', asObject(vnc, 'computer session.channels.vnc', {}), {});
		v.optUrl('websocket_url', ['ws:', 'wss:']);
	}
	return { agent_id: f.optId('agent_id'), runtime_id: f.optId('runtime_id'), expires_at: f.optTime('expires_at') };
});

/** Device authorization start: codes checked, the polling interval and lifetime clamped (seconds). */
export const decodeDeviceAuthorization = record<Record<string, unknown>>('device authorization', (f) => {
	const deviceCode = f.o.device_code;
	if (typeof deviceCode !== 'string' || deviceCode.length === 0 || deviceCode.length > 4096 || CONTROL.test(deviceCode)) {
		throw new InvalidResponseError('device authorization.device_code', 'a non-empty code without control characters', undefined);
	}
	// The start response's members are not shown: RFC 8628 names first, then common variants.
	const expiresAt =
		typeof f.o.expires_at === 'string'
			? (Date.parse(f.o.expires_at) - Date.now()) / 1000
			: typeof f.o.expires_at === 'number'
				? f.o.expires_at - Date.now() / 1000
				: undefined;
	return {
		device_code: deviceCode,
		user_code: f.optText('user_code'),
		verification_uri: f.optUrl('verification_uri', ['https:', 'http:']) ?? f.optUrl('verification_url', ['https:', 'http:']),
		verification_uri_complete:
			f.optUrl('verification_uri_complete', ['https:', 'http:']) ?? f.optUrl('verification_url_complete', ['https:', 'http:']),
		interval: clampSeconds(
			f.o.interval ?? f.o.polling_interval,
			SAFETY.devicePollMinMs,
			SAFETY.devicePollMaxMs,
			SAFETY.devicePollDefaultMs,
		),
		expires_in: clampSeconds(f.o.expires_in ?? expiresAt, SAFETY.devicePollMinMs, SAFETY.deviceExpiryMaxMs, 900_000),
	};
});

/** A server number of seconds clamped into [minMs, maxMs] (fallback when absent or not a finite number), in seconds. */
export function clampSeconds(value: unknown, minMs: number, maxMs: number, fallbackMs: number): number {
	const ms = typeof value === 'number' && Number.isFinite(value) ? value * 1000 : fallbackMs;
	return Math.min(maxMs, Math.max(minMs, ms)) / 1000;
}

/** An access token from the device flow: a non-empty printable string without spaces (it becomes a header value). */
export function checkAccessToken(value: unknown, ctx: DecodeContext): string {
	if (typeof value !== 'string' || value.length === 0 || value.length > 4096 || !/^[\x21-\x7e]+$/.test(value)) {
		throw new InvalidResponseError('device token.access_token', 'a non-empty token of printable ASCII characters', ctx.requestId);
	}
	return value;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes standard base64 strictly: invalid characters, missing or misplaced padding are an error, never skipped. */
export function decodeBase64Strict(text: unknown, field: string, ctx: DecodeContext): Uint8Array {
	if (typeof text !== 'string' || text.length % 4 !== 0 || !BASE64.test(text)) {
		throw new InvalidResponseError(field, 'standard base64 (A–Z, a–z, 0–9, +, /, with = padding)', ctx.requestId);
	}
	return base64Decode(text); // checked above: atob cannot throw
}

// ---------------------------------------------------------------- secrets

/** Characters a server uses to mask a secret preview; a preview without a run of them is not shown. */
const MASK_RUN = /[\u2022*\u25cf\u00b7\u2026]{3,}/;
/** Members that would carry a secret's value: never kept from a secret record. */
const SECRET_VALUE_MEMBERS = ['value', 'secret_value', 'plaintext', 'value_plaintext', 'secret'];

/**
 * A secret's metadata: id and display name, `cache_ttl_secs` a uint32, `value_preview` kept only
 * when it looks masked (a run of at least three mask characters); members that could carry the
 * value itself are removed, so a server that sends a full value never has it shown or kept.
 */
export const decodeSecret = record<Record<string, unknown>>('secret', (f) => {
	const preview = f.optText('value_preview');
	const checked: Obj = {
		id: f.id('id'),
		display_name: f.optText('display_name'),
		cache_ttl_secs: f.optInt('cache_ttl_secs', 0, 4_294_967_295),
		value_preview: preview !== undefined && MASK_RUN.test(preview) ? preview : undefined,
	};
	for (const m of SECRET_VALUE_MEMBERS) checked[m] = undefined;
	return checked;
});

// ---------------------------------------------------------------- SSH gateway host key

/** The SSH gateway host key, checked and normalised from whichever member names the server uses. */
export interface GatewayHostKey {
	/** e.g. `ssh-ed25519`: letters, digits and `@.+-` only. */
	keyType: string;
	/** The public key blob, strict standard base64 (its first SSH string is `keyType`). */
	keyBase64: string;
	/** `SHA256:<unpadded base64>` computed from the blob (the server's, when sent, must match). */
	fingerprintSha256: string;
	/** The gateway's host name (letters, digits, `.`, `-`) or IP address, when the server names it. */
	host?: string;
	/** The gateway's port (1–65535), when the server names it. */
	port?: number;
}

const KEY_TYPE = /^[A-Za-z0-9][A-Za-z0-9@.+-]{0,63}$/;

/** The first of several members that is present (not undefined or null). */
function firstOf(o: Obj, names: readonly string[]): unknown {
	for (const n of names) {
		if (o[n] !== undefined && o[n] !== null) {
			return o[n];
		}
	}
	return undefined;
}

/**
 * Decodes the SSH gateway host key (`GET /v2/ssh-host-key`, unwrapped from `data`). Member names are
 * not shown, so several are read: the type from `key_type`/`algorithm`/`type`; the key from
 * `public_key`/`key` as `<type> <base64> [comment]` or the bare base64 blob; the fingerprint from
 * `fingerprint_sha256`/`fingerprints.sha256`/`fingerprint`; the gateway from `host`/`hostname` and
 * `port`, or an `endpoint`/`gateway` of the form `ssh://host:port` or `host:port`. The blob must be
 * strict base64 whose first SSH string is the key type, and a fingerprint the server sends must be
 * the blob's: what ends up in known_hosts is exactly the key that was checked.
 */
export function decodeGatewayHostKey(value: unknown, ctx: DecodeContext): GatewayHostKey {
	const o = asObject(value, 'ssh host key', ctx);
	const fail = (field: string, expected: string): never => {
		throw new InvalidResponseError(`ssh host key.${field}`, expected, ctx.requestId);
	};
	const typeMember = firstOf(o, ['key_type', 'algorithm', 'type']);
	if (typeMember !== undefined && (typeof typeMember !== 'string' || !KEY_TYPE.test(typeMember))) {
		fail('key_type', 'a key type such as ssh-ed25519');
	}
	const keyText = firstOf(o, ['public_key', 'key']);
	if (typeof keyText !== 'string') {
		return fail('public_key', 'an OpenSSH public key');
	}
	const parts = keyText.trim().split(/[ \t]+/);
	let keyType = typeof typeMember === 'string' ? typeMember : undefined;
	let b64: string;
	if (parts.length >= 2) {
		if (!KEY_TYPE.test(parts[0]!) || (keyType !== undefined && parts[0] !== keyType)) {
			fail('public_key', `a key of type ${keyType ?? 'ssh-…'}`);
		}
		keyType = parts[0]!;
		b64 = parts[1]!;
	} else {
		b64 = parts[0] ?? '';
	}
	if (b64.length === 0 || b64.length > SAFETY.hostKeyMaxBase64Chars) {
		fail('public_key', `a base64 key of 1 to ${SAFETY.hostKeyMaxBase64Chars} characters`);
	}
	const blob = decodeBase64Strict(b64, 'ssh host key.public_key', ctx);
	const nameLength = blob.length >= 4 ? new DataView(blob.buffer, blob.byteOffset, 4).getUint32(0) : -1;
	if (nameLength < 1 || nameLength > 64 || 4 + nameLength > blob.length) {
		fail('public_key', 'an SSH public key blob');
	}
	const blobType = String.fromCharCode(...blob.subarray(4, 4 + nameLength));
	if (!KEY_TYPE.test(blobType) || (keyType !== undefined && blobType !== keyType)) {
		fail('public_key', `a key blob of type ${keyType ?? 'ssh-…'}`);
	}
	const fingerprintSha256 = `SHA256:${sha256Base64Sync(blob).replace(/=+$/, '')}`;
	const sent = firstOf(o, ['fingerprint_sha256', 'fingerprint']) ?? membersOf(o.fingerprints).sha256;
	if (sent !== undefined) {
		const text = typeof sent === 'string' ? sent.trim() : '';
		const normal = text.startsWith('SHA256:') ? text : `SHA256:${text}`;
		if (normal.replace(/=+$/, '') !== fingerprintSha256) {
			fail('fingerprint_sha256', `the SHA256 fingerprint of the key sent (${fingerprintSha256})`);
		}
	}
	const out: GatewayHostKey = { keyType: blobType, keyBase64: b64, fingerprintSha256 };
	let host = firstOf(o, ['host', 'hostname']);
	let port = o.port;
	const endpoint = firstOf(o, ['endpoint', 'gateway']);
	if (host === undefined && typeof endpoint === 'string') {
		const m = /^(?:ssh:\/\/)?(\[[^\]]+\]|[^:/\s]+)(?::(\d{1,5}))?\/?$/.exec(endpoint.trim());
		if (!m) {
			fail('endpoint', 'ssh://host:port or host:port');
		}
		host = m![1]!.replace(/^\[|\]$/g, '');
		port = m![2] === undefined ? port : Number(m![2]);
	}
	if (host !== undefined) {
		if (typeof host !== 'string' || !isKnownHostsHost(host)) {
			fail('host', 'a host name or IP address');
		}
		out.host = (host as string).toLowerCase().replace(/\.$/, '');
	}
	if (port !== undefined && port !== null) {
		if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
			fail('port', 'a port from 1 to 65535');
		}
		out.port = port as number;
	}
	return out;
}

// ---------------------------------------------------------------- token savings

/** A count from the server: a non-negative safe integer, else undefined (the caller counts it as malformed). */
export function countOf(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

function textOf(value: unknown, max: number): string | undefined {
	return typeof value === 'string' ? (value.length > max ? value.slice(0, max) : value) : undefined;
}

/**
 * An account-wide token-saving event (GET /v2/token-savings), rebuilt with the documented member
 * names (the service's names are "not shown": `runtime: {id, name}`, `bytes_saved` and
 * `tokens_saved` are read too). Only what the dashboard uses is kept, so 100,000 events stay small.
 * The id must be safe when present (it is shown and exported); a count that is not a non-negative
 * integer, a time that does not parse, or a method that is not a string is left out, and the
 * dashboard counts the event as malformed instead of dropping it.
 */
export function decodeTokenSavingEvent(value: unknown, ctx: DecodeContext): TokenSavingEventRecord {
	const o = asObject(value, 'token-saving event', ctx);
	const f = new Fields('token-saving event', o, ctx);
	const runtime = membersOf(o.runtime);
	const runtimeId = o.runtime_id ?? runtime.id;
	const methods: string[] = [];
	if (Array.isArray(o.methods)) {
		for (const m of o.methods.slice(0, SAFETY.savingsMethodsPerEvent)) {
			const name = typeof m === 'string' ? m : membersOf(m).method;
			if (typeof name === 'string' && name.length > 0) {
				methods.push(name.length > SAFETY.labelMaxChars ? name.slice(0, SAFETY.labelMaxChars) : name);
			}
		}
	}
	const observed = o.observed_at;
	return {
		id: f.optId('id'),
		event_id: isSafeId(o.event_id) ? o.event_id : undefined,
		runtime_id: isSafeId(runtimeId) ? runtimeId : undefined,
		runtime_name: textOf(o.runtime_name ?? runtime.name, SAFETY.labelMaxChars),
		observed_at: typeof observed === 'string' && observed.length <= 64 ? observed : undefined,
		saved_wire_bytes: countOf(o.saved_wire_bytes ?? o.bytes_saved),
		saved_estimated_tokens: countOf(o.saved_estimated_tokens ?? o.tokens_saved),
		methods,
	};
}

/** Account totals over the whole filter (`applied_events`, `saved_wire_bytes`, `saved_estimated_tokens`; `events`, `bytes_saved`, `tokens_saved` read too); malformed counts left out. */
export function decodeTokenSavingTotals(value: unknown): TokenSavingTotalsCounts {
	const o = membersOf(value);
	return {
		applied_events: countOf(o.applied_events ?? o.events),
		saved_wire_bytes: countOf(o.saved_wire_bytes ?? o.bytes_saved),
		saved_estimated_tokens: countOf(o.saved_estimated_tokens ?? o.tokens_saved),
	};
}

/** A runtime's savings summary (applied events, saved bytes and tokens, malformed events); malformed counts left out. */
export function decodeTokenSavingSummary(value: unknown): TokenSavingSummaryCounts {
	const o = membersOf(value);
	return {
		applied_events: countOf(o.applied_events ?? o.events),
		saved_wire_bytes: countOf(o.saved_wire_bytes ?? o.bytes_saved),
		saved_estimated_tokens: countOf(o.saved_estimated_tokens ?? o.tokens_saved),
		malformed_events: countOf(o.malformed_events),
	};
}

// ---------------------------------------------------------------- secret stubs, SSH keys, GitHub (platform resources)

/**
 * A text member of a platform record: a string of at most SAFETY.recordTextMaxChars, else left out.
 * Never cut: these texts are names that are looked up (a stub's secret, the runtime it belongs to).
 * Display code neutralises control and bidi characters.
 */
function platformText(o: Obj, field: string): string | undefined {
	const v = o[field];
	return typeof v === 'string' && v.length <= SAFETY.recordTextMaxChars ? v : undefined;
}

/** A list member decoded item by item (bad items dropped, at most SAFETY.pageMaxItems); the original array when nothing changed. */
function platformList(value: unknown, decode: Decoder<Obj>, ctx: DecodeContext): Obj[] | undefined {
	if (!Array.isArray(value)) {
		return undefined;
	}
	const out = decodeList(value.slice(0, SAFETY.pageMaxItems), decode, ctx);
	return out.length === value.length && out.every((item, i) => item === value[i]) ? (value as Obj[]) : out;
}

/**
 * A secret stub (GET /v1/secret-stubs, the create answer): a safe `id` (it goes into the delete
 * routes); the patterns, the runtime's and the secret's names as text (another type, or longer
 * than SAFETY.recordTextMaxChars, left out); `stub_config_json` kept only as a string of at most
 * SAFETY.stubConfigMaxChars (read with decodeStubConfig).
 */
export const decodeSecretStub = record<Record<string, unknown>>('secret stub', (f) => {
	const config = f.o.stub_config_json;
	return {
		id: f.id('id'),
		host_pattern: platformText(f.o, 'host_pattern'),
		path_pattern: platformText(f.o, 'path_pattern'),
		runtime_display_name: platformText(f.o, 'runtime_display_name'),
		stub_value_display_name: platformText(f.o, 'stub_value_display_name'),
		stub_config_json: typeof config === 'string' && config.length <= SAFETY.stubConfigMaxChars ? config : undefined,
	};
});

/** A secret stub's configuration as read from its `stub_config_json`: the string members the UI uses. */
export interface StubConfig {
	headerName?: string;
	valueFormat?: string;
	paramName?: string;
	paramFormat?: string;
	/** The value template some servers send instead of `valueFormat`/`paramFormat`. */
	value?: string;
	filePath?: string;
}

const STUB_CONFIG_MEMBERS = ['headerName', 'valueFormat', 'paramName', 'paramFormat', 'value', 'filePath'] as const;

/**
 * Parses a stub's `stub_config_json` (at most SAFETY.stubConfigMaxChars): the JSON value, or
 * undefined when absent, too long or not JSON. For the stub's record document.
 */
export function parseStubConfig(json: string | undefined): unknown {
	if (json === undefined || json.length > SAFETY.stubConfigMaxChars) {
		return undefined;
	}
	try {
		return JSON.parse(json) as unknown;
	} catch {
		return undefined;
	}
}

/**
 * A stub's configuration: the string members of the JSON object (members of another type left
 * out); undefined when the JSON is absent, unreadable or not an object. Never throws.
 */
export function decodeStubConfig(json: string | undefined): StubConfig | undefined {
	const parsed = parseStubConfig(json);
	if (!isJsonObject(parsed)) {
		return undefined;
	}
	const out: StubConfig = {};
	for (const name of STUB_CONFIG_MEMBERS) {
		const v = parsed[name];
		if (typeof v === 'string') {
			out[name] = v;
		}
	}
	return out;
}

/** An SSH key (on a runtime record): a safe `id` (it goes into the detach and delete routes); the other members as text. */
export const decodeSshKey = record<Record<string, unknown>>('SSH key', (f) => ({
	id: f.id('id'),
	display_name: platformText(f.o, 'display_name'),
	fingerprint: platformText(f.o, 'fingerprint'),
	user_id: platformText(f.o, 'user_id'),
	organization_id: platformText(f.o, 'organization_id'),
	public_key: platformText(f.o, 'public_key'),
	created_at: platformText(f.o, 'created_at'),
}));

/** The SSH keys a runtime record lists as attached (`ssh_keys`, docs/contract-choices.md); not an array: left out. */
function runtimeSshKeys(value: unknown, ctx: DecodeContext): Obj[] | undefined {
	return platformList(value, decodeSshKey, ctx);
}

/**
 * One GitHub binding of a runtime record: a repository id (a safe integer ≥ 0) and a branch (text)
 * are required, `sort_order` kept when a safe integer; the ids as text.
 */
export const decodeGitHubBinding = record<Record<string, unknown>>('GitHub binding', (f) => {
	const repositoryId = f.optInt('repository_id', 0);
	const branch = platformText(f.o, 'branch');
	if (repositoryId === undefined || branch === undefined) {
		throw new InvalidResponseError('GitHub binding', 'a repository_id and a branch', f.ctx.requestId);
	}
	const order = f.o.sort_order;
	return {
		repository_id: repositoryId,
		branch,
		sort_order: typeof order === 'number' && Number.isSafeInteger(order) ? order : undefined,
		id: platformText(f.o, 'id'),
		tenant_id: platformText(f.o, 'tenant_id'),
		runtime_id: platformText(f.o, 'runtime_id'),
	};
});

/** The GitHub bindings a runtime record carries (`github_bindings`, in any order); not an array: left out. */
function runtimeGitHubBindings(value: unknown, ctx: DecodeContext): Obj[] | undefined {
	return platformList(value, decodeGitHubBinding, ctx);
}

/**
 * A GitHub authorization request: a safe `request_id`; who asked and why as text; `lifecycle`, when
 * present, an object whose `status` is text, whose `authorization_url` is https (it is opened in
 * the browser) and whose `expires_at_unix_seconds` is a non-negative integer — anything else there
 * is an error (the request is dropped from its listing: a request of unknown state is never offered).
 */
export function decodeGitHubAuthorizationRequest(value: unknown, ctx: DecodeContext): Record<string, unknown> {
	const what = 'GitHub authorization request';
	const f = new Fields(what, asObject(value, what, ctx), ctx);
	const raw = f.o.lifecycle;
	let lifecycle: Obj | undefined;
	if (raw !== undefined && raw !== null) {
		const l = new Fields(`${what}.lifecycle`, asObject(raw, `${what}.lifecycle`, ctx), ctx);
		lifecycle = l.with({
			status: l.optText('status'),
			authorization_url: l.optUrl('authorization_url', ['https:']),
			expires_at_unix_seconds: l.optInt('expires_at_unix_seconds', 0),
		});
	}
	return f.with({
		request_id: f.id('request_id'),
		created_at_unix_seconds: f.optInt('created_at_unix_seconds', 0),
		requested_by: platformText(f.o, 'requested_by'),
		reason: platformText(f.o, 'reason'),
		lifecycle,
	});
}

// ---------------------------------------------------------------- session history (agents and runs resources)

/** Longest event type kept; a longer one (or one with control characters) reads as `event`. */
const SESSION_EVENT_TYPE_MAX_CHARS = 200;
/** Longest `created_at` kept (an RFC 3339 time is about 30 characters). */
const SESSION_EVENT_TIME_MAX_CHARS = 64;

/**
 * One item of an agent's session replay (GET /v2/agents/{id}/events) as an event record, or
 * undefined when it is not one: an object with a sequence number (`seq`, or the variant's
 * `sequence`: a non-negative safe integer). The type is `type` (or `event`), else `event`; the
 * time `created_at` (or `at`), left out unless a short string; a `run_id` that is not a safe id is
 * left out. Other members are kept as they are (display code neutralises server text). Also reads
 * back the records the session history stores as JSON Lines.
 */
export function decodeSessionEvent(value: unknown): EventRecord | undefined {
	if (!isJsonObject(value)) {
		return undefined;
	}
	const { run_id: runId, ...o } = value;
	const seq = typeof o.seq === 'number' ? o.seq : o.sequence;
	if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
		return undefined;
	}
	const typeText = typeof o.type === 'string' ? o.type : typeof o.event === 'string' ? o.event : undefined;
	const type =
		typeText !== undefined && typeText !== '' && typeText.length <= SESSION_EVENT_TYPE_MAX_CHARS && !CONTROL.test(typeText)
			? typeText
			: 'event';
	const at = typeof o.created_at === 'string' ? o.created_at : typeof o.at === 'string' ? o.at : undefined;
	const createdAt = at !== undefined && at.length <= SESSION_EVENT_TIME_MAX_CHARS && !CONTROL.test(at) ? at : undefined;
	delete o.created_at;
	return {
		...o,
		seq,
		type,
		...(isSafeId(runId) ? { run_id: runId } : {}),
		...(createdAt !== undefined ? { created_at: createdAt } : {}),
	};
}
