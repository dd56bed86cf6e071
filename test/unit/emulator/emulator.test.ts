/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/**
 * The emulator clock (emulator/src/emulator.ts; its admin routes are in admin.ts): held, it stands
 * still while the wall clock moves, so nothing time-driven moves (builds, checkpoints, runtime
 * transitions, agent provisioning, GitHub request expiry, an outage's end) until a test advances it;
 * released, it runs on from where it stood; `/_emulator/reset` releases it. The wall clock is moved
 * here by replacing Date.now around synchronous calls of the emulator (no request in between), so
 * that an hour passes without waiting for it.
 */
import * as assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { Client } from './helpers';
import { boot, until } from './helpers';

const HOUR_MS = 3_600_000;

/** Runs `fn` with the wall clock (Date.now) `aheadMs` later than it is; `fn` must not wait. */
function withWallAhead<T>(aheadMs: number, fn: () => T): T {
	const real = Date.now;
	Date.now = () => real() + aheadMs;
	try {
		return fn();
	} finally {
		Date.now = real;
	}
}

suite('emulator: the clock held, advanced and released', () => {
	let emu: RunningEmulator;
	let c: Client;
	const clock = async (): Promise<any> => (await c.admin('GET', '/clock')).body;
	const hold = async (held: boolean): Promise<any> => {
		const r = await c.admin('PUT', '/clock', { held });
		assert.equal(r.status, 200, r.text);
		return r.body;
	};
	const advance = async (ms: number): Promise<any> => {
		const r = await c.admin('POST', '/clock/advance', { ms });
		assert.equal(r.status, 200, r.text);
		return r.body;
	};
	const state = async (): Promise<any> => (await c.admin('GET', '/state')).body;
	const byName = (list: any[], key: string, name: string): any => list.find((x) => x[key] === name);

	/** What moves by itself, as it is now: one line per record, for comparisons. */
	async function snapshot(ids: { agent: string; build: string; resumed: string }): Promise<Record<string, string>> {
		const s = await state();
		const listed = (await c.get('/v2/github/authorization-requests')).body.data.requests as any[];
		return {
			agent: s.agents.find((a: any) => a.id === ids.agent).status,
			build: s.builds.find((b: any) => b.id === ids.build).status,
			goBuild: byName(s.builds, 'display_name', 'Go 1.23 toolchain').status,
			resumed: s.runtimes.find((r: any) => r.id === ids.resumed).status,
			nightlyCheckpoint: byName(s.checkpoints, 'display_name', 'nightly-pre-upgrade').state.status,
			githubRequests: String(listed.length),
		};
	}

	/** An agent (on a new runtime), a build and a resumed runtime, each with a transition ahead. */
	async function inMotion(): Promise<{ agent: string; build: string; resumed: string }> {
		const agent = await c.post('/v2/agents', { name: 'clock-held' });
		assert.equal(agent.status, 201, agent.text);
		const build = await c.post(
			'/v2/images/builds',
			{ display_name: 'Held toolchain', dockerfile: 'FROM x\nFLAKY\n' },
			{ headers: { 'Idempotency-Key': `held-${Date.now()}` } },
		);
		assert.equal(build.status, 200, build.text);
		const cobalt = byName((await state()).runtimes, 'display_name', 'cobalt-sandbox');
		const resumed = await c.post(`/v2/runtimes/${cobalt.id}/resume`);
		assert.equal(resumed.status, 200, resumed.text);
		return { agent: agent.body.id, build: build.body.data.id, resumed: cobalt.id };
	}

	setup(async () => {
		({ emu, c } = await boot());
	});
	teardown(async () => {
		await emu.close();
	});

	test('GET says whether the clock is held; PUT {held} holds and releases it (idempotent); other bodies are refused', async () => {
		assert.equal((await clock()).held, false);
		const held = await hold(true);
		assert.equal(held.held, true);
		assert.equal((await hold(true)).now_ms, held.now_ms, 'holding again keeps the time it stands at');
		assert.equal((await clock()).held, true);
		for (const body of [{}, { held: 'true' }, { held: 1 }, { held: true, at: 5 }]) {
			const r = await c.admin('PUT', '/clock', body);
			assert.ok(r.status === 400 || r.status === 422, `${JSON.stringify(body)} answered ${r.status}`);
		}
		assert.equal((await hold(false)).held, false);
		assert.equal((await hold(false)).held, false);
	});

	test('held, the clock stands still while the wall clock moves an hour on: nothing time-driven moves; released, it runs on from where it stood', async () => {
		const held = await hold(true);
		const ids = await inMotion();
		const before = await snapshot(ids);
		assert.deepEqual(before, {
			agent: 'provisioning',
			build: 'pending',
			goBuild: 'pending',
			resumed: 'paused',
			nightlyCheckpoint: 'creating',
			githubRequests: '3',
		});
		const stood = withWallAhead(HOUR_MS, () => {
			emu.emulator.tick();
			return emu.emulator.now();
		});
		assert.equal(stood, held.now_ms, 'the held clock did not move with the wall clock');
		assert.deepEqual(await snapshot(ids), before, 'nothing moved while held');
		const c1 = await clock();
		assert.equal(c1.now_ms, held.now_ms);
		assert.ok(c1.offset_ms <= 0, `behind the wall clock while held (${c1.offset_ms} ms)`);

		// Released: it runs on from where it stood (no jump to the wall clock or past anything due).
		const released = await hold(false);
		assert.equal(released.held, false);
		assert.ok(released.now_ms >= held.now_ms && released.now_ms - held.now_ms < 1000, `${released.now_ms - held.now_ms} ms on`);
		assert.deepEqual(await snapshot(ids), before, 'nothing moved on release');
		// Running again, the wall clock moves it: an hour on, everything has moved.
		const after = withWallAhead(HOUR_MS, () => {
			emu.emulator.tick();
			const d = emu.emulator.data;
			return {
				now: emu.emulator.now(),
				agent: d.agents.find((a) => a.id === ids.agent)?.status,
				build: d.builds.find((b) => b.id === ids.build)?.status,
				resumed: d.runtimes.find((r) => r.id === ids.resumed)?.status,
				nightly: d.checkpoints.find((k) => k.display_name === 'nightly-pre-upgrade')?.state.status,
			};
		});
		assert.ok(after.now - held.now_ms >= HOUR_MS, 'released, the clock follows the wall clock again');
		assert.deepEqual(
			{ ...after, now: undefined },
			{ now: undefined, agent: 'idle', build: 'running', resumed: 'running', nightly: 'ready' },
			'one tick an hour on: each record took its next step',
		);
	});

	test('advancing a held clock applies the transitions due on the way, in order, and it stays held', async () => {
		const held = await hold(true);
		const ids = await inMotion();
		// 1 s: the agent's runtime (0.8 s) and then the agent (1 s) are ready; the build starts its first attempt.
		await advance(1000);
		let s = await state();
		assert.equal(s.agents.find((a: any) => a.id === ids.agent).status, 'idle');
		const build = (): any => s.builds.find((b: any) => b.id === ids.build);
		assert.equal(build().status, 'running');
		assert.deepEqual(
			build().attempts.map((a: any) => a.outcome),
			['running'],
		);
		assert.equal(s.runtimes.find((r: any) => r.id === ids.resumed).status, 'paused', 'the resume takes 2 s');
		// 1 s more: the first attempt fails (FLAKY), the second starts; the runtime is running.
		await advance(1000);
		s = await state();
		assert.deepEqual(
			build().attempts.map((a: any) => a.outcome),
			['failed', 'running'],
		);
		assert.equal(s.runtimes.find((r: any) => r.id === ids.resumed).status, 'running');
		const t = await advance(1000);
		s = await state();
		assert.equal(build().status, 'succeeded');
		assert.equal(t.now_ms, held.now_ms + 3000, 'exactly the time advanced');
		assert.equal(t.held, true, 'still held');
		assert.equal(
			withWallAhead(HOUR_MS, () => emu.emulator.now()),
			t.now_ms,
		);
	});

	test('an outage of N seconds ends when the held clock is advanced past its end, not with the wall clock', async () => {
		await hold(true);
		const on = await c.admin('POST', '/outage', { mode: 'reset', seconds: 5 });
		assert.equal(on.status, 200, on.text);
		withWallAhead(HOUR_MS, () => emu.emulator.tick());
		assert.equal((await c.admin('GET', '/outage')).body.active, true, 'the wall clock does not end it');
		await advance(4000);
		assert.equal((await c.admin('GET', '/outage')).body.active, true, '4 s of 5');
		await advance(1000);
		await until(async () => (await c.admin('GET', '/outage')).body.active === false);
	});

	test('provisioning is timed on the emulator clock: behind the wall clock after a hold, a new agent is ready one emulator second later', async () => {
		// The clock stood still for a minute: it is a minute behind the wall clock now.
		emu.emulator.holdClock(true);
		withWallAhead(60_000, () => emu.emulator.holdClock(false));
		assert.ok((await clock()).offset_ms <= -59_000);
		const agent = await c.post('/v2/agents', { name: 'behind-the-wall' });
		assert.equal(agent.status, 201, agent.text);
		await hold(true);
		await advance(1000);
		const s = await state();
		assert.equal(s.agents.find((a: any) => a.id === agent.body.id).status, 'idle');
		// Deleting it with its runtime: gone 1.5 s later on the same clock.
		const runtimeId = s.agents.find((a: any) => a.id === agent.body.id).runtime_id;
		assert.equal((await c.del(`/v2/agents/${agent.body.id}?delete_runtime=true`)).status, 202);
		await advance(1500);
		assert.ok(!(await state()).runtimes.some((r: any) => r.id === runtimeId), 'the runtime is gone');
	});

	test("behind the wall clock (held, or released after a hold), a run's file changes are not dated before the run; ahead of it, they follow the clock", async function () {
		this.timeout(20_000);
		const agent = (await c.post('/v2/agents', { name: 'dated-changes' })).body.id;
		await advance(1000);
		// A minute behind the wall clock, running.
		emu.emulator.holdClock(true);
		withWallAhead(60_000, () => emu.emulator.holdClock(false));
		const changedBy = async (prompt: string): Promise<{ created: number; mtime: number }> => {
			const run = await c.post(`/v2/agents/${agent}/runs`, { prompt: `${prompt} [[delay:10]]` });
			assert.equal(run.status, 202, run.text);
			await until(async () => (await c.get(`/v2/agents/${agent}/runs/${run.body.id}`)).body.status === 'succeeded');
			const created = (await state()).runs.find((r: any) => r.id === run.body.id).created_ms;
			const files = (await c.admin('GET', `/workspace/${agent}/files`)).body.files as any[];
			return { created, mtime: files.find((f) => prompt.includes(f.path)).mtime_unix_ms };
		};
		const behind = await changedBy('[[write:notes/behind.md]]');
		assert.ok(behind.mtime >= behind.created, `dated ${behind.created - behind.mtime} ms before its run`);
		await hold(true);
		const held = await changedBy('[[write:notes/held.md]]');
		assert.ok(held.mtime >= held.created, `dated ${held.created - held.mtime} ms before its run`);
		// Ahead (an hour advanced): the clock's time.
		const ahead = await advance(HOUR_MS);
		const later = await changedBy('[[write:notes/ahead.md]]');
		assert.ok(later.mtime >= ahead.now_ms && later.mtime < ahead.now_ms + 60_000, `${later.mtime - ahead.now_ms} ms after the clock`);
	});

	test('/_emulator/reset releases a held clock and puts it back on the wall clock', async () => {
		await hold(true);
		await advance(90_000);
		assert.equal((await c.admin('POST', '/reset', { seed: 'demo' })).status, 200);
		const after = await clock();
		assert.equal(after.held, false);
		assert.equal(after.offset_ms, 0);
		assert.ok(Math.abs(after.now_ms - Date.now()) < 1000);
	});
});
