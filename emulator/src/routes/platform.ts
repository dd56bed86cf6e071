import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Emulator } from '../emulator';
import { BUILD_STEP_MS } from '../emulator';
import type { FieldDetail } from '../errors';
import { ApiError, conflict, forbidden, invalid, invalidFields, notFound } from '../errors';
import { uuid, UUID_RE } from '../ids';
import type { BuildRow, ModelProviderRow, RuntimeRow } from '../state';
import { RUNTIME_STATUSES } from '../state';
import { nowIso, paginate } from '../util';
import { checkName, checkUuid } from '../validate';
import { runtimeView, secretView, stubView, tokenSavingView } from '../views';
import { body, bool, limitQuery, params, query, str } from './common';

const pagination = (next: string | null): { next_cursor: string | null; has_more: boolean } => ({
	next_cursor: next,
	has_more: next !== null,
});

const runtimeParams = { type: 'object', required: ['runtime_id'], properties: { runtime_id: str } } as const;
const revisionQuery = (required: boolean) =>
	({
		type: 'object',
		required: required ? ['expected_revision'] : [],
		properties: { expected_revision: { type: 'integer', minimum: 1 } },
	}) as const;

function manage(emu: Emulator, req: FastifyRequest, rt: RuntimeRow, what: string): void {
	if (!emu.canManage(rt, req.caller)) {
		throw forbidden(`runtime ${rt.display_name}: you may not ${what} (can_manage is false for this caller)`);
	}
}

function checkRevision(rt: RuntimeRow, expected: number | undefined): void {
	if (expected !== undefined && expected !== rt.revision) {
		throw new ApiError(
			'failed_precondition',
			`expected_revision: ${expected} does not match the current revision ${rt.revision} of runtime ${rt.display_name}; re-read the runtime and retry`,
		);
	}
}

/** Kinds whose endpoint may be plain http: (self-hosted servers on a private network). */
const HTTP_ALLOWED_KINDS = new Set(['openai_compatible']);
const MODEL_RE = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}$/;

/**
 * Server-side validation of a model provider PATCH: every problem, each naming its field (sent as
 * `error.details`, the message joins them). Rules (assumed; docs/contract-choices.md): display_name
 * 1–255 bytes after trimming and unique among the organization's providers; endpoint an absolute
 * https: URL without credentials, query or fragment (http: only for `openai_compatible`); model 1–200
 * characters of letters, digits and `._:/@-`; an enabled provider needs a model.
 */
export function checkProvider(
	emu: Emulator,
	p: ModelProviderRow,
	b: { display_name: string; endpoint: string; model: string; enabled: boolean },
): FieldDetail[] {
	const out: FieldDetail[] = [];
	const name = b.display_name.trim();
	const bytes = Buffer.byteLength(name, 'utf8');
	if (bytes < 1 || bytes > 255) out.push({ field: 'display_name', message: `must be 1 to 255 bytes after trimming (got ${bytes})` });
	else if (emu.data.modelProviders.some((x) => x !== p && x.display_name.toLowerCase() === name.toLowerCase())) {
		out.push({ field: 'display_name', message: `another model provider is already called ${JSON.stringify(name)}` });
	}
	let url: URL | undefined;
	try {
		url = new URL(b.endpoint);
	} catch {
		url = undefined;
	}
	const shown = JSON.stringify(b.endpoint.slice(0, 80));
	if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
		out.push({ field: 'endpoint', message: `must be an absolute https URL (got ${shown})` });
	} else if (url.protocol === 'http:' && !HTTP_ALLOWED_KINDS.has(p.kind)) {
		out.push({ field: 'endpoint', message: `must use https for a provider of kind ${p.kind} (got ${shown})` });
	} else if (url.username !== '' || url.password !== '') {
		out.push({ field: 'endpoint', message: 'must not contain credentials; store them as a secret' });
	} else if (url.search !== '' || url.hash !== '') out.push({ field: 'endpoint', message: 'must not have a query or fragment' });
	const model = b.model.trim();
	if (model === '') {
		if (b.enabled) out.push({ field: 'model', message: 'is required for an enabled provider' });
		else out.push({ field: 'model', message: 'must not be empty' });
	} else if (!MODEL_RE.test(model)) {
		out.push({
			field: 'model',
			message: `must be 1 to 200 letters, digits or ._:/@- starting with a letter or digit (got ${JSON.stringify(model.slice(0, 80))})`,
		});
	}
	return out;
}

export function registerPlatform(app: FastifyInstance, emu: Emulator): void {
	// ---- health and identity ---------------------------------------------------------------------
	app.get('/healthz', { config: { auth: 'none' } }, async (_req, reply) => {
		reply.code(200);
		return reply.send();
	});

	app.get('/v2/me', { config: { auth: 'read' } }, async (req) => {
		const u = emu.data.users.find((x) => x.id === req.caller.userId);
		if (!u) throw notFound('user', req.caller.userId);
		return { ...u };
	});

	app.get('/v2/ssh-host-key', { config: { auth: 'read' } }, async () => ({ data: { ...emu.data.host_key } }));

	// ---- runtimes --------------------------------------------------------------------------------
	app.get(
		'/v2/runtimes',
		{
			config: { auth: 'read' },
			schema: { querystring: limitQuery(1, 100, 50, { after: str, status: str }) },
		},
		async (req) => {
			const q = query<{ limit: number; after?: string; status?: string }>(req);
			let rows = [...emu.data.runtimes];
			if (q.status !== undefined && q.status.trim() !== '') {
				const wanted = q.status
					.split(',')
					.map((s) => s.trim())
					.filter(Boolean);
				for (const w of wanted) {
					if (!(RUNTIME_STATUSES as readonly string[]).includes(w)) {
						throw invalid(
							`status: unknown runtime status ${JSON.stringify(w)}; use a comma-separated list of ${RUNTIME_STATUSES.join(', ')}`,
						);
					}
				}
				rows = rows.filter((r) => wanted.includes(r.status));
			}
			rows.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1));
			const page = paginate(rows, (r) => r.id, q.limit, q.after, 'after');
			return { data: page.items.map((r) => runtimeView(emu, r, req.caller)), pagination: pagination(page.nextCursor) };
		},
	);

	app.post(
		'/v2/runtimes/:runtime_id/resume',
		{
			config: { auth: 'write', optionalBody: true },
			schema: { params: runtimeParams, querystring: revisionQuery(false) },
		},
		async (req) => {
			const rt = emu.runtime(params<{ runtime_id: string }>(req).runtime_id);
			manage(emu, req, rt, 'resume it');
			checkRevision(rt, query<{ expected_revision?: number }>(req).expected_revision);
			if (rt.status !== 'paused' && rt.status !== 'suspended') {
				throw conflict(`runtime ${rt.display_name} is ${rt.status}; only paused or suspended runtimes can be resumed`);
			}
			if (rt.desired_status !== 'running') {
				rt.desired_status = 'running';
				rt.pending = { status: 'running', at: emu.now() + 2000 };
				emu.bumpRuntime(rt);
			}
			emu.mutation('runtimes.resume');
			return { data: runtimeView(emu, rt, req.caller) };
		},
	);

	app.get('/v2/runtimes/:runtime_id/vnc-credentials', { config: { auth: 'read' }, schema: { params: runtimeParams } }, async (req) => {
		const rt = emu.runtime(params<{ runtime_id: string }>(req).runtime_id);
		return { data: rt.vnc_credentials.map((c) => ({ ...c })) };
	});

	app.delete(
		'/v2/runtimes/:runtime_id/ssh-keys/:ssh_key_id',
		{
			config: { auth: 'write' },
			schema: {
				params: { type: 'object', required: ['runtime_id', 'ssh_key_id'], properties: { runtime_id: str, ssh_key_id: str } },
				querystring: revisionQuery(true),
			},
		},
		async (req) => {
			const p = params<{ runtime_id: string; ssh_key_id: string }>(req);
			const rt = emu.runtime(p.runtime_id);
			manage(emu, req, rt, 'detach SSH keys from it');
			checkRevision(rt, query<{ expected_revision: number }>(req).expected_revision);
			const key = emu.data.sshKeys.find((k) => k.id === p.ssh_key_id);
			if (!key || !rt.ssh_key_ids.includes(key.id)) throw notFound(`SSH key attached to runtime ${rt.display_name}:`, p.ssh_key_id);
			rt.ssh_key_ids = rt.ssh_key_ids.filter((k) => k !== key.id);
			emu.bumpRuntime(rt);
			emu.mutation('runtimes.ssh_keys.detach');
			return { data: { ...key } };
		},
	);

	app.get(
		'/v1/runtimes/:runtime_id/tokensaver/savings',
		{
			config: { auth: 'read' },
			schema: { params: runtimeParams, querystring: limitQuery(1, 100, 50, { after: str }) },
		},
		async (req) => {
			const rt = emu.runtime(params<{ runtime_id: string }>(req).runtime_id);
			const q = query<{ limit: number; after?: string }>(req);
			const rows = emu.data.tokenSavings
				.filter((t) => t.runtime_id === rt.id)
				.sort((a, b) => b.observed_unix_ms - a.observed_unix_ms);
			const page = paginate(rows, (t) => t.id, q.limit, q.after, 'after');
			const summary = { applied_events: 0, saved_wire_bytes: 0, saved_estimated_tokens: 0, malformed_events: 0 };
			for (const t of rows) {
				summary.applied_events++;
				if (t.methods.some((m) => m.parse_error !== undefined)) summary.malformed_events++;
				summary.saved_wire_bytes += t.saved_wire_bytes;
				summary.saved_estimated_tokens += t.saved_estimated_tokens;
			}
			const pg: { next_cursor?: string; has_more: boolean } = { has_more: page.nextCursor !== null };
			if (page.nextCursor !== null) pg.next_cursor = page.nextCursor;
			return { data: page.items.map(tokenSavingView), summary, pagination: pg };
		},
	);

	app.get(
		'/v2/token-savings',
		{
			config: { auth: 'read' },
			schema: {
				querystring: {
					type: 'object',
					properties: {
						page_size: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
						cursor: str,
						runtime_id: str,
						method: str,
					},
				},
			},
		},
		async (req) => {
			const q = query<{ page_size: number; cursor?: string; runtime_id?: string; method?: string }>(req);
			let rows = [...emu.data.tokenSavings];
			if (q.runtime_id) rows = rows.filter((t) => t.runtime_id === q.runtime_id);
			if (q.method) rows = rows.filter((t) => t.methods.some((m) => m.method === q.method));
			rows.sort((a, b) => b.observed_unix_ms - a.observed_unix_ms);
			const totals = { applied_events: rows.length, saved_wire_bytes: 0, saved_estimated_tokens: 0 };
			for (const t of rows) {
				totals.saved_wire_bytes += t.saved_wire_bytes;
				totals.saved_estimated_tokens += t.saved_estimated_tokens;
			}
			const page = paginate(rows, (t) => t.id, q.page_size, q.cursor);
			return {
				data: {
					events: page.items.map((t) => ({
						id: t.id,
						event_id: t.event_id,
						runtime_id: t.runtime_id,
						runtime_name: t.runtime_name,
						observed_at: t.observed_at,
						saved_wire_bytes: t.saved_wire_bytes,
						saved_estimated_tokens: t.saved_estimated_tokens,
						methods: t.methods.map((m) => ({ method: m.method })),
					})),
					totals,
					pagination: pagination(page.nextCursor),
				},
			};
		},
	);

	// ---- images, builds, checkpoints -------------------------------------------------------------
	app.get('/v2/images', { config: { auth: 'read' } }, async () => ({
		data: emu.data.images.map((i) => ({ ...i, in_use: emu.data.runtimes.some((r) => r.image_id === i.id) })),
	}));

	app.delete(
		'/v2/images/:image_id',
		{ config: { auth: 'write' }, schema: { params: { type: 'object', required: ['image_id'], properties: { image_id: str } } } },
		async (req) => {
			const id = params<{ image_id: string }>(req).image_id;
			const img = emu.data.images.find((i) => i.id === id);
			if (!img) throw notFound('image', id);
			if (img.kind === 'builtin') throw conflict(`image ${id} is built in and cannot be deleted`);
			const user = emu.data.runtimes.find((r) => r.image_id === id);
			if (user) throw conflict(`image ${id} is in use by runtime ${user.display_name}`);
			emu.data.images = emu.data.images.filter((i) => i !== img);
			emu.mutation('images.delete');
			return { data: {} };
		},
	);

	const buildView = (b: BuildRow): Record<string, unknown> => {
		const { dockerfile: _d, idempotency_key: _k, next_at: _n, step_ms: _s, ...pub } = b;
		return { ...pub, attempts: b.attempts.map((a) => ({ ...a })) };
	};

	app.get(
		'/v2/images/builds',
		{ config: { auth: 'read' }, schema: { querystring: limitQuery(1, 100, 50, { after: str }) } },
		async (req) => {
			const q = query<{ limit: number; after?: string }>(req);
			const rows = [...emu.data.builds].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
			const page = paginate(rows, (b) => b.id, q.limit, q.after, 'after');
			return { data: page.items.map(buildView), pagination: pagination(page.nextCursor) };
		},
	);

	app.post(
		'/v2/images/builds',
		{
			config: { auth: 'write' },
			schema: {
				headers: { type: 'object', properties: { 'idempotency-key': { type: 'string', minLength: 1, maxLength: 255 } } },
				body: {
					type: 'object',
					required: ['display_name', 'dockerfile'],
					properties: {
						display_name: str,
						dockerfile: { type: 'string', minLength: 1 },
						architecture: { type: 'string', enum: ['x86_64'] },
					},
				},
			},
		},
		async (req) => {
			const key = req.headers['idempotency-key'];
			const idem = typeof key === 'string' ? key : undefined;
			if (idem) {
				const prior = emu.data.builds.find((b) => b.idempotency_key === idem);
				if (prior) return { data: buildView(prior) };
			}
			const b = body<{ display_name: string; dockerfile: string; architecture?: 'x86_64' }>(req);
			const now = emu.now();
			const build: BuildRow = {
				id: uuid(),
				display_name: checkName('display_name', b.display_name),
				architecture: b.architecture ?? 'x86_64',
				status: 'pending',
				image_id: null,
				attempts: [],
				created_at: nowIso(now),
				updated_at: nowIso(now),
				dockerfile: b.dockerfile,
				idempotency_key: idem,
				next_at: now + BUILD_STEP_MS,
			};
			emu.data.builds.push(build);
			emu.mutation('images.builds.create');
			return { data: buildView(build) };
		},
	);

	app.get(
		'/v2/images/builds/:build_id',
		{ config: { auth: 'read' }, schema: { params: { type: 'object', required: ['build_id'], properties: { build_id: str } } } },
		async (req) => {
			const id = checkUuid('build_id', params<{ build_id: string }>(req).build_id);
			const b = emu.data.builds.find((x) => x.id === id);
			if (!b) throw notFound('image build', id);
			return { data: buildView(b) };
		},
	);

	app.get(
		'/v2/checkpoints',
		{ config: { auth: 'read' }, schema: { querystring: limitQuery(1, 100, 50, { cursor: str }) } },
		async (req) => {
			const q = query<{ limit: number; cursor?: string }>(req);
			const rows = [...emu.data.checkpoints].sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0));
			const page = paginate(rows, (c) => c.id, q.limit, q.cursor);
			return { data: page.items.map(({ settle: _s, ...c }) => structuredClone(c)), pagination: pagination(page.nextCursor) };
		},
	);

	// ---- secrets and stubs -----------------------------------------------------------------------
	const secretParams = { type: 'object', required: ['secret_id'], properties: { secret_id: str } } as const;
	app.get('/v2/secrets/:secret_id', { config: { auth: 'read' }, schema: { params: secretParams } }, async (req) => ({
		data: secretView(emu.secret(params<{ secret_id: string }>(req).secret_id)),
	}));

	app.delete('/v2/secrets/:secret_id', { config: { auth: 'write' }, schema: { params: secretParams } }, async (req) => {
		const s = emu.secret(params<{ secret_id: string }>(req).secret_id);
		emu.data.secrets = emu.data.secrets.filter((x) => x !== s);
		for (const rt of emu.data.runtimes) {
			if (rt.secret_configuration.some((c) => c.secret_id === s.id)) {
				rt.secret_configuration = rt.secret_configuration.filter((c) => c.secret_id !== s.id);
				emu.bumpRuntime(rt);
			}
		}
		emu.mutation('secrets.delete');
		return { data: {} };
	});

	app.post(
		'/v1/runtimes/:runtime_id/secret-stubs',
		{
			config: { auth: 'write' },
			schema: {
				params: runtimeParams,
				body: {
					type: 'object',
					required: ['host', 'config', 'stub_value'],
					properties: {
						host: { type: 'string', minLength: 1, maxLength: 253 },
						config: {
							type: 'object',
							properties: {
								headerName: { type: 'string', minLength: 1 },
								filePath: { type: 'string', minLength: 1 },
								paramFormat: str,
								paramName: { type: 'string', minLength: 1 },
								value: str,
								valueFormat: str,
							},
						},
						path: { type: ['string', 'null'] },
						stub_value: { type: 'string', minLength: 1 },
					},
				},
			},
		},
		async (req) => {
			const rt = emu.runtime(params<{ runtime_id: string }>(req).runtime_id);
			manage(emu, req, rt, 'add secret stubs to it');
			const b = body<{ host: string; config: Record<string, unknown>; path?: string | null; stub_value: string }>(req);
			const c = b.config;
			if (c.headerName === undefined && c.paramName === undefined && c.filePath === undefined) {
				throw invalid('config: must contain headerName (header), paramName (query) or filePath (file)');
			}
			if (typeof c.filePath === 'string' && !c.filePath.startsWith('/')) {
				throw invalid('config.filePath: must be an absolute runtime file path');
			}
			const secret = UUID_RE.test(b.stub_value)
				? emu.data.secrets.find((s) => s.id === b.stub_value)
				: emu.data.secrets.find((s) => s.display_name === b.stub_value);
			if (!secret) throw invalid(`stub_value: no secret with id or display name ${JSON.stringify(b.stub_value)}`);
			const stub = {
				id: uuid(),
				runtime_id: rt.id,
				host_pattern: b.host,
				path_pattern: b.path ?? '*',
				runtime_display_name: rt.display_name,
				stub_config_json: JSON.stringify(c),
				stub_value_display_name: secret.display_name,
			};
			emu.data.stubs.push(stub);
			emu.mutation('secret_stubs.create');
			return { data: stubView(stub) };
		},
	);

	app.delete(
		'/v1/runtimes/:runtime_id/secret-stubs/:stub_id',
		{
			config: { auth: 'write' },
			schema: { params: { type: 'object', required: ['runtime_id', 'stub_id'], properties: { runtime_id: str, stub_id: str } } },
		},
		async (req) => {
			const p = params<{ runtime_id: string; stub_id: string }>(req);
			const rt = emu.runtime(p.runtime_id);
			manage(emu, req, rt, 'delete its secret stubs');
			const stub = emu.data.stubs.find((s) => s.id === p.stub_id && s.runtime_id === rt.id);
			if (!stub) throw notFound('secret stub', p.stub_id);
			emu.data.stubs = emu.data.stubs.filter((s) => s !== stub);
			emu.mutation('secret_stubs.delete');
			return { data: {} };
		},
	);

	app.get('/v1/secret-stubs', { config: { auth: 'read' } }, async () => ({ data: emu.data.stubs.map(stubView) }));

	app.delete(
		'/v1/secret-stubs/:stub_id',
		{ config: { auth: 'write' }, schema: { params: { type: 'object', required: ['stub_id'], properties: { stub_id: str } } } },
		async (req) => {
			const id = checkUuid('stub_id', params<{ stub_id: string }>(req).stub_id);
			const stub = emu.data.stubs.find((s) => s.id === id);
			if (!stub) throw notFound('secret stub', id);
			const rt = emu.data.runtimes.find((r) => r.id === stub.runtime_id);
			if (rt) manage(emu, req, rt, 'delete its secret stubs');
			emu.data.stubs = emu.data.stubs.filter((s) => s !== stub);
			emu.mutation('secret_stubs.delete');
			return { data: {} };
		},
	);

	// ---- SSH keys, GitHub ------------------------------------------------------------------------
	app.delete(
		'/v2/ssh-keys/:ssh_key_id',
		{ config: { auth: 'write' }, schema: { params: { type: 'object', required: ['ssh_key_id'], properties: { ssh_key_id: str } } } },
		async (req) => {
			const id = params<{ ssh_key_id: string }>(req).ssh_key_id;
			const key = emu.data.sshKeys.find((k) => k.id === id && k.user_id === req.caller.userId);
			if (!key) throw notFound('SSH key of the current user', id);
			emu.data.sshKeys = emu.data.sshKeys.filter((k) => k !== key);
			for (const rt of emu.data.runtimes) {
				if (rt.ssh_key_ids.includes(key.id)) {
					rt.ssh_key_ids = rt.ssh_key_ids.filter((k) => k !== key.id);
					emu.bumpRuntime(rt);
				}
			}
			emu.mutation('ssh_keys.delete');
			return { data: { ...key } };
		},
	);

	app.get('/v2/github/authorization-requests', { config: { auth: 'read' } }, async () => {
		const now = Math.floor(emu.now() / 1000);
		return {
			data: {
				requests: emu.data.githubRequests.filter((r) => r.lifecycle.expires_at_unix_seconds > now).map((r) => structuredClone(r)),
			},
		};
	});

	app.put(
		'/v2/github/runtime-bindings/:runtime_id',
		{
			config: { auth: 'write' },
			schema: {
				params: runtimeParams,
				body: {
					type: 'object',
					required: ['repositories'],
					properties: {
						repositories: {
							type: 'array',
							maxItems: 100,
							items: {
								type: 'object',
								required: ['repository_id', 'branch'],
								properties: {
									repository_id: { type: 'integer', minimum: 1 },
									branch: { type: 'string', minLength: 1, maxLength: 255 },
								},
							},
						},
					},
				},
			},
		},
		async (req) => {
			const rt = emu.runtime(params<{ runtime_id: string }>(req).runtime_id);
			manage(emu, req, rt, 'change its GitHub bindings');
			const repos = body<{ repositories: { repository_id: number; branch: string }[] }>(req).repositories;
			// Atomic: every problem is found before anything changes.
			const seen = new Set<string>();
			const problems: FieldDetail[] = [];
			repos.forEach((r, i) => {
				const k = `${r.repository_id}@${r.branch}`;
				if (seen.has(k)) {
					problems.push({
						field: `repositories[${i}]`,
						message: `duplicate binding of repository ${r.repository_id} branch ${r.branch}`,
					});
				}
				if (r.branch.trim() !== r.branch || /[\s~^:?*[\\]|\.\.|^\/|\/$/.test(r.branch)) {
					problems.push({
						field: `repositories[${i}].branch`,
						message: `not a valid git branch name (got ${JSON.stringify(r.branch.slice(0, 80))})`,
					});
				}
				seen.add(k);
			});
			if (problems.length > 0) throw invalidFields(problems);
			rt.bindings = repos.map((r, i) => ({
				id: uuid(),
				tenant_id: emu.data.organization_id,
				runtime_id: rt.id,
				repository_id: r.repository_id,
				branch: r.branch,
				sort_order: i,
			}));
			emu.bumpRuntime(rt);
			emu.mutation('github.bindings.replace');
			return { data: { bindings: rt.bindings.map((b) => ({ ...b })) } };
		},
	);

	// ---- model providers -------------------------------------------------------------------------
	app.get('/v2/model-providers', { config: { auth: 'read' } }, async () => ({
		organization_id: emu.data.organization_id,
		model_providers: emu.data.modelProviders.map((p) => ({ ...p })),
	}));

	app.patch(
		'/v2/model-providers/:provider_id',
		{
			config: { auth: 'write' },
			schema: {
				params: { type: 'object', required: ['provider_id'], properties: { provider_id: str } },
				body: {
					type: 'object',
					required: ['display_name', 'endpoint', 'model', 'enabled'],
					properties: { display_name: str, endpoint: str, model: str, enabled: bool },
				},
			},
		},
		async (req) => {
			const id = params<{ provider_id: string }>(req).provider_id;
			const p = emu.data.modelProviders.find((x) => x.id === id);
			if (!p) throw notFound('model provider', id);
			const b = body<{ display_name: string; endpoint: string; model: string; enabled: boolean }>(req);
			const problems = checkProvider(emu, p, b);
			if (problems.length > 0) throw invalidFields(problems);
			const display = b.display_name.trim();
			const model = b.model.trim();
			Object.assign(p, { display_name: display, endpoint: b.endpoint, model, enabled: b.enabled, updated_at: nowIso() });
			emu.mutation('model_providers.update');
			return { ...p };
		},
	);
}
