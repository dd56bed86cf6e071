/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/** Calls every operation of spec/openapi.yaml on the emulator and validates every response. */
import * as assert from 'node:assert/strict';
import { listOperations, validateResponse } from '../support/openapiValidator';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { Client } from './helpers';
import { TOKEN_SAVING_EVENTS } from '../../../emulator/src/seed';
import { b64, boot, exercised, readSse, unb64, until } from './helpers';

suite('emulator: contract (every operation, validated against the spec)', () => {
	let emu: RunningEmulator;
	let c: Client;
	const ctx: Record<string, string> = {};

	suiteSetup(async () => {
		({ emu, c } = await boot());
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	const waitRun = (agentId: string, runId: string) =>
		until(async () => {
			const r = await c.get(`/v2/agents/${agentId}/runs/${runId}`);
			return ['succeeded', 'failed', 'cancelled'].includes(r.body.status) ? r.body : undefined;
		});

	test('health and identity', async () => {
		const h = await c.get('/healthz', { token: null });
		assert.equal(h.status, 200);
		assert.equal(h.text, '');
		const head = await c.call('HEAD', '/healthz', { token: null });
		assert.equal(head.status, 200);
		const me = await c.get('/v2/me');
		assert.equal(me.status, 200);
		assert.equal(me.body.display_name, 'Ada Lovelace');
		const hk = await c.get('/v2/ssh-host-key');
		assert.equal(hk.status, 200);
		assert.match(hk.body.data.public_key, /^ssh-ed25519 /);
	});

	test('device flow and token revocation', async () => {
		const start = await c.post('/v2/auth/device/authorization', { client_id: 'vscode-cloud-agents' }, { token: null });
		assert.equal(start.status, 200);
		assert.match(start.body.user_code, /^[A-Z]{4}-[A-Z]{4}$/);
		assert.equal(start.body.verification_uri, `${emu.url}/device`);
		const pending = await c.post('/v2/auth/device/token', { device_code: start.body.device_code }, { token: null });
		assert.equal(pending.status, 400);
		assert.equal(pending.body.error, 'authorization_pending');
		const approved = await c.admin('POST', '/device/approve', { user_code: start.body.user_code });
		assert.equal(approved.status, 200);
		const tok = await c.post('/v2/auth/device/token', { device_code: start.body.device_code }, { token: null });
		assert.equal(tok.status, 200);
		assert.equal(tok.body.token_type, 'Bearer');
		const me = await c.get('/v2/me', { token: tok.body.access_token });
		assert.equal(me.status, 200);
		const rev = await c.del('/v2/auth/token', { token: tok.body.access_token });
		assert.equal(rev.status, 204);
		assert.equal((await c.get('/v2/me', { token: tok.body.access_token })).status, 401);
	});

	test('agents: list with cursors, create, get, rename', async () => {
		const seen: string[] = [];
		let cursor: string | null = null;
		let pages = 0;
		do {
			const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
			const page: any = await c.get(`/v2/agents?limit=3${q}`);
			assert.equal(page.status, 200);
			assert.ok(page.body.agents.length <= 3);
			seen.push(...page.body.agents.map((a: { id: string }) => a.id));
			cursor = page.body.next_cursor;
			pages++;
		} while (cursor);
		assert.equal(seen.length, 7);
		assert.equal(new Set(seen).size, 7);
		assert.equal(pages, 3);

		const created = await c.post('/v2/agents', { name: '  Contract agent  ', repositories: [{ repository_id: 42, branch: 'main' }] });
		assert.equal(created.status, 201);
		assert.equal(created.body.name, 'Contract agent');
		assert.equal(created.body.status, 'provisioning');
		ctx.agent = created.body.id;
		ctx.runtime = created.body.runtime_id;
		const idle = await until(async () => {
			const a = await c.get(`/v2/agents/${ctx.agent}`);
			return a.body.status === 'idle' ? a.body : undefined;
		});
		assert.equal(idle.id, ctx.agent);
		const renamed = await c.patch(`/v2/agents/${ctx.agent}`, { name: 'Contract agent (renamed)' });
		assert.equal(renamed.status, 200);
		assert.equal(renamed.body.name, 'Contract agent (renamed)');
	});

	test('runs: create, list, get, stream, session replay, resume, follow-up, cancel', async () => {
		const run = await c.post(`/v2/agents/${ctx.agent}/runs`, { prompt: 'Summarise the repository [[delay:5]]' });
		assert.equal(run.status, 202);
		assert.equal(run.body.status, 'queued');
		const list = await c.get(`/v2/agents/${ctx.agent}/runs?limit=10`);
		assert.equal(list.status, 200);
		assert.equal(list.body[0].id, run.body.id);
		const done = await waitRun(ctx.agent!, run.body.id);
		assert.equal(done.status, 'succeeded');
		assert.match(done.result, /## Done/);

		const sse = await readSse(emu.url, `/v2/agents/${ctx.agent}/runs/${run.body.id}/events?after=-1`);
		assert.equal(sse.status, 200);
		const problems = validateResponse({
			method: 'GET',
			pathTemplate: '/v2/agents/{agent_id}/runs/{run_id}/events',
			status: sse.status,
			headers: sse.headers,
			body: sse.text,
			contentType: sse.headers.get('content-type') ?? '',
		});
		assert.deepEqual(problems, []);
		exercised.add('GET /v2/agents/{agent_id}/runs/{run_id}/events');
		assert.match(sse.text, /event: run.completed/);

		const replay = await c.get(`/v2/agents/${ctx.agent}/events`);
		assert.equal(replay.status, 200);
		assert.equal(replay.body.session_id, done.dsh_session_id);
		assert.equal(replay.body.events.at(-1).type, 'run.completed');

		const resumed = await c.post(`/v2/agents/${ctx.agent}/runs/${run.body.id}/resume`, { prompt: 'Continue [[delay:5]]' });
		assert.equal(resumed.status, 202);
		assert.equal(resumed.body.dsh_session_id, done.dsh_session_id);
		await waitRun(ctx.agent!, resumed.body.id);

		const follow = await c.post(`/v2/agents/${ctx.agent}/runs/${resumed.body.id}/follow-ups`, { prompt: 'And the tests? [[hold]]' });
		assert.equal(follow.status, 202);
		assert.equal(follow.body.parent_run_id, resumed.body.id);
		const cancelled = await c.del(`/v2/agents/${ctx.agent}/runs/${follow.body.id}`);
		assert.equal(cancelled.status, 200);
		assert.equal(cancelled.body.status, 'cancelled');
		ctx.run = run.body.id;
	});

	test('computer session', async () => {
		const s = await c.post(`/v2/agents/${ctx.agent}/computer-sessions`);
		assert.equal(s.status, 201);
		assert.match(s.body.channels.vnc.websocket_url, /^ws:\/\/127\.0\.0\.1:\d+\/_emulator\/vnc\//);
		assert.equal(s.body.channels.vnc.protocols[0], 'binary');
	});

	test('artifacts: list, create, get with content, delete', async () => {
		const list = await c.get(`/v2/agents/${ctx.agent}/artifacts`);
		assert.equal(list.status, 200);
		assert.ok(list.body.length >= 1, 'the scripted run created an artifact');
		const created = await c.post(`/v2/agents/${ctx.agent}/artifacts`, {
			run_id: ctx.run,
			name: 'notes.v1_final-2.txt',
			media_type: 'text/plain',
			content_base64: b64('hello artifact'),
		});
		assert.equal(created.status, 201);
		assert.equal(created.body.size, 14);
		assert.equal(created.body.content_base64, undefined);
		const got = await c.get(`/v2/agents/${ctx.agent}/artifacts/${created.body.id}?include_content=true`);
		assert.equal(got.status, 200);
		assert.equal(unb64(got.body.content_base64), 'hello artifact');
		const meta = await c.get(`/v2/agents/${ctx.agent}/artifacts/${created.body.id}`);
		assert.equal(meta.body.content_base64, undefined);
		const del = await c.del(`/v2/agents/${ctx.agent}/artifacts/${created.body.id}`);
		assert.equal(del.status, 204);
		assert.equal((await c.get(`/v2/agents/${ctx.agent}/artifacts/${created.body.id}`)).status, 404);
	});

	test('workspace: write, list, stat, read, search, delete', async () => {
		const w = await c.put(`/v2/agents/${ctx.agent}/workspace/files`, {
			path: '/src/app/main.ts',
			content_base64: b64('export const answer = 42;\n'),
		});
		assert.equal(w.status, 200);
		assert.deepEqual([w.body.path, w.body.size], ['src/app/main.ts', 26]);
		const ls = await c.post(`/v2/agents/${ctx.agent}/workspace`, { op: 'list', path: 'src' });
		assert.equal(ls.status, 200);
		assert.ok(ls.body.entries.some((e: { name: string; type: string }) => e.name === 'app' && e.type === 'directory'));
		const st = await c.post(`/v2/agents/${ctx.agent}/workspace`, { op: 'stat', path: 'src/app/main.ts' });
		assert.equal(st.body.entry.size, 26);
		const rd = await c.post(`/v2/agents/${ctx.agent}/workspace`, { op: 'read', path: 'src/app/main.ts', offset: 7, length: 5 });
		assert.equal(unb64(rd.body.content_base64), 'const');
		assert.equal(rd.body.eof, false);
		const se = await c.post(`/v2/agents/${ctx.agent}/workspace`, { op: 'search', query: 'ANSWER' });
		assert.deepEqual(se.body.matches[0], { path: 'src/app/main.ts', line: 1, column: 14, preview: 'export const answer = 42;' });
		const del = await c.call('DELETE', `/v2/agents/${ctx.agent}/workspace/files`, { json: { path: 'src', recursive: true } });
		assert.equal(del.status, 204);
	});

	test('model providers', async () => {
		const l = await c.get('/v2/model-providers');
		assert.equal(l.status, 200);
		const p = l.body.model_providers[2];
		const u = await c.patch(`/v2/model-providers/${p.id}`, {
			display_name: 'Local vLLM',
			endpoint: 'http://vllm.internal.example:8001/v1',
			model: 'qwen2.5-coder-32b',
			enabled: true,
		});
		assert.equal(u.status, 200);
		assert.equal(u.body.enabled, true);
	});

	test('runtimes: list, resume, VNC credentials, SSH key detach, token savings', async () => {
		const all = await c.get('/v2/runtimes?limit=100');
		assert.equal(all.status, 200);
		const byName = (n: string) => all.body.data.find((r: { display_name: string }) => r.display_name === n);
		const paused = byName('cobalt-sandbox');
		const res = await c.post(`/v2/runtimes/${paused.id}/resume?expected_revision=${paused.revision}`);
		assert.equal(res.status, 200);
		assert.equal(res.body.data.desired_status, 'running');
		assert.equal(res.body.data.revision, paused.revision + 1);
		const atlas = byName('atlas-dev');
		const vnc = await c.get(`/v2/runtimes/${atlas.id}/vnc-credentials`);
		assert.equal(vnc.status, 200);
		assert.equal(vnc.body.data.length, 2);
		const st = await c.get('/_emulator/state', { token: null, validate: false });
		const keyId = st.body.runtimes.find((r: { id: string }) => r.id === atlas.id).ssh_key_ids[1];
		const det = await c.del(`/v2/runtimes/${atlas.id}/ssh-keys/${keyId}?expected_revision=${atlas.revision}`);
		assert.equal(det.status, 200);
		assert.equal(det.body.data.id, keyId);
		const ts = await c.get(`/v1/runtimes/${atlas.id}/tokensaver/savings?limit=2`);
		assert.equal(ts.status, 200);
		assert.equal(ts.body.data.length, 2);
		assert.equal(ts.body.pagination.has_more, true);
		ctx.atlas = atlas.id;
	});

	test('images, builds, checkpoints', async () => {
		const imgs = await c.get('/v2/images');
		assert.equal(imgs.status, 200);
		const del = await c.del('/v2/images/img_custom_node18_legacy');
		assert.equal(del.status, 200);
		assert.deepEqual(del.body, { data: {} });
		const builds = await c.get('/v2/images/builds?limit=2');
		assert.equal(builds.status, 200);
		assert.equal(builds.body.pagination.has_more, true);
		const b = await c.post(
			'/v2/images/builds',
			{ display_name: 'Go toolchain', dockerfile: 'FROM cloud-agent-standard\nRUN apt-get install -y golang\n' },
			{ headers: { 'Idempotency-Key': 'contract-build-1' } },
		);
		assert.equal(b.status, 200);
		assert.equal(b.body.data.status, 'pending');
		const again = await c.post(
			'/v2/images/builds',
			{ display_name: 'Go toolchain', dockerfile: 'FROM x' },
			{ headers: { 'Idempotency-Key': 'contract-build-1' } },
		);
		assert.equal(again.body.data.id, b.body.data.id);
		const got = await c.get(`/v2/images/builds/${b.body.data.id}`);
		assert.equal(got.status, 200);
		const ck = await c.get('/v2/checkpoints?limit=2');
		assert.equal(ck.status, 200);
		assert.equal(ck.body.data.length, 2);
		assert.ok(ck.body.pagination.next_cursor);
	});

	test('secrets and secret stubs', async () => {
		const s = await c.get('/v2/secrets/openai-api-key');
		assert.equal(s.status, 200);
		assert.ok(!s.body.data.value_preview.includes('4f9a0c1e7b2d48e6'), 'only a masked preview');
		const byId = await c.get(`/v2/secrets/${s.body.data.id}`);
		assert.equal(byId.body.data.display_name, 'openai-api-key');
		const stub = await c.post(`/v1/runtimes/atlas-dev/secret-stubs`, {
			host: 'api.example.com',
			path: null,
			config: { headerName: 'X-Api-Key', valueFormat: '${credential}' },
			stub_value: 'openai-api-key',
		});
		assert.equal(stub.status, 200);
		const list = await c.get('/v1/secret-stubs');
		assert.equal(list.status, 200);
		assert.ok(list.body.data.some((x: { id: string }) => x.id === stub.body.data.id));
		const d1 = await c.del(`/v1/runtimes/${ctx.atlas}/secret-stubs/${stub.body.data.id}`);
		assert.equal(d1.status, 200);
		const d2 = await c.del(`/v1/secret-stubs/${list.body.data[0].id}`);
		assert.equal(d2.status, 200);
		const ds = await c.del('/v2/secrets/sentry-dsn');
		assert.equal(ds.status, 200);
		assert.equal((await c.get('/v2/secrets/sentry-dsn')).status, 404);
	});

	test('SSH keys, GitHub', async () => {
		const st = await c.get('/_emulator/state', { token: null, validate: false });
		const mine = st.body.ssh_keys.find((k: { display_name: string }) => k.display_name === 'ada-laptop');
		const d = await c.del(`/v2/ssh-keys/${mine.id}`);
		assert.equal(d.status, 200);
		assert.equal(d.body.data.id, mine.id);
		const gh = await c.get('/v2/github/authorization-requests');
		assert.equal(gh.status, 200);
		assert.equal(gh.body.data.requests.length, 3, 'the expired request is not listed');
		const b = await c.put(`/v2/github/runtime-bindings/${ctx.atlas}`, {
			repositories: [
				{ repository_id: 7, branch: 'main' },
				{ repository_id: 8, branch: 'dev' },
			],
		});
		assert.equal(b.status, 200);
		assert.deepEqual(
			b.body.data.bindings.map((x: { sort_order: number }) => x.sort_order),
			[0, 1],
		);
	});

	test('token savings (account-wide): totals cover the whole filter', async () => {
		const page = await c.get('/v2/token-savings?page_size=3');
		assert.equal(page.status, 200);
		assert.equal(page.body.data.events.length, 3);
		assert.equal(page.body.data.totals.applied_events, TOKEN_SAVING_EVENTS);
		const filtered = await c.get(`/v2/token-savings?page_size=2&runtime_id=${ctx.atlas}&method=json_array`);
		assert.ok(filtered.body.data.totals.applied_events >= filtered.body.data.events.length);
	});

	test('agent delete: 204 for an additional harness, 202 with delete_runtime', async () => {
		const extra = await c.post('/v2/agents', { name: 'Second harness', runtime_id: ctx.runtime, harness_id: 'second' });
		assert.equal(extra.status, 201);
		assert.equal(extra.body.id, `${ctx.runtime}.second`);
		const d1 = await c.del(`/v2/agents/${extra.body.id}?delete_runtime=true`);
		assert.equal(d1.status, 204);
		const d2 = await c.del(`/v2/agents/${ctx.agent}?delete_runtime=true`);
		assert.equal(d2.status, 202);
		assert.deepEqual(d2.body, { runtime_id: ctx.runtime, status: 'deletion_requested' });
	});

	test('every operation of the spec was exercised', () => {
		const all = listOperations().map((o) => `${o.method} ${o.pathTemplate}`);
		const missing = all.filter((k) => !exercised.has(k));
		assert.deepEqual(missing, [], `operations not exercised: ${missing.join(', ')}`);
	});
});
