/**
 * The watcher over the whole account (issue 45): one poll loop that reads the service's lists, keeps
 * the account as it last saw it (events.ts `AccountSnapshot`) and fires what changed as activity
 * events. It learns from the lists, not from a stream per agent: the agents list carries each
 * agent's status and latest reply, so one request per page tells which agents changed, and only
 * those agents' runs are read.
 *
 * Cost, bounded and adaptive (the constants below):
 * - a poll reads the agents list (at most AGENT_MAX_PAGES pages, AGENT_MAX_ITEMS agents), the runs
 *   of at most RUN_READS_PER_POLL changed agents (the rest wait for the next poll), and one of the
 *   other lists in turn (open GitHub authorization requests, runtimes, image builds; all three on
 *   the first poll): at most 1 + AGENT_MAX_PAGES + RUN_READS_PER_POLL + RUNTIME_MAX_PAGES requests
 *   of ours (the client's own bounded retries and cursor probing aside);
 * - every FAST_POLL_MS while something runs; when all is idle, every IDLE_POLL_MS or longer, so
 *   that it costs at most IDLE_REQUESTS_PER_MINUTE requests a minute whatever the account's size;
 * - a 429 waits its Retry-After (at least the interval, at most RATE_LIMIT_MAX_MS); an unreachable
 *   service is tried again with a growing pause (UNREACHABLE_FIRST_MS doubling to
 *   UNREACHABLE_MAX_MS); signed out (no client, or a 401), it stops until the sign-in changes or
 *   `pollNow()` is called. The snapshot before the pause is kept, so the first poll after it
 *   reports what ended meanwhile (catch-up);
 * - one poll at a time (`pollNow()` during a poll joins it); `dispose()` aborts the poll in flight;
 * - at most EVENTS_PER_POLL events a poll (the newest; the rest are counted in `lastPoll.dropped`);
 *   a key once fired is never fired again (the last SEEN_KEYS_MAX keys), and a record that flaps
 *   (a runtime failing again and again, an agent waiting again and again) is announced at most once
 *   per FLAP_WINDOW_MS for each kind.
 */
import * as vscode from 'vscode';
import {
	type CloudAgentsClient,
	ListingStoppedError,
	PageChain,
	ValidationError,
	isAbortError,
	isAuthFailure,
	isUnreachable,
	readBuild,
} from '../api';
import type { Page } from '../api/types';
import { type Clock, systemClock } from '../base/clock';
import {
	type AccountSnapshot,
	type ActivityEvent,
	type AgentFacts,
	type AuthorizationFacts,
	type BuildFacts,
	type RunFacts,
	type RuntimeFacts,
	agentFacts,
	authorizationFacts,
	buildFacts,
	diffSnapshots,
	isBusy,
	runFacts,
	runtimeFacts,
} from './events';

/** Interval while something runs (an agent busy, a run not ended, a build going): a run's end is seen within this. */
export const FAST_POLL_MS = 5_000;
/** Shortest interval when everything is idle (2 requests a look: one page of agents + one other list). */
export const IDLE_POLL_MS = 60_000;
/**
 * Requests a minute the watcher makes at most while everything is idle: a look that took more
 * requests (several pages of agents) waits longer, so 500 idle agents (5 pages) cost as little as 50.
 */
export const IDLE_REQUESTS_PER_MINUTE = 2;
/** First pause after the service was out of reach; it doubles up to UNREACHABLE_MAX_MS. */
export const UNREACHABLE_FIRST_MS = 5_000;
/** Longest pause between two tries while the service is out of reach. */
export const UNREACHABLE_MAX_MS = 5 * 60_000;
/** Longest wait a 429's Retry-After (or its backoff) can impose; a longer one is cut to this. */
export const RATE_LIMIT_MAX_MS = 15 * 60_000;
/** Each request of a poll is aborted after this long (on the watcher's clock). */
export const REQUEST_DEADLINE_MS = 30_000;
/** Agents per page (the service's largest). */
export const AGENT_PAGE_LIMIT = 100;
/** Pages of agents one poll reads at most. */
export const AGENT_MAX_PAGES = 10;
/** Agents one poll keeps at most (further agents are not watched). */
export const AGENT_MAX_ITEMS = AGENT_PAGE_LIMIT * AGENT_MAX_PAGES;
/** Agents whose runs one poll reads at most (the others wait for the next poll, in order). */
export const RUN_READS_PER_POLL = 8;
/** Runs read per agent (newest first): the run that just ended and the few before it. */
export const RUNS_PER_AGENT = 5;
/** An agent with a run not ended has its runs read again at least this often, even if its record did not change. */
export const ACTIVE_RUN_RECHECK_MS = 60_000;
/** Runtimes per page, pages and runtimes one read keeps. */
export const RUNTIME_PAGE_LIMIT = 100;
export const RUNTIME_MAX_PAGES = 5;
export const RUNTIME_MAX_ITEMS = RUNTIME_PAGE_LIMIT * RUNTIME_MAX_PAGES;
/** Open GitHub authorization requests kept from one read (the listing has no pages). */
export const AUTHORIZATION_MAX_ITEMS = 100;
/** Image builds read (newest first, one page): a build that ends is among the newest. */
export const BUILD_PAGE_LIMIT = 20;
/** Events one poll fires at most. */
export const EVENTS_PER_POLL = 25;
/** Event keys remembered as fired (oldest forgotten first). */
export const SEEN_KEYS_MAX = 5_000;
/** A record announced for one kind is not announced for it again within this (flapping). */
export const FLAP_WINDOW_MS = 30 * 60_000;
/** Records remembered for the flapping rule (oldest forgotten first). */
export const FLAP_MEMORY_MAX = 2_000;

/** What the watcher reads through: the client's listing methods. */
export type WatcherClient = Pick<
	CloudAgentsClient,
	'listAgents' | 'listRuns' | 'listRuntimes' | 'listGitHubAuthorizationRequests' | 'listImageBuilds'
>;

/** Where the watcher stands. */
/** The account a look reads was signed out (or is another) before its next request. */
class AccountGone extends Error {
	constructor() {
		super('The account was signed out during the look');
	}
}

export type WatcherState = 'starting' | 'watching' | 'signedOut' | 'unreachable' | 'rateLimited' | 'failing' | 'disposed';

/** What one poll did (diagnostics, tests and the bench). */
export interface PollReport {
	/** When it started (the watcher's clock). */
	readonly at: number;
	/** Requests it made (ours; the client's own retries not counted). */
	readonly requests: number;
	/** Events it fired. */
	readonly events: number;
	/** Events over EVENTS_PER_POLL it left out. */
	readonly dropped: number;
	/** How it ended: `ok`, or the state it put the watcher in. */
	readonly outcome: 'ok' | Exclude<WatcherState, 'starting' | 'watching'>;
	/** The wait before the next poll (ms), when one is scheduled. */
	readonly nextInMs: number | undefined;
}

export interface ActivityWatcherOptions {
	/** The client of the signed-in account, or undefined while signed out (the watcher then waits). */
	readonly client: () => WatcherClient | undefined;
	/** Fires when the sign-in state changes: the watcher polls at once when a client is there. */
	readonly onDidChangeSignIn?: vscode.Event<unknown>;
	/** Time and timers (tests pass a fake clock). Default: the system clock. */
	readonly clock?: Clock;
	/**
	 * Catch-up: things that ended at or after this time (ms, by the records' own times) are reported
	 * on the first poll even though the watcher never saw them running (after a reload, the time of
	 * the newest event in the history). Default: the first poll's time (nothing that ended before).
	 */
	readonly since?: number;
	/** Debug log (never given the token: the watcher never sees it). */
	readonly log?: (message: string) => void;
	/** Do not poll until `pollNow()` (tests); default false: the first poll is scheduled at once. */
	readonly manualStart?: boolean;
}

/** A bounded set of strings that forgets its oldest member first. */
class BoundedSet {
	private readonly items = new Set<string>();
	constructor(private readonly max: number) {}
	has(value: string): boolean {
		return this.items.has(value);
	}
	add(value: string): void {
		this.items.delete(value);
		this.items.add(value);
		while (this.items.size > this.max) {
			const oldest = this.items.values().next().value;
			if (oldest === undefined) {
				break;
			}
			this.items.delete(oldest);
		}
	}
}

/** The record an event is about, for the flapping rule: its kind and the record's id. */
function flapKey(event: ActivityEvent): string | undefined {
	switch (event.kind) {
		case 'runtimeFailed':
			return `${event.kind}:${event.runtimeId ?? ''}`;
		case 'agentWaiting':
			return `${event.kind}:${event.agentId ?? ''}`;
		default:
			return undefined; // Their keys already name the record once (a run ends once, a build ends once).
	}
}

/** The poll loop over the account (see the module comment). */
export class ActivityWatcher implements vscode.Disposable {
	private readonly _onDidEvents = new vscode.EventEmitter<readonly ActivityEvent[]>();
	/** New events of one poll, oldest first (at most EVENTS_PER_POLL). */
	readonly onDidEvents: vscode.Event<readonly ActivityEvent[]> = this._onDidEvents.event;
	private readonly _onDidChangeState = new vscode.EventEmitter<WatcherState>();
	/** The watcher's state changed (signed out, unreachable, …). */
	readonly onDidChangeState: vscode.Event<WatcherState> = this._onDidChangeState.event;

	private readonly clock: Clock;
	private snapshotNow: AccountSnapshot | undefined;
	private stateNow: WatcherState = 'starting';
	private running: Promise<void> | undefined;
	private timer: unknown;
	private timerSet = false;
	private controller: AbortController | undefined;
	private failures = 0;
	private disposed = false;
	private secondaryTurn = 0;
	private readonly runQueue: string[] = [];
	private readonly runsReadAt = new Map<string, number>();
	private readonly seenKeys = new BoundedSet(SEEN_KEYS_MAX);
	private readonly flaps = new Map<string, number>();
	private readonly signInSubscription: vscode.Disposable | undefined;
	private report: PollReport | undefined;
	private requests = 0;
	/** Requests the last look made for the agents' pages (the idle wait grows with them). */
	private agentPageRequests = 1;

	constructor(private readonly options: ActivityWatcherOptions) {
		this.clock = options.clock ?? systemClock;
		this.signInSubscription = options.onDidChangeSignIn?.(() => {
			if (!this.disposed && this.options.client() !== undefined) {
				void this.pollNow();
			}
		});
		if (!options.manualStart) {
			this.schedule(0);
		}
	}

	/** Where the watcher stands. */
	get state(): WatcherState {
		return this.stateNow;
	}

	/** The account as the last successful poll saw it. */
	get snapshot(): AccountSnapshot | undefined {
		return this.snapshotNow;
	}

	/** What the last poll did. */
	get lastPoll(): PollReport | undefined {
		return this.report;
	}

	/**
	 * Polls now (a sign-in, the service reachable again, the window focused): joins the poll in
	 * flight if there is one, and resolves when it is done. Never throws.
	 */
	pollNow(): Promise<void> {
		if (this.disposed) {
			return Promise.resolve();
		}
		this.running ??= this.poll().finally(() => {
			this.running = undefined;
		});
		return this.running;
	}

	dispose(): void {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		this.cancelTimer();
		this.controller?.abort();
		this.signInSubscription?.dispose();
		this.setState('disposed');
		this._onDidEvents.dispose();
		this._onDidChangeState.dispose();
	}

	private setState(state: WatcherState): void {
		if (state !== this.stateNow) {
			this.stateNow = state;
			this._onDidChangeState.fire(state);
		}
	}

	private schedule(ms: number): void {
		this.cancelTimer();
		if (this.disposed) {
			return;
		}
		this.timerSet = true;
		this.timer = this.clock.setTimeout(
			() => {
				this.timerSet = false;
				void this.pollNow();
			},
			ms,
			{ unref: true },
		);
	}

	private cancelTimer(): void {
		if (this.timerSet) {
			this.clock.clearTimeout(this.timer);
			this.timerSet = false;
		}
	}

	private async poll(): Promise<void> {
		this.cancelTimer();
		const at = this.clock.now();
		this.requests = 0;
		const client = this.options.client();
		if (!client) {
			this.finish(at, 'signedOut', undefined, 0, 0);
			return;
		}
		const controller = new AbortController();
		this.controller = controller;
		try {
			const snapshot = await this.look(client, controller.signal, at);
			if (this.disposed) {
				return;
			}
			const { events, dropped } = this.select(diffSnapshots(this.snapshotNow, snapshot), at);
			this.snapshotNow = snapshot;
			this.failures = 0;
			// Idle: a steady look is the agents' pages and one other list.
			const next =
				isBusy(snapshot) || this.runQueue.length > 0
					? FAST_POLL_MS
					: Math.max(IDLE_POLL_MS, Math.ceil(((this.agentPageRequests + 1) * 60_000) / IDLE_REQUESTS_PER_MINUTE));
			this.finish(at, 'ok', next, events.length, dropped);
			if (events.length > 0) {
				this._onDidEvents.fire(events);
			}
		} catch (err) {
			if (this.disposed) {
				return;
			}
			this.failed(err, at);
		} finally {
			if (this.controller === controller) {
				this.controller = undefined;
			}
		}
	}

	private failed(err: unknown, at: number): void {
		if (err instanceof AccountGone) {
			this.options.log?.('activity: signed out during a look; waiting for a sign-in');
			this.finish(at, 'signedOut', undefined, 0, 0);
			return;
		}
		this.failures++;
		if (isAuthFailure(err)) {
			this.options.log?.('activity: signed out (401); waiting for a sign-in');
			this.finish(at, 'signedOut', undefined, 0, 0);
			return;
		}
		const status = (err as { status?: unknown }).status;
		if (status === 429) {
			const retryAfter = (err as { retryAfter?: unknown }).retryAfter;
			const asked = typeof retryAfter === 'number' && Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : 0;
			const backoff = Math.min(RATE_LIMIT_MAX_MS, IDLE_POLL_MS * 2 ** Math.min(this.failures - 1, 4));
			const wait = Math.min(RATE_LIMIT_MAX_MS, Math.max(FAST_POLL_MS, asked || backoff));
			this.options.log?.(`activity: rate limited; next poll in ${Math.round(wait / 1000)} s`);
			this.finish(at, 'rateLimited', wait, 0, 0);
			return;
		}
		const wait = Math.min(UNREACHABLE_MAX_MS, UNREACHABLE_FIRST_MS * 2 ** Math.min(this.failures - 1, 10));
		if (isUnreachable(err) || isAbortError(err)) {
			this.finish(at, 'unreachable', wait, 0, 0);
			return;
		}
		this.options.log?.(`activity: poll failed: ${err instanceof Error ? err.message : String(err)}`);
		this.finish(at, 'failing', Math.max(wait, FAST_POLL_MS), 0, 0);
	}

	private finish(at: number, outcome: PollReport['outcome'], nextInMs: number | undefined, events: number, dropped: number): void {
		this.report = { at, requests: this.requests, events, dropped, outcome, nextInMs };
		this.setState(outcome === 'ok' ? 'watching' : outcome);
		if (nextInMs !== undefined) {
			this.schedule(nextInMs);
		}
	}

	/** The events to fire: not fired before, not a flapping record's repeat, at most EVENTS_PER_POLL (the newest). */
	private select(candidates: readonly ActivityEvent[], now: number): { events: ActivityEvent[]; dropped: number } {
		const fresh: ActivityEvent[] = [];
		for (const event of candidates) {
			if (this.seenKeys.has(event.key)) {
				continue;
			}
			this.seenKeys.add(event.key);
			const flap = flapKey(event);
			if (flap !== undefined) {
				const last = this.flaps.get(flap);
				if (last !== undefined && now - last < FLAP_WINDOW_MS) {
					continue;
				}
				this.flaps.delete(flap);
				this.flaps.set(flap, now);
				while (this.flaps.size > FLAP_MEMORY_MAX) {
					const oldest = this.flaps.keys().next().value;
					if (oldest === undefined) {
						break;
					}
					this.flaps.delete(oldest);
				}
			}
			fresh.push(event);
		}
		const dropped = Math.max(0, fresh.length - EVENTS_PER_POLL);
		return { events: fresh.slice(dropped), dropped };
	}

	/**
	 * A signal for one request: aborted by the poll's signal or after REQUEST_DEADLINE_MS on the clock.
	 * Not sent when the account is no longer there to ask (`client()` answers nothing: signed out, or
	 * another account): a sign-out drops the token before the session says so, and a look in flight
	 * would otherwise send its next requests without it.
	 */
	private async request<T>(signal: AbortSignal, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
		signal.throwIfAborted();
		if (this.options.client() === undefined) {
			throw new AccountGone();
		}
		this.requests++;
		const controller = new AbortController();
		const onAbort = (): void => controller.abort(signal.reason);
		signal.addEventListener('abort', onAbort, { once: true });
		const timer = this.clock.setTimeout(
			() => controller.abort(new Error('The activity poll request passed its deadline')),
			REQUEST_DEADLINE_MS,
			{
				unref: true,
			},
		);
		try {
			return await send(controller.signal);
		} finally {
			this.clock.clearTimeout(timer);
			signal.removeEventListener('abort', onAbort);
		}
	}

	/** Every item of a paged listing, at most `maxPages` pages and `maxItems` items; `complete` false when it stopped early. */
	private async pages<T>(
		signal: AbortSignal,
		maxPages: number,
		maxItems: number,
		fetch: (cursor: string | undefined, signal: AbortSignal) => Promise<Page<T>>,
	): Promise<{ items: T[]; complete: boolean }> {
		const chain = new PageChain(maxPages, maxItems);
		const items: T[] = [];
		let cursor: string | undefined;
		for (let page = 0; page < maxPages; page++) {
			let got: Page<T>;
			try {
				got = await this.request(signal, (s) => fetch(cursor, s));
			} catch (err) {
				if (err instanceof ListingStoppedError && page > 0) {
					this.options.log?.(`activity: a listing stopped early (${err.reason})`);
					return { items, complete: false };
				}
				throw err;
			}
			let next: string | undefined;
			try {
				next = chain.accept(got, cursor);
			} catch (err) {
				if (!(err instanceof ListingStoppedError)) {
					throw err;
				}
				if (err.reason !== 'repeated_page') {
					items.push(...got.items.slice(0, Math.max(0, maxItems - items.length)));
				}
				this.options.log?.(`activity: a listing stopped early (${err.reason})`);
				return { items, complete: false };
			}
			items.push(...got.items.slice(0, Math.max(0, maxItems - items.length)));
			if (next === undefined) {
				return { items, complete: true };
			}
			cursor = next;
		}
		return { items, complete: false };
	}

	/** One look at the account: the agents, the runs of the agents that changed, one other list in turn. */
	private async look(client: WatcherClient, signal: AbortSignal, takenAt: number): Promise<AccountSnapshot> {
		const previous = this.snapshotNow;
		const horizon = previous?.horizon ?? Math.min(this.options.since ?? takenAt, takenAt);

		const before = this.requests;
		const listed = await this.pages(signal, AGENT_MAX_PAGES, AGENT_MAX_ITEMS, (cursor, s) =>
			client.listAgents({ limit: AGENT_PAGE_LIMIT, cursor, signal: s }),
		);
		this.agentPageRequests = this.requests - before;
		const agents = new Map<string, AgentFacts>();
		if (!listed.complete && previous) {
			for (const [id, agent] of previous.agents) {
				agents.set(id, agent);
			}
		}
		for (const agent of listed.items) {
			agents.set(agent.id, agentFacts(agent));
		}

		const runs = new Map<string, RunFacts>();
		for (const [id, run] of previous?.runs ?? []) {
			if (agents.has(run.agentId)) {
				runs.set(id, run);
			}
		}
		for (const id of [...this.runsReadAt.keys()]) {
			if (!agents.has(id)) {
				this.runsReadAt.delete(id);
			}
		}
		this.queueRunReads(previous, agents, runs, horizon, takenAt);
		for (const agentId of this.runQueue.splice(0, RUN_READS_PER_POLL)) {
			const agent = agents.get(agentId);
			if (!agent) {
				continue;
			}
			let read;
			try {
				read = await this.request(signal, (s) => client.listRuns(agentId, { limit: RUNS_PER_AGENT, signal: s }));
			} catch (err) {
				if ((err as { status?: unknown }).status === 404 || err instanceof ValidationError) {
					// Deleted meanwhile (the next agents list says so), or an id the client refuses to send: not retried.
					continue;
				}
				this.runQueue.unshift(agentId);
				throw err;
			}
			for (const [id, run] of runs) {
				if (run.agentId === agentId) {
					runs.delete(id);
				}
			}
			for (const run of read.slice(0, RUNS_PER_AGENT)) {
				const facts = runFacts(run, agent);
				runs.set(facts.id, { ...facts, agentId });
			}
			this.runsReadAt.set(agentId, takenAt);
		}

		let runtimes: ReadonlyMap<string, RuntimeFacts> = previous?.runtimes ?? new Map();
		let authorizations: ReadonlyMap<string, AuthorizationFacts> = previous?.authorizations ?? new Map();
		let builds: ReadonlyMap<string, BuildFacts> = previous?.builds ?? new Map();
		const turns = previous === undefined ? [0, 1, 2] : [this.secondaryTurn++ % 3];
		for (const turn of turns) {
			if (turn === 0) {
				const read = await this.request(signal, (s) => client.listGitHubAuthorizationRequests({ signal: s }));
				const next = new Map<string, AuthorizationFacts>();
				for (const request of read.slice(0, AUTHORIZATION_MAX_ITEMS)) {
					const facts = authorizationFacts(request);
					if (facts) {
						next.set(facts.id, facts);
					}
				}
				authorizations = next;
			} else if (turn === 1) {
				const read = await this.pages(signal, RUNTIME_MAX_PAGES, RUNTIME_MAX_ITEMS, (cursor, s) =>
					client.listRuntimes({ limit: RUNTIME_PAGE_LIMIT, cursor, signal: s }),
				);
				const next = new Map<string, RuntimeFacts>(read.complete ? [] : runtimes);
				for (const runtime of read.items) {
					next.set(runtime.id, runtimeFacts(runtime));
				}
				runtimes = next;
			} else {
				const read = await this.request(signal, (s) => client.listImageBuilds({ limit: BUILD_PAGE_LIMIT, signal: s }));
				const next = new Map<string, BuildFacts>();
				for (const raw of read.items.slice(0, BUILD_PAGE_LIMIT)) {
					const build = readBuild(raw);
					if (build) {
						next.set(build.id, buildFacts(build));
					}
				}
				builds = next;
			}
		}
		return { takenAt, horizon, agents, runs, runtimes, authorizations, builds };
	}

	/**
	 * Queues the agents whose runs to read: new agents that are busy or changed since the horizon,
	 * agents whose record changed, and agents with a run not ended that were not read for
	 * ACTIVE_RUN_RECHECK_MS. A change goes before every re-check (a run that ends changes its agent's
	 * record, and is reported from the next look however many runs are still going); otherwise the
	 * queue keeps its order across polls (each agent once).
	 */
	private queueRunReads(
		previous: AccountSnapshot | undefined,
		agents: ReadonlyMap<string, AgentFacts>,
		runs: ReadonlyMap<string, RunFacts>,
		horizon: number,
		now: number,
	): void {
		const waiting = this.runQueue.filter((id) => agents.has(id));
		const changed: string[] = [];
		const later: string[] = [];
		const queued = new Set<string>();
		const add = (id: string, first = false): void => {
			if (!queued.has(id)) {
				queued.add(id);
				(first ? changed : later).push(id);
			}
		};
		const activeAgents = new Set<string>();
		for (const run of runs.values()) {
			if (run.meaning.state !== 'ended') {
				activeAgents.add(run.agentId);
			}
		}
		for (const agent of agents.values()) {
			const before = previous?.agents.get(agent.id);
			if (before === undefined) {
				if (agent.meaning !== 'idle' || (agent.updatedAt !== undefined && agent.updatedAt >= horizon)) {
					add(agent.id, previous !== undefined);
				}
			} else if (before.signature !== agent.signature) {
				add(agent.id, true);
			}
		}
		// Then what was waiting already, then the re-checks.
		for (const id of waiting) {
			add(id);
		}
		for (const agent of agents.values()) {
			if (activeAgents.has(agent.id) && now - (this.runsReadAt.get(agent.id) ?? 0) >= ACTIVE_RUN_RECHECK_MS) {
				add(agent.id);
			}
		}
		this.runQueue.length = 0;
		this.runQueue.push(...changed, ...later);
	}
}
