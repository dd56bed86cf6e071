import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Emulator } from '../emulator';
import { ApiError, conflict, forbidden, invalid, notFound } from '../errors';
import { ulid, uuid } from '../ids';
import { streamRunEvents } from '../sse';
import type { AgentRow, RuntimeRow } from '../state';
import { TERMINAL } from '../state';
import { base64DecodedLength, decodeBase64, nowIso, paginate } from '../util';
import { artifactView, agentView, runView } from '../views';
import type { PromptImage } from '../validate';
import { checkArtifactName, checkIdent, checkImages, checkName, checkPrompt, checkUuid, OUTPUT_CAP_BYTES } from '../validate';
import { MAX_SEARCH_BYTES, MAX_WRITE_BYTES, normalizePath } from '../workspace';
import { agentOf, agentParams, body, bool, limitQuery, params, query, str } from './common';

const MiB = 1024 * 1024;
const RUN_BODY_LIMIT = 72 * MiB;
const FILE_BODY_LIMIT = 48 * MiB;

const imagesSchema = {
	type: 'array',
	items: {
		type: 'object',
		required: ['data'],
		properties: { data: str, media_type: str },
	},
} as const;

function slug(s: string): string {
	return (
		s
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '-')
			.replace(/^-+|-+$/g, '')
			.slice(0, 24) || 'agent'
	);
}

function requireReady(emu: Emulator, agent: AgentRow): RuntimeRow {
	const rt = emu.data.runtimes.find((r) => r.id === agent.runtime_id);
	if (!rt) throw notFound('runtime', agent.runtime_id);
	if (agent.status === 'provisioning' || rt.status === 'creating') {
		throw conflict(`agent ${agent.id}: runtime initialization is pending; retry when the agent is idle`);
	}
	if (rt.status === 'paused' || rt.status === 'suspended') {
		throw conflict(`runtime ${rt.display_name} is ${rt.status}; resume it before starting runs`);
	}
	// Only a paused or suspended runtime can be resumed: one in error or crashed is not told to.
	if (rt.status !== 'running') throw conflict(`runtime ${rt.display_name} is ${rt.status}; only a running runtime starts runs`);
	return rt;
}

export function registerAgents(app: FastifyInstance, emu: Emulator): void {
	// ---- agents --------------------------------------------------------------------------------
	app.get(
		'/v2/agents',
		{
			config: { auth: 'read' },
			schema: { querystring: limitQuery(1, 100, 50, { cursor: str }) },
		},
		async (req) => {
			const q = query<{ limit: number; cursor?: string }>(req);
			const sorted = [...emu.data.agents].sort((a, b) => b.created_at_ms - a.created_at_ms || (a.id < b.id ? 1 : -1));
			const page = paginate(sorted, (a) => a.id, q.limit, q.cursor);
			return { agents: page.items.map(agentView), next_cursor: page.nextCursor };
		},
	);

	app.post(
		'/v2/agents',
		{
			config: { auth: 'write' },
			schema: {
				body: {
					type: 'object',
					required: ['name'],
					properties: {
						name: str,
						initial_message: str,
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
						runtime_id: str,
						harness_id: str,
						model_provider_id: str,
					},
				},
			},
		},
		async (req, reply) => {
			const b = body<{
				name: string;
				initial_message?: string;
				repositories?: { repository_id: number; branch: string }[];
				runtime_id?: string;
				harness_id?: string;
				model_provider_id?: string;
			}>(req);
			const name = checkName('name', b.name);
			const initial = b.initial_message !== undefined ? checkPrompt(b.initial_message, 0, 'initial_message') : undefined;
			const harness = b.harness_id !== undefined ? checkIdent('harness_id', b.harness_id) : undefined;
			if (b.model_provider_id !== undefined && !emu.data.modelProviders.some((p) => p.id === b.model_provider_id)) {
				throw invalid(`model_provider_id: unknown model provider ${JSON.stringify(b.model_provider_id)}`);
			}
			const repos = b.repositories ?? [];
			const now = Date.now();
			// Provisioning moves on the emulator clock (held, advanced), as tick() reads it; the records' own times are wall times.
			const clock = emu.now();
			let rt: RuntimeRow;
			let harnessId: string;
			if (b.runtime_id !== undefined) {
				checkUuid('runtime_id', b.runtime_id);
				rt = emu.runtime(b.runtime_id);
				if (!emu.canManage(rt, req.caller)) {
					throw forbidden(`runtime ${rt.display_name}: you may not add agents to a runtime you cannot manage`);
				}
				if (repos.length > 0) throw invalid('repositories: must be empty when adding an agent to an existing runtime');
				if (rt.status === 'deleting') throw conflict(`runtime ${rt.display_name} is being deleted`);
				const siblings = emu.data.agents.filter((a) => a.runtime_id === rt.id);
				const provider = siblings.find((a) => a.model_provider_id)?.model_provider_id;
				if (provider && b.model_provider_id && provider !== b.model_provider_id) {
					throw invalid(
						`model_provider_id: runtime ${rt.display_name} uses provider ${provider}; a different provider needs a fresh runtime`,
					);
				}
				harnessId = harness ?? `h_${ulid(now).slice(-12).toLowerCase()}`;
				if (siblings.some((a) => a.harness_id === harnessId)) {
					throw new ApiError('already_exists', `harness_id: ${harnessId} already exists on runtime ${rt.display_name}`);
				}
			} else {
				const tmpl = emu.data.runtimes.find((r) => r.status === 'running' && r.owner_user_id === req.caller.userId);
				const iso = nowIso(now);
				rt = {
					id: uuid(),
					display_name: `${slug(name)}-${ulid(now).slice(-4).toLowerCase()}`,
					environment_variables: {},
					egress_policy: { mode: 'denylist', denied_hosts: [] },
					llm_tool_io_capture_enabled: true,
					llm_session_content_capture_enabled: false,
					llm_token_saving_policy: {
						json_array_enabled: true,
						log_enabled: true,
						search_results_enabled: true,
						git_diff_enabled: false,
					},
					idle_policy: { mode: 'disabled' },
					created_at: iso,
					updated_at: iso,
					ingress_specs: [],
					resources: tmpl
						? structuredClone(tmpl.resources)
						: {
								current: { memory_mib: 8192, observed_disk_gib: 64 },
								limits: { memory_mib: 16384 },
								requests: { memory_mib: 8192, vcpus: 4, disk_gib: 64 },
							},
					image_id: emu.data.images.find((i) => i.kind === 'builtin')?.id ?? 'img_standard',
					status: 'creating',
					desired_status: 'running',
					ssh_enabled: true,
					vnc_enabled: false,
					vnc_ready: false,
					vnc_error_code: null,
					vnc_connection: { hostname: 'vnc.cloud-agents.example', port: 5901, username: 'service', security_type: 'X509Plain' },
					error_code: null,
					owner_user_id: req.caller.userId,
					revision: 1,
					secret_configuration: [],
					heartbeat_stalled: false,
					ssh_key_ids: [],
					vnc_credentials: [],
					bindings: repos.map((r, i) => ({
						id: uuid(),
						tenant_id: emu.data.organization_id,
						runtime_id: '',
						repository_id: r.repository_id,
						branch: r.branch,
						sort_order: i,
					})),
					pending: { status: 'running', at: clock + 800 },
				};
				rt.vnc_connection.hostname = `${rt.display_name}.vnc.cloud-agents.example`;
				for (const bd of rt.bindings) bd.runtime_id = rt.id;
				emu.data.runtimes.push(rt);
				harnessId = harness ?? emu.profile.agentIds.defaultHarness;
			}
			const agent: AgentRow = {
				id: emu.profile.agentIds.make(rt.id, harnessId),
				runtime_id: rt.id,
				harness_id: harnessId,
				name,
				status: 'provisioning',
				created_at_ms: now,
				updated_at_ms: now,
				repositories: repos,
				model_provider_id: b.model_provider_id,
				ready_at: clock + 1000,
				initial_message: initial,
			};
			emu.data.agents.push(agent);
			emu.mutation('agents.create');
			reply.code(201);
			return agentView(agent);
		},
	);

	app.get('/v2/agents/:agent_id', { config: { auth: 'read' }, schema: { params: agentParams } }, async (req) =>
		agentView(agentOf(emu, req)),
	);

	app.patch(
		'/v2/agents/:agent_id',
		{
			config: { auth: 'write' },
			schema: { params: agentParams, body: { type: 'object', required: ['name'], properties: { name: str } } },
		},
		async (req) => {
			const agent = agentOf(emu, req);
			agent.name = checkName('name', body<{ name: string }>(req).name);
			agent.updated_at_ms = emu.activityClock();
			emu.mutation('agents.rename');
			return agentView(agent);
		},
	);

	app.delete(
		'/v2/agents/:agent_id',
		{
			config: { auth: 'write' },
			schema: {
				params: agentParams,
				querystring: { type: 'object', properties: { delete_runtime: { type: 'boolean', default: false } } },
			},
		},
		async (req, reply) => {
			const agent = agentOf(emu, req);
			const { delete_runtime } = query<{ delete_runtime: boolean }>(req);
			const rt = emu.data.runtimes.find((r) => r.id === agent.runtime_id);
			const siblings = emu.data.agents.filter((a) => a.runtime_id === agent.runtime_id && a !== agent);
			if (delete_runtime && rt && siblings.length === 0) {
				if (!emu.canManage(rt, req.caller)) {
					throw forbidden(`runtime ${rt.display_name}: you may not delete a runtime you cannot manage`);
				}
				emu.removeAgent(agent);
				if (rt.status !== 'deleting') {
					rt.status = 'deleting';
					rt.desired_status = 'deleting';
					rt.pending = undefined;
					rt.delete_at = emu.now() + 1500;
					emu.bumpRuntime(rt);
				}
				emu.mutation('agents.delete');
				reply.code(202);
				return { runtime_id: rt.id, status: 'deletion_requested' };
			}
			emu.removeAgent(agent);
			emu.mutation('agents.delete');
			reply.code(204);
			return reply.send();
		},
	);

	app.post(
		'/v2/agents/:agent_id/computer-sessions',
		{
			config: { auth: 'write', optionalBody: true },
			schema: { params: agentParams },
		},
		async (req, reply) => {
			const agent = agentOf(emu, req);
			const rt = requireReady(emu, agent);
			if (!rt.vnc_enabled) {
				if (!emu.canManage(rt, req.caller)) {
					throw forbidden(`runtime ${rt.display_name}: enabling the VNC desktop needs a runtime you can manage`);
				}
				rt.vnc_enabled = true;
				rt.vnc_ready = true;
				emu.bumpRuntime(rt);
			}
			const now = Date.now();
			const session = {
				id: `cs_${ulid(now)}`,
				agent_id: agent.id,
				runtime_id: rt.id,
				token: ulid(now).toLowerCase() + ulid(now).toLowerCase(),
				expires_ms: now + 5 * 60_000,
			};
			emu.data.computerSessions.push(session);
			emu.mutation('computer_sessions.create');
			reply.code(201);
			return {
				agent_id: agent.id,
				runtime_id: rt.id,
				expires_at: nowIso(session.expires_ms),
				channels: {
					vnc: {
						websocket_url: `${emu.baseUrl.replace(/^http/, 'ws')}/_emulator/vnc/${session.id}`,
						protocols: ['binary', `session.${session.token}`],
					},
				},
			};
		},
	);

	// ---- runs ------------------------------------------------------------------------------------
	const runParams = { type: 'object', required: ['agent_id', 'run_id'], properties: { agent_id: str, run_id: str } } as const;
	const runOf = (req: FastifyRequest) => {
		const agent = agentOf(emu, req);
		const runId = checkIdent('run_id', params<{ run_id: string }>(req).run_id);
		return { agent, run: emu.run(agent, runId) };
	};

	app.get(
		'/v2/agents/:agent_id/runs',
		{
			config: { auth: 'read' },
			schema: { params: agentParams, querystring: limitQuery(1, 500, 100) },
		},
		async (req) => {
			const agent = agentOf(emu, req);
			const { limit } = query<{ limit: number }>(req);
			return emu.data.runs
				.filter((r) => r.agent_id === agent.id)
				.sort((a, b) => b.created_ms - a.created_ms || (a.id < b.id ? 1 : -1))
				.slice(0, limit)
				.map(runView);
		},
	);

	app.post(
		'/v2/agents/:agent_id/runs',
		{
			config: { auth: 'write' },
			bodyLimit: RUN_BODY_LIMIT,
			schema: {
				params: agentParams,
				body: {
					type: 'object',
					required: ['prompt'],
					properties: { prompt: str, resume_session_id: str, parent_run_id: str, images: imagesSchema },
				},
			},
		},
		async (req, reply) => {
			const agent = agentOf(emu, req);
			const b = body<{ prompt?: string; resume_session_id?: string; parent_run_id?: string; images?: PromptImage[] }>(req);
			const imageCount = checkImages(b.images);
			const prompt = checkPrompt(b.prompt, imageCount);
			if (b.resume_session_id !== undefined) {
				checkIdent('resume_session_id', b.resume_session_id);
				if (!emu.data.runs.some((r) => r.agent_id === agent.id && r.dsh_session_id === b.resume_session_id)) {
					throw notFound('session', b.resume_session_id);
				}
			}
			if (b.parent_run_id !== undefined) emu.run(agent, checkIdent('parent_run_id', b.parent_run_id));
			requireReady(emu, agent);
			const active = emu.runs.activeRun(agent.id);
			if (active) {
				throw conflict(
					`another run of agent ${agent.id} is still active (${active.id} is ${active.status}); send a follow-up to steer it or cancel it first`,
				);
			}
			const run = emu.runs.create(agent, { prompt, imageCount, parentRunId: b.parent_run_id, sessionId: b.resume_session_id });
			emu.mutation('runs.create');
			reply.code(202);
			return runView(run);
		},
	);

	app.get('/v2/agents/:agent_id/runs/:run_id', { config: { auth: 'read' }, schema: { params: runParams } }, async (req) =>
		runView(runOf(req).run),
	);

	app.delete('/v2/agents/:agent_id/runs/:run_id', { config: { auth: 'write' }, schema: { params: runParams } }, async (req) => {
		const { run } = runOf(req);
		if (!TERMINAL.has(run.status)) {
			emu.runs.cancel(run);
			emu.mutation('runs.cancel');
		}
		return runView(run);
	});

	app.post(
		'/v2/agents/:agent_id/runs/:run_id/resume',
		{
			config: { auth: 'write', optionalBody: true },
			schema: { params: runParams, body: { type: 'object', properties: { prompt: str } } },
		},
		async (req, reply) => {
			const { agent, run } = runOf(req);
			const b = body<{ prompt?: string }>(req);
			const prompt = b.prompt !== undefined && b.prompt.trim() !== '' ? checkPrompt(b.prompt, 0) : 'Continue.';
			if (!run.dsh_session_id) {
				throw new ApiError(
					'failed_precondition',
					`run ${run.id} has no resumable session (setup failed or the reply was synthetic); start a new run or send a follow-up`,
					{ status: 422 },
				);
			}
			requireReady(emu, agent);
			const active = emu.runs.activeRun(agent.id);
			if (active) {
				throw conflict(
					`another run of agent ${agent.id} is still active (${active.id} is ${active.status}); wait for it to finish or cancel it`,
				);
			}
			const next = emu.runs.create(agent, { prompt, imageCount: 0, parentRunId: run.id, sessionId: run.dsh_session_id });
			emu.mutation('runs.resume');
			reply.code(202);
			return runView(next);
		},
	);

	app.post(
		'/v2/agents/:agent_id/runs/:run_id/follow-ups',
		{
			config: { auth: 'write' },
			bodyLimit: RUN_BODY_LIMIT,
			schema: {
				params: runParams,
				body: { type: 'object', required: ['prompt'], properties: { prompt: str, images: imagesSchema } },
			},
		},
		async (req, reply) => {
			const { agent, run } = runOf(req);
			const b = body<{ prompt: string; images?: PromptImage[] }>(req);
			const imageCount = checkImages(b.images);
			const prompt = checkPrompt(b.prompt, imageCount);
			const active = emu.runs.activeRun(agent.id);
			reply.code(202);
			if (active) {
				emu.runs.steer(active, prompt);
				emu.mutation('runs.follow_up');
				return runView(active);
			}
			requireReady(emu, agent);
			const next = emu.runs.create(agent, { prompt, imageCount, parentRunId: run.id, sessionId: run.dsh_session_id });
			emu.mutation('runs.follow_up');
			return runView(next);
		},
	);

	app.get(
		'/v2/agents/:agent_id/runs/:run_id/events',
		{
			config: { auth: 'read' },
			schema: {
				params: runParams,
				querystring: { type: 'object', properties: { after: { type: 'integer', minimum: -1, default: -1 } } },
			},
		},
		async (req, reply) => {
			const { run } = runOf(req);
			const { after } = query<{ after: number }>(req);
			streamRunEvents(emu, req, reply, run, after);
			return reply;
		},
	);

	app.get(
		'/v2/agents/:agent_id/events',
		{
			config: { auth: 'read' },
			schema: {
				params: agentParams,
				querystring: { type: 'object', properties: { session_id: str, after: { type: 'integer', minimum: -1, default: -1 } } },
			},
		},
		async (req) => {
			const agent = agentOf(emu, req);
			const q = query<{ session_id?: string; after: number }>(req);
			const runs = emu.data.runs
				.filter((r) => r.agent_id === agent.id && r.dsh_session_id)
				.sort((a, b) => b.created_ms - a.created_ms);
			let sessionId = q.session_id;
			if (sessionId !== undefined) {
				checkIdent('session_id', sessionId);
				if (!runs.some((r) => r.dsh_session_id === sessionId)) throw notFound('session', sessionId);
			} else {
				sessionId = runs[0]?.dsh_session_id;
				if (sessionId === undefined) return { agent_id: agent.id, session_id: null, events: [] };
			}
			// Session replay does not aggregate runs: the session's newest run is replayed.
			const run = runs.find((r) => r.dsh_session_id === sessionId)!;
			const events = run.events.filter((e) => e.seq > q.after);
			const out = { agent_id: agent.id, session_id: sessionId, events };
			let size = 0;
			for (const e of events) size += JSON.stringify(e).length + 1;
			if (size > OUTPUT_CAP_BYTES) {
				throw new ApiError(
					'failed_precondition',
					`events: the replay would be ${size} bytes, over the ${OUTPUT_CAP_BYTES} byte (2 MiB) output cap; stream /runs/${run.id}/events instead or pass a later after`,
					{ status: 422 },
				);
			}
			return out;
		},
	);

	// ---- artifacts -------------------------------------------------------------------------------
	const artParams = { type: 'object', required: ['agent_id', 'artifact_id'], properties: { agent_id: str, artifact_id: str } } as const;
	const artifactOf = (req: FastifyRequest) => {
		const agent = agentOf(emu, req);
		const id = checkIdent('artifact_id', params<{ artifact_id: string }>(req).artifact_id);
		const art = emu.data.artifacts.find((a) => a.id === id && a.agent_id === agent.id);
		if (!art) throw notFound('artifact', id);
		return art;
	};

	app.get('/v2/agents/:agent_id/artifacts', { config: { auth: 'read' }, schema: { params: agentParams } }, async (req) => {
		const agent = agentOf(emu, req);
		return emu.data.artifacts
			.filter((a) => a.agent_id === agent.id)
			.sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : a.id < b.id ? 1 : -1))
			.map((a) => artifactView(a));
	});

	app.post(
		'/v2/agents/:agent_id/artifacts',
		{
			config: { auth: 'write' },
			bodyLimit: FILE_BODY_LIMIT,
			schema: {
				params: agentParams,
				body: {
					type: 'object',
					required: ['run_id', 'name', 'content_base64'],
					properties: {
						run_id: str,
						name: str,
						media_type: { type: 'string', minLength: 1, maxLength: 255 },
						content_base64: str,
					},
				},
			},
		},
		async (req, reply) => {
			const agent = agentOf(emu, req);
			const b = body<{ run_id: string; name: string; media_type?: string; content_base64: string }>(req);
			const name = checkArtifactName(b.name);
			const decodedLen = base64DecodedLength(b.content_base64);
			if (decodedLen > MAX_WRITE_BYTES) {
				throw new ApiError(
					'invalid_argument',
					`content_base64: decoded content must be at most ${MAX_WRITE_BYTES} bytes (32 MiB); got ${decodedLen}`,
					{ status: 413 },
				);
			}
			const content = decodeBase64('content_base64', b.content_base64);
			const run = emu.run(agent, checkIdent('run_id', b.run_id));
			emu.checkStorage(content.length);
			const art = {
				id: `art_${ulid()}`,
				agent_id: agent.id,
				run_id: run.id,
				harness_id: agent.harness_id,
				name,
				media_type: b.media_type ?? 'application/octet-stream',
				created_at: nowIso(),
				content,
			};
			emu.data.artifacts.push(art);
			emu.mutation('artifacts.create');
			reply.code(201);
			return artifactView(art);
		},
	);

	app.get(
		'/v2/agents/:agent_id/artifacts/:artifact_id',
		{
			config: { auth: 'read' },
			schema: { params: artParams, querystring: { type: 'object', properties: { include_content: { ...bool, default: false } } } },
		},
		async (req) => {
			const art = artifactOf(req);
			const { include_content } = query<{ include_content: boolean }>(req);
			const view = artifactView(art, include_content);
			if (include_content) {
				const size = JSON.stringify(view).length;
				if (size > OUTPUT_CAP_BYTES) {
					throw new ApiError(
						'failed_precondition',
						`content_base64: artifact ${art.name} (${art.content.length} bytes) does not fit the ${OUTPUT_CAP_BYTES} byte (2 MiB) output cap with its encoded content; read it without include_content`,
						{ status: 422 },
					);
				}
			}
			return view;
		},
	);

	app.delete(
		'/v2/agents/:agent_id/artifacts/:artifact_id',
		{ config: { auth: 'write' }, schema: { params: artParams } },
		async (req, reply) => {
			const art = artifactOf(req);
			emu.data.artifacts = emu.data.artifacts.filter((a) => a !== art);
			emu.mutation('artifacts.delete');
			reply.code(204);
			return reply.send();
		},
	);

	// ---- workspace -------------------------------------------------------------------------------
	app.post(
		'/v2/agents/:agent_id/workspace',
		{
			config: { auth: 'read' },
			schema: {
				params: agentParams,
				body: {
					type: 'object',
					required: ['op'],
					properties: {
						op: { type: 'string', enum: ['list', 'stat', 'read', 'search'] },
						path: str,
						cursor: str,
						limit: { type: 'integer', minimum: 1, maximum: 10000 },
						offset: { type: 'integer', minimum: 0 },
						length: { type: 'integer', minimum: 1, maximum: 1048576 },
						query: str,
						max_results: { type: 'integer', minimum: 1, maximum: 1000 },
						case_sensitive: bool,
					},
				},
			},
		},
		async (req) => {
			const agent = agentOf(emu, req);
			const ws = emu.workspace(agent.id);
			const b = body<{
				op: 'list' | 'stat' | 'read' | 'search';
				path?: string;
				cursor?: string;
				limit?: number;
				offset?: number;
				length?: number;
				query?: string;
				max_results?: number;
				case_sensitive?: boolean;
			}>(req);
			const path = normalizePath('path', b.path ?? '');
			emu.countWorkspaceOp(b.op, path);
			switch (b.op) {
				case 'list': {
					const page = paginate(ws.list(path), (e) => e.name, b.limit ?? 10000, b.cursor);
					return { op: 'list', path, entries: page.items, next_cursor: page.nextCursor };
				}
				case 'stat':
					return { op: 'stat', path, entry: ws.stat(path) };
				case 'read': {
					const offset = b.offset ?? 0;
					const r = ws.read(path, offset, b.length ?? 1048576);
					return {
						op: 'read',
						path,
						offset,
						length: r.data.length,
						size: r.size,
						mtime_unix_ms: r.mtime,
						eof: r.eof,
						content_base64: r.data.toString('base64'),
					};
				}
				case 'search': {
					if (b.query === undefined) throw invalid('query: is required for op "search"');
					const n = Buffer.byteLength(b.query, 'utf8');
					if (n < 1 || n > MAX_SEARCH_BYTES) throw invalid(`query: must be 1 to ${MAX_SEARCH_BYTES} bytes (got ${n})`);
					const r = ws.search(b.query, path, b.max_results ?? 200, b.case_sensitive ?? false);
					return { op: 'search', query: b.query, matches: r.matches, truncated: r.truncated };
				}
			}
		},
	);

	app.put(
		'/v2/agents/:agent_id/workspace/files',
		{
			config: { auth: 'write' },
			bodyLimit: FILE_BODY_LIMIT,
			schema: {
				params: agentParams,
				body: { type: 'object', required: ['path', 'content_base64'], properties: { path: str, content_base64: str } },
			},
		},
		async (req) => {
			const agent = agentOf(emu, req);
			const b = body<{ path: string; content_base64: string }>(req);
			const path = normalizePath('path', b.path);
			const decodedLen = base64DecodedLength(b.content_base64);
			if (decodedLen > MAX_WRITE_BYTES) {
				throw new ApiError(
					'invalid_argument',
					`content_base64: decoded content must be at most ${MAX_WRITE_BYTES} bytes (32 MiB); got ${decodedLen}`,
					{ status: 413 },
				);
			}
			const data = decodeBase64('content_base64', b.content_base64);
			emu.checkStorage(data.length);
			const out = emu.workspace(agent.id).write(path, data);
			emu.mutation('workspace.write');
			return out;
		},
	);

	app.delete(
		'/v2/agents/:agent_id/workspace/files',
		{
			config: { auth: 'write' },
			schema: { params: agentParams, body: { type: 'object', required: ['path'], properties: { path: str, recursive: bool } } },
		},
		async (req, reply) => {
			const agent = agentOf(emu, req);
			const b = body<{ path: string; recursive?: boolean }>(req);
			emu.workspace(agent.id).delete(normalizePath('path', b.path), b.recursive ?? false);
			emu.mutation('workspace.delete');
			reply.code(204);
			return reply.send();
		},
	);
}
