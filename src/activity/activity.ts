/**
 * Activity (issue 45): the watcher over the signed-in account (watcher.ts), what it noticed kept per
 * account and API URL (history.ts), and which window announces each event (announce.ts), composed
 * for the session: one account at a time, started once the HTTP client is loaded (the warm-up after
 * activation), stopped while signed out, started anew for another account or API URL. What an
 * event looks like to a person (the view, the notification and its actions) is the feature's
 * (src/flows/activity.ts), handed in as `present`.
 *
 * Several deployments (issue 47): once the features hand it the deployments (`watchDeployments`),
 * every other signed-in deployment gets a watcher, history and announcer of its own (its history
 * under its own key: the key names the API URL), started and stopped as it signs in and out. The
 * entries of all of them are one list, newest first; an entry of another deployment has a key that
 * starts with that deployment's id, so keys never meet; with two or more deployments configured,
 * each entry names its deployment. The default deployment's history is read and kept as before.
 */
import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import type { Clock } from '../base/clock';
import type { CloudAgentsClient } from '../api';
import { ActivityWatcher } from './watcher';
import { ActivityHistory, type ActivityScope, type HistoryEntry, newestFirst } from './history';
import { Announcer, type ClaimStore } from './announce';
import { type ActivityEvent, runEndedKey } from './events';
import type { Deployment } from '../auth/deployments';
import { KeyedHolder } from '../auth/keyedHolder';

/** How much is announced: everything, only what failed or waits for a person, or nothing (setting `cloudAgents.activity.notifications`). */
export type AnnounceLevel = 'all' | 'attention' | 'none';

/** The setting, under `cloudAgents.` (package.json `contributes.configuration`). */
export const ANNOUNCE_SETTING = 'activity.notifications';

/** The setting's value; anything else reads as the default, `all`. */
export function announceLevel(): AnnounceLevel {
	const value = vscode.workspace.getConfiguration('cloudAgents').get<unknown>(ANNOUNCE_SETTING);
	return value === 'attention' || value === 'none' ? value : 'all';
}

/** Whether an event needs a person: something failed, or waits for them. */
export function needsAttention(event: ActivityEvent): boolean {
	switch (event.kind) {
		case 'runEnded':
		case 'buildEnded':
			return event.outcome === 'failed';
		case 'runWaiting':
		case 'agentWaiting':
		case 'githubAuthorization':
		case 'runtimeFailed':
			return true;
	}
}

/** Whether `level` announces `event`. */
export function worthAnnouncing(event: ActivityEvent, level: AnnounceLevel): boolean {
	return level === 'all' || (level === 'attention' && needsAttention(event));
}

/** What Activity needs of the session. */
export interface ActivitySession {
	readonly signedIn: boolean;
	/** The account and API URL of the sign-in state last read (undefined while signed out or not read yet). */
	readonly cacheScope: ActivityScope | undefined;
	readonly client: CloudAgentsClient;
	readonly onDidChange: vscode.Event<void>;
}

export interface ActivityDeps {
	readonly session: ActivitySession;
	/** Where each account's history is kept (the extension's globalState: shared by the windows of a profile). */
	readonly globalState: Pick<vscode.Memento, 'get' | 'update'>;
	/** The claims that make one window of a profile announce an event (the platform's). */
	readonly claims: ClaimStore;
	readonly log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>;
	/** Whether this window follows the run: its end is the run follower's to announce. */
	isFollowed(this: void, agentId: string, runId: string): boolean;
	/**
	 * Announces the events one look noticed that this window claimed (notifications with their
	 * actions; several at once may be said together): the feature's.
	 */
	present(this: void, events: readonly ActivityEvent[]): void;
	/** Time and timers (tests); the system's by default. */
	readonly clock?: Clock;
}

/** A configured deployment and its session, as Activity watches it. */
export interface ActivityDeployment {
	readonly deployment: Deployment;
	readonly session: ActivitySession;
}

/** The configured deployments (src/auth/deploymentSessions.ts), handed by the features. */
export interface ActivityDeployments {
	/** Every configured deployment, the default one first. */
	readonly all: readonly ActivityDeployment[];
	/** Fires when a deployment is added or removed, and when a session's sign-in state changes. */
	readonly onDidChange: vscode.Event<void>;
}

/** The watcher, history and announcer of one account; disposed, its watcher stops (its history stays stored). */
interface Watching extends vscode.Disposable {
	readonly scopeKey: string;
	readonly history: ActivityHistory;
	readonly watcher: ActivityWatcher;
	readonly announcer: Announcer;
}

/** What another deployment is watched for: its session (a renamed deployment gets a new one) and the account it holds. */
interface OtherAccount {
	readonly deploymentId: string;
	readonly session: ActivitySession;
	readonly scope: ActivityScope;
	readonly scopeKey: string;
}

/** Activity over the signed-in account (see the module comment). */
export class Activity extends Disposable {
	private readonly _onDidChange = this.register(new vscode.EventEmitter<void>());
	/** The entries or their read state changed, or the account did. */
	readonly onDidChange = this._onDidChange.event;
	private current: Watching | undefined;
	/** The account watched before a sign-out or a suspend(), kept to catch up when it comes back. */
	private paused: Watching | undefined;
	private started = false;
	/** Open suspend()s: nothing is watched while there is one. */
	private suspended = 0;
	/** The announcements of the events noticed so far, one after the other (each waits for its claim). */
	private announcing: Promise<void> = Promise.resolve();
	/** The configured deployments, once the features handed them (watchDeployments). */
	private deployments: ActivityDeployments | undefined;
	/** The watching of each other signed-in deployment, by deployment id: made again for another session or account. */
	private readonly others = new KeyedHolder<OtherAccount, Watching>(
		(other) => this.watch(other.scope, other.scopeKey, other),
		(held, now) => held.session === now.session && held.scopeKey === now.scopeKey,
	);

	constructor(private readonly deps: ActivityDeps) {
		super();
		this.register(deps.session.onDidChange(() => this.follow()));
		this.register({ dispose: () => this.stop() });
	}

	/** Starts watching the signed-in account (once the HTTP client is loaded); later sign-ins start it again. */
	start(): void {
		this.started = true;
		this.follow();
	}

	/**
	 * Stops watching until the returned disposable is disposed (the test harness's suites that count
	 * a server's requests); nothing kept is lost.
	 */
	suspend(): vscode.Disposable {
		this.suspended++;
		this.follow();
		return new vscode.Disposable(() => {
			this.suspended--;
			this.follow();
		});
	}

	/**
	 * Watches every other signed-in deployment of `deployments` beside the default one (issue 47),
	 * as they sign in and out, until the returned disposable is disposed.
	 */
	watchDeployments(deployments: ActivityDeployments): vscode.Disposable {
		this.deployments = deployments;
		// A deployment added, removed or renamed changes the names entries show: the view is told either way.
		const subscription = deployments.onDidChange(() => this.followOthers(true));
		this.followOthers(true);
		return new vscode.Disposable(() => {
			subscription.dispose();
			if (this.deployments === deployments) {
				this.deployments = undefined;
				this.followOthers(true);
			}
		});
	}

	/** The entries of the signed-in accounts, newest first (none while signed out). */
	entries(): readonly HistoryEntry[] {
		const mine = this.current?.history.entries() ?? [];
		const named = this.defaultName();
		if (this.others.size === 0 && named === undefined) {
			return mine;
		}
		const all = [
			...mine.map((e) => shown(e, named, undefined)),
			...[...this.others.entries()].flatMap(([id, w]) => w.history.entries().map((e) => shown(e, this.nameOf(id), id))),
		];
		return all.sort(newestFirst);
	}

	/** The entries not read yet (the badge). */
	get unreadCount(): number {
		return this.watching().reduce((n, w) => n + w.history.unreadCount, 0);
	}

	/** The entry of an event key (as `entries` gives it), if kept. */
	get(key: string): HistoryEntry | undefined {
		return this.entries().find((e) => e.event.key === key);
	}

	/** The entries of events at or after `since` (ms since the epoch), newest first. */
	since(since: number): readonly HistoryEntry[] {
		return this.entries().filter((e) => e.event.at >= since);
	}

	/** Marks one entry read (its key as `entries` gives it); false when it is not kept (or already read). */
	markRead(key: string): boolean {
		for (const [id, w] of this.others.entries()) {
			if (key.startsWith(`${id}/`)) {
				return w.history.markRead(key.slice(id.length + 1));
			}
		}
		return this.current?.history.markRead(key) ?? false;
	}

	markAllRead(): void {
		for (const w of this.watching()) {
			w.history.markAllRead();
		}
	}

	/** Asks every watched service now (Check Now); resolves when those looks are done and what they noticed is announced. */
	async checkNow(): Promise<void> {
		await Promise.all(this.watching().map((w) => w.watcher.pollNow()));
		await this.announcing;
	}

	/** The watchings of the signed-in accounts: the default deployment's, then the others'. */
	private watching(): Watching[] {
		return [...(this.current ? [this.current] : []), ...[...this.others.entries()].map(([, w]) => w)];
	}

	/** The default deployment's name when two or more deployments are configured (entries then name theirs), else undefined. */
	private defaultName(): string | undefined {
		const all = this.deployments?.all ?? [];
		return all.length > 1 ? all.find((d) => d.deployment.isDefault)?.deployment.name : undefined;
	}

	/** The name of another deployment (by id) when two or more are configured (they are, while one is watched). */
	private nameOf(id: string): string | undefined {
		const all = this.deployments?.all ?? [];
		return all.length > 1 ? (all.find((d) => d.deployment.id === id)?.deployment.name ?? id) : undefined;
	}

	/**
	 * A watching for each other signed-in deployment (while started and not suspended), none for any
	 * other: signed out or removed, its watcher stops; its history stays stored, so signing in again
	 * catches up from its newest entry.
	 */
	private followOthers(changed: boolean): void {
		const wanted = new Map<string, OtherAccount>();
		if (this.started && this.suspended === 0) {
			for (const { deployment, session } of this.deployments?.all ?? []) {
				const scope = session.signedIn ? session.cacheScope : undefined;
				if (!deployment.isDefault && scope) {
					wanted.set(deployment.id, { deploymentId: deployment.id, session, scope, scopeKey: scopeKeyOf(scope)! });
				}
			}
		}
		if (this.others.sync(wanted) || changed) {
			this._onDidChange.fire();
		}
	}

	/** What the watcher's last look did (requests, events, the wait before the next), undefined before one. */
	get lastPoll(): ActivityWatcher['lastPoll'] {
		return this.current?.watcher.lastPoll;
	}

	/** Where the watcher stands, for the view's message (undefined while nothing is watched). */
	get state(): ActivityWatcher['state'] | undefined {
		return this.current?.watcher.state;
	}

	/**
	 * Claims the end of a run this window announces by other means (the run follower): true when no
	 * other window has announced it, so the follower announces and no window's Activity repeats it.
	 */
	async claimRunEnd(runId: string): Promise<boolean> {
		return this.current ? this.current.announcer.shouldAnnounce({ key: runEndedKey(runId) }) : true;
	}

	/** Notes, as following a run starts here, that this window announces its end (no other window's Activity does). */
	async noteFollowing(runId: string): Promise<void> {
		await this.current?.announcer.noteFollowing(runEndedKey(runId));
	}

	/**
	 * Starts, keeps or stops watching as the session now is. Signed out (or suspended), the account's
	 * watcher is kept paused with what it last saw, so signing in again to the same account catches
	 * up from there: its first look reports what ended meanwhile. Another account starts afresh.
	 */
	private follow(): void {
		const { session } = this.deps;
		const scope = this.started && this.suspended === 0 && session.signedIn ? session.cacheScope : undefined;
		const scopeKey = scopeKeyOf(scope);
		if (scopeKey === this.current?.scopeKey) {
			this.followOthers(false);
			return;
		}
		if (this.current) {
			// Paused: its client reads as signed out, so it stops after the look in flight.
			this.disposePaused();
			this.paused = this.current;
			this.current = undefined;
		}
		if (scope && scopeKey) {
			if (this.paused?.scopeKey === scopeKey) {
				this.current = this.paused;
				this.paused = undefined;
				void this.current.watcher.pollNow();
			} else {
				this.disposePaused();
				this.current = this.watch(scope, scopeKey);
			}
		}
		this.followOthers(true);
	}

	private disposePaused(): void {
		const paused = this.paused;
		this.paused = undefined;
		paused?.dispose();
	}

	/** A watching of `scope`: the default deployment's (the current one), or `other`'s. */
	private watch(scope: ActivityScope, scopeKey: string, other?: Pick<OtherAccount, 'session' | 'deploymentId'>): Watching {
		const { deps } = this;
		const session = other?.session ?? deps.session;
		const watched = (): Watching | undefined => (other ? this.others.get(other.deploymentId) : this.current);
		const history = new ActivityHistory(deps.globalState, { apiUrl: scope.apiUrl, account: scope.account }, (err) =>
			deps.log.warn(`Keeping the activity failed: ${err instanceof Error ? err.message : String(err)}`),
		);
		const announcer = new Announcer(
			deps.claims,
			{ apiUrl: scope.apiUrl, account: scope.account },
			{
				clock: deps.clock,
				log: (m) => deps.log.warn(m),
			},
		);
		const watcher = new ActivityWatcher({
			// The account as the session holds it now: a sign-out clears its scope at once, before it says so.
			client: () =>
				watched()?.scopeKey === scopeKey && session.signedIn && scopeKeyOf(session.cacheScope) === scopeKey
					? session.client
					: undefined,
			clock: deps.clock,
			// Catch-up after a reload or a restart: what ended since the newest event kept.
			since: history.newestAt,
			log: (m) => deps.log.info(m),
		});
		const subscriptions = [
			history,
			watcher,
			history.onDidChange(() => this._onDidChange.fire()),
			watcher.onDidChangeState(() => this._onDidChange.fire()),
			watcher.onDidEvents((events) => {
				this.announcing = this.announcing
					.then(() => this.noticed(history, announcer, events, other?.deploymentId))
					.catch((err: unknown) =>
						deps.log.warn(`Announcing activity failed: ${err instanceof Error ? err.message : String(err)}`),
					);
			}),
			// Another window of the profile may have added entries or read some: read them back on focus.
			vscode.window.onDidChangeWindowState((state) => state.focused && history.reload()),
		];
		deps.log.info(other ? `Activity: watching ${other.deploymentId}` : 'Activity: watching the account');
		return {
			scopeKey,
			history,
			watcher,
			announcer,
			dispose: () => {
				for (const d of subscriptions) {
					d.dispose();
				}
			},
		};
	}

	/**
	 * New events: kept as unread, and those worth announcing that this window claims announced
	 * together, once the look's claims are taken.
	 */
	private async noticed(
		history: ActivityHistory,
		announcer: Announcer,
		events: readonly ActivityEvent[],
		deploymentId?: string,
	): Promise<void> {
		const added = history.add(events);
		const level = announceLevel();
		const claimed: ActivityEvent[] = [];
		for (const { event } of added) {
			if (!worthAnnouncing(event, level)) {
				continue;
			}
			// A run's end on the default deployment may be a followed run's: its follower announces it.
			const followable = deploymentId === undefined && event.kind === 'runEnded';
			if (followable && event.agentId && event.runId && this.deps.isFollowed(event.agentId, event.runId)) {
				// The run follower announces it (and claims it, so no other window does).
				continue;
			}
			if (followable && (await announcer.followedElsewhere(event.key))) {
				// Another window follows it: its follower announces it there, where the person watches it.
				continue;
			}
			if (await announcer.shouldAnnounce(event)) {
				claimed.push(event);
			}
		}
		if (claimed.length > 0) {
			const named = deploymentId === undefined ? this.defaultName() : this.nameOf(deploymentId);
			this.deps.present(
				named === undefined && deploymentId === undefined
					? claimed
					: claimed.map((event) => shown({ event, read: false }, named, deploymentId).event),
			);
		}
	}

	private stop(): void {
		const current = this.current;
		this.current = undefined;
		current?.dispose();
		this.disposePaused();
		this.others.dispose();
	}
}

/**
 * An entry as Activity shows it: naming its deployment (`name`, when two or more are configured),
 * and, of a deployment other than the default (`deploymentId`), with a key that starts with its id.
 */
function shown(entry: HistoryEntry, name: string | undefined, deploymentId: string | undefined): HistoryEntry {
	const event: ActivityEvent = {
		...entry.event,
		...(deploymentId !== undefined ? { key: `${deploymentId}/${entry.event.key}`, deploymentId } : {}),
		...(name !== undefined ? { deployment: name } : {}),
	};
	return { event, read: entry.read };
}

/** The key of an account's watching: its API URL and account (undefined for none). */
function scopeKeyOf(scope: ActivityScope | undefined): string | undefined {
	return scope ? `${scope.apiUrl}\n${scope.account}` : undefined;
}
