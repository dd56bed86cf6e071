/**
 * Emulator profiles: the ONE place that decides what the emulator answers where the service
 * description says "not shown" (docs/contract-choices.md, "Profiles").
 *
 * The routes implement the `standard` choices (the ones the extension was written against). A
 * profile can change them at three points only, so that routes never branch on the profile:
 *
 * - agent ids (`agentIds`): how an agent id is made from the runtime UUID and the harness id, and
 *   how the seed data's ids are rewritten (`adaptSeed`);
 * - run event streams (`sse`): the preamble, the keep-alive and the encoding of each stored event;
 * - the HTTP edge (`request`, `response`): a request in the profile's dialect is translated into the
 *   standard one before validation, and a standard answer into the profile's dialect before it is
 *   serialised.
 *
 * The `standard` profile changes nothing (no edge hooks are even installed). The `variant` profile
 * keeps every documented fact (routes, auth, the error envelope with request_id = X-Request-Id,
 * limits, `{data, pagination}` wrappers, `{agents, next_cursor}`, the exclusive per-run `after` of
 * text/event-stream run events, the device token 400 `{error, interval?}`) and makes another
 * reasonable choice at every "not shown" point. `variant-strict` is `variant` that also refuses the
 * standard request bodies (workspace operations 400; renamed body members 422).
 */
import type { Emulator } from './emulator';
import { invalid } from './errors';
import { ApiError } from './errors';
import type { Data, RunEvent } from './state';

/** The names accepted by `--profile` and `startEmulator({profile})`. */
export type ProfileName = 'standard' | 'variant' | 'variant-strict';
/** Every profile name, in the order the help text lists them. */
export const PROFILE_NAMES: readonly ProfileName[] = ['standard', 'variant', 'variant-strict'];

/** A request as the edge hook sees it (before validation); `query`, `headers` and `body` may be changed. */
export interface EdgeRequest {
	method: string;
	/** The OpenAPI path template, e.g. `/v2/agents/{agent_id}`. */
	route: string;
	query: Record<string, unknown>;
	headers: Record<string, string | string[] | undefined>;
	body: unknown;
}

/** An answer as the edge hook sees it (before serialisation); the hook may change `status`. */
export interface EdgeResponse {
	method: string;
	route: string;
	status: number;
	payload: unknown;
}

/** Variant field names of the model-provider PATCH body (standard name → variant name), for field details. */
const PROVIDER_FIELD: Readonly<Record<string, string>> = {
	display_name: 'name',
	endpoint: 'base_url',
	model: 'default_model',
	enabled: 'is_enabled',
};

/** How run events are written to text/event-stream. */
export interface SseEncoding {
	/** Written once after the headers (may be empty). */
	readonly preamble: string;
	/** Written every keep-alive period. */
	readonly keepAlive: string;
	/** The complete frame (ending in a blank line) for a stored event, or undefined to send nothing for it. */
	frame(ev: RunEvent): string | undefined;
}

/** How agent ids are built and read. */
export interface AgentIdScheme {
	/** Between the runtime UUID and the harness id. */
	readonly separator: string;
	/** The harness id of an agent created without one. */
	readonly defaultHarness: string;
	make(runtimeId: string, harnessId: string): string;
}

/** One coherent set of choices where the service description is silent. */
export interface Profile {
	readonly name: ProfileName;
	readonly agentIds: AgentIdScheme;
	/** Rewrites freshly seeded data to the profile's choices (ids); not applied to loaded state files. */
	adaptSeed(data: Data): void;
	readonly sse: SseEncoding;
	/** Translates a request in the profile's dialect into the standard one, or throws an ApiError. */
	request?(req: EdgeRequest, emu: Emulator): void;
	/** Translates a standard answer into the profile's dialect. */
	response?(res: EdgeResponse, emu: Emulator): unknown;
}

// ---- standard ----------------------------------------------------------------------------------

/** The standard choices of docs/contract-choices.md (what the extension was written against). */
export const STANDARD: Profile = {
	name: 'standard',
	agentIds: {
		separator: '.',
		defaultHarness: 'main',
		make: (runtimeId, harnessId) => `${runtimeId}.${harnessId}`,
	},
	adaptSeed: () => undefined,
	sse: {
		preamble: 'retry: 3000\n\n',
		keepAlive: ': keep-alive\n\n',
		frame: (ev) => `id: ${ev.seq}\nevent: ${ev.type}\ndata: ${JSON.stringify(ev)}\n\n`,
	},
};

// ---- variant: helpers --------------------------------------------------------------------------

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const iso = (ms: unknown): string | undefined => (typeof ms === 'number' ? new Date(ms).toISOString() : undefined);
/** Copies obj without the members whose value is undefined (optional members absent, not null). */
const compact = (obj: Obj): Obj => Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));

/** Members whose value is a map or free-form data of someone else: no extra members are added inside. */
const OPAQUE_MEMBERS = new Set(['environment_variables', 'arguments', 'input']);
const EXTRA_VALUES: unknown[] = [{ note: 'an extra member the client does not know' }, 'extra', 7, null, ['x'], true];

/** Adds an unknown member `x_extra` (of a type that changes with the depth) to every object. */
export function withExtraMembers(v: unknown, depth = 0): unknown {
	if (Array.isArray(v)) return v.map((x) => withExtraMembers(x, depth + 1));
	if (!isObj(v)) return v;
	const out: Obj = {};
	for (const [k, x] of Object.entries(v)) out[k] = OPAQUE_MEMBERS.has(k) ? x : withExtraMembers(x, depth + 1);
	out.x_extra = EXTRA_VALUES[depth % EXTRA_VALUES.length];
	return out;
}

/** Variant run statuses (queued → pending …); a run held by `[[hold]]` reports `blocked`, which no list knows. */
export const VARIANT_RUN_STATUS: Readonly<Record<string, string>> = {
	queued: 'pending',
	running: 'in_progress',
	succeeded: 'completed',
	failed: 'errored',
	cancelled: 'canceled',
};
/** Variant agent statuses (upper case); an idle agent on a paused, suspended or shut-down runtime reports `HIBERNATING`. */
export const VARIANT_AGENT_STATUS: Readonly<Record<string, string>> = {
	provisioning: 'STARTING',
	idle: 'READY',
	running: 'BUSY',
	error: 'FAILED',
	deleting: 'DELETING',
};
const VARIANT_BUILD_STATUS: Readonly<Record<string, string>> = {
	pending: 'pending',
	running: 'building',
	succeeded: 'ready',
	failed: 'error',
};
const VARIANT_ATTEMPT_OUTCOME: Readonly<Record<string, string>> = { running: 'in_progress', succeeded: 'succeeded', failed: 'error' };
const VARIANT_CHECKPOINT_STATE: Readonly<Record<string, string>> = { creating: 'CREATING', ready: 'AVAILABLE', failed: 'FAILED' };
const VARIANT_FILE_ACTION: Readonly<Record<string, string>> = { created: 'added', modified: 'changed', deleted: 'removed' };
/** Variant device token errors (the standard uses the RFC 8628 names). */
export const VARIANT_DEVICE_ERROR: Readonly<Record<string, string>> = {
	authorization_pending: 'pending',
	slow_down: 'polling_too_fast',
	expired_token: 'expired',
	access_denied: 'denied',
	invalid_grant: 'invalid_device_code',
};
/** Variant workspace operation names (the standard's are list, stat, read, search). */
export const VARIANT_WORKSPACE_OPS: Readonly<Record<string, string>> = {
	list_directory: 'list',
	get_metadata: 'stat',
	read_file: 'read',
	search_text: 'search',
};
const WORKSPACE_OP_NAME: Readonly<Record<string, string>> = Object.fromEntries(
	Object.entries(VARIANT_WORKSPACE_OPS).map(([k, v]) => [v, k]),
);

const mapped = (table: Readonly<Record<string, string>>, v: unknown): unknown => (typeof v === 'string' ? (table[v] ?? v) : v);
const capitalise = (s: string): string => (s === '' ? s : s[0]!.toUpperCase() + s.slice(1));

// ---- variant: run events -----------------------------------------------------------------------

interface EncodedEvent {
	name: string;
	/** JSON members, or a plain string sent as is. */
	data: Obj | string;
}

/** The variant's name and payload for a stored event; undefined for `run.completed` (the stream just ends). */
function variantEvent(ev: RunEvent): EncodedEvent | undefined {
	const d = ev.data;
	const head: Obj = { sequence: ev.seq, run: { id: ev.run_id }, at: ev.created_at };
	switch (ev.type) {
		case 'run.status':
			return { name: 'status', data: { ...head, status: mapped(VARIANT_RUN_STATUS, d.status) } };
		case 'message':
			return {
				name: d.role === 'user' ? 'user_message' : 'assistant_message',
				data: { ...head, message: { role: d.role, content: [{ type: 'text', text: d.text }] } },
			};
		case 'tool.call':
			return { name: 'tool_use', data: { ...head, tool: { name: d.tool, arguments: d.input } } };
		case 'tool.result':
			return { name: 'tool_output', data: { ...head, tool: { name: d.tool }, output: { text: d.output } } };
		case 'log':
			return { name: 'log', data: typeof d.text === 'string' ? d.text : JSON.stringify(d.text) };
		case 'file.changed':
			return { name: 'file_change', data: { ...head, file: { path: d.path, action: mapped(VARIANT_FILE_ACTION, d.change) } } };
		case 'artifact.created':
			return { name: 'artifact', data: { ...head, artifact: { id: d.artifact_id, filename: d.name } } };
		case 'run.completed':
			return undefined;
		default:
			return { name: ev.type.replace(/\./g, '_'), data: { ...head, payload: d } };
	}
}

function variantFrame(ev: RunEvent): string | undefined {
	const enc = variantEvent(ev);
	if (!enc) return undefined;
	const text = typeof enc.data === 'string' ? enc.data : JSON.stringify(withExtraMembers(enc.data));
	const lines = [`id: ${ev.seq}`, `event: ${enc.name}`, ...text.split(/\r\n|\r|\n/).map((l) => `data: ${l}`)];
	return `${lines.join('\n')}\n\n`;
}

/** An item of the variant's session replay: the stream's JSON with the event name; plain strings under `body`. */
function variantReplayItem(ev: RunEvent): Obj | undefined {
	const enc = variantEvent(ev);
	if (!enc) return undefined;
	if (typeof enc.data === 'string') {
		return { event: enc.name, sequence: ev.seq, run: { id: ev.run_id }, at: ev.created_at, body: enc.data };
	}
	return { event: enc.name, ...enc.data };
}

// ---- variant: requests -------------------------------------------------------------------------

/** The variant's query parameter `theirs` stands for the standard `ours`; the standard name is ignored (as unknown parameters are). */
function renameQuery(q: Obj, theirs: string, ours: string): void {
	delete q[ours];
	if (q[theirs] !== undefined) q[ours] = q[theirs];
	delete q[theirs];
}

/**
 * Body members: `map` is variant name → standard name. Lenient: the variant's name wins, the standard
 * one is still accepted. Strict: a standard name is refused (422) and `required` variant members must be there.
 */
function renameBody(raw: unknown, map: Readonly<Record<string, string>>, required: readonly string[], strict: boolean): unknown {
	if (!isObj(raw)) return raw;
	const out: Obj = { ...raw };
	for (const [theirs, ours] of Object.entries(map)) {
		if (strict && ours in raw && !(ours in map)) {
			throw invalid(
				`${ours}: unknown member; this server expects ${Object.keys(map)
					.map((k) => JSON.stringify(k))
					.join(', ')}`,
			);
		}
		if (theirs in raw) {
			out[ours] = raw[theirs];
			if (theirs !== ours) delete out[theirs];
		}
	}
	if (strict) for (const r of required) if (!(r in raw)) throw invalid(`${r}: is required`);
	return out;
}

const WORKSPACE_ARGS: Readonly<Record<string, string>> = {
	path: 'path',
	page_token: 'cursor',
	page_size: 'limit',
	offset: 'offset',
	max_bytes: 'length',
	pattern: 'query',
	max_matches: 'max_results',
	match_case: 'case_sensitive',
};

/** `{operation, arguments: {...}}` → the standard `{op, ...}`; the standard body is 400 in strict mode. */
function workspaceBody(raw: unknown, strict: boolean): unknown {
	if (!isObj(raw)) return raw;
	if (!('operation' in raw)) {
		if (!strict && 'op' in raw) return raw;
		throw new ApiError(
			'invalid_argument',
			`body: a workspace operation is {operation, arguments}; operation is one of ${Object.keys(VARIANT_WORKSPACE_OPS).join(', ')}${'op' in raw ? ' ("op" is not a member this server knows)' : ''}`,
			{ status: 400 },
		);
	}
	const op = raw.operation;
	if (typeof op !== 'string' || !(op in VARIANT_WORKSPACE_OPS)) {
		throw invalid(`operation: must be one of ${Object.keys(VARIANT_WORKSPACE_OPS).join(', ')} (got ${JSON.stringify(op)})`);
	}
	const args = raw.arguments ?? {};
	if (!isObj(args)) throw invalid('arguments: must be an object');
	const out: Obj = { op: VARIANT_WORKSPACE_OPS[op] };
	for (const [k, v] of Object.entries(args)) {
		const std = WORKSPACE_ARGS[k];
		if (std === undefined) throw invalid(`arguments.${k}: unknown member; known: ${Object.keys(WORKSPACE_ARGS).join(', ')}`);
		out[std] = v;
	}
	return out;
}

const PROVIDER_BODY = { name: 'display_name', base_url: 'endpoint', default_model: 'model', is_enabled: 'enabled' } as const;
const BUILD_BODY = { name: 'display_name', dockerfile_content: 'dockerfile', platform: 'architecture' } as const;
/** Agent create: name, initial_message and repositories are documented; the other members are renamed. */
const AGENT_BODY = {
	name: 'name',
	initial_message: 'initial_message',
	repositories: 'repositories',
	runtime: 'runtime_id',
	harness: 'harness_id',
	model_provider: 'model_provider_id',
} as const;

function variantRequest(strict: boolean) {
	return (req: EdgeRequest): void => {
		const q = req.query;
		switch (`${req.method} ${req.route}`) {
			case 'GET /v2/agents':
			case 'GET /v2/checkpoints':
				renameQuery(q, 'page_token', 'cursor');
				break;
			case 'GET /v2/token-savings':
				renameQuery(q, 'page_token', 'cursor');
				renameQuery(q, 'runtime', 'runtime_id');
				break;
			case 'GET /v2/agents/{agent_id}/events':
				renameQuery(q, 'session', 'session_id');
				break;
			case 'GET /v2/agents/{agent_id}/artifacts/{artifact_id}': {
				const include = q.include;
				delete q.include_content;
				delete q.include;
				if (typeof include === 'string' && include.split(',').includes('content')) q.include_content = 'true';
				break;
			}
			case 'POST /v2/agents':
				req.body = renameBody(req.body, AGENT_BODY, [], strict);
				break;
			case 'POST /v2/agents/{agent_id}/workspace':
				req.body = workspaceBody(req.body, strict);
				break;
			case 'PATCH /v2/model-providers/{provider_id}':
				req.body = renameBody(req.body, PROVIDER_BODY, Object.keys(PROVIDER_BODY), strict);
				break;
			case 'POST /v2/images/builds': {
				const key = req.headers['x-idempotency-key'];
				delete req.headers['idempotency-key'];
				if (key !== undefined) req.headers['idempotency-key'] = key;
				req.body = renameBody(req.body, BUILD_BODY, ['name', 'dockerfile_content'], strict);
				break;
			}
			case 'POST /v2/agents/{agent_id}/runs/{run_id}/resume':
				req.body = renameBody(req.body, { message: 'prompt' }, [], strict);
				break;
			case 'POST /v2/agents/{agent_id}/runs/{run_id}/follow-ups':
				req.body = renameBody(req.body, { message: 'prompt', images: 'images' }, ['message'], strict);
				break;
			case 'POST /v2/auth/device/authorization':
				// client_id is optional here; an unnamed client is recorded as such.
				if (isObj(req.body) && req.body.client_id === undefined) req.body = { ...req.body, client_id: 'unnamed-client' };
				break;
			default:
				break;
		}
	};
}

// ---- variant: answers --------------------------------------------------------------------------

const SLEEPING_RUNTIME = new Set(['paused', 'suspended', 'shutdown']);

function variantAgent(a: unknown, emu: Emulator): unknown {
	if (!isObj(a)) return a;
	const { latest_reply: _reply, ...rest } = a;
	let status = mapped(VARIANT_AGENT_STATUS, a.status);
	const rt = emu.data.runtimes.find((r) => r.id === a.runtime_id);
	if (a.status === 'idle' && rt && SLEEPING_RUNTIME.has(rt.status)) status = 'HIBERNATING';
	return { ...rest, status };
}

function variantRun(r: unknown, emu: Emulator): unknown {
	if (!isObj(r)) return r;
	const row = emu.data.runs.find((x) => x.id === r.id);
	const status = row?.hold && r.status === 'running' ? 'blocked' : mapped(VARIANT_RUN_STATUS, r.status);
	return { ...r, status };
}

function variantWorkspaceEntry(dir: string, e: unknown): unknown {
	if (!isObj(e)) return e;
	const name = typeof e.name === 'string' ? e.name : '';
	const path = dir === '' ? name : name === '' ? dir : `${dir}/${name}`;
	return compact({
		path,
		kind: e.type === 'directory' ? 'dir' : 'file',
		size_bytes: e.type === 'file' ? e.size : undefined,
		modified_at: iso(e.mtime_unix_ms),
	});
}

function variantWorkspaceResult(p: Obj): unknown {
	const operation = typeof p.op === 'string' ? WORKSPACE_OP_NAME[p.op] : undefined;
	const path = typeof p.path === 'string' ? p.path : '';
	switch (p.op) {
		case 'list':
			return {
				operation,
				result: compact({
					items: Array.isArray(p.entries) ? p.entries.map((e) => variantWorkspaceEntry(path, e)) : [],
					next_page_token: p.next_cursor ?? undefined,
				}),
			};
		case 'stat': {
			const parent = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '';
			return { operation, result: { item: variantWorkspaceEntry(parent, p.entry) } };
		}
		case 'read':
			return {
				operation,
				result: compact({
					path,
					offset: p.offset,
					bytes: p.length,
					total_size: p.size,
					modified_at: iso(p.mtime_unix_ms),
					complete: p.eof === true ? true : undefined,
					data: { encoding: 'base64', content: p.content_base64 },
				}),
			};
		case 'search':
			return {
				operation,
				result: compact({
					hits: Array.isArray(p.matches)
						? p.matches.map((m: unknown) =>
								isObj(m) ? { file: m.path, line_number: m.line, column_number: m.column, text: m.preview } : m,
							)
						: [],
					incomplete: p.truncated === true ? true : undefined,
				}),
			};
		default:
			return p;
	}
}

function variantRuntime(rt: unknown): unknown {
	if (!isObj(rt)) return rt;
	const out: Obj = { ...rt };
	const egress = rt.egress_policy;
	if (isObj(egress) && egress.mode === 'allowlist') out.egress_policy = { mode: 'allow_only', hosts: egress.allowed_hosts };
	const idle = rt.idle_policy;
	if (isObj(idle) && idle.mode !== 'disabled') {
		out.idle_policy = {
			mode: idle.mode === 'wake_on_activity' ? 'suspend_wake_on_activity' : 'suspend',
			idle_after_seconds: idle.idle_timeout_seconds,
		};
	}
	if (out.vnc_error_code === null) delete out.vnc_error_code;
	if (out.error_code === null) delete out.error_code;
	if (isObj(out.environment_variables) && Object.keys(out.environment_variables).length === 0) delete out.environment_variables;
	return out;
}

function variantBuild(b: unknown): unknown {
	if (!isObj(b)) return b;
	return compact({
		build_id: b.id,
		name: b.display_name,
		architecture: b.architecture,
		status: mapped(VARIANT_BUILD_STATUS, b.status),
		attempts: Array.isArray(b.attempts)
			? b.attempts.map((a: unknown) =>
					isObj(a)
						? compact({
								attempt: a.number,
								outcome: mapped(VARIANT_ATTEMPT_OUTCOME, a.outcome),
								began_at: a.started_at,
								ended_at: a.finished_at ?? undefined,
							})
						: a,
				)
			: [],
		image: typeof b.image_id === 'string' ? { id: b.image_id } : undefined,
		created_at: b.created_at,
		updated_at: b.updated_at,
	});
}

function variantCheckpoint(c: unknown): unknown {
	if (!isObj(c)) return c;
	const state = isObj(c.state) ? c.state : {};
	const src = isObj(c.source_runtime) ? c.source_runtime : {};
	return compact({
		id: c.id,
		display_name: c.display_name,
		created_at: c.created_at,
		resource_state: c.resources,
		lifecycle: mapped(VARIANT_CHECKPOINT_STATE, state.status),
		failure: state.failure_reason ?? undefined,
		source: { runtime_id: src.id ?? null, runtime_name: src.display_name },
	});
}

function variantImage(i: unknown): unknown {
	if (!isObj(i)) return i;
	return {
		id: i.id,
		name: i.display_name,
		type: i.kind,
		architectures: i.architectures,
		protocols: Array.isArray(i.onboarding)
			? i.onboarding.map((o: unknown) => (isObj(o) ? { protocol: o.protocol, instructions: o.description } : o))
			: i.onboarding,
		credential_env_var: i.credential_variable,
		default_endpoint: i.default_endpoint,
		managed_credentials: i.subscription_credentials,
		endpoint_override_allowed: i.endpoint_overridable,
		browser_surfaces: Array.isArray(i.browser_surfaces)
			? i.browser_surfaces.map((s: unknown) => (isObj(s) ? { name: s.name, port: s.guest_port } : s))
			: i.browser_surfaces,
		tcp_ports: i.tcp_ports,
		in_use: i.in_use,
	};
}

function variantProvider(p: unknown): unknown {
	if (!isObj(p)) return p;
	return {
		provider_id: p.id,
		name: p.display_name,
		type: p.kind,
		base_url: p.endpoint,
		default_model: p.model,
		is_enabled: p.enabled,
		modified_at: p.updated_at,
	};
}

const withoutMembers = (v: unknown, names: readonly string[]): unknown =>
	isObj(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => !names.includes(k))) : v;
const mapData = (p: Obj, fn: (x: unknown) => unknown): Obj => ({ ...p, data: Array.isArray(p.data) ? p.data.map(fn) : fn(p.data) });

/**
 * Field-level details: the standard's `error.details: [{field, message}]` become
 * `error.field_violations: [{field_path, description}]`, named as the variant's bodies name them; a
 * model-provider PATCH the server refuses for its fields answers 400 (the standard: 422).
 */
function variantErrorDetails(res: EdgeResponse): unknown {
	const p = res.payload;
	if (!isObj(p) || !isObj(p.error) || !Array.isArray(p.error.details)) return p;
	const provider = res.route === '/v2/model-providers/{provider_id}';
	const { details, ...error } = p.error;
	const violations = (details as unknown[]).map((d) => {
		if (!isObj(d)) return d;
		const field = typeof d.field === 'string' ? d.field : '';
		return { field_path: provider ? (PROVIDER_FIELD[field] ?? field) : field, description: d.message };
	});
	if (provider && res.status === 422) res.status = 400;
	return { ...p, error: { ...error, field_violations: violations } };
}

function variantAnswer(res: EdgeResponse, emu: Emulator): unknown {
	const p = res.payload;
	if (!isObj(p) && !Array.isArray(p)) return p;
	if (res.status >= 400) {
		if (res.route === '/v2/auth/device/token' && isObj(p) && typeof p.error === 'string') {
			const error = VARIANT_DEVICE_ERROR[p.error] ?? p.error;
			return compact({ error, interval: p.error === 'slow_down' ? p.interval : undefined });
		}
		return variantErrorDetails(res);
	}
	const o = isObj(p) ? p : {};
	switch (`${res.method} ${res.route}`) {
		case 'GET /v2/me':
			return {
				user_id: o.id,
				username: typeof o.email === 'string' ? o.email.split('@')[0] : undefined,
				name: o.display_name,
				emails: [{ address: o.email, primary: true, verified: true }],
				organization: { id: o.organization_id, name: o.organization_name },
			};
		case 'GET /v2/ssh-host-key':
			if (!isObj(o.data)) return p;
			// The key is the bare base64 blob (no type prefix); the gateway is an ssh:// URL.
			return {
				data: compact({
					algorithm: o.data.key_type,
					key: typeof o.data.public_key === 'string' ? (o.data.public_key.split(' ')[1] ?? o.data.public_key) : o.data.public_key,
					fingerprints: { sha256: o.data.fingerprint_sha256 },
					endpoint:
						typeof o.data.host === 'string'
							? `ssh://${o.data.host}${typeof o.data.port === 'number' ? `:${o.data.port}` : ''}`
							: undefined,
				}),
			};
		case 'POST /v2/auth/device/authorization':
			return {
				device_code: o.device_code,
				user_code: o.user_code,
				verification_url: o.verification_uri,
				expires_at: typeof o.expires_in === 'number' ? new Date(Date.now() + o.expires_in * 1000).toISOString() : undefined,
				polling_interval: o.interval,
			};
		case 'POST /v2/auth/device/token':
			return { ...o, token_type: 'bearer', scope: 'agents runtimes' };
		case 'GET /v2/agents':
			return { ...o, agents: Array.isArray(o.agents) ? o.agents.map((a) => variantAgent(a, emu)) : o.agents };
		case 'POST /v2/agents':
		case 'GET /v2/agents/{agent_id}':
		case 'PATCH /v2/agents/{agent_id}':
			return variantAgent(p, emu);
		case 'DELETE /v2/agents/{agent_id}':
			return { runtime: { id: o.runtime_id }, state: 'DELETE_REQUESTED' };
		case 'GET /v2/agents/{agent_id}/runs':
			return Array.isArray(p) ? p.map((r) => variantRun(r, emu)) : p;
		case 'POST /v2/agents/{agent_id}/runs':
		case 'GET /v2/agents/{agent_id}/runs/{run_id}':
		case 'DELETE /v2/agents/{agent_id}/runs/{run_id}':
		case 'POST /v2/agents/{agent_id}/runs/{run_id}/resume':
		case 'POST /v2/agents/{agent_id}/runs/{run_id}/follow-ups':
			return variantRun(p, emu);
		case 'GET /v2/agents/{agent_id}/events': {
			const events = Array.isArray(o.events)
				? (o.events as RunEvent[]).map(variantReplayItem).filter((e) => e !== undefined)
				: o.events;
			return { ...o, events };
		}
		case 'POST /v2/agents/{agent_id}/workspace':
			return variantWorkspaceResult(o);
		case 'PUT /v2/agents/{agent_id}/workspace/files':
			return withoutMembers(o, ['mtime_unix_ms']);
		case 'GET /v2/runtimes':
		case 'POST /v2/runtimes/{runtime_id}/resume':
			return mapData(o, variantRuntime);
		case 'GET /v2/images/builds':
		case 'POST /v2/images/builds':
		case 'GET /v2/images/builds/{build_id}':
			return mapData(o, variantBuild);
		case 'GET /v2/checkpoints':
			return mapData(o, variantCheckpoint);
		case 'GET /v2/images':
			return mapData(o, variantImage);
		case 'GET /v2/secrets/{secret_id}':
			return mapData(o, (s) => withoutMembers(s, ['value_preview']));
		case 'GET /v2/github/authorization-requests':
			return isObj(o.data) && Array.isArray(o.data.requests)
				? { ...o, data: { ...o.data, requests: o.data.requests.map((r) => withoutMembers(r, ['reason'])) } }
				: p;
		case 'GET /v1/runtimes/{runtime_id}/tokensaver/savings':
			return mapData(o, (t) => withoutMembers(t, ['provider', 'endpoint', 'transport', 'model']));
		case 'GET /v2/token-savings': {
			if (!isObj(o.data)) return p;
			const d = o.data;
			const t = isObj(d.totals) ? d.totals : {};
			return {
				data: {
					events: Array.isArray(d.events)
						? d.events.map((e: unknown) =>
								isObj(e)
									? {
											id: e.id,
											event_id: e.event_id,
											runtime: { id: e.runtime_id, name: e.runtime_name },
											observed_at: e.observed_at,
											bytes_saved: e.saved_wire_bytes,
											tokens_saved: e.saved_estimated_tokens,
											methods: e.methods,
										}
									: e,
							)
						: d.events,
					totals: { events: t.applied_events, bytes_saved: t.saved_wire_bytes, tokens_saved: t.saved_estimated_tokens },
					pagination: d.pagination,
				},
			};
		}
		case 'GET /v2/model-providers':
			return { ...o, model_providers: Array.isArray(o.model_providers) ? o.model_providers.map(variantProvider) : o.model_providers };
		case 'PATCH /v2/model-providers/{provider_id}':
			return variantProvider(p);
		default:
			return p;
	}
}

function variantProfile(name: 'variant' | 'variant-strict'): Profile {
	const agentIds: AgentIdScheme = {
		separator: ':',
		defaultHarness: 'Main',
		make: (runtimeId, harnessId) => `${runtimeId.toUpperCase()}:${harnessId}`,
	};
	const request = variantRequest(name === 'variant-strict');
	return {
		name,
		agentIds,
		adaptSeed(d: Data): void {
			const ids = new Map<string, string>();
			for (const a of d.agents) {
				a.harness_id = capitalise(a.harness_id);
				const id = agentIds.make(a.runtime_id, a.harness_id);
				ids.set(a.id, id);
				a.id = id;
			}
			const re = (id: string): string => ids.get(id) ?? id;
			for (const r of d.runs) r.agent_id = re(r.agent_id);
			for (const art of d.artifacts) {
				art.agent_id = re(art.agent_id);
				art.harness_id = capitalise(art.harness_id);
			}
			for (const s of d.computerSessions) s.agent_id = re(s.agent_id);
			d.workspaces = new Map([...d.workspaces].map(([k, w]) => [re(k), w]));
		},
		sse: { preamble: '', keepAlive: 'event: ping\ndata: {}\n\n', frame: variantFrame },
		request: (req) => request(req),
		response: (res, emu) => withExtraMembers(variantAnswer(res, emu)),
	};
}

/** The profile of a name (standard, variant, variant-strict). */
export function profileFor(name: ProfileName): Profile {
	return name === 'standard' ? STANDARD : variantProfile(name);
}

/** Whether a string names a profile. */
export const isProfileName = (v: unknown): v is ProfileName => typeof v === 'string' && (PROFILE_NAMES as readonly string[]).includes(v);
