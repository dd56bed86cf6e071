/**
 * The agent workspace in VS Code: the `cloud-agent:` file system over the workspace cache, and what
 * keeps it honest while agents work: cache invalidation from followed runs' `file.changed` events,
 * the save warning while a run of the agent is active, the large-file confirmation, the notice
 * (with Retry) when a server's workspace interface differs, and folders that say why they are
 * unavailable (signed out, the service unreachable) and come back by themselves (a sign-in, or a
 * retry the service answers). The commands that open, search and walk a workspace
 * (`openWorkspace.ts`, `searchWorkspace.ts`, `goToFile.ts`) work through it; `workspaceCommands.ts`
 * registers them. All of it loads on first use (dist/features.js): activation registers a stand-in
 * for the file system (`src/workspace/fs/lazyProvider.ts`) that hands every call to this feature's provider.
 */
import * as vscode from 'vscode';
import type { CloudAgentsClient, EventRecord } from '../api';
import { SAFETY, eventFileChange, eventStatus, isTerminalRunStatus } from '../api';
import { type AvailabilityChange, type InterfaceDiffers, WorkspaceCache } from './fs/workspaceCache';
import { WorkspaceFileSystemProvider, agentIdOf } from './fs/workspaceFs';
import { CONTEXT_KEYS, FS_SCHEME, SEARCH_HINT_KEY } from '../ids';
import { Disposable, whenRead } from '../util/lifecycle';
import { notificationText } from '../util/text';

/** One event of a followed run (what `RunFollower.onDidReceiveEvent` fires). */
export interface WorkspaceRunEvent {
	agentId: string;
	runId: string;
	event: EventRecord;
}

/** What the workspace feature needs from the rest of the extension. */
export interface WorkspaceFeatureDeps {
	/** The shared connection (`Session`): its client, URL and sign-in state, and an event when URL or token change. */
	session: {
		readonly client: CloudAgentsClient;
		readonly apiUrl: string;
		readonly signedIn: boolean;
		/** Whether the sign-in state has been read (the first `onDidChange` has fired). */
		readonly initialized: boolean;
		readonly onDidChange: vscode.Event<void>;
	};
	log: { warn(message: string, ...args: unknown[]): void };
	/** Events of followed runs (`RunFollower.onDidReceiveEvent`). */
	runEvents?: vscode.Event<WorkspaceRunEvent>;
	/** Where the search hint is remembered as shown (context.globalState: once per machine); no hint without it. */
	globalState?: vscode.Memento;
	/** Go to File and Search Workspace (the hint's buttons run them); no buttons without them. */
	searchActions?: { goToFile(this: void): unknown; search(this: void): unknown };
}

/** Waits before asking an unreachable service again for an open agent folder: doubling from the first, up to the last. */
export const UNAVAILABLE_RETRY_MS = { first: 2_000, max: 30_000 } as const;

/** `host[:port]` of an API URL, for messages; the URL itself when it does not parse. */
function hostOf(apiUrl: string): string {
	try {
		return new URL(apiUrl).host;
	} catch {
		return apiUrl;
	}
}

function largeFileBytes(): number {
	const mb = vscode.workspace.getConfiguration('cloudAgents.workspace').get<number>('largeFileWarningMb', 16);
	return Math.max(1, mb) * 1024 * 1024;
}

/**
 * Owns the workspace cache and the `cloud-agent:` provider of this window (which the stand-in
 * registered at activation hands every call to); dispose it to stop both.
 */
export class WorkspaceFeature extends Disposable {
	/** What the window knows about agent workspaces (listings, stats, reads in flight). */
	readonly cache: WorkspaceCache;
	/** The `cloud-agent:` file system provider (registered through the stand-in: `src/workspace/fs/lazyProvider.ts`). */
	readonly provider: WorkspaceFileSystemProvider;
	/** Runs seen active per agent (from followed runs' events). */
	private readonly activeRuns = new Map<string, Set<string>>();
	/** `runId\nuri` pairs already warned about. */
	private readonly warned = new Set<string>();
	/** Large files the user was asked about recently (uri → time). */
	private readonly asked = new Map<string, number>();
	/** Sign-in state and API URL at the last session change (undefined before the sign-in state is read). */
	private sessionState: string | undefined;
	/** Per open agent folder whose service cannot be reached: the pending retry and the wait before it. */
	private readonly retries = new Map<string, { timer: ReturnType<typeof setTimeout>; waitMs: number }>();

	constructor(private readonly deps: WorkspaceFeatureDeps) {
		super();
		this.cache = new WorkspaceCache(() => deps.session.client, {
			largeFileBytes,
			log: deps.log,
			signedIn: () => deps.session.signedIn,
			sessionKnown: () => whenRead(deps.session, SAFETY.sessionReadMaxMs),
			serviceHost: () => hostOf(deps.session.apiUrl),
		});
		this.provider = this.register(new WorkspaceFileSystemProvider(this.cache));
		if (deps.session.initialized) {
			// Loaded after activation read the sign-in state: the next session change is a real one.
			this.sessionState = this.currentSessionState();
		}
		this.register(deps.session.onDidChange(() => this.onSessionChange()));
		this.register(this.cache.onDidChangeAvailability((e) => this.onAvailabilityChange(e)));
		this.register({ dispose: () => this.stopRetries() });
		this.register(this.cache.onDidRefuseLargeFile((r) => void this.confirmLargeFile(r.agentId, r.path, r.size)));
		this.register(this.cache.onDidDetectInterfaceDiffers((e) => void this.reportInterfaceDiffers(e)));
		if (deps.runEvents) {
			this.register(deps.runEvents((e) => this.onRunEvent(e)));
		}
		this.register(vscode.workspace.onWillSaveTextDocument((e) => this.warnIfAgentBusy(e.document)));
		this.register(vscode.workspace.onDidChangeWorkspaceFolders((e) => this.onFoldersChange(e.added)));
		this.onFoldersChange(vscode.workspace.workspaceFolders ?? []);
	}

	/** The client of the current session. */
	get client(): CloudAgentsClient {
		return this.deps.session.client;
	}

	/** A `cloud-agent:` URI of a workspace path, under the agent's workspace folder when the window has one. */
	uriFor(agentId: string, path = ''): vscode.Uri {
		return this.provider.uriFor(agentId, path);
	}

	/**
	 * The agent the window points at: the one of the active `cloud-agent:` editor, else the only
	 * agent workspace folder of the window. Undefined when that is not clear.
	 */
	contextAgentId(): string | undefined {
		const active = vscode.window.activeTextEditor?.document.uri;
		if (active?.scheme === FS_SCHEME) {
			return agentIdOf(active);
		}
		const open = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FS_SCHEME);
		return open.length === 1 && open[0] ? agentIdOf(open[0].uri) : undefined;
	}

	/** Lets an agent's (or every open agent folder's) workspace operations reach the server again and refreshes its folder. */
	retryInterface(agentId?: string): void {
		const ids =
			agentId !== undefined
				? [agentId]
				: (vscode.workspace.workspaceFolders ?? []).map((f) => agentIdOf(f.uri)).filter((id) => id !== undefined);
		for (const id of ids) {
			if (this.cache.retryInterface(id)) {
				// A change of the root makes the Explorer list it again.
				this.cache.invalidate(id, '');
			}
		}
	}

	// ------------------------------------------------------------------ workspace folders

	/**
	 * Folders added (or those the window opened with): sets `cloudAgents.agentWorkspace`, shows the
	 * search hint when an agent folder is among them, and retries an added agent folder whose
	 * service could not be reached.
	 */
	private onFoldersChange(added: readonly vscode.WorkspaceFolder[]): void {
		const folders = vscode.workspace.workspaceFolders ?? [];
		const allAgents = folders.length > 0 && folders.every((f) => f.uri.scheme === FS_SCHEME);
		void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.agentWorkspace, allAgents);
		const agents = added.map((f) => agentIdOf(f.uri)).filter((id) => id !== undefined);
		if (agents.length > 0) {
			this.showSearchHint(allAgents);
		}
		for (const agentId of agents) {
			const reason = this.cache.unavailableError(agentId)?.reason;
			if (reason === 'unreachable' || reason === 'failing') {
				this.scheduleRetry(agentId, UNAVAILABLE_RETRY_MS.first);
			}
		}
	}

	/**
	 * Once per machine, when an agent folder is first opened: VS Code's Quick Open and Search find
	 * nothing in agent files (their search provider APIs are proposed), so say which commands do,
	 * and which keys reach them in this window (ours only while every folder is an agent's).
	 */
	private showSearchHint(keysAreOurs: boolean): void {
		const state = this.deps.globalState;
		if (!state || state.get<boolean>(SEARCH_HINT_KEY) === true) {
			return;
		}
		void state.update(SEARCH_HINT_KEY, true);
		// Desktop first: a browser's extension host has no `process`.
		const mod = vscode.env.uiKind === vscode.UIKind.Desktop && process.platform === 'darwin' ? 'Cmd' : 'Ctrl';
		const text = keysAreOurs
			? vscode.l10n.t(
					"VS Code's search cannot read agent files; use Go to File ({0}+P) and Search Workspace ({0}+Shift+F) of Cloud Agents.",
					mod,
				)
			: vscode.l10n.t(
					"VS Code's search cannot read agent files, and in this window {0}+P and {0}+Shift+F search only your other folders; use Go to File and Search Workspace of Cloud Agents (Command Palette) for the agent's files.",
					mod,
				);
		const actions = this.deps.searchActions;
		const goToFile = vscode.l10n.t('Go to File');
		const search = vscode.l10n.t('Search Workspace');
		void vscode.window.showInformationMessage(text, ...(actions ? [goToFile, search] : [])).then((answer) => {
			if (answer === goToFile) {
				void actions?.goToFile();
			} else if (answer === search) {
				void actions?.search();
			}
		});
	}

	// ------------------------------------------------------------------ availability

	/** The sign-in state and API URL now, as `sessionState` records them. */
	private currentSessionState(): string {
		return `${this.deps.session.signedIn}\n${this.deps.session.apiUrl}`;
	}

	/** The agents of this window's `cloud-agent:` workspace folders. */
	private openAgentIds(): string[] {
		return (vscode.workspace.workspaceFolders ?? []).map((f) => agentIdOf(f.uri)).filter((id) => id !== undefined);
	}

	/**
	 * Signed in, signed out or another API URL: the cache starts again (folders that showed an
	 * error read their agent again). On a sign-out, every open agent folder fails with "Signed out…"
	 * at once; on a sign-in or another URL, every open agent folder is listed again. The first
	 * change (activation reading the stored token) only records the state: a folder whose root
	 * fails while the window opens is dropped by VS Code ("Workspace does not exist"). A feature
	 * loaded after that change recorded the state when it was created.
	 */
	private onSessionChange(): void {
		const { signedIn } = this.deps.session;
		const state = this.currentSessionState();
		const changed = this.sessionState !== undefined && this.sessionState !== state;
		this.sessionState = state;
		this.stopRetries();
		this.cache.clear();
		if (!changed) {
			return;
		}
		const open = this.openAgentIds();
		if (signedIn) {
			for (const agentId of open) {
				this.cache.invalidate(agentId, '');
			}
		} else {
			this.cache.markSignedOut(open);
		}
	}

	/**
	 * While an open agent folder's service cannot be reached (no answer, 5xx, 429), asks it again
	 * after 2 s, 4 s, 8 s… up to 30 s; an answer brings the folder back. Signed out or a refused
	 * sign-in wait for the next sign-in instead.
	 */
	private onAvailabilityChange({ agentId, error }: AvailabilityChange): void {
		if (!error) {
			this.stopRetry(agentId);
			return;
		}
		if (error.reason === 'unreachable' || error.reason === 'failing') {
			this.scheduleRetry(agentId, UNAVAILABLE_RETRY_MS.first);
		}
	}

	private scheduleRetry(agentId: string, waitMs: number): void {
		if (this.retries.has(agentId) || !this.openAgentIds().includes(agentId)) {
			return;
		}
		const timer = setTimeout(() => {
			void this.cache.probe(agentId).then((back) => {
				if (this.retries.get(agentId)?.timer !== timer) {
					return; // Stopped meanwhile (a session change, the folder back, disposal).
				}
				this.retries.delete(agentId);
				if (!back && this.cache.unavailableError(agentId)) {
					this.scheduleRetry(agentId, Math.min(waitMs * 2, UNAVAILABLE_RETRY_MS.max));
				}
			});
		}, waitMs);
		this.retries.set(agentId, { timer, waitMs });
	}

	private stopRetry(agentId: string): void {
		const retry = this.retries.get(agentId);
		if (retry) {
			clearTimeout(retry.timer);
			this.retries.delete(agentId);
		}
	}

	private stopRetries(): void {
		for (const agentId of [...this.retries.keys()]) {
			this.stopRetry(agentId);
		}
	}

	// ------------------------------------------------------------------ run events

	private onRunEvent({ agentId, runId, event }: WorkspaceRunEvent): void {
		const runs = this.activeRuns.get(agentId) ?? new Set<string>();
		this.activeRuns.set(agentId, runs);
		// Event names and envelopes are not shown in the description: read them whatever the shape (src/api/events.ts).
		const status = eventStatus(event);
		if (event.type === 'run.completed' || isTerminalRunStatus(status)) {
			runs.delete(runId);
		} else {
			runs.add(runId);
		}
		const changed = eventFileChange(event);
		if (changed) {
			try {
				this.cache.invalidate(agentId, changed.path, changed.change);
			} catch (err) {
				this.deps.log.warn(`Ignored a file change for an unusable path: ${err instanceof Error ? err.message : String(err)}`);
			}
		}
	}

	/** Non-modal warning, once per file per run, when saving while a run of the agent is active. */
	private warnIfAgentBusy(document: vscode.TextDocument): void {
		if (document.uri.scheme !== FS_SCHEME) {
			return;
		}
		const agentId = agentIdOf(document.uri);
		const runs = agentId === undefined ? undefined : this.activeRuns.get(agentId);
		const runId = runs ? [...runs][runs.size - 1] : undefined;
		if (runId === undefined) {
			return;
		}
		const key = `${runId}\n${document.uri.toString()}`;
		if (this.warned.has(key)) {
			return;
		}
		this.warned.add(key);
		void vscode.window.showWarningMessage(
			notificationText(
				vscode.l10n.t(
					'The agent is running ({0}) and may be editing {1} too. Your save went ahead; if the agent changes the file, VS Code will ask you to compare.',
					runId,
					document.uri.path.slice(1),
				),
			),
		);
	}

	// ------------------------------------------------------------------ interface differs

	/**
	 * One error notification per agent when the server rejected or misread our workspace operation
	 * (the folder's root shows the same message); "Retry" lets the next listing ask again.
	 */
	private async reportInterfaceDiffers({ agentId, error }: InterfaceDiffers): Promise<void> {
		// Named as the window names its folder (the agent's name), the id only when no folder says it (issue 42, item 15).
		const folder = vscode.workspace.workspaceFolders?.find((f) => agentIdOf(f.uri) === agentId);
		const prefix = vscode.l10n.t('Agent: {0}', '');
		const name = folder && (folder.name.startsWith(prefix) ? folder.name.slice(prefix.length) : folder.name);
		const message = vscode.l10n.t(
			'{0}: {1} (request {2}). Its files are not asked for again until you retry.',
			name ? vscode.l10n.t('Agent workspace "{0}"', name) : vscode.l10n.t('Agent workspace {0}', agentId),
			error.message,
			error.requestId ?? vscode.l10n.t('unknown'),
		);
		this.deps.log.warn(message);
		const retry = vscode.l10n.t('Retry');
		const answer = await vscode.window.showErrorMessage(notificationText(message), retry);
		if (answer === retry) {
			this.retryInterface(agentId);
		}
	}

	// ------------------------------------------------------------------ large files

	private async confirmLargeFile(agentId: string, path: string, size: number): Promise<void> {
		const uri = this.provider.uriFor(agentId, path);
		const last = this.asked.get(uri.toString());
		if (last !== undefined && Date.now() - last < 60_000) {
			return;
		}
		this.asked.set(uri.toString(), Date.now());
		const open = vscode.l10n.t('Open Anyway');
		const answer = await vscode.window.showWarningMessage(
			vscode.l10n.t(
				'{0} is {1} MB. Opening it downloads the whole file from the agent workspace.',
				notificationText(path),
				(size / (1024 * 1024)).toFixed(1),
			),
			{ modal: true, detail: vscode.l10n.t('The limit is set by cloudAgents.workspace.largeFileWarningMb.') },
			open,
		);
		if (answer === open) {
			this.cache.approveLargeFile(agentId, path);
			await vscode.commands.executeCommand('vscode.open', uri);
		}
	}
}
