/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/**
 * The scripted agent's `[[hold]]` (emulator/src/runs.ts) released by a test
 * (`POST /_emulator/runs/{run_id}/release`, admin.ts): a held run stays running until the test
 * releases it (it then goes on to its scripted end) or cancels it. Runs step on real timers, not on
 * the emulator clock: a held clock holds no run.
 */
import * as assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { Client } from './helpers';
import { boot, until } from './helpers';

suite('emulator: [[hold]] runs released by the test', () => {
	let emu: RunningEmulator;
	let c: Client;
	let agent: string;

	const getRun = async (id: string): Promise<any> => (await c.get(`/v2/agents/${agent}/runs/${id}`)).body;
	const start = async (prompt: string): Promise<string> => {
		const r = await c.post(`/v2/agents/${agent}/runs`, { prompt });
		assert.equal(r.status, 202, r.text);
		return r.body.id;
	};
	const ended = (id: string): Promise<any> =>
		until(async () => {
			const r = await getRun(id);
			return ['succeeded', 'failed', 'cancelled'].includes(r.status) ? r : undefined;
		});
	const release = (id: string) => c.admin('POST', `/runs/${encodeURIComponent(id)}/release`);
	const events = async (id: string): Promise<number> =>
		(await c.admin('GET', '/state')).body.runs.find((r: any) => r.id === id).event_count;

	suiteSetup(async () => {
		({ emu, c } = await boot());
		agent = (await c.post('/v2/agents', { name: 'Held runs' })).body.id;
		// Provisioned at once: the clock moves the second it takes.
		await c.admin('POST', '/clock/advance', { ms: 1000 });
		assert.equal((await c.get(`/v2/agents/${agent}`)).body.status, 'idle');
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	test('a [[hold]] run stays running at its hold; released, it goes on to its scripted end with its result', async function () {
		this.timeout(20_000);
		const id = await start('Write it up [[artifact:notes.md]] [[delay:20]] [[hold]]');
		// At the hold: the artifact step is done and nothing follows it.
		await until(async () => (await c.admin('GET', '/state')).body.artifacts.some((a: any) => a.run_id === id && a.name === 'notes.md'));
		const atHold = await events(id);
		await new Promise((r) => setTimeout(r, 300));
		assert.equal((await getRun(id)).status, 'running');
		assert.equal(await events(id), atHold, 'no event while held');

		const r = await release(id);
		assert.equal(r.status, 200, r.text);
		assert.deepEqual(r.body, { run_id: id, status: 'running', released: true });
		const done = await ended(id);
		assert.equal(done.status, 'succeeded');
		assert.match(done.result, /^## Done\n\nTask: Write it up\n\n### Artifacts\n- notes\.md$/);
		assert.equal((await release(id)).status, 409, 'an ended run has nothing to release');
	});

	test('released before it reaches its hold, a run passes it; [[fail]] still fails', async function () {
		this.timeout(20_000);
		const id = await start('Count [[ticks:5]] [[delay:40]] [[hold]] [[fail]]');
		assert.equal((await release(id)).status, 200);
		assert.equal((await release(id)).status, 409, 'released once');
		const done = await ended(id);
		assert.equal(done.status, 'failed');
		assert.equal(done.error, 'Scripted failure requested with [[fail]]');
	});

	test('nothing to release: 404 for an unknown run, 409 for a run without [[hold]] and for the seed held run (cancel ends those)', async function () {
		this.timeout(20_000);
		assert.equal((await release('run_00000000000000000000000000')).status, 404);
		const plain = await start('Plain [[events:1]] [[delay:200]]');
		const refused = await release(plain);
		assert.equal(refused.status, 409, refused.text);
		assert.match(refused.body.error.message, /not held by a \[\[hold\]\]/);
		await ended(plain);
		const s = (await c.admin('GET', '/state')).body;
		const triage = s.agents.find((a: any) => a.name === 'CI triage');
		const seeded = s.runs.find((r: any) => r.agent_id === triage.id && r.status === 'running');
		assert.ok(seeded, 'the seed holds a run of CI triage');
		assert.equal((await release(seeded.id)).status, 409);
		assert.equal((await c.get(`/v2/agents/${triage.id}/runs/${seeded.id}`)).body.status, 'running');
	});

	test('a status word given to a run still queued is kept when its script starts (it is not set back to running)', async function () {
		this.timeout(20_000);
		// The script's first step (running) comes one delay after the start: the word is set before it.
		const id = await start('Asks first [[delay:800]] [[hold]]');
		assert.equal((await getRun(id)).status, 'queued');
		try {
			const set = await c.admin('PUT', `/agents/${agent}/runs/${id}/status`, { status: 'input_required' });
			assert.equal(set.status, 200, set.text);
			// Past its first steps: the run's message is out, and it waits at its hold.
			const run = emu.emulator.data.runs.find((r) => r.id === id);
			await until(async () => run?.events.some((e) => e.type === 'message'), 10_000);
			assert.equal((await getRun(id)).status, 'input_required');
			assert.deepEqual(
				run?.events.filter((e) => e.type === 'run.status').map((e) => (e.data as { status: string }).status),
				['queued', 'input_required'],
			);
			assert.equal((await release(id)).status, 200);
			assert.equal((await ended(id)).status, 'succeeded');
		} finally {
			// The next test starts a run of the same agent: this one is ended whatever happened.
			await c.del(`/v2/agents/${agent}/runs/${id}`, { validate: false });
		}
	});

	test('a held emulator clock holds no run: runs step on real timers', async function () {
		this.timeout(20_000);
		assert.equal((await c.admin('PUT', '/clock', { held: true })).status, 200);
		try {
			const id = await start('Quick [[events:2]] [[delay:20]]');
			assert.equal((await ended(id)).status, 'succeeded');
		} finally {
			await c.admin('PUT', '/clock', { held: false });
		}
	});
});
