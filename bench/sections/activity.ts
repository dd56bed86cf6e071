/**
 * What the Activity watcher costs (issue 45): the real watcher (src/activity/watcher.ts) over a
 * simulated account of 500 agents — 200 idle, 300 with a run that ends at a random moment of 10
 * simulated minutes — on a fake clock, then 10 more simulated minutes with everything idle. The
 * account is a stand-in of the client's listing methods (each call is the one request the real
 * client makes for it: a page of agents, an agent's runs, a page of runtimes, the GitHub requests,
 * a page of image builds), answering from the simulation at the fake clock's time.
 *
 * Figures: requests a minute while all is idle (goal ≤ 2), and the time from a run's end to the
 * watcher's event for it (goal: median ≤ 10 s); Activity announces an event as soon as one window
 * has claimed it (a file created, milliseconds), so the event's time is the notification's.
 */
import Module from 'node:module';
import { join } from 'node:path';
import type { BenchContext, Row } from '../report';
import type * as WatcherModule from '../../src/activity/watcher';
import type * as FakeClockModule from '../../test/unit/support/fakeClock';

const AGENTS = 500;
const BUSY = 300;
const SIMULATED_MS = 10 * 60_000;
const IDLE_MS = 10 * 60_000;
/** The goals (issue 45). */
const IDLE_GOAL_PER_MINUTE = 2;
const LATENCY_GOAL_MS = 10_000;

/** A small deterministic PRNG (mulberry32): the same run every time. */
function random(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

function median(values: number[]): number {
	const s = [...values].sort((a, b) => a - b);
	return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

function quantile(values: number[], q: number): number {
	const s = [...values].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

/** Loads a compiled module of ours with `vscode` resolved to the unit tests' fake (the watcher uses its EventEmitter). */
function loadWithFakeVscode<T>(path: string): T {
	const modules = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
	const original = modules._load;
	const root = join(__dirname, '..', '..');
	const fake = original.call(Module, join(root, 'test', 'unit', 'support', 'vscodeFake.js'), null, false);
	modules._load = (request, ...rest) => (request === 'vscode' ? fake : original.call(Module, request, ...rest));
	try {
		return original.call(Module, join(root, path), null, false) as T;
	} finally {
		modules._load = original;
	}
}

export async function run(ctx: BenchContext): Promise<void> {
	const { ActivityWatcher } = loadWithFakeVscode<typeof WatcherModule>(join('src', 'activity', 'watcher.js'));
	const { FakeClock } = loadWithFakeVscode<typeof FakeClockModule>(join('test', 'unit', 'support', 'fakeClock.js'));
	const T0 = Date.UTC(2026, 11, 6, 9, 0, 0);
	const clock = new FakeClock(T0);
	const rand = random(45);
	// Agent i: busy agents have one run that ends at endsAt[i] (ms after T0).
	const endsAt = new Map<string, number>();
	const ids = Array.from({ length: AGENTS }, (_, i) => `agent-${String(i).padStart(3, '0')}`);
	ids.slice(0, BUSY).forEach((id) => endsAt.set(id, Math.round(1_000 + rand() * (SIMULATED_MS - 2_000))));
	const runOf = (id: string): string => `run-${id}`;
	const ended = (id: string): boolean => (endsAt.get(id) ?? -1) <= clock.now() - T0;
	const iso = (ms: number): string => new Date(ms).toISOString();
	let requests = 0;
	const agentRecord = (id: string): unknown => {
		const end = endsAt.get(id);
		const running = end !== undefined && !ended(id);
		const changedAt = end === undefined ? T0 - 3_600_000 : running ? T0 : T0 + end;
		return {
			id,
			name: `Agent ${id.slice(6)}`,
			status: running ? 'running' : 'idle',
			runtime_id: `rt-${id}`,
			updated_at_unix_seconds: Math.floor(changedAt / 1000),
			latest_reply: end === undefined ? undefined : { run_id: runOf(id), updated_at: iso(changedAt) },
		};
	};
	const runRecord = (id: string): unknown => {
		const end = endsAt.get(id)!;
		const done = ended(id);
		return {
			id: runOf(id),
			agent_id: id,
			status: done ? 'succeeded' : 'running',
			result: done ? 'done' : undefined,
			created_at: iso(T0),
			updated_at: iso(done ? T0 + end : T0),
		};
	};
	const page = <T>(items: T[], cursor: string | undefined, limit: number): { items: T[]; nextCursor: string | undefined } => {
		const start = cursor ? Number(cursor) : 0;
		const next = start + limit;
		return { items: items.slice(start, next), nextCursor: next < items.length ? String(next) : undefined };
	};
	const client = {
		listAgents: async (o: { cursor?: string; limit?: number } = {}) => (
			requests++,
			page(ids.map(agentRecord), o.cursor, o.limit ?? 50)
		),
		listRuns: async (agentId: string) => (requests++, endsAt.has(agentId) ? [runRecord(agentId)] : []),
		listRuntimes: async () => (requests++, { items: [], nextCursor: undefined }),
		listGitHubAuthorizationRequests: async () => (requests++, []),
		listImageBuilds: async () => (requests++, { items: [], nextCursor: undefined }),
	};
	const latencies: number[] = [];
	const reported = new Map<string, number>();
	const watcher = new ActivityWatcher({
		client: () => client as unknown as WatcherModule.WatcherClient,
		clock,
		since: T0,
	});
	watcher.onDidEvents((events) => {
		for (const e of events) {
			if (e.kind === 'runEnded' && e.agentId) {
				reported.set(e.runId ?? '', (reported.get(e.runId ?? '') ?? 0) + 1);
				latencies.push(clock.now() - T0 - (endsAt.get(e.agentId) ?? NaN));
			}
		}
	});
	const started = performance.now();
	// The busy 10 minutes, a simulated second at a time (each step fires the timers due and lets the look finish).
	for (let t = 0; t < SIMULATED_MS + 60_000; t += 1_000) {
		await clock.advance(1_000);
	}
	const busyRequests = requests;
	// Everything idle: 10 more simulated minutes.
	const idleFrom = requests;
	for (let t = 0; t < IDLE_MS; t += 1_000) {
		await clock.advance(1_000);
	}
	const idlePerMinute = (requests - idleFrom) / (IDLE_MS / 60_000);
	watcher.dispose();
	const wall = performance.now() - started;
	const twice = [...reported.values()].filter((n) => n > 1).length;
	const med = median(latencies);
	const rows: Row[] = [
		{
			metric: `Activity watcher, ${AGENTS} agents all idle: requests per minute (10 simulated minutes)`,
			value: idlePerMinute.toFixed(1),
			target: `≤ ${IDLE_GOAL_PER_MINUTE}`,
			pass: idlePerMinute <= IDLE_GOAL_PER_MINUTE,
		},
		{
			metric: `Activity watcher: a run's end → its notification, median over the ${BUSY} runs ending at random in 10 simulated minutes`,
			value: `${(med / 1000).toFixed(1)} s (p90 ${(quantile(latencies, 0.9) / 1000).toFixed(1)} s, max ${(Math.max(...latencies) / 1000).toFixed(1)} s)`,
			target: `≤ ${LATENCY_GOAL_MS / 1000} s`,
			pass: med <= LATENCY_GOAL_MS,
		},
		{
			metric: 'Activity watcher: runs whose end was reported (each once)',
			value: `${reported.size} of ${BUSY}, ${twice} twice`,
			target: `${BUSY} of ${BUSY}, 0 twice`,
			pass: reported.size === BUSY && twice === 0,
		},
		{
			metric: 'Activity watcher: requests while the runs ended (11 simulated minutes), per minute',
			value: (busyRequests / ((SIMULATED_MS + 60_000) / 60_000)).toFixed(1),
		},
	];
	ctx.addSection({
		title: 'Activity watcher (issue 45: 500 agents, simulated time)',
		rows,
		notes: [
			`The real watcher (src/activity/watcher.ts) on a fake clock over a stand-in of the client's listing methods that answers from a simulated account: ${AGENTS} agents in pages of 100, ${BUSY} of them with a run that ends at a random moment (a seeded generator: the same moments every run) of 10 simulated minutes, the others idle; no runtimes, GitHub requests or image builds. Each call of a listing method is the one request the real client makes for it. Time moves a simulated second at a time; the watcher looks every 5 s while something runs and, when all is idle, as seldom as its idle budget asks (src/activity/watcher.ts IDLE_REQUESTS_PER_MINUTE: a look of 6 requests, 5 pages of agents and one other list, every 3 minutes). Latency: from a run's end to the event the watcher fires for it; Activity announces an event once a window has claimed it (an exclusive file create). ${(wall / 1000).toFixed(1)} s of wall time.`,
		],
	});
}
