/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/** Run event streams: sequence ids, the exclusive after cursor, replay, keep-alives, drops. */
import * as assert from 'node:assert/strict';
import { validateResponse } from '../support/openapiValidator';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { Client } from './helpers';
import { boot, DEV_TOKEN, parseSse, readSse, until } from './helpers';

interface Ev {
	seq: number;
	run_id: string;
	type: string;
	data: Record<string, unknown>;
}

const events = (text: string): Ev[] =>
	parseSse(text).events.map((e) => {
		const rec = JSON.parse(e.data) as Ev;
		assert.equal(String(rec.seq), e.id, 'the SSE id is the record seq');
		assert.equal(rec.type, e.event, 'the SSE event name is the record type');
		return rec;
	});

function assertContiguous(seqs: number[], from: number, to: number): void {
	assert.deepEqual(
		seqs,
		Array.from({ length: to - from + 1 }, (_, i) => from + i),
	);
}

suite('emulator: run event streams (SSE)', () => {
	let emu: RunningEmulator;
	let c: Client;
	let agent: string;

	suiteSetup(async () => {
		({ emu, c } = await boot({ keepAliveMs: 150 }));
		const created = await c.post('/v2/agents', { name: 'SSE agent' });
		agent = created.body.id;
		await until(async () => (await c.get(`/v2/agents/${agent}`)).body.status === 'idle');
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	const path = (run: string, after: number) => `/v2/agents/${agent}/runs/${run}/events?after=${after}`;
	const newRun = async (prompt: string): Promise<string> => {
		const r = await c.post(`/v2/agents/${agent}/runs`, { prompt });
		assert.equal(r.status, 202, r.text);
		return r.body.id;
	};
	const finished = (run: string) =>
		until(async () => ['succeeded', 'failed', 'cancelled'].includes((await c.get(`/v2/agents/${agent}/runs/${run}`)).body.status));

	test('after=-1 replays everything, with retry first, and the stream ends after run.completed', async () => {
		const run = await newRun('replay me [[delay:2]] [[events:5]]');
		await finished(run);
		const s = await readSse(emu.url, path(run, -1));
		assert.equal(s.status, 200);
		assert.equal(s.cut, false);
		assert.match(s.headers.get('content-type') ?? '', /^text\/event-stream/);
		assert.deepEqual(
			validateResponse({
				method: 'GET',
				pathTemplate: '/v2/agents/{agent_id}/runs/{run_id}/events',
				status: 200,
				headers: s.headers,
				body: s.text,
				contentType: s.headers.get('content-type') ?? '',
			}),
			[],
		);
		assert.ok(s.text.startsWith('retry: 3000\n\n'));
		const evs = events(s.text);
		assertContiguous(
			evs.map((e) => e.seq),
			0,
			evs.length - 1,
		);
		assert.equal(evs[0]!.type, 'run.status');
		assert.deepEqual(evs[0]!.data, { status: 'queued' });
		assert.equal(evs.at(-1)!.type, 'run.completed');
		assert.equal(evs.at(-1)!.data.status, 'succeeded');
		assert.ok(evs.every((e) => e.run_id === run));
		// Omitting after is the same as -1.
		assert.equal(events((await readSse(emu.url, `/v2/agents/${agent}/runs/${run}/events`)).text).length, evs.length);
	});

	test('resuming with after = last seen id yields exactly the remaining events', async () => {
		const run = await newRun('split me [[delay:1]] [[events:40]]');
		await finished(run);
		const all = events((await readSse(emu.url, path(run, -1))).text);
		for (const k of [0, 1, 17, all.length - 2, all.length - 1]) {
			const rest = events((await readSse(emu.url, path(run, k))).text);
			assertContiguous(
				rest.map((e) => e.seq),
				k + 1,
				all.length - 1,
			);
			assert.deepEqual([...all.slice(0, k + 1), ...rest], all);
		}
	});

	test('a live stream reconnected after every drop (drop_sse_after_events) has no gaps and no duplicates', async () => {
		await c.admin('PUT', '/faults', { rules: [{ route: '/v2/agents/{agent_id}/runs/{run_id}/events', drop_sse_after_events: 250 }] });
		try {
			const run = await newRun('live [[delay:1]] [[events:3000]]');
			const seen: number[] = [];
			let after = -1;
			let connections = 0;
			for (;;) {
				const s = await readSse(emu.url, path(run, after));
				connections++;
				const evs = events(s.text);
				assert.ok(evs.length <= 250, 'the fault cuts each stream after 250 events');
				seen.push(...evs.map((e) => e.seq));
				if (evs.at(-1)?.type === 'run.completed') break;
				assert.equal(s.cut || evs.length < 250, true);
				if (evs.length > 0) after = evs.at(-1)!.seq;
				assert.ok(connections < 100);
			}
			assertContiguous(seen, 0, seen.length - 1);
			assert.ok(seen.length > 3000);
			assert.ok(connections >= 12);
		} finally {
			await c.admin('DELETE', '/faults');
		}
	});

	test('drop_sse_after_events closes the stream after exactly N events', async () => {
		const run = await newRun('drop [[delay:1]] [[events:30]]');
		await finished(run);
		await c.admin('PUT', '/faults', {
			rules: [{ route: '/v2/agents/{agent_id}/runs/{run_id}/events', drop_sse_after_events: 7, count: 1 }],
		});
		const s = await readSse(emu.url, path(run, -1));
		assert.equal(s.cut, true, 'the connection is cut, not ended cleanly');
		assertContiguous(
			events(s.text).map((e) => e.seq),
			0,
			6,
		);
		const again = await readSse(emu.url, path(run, 6));
		assert.equal(again.cut, false);
		assert.equal(events(again.text)[0]!.seq, 7);
		await c.admin('DELETE', '/faults');
	});

	test('a run with [[events:20000]] streams all of them', async function () {
		this.timeout(30_000);
		const run = await newRun('many [[events:20000]] [[delay:1]]');
		const s = await readSse(emu.url, path(run, -1));
		const evs = events(s.text);
		assertContiguous(
			evs.map((e) => e.seq),
			0,
			evs.length - 1,
		);
		assert.equal(evs.filter((e) => e.type === 'log').length, 20000);
		assert.equal(evs.at(-1)!.type, 'run.completed');
		// and the history stays replayable
		const tail = events((await readSse(emu.url, path(run, 19990))).text);
		assertContiguous(
			tail.map((e) => e.seq),
			19991,
			evs.length - 1,
		);
	});

	test('keep-alive comments while a run is quiet; cancellation ends the stream', async () => {
		const run = await newRun('wait [[hold]] [[delay:1]]');
		const ctrl = new AbortController();
		const res = await fetch(emu.url + path(run, -1), { headers: { authorization: `Bearer ${DEV_TOKEN}` }, signal: ctrl.signal });
		const reader = res.body!.getReader();
		let text = '';
		const dec = new TextDecoder();
		const reading = (async () => {
			for (;;) {
				const { done, value } = await reader.read();
				if (done) return;
				text += dec.decode(value, { stream: true });
			}
		})();
		await until(async () => parseSse(text).comments.filter((x) => x === 'keep-alive').length >= 2, 5000, 20);
		await c.del(`/v2/agents/${agent}/runs/${run}`);
		await reading;
		const evs = events(text);
		assert.equal(evs.at(-1)!.type, 'run.completed');
		assert.equal(evs.at(-1)!.data.status, 'cancelled');
	});

	test('an error event arrives when the run disappears mid-stream', async () => {
		const other = await c.post('/v2/agents', { name: 'doomed' });
		await until(async () => (await c.get(`/v2/agents/${other.body.id}`)).body.status === 'idle');
		const run = (await c.post(`/v2/agents/${other.body.id}/runs`, { prompt: '[[hold]] [[delay:1]]' })).body.id;
		const reading = readSse(emu.url, `/v2/agents/${other.body.id}/runs/${run}/events?after=-1`);
		await new Promise((r) => setTimeout(r, 100));
		assert.equal((await c.del(`/v2/agents/${other.body.id}?delete_runtime=true`)).status, 202);
		const s = await reading;
		const last = parseSse(s.text).events.at(-1)!;
		assert.equal(last.event, 'error');
		assert.equal(JSON.parse(last.data).error.code, 'not_found');
	});

	test('session replay: GET /v2/agents/{id}/events with session_id and after', async () => {
		const run = await newRun('session [[delay:1]] [[events:3]]');
		await finished(run);
		const r = await c.get(`/v2/agents/${agent}/runs/${run}`);
		const all = await c.get(`/v2/agents/${agent}/events?session_id=${r.body.dsh_session_id}`);
		assert.equal(all.status, 200);
		assert.equal(all.body.session_id, r.body.dsh_session_id);
		const tail = await c.get(`/v2/agents/${agent}/events?session_id=${r.body.dsh_session_id}&after=2`);
		assert.deepEqual(tail.body.events, all.body.events.slice(3));
		assert.equal((await c.get(`/v2/agents/${agent}/events?session_id=ses_unknown`)).status, 404);
	});
});
