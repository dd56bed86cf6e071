import * as vscode from 'vscode';
import { ApiError, SAFETY, isAbortError, sleepUntilAborted } from '../api';
import type { CloudAgentsClient, EventRecord } from '../api';
import { describeError, showApiError } from '../util/errors';
import { Disposable } from '../util/lifecycle';
import { iconSafe, notificationText, outputLine } from '../util/text';
import { formatEvent, shortRunId } from './format';
import { RunEventStore } from './runStore';

/** One event received while following a run. */
export interface RunEventNotice {
	agentId: string;
	runId: string;
	event: EventRecord;
}

/** The part of the session a follower uses (structural, so logs/ does not import auth/). */
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
	/** Folder for the per-run event files (context.globalStorageUri; must be a file: URI). */
	storageUri: vscode.Uri;
	/** Where ended runs are remembered, so each is announced once (context.globalState). */
	globalState: vscode.Memento;
	log: vscode.LogOutputChannel;
	/** Flush period of the channel and disk buffers (ms). */
	flushMs?: number;
	/** Most runs streamed at the same time; following one more stops the oldest. */
	maxActive?: number;
}

/** How following a run ended. */
export interface FollowOutcome {
	/** The run's final status when it ended, else undefined (stopped, failed or signed out). */
	status: string | undefined;
	/** Why it stopped without the run ending: `stopped`, `error`. */
	reason?: 'stopped' | 'error';
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

const NOTIFIED_KEY = 'cloudAgents.notifiedRuns';
const MAX_NOTIFIED = 1000;
const MAX_RESTARTS = 5;

function keyOf(agentId: string, runId: string): string {
	return `${agentId}/${runId}`;
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

	constructor(
		readonly agentId: string,
		readonly runId: string,
		readonly channel: vscode.OutputChannel,
	) {}

	get active(): boolean {
		return this.controller !== undefined && !this.controller.signal.aborted;
	}
}

/**
 * Follows runs: streams each run's events into its own output channel ("Cloud Agents: Run
 * <short id>") and onto disk, shows the most recent run's status in the status bar, and announces
 * the end of a run once (across windows and restarts). Several runs can be followed at once; each
 * keeps its channel, so interleaved runs stay readable. `onDidReceiveEvent` publishes every event.
 */
export class RunFollower extends Disposable {
	private readonly _onDidReceiveEvent = this.register(new vscode.EventEmitter<RunEventNotice>());
	/** Fires for every new event of every followed run, in seq order per run (never twice). */
	readonly onDidReceiveEvent: vscode.Event<RunEventNotice> = this._onDidReceiveEvent.event;

	private readonly _onDidChangeFollowing = this.register(new vscode.EventEmitter<void>());
	/** Fires when a run starts or stops being followed, or its status changes. */
	readonly onDidChangeFollowing = this._onDidChangeFollowing.event;

	private readonly runs = new Map<string, FollowedRun>();
	private readonly statusItem = this.register(vscode.window.createStatusBarItem('cloudAgents.followedRun', vscode.StatusBarAlignment.Left, 50));
	private statusRun: FollowedRun | undefined;
	/** Runs that were streaming when the user signed out: followed again on the next sign-in. */
	private readonly pausedBySignOut = new Set<string>();
	private readonly store: RunEventStore;
	private readonly flushMs: number;
	private readonly maxActive: number;
	/** How many end-of-run notifications this window showed (diagnostics and tests). */
	notificationsShown = 0;

	constructor(private readonly options: RunFollowerOptions) {
		super();
		this.store = new RunEventStore(vscode.Uri.joinPath(options.storageUri, 'runs').fsPath);
		this.flushMs = options.flushMs ?? 100;
		this.maxActive = options.maxActive ?? 5;
		this.statusItem.name = vscode.l10n.t('Cloud Agents: Followed Run');
		this.register(
			options.session.onDidChange(() => this.signedInChanged(options.session.signedIn)),
		);
		this.register({
			dispose: () => {
				for (const run of this.runs.values()) {
					run.controller?.abort();
					this.flush(run);
					run.channel.dispose();
				}
				this.runs.clear();
			},
		});
	}

	/** The runs currently streaming. */
	get following(): { agentId: string; runId: string; status: string | undefined }[] {
		return [...this.runs.values()].filter((r) => r.active).map((r) => ({ agentId: r.agentId, runId: r.runId, status: r.status }));
	}

	/** The event file of a run (for diagnostics and tests). */
	eventFile(agentId: string, runId: string): string {
		return this.store.fileOf(agentId, runId);
	}

	/** The events stored on disk for a run. */
	async storedEvents(agentId: string, runId: string): Promise<EventRecord[]> {
		await this.store.flushed();
		return this.store.read(agentId, runId);
	}

	/** Resolves when following the run ends (at once when it is not being followed). */
	whenDone(agentId: string, runId: string): Promise<FollowOutcome> {
		return this.runs.get(keyOf(agentId, runId))?.done ?? Promise.resolve({ status: undefined });
	}

	/** Whether the end of this run has been announced (in any window). */
	wasNotified(runId: string): boolean {
		return this.options.globalState.get<string[]>(NOTIFIED_KEY, []).includes(runId);
	}

	/**
	 * Starts following a run (or shows it when already followed). Shows the stored history first,
	 * then streams what came after it. Resolves once the history is shown; `whenDone` tells the end.
	 */
	async follow(agentId: string, runId: string, options: { preserveFocus?: boolean } = {}): Promise<void> {
		const key = keyOf(agentId, runId);
		let run = this.runs.get(key);
		if (run?.active) {
			run.channel.show(options.preserveFocus ?? true);
			this.showStatus(run);
			return;
		}
		if (!run) {
			run = new FollowedRun(agentId, runId, vscode.window.createOutputChannel(vscode.l10n.t('Cloud Agents: Run {0}', shortRunId(runId))));
			this.runs.set(key, run);
			const history = await this.store.read(agentId, runId);
			run.channel.appendLine(outputLine(vscode.l10n.t('Run {0} of agent {1}', runId, agentId)));
			if (history.length > 0) {
				// A header, not a footer: the lines below it are the stored history, live events follow.
				run.channel.appendLine(vscode.l10n.t('— {0} stored events, read from disk —', history.length));
			}
			for (const event of history) {
				this.apply(run, event);
				run.channel.appendLine(formatEvent(event));
			}
		}
		run.channel.show(options.preserveFocus ?? true);
		this.limitActive();
		this.showStatus(run);
		if (run.ended) {
			run.done = Promise.resolve({ status: run.status });
			this._onDidChangeFollowing.fire();
			void this.announceEnd(run);
			return;
		}
		const controller = new AbortController();
		run.controller = controller;
		run.startedAt = Date.now();
		run.done = this.stream(run, controller.signal);
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

	/** Stops every stream. */
	stopAll(): void {
		for (const run of this.runs.values()) {
			run.controller?.abort();
		}
	}

	/**
	 * Follows the session's sign-in state (called on every session change): signing out stops every
	 * stream and remembers which runs were still active, and the status bar says "signed out" (click:
	 * Sign In); signing in again resumes following those runs from where they stopped.
	 */
	signedInChanged(signedIn: boolean): void {
		if (!signedIn) {
			for (const run of this.runs.values()) {
				if (run.active && !run.ended) {
					this.pausedBySignOut.add(keyOf(run.agentId, run.runId));
				}
			}
			this.stopAll();
			if (this.statusRun) {
				this.showStatus(this.statusRun);
			}
			return;
		}
		const paused = [...this.pausedBySignOut].map((key) => this.runs.get(key)).filter((run) => run !== undefined);
		this.pausedBySignOut.clear();
		for (const run of paused) {
			if (!run.active && !run.ended) {
				this.options.log.info(`Signed in again: following run ${run.runId} again.`);
				void this.follow(run.agentId, run.runId).catch((err: unknown) => {
					this.options.log.warn(outputLine(`Could not follow run ${run.runId} again: ${describeError(err)}`));
				});
			}
		}
		if (paused.length === 0 && this.statusRun) {
			this.showStatus(this.statusRun);
		}
	}

	/** The status bar item's text and tooltip (for tests and diagnostics). */
	get statusBar(): { text: string; tooltip: string | undefined } {
		const tooltip = this.statusItem.tooltip;
		return { text: this.statusItem.text, tooltip: typeof tooltip === 'string' ? tooltip : tooltip?.value };
	}

	/**
	 * Stops following a run and closes its output channel, forgetting it in this window (its events
	 * stay on disk, so following it again shows them without fetching them again).
	 */
	async forget(agentId: string, runId: string): Promise<void> {
		const key = keyOf(agentId, runId);
		const run = this.runs.get(key);
		if (!run) {
			return;
		}
		run.controller?.abort();
		await run.done;
		this.runs.delete(key);
		if (this.statusRun === run) {
			this.statusRun = undefined;
			this.statusItem.hide();
		}
		run.channel.dispose();
	}

	/** Shows a run's output channel; false when this window has none for it. */
	show(agentId: string, runId: string): boolean {
		const run = this.runs.get(keyOf(agentId, runId));
		run?.channel.show(true);
		return run !== undefined;
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
		let restarts = 0;
		let outcome: FollowOutcome = { status: undefined, reason: 'stopped' };
		try {
			for (;;) {
				try {
					// The client's stream reconnects after drops with `after` = its last seq; the outer loop
					// covers a stream that gave up, resuming from this run's own cursor.
					const events = session.client.streamRunEvents(run.agentId, run.runId, { after: run.cursor, signal });
					for await (const event of events) {
						if (typeof event.seq === 'number' && event.seq <= run.cursor) {
							continue;
						}
						restarts = 0;
						this.receive(run, event);
					}
					if (!run.ended) {
						// The stream ended without run.completed. It ends only when the run has: a terminal status,
						// or (for a status no list knows) the server ending the stream again without news.
						const current = events.finalRun ?? (await session.client.getRun(run.agentId, run.runId, { signal }));
						run.status = current.status;
						run.ended = true;
					}
					outcome = { status: run.status };
					break;
				} catch (err) {
					if (signal.aborted || isAbortError(err)) {
						break;
					}
					// 4xx, and a stream the client already gave up on for reconnecting too often, are not retried here.
					const permanent = err instanceof ApiError && ((err.status >= 400 && err.status < 500 && err.status !== 429) || err.code === 'reconnect_limit');
					if (permanent || ++restarts > MAX_RESTARTS) {
						throw err;
					}
					log.warn(outputLine(`Run ${run.runId}: event stream failed (${describeError(err)}); resuming after seq ${run.cursor}.`));
					await sleepUntilAborted(500 * 2 ** (restarts - 1), signal);
				}
			}
		} catch (err) {
			outcome = { status: undefined, reason: 'error' };
			if (!isAbortError(err)) {
				run.lines.push(outputLine(vscode.l10n.t('— following stopped: {0} —', describeError(err))));
				void showApiError(err, log, vscode.l10n.t('Could not follow run {0}', shortRunId(run.runId)), (e) => session.reportError(e));
			}
		} finally {
			if (outcome.reason === 'stopped') {
				run.lines.push(vscode.l10n.t('— stopped following —'));
			}
			this.flush(run);
			await this.store.flushed();
			if (run.controller?.signal === signal) {
				run.controller = undefined;
			}
			this.showStatus(run);
			this._onDidChangeFollowing.fire();
		}
		if (run.ended) {
			await this.announceEnd(run);
		}
		return outcome;
	}

	private apply(run: FollowedRun, event: EventRecord): void {
		if (typeof event.seq === 'number') {
			run.cursor = Math.max(run.cursor, event.seq);
		}
		const data = (event.data ?? {}) as { status?: unknown };
		if ((event.type === 'run.status' || event.type === 'run.completed') && typeof data.status === 'string') {
			run.status = data.status;
		}
		if (event.type === 'run.completed') {
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
			run.channel.append(run.lines.splice(0).join('\n') + '\n');
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
		const status = shown.status !== undefined ? iconSafe(shown.status, SAFETY.labelMaxChars) : vscode.l10n.t('connecting');
		const icon = shown.active && !shown.ended ? '$(sync~spin)' : shown.status === 'succeeded' ? '$(check)' : shown.status === 'failed' ? '$(error)' : '$(circle-slash)';
		this.statusItem.text = `${icon} ${vscode.l10n.t('Run {0}: {1}', shortRunId(shown.runId), status)}`;
		this.statusItem.tooltip = shown.active
			? vscode.l10n.t('Following run {0}. Click to show its events.', shown.runId)
			: vscode.l10n.t('Run {0}. Click to show its events.', shown.runId);
		this.statusItem.command = { command: 'cloudAgents.runs.follow', title: vscode.l10n.t('Show Run Events'), arguments: [{ agentId: shown.agentId, runId: shown.runId }] };
		this.statusItem.show();
	}

	/** Signed out: the status bar does not claim a run is running; clicking it signs in. */
	private showSignedOut(): void {
		const paused = this.pausedBySignOut.size;
		this.statusItem.text = `$(debug-disconnect) ${vscode.l10n.t('Cloud Agents: signed out')}`;
		this.statusItem.tooltip = paused > 0
			? vscode.l10n.t('Signed out: following {0} run(s) stopped. Click to sign in; following resumes.', paused)
			: vscode.l10n.t('Signed out of Cloud Agents. Click to sign in.');
		this.statusItem.command = { command: 'cloudAgents.signIn', title: vscode.l10n.t('Sign In') };
		this.statusItem.show();
	}

	/** Shows "run ended" once per run: the id is recorded in global state before the message appears. */
	private async announceEnd(run: FollowedRun): Promise<void> {
		const state = this.options.globalState;
		const notified = state.get<string[]>(NOTIFIED_KEY, []);
		if (notified.includes(run.runId)) {
			return;
		}
		await state.update(NOTIFIED_KEY, [...notified, run.runId].slice(-MAX_NOTIFIED));
		this.notificationsShown++;
		const openResult = vscode.l10n.t('Open Result');
		const showEvents = vscode.l10n.t('Show Events');
		const short = shortRunId(run.runId);
		const status = run.status ?? 'ended';
		const text = notificationText(vscode.l10n.t('Cloud Agents run {0} {1}.', short, status));
		const show = status === 'failed' ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
		// Not awaited: the message stays until dismissed, and following must end now.
		void show(text, openResult, showEvents).then(async (choice) => {
			if (choice === openResult) {
				await vscode.commands.executeCommand('cloudAgents.runs.openResult', { agentId: run.agentId, runId: run.runId });
			} else if (choice === showEvents) {
				run.channel.show(false);
			}
		});
	}
}
