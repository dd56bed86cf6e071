/**
 * Soak (issue 22): one hour of simulated time, compressed, following 20 runs at once whose event
 * streams drop every 30 s, through two outages of the service; counts events lost and duplicated,
 * the growth of this process's resident set, and the wall time.
 *
 * Compression: every time the client waits on goes through a `Clock` (src/base/clock.ts) that runs
 * SCALE times faster than the wall clock, so its reconnect policy keeps its real settings in
 * simulated time (30 s backoff cap, 20 reconnects a minute, the sleep watcher); the transport's own
 * time-outs (connect, answer, stream idle) are divided by SCALE; the emulator (a process of its
 * own) runs the runs, the stream drops and the outages on the wall clock, with every duration
 * divided by SCALE. The runs are followed as the extension follows them: `readRunEvents`
 * (src/runFollowing/runEvents.ts), the follower's own reading loop, without its VS Code parts.
 */
import { CloudAgentsClient, type Clock, type EventRecord, type StreamOutageEvent } from '../../src/api';
import { SleepWatcher } from '../../src/base/clock';
import { readRunEvents } from '../../src/runFollowing/runEvents';
import { emulatorAdmin } from '../../test/unit/support/emulator';
import { emulatorProcess } from '../emulatorProcess';
import type { BenchContext, Row } from '../report';
import { nodeConnect } from '../../src/platform/node/network';

/** Simulated seconds per real second. */
const SCALE = 30;
const SIMULATED_MS = 60 * 60_000;
const RUNS = 20;
/** A run's event every this many simulated ms. */
const EVENT_EVERY_MS = 3_000;
/** Streams are cut this long after they open (simulated ms). */
const DROP_EVERY_MS = 30_000;
/** The two outages: when they start (simulated ms from the start of following), how long they last, how the service is away. */
const OUTAGES = [
	{ atMs: 12 * 60_000, forMs: 5 * 60_000, mode: 'refuse' },
	{ atMs: 35 * 60_000, forMs: 10 * 60_000, mode: 'stall' },
] as const;
const RSS_GOAL_MB = 20;

const real = (simulatedMs: number): number => simulatedMs / SCALE;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const mb = (bytes: number): number => bytes / 1024 / 1024;

/** The wall clock, SCALE times faster (timers fire after ms / SCALE of real time). */
function compressedClock(): Clock {
	const t0 = Date.now();
	return {
		now: () => t0 + (Date.now() - t0) * SCALE,
		setTimeout: (fn, ms, options) => {
			const t = setTimeout(fn, Math.max(0, ms) / SCALE);
			if (options?.unref) t.unref();
			return t;
		},
		clearTimeout: (t) => clearTimeout(t as ReturnType<typeof setTimeout>),
	};
}

function gc(): void {
	(globalThis as { gc?: () => void }).gc?.();
}

interface Follow {
	agentId: string;
	runId: string;
	seqs: number[];
	outageStarts: number;
	outageEnds: number;
	longestWaitMs: number;
	error: unknown;
	done: Promise<void>;
}

export async function run(ctx: BenchContext): Promise<void> {
	const sectionStart = Date.now();
	const server = await emulatorProcess();
	const admin = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) =>
		emulatorAdmin<Record<string, unknown>>(server.adminUrl, method, path, body);
	const setup = new CloudAgentsClient({ connect: nodeConnect, baseUrl: server.url, getToken: () => ctx.token });
	const clock = compressedClock();
	const sleepWatch = { tickMs: 2_000, jumpMs: 60_000 };
	const client = new CloudAgentsClient({
		connect: nodeConnect,
		baseUrl: server.url,
		getToken: () => ctx.token,
		// Real settings in simulated time; the sleep watcher's threshold is raised so that a busy event loop (2 cores) is not taken for a sleep.
		stream: { clock, sleepWatch },
		timeouts: { connectMs: real(10_000), headersMs: real(30_000), bodyMs: real(30_000), streamIdleMs: real(45_000) },
		retry: { baseDelayMs: real(500), maxDelayMs: real(10_000), minDelayMs: real(500) },
	});
	try {
		ctx.log(`soak: ${RUNS} agents`);
		const agents = await Promise.all(Array.from({ length: RUNS }, (_v, i) => setup.createAgent({ name: `soak-${i}-${Date.now()}` })));
		for (const a of agents) {
			for (let i = 0; i < 300 && (await setup.getAgent(a.id)).status === 'provisioning'; i++) await sleep(50);
		}
		await admin('PUT', '/faults', {
			rules: [{ method: 'GET', route: '/v2/agents/{agent_id}/runs/{run_id}/events', drop_sse_after_ms: real(DROP_EVERY_MS) }],
		});
		await admin('POST', '/counters/reset');
		const ticks = Math.round(SIMULATED_MS / EVENT_EVERY_MS);
		const runs = await Promise.all(
			agents.map((a) => setup.createRun(a.id, { prompt: `[[ticks:${ticks}]] [[delay:${real(EVENT_EVERY_MS)}]] soak` })),
		);
		ctx.log(`soak: following ${RUNS} runs for ${SIMULATED_MS / 60_000} simulated minutes (${real(SIMULATED_MS) / 1000} s)`);
		const started = Date.now();
		const controllers: AbortController[] = [];
		const follows: Follow[] = runs.map((r, i) => {
			const f: Follow = {
				agentId: agents[i]!.id,
				runId: r.id,
				seqs: [],
				outageStarts: 0,
				outageEnds: 0,
				longestWaitMs: 0,
				error: undefined,
				done: Promise.resolve(),
			};
			const onOutage = (e: StreamOutageEvent): void => {
				if (e.type === 'start') f.outageStarts++;
				else if (e.type === 'end') f.outageEnds++;
				else f.longestWaitMs = Math.max(f.longestWaitMs, e.delayMs);
			};
			const controller = new AbortController();
			controllers.push(controller);
			f.done = readRunEvents(client, f.agentId, f.runId, {
				after: -1,
				signal: controller.signal,
				onEvent: (e: EventRecord) => f.seqs.push(e.seq),
				ended: () => false,
				onOutage,
			}).then(
				() => undefined,
				(err: unknown) => {
					f.error = err;
				},
			);
			return f;
		});

		// The outages, on the wall clock (the emulator's clock), durations compressed.
		const outages = (async () => {
			for (const o of OUTAGES) {
				const wait = started + real(o.atMs) - Date.now();
				if (wait > 0) await sleep(wait);
				ctx.log(`soak: outage (${o.mode}) for ${o.forMs / 60_000} simulated minutes`);
				await admin('POST', '/outage', { mode: o.mode, seconds: real(o.forMs) / 1000 });
			}
		})();

		// The resident set once every stream is up (2 simulated minutes in), then sampled every simulated minute.
		await sleep(real(2 * 60_000));
		gc();
		const rssStart = process.memoryUsage().rss;
		const heapStart = process.memoryUsage().heapUsed;
		let rssPeak = rssStart;
		const sampler = setInterval(() => {
			rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
		}, real(60_000));
		const guard = setTimeout(() => controllers.forEach((c) => c.abort()), real(SIMULATED_MS) + 90_000);
		await Promise.all(follows.map((f) => f.done));
		clearTimeout(guard);
		clearInterval(sampler);
		await outages;
		const wallMs = Date.now() - started;
		gc();
		await sleep(100);
		gc();
		const rssEnd = process.memoryUsage().rss;
		const heapEnd = process.memoryUsage().heapUsed;
		rssPeak = Math.max(rssPeak, rssEnd);

		// Ground truth: every run's events read again after it ended, with nothing in the way.
		await admin('DELETE', '/faults');
		let expectedTotal = 0;
		let lost = 0;
		let duplicated = 0;
		let received = 0;
		for (const f of follows) {
			const truth: number[] = [];
			for await (const e of setup.streamRunEvents(f.agentId, f.runId)) truth.push(e.seq);
			expectedTotal += truth.length;
			received += f.seqs.length;
			const got = new Set(f.seqs);
			duplicated += f.seqs.length - got.size;
			lost += truth.filter((s) => !got.has(s)).length;
		}
		const counters = (await admin('GET', '/counters')) as { requests: { by_route: Record<string, number> } };
		const connections = counters.requests.by_route['GET /v2/agents/{agent_id}/runs/{run_id}/events'] ?? 0;
		const failed = follows.filter((f) => f.error !== undefined);
		const starts = follows.reduce((n, f) => n + f.outageStarts, 0);
		const ends = follows.reduce((n, f) => n + f.outageEnds, 0);
		const longestWait = Math.max(...follows.map((f) => f.longestWaitMs));
		const growth = mb(rssEnd - rssStart);
		const rows: Row[] = [
			{
				metric: 'soak: events lost (20 runs, 1 simulated hour, drops every 30 s, 2 outages)',
				value: `${lost} of ${expectedTotal}`,
				target: '0',
				pass: lost === 0,
			},
			{ metric: 'soak: events delivered twice', value: String(duplicated), target: '0', pass: duplicated === 0 },
			{
				metric: 'soak: follows that ended with their run (none gave up)',
				value: `${RUNS - failed.length} of ${RUNS}${
					failed.length
						? ` (${failed
								.map((f) => String(f.error))
								.join('; ')
								.slice(0, 300)})`
						: ''
				}`,
				target: `${RUNS} of ${RUNS}`,
				pass: failed.length === 0,
			},
			{
				metric: 'soak: resident set growth of the client process (after gc, 2nd simulated minute → end)',
				value: `${growth.toFixed(1)} MB (${mb(rssStart).toFixed(1)} → ${mb(rssEnd).toFixed(1)} MB, peak ${mb(rssPeak).toFixed(1)} MB)`,
				target: `< ${RSS_GOAL_MB} MB`,
				pass: growth < RSS_GOAL_MB,
			},
			{
				metric: 'soak: longest wait between tries while the service was away (simulated)',
				value: `${(longestWait / 1000).toFixed(1)} s`,
				target: '≤ 30 s',
				pass: longestWait <= 30_000,
			},
			{ metric: 'soak: heap growth (heapUsed after gc, same span)', value: `${mb(heapEnd - heapStart).toFixed(1)} MB` },
			{ metric: 'soak: outages seen by the follows (starts / ends; 2 per run expected)', value: `${starts} / ${ends}` },
			{ metric: 'soak: sleeps the sleep watcher reported (none happened)', value: String(SleepWatcher.of(clock, sleepWatch).wakes) },
			{ metric: 'soak: events received', value: String(received) },
			{ metric: 'soak: stream connections the emulator answered', value: String(connections) },
			{
				metric: 'soak: wall time (following, compressed ×30; in brackets the whole section with set-up and checks)',
				value: `${(wallMs / 1000).toFixed(1)} s (${((Date.now() - sectionStart) / 1000).toFixed(1)} s)`,
				target: '< 180 s',
				pass: Date.now() - sectionStart < 180_000,
			},
		];
		ctx.addSection({
			title: 'Soak: followed runs through drops and outages (1 simulated hour, compressed)',
			rows,
			notes: [
				`${RUNS} runs (one per agent), each a log event every ${EVENT_EVERY_MS / 1000} s for an hour, followed at once with readRunEvents (the run follower's reading loop) through one client; the emulator (a process of its own) cuts every event stream ${DROP_EVERY_MS / 1000} s after it opens (fault drop_sse_after_ms) and has two outages: ${OUTAGES.map((o) => `${o.mode} at minute ${o.atMs / 60_000} for ${o.forMs / 60_000} min`).join(', ')}. Time is compressed ×${SCALE}: the client's clock (reconnect pacing, caps, sleep watcher) runs ${SCALE}× fast with its real settings, its transport time-outs and every emulator duration are divided by ${SCALE}.`,
				"Lost and duplicated compare each run's events as received with the same run read again afterwards. Resident set: process.memoryUsage().rss of the bench process (the client; this section's emulator runs in its own process) after gc(), from the second simulated minute (every stream up) to the end; the peak is sampled every simulated minute.",
			],
		});
	} finally {
		client.close();
		setup.close();
		await server.stop();
	}
}
