/**
 * The Activity view and its announcements (issue 45): what the watcher over the account noticed
 * (src/activity/), newest first, unread marked, with a badge counting the unread on the Cloud Agents
 * container; a click opens what fits (the run's result, the agent, the authorization page, the
 * runtime) and marks the entry read. Announcements are notifications with the same actions, one per
 * event whichever windows are open (src/activity/announce.ts), as much as the setting
 * `cloudAgents.activity.notifications` asks for; more than SEPARATE_ANNOUNCEMENTS_MAX from one look
 * are said in one notification.
 *
 * Every text of an entry comes from the service: it is shown as plain text (describeEvent
 * neutralises and bounds it; notificationText once more for a notification), never as Markdown or
 * a link; the only link opened is an authorization page, and only an https: one.
 */
import * as vscode from 'vscode';
import type { Activity } from '../activity/activity';
import { describeEvent, type HistoryEntry } from '../activity/history';
import type { ActivityEvent } from '../activity/events';
import { fromUnixMillis } from '../base/time';
import { notificationText, plainText, singleLine } from '../util/text';
import { localTimeText, relativeTimeText } from '../views/timeText';
import type { FlowCommand } from '../views/registry';
import { VIEW_IDS } from '../ids';

/** The Activity view's id (package.json `contributes.views`). */
export const ACTIVITY_VIEW_ID = VIEW_IDS.activity;

/**
 * The most events other than a run's end one look announces one by one; more are said in one
 * notification that counts them (a window opened on an account with several agents waiting raises
 * one, not a toast each). Each run's end is announced on its own.
 */
export const SEPARATE_ANNOUNCEMENTS_MAX = 2;

/** What opening an event does, by kind: the shell's (it reaches the views and the features). */
export interface ActivityOpeners {
	/** Opens a run's result (the Runs view's Open Result). */
	openRunResult(this: void, agentId: string, runId: string): Promise<unknown>;
	/** Shows the agent in the Agents view (selected, so Runs follows it). */
	revealAgent(this: void, agentId: string): Promise<unknown>;
	/** Shows the runtime in the Runtimes view. */
	revealRuntime(this: void, runtimeId: string): Promise<unknown>;
	/** Shows the image builds (the Account view). */
	revealBuilds(this: void): Promise<unknown>;
	/** Shows the Activity view. */
	revealActivity(this: void): Promise<unknown>;
}

/** The codicon of an event (its kind and how it ended). */
function iconOf(event: ActivityEvent): vscode.ThemeIcon {
	switch (event.kind) {
		case 'runEnded':
		case 'buildEnded':
			return event.outcome === 'succeeded'
				? new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed'))
				: event.outcome === 'failed'
					? new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'))
					: event.outcome === 'cancelled'
						? new vscode.ThemeIcon('circle-slash')
						: new vscode.ThemeIcon('circle-outline');
		case 'runWaiting':
		case 'agentWaiting':
			return new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('notificationsWarningIcon.foreground'));
		case 'githubAuthorization':
			return new vscode.ThemeIcon('github', new vscode.ThemeColor('notificationsWarningIcon.foreground'));
		case 'runtimeFailed':
			return new vscode.ThemeIcon('server-process', new vscode.ThemeColor('testing.iconFailed'));
	}
}

/** The row of an entry: what happened, when, unread marked; a click opens it. */
export function activityRow(entry: HistoryEntry, now: number): vscode.TreeItem {
	const { event } = entry;
	const item = new vscode.TreeItem(describeEvent(event), vscode.TreeItemCollapsibleState.None);
	item.id = `activity/${event.key}`;
	const at = fromUnixMillis(event.at);
	const when = at === undefined ? '' : relativeTimeText(at, now, vscode.l10n);
	item.description = entry.read ? when : vscode.l10n.t('● unread · {0}', when);
	item.iconPath = iconOf(event);
	item.contextValue = entry.read ? 'activity' : 'activity:unread';
	const lines = [
		describeEvent(event),
		at === undefined ? '' : localTimeText(at, now, vscode.l10n),
		event.agentId ? vscode.l10n.t('Agent: {0}', singleLine(event.agentName ?? event.agentId)) : '',
		event.runId ? vscode.l10n.t('Run: {0}', singleLine(event.runId)) : '',
		event.runtimeId ? vscode.l10n.t('Runtime: {0}', singleLine(event.runtimeName ?? event.runtimeId)) : '',
		event.status ? vscode.l10n.t('Status (as the service wrote it): {0}', singleLine(event.status)) : '',
		event.detail ? plainText(event.detail) : '',
	];
	item.tooltip = lines.filter((l) => l !== '').join('\n');
	item.accessibilityInformation = { label: `${entry.read ? '' : `${vscode.l10n.t('Unread')}: `}${describeEvent(event)}, ${when}` };
	item.command = { command: 'cloudAgents.activity.open', title: vscode.l10n.t('Open'), arguments: [event.key] };
	return item;
}

/** The Activity view's rows and its badge. */
export class ActivityTree implements vscode.TreeDataProvider<HistoryEntry>, vscode.Disposable {
	private readonly changes = new vscode.EventEmitter<HistoryEntry | undefined>();
	readonly onDidChangeTreeData = this.changes.event;
	private view: vscode.TreeView<HistoryEntry> | undefined;
	private readonly subscription: vscode.Disposable;

	constructor(
		private readonly activity: Pick<Activity, 'entries' | 'unreadCount' | 'onDidChange'>,
		private readonly now: () => number = Date.now,
	) {
		this.subscription = activity.onDidChange(() => this.redraw());
	}

	/** Connects the view: its badge counts the unread entries (the container's badge sums them). */
	attach(view: vscode.TreeView<HistoryEntry>): void {
		this.view = view;
		this.redraw();
	}

	getTreeItem(entry: HistoryEntry): vscode.TreeItem {
		return activityRow(entry, this.now());
	}

	getChildren(entry?: HistoryEntry): HistoryEntry[] {
		return entry ? [] : [...this.activity.entries()];
	}

	/** The rows again, and the badge. */
	redraw(): void {
		const unread = this.activity.unreadCount;
		if (this.view) {
			this.view.badge =
				unread > 0
					? {
							value: unread,
							tooltip: unread === 1 ? vscode.l10n.t('1 unread activity') : vscode.l10n.t('{0} unread activities', unread),
						}
					: undefined;
		}
		this.changes.fire(undefined);
	}

	dispose(): void {
		this.subscription.dispose();
		this.changes.dispose();
	}
}

/** The actions a notification or a row offers for an event, by what fits it. */
export function actionsOf(
	event: ActivityEvent,
): Array<{ id: 'openResult' | 'showAgent' | 'openAuthorization' | 'showRuntime' | 'showBuilds'; title: string }> {
	if (event.deploymentId !== undefined) {
		// Another deployment's event (issue 47): what opens records and rows opens the default deployment's, so only its page.
		return event.kind === 'githubAuthorization' && event.authorizationUrl
			? [{ id: 'openAuthorization', title: vscode.l10n.t('Open Authorization Page') }]
			: [];
	}
	switch (event.kind) {
		case 'runEnded':
			return [
				{ id: 'openResult', title: vscode.l10n.t('Open Result') },
				{ id: 'showAgent', title: vscode.l10n.t('Show Agent') },
			];
		case 'runWaiting':
		case 'agentWaiting':
			return [{ id: 'showAgent', title: vscode.l10n.t('Show Agent') }];
		case 'githubAuthorization':
			return event.authorizationUrl ? [{ id: 'openAuthorization', title: vscode.l10n.t('Open Authorization Page') }] : [];
		case 'runtimeFailed':
			return [{ id: 'showRuntime', title: vscode.l10n.t('Show Runtime') }];
		case 'buildEnded':
			return [{ id: 'showBuilds', title: vscode.l10n.t('Show Image Builds') }];
	}
}

/** Whether an event is said as a warning: it failed, or waits for a person. */
function needsAttention(event: ActivityEvent): boolean {
	return event.kind !== 'runEnded' && event.kind !== 'buildEnded' ? true : event.outcome === 'failed';
}

/** Announcements and the opening of events (see the module comment). */
export class ActivityPresenter {
	constructor(
		private readonly activity: Pick<Activity, 'get' | 'markRead'>,
		private readonly openers: ActivityOpeners,
		private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
	) {}

	/**
	 * The events one look announces: each run's end a notification of its own (`present`); the others
	 * too when there are at most SEPARATE_ANNOUNCEMENTS_MAX of them, else one notification that counts
	 * them, names the first few and offers Show Activity.
	 */
	presentAll(all: readonly ActivityEvent[]): void {
		// A run's end is always its own notification: its result is one click away.
		const others = all.filter((e) => e.kind !== 'runEnded');
		for (const event of all) {
			if (event.kind === 'runEnded' || others.length <= SEPARATE_ANNOUNCEMENTS_MAX) {
				this.present(event);
			}
		}
		if (others.length <= SEPARATE_ANNOUNCEMENTS_MAX) {
			return;
		}
		const named = others.slice(0, SEPARATE_ANNOUNCEMENTS_MAX).map((e) => singleLine(describeEvent(e), 120));
		const text = notificationText(
			vscode.l10n.t(
				'Cloud Agents: {0} new in Activity — {1} and {2} more',
				others.length,
				named.join('; '),
				others.length - named.length,
			),
		);
		const show = others.some(needsAttention) ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
		const open = vscode.l10n.t('Show Activity');
		void show(text, open).then(async (choice) => {
			if (choice === open) {
				await this.openers.revealActivity();
			}
		});
	}

	/** A notification for `event` (warning for what failed or waits, information otherwise) with its actions. */
	present(event: ActivityEvent): void {
		const actions = actionsOf(event);
		const text = notificationText(describeEvent(event));
		const show = needsAttention(event) ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
		void show(text, ...actions.map((a) => a.title)).then(async (choice) => {
			const action = actions.find((a) => a.title === choice);
			if (action) {
				await this.act(event, action.id);
			}
		});
	}

	/** Opens an entry (a row's click): the first action that fits it; marks it read. */
	async open(key: unknown): Promise<void> {
		if (typeof key !== 'string') {
			return;
		}
		const entry = this.activity.get(key);
		if (!entry) {
			return;
		}
		const first = actionsOf(entry.event)[0];
		if (first) {
			await this.act(entry.event, first.id);
		} else {
			this.activity.markRead(key);
		}
	}

	private async act(event: ActivityEvent, action: ReturnType<typeof actionsOf>[number]['id']): Promise<void> {
		this.activity.markRead(event.key);
		try {
			switch (action) {
				case 'openResult':
					if (event.agentId && event.runId) {
						await this.openers.openRunResult(event.agentId, event.runId);
					}
					return;
				case 'showAgent':
					if (event.agentId) {
						await this.openers.revealAgent(event.agentId);
					}
					return;
				case 'openAuthorization':
					// Only an https: page (events.ts `httpsUrl` kept nothing else); VS Code asks before it opens a new domain.
					if (event.authorizationUrl?.startsWith('https://')) {
						await vscode.env.openExternal(vscode.Uri.parse(event.authorizationUrl, true));
					}
					return;
				case 'showRuntime':
					if (event.runtimeId) {
						await this.openers.revealRuntime(event.runtimeId);
					}
					return;
				case 'showBuilds':
					await this.openers.revealBuilds();
					return;
			}
		} catch (err) {
			this.log.warn(`Opening an activity entry failed: ${err instanceof Error ? err.message : String(err)}`);
			throw err;
		}
	}
}

/** The Activity view's commands (registered by the shell with its other flows). */
export function activityCommands(activity: Pick<Activity, 'markAllRead' | 'checkNow'>, presenter: ActivityPresenter): FlowCommand[] {
	return [
		{ id: 'cloudAgents.activity.open', run: (key?: unknown) => presenter.open(key) },
		{ id: 'cloudAgents.activity.markAllRead', run: () => activity.markAllRead() },
		{ id: 'cloudAgents.activity.checkNow', run: () => activity.checkNow() },
	];
}
