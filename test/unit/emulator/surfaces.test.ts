/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/**
 * The issue-13 surfaces of the emulator (images, builds, checkpoints, secrets and stubs, SSH keys and
 * the gateway host key, GitHub requests and bindings, model providers, session history, token
 * savings, health) in both profiles, over real HTTP: realistic demo data, state that moves on with the
 * emulator clock (`POST /_emulator/clock/advance`) and the emulator's state after each action
 * (`GET /_emulator/state`). Standard answers are validated against spec/openapi.yaml; the variant's
 * keep every documented fact and make other choices where the description is silent.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { ProfileName } from '../../../emulator/src/profile';
import { GATEWAY_HOST, GATEWAY_PORT, TOKEN_SAVING_EVENTS } from '../../../emulator/src/seed';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { CallOptions, Client, Res } from './helpers';
import { boot, UUID_V7_RE } from './helpers';

const enc = encodeURIComponent;
const DAY_MS = 86_400_000;

for (const profile of ['standard', 'variant'] as const satisfies readonly ProfileName[]) {
	const std = profile === 'standard';

	suite(`emulator: issue-13 surfaces [${profile}]`, () => {
		let emu: RunningEmulator;
		let c: Client;
		/** Standard answers are checked against the spec; the variant's are not (the spec records the standard choices). */
		const call = (method: string, path: string, opts: CallOptions = {}): Promise<Res> =>
			c.call(method, path, { ...opts, validate: std && opts.validate !== false });
		const get = (path: string, opts: CallOptions = {}) => call('GET', path, opts);
		const del = (path: string, opts: CallOptions = {}) => call('DELETE', path, opts);
		const state = async (): Promise<any> => (await c.admin('GET', '/state')).body;
		const advance = async (seconds: number): Promise<void> => {
			const r = await c.admin('POST', '/clock/advance', { seconds });
			assert.equal(r.status, 200, r.text);
		};
		const runtimeId = async (name: string): Promise<string> => (await state()).runtimes.find((r: any) => r.display_name === name).id;

		/** The documented envelope (request_id = X-Request-Id) with the profile's field-level details. */
		function fieldErrors(r: Res, status: number): Map<string, string> {
			assert.equal(r.status, status, r.text);
			assert.equal(r.body.error.code, 'invalid_argument');
			assert.equal(typeof r.body.error.message, 'string');
			const rid = r.headers.get('x-request-id');
			assert.ok(rid && UUID_V7_RE.test(rid));
			assert.equal(r.body.request_id, rid);
			const list = std ? r.body.error.details : r.body.error.field_violations;
			assert.ok(Array.isArray(list), `field-level details in ${r.text}`);
			return new Map(list.map((d: any) => (std ? [d.field, d.message] : [d.field_path, d.description])));
		}

		setup(async () => {
			({ emu, c } = await boot({ profile }));
		});
		teardown(async () => {
			await emu.close();
		});

		test('health: GET and HEAD /healthz answer 200 with no content and no token', async () => {
			for (const method of ['GET', 'HEAD']) {
				const r = await call(method, '/healthz', { token: null });
				assert.equal(r.status, 200);
				assert.equal(r.text, '');
			}
		});

		test('images: built-in and custom; deleting the one in use is a 409 naming the runtime; an unused one goes', async () => {
			const r = await get('/v2/images');
			assert.equal(r.status, 200);
			const kind = (i: any) => (std ? i.kind : i.type);
			const name = (i: any) => (std ? i.display_name : i.name);
			assert.ok(r.body.data.filter((i: any) => kind(i) === 'builtin').length >= 2);
			assert.ok(r.body.data.filter((i: any) => kind(i) === 'custom').length >= 2);
			const inUse = r.body.data.find((i: any) => kind(i) === 'custom' && i.in_use === true);
			assert.ok(inUse, 'a custom image in use');
			assert.equal(name(inUse), 'Python ML toolchain');
			const conflict = await del(`/v2/images/${enc(inUse.id)}`);
			assert.equal(conflict.status, 409);
			assert.equal(conflict.body.error.code, 'failed_precondition');
			assert.match(conflict.body.error.message, /in use by runtime harbor-gpu/);
			const unused = r.body.data.find((i: any) => kind(i) === 'custom' && i.in_use === false);
			assert.equal((await del(`/v2/images/${enc(unused.id)}`)).status, 200);
			const ids = (await state()).images.map((i: any) => i.id);
			assert.ok(!ids.includes(unused.id), 'deleted');
			assert.ok(ids.includes(inUse.id), 'the image in use stays');
		});

		test('image builds move with the emulator clock: pending → running → succeeded, a retried attempt, a failure', async () => {
			const statusOf = (b: any) => b.status;
			const idOf = (b: any) => (std ? b.id : b.build_id);
			const nameOf = (b: any) => (std ? b.display_name : b.name);
			const list = async () => (await get('/v2/images/builds?limit=100')).body.data as any[];
			const byName = async (n: string) => (await list()).find((b) => nameOf(b) === n);
			const [RUNNING, SUCCEEDED, FAILED] = std ? ['running', 'succeeded', 'failed'] : ['building', 'ready', 'error'];
			const attemptOutcome = (a: any) => a.outcome;
			const [A_RUNNING, A_FAILED] = std ? ['running', 'failed'] : ['in_progress', 'error'];

			const go = await byName('Go 1.23 toolchain');
			assert.equal(statusOf(go), 'pending');
			assert.deepEqual(go.attempts, []);
			const java = await byName('Java 21 + Gradle');
			assert.equal(statusOf(java), RUNNING);
			assert.deepEqual(java.attempts.map(attemptOutcome), [A_FAILED, A_RUNNING]);
			assert.equal(statusOf(await byName('Rust nightly')), FAILED);

			// A build that fails every attempt, created now (1 s steps).
			const body = std
				? { display_name: 'Broken toolchain', dockerfile: 'FROM x\nRUN FAIL\n' }
				: { name: 'Broken toolchain', dockerfile_content: 'FROM x\nRUN FAIL\n' };
			const created = await call('POST', '/v2/images/builds', {
				json: body,
				headers: { [std ? 'Idempotency-Key' : 'X-Idempotency-Key']: `surfaces-${profile}` },
			});
			assert.equal(created.status, 200, created.text);
			const brokenId = idOf(created.body.data);

			await advance(11);
			assert.equal(statusOf(await byName('Go 1.23 toolchain')), RUNNING, 'the pending build started');
			await advance(40);
			const goDone = await byName('Go 1.23 toolchain');
			assert.equal(statusOf(goDone), SUCCEEDED);
			assert.equal(goDone.attempts.length, 1);
			const javaDone = await byName('Java 21 + Gradle');
			assert.equal(statusOf(javaDone), SUCCEEDED, 'the second attempt succeeded');
			assert.deepEqual(javaDone.attempts.map(attemptOutcome), [A_FAILED, 'succeeded']);
			const broken = (await get(`/v2/images/builds/${brokenId}`)).body.data;
			assert.equal(statusOf(broken), FAILED);
			assert.deepEqual(broken.attempts.map(attemptOutcome), [A_FAILED, A_FAILED]);
			const imageOfGo = std ? goDone.image_id : goDone.image.id;
			assert.ok(
				(await state()).images.some((i: any) => i.id === imageOfGo),
				'a succeeded build made an image',
			);
		});

		test('checkpoints: creating, failed with a reason, a deleted source runtime; creating ones settle with the clock', async () => {
			const list = async () => (await get('/v2/checkpoints?limit=100')).body.data as any[];
			const status = (ck: any) => (std ? ck.state.status : ck.lifecycle);
			const reason = (ck: any) => (std ? ck.state.failure_reason : ck.failure);
			const source = (ck: any) => (std ? ck.source_runtime : { id: ck.source.runtime_id, display_name: ck.source.runtime_name });
			const [CREATING, READY, FAILED] = std ? ['creating', 'ready', 'failed'] : ['CREATING', 'AVAILABLE', 'FAILED'];
			const by = (all: any[], n: string) => all.find((x) => x.display_name === n);
			const first = await list();
			assert.ok(first.length >= 7);
			assert.equal(status(by(first, 'nightly-pre-upgrade')), CREATING);
			assert.equal(status(by(first, 'gpu-warm-cache')), CREATING);
			const failed = by(first, 'sandbox-snapshot');
			assert.equal(status(failed), FAILED);
			assert.equal(reason(failed), 'disk_snapshot_timeout');
			assert.equal(source(failed).display_name, 'cobalt-sandbox');
			const orphan = by(first, 'iris-before-retire');
			assert.equal(status(orphan), FAILED);
			assert.deepEqual(
				source(orphan),
				{ id: null, display_name: 'iris-retired' },
				'the source runtime was deleted: id null, name kept',
			);
			if (!std) assert.equal(by(first, 'retired-runtime-final').kind, undefined, 'kind absent in the variant');

			await advance(61);
			const later = await list();
			assert.equal(status(by(later, 'nightly-pre-upgrade')), READY);
			assert.equal(reason(by(later, 'nightly-pre-upgrade')) ?? null, null);
			assert.equal(status(by(later, 'gpu-warm-cache')), FAILED);
			assert.equal(reason(by(later, 'gpu-warm-cache')), 'runtime_stopped_during_snapshot');
		});

		test('secrets: every secret a stub refers to reads by name and by id, masked; never a full value anywhere; delete', async () => {
			const values = emu.emulator.data.secrets.map((s) => s.value);
			const stubs = (await get('/v1/secret-stubs')).body.data as any[];
			const referenced = [...new Set(stubs.map((s) => s.stub_value_display_name))];
			assert.ok(referenced.length >= 4, 'stubs refer to several secrets');
			const seen: string[] = [];
			for (const name of referenced) {
				const r = await get(`/v2/secrets/${enc(name)}`);
				assert.equal(r.status, 200, name);
				seen.push(r.text);
				const s = r.body.data;
				assert.equal(s.display_name, name);
				assert.ok(Number.isInteger(s.cache_ttl_secs) && s.cache_ttl_secs > 0);
				if (std) {
					assert.match(s.value_preview, /•{8}/, 'masked');
					const full = emu.emulator.data.secrets.find((x) => x.display_name === name)!.value;
					assert.equal(s.value_preview.slice(0, 3), full.slice(0, 3), 'first characters');
					assert.equal(s.value_preview.slice(-3), full.slice(-3), 'last characters');
				} else {
					assert.equal(s.value_preview, undefined, 'the optional preview is absent in the variant');
				}
				const byId = await get(`/v2/secrets/${s.id}`);
				assert.equal(byId.body.data.display_name, name);
				seen.push(byId.text);
			}
			seen.push((await c.admin('GET', '/state')).text, JSON.stringify(stubs));
			for (const text of seen) {
				for (const v of values) assert.ok(!text.includes(v), 'no full secret value in any answer or the state dump');
			}

			const atlasBefore = (await state()).runtimes.find((r: any) => r.display_name === 'atlas-dev');
			assert.equal((await del('/v2/secrets/openai-api-key')).status, 200);
			assert.equal((await get('/v2/secrets/openai-api-key')).status, 404);
			const after = await state();
			assert.ok(!after.secrets.some((s: any) => s.display_name === 'openai-api-key'), 'gone from the emulator');
			const atlas = after.runtimes.find((r: any) => r.display_name === 'atlas-dev');
			assert.equal(atlas.revision, atlasBefore.revision + 1, 'the runtime that used it changed');
		});

		test('admin: a test secret can be created; its value is never answered', async () => {
			const r = await c.admin('POST', '/secrets', {
				display_name: 'test-secret',
				value: 'sk-test-SUPERSECRETVALUE-1234',
				cache_ttl_secs: 60,
			});
			assert.equal(r.status, 201);
			assert.ok(!r.text.includes('SUPERSECRETVALUE'));
			const g = await get('/v2/secrets/test-secret');
			assert.equal(g.body.data.cache_ttl_secs, 60);
			assert.ok(!g.text.includes('SUPERSECRETVALUE'));
			assert.equal((await c.admin('POST', '/secrets', { display_name: 'test-secret', value: 'x' })).status, 409);
		});

		test("secret stubs: header, query and file shapes; runtime-scoped and global delete; another owner's runtime is 403", async () => {
			const stubs = (await get('/v1/secret-stubs')).body.data as any[];
			const shapes = stubs.map((s) => Object.keys(JSON.parse(s.stub_config_json)).sort().join(','));
			assert.ok(shapes.some((k) => k.includes('headerName')));
			assert.ok(shapes.some((k) => k.includes('paramName')));
			assert.ok(shapes.some((k) => k.includes('filePath')));
			const onAtlas = stubs.find((s) => s.runtime_display_name === 'atlas-dev');
			const onBorealis = stubs.find((s) => s.runtime_display_name === 'borealis-ci');
			const onDelta = stubs.find((s) => s.runtime_display_name === 'delta-shared');
			assert.equal((await del(`/v1/runtimes/${await runtimeId('atlas-dev')}/secret-stubs/${onAtlas.id}`)).status, 200);
			assert.equal((await del(`/v1/secret-stubs/${onBorealis.id}`)).status, 200);
			const refused = await del(`/v1/secret-stubs/${onDelta.id}`);
			assert.equal(refused.status, 403);
			const left = (await state()).stubs.map((s: any) => s.id);
			assert.ok(!left.includes(onAtlas.id) && !left.includes(onBorealis.id), 'both deleted');
			assert.ok(left.includes(onDelta.id), 'the refused one stays');
		});

		test('SSH keys on runtimes: a stale expected_revision is 409; the fresh one detaches and bumps the revision', async () => {
			const st = await state();
			const atlas = st.runtimes.find((r: any) => r.display_name === 'atlas-dev');
			assert.equal(atlas.ssh_key_ids.length, 2);
			const key = atlas.ssh_key_ids[0];
			const stale = await del(`/v2/runtimes/${atlas.id}/ssh-keys/${key}?expected_revision=${atlas.revision - 1}`);
			assert.equal(stale.status, 409);
			assert.equal(stale.body.error.code, 'failed_precondition');
			assert.match(stale.body.error.message, /re-read/);
			assert.deepEqual(
				(await state()).runtimes.find((r: any) => r.id === atlas.id).ssh_key_ids,
				atlas.ssh_key_ids,
				'nothing changed',
			);
			const ok = await del(`/v2/runtimes/${atlas.id}/ssh-keys/${key}?expected_revision=${atlas.revision}`);
			assert.equal(ok.status, 200);
			assert.equal(ok.body.data.id, key);
			const after = (await state()).runtimes.find((r: any) => r.id === atlas.id);
			assert.deepEqual(after.ssh_key_ids, [atlas.ssh_key_ids[1]]);
			assert.equal(after.revision, atlas.revision + 1);
			const mine = st.ssh_keys.find((k: any) => k.display_name === 'ada-desktop');
			assert.equal((await del(`/v2/ssh-keys/${mine.id}`)).status, 200);
			assert.ok(!(await state()).ssh_keys.some((k: any) => k.id === mine.id));
			const theirs = st.ssh_keys.find((k: any) => k.display_name === 'grace-workstation');
			assert.equal((await del(`/v2/ssh-keys/${theirs.id}`)).status, 404, "only the current user's keys");
		});

		test('gateway host key: a well-formed ed25519 key whose SHA256 fingerprint matches, with the gateway host and port', async () => {
			const r = await get('/v2/ssh-host-key');
			assert.equal(r.status, 200);
			const k = r.body.data;
			const [type, blob64, fp, host, port] = std
				? [k.key_type, k.public_key.split(' ')[1], k.fingerprint_sha256, k.host, k.port]
				: [k.algorithm, k.key, k.fingerprints.sha256, new URL(k.endpoint).hostname, Number(new URL(k.endpoint).port)];
			assert.equal(type, 'ssh-ed25519');
			if (std) assert.equal(k.public_key.split(' ').length, 2, '<type> <base64>, no comment');
			else assert.ok(!k.key.includes(' '), 'the variant sends the bare blob');
			const blob = Buffer.from(blob64, 'base64');
			assert.equal(blob.toString('base64'), blob64, 'strict base64');
			assert.equal(blob.readUInt32BE(0), 11);
			assert.equal(blob.subarray(4, 15).toString(), 'ssh-ed25519');
			assert.equal(blob.readUInt32BE(15), 32);
			assert.equal(blob.length, 51);
			assert.equal(fp, `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`);
			assert.equal(host, GATEWAY_HOST);
			assert.equal(port, GATEWAY_PORT);
		});

		test('GitHub authorization requests expire with the emulator clock and drop off the list', async () => {
			const list = async () => (await get('/v2/github/authorization-requests')).body.data.requests as any[];
			const first = await list();
			assert.equal(first.length, 3, 'the already expired one is not listed');
			const now = Math.floor(Date.now() / 1000);
			for (const q of first) {
				assert.equal(q.lifecycle.status, 'pending');
				assert.ok(q.lifecycle.expires_at_unix_seconds > now);
				assert.ok(q.lifecycle.authorization_url.startsWith('https://'));
				if (std) assert.ok(q.reason === undefined || typeof q.reason === 'string');
				else assert.equal(q.reason, undefined);
			}
			await advance(3 * 60);
			const later = await list();
			assert.equal(later.length, 2);
			assert.ok(!later.some((q) => q.requested_by === 'agent:Nightly dependency bump'));
			await advance(60 * 60);
			assert.deepEqual(await list(), []);
			assert.equal((await state()).github_requests.length, 4, 'expired requests stay stored, unlisted');
		});

		test('runtime repository bindings: a PUT replaces them atomically; a bad one changes nothing and names each field', async () => {
			const atlas = await runtimeId('atlas-dev');
			const before = (await state()).runtimes.find((r: any) => r.id === atlas).bindings;
			assert.equal(before.length, 2);
			const bad = await call('PUT', `/v2/github/runtime-bindings/${atlas}`, {
				json: {
					repositories: [
						{ repository_id: 1, branch: 'main' },
						{ repository_id: 1, branch: 'main' },
						{ repository_id: 2, branch: 'feature..x' },
					],
				},
			});
			const fields = fieldErrors(bad, 422);
			assert.ok(fields.has('repositories[1]'));
			assert.ok(fields.has('repositories[2].branch'));
			assert.deepEqual((await state()).runtimes.find((r: any) => r.id === atlas).bindings, before, 'nothing changed');
			const ok = await call('PUT', `/v2/github/runtime-bindings/${atlas}`, {
				json: {
					repositories: [
						{ repository_id: 781234502, branch: 'develop' },
						{ repository_id: 9, branch: 'release/2.x' },
						{ repository_id: 781234501, branch: 'main' },
					],
				},
			});
			assert.equal(ok.status, 200, ok.text);
			const now = (await state()).runtimes.find((r: any) => r.id === atlas).bindings;
			assert.deepEqual(
				now.map((b: any) => [b.repository_id, b.branch, b.sort_order]),
				[
					[781234502, 'develop', 0],
					[9, 'release/2.x', 1],
					[781234501, 'main', 2],
				],
			);
			assert.deepEqual(
				ok.body.data.bindings.map((b: any) => b.id),
				now.map((b: any) => b.id),
			);
		});

		test('model providers: server-side validation names every bad field in the error envelope; nothing changes', async () => {
			const list = (await get('/v2/model-providers')).body;
			assert.equal(typeof list.organization_id, 'string');
			const idOf = (p: any) => (std ? p.id : p.provider_id);
			const openai = list.model_providers.find((p: any) => idOf(p) === 'mp_openai');
			const bad = std
				? { display_name: 'Anthropic', endpoint: 'http://api.openai.example/v1', model: 'gpt 4', enabled: true }
				: { name: 'Anthropic', base_url: 'http://api.openai.example/v1', default_model: 'gpt 4', is_enabled: true };
			const r = await call('PATCH', '/v2/model-providers/mp_openai', { json: bad });
			const fields = fieldErrors(r, std ? 422 : 400);
			const [nameF, endpointF, modelF] = std ? ['display_name', 'endpoint', 'model'] : ['name', 'base_url', 'default_model'];
			assert.match(fields.get(nameF) ?? '', /already called "Anthropic"/);
			assert.match(fields.get(endpointF) ?? '', /https/);
			assert.ok(fields.has(modelF));
			for (const f of [nameF, endpointF, modelF]) {
				assert.ok(r.body.error.message.includes(std ? f : f === nameF ? 'display_name' : f === endpointF ? 'endpoint' : 'model'));
			}
			const stored = (await state()).model_providers.find((p: any) => p.id === 'mp_openai');
			assert.equal(stored.endpoint, std ? openai.endpoint : openai.base_url, 'nothing changed');
			// A missing member is caught by the schema, with its field.
			const missing = std
				? { display_name: 'OpenAI', endpoint: 'https://api.openai.example/v1', model: 'gpt-4.1' }
				: { name: 'OpenAI', base_url: 'https://api.openai.example/v1', default_model: 'gpt-4.1' };
			const m = await call('PATCH', '/v2/model-providers/mp_openai', { json: missing });
			assert.equal(m.status, std ? 422 : 400);
			assert.match(m.body.error.message, /enabled/);
			// http: is fine for a self-hosted OpenAI-compatible server; a valid PATCH is stored.
			const good = std
				? {
						display_name: 'Local vLLM',
						endpoint: 'http://vllm.internal.example:8001/v1',
						model: 'qwen2.5-coder-32b',
						enabled: true,
					}
				: {
						name: 'Local vLLM',
						base_url: 'http://vllm.internal.example:8001/v1',
						default_model: 'qwen2.5-coder-32b',
						is_enabled: true,
					};
			const g = await call('PATCH', '/v2/model-providers/mp_local_vllm', { json: good });
			assert.equal(g.status, 200, g.text);
			assert.equal(
				(await state()).model_providers.find((p: any) => p.id === 'mp_local_vllm').endpoint,
				'http://vllm.internal.example:8001/v1',
			);
		});

		test('agent session history: a long session replays in order, and from an exclusive after', async () => {
			const agents = std ? (await get('/v2/agents?limit=100')).body.agents : (await get('/v2/agents?limit=100')).body.agents;
			const sandbox = agents.find((a: any) => a.name === 'Sandbox explorer');
			const r = await get(`/v2/agents/${enc(sandbox.id)}/events`);
			assert.equal(r.status, 200, r.text);
			assert.equal(r.body.agent_id, sandbox.id);
			assert.equal(typeof r.body.session_id, 'string');
			const seqs = r.body.events.map((e: any) => (std ? e.seq : e.sequence));
			assert.ok(seqs.length > 100, `a long session (${seqs.length} events)`);
			assert.deepEqual(
				seqs,
				[...seqs].sort((a: number, b: number) => a - b),
			);
			const from = seqs[50];
			const rest = await get(
				`/v2/agents/${enc(sandbox.id)}/events?${std ? 'session_id' : 'session'}=${enc(r.body.session_id)}&after=${from}`,
			);
			const restSeqs = rest.body.events.map((e: any) => (std ? e.seq : e.sequence));
			assert.equal(restSeqs[0], from + 1);
		});

		test('token savings: runtime summary and account totals over seven days of events', async () => {
			const atlas = await runtimeId('atlas-dev');
			const all: any[] = [];
			let after: string | undefined;
			for (let i = 0; i < 20; i++) {
				const r = await get(`/v1/runtimes/${atlas}/tokensaver/savings?limit=5${after ? `&after=${enc(after)}` : ''}`);
				assert.equal(r.status, 200);
				all.push(...r.body.data);
				assert.equal(
					r.body.summary.applied_events,
					all.length + (r.body.pagination.has_more ? r.body.summary.applied_events - all.length : 0),
				);
				if (!r.body.pagination.has_more) break;
				after = r.body.pagination.next_cursor;
			}
			const summary = (await get(`/v1/runtimes/${atlas}/tokensaver/savings?limit=1`)).body.summary;
			assert.equal(summary.applied_events, all.length);
			assert.equal(
				summary.saved_wire_bytes,
				all.reduce((n, t) => n + t.saved_wire_bytes, 0),
			);
			assert.equal(
				summary.saved_estimated_tokens,
				all.reduce((n, t) => n + t.saved_estimated_tokens, 0),
			);
			assert.equal(summary.malformed_events, all.filter((t) => t.methods.some((m: any) => typeof m.parse_error === 'string')).length);
			assert.ok(summary.malformed_events >= 1);
			const span = Math.max(...all.map((t) => t.observed_unix_ms)) - Math.min(...all.map((t) => t.observed_unix_ms));
			assert.ok(span > 5 * DAY_MS, `atlas events span ${(span / DAY_MS).toFixed(1)} days`);

			// Every page of the account listing (more than one page: the seed has three weeks of history).
			const first = (await get('/v2/token-savings?page_size=100')).body.data;
			const events: any[] = [...first.events];
			for (let page = first, n = 0; page.pagination?.has_more && n < 20; n++) {
				page = (
					await get(
						`/v2/token-savings?page_size=100&${std ? 'cursor' : 'page_token'}=${encodeURIComponent(page.pagination.next_cursor)}`,
					)
				).body.data;
				events.push(...page.events);
			}
			const tokensOf = (e: any) => (std ? e.saved_estimated_tokens : e.tokens_saved);
			const totals = std ? first.totals : { applied_events: first.totals.events, saved_estimated_tokens: first.totals.tokens_saved };
			assert.equal(totals.applied_events, TOKEN_SAVING_EVENTS);
			assert.equal(events.length, TOKEN_SAVING_EVENTS);
			assert.equal(
				totals.saved_estimated_tokens,
				events.reduce((n: number, e: any) => n + tokensOf(e), 0),
			);
			const days = new Set(events.map((e: any) => e.observed_at.slice(0, 10)));
			assert.ok(days.size >= 6, `events on ${days.size} days`);
		});

		test('the emulator log never carries a secret value (a logging emulator, every secret route)', async () => {
			await emu.close();
			const written: string[] = [];
			const original = process.stdout.write.bind(process.stdout);
			process.stdout.write = (chunk: string | Uint8Array, ...rest: unknown[]) => {
				written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
				return (original as (...a: unknown[]) => boolean)(chunk, ...rest);
			};
			try {
				({ emu, c } = await boot({ profile, quiet: false }));
				const value = 'sk-log-check-THIS-MUST-NOT-BE-LOGGED-42';
				await c.admin('POST', '/secrets', { display_name: 'log-check', value });
				await get('/v2/secrets/log-check');
				await call('POST', `/v1/runtimes/atlas-dev/secret-stubs`, {
					json: { host: 'api.example.com', config: { headerName: 'X-Key' }, stub_value: 'log-check' },
				});
				await del('/v2/secrets/log-check');
				const log = written.join('');
				assert.match(log, /GET \/v2\/secrets\/log-check 200/, 'the emulator did log the requests');
				assert.ok(!log.includes(value) && !log.includes('THIS-MUST-NOT'), 'no value in the log');
				for (const s of emu.emulator.data.secrets) assert.ok(!log.includes(s.value));
			} finally {
				process.stdout.write = original;
			}
		});

		test('admin clock: GET reports the offset; advance moves it; reset returns to the wall clock', async () => {
			const before = (await c.admin('GET', '/clock')).body;
			assert.equal(before.offset_ms, 0);
			await advance(90);
			const after = (await c.admin('GET', '/clock')).body;
			assert.equal(after.offset_ms, 90_000);
			assert.ok(after.now_ms - Date.now() > 80_000, 'about 90 s ahead of the wall clock');
			assert.equal((await c.admin('POST', '/clock/advance', { seconds: -1 })).status, 422);
			await c.admin('POST', '/reset', { seed: 'demo' });
			assert.equal((await c.admin('GET', '/clock')).body.offset_ms, 0);
		});
	});
}
