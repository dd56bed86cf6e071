/**
 * Issue 22, outages: a followed run's stream (`waitForService`, as readRunEvents asks) keeps trying
 * while the service is out of reach, every 30 s at most however long that lasts, reconnects at once
 * when the machine wakes from a sleep, and afterwards has every event exactly once. Real HTTP
 * against the emulator's outage switch (refuse, reset, stall); waits on a fake clock where the
 * test is about time (backoff caps, the sleep jump).
 */
import * as assert from 'node:assert/strict';
import { startEmulator } from '../../../../emulator/src/server';
import { ApiError, CloudAgentsClient, isAuthFailure } from '../../../../src/api';
import { SleepWatcher } from '../../../../src/base/clock';
import type { EventRecord, RunEventStream, StreamOutageEvent, StreamReconnectOptions } from '../../../../src/api';
import { DEV_TOKEN, emulatorAdmin } from '../../support/emulator';
import { FakeClock } from '../../support/fakeClock';
import { nodeConnect } from '../../../../src/platform/node/network';

type Emu = Awaited<ReturnType<typeof startEmulator>>;

const EVENTS_ROUTE = 'GET /v2/agents/{agent_id}/runs/{run_id}/events';

suite('api/outages: a followed run waits for the service and loses nothing', function () {
	this.timeout(60_000);
	let emu: Emu;
	let admin: CloudAgentsClient;
	let agentId: string;
	const clients: CloudAgentsClient[] = [];

	function client(
		stream: StreamReconnectOptions,
		extra: Partial<ConstructorParameters<typeof CloudAgentsClient>[0]> = {},
	): CloudAgentsClient {
		const c = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN, stream, ...extra });
		clients.push(c);
		return c;
	}

	/** The run's events as the emulator has them: a stream read after the run ended, with nothing in the way. */
	async function truth(runId: string): Promise<Array<[number, string]>> {
		const out: Array<[number, string]> = [];
		for await (const e of admin.streamRunEvents(agentId, runId)) {
			out.push([e.seq, e.type]);
		}
		return out;
	}

	async function eventConnections(): Promise<number> {
		const c = await emulatorAdmin<{ requests: { by_route: Record<string, number> } }>(emu.adminUrl, 'GET', '/counters');
		return c.requests.by_route[EVENTS_ROUTE] ?? 0;
	}

	/** Reads a stream into `events` until it ends; resolves with the error that ended it, if any. */
	function consume(stream: RunEventStream, events: EventRecord[]): Promise<unknown> {
		return (async () => {
			try {
				for await (const e of stream) {
					events.push(e);
				}
				return undefined;
			} catch (err) {
				return err;
			}
		})();
	}

	async function until(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
		const end = Date.now() + ms;
		while (!(await check())) {
			if (Date.now() > end) {
				throw new Error(`timed out waiting for ${what}`);
			}
			await new Promise((r) => setTimeout(r, 5));
		}
	}

	suiteSetup(async () => {
		emu = await startEmulator({ port: 0, seed: 'demo', quiet: true });
		admin = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN });
		const agent = await admin.createAgent({ name: `outage-${Date.now()}` });
		agentId = agent.id;
		await until('the agent to be ready', async () => (await admin.getAgent(agentId)).status !== 'provisioning', 15_000);
	});

	suiteTeardown(async () => {
		for (const c of clients) c.close();
		admin.close();
		await emu.close();
	});

	teardown(async () => {
		await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
		await emulatorAdmin(emu.adminUrl, 'DELETE', '/faults');
		// Each test's run ends before the next starts (one active run per agent).
		for (const r of await admin.listRuns(agentId, { limit: 10 })) {
			if (r.status === 'running' || r.status === 'queued') await admin.cancelRun(agentId, r.id).catch(() => undefined);
		}
	});

	for (const mode of ['refuse', 'reset', 'stall'] as const) {
		test(`an outage (${mode}) longer than every cap: the stream keeps trying, then has every event exactly once`, async () => {
			// Caps that would stop the stream within the outage if its failures counted: 3 reconnects without news, 5 a minute.
			const c = client(
				{ reconnectMinMs: 10, reconnectBaseMs: 20, reconnectMaxMs: 100, maxReconnectAttempts: 3, reconnectsPerMinute: 5 },
				{ timeouts: { headersMs: 300, streamIdleMs: 400, connectMs: 500 }, retry: { maxAttempts: 1 } },
			);
			const run = await admin.createRun(agentId, { prompt: `[[ticks:60]] [[delay:40]] outage ${mode}` });
			const reports: StreamOutageEvent[] = [];
			const stream = c.streamRunEvents(agentId, run.id, { waitForService: true, onOutage: (e) => reports.push(e) });
			const events: EventRecord[] = [];
			const done = consume(stream, events);
			await until('ten events', () => events.length >= 10);
			const before = await eventConnections();
			const outageBefore = await emulatorAdmin<{ counts: { reset_requests: number; stalled_requests: number } }>(
				emu.adminUrl,
				'GET',
				'/outage',
			).then((o) => o.counts.reset_requests + o.counts.stalled_requests);
			// A stalled try ends at the answer time-out (undici's timers tick about once a second): a longer outage.
			await emulatorAdmin(emu.adminUrl, 'POST', '/outage', { mode, seconds: mode === 'stall' ? 6 : 1.5 });
			await until('the outage to be noticed', () => reports.some((r) => r.type === 'start'));
			const error = await done;
			assert.equal(error, undefined, `the stream ended with ${String(error)}`);

			const expected = await truth(run.id);
			assert.deepEqual(
				events.map((e) => [e.seq, e.type]),
				expected,
				'every event exactly once, in order',
			);
			assert.equal(expected.at(-1)?.[1], 'run.completed');
			const starts = reports.filter((r) => r.type === 'start').length;
			const ends = reports.filter((r) => r.type === 'end');
			const retries = reports.filter((r) => r.type === 'retry').length;
			assert.equal(starts, 1, JSON.stringify(reports));
			assert.equal(ends.length, 1, JSON.stringify(reports));
			assert.ok(retries > 3, `${retries} tries during the outage: more than the no-progress cap, so they did not count`);
			if (mode !== 'refuse') {
				// reset and stall accept connections: the emulator saw the tries (refused ones never reach it).
				const { counts } = await emulatorAdmin<{ counts: { reset_requests: number; stalled_requests: number } }>(
					emu.adminUrl,
					'GET',
					'/outage',
				);
				assert.ok(counts.reset_requests + counts.stalled_requests - outageBefore > 3, JSON.stringify(counts));
			}
			assert.ok((await eventConnections()) > before, 'connected again after the outage');
			assert.ok(!stream.waitingForService);
		});
	}

	test('a server that answers badly still hits the caps while waiting for the service: 500s give up after maxReconnectAttempts', async () => {
		const c = client({ reconnectMinMs: 5, reconnectBaseMs: 5, reconnectMaxMs: 20, maxReconnectAttempts: 3 });
		const run = await admin.createRun(agentId, { prompt: '[[hold]] answers badly' });
		await emulatorAdmin(emu.adminUrl, 'PUT', '/faults', {
			rules: [{ method: 'GET', route: '/v2/agents/{agent_id}/runs/{run_id}/events', status: 500 }],
		});
		const before = await eventConnections();
		const reports: StreamOutageEvent[] = [];
		const error = await consume(c.streamRunEvents(agentId, run.id, { waitForService: true, onOutage: (e) => reports.push(e) }), []);
		assert.ok(error instanceof Error && /kept failing; gave up after 3 reconnects/.test(error.message), String(error));
		assert.equal((await eventConnections()) - before, 4, 'one connection and three reconnects');
		assert.deepEqual(reports, [], 'a 500 is an answer, not an outage');
	});

	test('a token revoked during an outage: the first answer after it, a 401, ends the stream (no retrying)', async () => {
		const key = (await emulatorAdmin<{ api_key: string }>(emu.adminUrl, 'POST', '/keys')).api_key;
		const c = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => key,
			stream: { reconnectMinMs: 10, reconnectBaseMs: 20, reconnectMaxMs: 100 },
			retry: { maxAttempts: 1 },
		});
		clients.push(c);
		const run = await admin.createRun(agentId, { prompt: '[[ticks:40]] [[delay:40]] revoked' });
		const events: EventRecord[] = [];
		const reports: StreamOutageEvent[] = [];
		const done = consume(c.streamRunEvents(agentId, run.id, { waitForService: true, onOutage: (e) => reports.push(e) }), events);
		await until('five events', () => events.length >= 5);
		await emulatorAdmin(emu.adminUrl, 'POST', '/outage', { mode: 'refuse', seconds: 1 });
		await emulatorAdmin(emu.adminUrl, 'POST', '/tokens/revoke', { token: key });
		const error = await done;
		assert.ok(isAuthFailure(error), String(error));
		assert.ok(error instanceof ApiError && error.status === 401);
		assert.deepEqual(
			reports.map((r) => r.type).filter((t) => t !== 'retry'),
			['start', 'end'],
			'the outage ended (the service answered), then the 401 ended the stream',
		);
		assert.deepEqual(
			events.map((e) => e.seq),
			events.map((_e, i) => i),
			'what arrived before, once each',
		);
	});

	/** Follows `runId` through `c` (waiting for the service), and once five events arrived starts a day-long refuse outage. */
	async function followIntoOutage(c: CloudAgentsClient, runId: string) {
		const reports: StreamOutageEvent[] = [];
		const stream = c.streamRunEvents(agentId, runId, { waitForService: true, onOutage: (e) => reports.push(e) });
		const events: EventRecord[] = [];
		const done = consume(stream, events);
		await until('five events', () => events.length >= 5);
		await emulatorAdmin(emu.adminUrl, 'POST', '/outage', { mode: 'refuse', seconds: 86_400 });
		return { reports, stream, events, done };
	}

	test('fake clock: however long the outage (over an hour), never more than 30 s between tries, and no cap stops it', async () => {
		const clock = new FakeClock();
		// The worst jitter (always the ceiling) and the default caps (30 s, 8 reconnects, 20 a minute).
		const c = client({ clock, sleepWatch: false, random: () => 0.999 }, { retry: { maxAttempts: 1 } });
		const run = await admin.createRun(agentId, { prompt: '[[ticks:30]] [[delay:30]] an hour away' });
		const { reports, stream, events, done } = await followIntoOutage(c, run.id);
		const gaps: number[] = [];
		let connections = stream.connections;
		let last = clock.elapsed;
		while (clock.elapsed < 65 * 60_000) {
			const timer = await clock.waitForTimer(() => true);
			await clock.advance(timer.ms);
			await until('the next try', () => stream.connections > connections);
			connections = stream.connections;
			gaps.push(clock.elapsed - last);
			last = clock.elapsed;
		}
		assert.ok(gaps.length > 100, `${gaps.length} tries`);
		assert.ok(Math.max(...gaps) <= 30_000, `longest gap ${Math.max(...gaps)} ms`);
		assert.ok(
			gaps.slice(10).every((g) => g >= 29_000),
			`the cap is reached and held: ${gaps.slice(0, 12).join(', ')} …`,
		);
		assert.equal(reports.filter((r) => r.type === 'start').length, 1);
		assert.ok(stream.waitingForService);

		await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
		const timer = await clock.waitForTimer(() => true);
		await clock.advance(timer.ms);
		assert.equal(await done, undefined);
		assert.deepEqual(
			events.map((e) => [e.seq, e.type]),
			await truth(run.id),
		);
		const end = reports.find((r) => r.type === 'end');
		assert.ok(end?.type === 'end' && end.durationMs >= 65 * 60_000 && end.attempts === gaps.length, JSON.stringify(end));
	});

	test('fake clock: the machine sleeps during a 30 s backoff; a tick after waking, it tries again at once', async () => {
		const clock = new FakeClock();
		const watcher = SleepWatcher.of(clock, { tickMs: 2_000, jumpMs: 10_000 });
		let wakes = 0;
		const stopCounting = watcher.onWake(() => wakes++);
		const c = client({ clock, random: () => 0.999, sleepWatch: { tickMs: 2_000, jumpMs: 10_000 } }, { retry: { maxAttempts: 1 } });
		const run = await admin.createRun(agentId, { prompt: '[[ticks:30]] [[delay:30]] asleep' });
		const { reports, stream, events, done } = await followIntoOutage(c, run.id);
		// Drive the backoff up to a long wait (the ticks of the watcher are the 2 s timers).
		let backoff = { ms: 0, due: 0 };
		while (backoff.ms < 20_000) {
			const connections = stream.connections;
			backoff = await clock.waitForTimer((t) => !t.unref);
			if (backoff.ms >= 20_000) break;
			await clock.advance(backoff.due - clock.elapsed);
			await until('the next try', () => stream.connections > connections);
		}
		// The network comes back while the laptop is closed for 20 minutes.
		await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
		const connections = stream.connections;
		const sleptAt = clock.elapsed;
		clock.sleep(20 * 60_000);
		await clock.advance(2_000); // The watcher's next tick.
		await until('a try right after waking', () => stream.connections > connections, 5_000);
		assert.ok(clock.elapsed - sleptAt <= 2_000, 'within a tick of waking');
		assert.ok(backoff.due - clock.elapsed > 15_000, `not after the backoff (due in ${backoff.due - clock.elapsed} ms)`);
		assert.equal(wakes, 1, 'the watcher noticed one sleep');
		stopCounting();
		assert.equal(await done, undefined);
		assert.deepEqual(
			events.map((e) => [e.seq, e.type]),
			await truth(run.id),
		);
		assert.deepEqual(
			reports.filter((r) => r.type !== 'retry').map((r) => r.type),
			['start', 'end'],
		);
	});

	test('fake clock: an open, quiet stream reconnects at once when the machine wakes (not after the idle time-out), resuming after the last event', async () => {
		const clock = new FakeClock();
		const c = client({ clock, reconnectMinMs: 0, sleepWatch: { tickMs: 2_000, jumpMs: 10_000 } });
		const run = await admin.createRun(agentId, { prompt: '[[events:3]] [[hold]] quiet' });
		const stream = c.streamRunEvents(agentId, run.id, { waitForService: true });
		const events: EventRecord[] = [];
		const done = consume(stream, events);
		await until('the first events', () => events.some((e) => e.type === 'log') && events.filter((e) => e.type === 'log').length === 3);
		await new Promise((r) => setTimeout(r, 100));
		const seen = events.length;
		const before = await eventConnections();
		await clock.advance(10_000);
		assert.equal(await eventConnections(), before, 'ticks on time: no reconnect');
		clock.sleep(30 * 60_000);
		await clock.advance(2_000);
		await until('a new connection', async () => (await eventConnections()) > before, 5_000);
		assert.equal(stream.connections, 2);
		await admin.cancelRun(agentId, run.id);
		assert.equal(await done, undefined);
		const expected = await truth(run.id);
		assert.deepEqual(
			events.map((e) => [e.seq, e.type]),
			expected,
			'no event twice, none lost',
		);
		assert.ok(expected.length > seen);
	});
});
