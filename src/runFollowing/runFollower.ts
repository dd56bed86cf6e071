import * as vscode from 'vscode';
import { ApiError, SAFETY, eventStatus, isAbortError, isAuthFailure, isTerminalRunStatus, runStatusClass } from '../api';
import type { CloudAgentsClient, EventRecord, StreamOutageEvent } from '../api';
import { describeError, showApiError } from '../messages/errors';
import { Disposable } from '../util/lifecycle';
import { ChannelCloser } from '../util/outputChannels';
import { iconSafe, notificationText, outputLine } from '../util/text';
import { endNotificationActions, followedRunActions, formatEvent, runChannelName, runTitle } from './format';
import type { FollowedRunAction } from './format';
import { readRunEvents } from './runEvents';
import type { RunEventStore } from './runStore';
import { FOLLOWED_RUNS_KEY, RUN_NOTIFIED_KEY } from '../ids';
import { followedRunsToStore, parseFollowedRuns } from './followedRuns';
import type { FollowedRunKey } from './followedRuns';

/** One event received while following a run. */
export interface RunEventNotice {
	agentId: string;
	runId: string;
	event: EventRecord;
}

/** The part of the session a follower uses (structural, so runFollowing/ does not import auth/). */
export interface FollowerSession {
	readonly client: CloudAgentsClient;
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
	/** Turns a 401 into the single "sign in again" prompt; true when it handled the error. */
	reportError(err: unknown): boolean;
}

/** What a RunFollower needs. */
export interface RunFollowerOptions {
	session: FollowerSession;
	/** Every followed run's events on disk (one file per run: resumed from its last seq). */
	store: RunEventStore;
	/** Where ended runs are remembered, so each is announced once (context.globalState). */
	globalState: vscode.Memento;
	/**
	 * Where this window remembers the runs it follows (context.workspaceState; their ids only), so
	 * that after a reload it follows them again, each from its last stored event.
	 */
	workspaceState: vscode.Memento;
	log: vscode.LogOutputChannel;
	/** Flush period of the channel and disk buffers (ms). */
	flushMs?: number;
	/** Most runs streamed at the same time; following one more stops the oldest. */
	maxActive?: number;
	/**
	 * Most run output channels open at once; opening one more closes the channel of the run
	 * followed longest ago that is no longer streaming (its events stay on disk: following or
	 * showing it again re-reads them).
	 */
	maxChannels?: number;
	/** How long the status bar keeps showing a run that ended (ms); then it hides. */
	endedStatusMs?: number;
	/**
	 * The name of the deployment whose runs this follower follows, when two or more deployments are
	 * configured (issue 47): a run followed then names it in its channel's name, its notifications
	 * and the status bar ("… (Staging)"). Undefined (or none) with one deployment: nothing is added.
	 */
	deploymentName?: () => string | undefined;
	/**
	 * The status bar item's id (`cloudAgents.followedRun` unless given: each deployment's follower has its own item)
	 * and what its click passes to `cloudAgents.runs.followedRunActions` (nothing unless given: the default deployment's).
	 */
	status?: { id: string; arg: unknown };
	/**
	 * Shows and closes the run channels, when the follower may end before the window does (another
	 * deployment's, disposed at its sign-out): its channels are then closed through it, disposed once
	 * the Output view has let go of them, and it outlives the follower. Without it the follower has
	 * its own and disposes its channels with itself (the window closing).
	 */
	closer?: ChannelCloser;
}

/** How following a run ended. */
export interface FollowOutcome {
	/** The run's final status when it ended, else undefined (stopped, failed or signed out). */
	status: string | undefined;
	/**
	 * Why it stopped without the run ending: `stopped`, `error`, `unauthorized` (paused until the next
	 * sign-in), `gone` (the service no longer knows the run or its agent: deleted elsewhere).
	 */
	reason?: 'stopped' | 'error' | 'unauthorized' | 'gone';
}

/** How a window claims the announcement of a run's end across the profile's windows (RunFollower.setEndClaim). */
export interface EndClaims {
	/** True when no other window announced the run's end: this one announces it. */
	claim(runId: string): Promise<boolean>;
	/** Tells the other windows that this one follows the run, so its end is announced here. */
	following(runId: string): Promise<void>;
}

/** What this window knows of a run it follows or followed (RunFollower.stateOf). */
export interface FollowedRunState {
	/** The run's human name (`<agent>: <prompt excerpt>`), as its channel is named. */
	title: string;
	/** The latest status its events told, undefined before the first. */
	status: string | undefined;
	/** True while its events are streamed. */
	active: boolean;
	/** True once the run has ended (its final status is known). */
	ended: boolean;
	/** How following it ended the last time, once every step of that end is done (the end-of-run notice shown); undefined while it streams. */
	outcome: FollowOutcome | undefined;
}

/** What a caller already knows about a run, so its human name needs no request. */
export interface RunNameHint {
	agentName?: string;
	prompt?: string;
}

/** How `RunFollower.follow` shows the run. */
export interface FollowOptions extends RunNameHint {
	/** Whether showing its channel takes the focus from the editor (default true: it does not). */
	preserveFocus?: boolean;
	/** Whether its channel is shown (default true). */
	reveal?: boolean;
}

/** The run the status bar shows, and what can be done with it. */
export interface StatusRunInfo {
	agentId: string;
	runId: string;
	/** The run's human name (`<agent>: <prompt excerpt>`). */
	title: string;
	status: string | undefined;
	/** True while its events are streamed. */
	active: boolean;
	/** True while the service is out of reach and following waits for it. */
	reconnecting: boolean;
	ended: boolean;
	actions: FollowedRunAction[];
}

/** Arguments that name a run: `{agentId, runId}` or a runs-tree node with `agentId` and `run.id`. */
export type RunRef = { agentId: string; runId: string } | { agentId: string; run: { id: string } };

/** Reads `{agentId, runId}` from a command argument, when it names a run. */
export function toRunRef(arg: unknown): { agentId: string; runId: string } | undefined {
	if (arg === null || typeof arg !== 'object') {
		return undefined;
	}
	const a = arg as { agentId?: unknown; runId?: unknown; run?: { id?: unknown; agent_id?: unknown } };
	const agentId = typeof a.agentId === 'string' ? a.agentId : typeof a.run?.agent_id === 'string' ? a.run.agent_id : undefined;
	const runId = typeof a.runId === 'string' ? a.runId : typeof a.run?.id === 'string' ? a.run.id : undefined;
	return agentId && runId ? { agentId, runId } : undefined;
}

const MAX_NOTIFIED = 1000;

/** Longest run name in the status bar text (the tooltip has it whole). */
const STATUS_TITLE_CHARS = 48;

/** A run's name with its deployment's after it ("… (Staging)"), or alone. */
function named(text: string, deployment: string | undefined): string {
	return deployment === undefined ? text : vscode.l10n.t('{0} ({1})', text, deployment);
}

function keyOf(agentId: string, runId: string): string {
	return `${agentId}/${runId}`;
}

/** A run to follow again at the next sign-in (`restored`: one an earlier window followed when it closed). */
interface SuspendedRun extends FollowedRunKey {
	restored?: boolean;
}

/** One run being (or having been) followed in this window. */
class FollowedRun {
	cursor = -1;
	status: string | undefined;
	ended = false;
	controller: AbortController | undefined;
	done: Promise<FollowOutcome> = Promise.resolve({ status: undefined });
	lines: string[] = [];
	records: EventRecord[] = [];
	timer: ReturnType<typeof setTimeout> | undefined;
	startedAt = Date.now();
	/** When its channel was last created or shown (the bound on channels closes the oldest). */
	usedAt = Date.now();
	/** The service is out of reach and the stream waits for it (set by the stream's outage reports). */
	reconnecting = false;
	/** A 401 paused following: it resumes after the next sign-in. */
	unauthorized = false;
	/** How following ended the last time (see FollowedRunState.outcome). */
	outcome: FollowOutcome | undefined;
	/** Its channel was closed (forgotten, or past the bound): nothing more is appended to it. */
	closed = false;

	/** Its human name with its deployment's, when it has one (see `title`). */
	readonly title: string;
	readonly channel: vscode.OutputChannel;

	constructor(
		readonly agentId: string,
		readonly runId: string,
		/** Its human name (`<agent>: <prompt excerpt>`). */
		readonly name: string,
		/** Its deployment's name, when several deployments are configured (RunFollowerOptions.deploymentName). */
		readonly deployment: string | undefined,
	) {
		this.title = named(name, deployment);
		this.channel = vscode.window.createOutputChannel(runChannelName(this.title));
	}

	get active(): boolean {
		return this.controller !== undefined && !this.controller.signal.aborted;
	}
}

/**
 * Follows runs: streams each run's events into its own output channel, named after the run
 * ("Cloud Agents: <agent>: <prompt excerpt>"), and onto disk; shows the followed run in the status
 * bar (clicking it offers the run's actions); and announces the end of a run once (across windows
 * and restarts), with actions that fit its final status. Several runs can be followed at once;
 * each keeps its channel, so interleaved runs stay readable. At most `maxChannels` channels stay
 * open: the oldest ended run's channel closes, its history stays on disk and reopens on demand.
 * Signing out stops every stream; signing in again resumes the runs it stopped.
 * `onDidReceiveEvent` publishes every event.
 */
export class RunFollower extends Disposable {
	private readonly _onDidReceiveEvent = this.register(new vscode.EventEmitter<RunEventNotice>());
	/** Fires for every new event of every followed run, in seq order per run (never twice). */
	readonly onDidReceiveEvent: vscode.Event<RunEventNotice> = this._onDidReceiveEvent.event;

	private readonly _onDidChangeFollowing = this.register(new vscode.EventEmitter<void>());
	/** Fires when a run starts or stops being followed, or its status changes. */
	readonly onDidChangeFollowing = this._onDidChangeFollowing.event;

	private readonly runs = new Map<string, FollowedRun>();
	private readonly statusItem: vscode.StatusBarItem;
	private statusRun: FollowedRun | undefined;
	private readonly store: RunEventStore;
	private readonly flushMs: number;
	private readonly maxActive: number;
	private readonly maxChannels: number;
	private readonly endedStatusMs: number;
	private hideTimer: ReturnType<typeof setTimeout> | undefined;
	/** Shows run channels, and disposes closed ones once the Output view has let go of them (see ChannelCloser). */
	private readonly closer: ChannelCloser;
	/** Opens a run's result (the end-of-run notification's "Open Result"); see `setResultOpener`. */
	private openResult: ((agentId: string, runId: string) => Promise<void>) | undefined;
	/** Claims a run's end for this window's announcement, and notes a follow (setEndClaim); none: this window announces. */
	private endClaim: EndClaims | undefined;
	/**
	 * Runs to follow again at the next sign-in: those signing out stopped while they streamed, and
	 * (`restored`) those an earlier window of this workspace still followed when it closed.
	 */
	private suspended: SuspendedRun[] = [];
	/** Runs `resumeActive` is following again (still remembered until each streams). */
	private resuming: FollowedRunKey[] = [];
	/** What the workspace state holds (JSON), so an unchanged list is not written again. */
	private remembered: string;

	/** Sets what the end-of-run notification's "Open Result" runs (the Runs view's action, loaded on first use). */
	setResultOpener(open: (agentId: string, runId: string) => Promise<void>): void {
		this.openResult = open;
	}

	/**
	 * Sets how this window claims the announcement of a run's end across the windows of the profile
	 * (Activity's claims, src/activity/announce.ts): when another window already announced it (its
	 * Activity, or its own follow), this window does not; and how it tells the other windows, as
	 * following a run starts, that its end is this window's to announce.
	 */
	setEndClaim(claims: EndClaims): void {
		this.endClaim = claims;
	}

	constructor(private readonly options: RunFollowerOptions) {
		super();
		this.statusItem = this.register(
			vscode.window.createStatusBarItem(options.status?.id ?? 'cloudAgents.followedRun', vscode.StatusBarAlignment.Left, 50),
		);
		this.closer = options.closer ?? this.register(new ChannelCloser());
		this.store = options.store;
		this.flushMs = options.flushMs ?? 100;
		this.maxActive = options.maxActive ?? 5;
		this.maxChannels = Math.max(options.maxChannels ?? 10, this.maxActive);
		this.endedStatusMs = options.endedStatusMs ?? 30_000;
		this.statusItem.name = vscode.l10n.t('Cloud Agents: Followed Run');
		// The runs this window followed when it last closed (a reload): followed again once signed in,
		// without revealing their channels (the workbench restores its own layout).
		const restored = parseFollowedRuns(options.workspaceState.get(FOLLOWED_RUNS_KEY));
		this.remembered = JSON.stringify(restored);
		this.suspended = restored.map((r) => ({ ...r, restored: true }));
		this.register(options.session.onDidChange(() => this.signedInChanged(options.session.signedIn)));
		this.register(this.onDidChangeFollowing(() => this.remember()));
		this.register({
			dispose: () => {
				clearTimeout(this.hideTimer);
				for (const run of this.runs.values()) {
					run.controller?.abort();
					this.flush(run);
					// Closed first: the stream stopped here still flushes once it has let go, to disk only.
					if (options.closer) {
						this.closeChannel(run, true);
					} else {
						run.closed = true;
						run.channel.dispose();
					}
				}
				this.runs.clear();
			},
		});
	}

	/** The runs currently streaming. */
	get following(): { agentId: string; runId: string; status: string | undefined }[] {
		return [...this.runs.values()].filter((r) => r.active).map((r) => ({ agentId: r.agentId, runId: r.runId, status: r.status }));
	}

	/** What this window knows of a run it follows or followed (it has the run's channel); undefined for any other run. */
	stateOf(agentId: string, runId: string): FollowedRunState | undefined {
		const run = this.runs.get(keyOf(agentId, runId));
		return run && { title: run.title, status: run.status, active: run.active, ended: run.ended, outcome: run.outcome };
	}

	/** The run the status bar shows and its actions; undefined when it shows none. */
	get statusRunInfo(): StatusRunInfo | undefined {
		const run = this.statusRun;
		if (!run) {
			return undefined;
		}
		return {
			agentId: run.agentId,
			runId: run.runId,
			title: run.title,
			status: run.status,
			active: run.active,
			reconnecting: run.active && run.reconnecting,
			ended: run.ended,
			actions: followedRunActions(run),
		};
	}

	/** Hides the status bar until another run is followed. */
	dismissStatus(): void {
		clearTimeout(this.hideTimer);
		this.statusRun = undefined;
		this.statusItem.hide();
	}

	/**
	 * Starts following a run (or shows it when already followed). Shows the stored history first,
	 * then streams what came after it. Resolves once the history is shown; `stateOf` and `onDidChangeFollowing` tell the end.
	 * The run's human name comes from `hint`, else from the service (agent and run records).
	 * `reveal: false` follows without showing the run's channel (a run followed again after a reload).
	 */
	async follow(agentId: string, runId: string, options: FollowOptions = {}): Promise<void> {
		const key = keyOf(agentId, runId);
		const reveal = (run: FollowedRun): void => {
			if (options.reveal !== false) {
				this.closer.reveal(run.channel, options.preserveFocus ?? true);
			}
		};
		let run = this.runs.get(key);
		if (run?.active) {
			run.usedAt = Date.now();
			reveal(run);
			this.showStatus(run);
			return;
		}
		if (!run) {
			const title = await this.nameOf(agentId, runId, options);
			run = this.runs.get(key) ?? new FollowedRun(agentId, runId, title, this.options.deploymentName?.());
			if (this.runs.get(key) === run) {
				reveal(run);
				return;
			}
			this.runs.set(key, run);
			this.limitChannels();
			const history = await this.store.read(agentId, runId);
			run.channel.appendLine(outputLine(vscode.l10n.t('{0} — run {1} of agent {2}', run.title, runId, agentId)));
			if (history.length > 0) {
				// A header, not a footer: the lines below it are the stored history, live events follow.
				run.channel.appendLine(vscode.l10n.t('— {0} stored events, read from disk —', history.length));
			}
			for (const event of history) {
				this.apply(run, event);
				run.channel.appendLine(formatEvent(event));
			}
		}
		run.usedAt = Date.now();
		reveal(run);
		this.limitActive();
		if (run.ended) {
			this.showStatus(run);
			run.outcome = { status: run.status };
			run.done = Promise.resolve(run.outcome);
			this._onDidChangeFollowing.fire();
			void this.announceEnd(run);
			return;
		}
		const controller = new AbortController();
		run.controller = controller;
		run.outcome = undefined;
		run.startedAt = Date.now();
		void this.endClaim?.following(run.runId).catch(() => undefined);
		run.done = this.stream(run, controller.signal);
		this.showStatus(run);
		this._onDidChangeFollowing.fire();
	}

	/** Stops following one run; returns false when it was not being followed. */
	stop(agentId: string, runId: string): boolean {
		const run = this.runs.get(keyOf(agentId, runId));
		if (!run?.active) {
			return false;
		}
		run.controller?.abort();
		return true;
	}

	/** Stops every stream (nothing resumes them; see `suspendAll`). */
	private stopAll(): void {
		this.suspended = [];
		for (const run of this.runs.values()) {
			run.controller?.abort();
		}
	}

	/**
	 * Stops every stream and remembers the runs that were streaming, so `resumeActive` follows
	 * them again (signing out; the follower does this itself on the session's change event).
	 */
	suspendAll(): void {
		const active = [...this.runs.values()].filter((r) => r.active && !r.ended);
		const paused = this.suspended;
		this.stopAll();
		for (const r of active) {
			this.pause(r.agentId, r.runId);
		}
		this.suspended.unshift(...paused.filter((p) => !this.suspended.some((s) => s.agentId === p.agentId && s.runId === p.runId)));
		this.dismissStatus();
		this.remember();
	}

	/** Remembers a run to resume at the next sign-in (once). */
	private pause(agentId: string, runId: string): void {
		if (!this.suspended.some((s) => s.agentId === agentId && s.runId === runId)) {
			this.suspended.push({ agentId, runId });
		}
	}

	/**
	 * Follows again the runs `suspendAll` stopped (signing in again) and those this window followed
	 * when it last closed (a reload), each after its last stored event; returns how many.
	 */
	async resumeActive(): Promise<number> {
		const runs = this.suspended.splice(0);
		this.resuming.push(...runs);
		for (const r of runs) {
			const known = this.runs.get(keyOf(r.agentId, r.runId));
			if (known) {
				known.unauthorized = false;
			}
			try {
				await Promise.resolve(this.runs.get(keyOf(r.agentId, r.runId))?.done);
				await this.follow(r.agentId, r.runId, { reveal: !r.restored }).catch((err: unknown) => {
					this.options.log.warn(outputLine(`Could not resume following run ${r.runId}: ${describeError(err)}`));
				});
			} finally {
				this.resuming.splice(this.resuming.indexOf(r), 1);
				this.remember();
			}
		}
		return runs.length;
	}

	/**
	 * Writes to the workspace state the runs this window follows (streaming and not ended, or waiting
	 * for a sign-in), so a reload follows them again: their ids only. Not while the window closes:
	 * closing stops every stream, and those runs are exactly the ones to follow again.
	 */
	private remember(): void {
		if (this.isDisposed) {
			return;
		}
		const streaming = [...this.runs.values()].filter((r) => r.active && !r.ended);
		const runs = followedRunsToStore([...this.resuming, ...this.suspended, ...streaming]);
		const text = JSON.stringify(runs);
		if (text === this.remembered) {
			return;
		}
		this.remembered = text;
		this.options.workspaceState.update(FOLLOWED_RUNS_KEY, runs.length > 0 ? runs : undefined).then(undefined, (err: unknown) => {
			this.options.log.warn(`Could not remember the followed runs: ${describeError(err)}`);
		});
	}

	/**
	 * Follows the session's sign-in state (called on every session change): signing out stops every
	 * stream, remembers which runs were still active and the status bar says "signed out" (click:
	 * Sign In); signing in again resumes following those runs from where they stopped.
	 */
	signedInChanged(signedIn: boolean): void {
		if (!signedIn) {
			this.suspendAll();
			this.showSignedOut();
			return;
		}
		void this.resumeActive().then((n) => {
			if (n === 0 && this.statusRun) {
				this.showStatus(this.statusRun);
			} else if (n === 0) {
				this.statusItem.hide();
			}
		});
	}

	/**
	 * Stops following a run (or, without `runId`, every run of the agent: Delete Agent) and closes its
	 * output channel, forgetting it in this window (its events stay on disk, so following it again
	 * shows them without fetching them again).
	 */
	async forget(agentId: string, runId?: string): Promise<void> {
		const runs = [...this.runs.values()].filter((r) => r.agentId === agentId && (runId === undefined || r.runId === runId));
		this.suspended = this.suspended.filter((s) => s.agentId !== agentId || (runId !== undefined && s.runId !== runId));
		for (const run of runs) {
			run.controller?.abort();
		}
		for (const run of runs) {
			await run.done;
			this.runs.delete(keyOf(run.agentId, run.runId));
			if (this.statusRun === run) {
				this.dismissStatus();
			}
			// The run (or its agent) is gone from this window: so is its output, from the Output view too.
			this.closeChannel(run, true);
		}
		if (runs.length > 0) {
			this._onDidChangeFollowing.fire();
		}
		this.remember();
	}

	/** Shows a run's output channel; false when this window has none for it. */
	show(agentId: string, runId: string): boolean {
		const run = this.runs.get(keyOf(agentId, runId));
		if (run) {
			run.usedAt = Date.now();
			this.closer.reveal(run.channel, true);
		}
		return run !== undefined;
	}

	/** The run's human name: from the hint, else the agent's name and the run's prompt from the service. */
	private async nameOf(agentId: string, runId: string, hint: RunNameHint): Promise<string> {
		let { agentName, prompt } = hint;
		if (agentName === undefined || prompt === undefined) {
			const client = this.options.session.client;
			const signal = AbortSignal.timeout(5_000);
			const [agent, run] = await Promise.all([
				agentName === undefined ? client.getAgent(agentId, { signal }).catch(() => undefined) : undefined,
				prompt === undefined ? client.getRun(agentId, runId, { signal }).catch(() => undefined) : undefined,
			]);
			agentName ??= agent?.name;
			prompt ??= run?.prompt ?? undefined;
		}
		return runTitle(agentName, prompt, runId);
	}

	/**
	 * Closes a run's channel: nothing more is appended to it (a stream stopped a moment ago may still
	 * flush), and it is disposed once the Output view does not show it (`hide`: closing the view when
	 * it does), never while the workbench may still be applying an append to it (see ChannelCloser).
	 */
	private closeChannel(run: FollowedRun, hide: boolean): void {
		run.closed = true;
		this.closer.close(run.channel, { hide });
	}

	/** Closes the channels of the runs used longest ago that no longer stream, beyond `maxChannels`. */
	private limitChannels(): void {
		const idle = [...this.runs.entries()].filter(([, r]) => !r.active).sort(([, a], [, b]) => a.usedAt - b.usedAt);
		let excess = this.runs.size - this.maxChannels;
		for (const [key, run] of idle) {
			if (excess <= 0) {
				break;
			}
			this.runs.delete(key);
			if (this.statusRun === run) {
				this.dismissStatus();
			}
			// The one a person is reading stays until the Output view moves on.
			this.closeChannel(run, false);
			excess--;
		}
	}

	private limitActive(): void {
		const active = [...this.runs.values()].filter((r) => r.active).sort((a, b) => a.startedAt - b.startedAt);
		for (const run of active.slice(0, Math.max(0, active.length - (this.maxActive - 1)))) {
			this.options.log.info(`Stopped following run ${run.runId}: at most ${this.maxActive} runs are followed at once.`);
			run.controller?.abort();
		}
	}

	private async stream(run: FollowedRun, signal: AbortSignal): Promise<FollowOutcome> {
		const { log, session } = this.options;
		let outcome: FollowOutcome = { status: undefined, reason: 'stopped' };
		run.reconnecting = false;
		run.unauthorized = false;
		try {
			// The client's stream is the one reconnect policy (src/api/runEventStream.ts): it waits for the
			// service however long it is away; when it gives up (a 4xx, a server answering badly), following stops.
			const finalRun = await readRunEvents(session.client, run.agentId, run.runId, {
				after: run.cursor,
				signal,
				onEvent: (event) => this.receive(run, event),
				ended: () => run.ended,
				onOutage: (event) => this.outage(run, event),
			});
			if (finalRun) {
				run.status = finalRun.status;
				run.ended = true;
			}
			outcome = { status: run.status };
		} catch (err) {
			if (!signal.aborted && !isAbortError(err) && isAuthFailure(err)) {
				// The token was revoked or expired: one sign-in prompt (the session's), and this run resumes
				// from its cursor after the next sign-in (resumeActive), with no other click.
				outcome = { status: undefined, reason: 'unauthorized' };
				run.unauthorized = true;
				this.pause(run.agentId, run.runId);
				run.lines.push(vscode.l10n.t('— paused until you sign in again —'));
				log.warn(outputLine(`Following run ${run.runId} paused until the next sign-in: ${describeError(err)}`));
				session.reportError(err);
			} else if (!signal.aborted && !isAbortError(err) && err instanceof ApiError && err.status === 404) {
				// The run or its agent was deleted elsewhere (another window, the web app, a script) while it
				// was followed: an expected end, told in the run's channel and the log, not an error to report.
				outcome = { status: undefined, reason: 'gone' };
				run.lines.push(outputLine(vscode.l10n.t('— following ended: the run or its agent no longer exists —')));
				log.warn(outputLine(`Stopped following run ${run.runId}: it or its agent no longer exists (${describeError(err)})`));
			} else if (!signal.aborted && !isAbortError(err)) {
				outcome = { status: undefined, reason: 'error' };
				run.lines.push(outputLine(vscode.l10n.t('— following stopped: {0} —', describeError(err))));
				void showApiError(err, log, vscode.l10n.t('Could not follow {0}', run.title), (e) => session.reportError(e));
			}
		} finally {
			if (outcome.reason === 'stopped') {
				run.lines.push(vscode.l10n.t('— stopped following —'));
			}
			run.reconnecting = false;
			this.flush(run);
			await this.store.flushed();
			if (run.controller?.signal === signal) {
				run.controller = undefined;
			}
			this.showStatus(run);
			this._onDidChangeFollowing.fire();
		}
		try {
			if (run.ended) {
				await this.announceEnd(run);
			}
		} finally {
			if (!run.active) {
				run.outcome = outcome;
				this._onDidChangeFollowing.fire();
			}
		}
		return outcome;
	}

	/** The stream's outage reports: one line when the service goes away and one when it is back; the status bar says "reconnecting". */
	private outage(run: FollowedRun, event: StreamOutageEvent): void {
		if (event.type === 'retry') {
			return; // Not one line per attempt.
		}
		if (event.type === 'start') {
			run.reconnecting = true;
			run.lines.push(outputLine(vscode.l10n.t('— cannot reach the service ({0}); reconnecting —', describeError(event.error))));
			this.options.log.info(outputLine(`Run ${run.runId}: reconnecting (${describeError(event.error)})`));
		} else {
			run.reconnecting = false;
			const seconds = Math.max(1, Math.round(event.durationMs / 1000));
			run.lines.push(vscode.l10n.t('— connected again after {0} s —', seconds));
			this.options.log.info(`Run ${run.runId}: connected again after ${seconds} s`);
		}
		this.flush(run);
		this.showStatus(run);
		this._onDidChangeFollowing.fire();
	}

	private apply(run: FollowedRun, event: EventRecord): void {
		if (typeof event.seq === 'number') {
			run.cursor = Math.max(run.cursor, event.seq);
		}
		// Event names and envelopes are not shown in the description: a status event is any whose type
		// speaks of status, state or completion, its status wherever it sits (src/api/events.ts).
		const type = typeof event.type === 'string' ? event.type : '';
		const status = /status|state|complet/i.test(type) ? eventStatus(event) : undefined;
		if (status !== undefined) {
			run.status = status;
		}
		if (type === 'run.completed' || (status !== undefined && isTerminalRunStatus(status))) {
			run.ended = true;
		}
	}

	private receive(run: FollowedRun, event: EventRecord): void {
		const before = run.status;
		this.apply(run, event);
		run.lines.push(formatEvent(event));
		run.records.push(event);
		run.timer ??= setTimeout(() => this.flush(run), this.flushMs);
		if (run.status !== before) {
			this.showStatus(run);
			this._onDidChangeFollowing.fire();
		}
		this._onDidReceiveEvent.fire({ agentId: run.agentId, runId: run.runId, event });
	}

	private flush(run: FollowedRun): void {
		if (run.timer !== undefined) {
			clearTimeout(run.timer);
			run.timer = undefined;
		}
		if (run.lines.length > 0) {
			const text = run.lines.splice(0).join('\n') + '\n';
			// A closed channel is being disposed: its events still go to disk below.
			if (!run.closed) {
				run.channel.append(text);
			}
		}
		const records = run.records.splice(0);
		if (records.length > 0) {
			this.store.append(run.agentId, run.runId, records).catch((err: unknown) => {
				this.options.log.warn(outputLine(`Could not store events of run ${run.runId}: ${describeError(err)}`));
			});
		}
	}

	private showStatus(run: FollowedRun): void {
		if (!this.options.session.signedIn) {
			this.showSignedOut();
			return;
		}
		// The status bar shows the most recently followed run, or another one still streaming.
		if (run.active || !this.statusRun?.active) {
			this.statusRun = run;
		}
		const shown = this.statusRun;
		if (!shown) {
			this.statusItem.hide();
			return;
		}
		clearTimeout(this.hideTimer);
		if (shown.unauthorized && !shown.active) {
			this.showSignedOut(true);
			return;
		}
		if (!shown.active && !shown.ended) {
			// No longer followed and not ended: its last status would be stale, so it is not shown.
			this.dismissStatus();
			return;
		}
		const reconnecting = shown.active && shown.reconnecting;
		const status = reconnecting
			? vscode.l10n.t('reconnecting')
			: shown.status !== undefined
				? iconSafe(shown.status, SAFETY.labelMaxChars)
				: vscode.l10n.t('connecting');
		const cls = runStatusClass(shown.status);
		const icon = !shown.ended ? '$(sync~spin)' : cls === 'succeeded' ? '$(check)' : cls === 'failed' ? '$(error)' : '$(circle-slash)';
		// The title is server text: one line, `$(` shown as typed; cut shorter for the status bar.
		const title = named(iconSafe(shown.name, STATUS_TITLE_CHARS), shown.deployment && iconSafe(shown.deployment, SAFETY.labelMaxChars));
		this.statusItem.text = `${icon} ${reconnecting ? `${title}: ${status}` : vscode.l10n.t('{0} — {1}', title, status)}`;
		this.statusItem.tooltip = shown.active
			? vscode.l10n.t(
					'Following {0} (run {1}, {2}). Click for its actions: output, cancel, stop following.',
					shown.title,
					shown.runId,
					status,
				)
			: vscode.l10n.t('{0} (run {1}) {2}. Click for its actions: output, result.', shown.title, shown.runId, status);
		this.statusItem.command = {
			command: 'cloudAgents.runs.followedRunActions',
			title: vscode.l10n.t('Followed Run Actions'),
			arguments: this.options.status ? [this.options.status.arg] : [],
		};
		this.statusItem.show();
		if (shown.ended && !shown.active) {
			// An ended run is news for a while, then it goes (it stays in the Runs view and its channel).
			this.hideTimer = setTimeout(() => {
				if (this.statusRun === shown && !shown.active) {
					this.dismissStatus();
				}
			}, this.endedStatusMs);
		}
	}

	/**
	 * Signed out, or (`rejected`) the service refused the sign-in (a 401): the status bar does not
	 * claim a run is running; clicking it signs in.
	 */
	private showSignedOut(rejected = false): void {
		const paused = this.suspended.length;
		this.statusItem.text = `$(debug-disconnect) ${rejected ? vscode.l10n.t('Cloud Agents: sign in to resume') : vscode.l10n.t('Cloud Agents: signed out')}`;
		this.statusItem.tooltip = rejected
			? vscode.l10n.t('Sign-in rejected: following paused. Click to sign in; following resumes.')
			: paused > 0
				? paused === 1
					? vscode.l10n.t('Signed out: following 1 run stopped. Click to sign in; following resumes.')
					: vscode.l10n.t('Signed out: following {0} runs stopped. Click to sign in; following resumes.', paused)
				: vscode.l10n.t('Signed out of Cloud Agents. Click to sign in.');
		this.statusItem.command = { command: 'cloudAgents.signIn', title: vscode.l10n.t('Sign In') };
		this.statusItem.show();
	}

	/** Shows "run ended" once per run: the id is recorded in global state before the message appears. */
	private async announceEnd(run: FollowedRun): Promise<void> {
		const state = this.options.globalState;
		const notified = state.get<string[]>(RUN_NOTIFIED_KEY, []);
		if (notified.includes(run.runId)) {
			return;
		}
		await state.update(RUN_NOTIFIED_KEY, [...notified, run.runId].slice(-MAX_NOTIFIED));
		if (this.endClaim && !(await this.endClaim.claim(run.runId).catch(() => true))) {
			return;
		}
		const titles = { openResult: vscode.l10n.t('Open Result'), showOutput: vscode.l10n.t('Show Output') };
		const actions = endNotificationActions(run.status).map((a) => ({ id: a, title: titles[a] }));
		const status = run.status ?? 'ended';
		const text = notificationText(vscode.l10n.t('{0} — {1}.', run.title, status));
		const show = runStatusClass(status) === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
		// Not awaited: the message stays until dismissed, and following must end now.
		void show(text, ...actions.map((a) => a.title)).then(async (choice) => {
			const action = actions.find((a) => a.title === choice)?.id;
			if (action === 'openResult') {
				await this.openResult?.(run.agentId, run.runId);
			} else if (action === 'showOutput') {
				if (!this.show(run.agentId, run.runId)) {
					await this.follow(run.agentId, run.runId, { preserveFocus: false });
				}
			}
		});
	}
}
