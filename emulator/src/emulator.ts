import { ApiError, notFound } from './errors';
import type { FaultRule } from './faults';
import { Faults } from './faults';
import { sha256, UUID_RE } from './ids';
import type { Profile, ProfileName } from './profile';
import { profileFor } from './profile';
import { RunEngine } from './runs';
import { seedDemo, seedEmpty, CURRENT_USER_ID } from './seed';
import type { AgentRow, Data, RunRow, RuntimeRow, SecretRow, BuildRow } from './state';
import { loadStateFile, saveStateFile } from './state';
import { nowIso } from './util';
import { Workspace } from './workspace';

/** The documented development API key (public; full access). */
export const DEFAULT_TOKEN = 'ca_dev_0123456789abcdef';
/** The built-in read-only token: every mutation answers 403. */
export const READONLY_TOKEN = 'ca_readonly_0123456789abcdef';

export interface Caller {
	userId: string;
	canWrite: boolean;
	tokenHash: string;
}

export interface EmulatorConfig {
	token: string;
	seed: 'demo' | 'empty';
	/** Choices where the service description says "not shown" (emulator/src/profile.ts); default standard. */
	profile?: ProfileName | undefined;
	stateFile?: string | undefined;
	/** Device flow polling interval in seconds. */
	deviceInterval: number;
	/** SSE keep-alive comment period. */
	keepAliveMs: number;
	/** Memory bounds. */
	maxRunsPerAgent: number;
	maxTotalEventBytes: number;
	/** Artifact and workspace bytes kept in memory, all agents together. */
	maxStoredBytes: number;
}

export interface Counters {
	requests: { total: number; by_route: Record<string, number> };
	mutations: { total: number; by_kind: Record<string, number> };
	/** Workspace operations by kind (`list`, `stat`, `read`, `search`) and the paths read (first 10,000 paths). */
	workspace: { by_op: Record<string, number>; reads_by_path: Record<string, number> };
}

/** How many paths each `counters.workspace.reads_by_path` object holds. */
const readPathCounts = new WeakMap<Record<string, number>, number>();

export class Emulator {
	data: Data;
	readonly faults: Faults;
	readonly runs: RunEngine;
	/** The profile's choices where the service description is silent. */
	readonly profile: Profile;
	counters: Counters = newCounters();
	baseUrl = 'http://127.0.0.1';
	/**
	 * How far the emulator clock runs ahead of its wall reference (`POST /_emulator/clock/advance`):
	 * the wall clock, or while the clock is held, the wall time at which it was held.
	 */
	clockOffsetMs = 0;
	/** The wall time (epoch ms) at which the clock was held (`PUT /_emulator/clock {held: true}`); undefined while it runs. */
	private heldAtWallMs: number | undefined;
	/** Called on every tick (every 100 ms, each request, each clock step): the outage switch checks its end here. */
	readonly tickHooks: Array<() => void> = [];
	private readonly timers = new Set<NodeJS.Timeout>();
	private ticker: NodeJS.Timeout | undefined;
	private saveTimer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(
		readonly config: EmulatorConfig,
		faultRules: FaultRule[],
	) {
		this.faults = new Faults(faultRules);
		this.profile = profileFor(config.profile ?? 'standard');
		this.runs = new RunEngine(this);
		const loaded = config.stateFile ? loadStateFile(config.stateFile) : undefined;
		this.data = loaded ?? this.freshData(config.seed);
		this.installBuiltinTokens();
		if (loaded) this.runs.recoverAfterLoad();
		this.ticker = setInterval(() => this.tick(), 100);
		this.ticker.unref();
	}

	private freshData(seed: 'demo' | 'empty'): Data {
		const data = seed === 'demo' ? seedDemo() : seedEmpty();
		this.profile.adaptSeed(data);
		return data;
	}

	private installBuiltinTokens(): void {
		const keep = this.data.tokens.filter((t) => !t.builtin);
		const prev = new Map(this.data.tokens.map((t) => [t.hash, t]));
		const full = sha256(this.config.token);
		const ro = sha256(READONLY_TOKEN);
		keep.push({ hash: full, user_id: CURRENT_USER_ID, can_write: true, revoked: prev.get(full)?.revoked ?? false, builtin: true });
		keep.push({ hash: ro, user_id: CURRENT_USER_ID, can_write: false, revoked: prev.get(ro)?.revoked ?? false, builtin: true });
		this.data.tokens = keep;
	}

	reset(seed: 'demo' | 'empty'): void {
		this.runs.stopAll();
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		this.clockOffsetMs = 0;
		this.heldAtWallMs = undefined;
		this.data = this.freshData(seed);
		this.installBuiltinTokens();
		this.counters = newCounters();
		this.markDirty();
	}

	/**
	 * The emulator clock (epoch ms): the wall clock plus what `POST /_emulator/clock/advance` added;
	 * while held, it stands still (only an advance moves it). Time-driven state (image builds,
	 * checkpoints, GitHub request expiry, runtime transitions, agent provisioning, runtime deletion,
	 * an outage's end) follows it; workspace mtimes too while it is ahead of the wall clock.
	 */
	now(): number {
		return this.wall() + this.clockOffsetMs;
	}

	/** The emulator clock's wall reference: the wall clock, or the wall time it was held at. */
	private wall(): number {
		return this.heldAtWallMs ?? Date.now();
	}

	/** Whether the clock is held (`PUT /_emulator/clock {held: true}`). */
	get clockHeld(): boolean {
		return this.heldAtWallMs !== undefined;
	}

	/**
	 * Holds the emulator clock where it is (nothing time-driven moves until it is advanced or
	 * released), or releases it: it runs on from the time it was held at, without a jump (it is then
	 * behind the wall clock by as long as it was held, less what advances added). Idempotent.
	 */
	holdClock(held: boolean): void {
		if (held === this.clockHeld) return;
		if (held) {
			this.heldAtWallMs = Date.now();
			return;
		}
		const at = this.now();
		this.heldAtWallMs = undefined;
		this.clockOffsetMs = at - Date.now();
		this.tick();
	}

	/**
	 * Moves the emulator clock forward by `ms`, applying every transition in the order it falls due
	 * (a build that starts on the way also finishes on the way when its steps fit in the span).
	 */
	advanceClock(ms: number): void {
		const targetOffset = this.clockOffsetMs + Math.max(0, ms);
		this.tick();
		for (let i = 0; i < 10_000; i++) {
			// The next change still ahead (what is due now was applied, or waits for something else).
			const due = this.nextDue(this.now());
			if (due === undefined || due - this.wall() > targetOffset) break;
			this.clockOffsetMs = Math.min(targetOffset, Math.max(this.clockOffsetMs, due - this.wall()));
			this.tick();
		}
		this.clockOffsetMs = targetOffset;
		this.tick();
	}

	/** The earliest time (emulator clock) after `after` at which tick() has something to do, if any. */
	private nextDue(after: number): number | undefined {
		const times: number[] = [];
		for (const rt of this.data.runtimes) {
			if (rt.pending) times.push(rt.pending.at);
			if (rt.delete_at !== undefined) times.push(rt.delete_at);
		}
		for (const a of this.data.agents) if (a.status === 'provisioning' && a.ready_at !== undefined) times.push(a.ready_at);
		for (const b of this.data.builds) if (b.next_at !== undefined) times.push(b.next_at);
		for (const c of this.data.checkpoints) if (c.settle) times.push(c.settle.at);
		const ahead = times.filter((t) => t > after);
		return ahead.length === 0 ? undefined : Math.min(...ahead);
	}

	/** setTimeout that close() cancels. */
	later(ms: number, fn: () => void): NodeJS.Timeout {
		const t = setTimeout(() => {
			this.timers.delete(t);
			if (!this.closed) fn();
		}, ms);
		this.timers.add(t);
		return t;
	}

	cancelLater(t: NodeJS.Timeout | undefined): void {
		if (!t) return;
		clearTimeout(t);
		this.timers.delete(t);
	}

	countRequest(method: string, route: string): void {
		this.counters.requests.total++;
		const k = `${method} ${route}`;
		this.counters.requests.by_route[k] = (this.counters.requests.by_route[k] ?? 0) + 1;
	}

	/** Counts one workspace operation (the route counts them all as one). */
	countWorkspaceOp(op: string, path: string): void {
		const w = this.counters.workspace;
		w.by_op[op] = (w.by_op[op] ?? 0) + 1;
		if (op !== 'read') {
			return;
		}
		const known = w.reads_by_path[path];
		if (known !== undefined) {
			w.reads_by_path[path] = known + 1;
			return;
		}
		// Counted per object (a counter reset makes a new one), not by enumerating its keys on every read.
		const paths = readPathCounts.get(w.reads_by_path) ?? 0;
		if (paths < 10_000) {
			w.reads_by_path[path] = 1;
			readPathCounts.set(w.reads_by_path, paths + 1);
		}
	}

	mutation(kind: string): void {
		this.counters.mutations.total++;
		this.counters.mutations.by_kind[kind] = (this.counters.mutations.by_kind[kind] ?? 0) + 1;
		this.markDirty();
	}

	markDirty(): void {
		if (!this.config.stateFile || this.saveTimer || this.closed) return;
		this.saveTimer = setTimeout(() => {
			this.saveTimer = undefined;
			this.save();
		}, 200);
	}

	save(): void {
		if (this.config.stateFile) saveStateFile(this.config.stateFile, this.data);
	}

	/** Resolves the Authorization header; 401 for missing, malformed, unknown, expired or revoked. */
	authenticate(header: string | undefined): Caller {
		const www = { 'WWW-Authenticate': 'Bearer realm="cloud-agents"' };
		if (header === undefined || header === '') {
			throw new ApiError('unauthenticated', 'missing bearer token: send Authorization: Bearer <API_KEY_OR_ACCESS_TOKEN>', {
				headers: www,
			});
		}
		const m = /^Bearer ([\x21-\x7e]+)$/i.exec(header.trim());
		if (!m) throw new ApiError('unauthenticated', 'malformed Authorization header: expected "Bearer <token>"', { headers: www });
		const hash = sha256(m[1]!);
		const row = this.data.tokens.find((t) => t.hash === hash);
		if (!row) throw new ApiError('unauthenticated', 'bearer token rejected: unknown token', { headers: www });
		if (row.revoked) throw new ApiError('unauthenticated', 'bearer token rejected: the token was revoked', { headers: www });
		if (row.expires_ms !== undefined && row.expires_ms <= Date.now()) {
			throw new ApiError('unauthenticated', 'bearer token rejected: the token expired', { headers: www });
		}
		return { userId: row.user_id, canWrite: row.can_write, tokenHash: hash };
	}

	// ---- lookups -------------------------------------------------------------------------------

	agent(id: string): AgentRow {
		const a = this.data.agents.find((x) => x.id === id);
		if (!a) throw notFound('agent', id);
		return a;
	}

	run(agent: AgentRow, runId: string): RunRow {
		const r = this.data.runs.find((x) => x.id === runId && x.agent_id === agent.id);
		if (!r) throw notFound('run', runId);
		return r;
	}

	/** A runtime by UUID or display name; runtimes being deleted stay visible until they vanish. */
	runtime(ref: string): RuntimeRow {
		const rt = UUID_RE.test(ref)
			? this.data.runtimes.find((x) => x.id.toLowerCase() === ref.toLowerCase())
			: this.data.runtimes.find((x) => x.display_name === ref);
		if (!rt) throw notFound('runtime', ref);
		return rt;
	}

	secret(ref: string): SecretRow {
		const s = UUID_RE.test(ref)
			? this.data.secrets.find((x) => x.id.toLowerCase() === ref.toLowerCase())
			: this.data.secrets.find((x) => x.display_name === ref);
		if (!s) throw notFound('secret', ref);
		return s;
	}

	workspace(agentId: string): Workspace {
		let ws = this.data.workspaces.get(agentId);
		if (!ws) {
			ws = new Workspace(this.fileClock());
			this.data.workspaces.set(agentId, ws);
		}
		ws.clock = () => this.fileClock();
		return ws;
	}

	/**
	 * Where workspace mtimes come from: the emulator clock, or the wall clock while that is later.
	 * A clock advanced dates changes ahead; a clock behind the wall clock (held, or released after a
	 * hold) does not date a run's changes before the run itself (runs are dated on the wall clock, and
	 * a client takes the files changed since a run's start as that run's).
	 */
	private fileClock(): number {
		return this.activityClock();
	}

	/**
	 * When an agent's activity is dated (a rename, a run starting or ending, provisioning done): the
	 * later of the emulator clock and the wall clock, which never goes back. One clock for all of them:
	 * the Agents view orders agents by that activity, and a rename dated on the wall clock once sorted
	 * below an agent made ready on an emulator clock advanced ahead of it.
	 */
	activityClock(): number {
		return Math.max(this.now(), Date.now());
	}

	/** Memory bound on stored content: a write that would pass it is refused (422 failed_precondition). */
	checkStorage(adding: number): void {
		let total = adding;
		for (const a of this.data.artifacts) total += a.content.length;
		for (const w of this.data.workspaces.values()) total += w.totalBytes();
		if (total > this.config.maxStoredBytes) {
			throw new ApiError(
				'failed_precondition',
				`content_base64: the emulator keeps at most ${this.config.maxStoredBytes} bytes of artifacts and workspace files; delete some first`,
				{ status: 422 },
			);
		}
	}

	canManage(rt: RuntimeRow, caller: Caller): boolean {
		return caller.canWrite && rt.owner_user_id === caller.userId;
	}

	bumpRuntime(rt: RuntimeRow): void {
		rt.revision++;
		rt.updated_at = nowIso();
	}

	// ---- time-driven transitions -----------------------------------------------------------------

	/** Applies every transition that is due (runtimes, agents, builds, sessions, device codes). */
	tick(): void {
		if (this.closed) return;
		for (const hook of this.tickHooks) hook();
		const now = this.now();
		let changed = false;
		for (const rt of [...this.data.runtimes]) {
			if (rt.pending && rt.pending.at <= now) {
				rt.status = rt.pending.status;
				rt.pending = undefined;
				this.bumpRuntime(rt);
				changed = true;
			}
			if (rt.delete_at !== undefined && rt.delete_at <= now) {
				this.removeRuntime(rt);
				changed = true;
			}
		}
		for (const a of this.data.agents) {
			if (a.status === 'provisioning' && a.ready_at !== undefined && a.ready_at <= now) {
				const rt = this.data.runtimes.find((r) => r.id === a.runtime_id);
				if (rt && rt.status !== 'running') continue;
				a.status = 'idle';
				a.ready_at = undefined;
				a.updated_at_ms = this.activityClock();
				changed = true;
				if (a.initial_message !== undefined) {
					const prompt = a.initial_message;
					a.initial_message = undefined;
					this.runs.create(a, { prompt, imageCount: 0 });
				}
			}
		}
		for (const b of this.data.builds) {
			if (b.next_at !== undefined && b.next_at <= now) {
				advanceBuild(this, b);
				changed = true;
			}
		}
		for (const c of this.data.checkpoints) {
			if (c.settle && c.settle.at <= now) {
				c.state = { status: c.settle.status, failure_reason: c.settle.failure_reason ?? null };
				c.settle = undefined;
				changed = true;
			}
		}
		// Credentials (computer sessions, device codes) expire on the wall clock, as they are made and
		// checked (vnc.ts, auth.ts): a test that moved the emulator clock a day on must not see every
		// new session dropped at the next tick.
		const wall = Date.now();
		const sessions = this.data.computerSessions.filter((s) => s.expires_ms > wall);
		if (sessions.length !== this.data.computerSessions.length) this.data.computerSessions = sessions;
		const devices = this.data.devices.filter((d) => d.expires_ms > wall - 3600_000);
		if (devices.length !== this.data.devices.length) this.data.devices = devices;
		if (changed) this.markDirty();
	}

	removeRuntime(rt: RuntimeRow): void {
		this.data.runtimes = this.data.runtimes.filter((x) => x !== rt);
		for (const a of this.data.agents.filter((x) => x.runtime_id === rt.id)) this.removeAgent(a);
		this.data.stubs = this.data.stubs.filter((s) => s.runtime_id !== rt.id);
		for (const c of this.data.checkpoints) if (c.source_runtime.id === rt.id) c.source_runtime = { ...c.source_runtime, id: null };
	}

	removeAgent(a: AgentRow): void {
		for (const r of this.data.runs.filter((x) => x.agent_id === a.id)) this.runs.stop(r, 'not_found');
		this.data.agents = this.data.agents.filter((x) => x !== a);
		this.data.runs = this.data.runs.filter((x) => x.agent_id !== a.id);
		this.data.artifacts = this.data.artifacts.filter((x) => x.agent_id !== a.id);
		this.data.workspaces.delete(a.id);
	}

	async close(): Promise<void> {
		if (this.closed) return;
		this.runs.stopAll();
		this.closed = true;
		if (this.ticker) clearInterval(this.ticker);
		for (const t of this.timers) clearTimeout(t);
		this.timers.clear();
		if (this.saveTimer) {
			clearTimeout(this.saveTimer);
			this.saveTimer = undefined;
		}
		if (this.config.stateFile) this.save();
	}
}

function newCounters(): Counters {
	return { requests: { total: 0, by_route: {} }, mutations: { total: 0, by_kind: {} }, workspace: { by_op: {}, reads_by_path: {} } };
}

/** How long each build step takes on the emulator clock (pending → running → an attempt's outcome). */
export const BUILD_STEP_MS = 1000;

/**
 * Image builds move pending → running → succeeded|failed, one step every BUILD_STEP_MS of the emulator
 * clock. A Dockerfile line `FAIL` fails every attempt (two attempts, then the build fails); `FLAKY`
 * fails the first attempt only (a second attempt runs and succeeds).
 */
export function advanceBuild(emu: Emulator, b: BuildRow): void {
	const now = emu.now();
	const iso = nowIso(now);
	b.updated_at = iso;
	const step = b.step_ms ?? BUILD_STEP_MS;
	if (b.status === 'pending') {
		b.status = 'running';
		b.attempts.push({ number: b.attempts.length + 1, outcome: 'running', started_at: iso, finished_at: null });
		b.next_at = now + step;
		return;
	}
	if (b.status === 'running') {
		const attempt = b.attempts[b.attempts.length - 1];
		const failsAlways = /\bFAIL\b/.test(b.dockerfile);
		const flaky = /\bFLAKY\b/.test(b.dockerfile);
		const attemptFails = failsAlways || (flaky && (attempt?.number ?? 1) === 1);
		if (attempt) {
			attempt.outcome = attemptFails ? 'failed' : 'succeeded';
			attempt.finished_at = iso;
		}
		if (attemptFails && b.attempts.length < MAX_BUILD_ATTEMPTS) {
			b.attempts.push({ number: b.attempts.length + 1, outcome: 'running', started_at: iso, finished_at: null });
			b.next_at = now + step;
			return;
		}
		b.status = attemptFails ? 'failed' : 'succeeded';
		if (!attemptFails) {
			const base = emu.data.images.find((i) => i.kind === 'builtin');
			const id = `img_${b.id.slice(0, 8)}`;
			emu.data.images.push({
				id,
				display_name: b.display_name,
				kind: 'custom',
				architectures: [b.architecture],
				onboarding: base ? base.onboarding.map((o) => ({ ...o })) : [],
				credential_variable: base?.credential_variable ?? 'MODEL_API_KEY',
				default_endpoint: base?.default_endpoint ?? 'https://api.example.com/v1',
				subscription_credentials: [],
				endpoint_overridable: true,
				browser_surfaces: [],
				tcp_ports: [],
			});
			b.image_id = id;
		}
	}
	b.next_at = undefined;
}

/** A build whose attempts fail is tried at most this many times. */
export const MAX_BUILD_ATTEMPTS = 2;
