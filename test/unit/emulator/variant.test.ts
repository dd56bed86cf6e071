/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/**
 * The variant profile (`--profile variant`, `variant-strict`) over real HTTP: each choice it makes
 * where the service description says "not shown" differs from the standard one, and every documented
 * fact still holds. Answers are not checked against spec/openapi.yaml (it records the standard choices).
 */
import * as assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { CallOptions, Res } from './helpers';
import { TOKEN_SAVING_EVENTS } from '../../../emulator/src/seed';
import { boot, Client, DEV_TOKEN, parseSse, READONLY_TOKEN, readSse, until, UUID_V7_RE } from './helpers';

const STANDARD_RUN_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];
const STANDARD_AGENT_STATUSES = ['provisioning', 'idle', 'running', 'error', 'deleting'];
const STANDARD_EVENT_NAMES = [
	'run.status',
	'message',
	'tool.call',
	'tool.result',
	'log',
	'file.changed',
	'artifact.created',
	'run.completed',
];
const VARIANT_AGENT_ID_RE = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}:[A-Za-z0-9_-]+$/;

/** A client that never validates against the spec (the spec records the standard choices). */
class VariantClient {
	readonly c: Client;
	constructor(base: string) {
		this.c = new Client(base);
	}
	call(method: string, path: string, opts: CallOptions = {}): Promise<Res> {
		return this.c.call(method, path, { ...opts, validate: false });
	}
	get(path: string, opts: CallOptions = {}) {
		return this.call('GET', path, opts);
	}
	post(path: string, json?: unknown, opts: CallOptions = {}) {
		return this.call('POST', path, { ...opts, json });
	}
	patch(path: string, json?: unknown, opts: CallOptions = {}) {
		return this.call('PATCH', path, { ...opts, json });
	}
	put(path: string, json?: unknown, opts: CallOptions = {}) {
		return this.call('PUT', path, { ...opts, json });
	}
	del(path: string, opts: CallOptions = {}) {
		return this.call('DELETE', path, opts);
	}
	admin(method: string, path: string, json?: unknown) {
		return this.c.admin(method, path, json);
	}
}

const enc = encodeURIComponent;

/** The documented error envelope: {error: {code, message}, request_id} with request_id = X-Request-Id (UUID v7). */
function assertEnvelope(r: Res, status: number, code: string): void {
	assert.equal(r.status, status, r.text);
	assert.match(r.contentType, /^application\/json/);
	assert.equal(typeof r.body.error?.message, 'string');
	assert.equal(r.body.error.code, code);
	const rid = r.headers.get('x-request-id');
	assert.ok(rid && UUID_V7_RE.test(rid), `X-Request-Id ${rid} is a UUID v7`);
	assert.equal(r.body.request_id, rid);
}

async function agentsByName(v: VariantClient): Promise<Map<string, any>> {
	const all = (await v.get('/v2/agents?limit=100')).body.agents as any[];
	return new Map(all.map((a) => [a.name, a]));
}

async function newReadyAgent(v: VariantClient, name: string): Promise<string> {
	const created = await v.post('/v2/agents', { name });
	assert.equal(created.status, 201, created.text);
	const id = created.body.id as string;
	await until(async () => (await v.get(`/v2/agents/${enc(id)}`)).body.status === 'READY');
	return id;
}

suite('emulator: variant profile', () => {
	let emu: RunningEmulator;
	let v: VariantClient;

	suiteSetup(async () => {
		let c: Client;
		({ emu, c } = await boot({ profile: 'variant', keepAliveMs: 150, deviceInterval: 1 }));
		v = new VariantClient(c.base);
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	suite('agents', () => {
		test('ids have upper-case letters and ":" between the runtime UUID and the harness id', async () => {
			const agents = await agentsByName(v);
			assert.equal(agents.size, 7);
			for (const a of agents.values()) {
				assert.match(a.id, VARIANT_AGENT_ID_RE);
				assert.ok(!a.id.includes('.'));
				assert.equal(a.id, `${String(a.runtime_id).toUpperCase()}:${a.harness_id}`);
			}
			assert.equal(agents.get('Docs writer').harness_id, 'Docs');
			// The id works in paths (":" percent-encoded or not); the standard form is refused.
			const billing = agents.get('Refactor billing module');
			assert.equal((await v.get(`/v2/agents/${enc(billing.id)}`)).body.id, billing.id);
			assert.equal((await v.get(`/v2/agents/${billing.id}`)).body.id, billing.id);
			const dotted = `${String(billing.runtime_id)}.main`;
			const r = await v.get(`/v2/agents/${dotted}`);
			assertEnvelope(r, 422, 'invalid_argument');
			assert.match(r.body.error.message, /<runtime-uuid>:<harness-id>/);
			// A new agent gets the same scheme with the default harness Main.
			const created = await v.post('/v2/agents', { name: 'Variant newcomer' });
			assert.equal(created.status, 201);
			assert.match(created.body.id, VARIANT_AGENT_ID_RE);
			assert.match(created.body.id, /:Main$/);
			assert.equal(created.body.status, 'STARTING');
			await v.del(`/v2/agents/${enc(created.body.id)}`);
		});

		test('the cursor parameter is page_token; cursor is ignored like any unknown parameter', async () => {
			const seen: string[] = [];
			let token: string | null = null;
			let pages = 0;
			do {
				const r = await v.get(`/v2/agents?limit=3${token ? `&page_token=${enc(token)}` : ''}`);
				assert.equal(r.status, 200);
				assert.ok(Array.isArray(r.body.agents));
				assert.ok('next_cursor' in r.body, 'the documented {agents, next_cursor}');
				seen.push(...r.body.agents.map((a: any) => a.id));
				token = r.body.next_cursor;
				pages++;
			} while (token !== null && pages < 10);
			assert.equal(pages, 3);
			assert.equal(new Set(seen).size, 7);
			const first = await v.get('/v2/agents?limit=3');
			const withOurs = await v.get(`/v2/agents?limit=3&cursor=${enc(first.body.next_cursor)}`);
			assert.deepEqual(
				withOurs.body.agents.map((a: any) => a.id),
				first.body.agents.map((a: any) => a.id),
				'cursor= does not page',
			);
		});

		test('agent statuses are another vocabulary, HIBERNATING included; latest_reply is absent', async () => {
			const agents = await agentsByName(v);
			const statuses = new Set([...agents.values()].map((a) => a.status));
			for (const s of statuses) assert.ok(!STANDARD_AGENT_STATUSES.includes(s), `${s} is not a standard status`);
			assert.equal(agents.get('Refactor billing module').status, 'READY');
			assert.equal(agents.get('CI triage').status, 'BUSY');
			assert.equal(agents.get('Legacy migration').status, 'FAILED');
			assert.equal(agents.get('Nightly dependency bump').status, 'HIBERNATING');
			assert.equal(agents.get('Sandbox explorer').status, 'HIBERNATING');
			for (const a of agents.values()) assert.ok(!('latest_reply' in a));
		});

		test('create: runtime and harness name an existing runtime and the harness id', async () => {
			const billing = (await agentsByName(v)).get('Refactor billing module');
			const r = await v.post('/v2/agents', { name: 'Variant helper', runtime: billing.runtime_id, harness: 'Helper_2' });
			assert.equal(r.status, 201, r.text);
			assert.equal(r.body.runtime_id, billing.runtime_id);
			assert.equal(r.body.harness_id, 'Helper_2');
			assert.equal(r.body.id, `${String(billing.runtime_id).toUpperCase()}:Helper_2`);
			assert.equal((await v.del(`/v2/agents/${enc(r.body.id)}`)).status, 204);
		});

		test('delete with delete_runtime answers 202 with another body', async () => {
			const id = await newReadyAgent(v, 'Doomed variant agent');
			const r = await v.del(`/v2/agents/${enc(id)}?delete_runtime=true`);
			assert.equal(r.status, 202);
			assert.equal(r.body.state, 'DELETE_REQUESTED');
			assert.match(r.body.runtime.id, /^[0-9a-f-]{36}$/);
			assert.ok(!('status' in r.body));
		});
	});

	suite('runs and events', () => {
		let agent: string;
		suiteSetup(async () => {
			agent = await newReadyAgent(v, 'Variant SSE agent');
		});

		const runPath = (run: string) => `/v2/agents/${enc(agent)}/runs/${run}`;
		const newRun = async (prompt: string): Promise<any> => {
			const r = await v.post(`/v2/agents/${enc(agent)}/runs`, { prompt });
			assert.equal(r.status, 202, r.text);
			return r.body;
		};
		const ended = (run: string) =>
			until(async () => {
				const s = (await v.get(runPath(run))).body.status as string;
				return ['completed', 'errored', 'canceled'].includes(s) ? s : undefined;
			});

		test('run statuses are another vocabulary; a held run is "blocked", which no list knows', async () => {
			const created = await newRun('statuses [[delay:1]]');
			assert.equal(created.status, 'pending');
			assert.equal(await ended(created.id), 'completed');
			const failed = await newRun('[[fail]] [[delay:1]]');
			assert.equal(await ended(failed.id), 'errored');
			const held = await newRun('[[hold]] [[delay:1]]');
			await until(async () => (await v.get(runPath(held.id))).body.status === 'blocked');
			const cancelled = await v.del(runPath(held.id));
			assert.equal(cancelled.body.status, 'canceled');
			const list = (await v.get(`/v2/agents/${enc(agent)}/runs`)).body as any[];
			for (const r of list) assert.ok(!STANDARD_RUN_STATUSES.includes(r.status), `${r.status} is not a standard status`);
			const triage = (await agentsByName(v)).get('CI triage');
			const runs = (await v.get(`/v2/agents/${enc(triage.id)}/runs`)).body as any[];
			assert.equal(runs[0].status, 'blocked');
		});

		test('events carry other names and envelopes; no run.completed; the stream ends cleanly when the run ends', async () => {
			const run = await newRun('envelopes [[delay:1]] [[events:3]]');
			const s = await readSse(emu.url, `${runPath(run.id)}/events?after=-1`);
			assert.equal(s.status, 200);
			assert.match(s.headers.get('content-type') ?? '', /^text\/event-stream/);
			assert.equal(s.cut, false, 'ended cleanly, not cut');
			assert.ok(!s.text.startsWith('retry:'), 'no retry preamble');
			const evs = parseSse(s.text).events;
			const names = evs.map((e) => e.event);
			for (const n of names) {
				assert.ok(n === 'log' || (n !== undefined && !STANDARD_EVENT_NAMES.includes(n)), `${n} is another event name`);
			}
			assert.ok(!names.includes('run.completed'));
			const ids = evs.map((e) => Number(e.id));
			for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, 'ids increase');
			// status: flat, another vocabulary, the seq under "sequence", the run nested
			const statuses = evs.filter((e) => e.event === 'status').map((e) => JSON.parse(e.data));
			assert.deepEqual(
				statuses.map((d) => d.status),
				['pending', 'in_progress', 'completed'],
			);
			assert.equal(statuses[0].run.id, run.id);
			assert.equal(String(statuses[0].sequence), evs[0]!.id);
			assert.ok('x_extra' in statuses[0], 'extra members in event payloads');
			// the last frame is the terminal status; the stream then ends
			assert.equal(evs.at(-1)!.event, 'status');
			assert.equal(JSON.parse(evs.at(-1)!.data).status, 'completed');
			// message text is nested
			const msg = JSON.parse(evs.find((e) => e.event === 'assistant_message')!.data);
			assert.equal(typeof msg.message.content[0].text, 'string');
			assert.ok(!('text' in msg));
			// log events are plain strings, not JSON
			const logs = evs.filter((e) => e.event === 'log');
			assert.equal(logs.length, 3);
			assert.equal(logs[0]!.data, 'step 1 of 3');
		});

		test('after stays exclusive and per run', async () => {
			const run = await newRun('after [[delay:1]] [[events:10]]');
			await ended(run.id);
			const all = parseSse((await readSse(emu.url, `${runPath(run.id)}/events?after=-1`)).text).events;
			const k = Number(all[4]!.id);
			const rest = parseSse((await readSse(emu.url, `${runPath(run.id)}/events?after=${k}`)).text).events;
			assert.deepEqual(
				rest.map((e) => e.id),
				all.slice(5).map((e) => e.id),
			);
			const other = await newRun('other run [[delay:1]]');
			await ended(other.id);
			const otherAll = parseSse((await readSse(emu.url, `${runPath(other.id)}/events?after=-1`)).text).events;
			assert.equal(otherAll[0]!.id, '0', 'each run counts from 0');
		});

		test('a quiet stream gets "ping" events instead of comments; cancellation ends it', async () => {
			const run = await newRun('quiet [[hold]] [[delay:1]]');
			const ctrl = new AbortController();
			const res = await fetch(emu.url + `${runPath(run.id)}/events`, {
				headers: { authorization: `Bearer ${DEV_TOKEN}` },
				signal: ctrl.signal,
			});
			const reader = res.body!.getReader();
			const dec = new TextDecoder();
			let text = '';
			try {
				await until(async () => {
					const { value } = await reader.read();
					text += dec.decode(value, { stream: true });
					return parseSse(text).events.some((e) => e.event === 'ping');
				});
				assert.equal(parseSse(text).comments.length, 0);
				await v.del(runPath(run.id));
				for (;;) {
					const { done, value } = await reader.read();
					if (done) break;
					text += dec.decode(value, { stream: true });
				}
			} finally {
				ctrl.abort();
			}
			const last = parseSse(text)
				.events.filter((e) => e.event !== 'ping')
				.at(-1)!;
			assert.equal(JSON.parse(last.data).status, 'canceled');
		});

		test('session replay: query "session", items with "event" and "sequence"; session_id is ignored', async () => {
			const billing = (await agentsByName(v)).get('Refactor billing module');
			const runs = (await v.get(`/v2/agents/${enc(billing.id)}/runs?limit=500`)).body as any[];
			const newest = runs[0].dsh_session_id as string;
			const older = runs.at(-1).dsh_session_id as string;
			assert.notEqual(newest, older);
			const r = await v.get(`/v2/agents/${enc(billing.id)}/events?session=${older}&after=2`);
			assert.equal(r.status, 200);
			assert.equal(r.body.agent_id, billing.id);
			assert.equal(r.body.session_id, older);
			assert.ok(r.body.events.length > 0);
			for (const e of r.body.events) {
				assert.equal(typeof e.event, 'string');
				assert.ok(e.sequence > 2, 'after is exclusive');
				assert.ok(!('type' in e) && !('seq' in e));
			}
			const ours = await v.get(`/v2/agents/${enc(billing.id)}/events?session_id=${older}`);
			assert.equal(ours.body.session_id, newest, "session_id= is not this server's parameter");
		});

		test('resume and follow-up bodies use "message" (the standard "prompt" is still accepted here)', async () => {
			const run = await newRun('first [[delay:1]]');
			await ended(run.id);
			const resumed = await v.post(`${runPath(run.id)}/resume`, { message: 'go on [[delay:1]]' });
			assert.equal(resumed.status, 202, resumed.text);
			assert.equal(resumed.body.prompt, 'go on [[delay:1]]');
			await ended(resumed.body.id);
			const follow = await v.post(`${runPath(resumed.body.id)}/follow-ups`, { message: 'and then [[delay:1]]' });
			assert.equal(follow.status, 202, follow.text);
			assert.equal(follow.body.prompt, 'and then [[delay:1]]');
			await ended(follow.body.id);
			const ours = await v.post(`${runPath(follow.body.id)}/follow-ups`, { prompt: 'ours [[delay:1]]' });
			assert.equal(ours.status, 202);
			await ended(ours.body.id);
		});
	});

	suite('artifacts and workspace', () => {
		let billing: any;
		suiteSetup(async () => {
			billing = (await agentsByName(v)).get('Refactor billing module');
		});
		const ws = (body: unknown) => v.post(`/v2/agents/${enc(billing.id)}/workspace`, body);

		test('artifact content is requested with include=content; include_content is ignored', async () => {
			const list = (await v.get(`/v2/agents/${enc(billing.id)}/artifacts`)).body as any[];
			const txt = list.find((a) => a.name === 'public-functions.txt');
			const base = `/v2/agents/${enc(billing.id)}/artifacts/${txt.id}`;
			assert.match(
				Buffer.from((await v.get(`${base}?include=content`)).body.content_base64, 'base64').toString('utf8'),
				/createInvoice/,
			);
			assert.ok(!('content_base64' in (await v.get(`${base}?include_content=true`)).body));
		});

		test('workspace operations are {operation, arguments} with another result shape', async () => {
			const list = await ws({ operation: 'list_directory', arguments: { path: 'src/lib' } });
			assert.equal(list.status, 200, list.text);
			assert.equal(list.body.operation, 'list_directory');
			assert.ok(!('entries' in list.body.result));
			const items = list.body.result.items as any[];
			assert.deepEqual(
				items.map((i) => i.path),
				['src/lib/billing.test.ts', 'src/lib/billing.ts', 'src/lib/util.ts'],
			);
			assert.equal(items[0].kind, 'file');
			assert.equal(typeof items[0].size_bytes, 'number');
			assert.match(items[0].modified_at, /^\d{4}-\d\d-\d\dT/);
			const root = (await ws({ operation: 'list_directory', arguments: { path: '' } })).body.result.items as any[];
			const dir = root.find((i) => i.path === 'src');
			assert.equal(dir.kind, 'dir');
			assert.ok(!('size_bytes' in dir), 'optional members absent');
			// paging with page_size / page_token
			const p1 = await ws({ operation: 'list_directory', arguments: { path: '', page_size: 2 } });
			assert.equal(p1.body.result.items.length, 2);
			const p2 = await ws({
				operation: 'list_directory',
				arguments: { path: '', page_size: 100, page_token: p1.body.result.next_page_token },
			});
			assert.ok(!('next_page_token' in p2.body.result), 'absent on the last page');
			assert.equal(p1.body.result.items.length + p2.body.result.items.length, root.length);
			// stat, read, search
			const stat = await ws({ operation: 'get_metadata', arguments: { path: 'src/lib/util.ts' } });
			assert.equal(stat.body.result.item.path, 'src/lib/util.ts');
			const read = await ws({ operation: 'read_file', arguments: { path: 'README.md', offset: 2, max_bytes: 7 } });
			assert.equal(read.body.result.data.encoding, 'base64');
			assert.equal(Buffer.from(read.body.result.data.content, 'base64').toString('utf8'), 'Billing');
			assert.equal(read.body.result.bytes, 7);
			assert.ok(!('complete' in read.body.result), 'absent while more remains');
			const search = await ws({ operation: 'search_text', arguments: { pattern: 'QUETZALCOATL' } });
			assert.ok(search.body.result.hits.length >= 2);
			assert.deepEqual(Object.keys(search.body.result.hits[0]).sort(), ['column_number', 'file', 'line_number', 'text', 'x_extra']);
			// documented facts: missing path 404, '..' refused
			assertEnvelope(await ws({ operation: 'get_metadata', arguments: { path: 'nope.txt' } }), 404, 'not_found');
			assertEnvelope(await ws({ operation: 'list_directory', arguments: { path: '../etc' } }), 422, 'invalid_argument');
			assertEnvelope(await ws({ operation: 'list', arguments: {} }), 422, 'invalid_argument');
		});

		test('the standard body is still understood here, but answered in the variant shape', async () => {
			const r = await ws({ op: 'list', path: 'docs' });
			assert.equal(r.status, 200);
			assert.equal(r.body.operation, 'list_directory');
			assert.ok(!('entries' in r.body) && !('op' in r.body));
			assert.ok(r.body.result.items.some((i: any) => i.path === 'docs/guide.md'));
		});

		test('a workspace write answers {path, size} without the assumed mtime', async () => {
			const r = await v.put(`/v2/agents/${enc(billing.id)}/workspace/files`, {
				path: 'notes/variant.txt',
				content_base64: Buffer.from('hi').toString('base64'),
			});
			assert.equal(r.status, 200);
			assert.equal(r.body.path, 'notes/variant.txt');
			assert.equal(r.body.size, 2);
			assert.ok(!('mtime_unix_ms' in r.body));
		});
	});

	suite('identity, device flow, providers, builds, checkpoints', () => {
		test('/v2/me has other members', async () => {
			const r = await v.get('/v2/me');
			assert.equal(r.status, 200);
			assert.equal(r.body.user_id, 'usr_ada_lovelace');
			assert.equal(r.body.name, 'Ada Lovelace');
			assert.equal(r.body.emails[0].address, 'ada@analytical-engines.example');
			assert.equal(r.body.organization.name, 'Analytical Engines Ltd');
			for (const m of ['id', 'email', 'display_name', 'organization_id', 'organization_name']) assert.ok(!(m in r.body), m);
		});

		test('device start has other members; the token exchange keeps 400 {error, interval?} with other error values', async () => {
			const start = await v.post('/v2/auth/device/authorization', {}, { token: null });
			assert.equal(start.status, 200, start.text);
			assert.match(start.body.verification_url, /\/device$/);
			assert.equal(start.body.polling_interval, 1);
			assert.ok(Date.parse(start.body.expires_at) > Date.now());
			for (const m of ['verification_uri', 'verification_uri_complete', 'expires_in', 'interval']) assert.ok(!(m in start.body), m);
			const poll = () => v.post('/v2/auth/device/token', { device_code: start.body.device_code }, { token: null });
			const pending = await poll();
			assert.equal(pending.status, 400);
			assert.equal(pending.body.error, 'pending');
			assert.ok(!('interval' in pending.body), 'interval is optional');
			const fast = await poll();
			assert.equal(fast.status, 400);
			assert.equal(fast.body.error, 'polling_too_fast');
			assert.equal(fast.body.interval, 6);
			await v.admin('POST', '/device/approve', { user_code: start.body.user_code });
			const ok = await poll();
			assert.equal(ok.status, 200);
			assert.equal(ok.body.token_type, 'bearer');
			assert.equal(typeof ok.body.expires_in, 'number');
			assert.equal((await v.get('/v2/me', { token: ok.body.access_token })).status, 200);
			const unknown = await v.post('/v2/auth/device/token', { device_code: 'dc_nope' }, { token: null });
			assert.equal(unknown.status, 400);
			assert.equal(unknown.body.error, 'invalid_device_code');
		});

		test('model providers have other fields and PATCH takes them', async () => {
			const list = await v.get('/v2/model-providers');
			assert.equal(list.body.organization_id, 'org_analytical_engines');
			const p = list.body.model_providers[0];
			assert.deepEqual(Object.keys(p).sort(), [
				'base_url',
				'default_model',
				'is_enabled',
				'modified_at',
				'name',
				'provider_id',
				'type',
				'x_extra',
			]);
			const r = await v.patch(`/v2/model-providers/${p.provider_id}`, {
				name: 'Renamed',
				base_url: 'https://llm.example/v1',
				default_model: 'm-2',
				is_enabled: false,
			});
			assert.equal(r.status, 200, r.text);
			assert.equal(r.body.name, 'Renamed');
			assert.equal(r.body.is_enabled, false);
		});

		test('image builds: X-Idempotency-Key and {name, dockerfile_content}; Idempotency-Key is ignored', async () => {
			const body = { name: 'variant-image', dockerfile_content: 'FROM scratch\n' };
			const a = await v.post('/v2/images/builds', body, { headers: { 'x-idempotency-key': 'variant-key-1' } });
			assert.equal(a.status, 200, a.text);
			const build = a.body.data;
			assert.equal(build.name, 'variant-image');
			assert.equal(build.architecture, 'x86_64');
			assert.equal(build.status, 'pending');
			assert.deepEqual(build.attempts, []);
			assert.ok(!('id' in build) && !('image_id' in build));
			const again = await v.post('/v2/images/builds', body, { headers: { 'x-idempotency-key': 'variant-key-1' } });
			assert.equal(again.body.data.build_id, build.build_id);
			const ours1 = await v.post('/v2/images/builds', body, { headers: { 'idempotency-key': 'our-key' } });
			const ours2 = await v.post('/v2/images/builds', body, { headers: { 'idempotency-key': 'our-key' } });
			assert.notEqual(ours1.body.data.build_id, ours2.body.data.build_id, "our header is not this server's");
			const done = await until(async () => {
				const g = await v.get(`/v2/images/builds/${build.build_id}`);
				return g.body.data.status === 'ready' ? g.body.data : undefined;
			});
			assert.equal(done.attempts[0].outcome, 'succeeded');
			assert.equal(typeof done.image.id, 'string');
			const list = await v.get('/v2/images/builds?limit=2');
			assert.equal(list.body.data.length, 2);
			assert.equal(typeof list.body.pagination.has_more, 'boolean');
		});

		test('image variants have other member names', async () => {
			const r = await v.get('/v2/images');
			assert.equal(r.status, 200);
			const browser = (r.body.data as any[]).find((i) => i.browser_surfaces.length > 0);
			assert.equal(typeof browser.name, 'string');
			assert.equal(browser.type, 'builtin');
			assert.deepEqual(browser.architectures, ['x86_64']);
			assert.equal(typeof browser.browser_surfaces[0].port, 'number');
			assert.equal(typeof browser.protocols[0].instructions, 'string');
			for (const m of [
				'display_name',
				'kind',
				'onboarding',
				'credential_variable',
				'subscription_credentials',
				'endpoint_overridable',
			]) {
				assert.ok(!(m in browser), m);
			}
		});

		test('checkpoints page with page_token and have other member names', async () => {
			const p1 = await v.get('/v2/checkpoints?limit=2');
			assert.equal(p1.status, 200);
			assert.equal(p1.body.data.length, 2);
			assert.equal(p1.body.pagination.has_more, true);
			const p2 = await v.get(`/v2/checkpoints?limit=2&page_token=${enc(p1.body.pagination.next_cursor)}`);
			assert.notEqual(p2.body.data[0].id, p1.body.data[0].id);
			const ours = await v.get(`/v2/checkpoints?limit=2&cursor=${enc(p1.body.pagination.next_cursor)}`);
			assert.equal(ours.body.data[0].id, p1.body.data[0].id);
			const all = (await v.get('/v2/checkpoints?limit=100')).body.data as any[];
			for (const c of all) {
				assert.ok(!('kind' in c) && !('state' in c) && !('resources' in c));
				assert.ok(['CREATING', 'AVAILABLE', 'FAILED'].includes(c.lifecycle));
			}
			assert.equal(all.find((c) => c.display_name === 'retired-runtime-final').source.runtime_id, null);
		});

		test('token savings: page_token and runtime, other record members', async () => {
			const p1 = await v.get('/v2/token-savings?page_size=5');
			assert.equal(p1.body.data.events.length, 5);
			assert.equal(p1.body.data.totals.events, TOKEN_SAVING_EVENTS);
			const e = p1.body.data.events[0];
			assert.equal(typeof e.runtime.id, 'string');
			assert.ok(Array.isArray(e.methods) && typeof e.methods[0].method === 'string');
			const p2 = await v.get(`/v2/token-savings?page_size=5&page_token=${enc(p1.body.data.pagination.next_cursor)}`);
			assert.notEqual(p2.body.data.events[0].id, e.id);
			const one = await v.get(`/v2/token-savings?runtime=${e.runtime.id}`);
			assert.ok(one.body.data.events.every((x: any) => x.runtime.id === e.runtime.id));
			assert.ok(one.body.data.totals.events < TOKEN_SAVING_EVENTS);
		});
	});

	suite('extra members everywhere, optional members absent', () => {
		test('unknown members at every level, of several types', async () => {
			const r = await v.get('/v2/runtimes?limit=100');
			assert.ok('x_extra' in r.body);
			assert.ok('x_extra' in r.body.pagination);
			const rt = r.body.data[0];
			assert.ok('x_extra' in rt && 'x_extra' in rt.resources && 'x_extra' in rt.resources.current);
			const types = new Set(
				[r.body.x_extra, r.body.pagination.x_extra, rt.x_extra, rt.resources.current.x_extra].map((x) =>
					x === null ? 'null' : Array.isArray(x) ? 'array' : typeof x,
				),
			);
			assert.ok(types.size >= 3, [...types].join(','));
			for (const x of r.body.data) {
				if ('environment_variables' in x) assert.ok(!('x_extra' in x.environment_variables), 'maps stay maps');
			}
		});

		test('runtimes leave out null and empty optional members and use other policy variants', async () => {
			const created = await v.post('/v2/agents', { name: 'Bare runtime agent' });
			const rts = (await v.get('/v2/runtimes?limit=100')).body.data as any[];
			for (const rt of rts) {
				assert.ok(!('vnc_error_code' in rt) || rt.vnc_error_code !== null);
				assert.ok(!('error_code' in rt) || rt.error_code !== null);
			}
			const bare = rts.find((rt) => rt.id === created.body.runtime_id);
			assert.ok(!('environment_variables' in bare), 'no variables: the optional member is absent');
			assert.ok(!('vnc_error_code' in bare) && !('error_code' in bare));
			assert.ok(rts.some((rt) => 'environment_variables' in rt));
			const allow = rts.find((rt) => rt.egress_policy.mode === 'allow_only');
			assert.ok(Array.isArray(allow.egress_policy.hosts));
			for (const rt of rts) {
				assert.ok(['denylist', 'allow_only'].includes(rt.egress_policy.mode), rt.egress_policy.mode);
				assert.ok(['disabled', 'suspend', 'suspend_wake_on_activity'].includes(rt.idle_policy.mode), rt.idle_policy.mode);
			}
			assert.ok(rts.some((rt) => rt.idle_policy.mode !== 'disabled' && typeof rt.idle_policy.idle_after_seconds === 'number'));
		});

		test('secret value_preview and GitHub request reason are absent', async () => {
			const rt = (await v.get('/v2/runtimes?limit=100')).body.data.find((x: any) => x.secret_configuration.length > 0);
			const secret = await v.get(`/v2/secrets/${rt.secret_configuration[0].secret_id}`);
			assert.equal(secret.status, 200);
			assert.ok(!('value_preview' in secret.body.data));
			const reqs = (await v.get('/v2/github/authorization-requests')).body.data.requests as any[];
			assert.ok(reqs.length > 0);
			for (const q of reqs) assert.ok(!('reason' in q));
		});
	});

	suite('documented facts still hold', () => {
		test('error envelope with request_id = X-Request-Id; 401 and 403', async () => {
			const missing = await v.get('/v2/agents', { token: null });
			assertEnvelope(missing, 401, 'unauthenticated');
			assert.match(missing.headers.get('www-authenticate') ?? '', /^Bearer/);
			assertEnvelope(await v.get('/v2/agents', { token: 'ca_wrong_token_value' }), 401, 'unauthenticated');
			assertEnvelope(await v.post('/v2/agents', { name: 'nope' }, { token: READONLY_TOKEN }), 403, 'permission_denied');
			const billing = (await agentsByName(v)).get('Refactor billing module');
			assertEnvelope(await v.get(`/v2/agents/${enc(billing.id)}/runs/run_nope`), 404, 'not_found');
			// /v1 errors carry no request_id; the header is still sent
			const v1 = await v.get('/v1/secret-stubs', { token: null });
			assert.equal(v1.status, 401);
			assert.equal(v1.body.error.code, 'unauthenticated');
			assert.ok(!('request_id' in v1.body));
			assert.match(v1.headers.get('x-request-id') ?? '', UUID_V7_RE);
			// success answers carry the header too
			assert.match((await v.get('/v2/me')).headers.get('x-request-id') ?? '', UUID_V7_RE);
		});

		test('documented limits and wrappers', async () => {
			assertEnvelope(await v.get('/v2/agents?limit=101'), 422, 'invalid_argument');
			assertEnvelope(await v.get('/v2/agents?limit=0'), 422, 'invalid_argument');
			assertEnvelope(await v.post('/v2/agents', { name: '   ' }), 422, 'invalid_argument');
			const rts = await v.get('/v2/runtimes?limit=3');
			assert.equal(rts.body.data.length, 3);
			assert.equal(rts.body.pagination.has_more, true);
			const next = await v.get(`/v2/runtimes?limit=3&after=${enc(rts.body.pagination.next_cursor)}`);
			assert.notEqual(next.body.data[0].id, rts.body.data[0].id, 'runtimes page with the documented after');
			const triage = (await agentsByName(v)).get('CI triage');
			const conflict = await v.post(`/v2/agents/${enc(triage.id)}/runs`, { prompt: 'second' });
			assertEnvelope(conflict, 409, 'failed_precondition');
		});
	});
});

suite('emulator: variant-strict profile', () => {
	let emu: RunningEmulator;
	let v: VariantClient;
	let billing: any;

	suiteSetup(async () => {
		let c: Client;
		({ emu, c } = await boot({ profile: 'variant-strict' }));
		v = new VariantClient(c.base);
		billing = (await agentsByName(v)).get('Refactor billing module');
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	test('our workspace body {op, path} is refused with 400 and a message naming the expected shape', async () => {
		for (const body of [
			{ op: 'list', path: '' },
			{ op: 'read', path: 'README.md', offset: 0, length: 10 },
			{ op: 'search', query: 'TODO' },
		]) {
			const r = await v.post(`/v2/agents/${enc(billing.id)}/workspace`, body);
			assertEnvelope(r, 400, 'invalid_argument');
			assert.match(r.body.error.message, /\{operation, arguments\}/);
			assert.match(r.body.error.message, /"op" is not a member/);
		}
		const ok = await v.post(`/v2/agents/${enc(billing.id)}/workspace`, { operation: 'list_directory', arguments: { path: '' } });
		assert.equal(ok.status, 200);
		assert.ok(ok.body.result.items.length > 0);
	});

	test('our member names in other bodies are refused with 422', async () => {
		const providers = (await v.get('/v2/model-providers')).body.model_providers as any[];
		const patch = await v.patch(`/v2/model-providers/${providers[0].provider_id}`, {
			display_name: 'x',
			endpoint: 'https://e.example',
			model: 'm',
			enabled: true,
		});
		assertEnvelope(patch, 422, 'invalid_argument');
		assert.match(patch.body.error.message, /^display_name: unknown member/);
		const build = await v.post('/v2/images/builds', { display_name: 'x', dockerfile: 'FROM scratch' });
		assertEnvelope(build, 422, 'invalid_argument');
		const agent = await v.post('/v2/agents', { name: 'x', runtime_id: billing.runtime_id, harness_id: 'Other' });
		assertEnvelope(agent, 422, 'invalid_argument');
		assert.match(agent.body.error.message, /^runtime_id: unknown member/);
		const runs = (await v.get(`/v2/agents/${enc(billing.id)}/runs`)).body as any[];
		const follow = await v.post(`/v2/agents/${enc(billing.id)}/runs/${runs[0].id}/follow-ups`, { prompt: 'ours' });
		assertEnvelope(follow, 422, 'invalid_argument');
		assert.match(follow.body.error.message, /^prompt: unknown member/);
		const missing = await v.post(`/v2/agents/${enc(billing.id)}/runs/${runs[0].id}/follow-ups`, {});
		assertEnvelope(missing, 422, 'invalid_argument');
		assert.match(missing.body.error.message, /^message: is required/);
	});
});
