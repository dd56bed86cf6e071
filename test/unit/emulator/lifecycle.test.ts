/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/** Run lifecycle, agent deletion semantics and the ambiguous create. */
import * as assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { Client } from './helpers';
import { b64, boot, DEV_TOKEN, parseSse, readSse, unb64, until } from './helpers';

suite('emulator: run lifecycle and agents', () => {
	let emu: RunningEmulator;
	let c: Client;
	let agent: string;

	suiteSetup(async () => {
		({ emu, c } = await boot());
		agent = (await c.post('/v2/agents', { name: 'Lifecycle agent' })).body.id;
		await until(async () => (await c.get(`/v2/agents/${agent}`)).body.status === 'idle');
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	const getRun = async (id: string) => (await c.get(`/v2/agents/${agent}/runs/${id}`)).body;
	const finished = (id: string) =>
		until(async () => {
			const r = await getRun(id);
			return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
		});

	test('queued → running → succeeded with a result; the run changes a file and creates an artifact', async function () {
		this.timeout(15_000);
		const created = await c.post(`/v2/agents/${agent}/runs`, { prompt: 'Tidy up the notes' });
		assert.equal(created.status, 202);
		assert.equal(created.body.status, 'queued');
		assert.match(created.body.id, /^run_[0-9A-Z]{26}$/);
		assert.match(created.body.dsh_session_id, /^ses_[0-9A-Z]{26}$/);
		const running = await until(async () => ((await getRun(created.body.id)).status === 'running' ? true : undefined));
		assert.ok(running);
		assert.equal((await c.get(`/v2/agents/${agent}`)).body.status, 'running');
		const t0 = Date.now();
		const done = await finished(created.body.id);
		assert.equal(done.status, 'succeeded');
		assert.match(done.result, /^## Done/);
		assert.ok(Date.now() - t0 > 1000, 'the run takes a few seconds');
		const evs = parseSse((await readSse(emu.url, `/v2/agents/${agent}/runs/${created.body.id}/events`)).text).events.map((e) =>
			JSON.parse(e.data),
		);
		assert.deepEqual(
			evs.filter((e) => e.type === 'run.status').map((e) => e.data.status),
			['queued', 'running', 'succeeded'],
		);
		for (const t of ['message', 'tool.call', 'tool.result', 'log', 'file.changed', 'artifact.created', 'run.completed']) {
			assert.ok(
				evs.some((e) => e.type === t),
				t,
			);
		}
		const changed = evs.find((e) => e.type === 'file.changed').data;
		const read = await c.post(`/v2/agents/${agent}/workspace`, { op: 'read', path: changed.path });
		assert.match(unb64(read.body.content_base64), new RegExp(created.body.id));
		const art = evs.find((e) => e.type === 'artifact.created').data;
		const got = await c.get(`/v2/agents/${agent}/artifacts/${art.artifact_id}?include_content=true`);
		assert.equal(got.body.name, art.name);
		assert.equal(got.body.run_id, created.body.id);
		const a = (await c.get(`/v2/agents/${agent}`)).body;
		assert.equal(a.status, 'idle');
		assert.equal(a.latest_reply.run_id, created.body.id);
		assert.equal(a.latest_reply.text, done.result);
	});

	test('[[fail]] ends failed with an error; [[write:]] and [[artifact:]] act on the workspace and artifacts', async () => {
		const r = await c.post(`/v2/agents/${agent}/runs`, {
			prompt: '[[delay:1]] [[write:docs/new/page.md]] [[artifact:report-1.md]] [[fail]]',
		});
		const done = await finished(r.body.id);
		assert.equal(done.status, 'failed');
		assert.match(done.error, /\[\[fail\]\]/);
		assert.equal((await c.post(`/v2/agents/${agent}/workspace`, { op: 'stat', path: 'docs/new/page.md' })).status, 200);
		const arts = (await c.get(`/v2/agents/${agent}/artifacts`)).body as { name: string }[];
		assert.ok(arts.some((x) => x.name === 'report-1.md'));
	});

	test('cancel through DELETE → cancelled; 409 while active; cancel of a finished run is a no-op', async () => {
		const r = await c.post(`/v2/agents/${agent}/runs`, { prompt: 'long job [[hold]] [[delay:1]]' });
		await until(async () => (await getRun(r.body.id)).status === 'running');
		assert.equal((await c.post(`/v2/agents/${agent}/runs`, { prompt: 'second' })).status, 409);
		assert.equal((await c.post(`/v2/agents/${agent}/runs/${r.body.id}/resume`)).status, 409);
		const del = await c.del(`/v2/agents/${agent}/runs/${r.body.id}`);
		assert.equal(del.status, 200);
		assert.equal(del.body.status, 'cancelled');
		const again = await c.del(`/v2/agents/${agent}/runs/${r.body.id}`);
		assert.equal(again.status, 200);
		assert.equal(again.body.status, 'cancelled');
		const counters = (await c.admin('GET', '/counters')).body;
		assert.equal(counters.mutations.by_kind['runs.cancel'], 1);
	});

	test('resume: a new run in the same session; follow-up steers an active run or starts a new one', async () => {
		const first = await c.post(`/v2/agents/${agent}/runs`, { prompt: 'part one [[delay:1]]' });
		await finished(first.body.id);
		const resumed = await c.post(`/v2/agents/${agent}/runs/${first.body.id}/resume`, { prompt: 'part two [[delay:1]]' });
		assert.equal(resumed.status, 202);
		assert.notEqual(resumed.body.id, first.body.id);
		assert.equal(resumed.body.dsh_session_id, first.body.dsh_session_id);
		await finished(resumed.body.id);

		const held = await c.post(`/v2/agents/${agent}/runs`, { prompt: 'steer me [[hold]] [[delay:1]]' });
		const steer = await c.post(`/v2/agents/${agent}/runs/${first.body.id}/follow-ups`, { prompt: 'also update the changelog' });
		assert.equal(steer.status, 202);
		assert.equal(steer.body.id, held.body.id, 'the active run is steered');
		await c.del(`/v2/agents/${agent}/runs/${held.body.id}`);
		const evs = parseSse((await readSse(emu.url, `/v2/agents/${agent}/runs/${held.body.id}/events`)).text).events.map((e) =>
			JSON.parse(e.data),
		);
		assert.ok(evs.some((e) => e.type === 'message' && e.data.role === 'user' && e.data.text === 'also update the changelog'));

		const fresh = await c.post(`/v2/agents/${agent}/runs/${first.body.id}/follow-ups`, { prompt: 'one more thing [[delay:1]]' });
		assert.equal(fresh.status, 202);
		assert.equal(fresh.body.parent_run_id, first.body.id);
		await finished(fresh.body.id);
	});

	test('resume without a resumable session → 422; a follow-up works instead', async () => {
		const r = await c.post(`/v2/agents/${agent}/runs`, { prompt: 'bootstrap [[nosession]] [[delay:1]]' });
		assert.equal(r.body.dsh_session_id, undefined);
		await finished(r.body.id);
		const res = await c.post(`/v2/agents/${agent}/runs/${r.body.id}/resume`);
		assert.equal(res.status, 422);
		assert.equal(res.body.error.code, 'failed_precondition');
		const f = await c.post(`/v2/agents/${agent}/runs/${r.body.id}/follow-ups`, { prompt: 'go on [[delay:1]]' });
		assert.equal(f.status, 202);
		await finished(f.body.id);
	});

	test('run list is newest first and honours limit', async () => {
		const all = (await c.get(`/v2/agents/${agent}/runs`)).body as { created_at: string }[];
		assert.ok(all.length >= 5);
		const sorted = [...all].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
		assert.deepEqual(
			all.map((r) => r.created_at),
			sorted.map((r) => r.created_at),
		);
		assert.equal((await c.get(`/v2/agents/${agent}/runs?limit=2`)).body.length, 2);
	});

	test('initial_message: the first run appears once the runtime is ready', async () => {
		const a = await c.post('/v2/agents', { name: 'Bootstrapped', initial_message: 'Say hello [[delay:1]]' });
		assert.equal(a.status, 201);
		assert.equal((await c.post(`/v2/agents/${a.body.id}/runs`, { prompt: 'too early' })).status, 409, 'runtime initialization pending');
		const runs = await until(async () => {
			const l = (await c.get(`/v2/agents/${a.body.id}/runs`)).body as { prompt: string }[];
			return l.length > 0 ? l : undefined;
		});
		assert.equal(runs[0]!.prompt, 'Say hello [[delay:1]]');
	});

	test('delete_runtime=true: 202, the runtime is deleting, then 404 when polled', async () => {
		const a = (await c.post('/v2/agents', { name: 'Disposable' })).body;
		await until(async () => (await c.get(`/v2/agents/${a.id}`)).body.status === 'idle');
		// Timed from before the request: the runtime goes 1.5 s after the delete, however slowly the
		// checks below run on a busy machine (timed from after them, a slow check ate the delay).
		const t0 = Date.now();
		const d = await c.del(`/v2/agents/${a.id}?delete_runtime=true`);
		assert.equal(d.status, 202);
		assert.equal(d.body.runtime_id, a.runtime_id);
		assert.equal((await c.get(`/v2/agents/${a.id}`)).status, 404);
		const listed = (await c.get('/v2/runtimes?status=deleting')).body.data as { id: string }[];
		assert.ok(listed.some((r) => r.id === a.runtime_id));
		await until(async () => (await c.get(`/v2/runtimes/${a.runtime_id}/vnc-credentials`)).status === 404);
		assert.ok(Date.now() - t0 >= 1500, `the runtime disappears after a short delay (${Date.now() - t0} ms)`);
	});

	test('delete without delete_runtime keeps the runtime (204)', async () => {
		const a = (await c.post('/v2/agents', { name: 'Keep my runtime' })).body;
		const d = await c.del(`/v2/agents/${a.id}`);
		assert.equal(d.status, 204);
		assert.equal((await c.get(`/v2/runtimes/${a.runtime_id}/vnc-credentials`)).status, 200);
	});

	test('ambiguous_timeout on createAgent: the socket is cut, yet exactly one agent exists', async () => {
		await c.admin('POST', '/counters/reset');
		await c.admin('PUT', '/faults', { rules: [{ method: 'POST', route: '/v2/agents', ambiguous_timeout: true, count: 1 }] });
		await assert.rejects(
			fetch(`${emu.url}/v2/agents`, {
				method: 'POST',
				headers: { authorization: `Bearer ${DEV_TOKEN}`, 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'Ambiguous one' }),
			}).then((r) => r.text()),
		);
		const counters = (await c.admin('GET', '/counters')).body;
		assert.equal(counters.mutations.by_kind['agents.create'], 1);
		assert.equal(counters.requests.by_route['POST /v2/agents'], 1);
		const agents = (await c.get('/v2/agents?limit=100')).body.agents as { name: string }[];
		assert.equal(agents.filter((x) => x.name === 'Ambiguous one').length, 1);
		await c.admin('DELETE', '/faults');
	});

	test('workspace: PUT creates parents, mtimes strictly advance, list pages with cursors', async () => {
		const w1 = await c.put(`/v2/agents/${agent}/workspace/files`, { path: 'deep/a/b/c.txt', content_base64: b64('1') });
		const w2 = await c.put(`/v2/agents/${agent}/workspace/files`, { path: 'deep/a/b/c.txt', content_base64: b64('22') });
		assert.ok(w2.body.mtime_unix_ms > w1.body.mtime_unix_ms);
		for (const n of ['x1', 'x2', 'x3', 'x4', 'x5']) {
			await c.put(`/v2/agents/${agent}/workspace/files`, { path: `deep/${n}`, content_base64: '' });
		}
		const names: string[] = [];
		let cursor: string | null = null;
		do {
			const page: any = await c.post(`/v2/agents/${agent}/workspace`, {
				op: 'list',
				path: 'deep',
				limit: 2,
				...(cursor ? { cursor } : {}),
			});
			names.push(...page.body.entries.map((e: { name: string }) => e.name));
			cursor = page.body.next_cursor;
		} while (cursor);
		assert.deepEqual(names, ['a', 'x1', 'x2', 'x3', 'x4', 'x5']);
		const del = await c.call('DELETE', `/v2/agents/${agent}/workspace/files`, { json: { path: 'deep', recursive: true } });
		assert.equal(del.status, 204);
		assert.equal((await c.post(`/v2/agents/${agent}/workspace`, { op: 'stat', path: 'deep/a' })).status, 404);
	});
});
