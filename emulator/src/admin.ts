import type { FastifyInstance } from 'fastify';
import type { Emulator } from './emulator';
import { ApiError, conflict, invalid, notFound } from './errors';
import { parseRules } from './faults';
import { ACCESS_TOKEN_TTL_SECONDS, normalizeUserCode } from './routes/auth';
import { randomToken, sha256, uuid } from './ids';
import { secretView } from './views';
import { CURRENT_USER_ID } from './seed';
import { decodeBase64, nowIso } from './util';
import { checkAgentId } from './validate';
import { normalizePath } from './workspace';
import { type AgentStatus, type GithubRequestRow, RUNTIME_STATUSES, type RunStatus, type RuntimeStatus, TERMINAL } from './state';
import { MAX_CONTENT_DUMP_BYTES, MAX_SEED_FILES, netChanges, runChanges, seedTree } from './changes';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, inner: string): string {
	return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem}input{font-size:1.4rem;letter-spacing:.2rem;text-transform:uppercase;width:12rem}button{font-size:1rem;margin:.5rem .5rem 0 0}</style>
</head><body><h1>${esc(title)}</h1>${inner}</body></html>`;
}

export function registerAdmin(app: FastifyInstance, emu: Emulator): void {
	const cfg = { auth: 'none' as const, admin: true };
	const objectBody = { type: 'object' } as const;

	app.get('/_emulator/counters', { config: cfg }, async () => emu.counters);
	app.post('/_emulator/counters/reset', { config: { ...cfg, optionalBody: true } }, async () => {
		emu.counters = {
			requests: { total: 0, by_route: {} },
			mutations: { total: 0, by_kind: {} },
			workspace: { by_op: {}, reads_by_path: {} },
		};
		return emu.counters;
	});

	app.get('/_emulator/faults', { config: cfg }, async () => ({ rules: emu.faults.list() }));
	app.put('/_emulator/faults', { config: cfg, schema: { body: objectBody } }, async (req) => {
		const rules = parseRules(req.body);
		if (typeof rules === 'string') throw invalid(rules);
		emu.faults.set(rules);
		return { rules: emu.faults.list() };
	});
	app.delete('/_emulator/faults', { config: cfg }, async () => {
		emu.faults.set([]);
		return { rules: [] };
	});

	const setDevice = (userCodeRaw: unknown, state: 'approved' | 'denied' | 'expired'): { user_code: string; state: string } => {
		if (typeof userCodeRaw !== 'string') throw invalid('user_code: is required');
		const userCode = normalizeUserCode(userCodeRaw);
		const d = emu.data.devices.find((x) => x.user_code === userCode);
		if (!d) throw notFound('device authorization with user code', userCode);
		if (state === 'expired') d.expires_ms = Date.now() - 1;
		else if (d.state === 'pending') d.state = state;
		else throw new ApiError('failed_precondition', `user code ${userCode} is already ${d.state}`);
		emu.markDirty();
		return { user_code: userCode, state: state === 'expired' ? 'expired' : d.state };
	};
	const userCodeBody = { type: 'object', required: ['user_code'], properties: { user_code: { type: 'string' } } } as const;
	app.post('/_emulator/device/approve', { config: cfg, schema: { body: userCodeBody } }, async (req) =>
		setDevice((req.body as { user_code: string }).user_code, 'approved'),
	);
	app.post('/_emulator/device/deny', { config: cfg, schema: { body: userCodeBody } }, async (req) =>
		setDevice((req.body as { user_code: string }).user_code, 'denied'),
	);
	app.post('/_emulator/device/expire', { config: cfg, schema: { body: userCodeBody } }, async (req) =>
		setDevice((req.body as { user_code: string }).user_code, 'expired'),
	);

	// A fresh full-access API key for the current user (the demo's way back after Sign Out revoked
	// the printed dev key: `npm run demo:key`). Loopback only, like every /_emulator/ route; the key
	// is returned once and only its digest is kept.
	app.post('/_emulator/keys', { config: { ...cfg, optionalBody: true } }, async (_req, reply) => {
		const key = randomToken('ca_demo_');
		const expiresMs = Date.now() + ACCESS_TOKEN_TTL_SECONDS * 1000;
		emu.data.tokens.push({
			hash: sha256(key),
			user_id: emu.data.users[0]?.id ?? CURRENT_USER_ID,
			can_write: true,
			revoked: false,
			expires_ms: expiresMs,
		});
		emu.markDirty();
		reply.code(201);
		return { api_key: key, expires_at: new Date(expiresMs).toISOString() };
	});

	// Revokes a token as the service's owner would (an admin, another window's Sign Out, an expiry):
	// its next request is answered 401. Works during an outage (the admin listener), unlike the public
	// `DELETE /v2/auth/token`. The token is given in the body and never answered or logged.
	app.post(
		'/_emulator/tokens/revoke',
		{
			config: cfg,
			schema: {
				body: { type: 'object', required: ['token'], properties: { token: { type: 'string', minLength: 1, maxLength: 4096 } } },
			},
		},
		async (req) => {
			const row = emu.data.tokens.find((t) => t.hash === sha256((req.body as { token: string }).token));
			if (!row) throw notFound('token', 'given');
			row.revoked = true;
			emu.markDirty();
			return { revoked: true };
		},
	);

	// ---- workspaces: "the agent" acts, and the ground truth tests compare with ------------------------
	const agentOf = (req: { params: unknown }) => emu.agent(checkAgentId((req.params as { agent_id: string }).agent_id, emu.profile));
	const mtimeProp = { type: 'integer', minimum: 0, maximum: 8_640_000_000_000_000 } as const;

	app.post(
		'/_emulator/workspace/:agent_id/write',
		{
			config: cfg,
			bodyLimit: 48 * 1024 * 1024,
			schema: {
				body: {
					type: 'object',
					required: ['path', 'content_base64'],
					properties: { path: { type: 'string' }, content_base64: { type: 'string' }, mtime_unix_ms: mtimeProp },
				},
			},
		},
		async (req) => {
			const agent = agentOf(req);
			const b = req.body as { path: string; content_base64: string; mtime_unix_ms?: number };
			const ws = emu.workspace(agent.id);
			const out = ws.write(normalizePath('path', b.path), decodeBase64('content_base64', b.content_base64), b.mtime_unix_ms);
			emu.markDirty();
			return out;
		},
	);

	app.post(
		'/_emulator/workspace/:agent_id/delete',
		{
			config: cfg,
			schema: {
				body: { type: 'object', required: ['path'], properties: { path: { type: 'string' }, recursive: { type: 'boolean' } } },
			},
		},
		async (req) => {
			const agent = agentOf(req);
			const b = req.body as { path: string; recursive?: boolean };
			const path = normalizePath('path', b.path);
			emu.workspace(agent.id).delete(path, b.recursive ?? false);
			emu.markDirty();
			return { path, deleted: true };
		},
	);

	// A large tree for the bench: `files` files of `size` bytes, `per_folder` to a folder, under `under`;
	// the same arguments always make the same paths and contents.
	app.post(
		'/_emulator/workspace/:agent_id/seed',
		{
			config: cfg,
			schema: {
				body: {
					type: 'object',
					required: ['files'],
					properties: {
						files: { type: 'integer', minimum: 1, maximum: MAX_SEED_FILES },
						size: { type: 'integer', minimum: 0, maximum: 1024 * 1024 },
						per_folder: { type: 'integer', minimum: 1, maximum: 10_000 },
						under: { type: 'string' },
						seed: { type: 'string', pattern: '^[A-Za-z0-9._-]{0,64}$' },
						mtime_unix_ms: mtimeProp,
					},
				},
			},
		},
		async (req) => {
			const agent = agentOf(req);
			const b = req.body as {
				files: number;
				size?: number;
				per_folder?: number;
				under?: string;
				seed?: string;
				mtime_unix_ms?: number;
			};
			const tree = seedTree({
				files: b.files,
				size: b.size ?? 256,
				perFolder: b.per_folder ?? 50,
				under: normalizePath('under', b.under ?? 'tree'),
				seed: b.seed ?? '',
			});
			emu.checkStorage(tree.bytes);
			const ws = emu.workspace(agent.id);
			for (const f of tree.files) ws.write(f.path, f.data, b.mtime_unix_ms);
			emu.markDirty();
			return { agent_id: agent.id, under: tree.under, files: tree.files.length, directories: tree.directories, bytes: tree.bytes };
		},
	);

	// Every file with size, mtime and SHA-256 (and its content with ?content=true), and every folder.
	app.get(
		'/_emulator/workspace/:agent_id/files',
		{
			config: cfg,
			schema: { querystring: { type: 'object', properties: { under: { type: 'string' }, content: { type: 'boolean' } } } },
		},
		async (req) => {
			const agent = agentOf(req);
			const q = req.query as { under?: string; content?: boolean };
			const under = normalizePath('under', q.under ?? '');
			const ws = emu.workspace(agent.id);
			const files = ws.files(under);
			const bytes = files.reduce((n, f) => n + f.size, 0);
			if (q.content === true && bytes > MAX_CONTENT_DUMP_BYTES) {
				throw new ApiError(
					'failed_precondition',
					`content: the files hold ${bytes} bytes; contents are answered up to ${MAX_CONTENT_DUMP_BYTES} (narrow with under=)`,
					{ status: 422 },
				);
			}
			return {
				agent_id: agent.id,
				under,
				files: q.content === true ? files.map((f) => ({ ...f, content_base64: ws.content(f.path)!.toString('base64') })) : files,
				directories: ws.directories(under),
				bytes,
			};
		},
	);

	// What the agent's runs changed, from their file.changed events (whatever the profile sends on
	// the wire): per run (oldest first) and the net change per path. `run_id` narrows to one run,
	// `since_ms` to runs created at or after it.
	app.get(
		'/_emulator/workspace/:agent_id/changes',
		{
			config: cfg,
			schema: {
				querystring: { type: 'object', properties: { run_id: { type: 'string' }, since_ms: { type: 'integer', minimum: 0 } } },
			},
		},
		async (req) => {
			const agent = agentOf(req);
			const q = req.query as { run_id?: string; since_ms?: number };
			let runs = emu.data.runs.filter((r) => r.agent_id === agent.id).sort((a, b) => a.created_ms - b.created_ms);
			if (q.run_id !== undefined) {
				runs = runs.filter((r) => r.id === q.run_id);
				if (runs.length === 0) throw notFound('run', q.run_id);
			}
			if (q.since_ms !== undefined) runs = runs.filter((r) => r.created_ms >= q.since_ms!);
			const perRun = runs.map((r) => ({ run_id: r.id, created_at: r.created_at, status: r.status, changes: runChanges(r) }));
			return { agent_id: agent.id, runs: perRun, net: netChanges(perRun.flatMap((r) => r.changes)) };
		},
	);

	app.post(
		'/_emulator/reset',
		{
			config: { ...cfg, optionalBody: true },
			schema: { body: { type: 'object', properties: { seed: { type: 'string', enum: ['demo', 'empty'] } } } },
		},
		async (req) => {
			const seed = (req.body as { seed?: 'demo' | 'empty' }).seed ?? emu.config.seed;
			emu.reset(seed);
			return { seed };
		},
	);

	// ---- the emulator clock (time-driven state: builds, checkpoints, GitHub request expiry, …) -------
	// `offset_ms`: how far it is ahead of the wall clock now (negative after a hold: it stood still).
	const clock = () => {
		const now = emu.now();
		return {
			now: new Date(now).toISOString(),
			now_ms: now,
			offset_ms: emu.clockHeld ? now - Date.now() : emu.clockOffsetMs,
			held: emu.clockHeld,
		};
	};
	app.get('/_emulator/clock', { config: cfg }, async () => clock());
	// Held: the clock stands still until advanced or released (tests take over time-driven progress);
	// released: it runs on from where it stood.
	app.put(
		'/_emulator/clock',
		{
			config: cfg,
			schema: {
				body: { type: 'object', required: ['held'], additionalProperties: false, properties: { held: { type: 'boolean' } } },
			},
		},
		async (req) => {
			emu.holdClock((req.body as { held: boolean }).held);
			return clock();
		},
	);
	app.post(
		'/_emulator/clock/advance',
		{
			config: cfg,
			schema: {
				body: {
					type: 'object',
					properties: {
						ms: { type: 'integer', minimum: 0, maximum: 31 * 86_400_000 },
						seconds: { type: 'integer', minimum: 0, maximum: 31 * 86_400 },
					},
				},
			},
		},
		async (req) => {
			const b = req.body as { ms?: number; seconds?: number };
			emu.advanceClock((b.ms ?? 0) + (b.seconds ?? 0) * 1000);
			emu.markDirty();
			return clock();
		},
	);

	// A `[[hold]]` run goes on to its scripted end (runs step on real timers, not on the clock: this
	// and cancelling are how a test ends a held run). 404 unknown run; 409 nothing to release.
	app.post('/_emulator/runs/:run_id/release', { config: { ...cfg, optionalBody: true } }, async (req) => {
		const runId = (req.params as { run_id: string }).run_id;
		const run = emu.data.runs.find((r) => r.id === runId);
		if (!run) throw notFound('run', runId);
		if (!emu.runs.releaseHold(run)) {
			throw conflict(
				`run ${runId} is ${run.status} and not held by a [[hold]] of its prompt: nothing to release (cancel it instead)`,
			);
		}
		return { run_id: run.id, status: run.status, released: true };
	});

	// A secret for tests (the public interface has no create): the value is kept, never answered or logged.
	app.post(
		'/_emulator/secrets',
		{
			config: cfg,
			schema: {
				body: {
					type: 'object',
					required: ['display_name', 'value'],
					properties: {
						display_name: { type: 'string', minLength: 1, maxLength: 255 },
						value: { type: 'string', minLength: 1, maxLength: 65_536 },
						cache_ttl_secs: { type: 'integer', minimum: 0, maximum: 4_294_967_295 },
					},
				},
			},
		},
		async (req, reply) => {
			const b = req.body as { display_name: string; value: string; cache_ttl_secs?: number };
			if (emu.data.secrets.some((s) => s.display_name === b.display_name)) {
				throw new ApiError('already_exists', `secret ${JSON.stringify(b.display_name)} already exists`);
			}
			const row = { id: uuid(), display_name: b.display_name, cache_ttl_secs: b.cache_ttl_secs ?? 300, value: b.value };
			emu.data.secrets.push(row);
			emu.markDirty();
			reply.code(201);
			return secretView(row);
		},
	);

	app.get('/_emulator/state', { config: cfg }, async () => {
		const d = emu.data;
		return {
			clock: clock(),
			users: d.users,
			runtimes: d.runtimes,
			agents: d.agents,
			runs: d.runs.map(({ events, ...r }) => ({ ...r, event_count: events.length })),
			artifacts: d.artifacts.map(({ content, ...a }) => ({ ...a, size: content.length })),
			workspaces: Object.fromEntries([...d.workspaces].map(([k, w]) => [k, w.summary()])),
			images: d.images,
			builds: d.builds,
			checkpoints: d.checkpoints,
			secrets: d.secrets.map(({ value: _v, ...s }) => s),
			stubs: d.stubs,
			ssh_keys: d.sshKeys,
			github_requests: d.githubRequests,
			model_providers: d.modelProviders,
			token_savings: d.tokenSavings.length,
			devices: d.devices.map((x) => ({
				user_code: x.user_code,
				client_id: x.client_id,
				state: x.state,
				expires_ms: x.expires_ms,
				interval: x.interval,
			})),
			tokens: d.tokens.length,
			computer_sessions: d.computerSessions.map(({ token: _t, ...s }) => s),
		};
	});

	// ---- what happens in the account without the client: a runtime fails, an agent asks for GitHub ----
	// (the Activity watcher's tests, issue 45). A runtime's status set as its workers would set it
	// (`error`, `crashed`, back to `running`…), its revision bumped; a pending GitHub authorization
	// request opened as an agent would open it, and closed as GitHub's callback would close it.
	app.put(
		'/_emulator/runtimes/:runtime_id/status',
		{
			config: cfg,
			schema: {
				body: {
					type: 'object',
					required: ['status'],
					additionalProperties: false,
					properties: { status: { type: 'string', enum: [...RUNTIME_STATUSES] } },
				},
			},
		},
		async (req) => {
			const rt = emu.runtime((req.params as { runtime_id: string }).runtime_id);
			rt.status = (req.body as { status: RuntimeStatus }).status;
			rt.pending = undefined;
			emu.bumpRuntime(rt);
			emu.markDirty();
			return { runtime_id: rt.id, status: rt.status, revision: rt.revision };
		},
	);
	// A run or an agent that waits for a person, under a status word the service might use for it
	// (`input_required`, `awaiting_approval`…: the description shows no status values). The run must
	// still be going (a `[[hold]]` run); it keeps the word until the test sets another or releases it.
	// The agent's record changes with it, as a real service's would.
	const STATUS_WORD = { type: 'string', pattern: '^[a-z][a-z_]{0,39}$' } as const;
	app.put(
		'/_emulator/agents/:agent_id/runs/:run_id/status',
		{
			config: cfg,
			schema: { body: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: STATUS_WORD } } },
		},
		async (req) => {
			const params = req.params as { agent_id: string; run_id: string };
			const agent = emu.agent(params.agent_id);
			const run = emu.run(agent, params.run_id);
			const status = (req.body as { status: string }).status;
			if (TERMINAL.has(run.status) || TERMINAL.has(status)) {
				throw conflict('Only a run still going takes a status here; end it with release or cancel');
			}
			run.status = status as RunStatus;
			run.updated_at = nowIso();
			emu.runs.emit(run, 'run.status', { status });
			agent.updated_at_ms = emu.activityClock();
			emu.markDirty();
			return { run_id: run.id, status: run.status };
		},
	);
	app.put(
		'/_emulator/agents/:agent_id/status',
		{
			config: cfg,
			schema: { body: { type: 'object', required: ['status'], additionalProperties: false, properties: { status: STATUS_WORD } } },
		},
		async (req) => {
			const agent = emu.agent((req.params as { agent_id: string }).agent_id);
			agent.status = (req.body as { status: string }).status as AgentStatus;
			agent.updated_at_ms = emu.activityClock();
			emu.markDirty();
			return { agent_id: agent.id, status: agent.status };
		},
	);
	app.post(
		'/_emulator/github/authorization-requests',
		{
			config: cfg,
			schema: {
				body: {
					type: 'object',
					required: ['requested_by'],
					additionalProperties: false,
					properties: {
						requested_by: { type: 'string', minLength: 1, maxLength: 255 },
						reason: { type: 'string', maxLength: 4096 },
						authorization_url: { type: 'string', minLength: 1, maxLength: 2048 },
						expires_in_seconds: { type: 'integer', minimum: 1, maximum: 86_400 },
					},
				},
			},
		},
		async (req, reply) => {
			const b = req.body as { requested_by: string; reason?: string; authorization_url?: string; expires_in_seconds?: number };
			const now = emu.now();
			const requestId = `ghreq_${uuid().replace(/-/g, '')}`;
			const row: GithubRequestRow = {
				request_id: requestId,
				requested_by: b.requested_by,
				...(b.reason === undefined ? {} : { reason: b.reason }),
				created_at_unix_seconds: Math.floor(now / 1000),
				lifecycle: {
					status: 'pending',
					authorization_url:
						b.authorization_url ?? `https://github.com/login/oauth/authorize?client_id=Iv1.demo&state=${requestId}`,
					expires_at_unix_seconds: Math.floor(now / 1000) + (b.expires_in_seconds ?? 3_600),
				},
			};
			emu.data.githubRequests.push(row);
			emu.markDirty();
			reply.code(201);
			return structuredClone(row);
		},
	);
	app.delete('/_emulator/github/authorization-requests/:request_id', { config: cfg }, async (req) => {
		const requestId = (req.params as { request_id: string }).request_id;
		const index = emu.data.githubRequests.findIndex((r) => r.request_id === requestId);
		if (index < 0) throw notFound('GitHub authorization request', requestId);
		emu.data.githubRequests.splice(index, 1);
		emu.markDirty();
		return { request_id: requestId, closed: true };
	});

	// ---- the device verification page (where a person approves) -----------------------------------
	// Links and the form action are relative ("device", never "/device"), so the page works under any
	// path prefix, e.g. code-server's port proxy /proxy/<port>/device.
	app.get(
		'/device',
		{ config: cfg, schema: { querystring: { type: 'object', properties: { user_code: { type: 'string' } } } } },
		async (req, reply) => {
			const code = (req.query as { user_code?: string }).user_code ?? '';
			reply.type('text/html; charset=utf-8');
			return page(
				'Cloud Agents — connect a device',
				`<p>Enter the code shown by the application, then approve or deny access.</p>
<form method="post" action="device"><p><input name="user_code" value="${esc(code)}" autocomplete="off" placeholder="XXXX-XXXX" required></p>
<button name="action" value="approve" type="submit">Approve</button><button name="action" value="deny" type="submit">Deny</button></form>`,
			);
		},
	);

	app.post('/device', { config: cfg }, async (req, reply) => {
		const b = (req.body ?? {}) as { user_code?: string; action?: string };
		reply.type('text/html; charset=utf-8');
		try {
			const r = setDevice(b.user_code, b.action === 'deny' ? 'denied' : 'approved');
			return page(
				r.state === 'approved' ? 'Device connected' : 'Access denied',
				`<p>Code <b>${esc(r.user_code)}</b>: ${r.state}. You can close this window.</p>`,
			);
		} catch (e) {
			reply.code(e instanceof ApiError ? e.status : 400);
			return page('Could not connect the device', `<p>${esc((e as Error).message)}</p><p><a href="device">Try again</a></p>`);
		}
	});
}
