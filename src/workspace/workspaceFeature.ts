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
import { eventFileChange, eventStatus, isTerminalRunStatus } from '../api';
import { type Deployment, deploymentOfPart, removedDeploymentMessage } from '../auth/deployments';
import { PerDeployment } from '../auth/perDeployment';
import type { InterfaceDiffers, WorkspaceCache } from './fs/workspaceCache';
import { type WorkspaceAddress, WorkspaceFileSystemProvider, agentIdOf, sameAddress, workspaceAddressOf } from './fs/workspaceFs';
import { DeploymentWorkspace, type WorkspaceSession } from './deploymentWorkspace';
import { CONTEXT_KEYS, FS_SCHEME, SEARCH_HINT_KEY } from '../ids';
import { Disposable } from '../util/lifecycle';
import { notificationText } from '../util/text';

export { UNAVAILABLE_RETRY_MS } from './deploymentWorkspace';
export type { DeploymentWorkspace, WorkspaceSession } from './deploymentWorkspace';

/** One event of a followed run (what `RunFollower.onDidReceiveEvent` fires). */
export interface WorkspaceRunEvent {
	agentId: string;
	runId: string;
	event: EventRecord;
}

/** What the workspace feature needs from the rest of the extension. */
export interface WorkspaceFeatureDeps {
	/** The default deployment's connection (`Session`): its client, URL and sign-in state, and an event when URL or token change. */
	session: WorkspaceSession;
	/**
	 * Every configured deployment with its session (`DeploymentSessions`): the agent workspaces of
	 * each one other than the default are served through its own session. Without it only the
	 * default deployment's addresses are served.
	 */
	deployments?: WorkspaceDeployments;
	log: { warn(message: string, ...args: unknown[]): void };
	/** Events of followed runs (`RunFollower.onDidReceiveEvent`). */
	runEvents?: vscode.Event<WorkspaceRunEvent>;
	/** Where the search hint is remembered as shown (context.globalState: once per machine); no hint without it. */
	globalState?: vscode.Memento;
	/** Go to File and Search Workspace (the hint's buttons run them); no buttons without them. */
	searchActions?: { goToFile(this: void): unknown; search(this: void): unknown };
}

/** The deployments as the workspace reads them (what `DeploymentSessions` offers). */
export interface WorkspaceDeployments {
	/** Every configured deployment with its session, the default one first. */
	readonly all: readonly { readonly deployment: Deployment; readonly session: WorkspaceSession }[];
	/** Fires when a deployment is added or removed (and when a session's sign-in state changes). */
	readonly onDidChange: vscode.Event<void>;
}

/** A configured deployment's agent workspaces, served while it is (WorkspaceFeature's per-deployment thing). */
interface DeploymentWorkspaceServed extends vscode.Disposable {
	readonly workspace: DeploymentWorkspace;
	gone(): void;
}

function largeFileBytes(): number {
	const mb = vscode.workspace.getConfiguration('cloudAgents.workspace').get<number>('largeFileWarningMb', 16);
	return Math.max(1, mb) * 1024 * 1024;
}

/**
 * Owns the workspace caches (one per deployment: `DeploymentWorkspace`) and the `cloud-agent:`
 * provider of this window (which the stand-in registered at activation hands every call to);
 * dispose it to stop them.
 */
export class WorkspaceFeature extends Disposable {
	/** The `cloud-agent:` file system provider (registered through the stand-in: `src/workspace/fs/lazyProvider.ts`). */
	readonly provider: WorkspaceFileSystemProvider;
	/** The default deployment's agent workspaces. */
	private readonly home: DeploymentWorkspace;
	/**
	 * The other configured deployments' agent workspaces, by deployment id (the deployment part of
	 * their addresses), served while it is configured: made again for a renamed one (its session is
	 * another), none for a removed one, whose addresses then fail with an error naming it.
	 */
	private readonly others: PerDeployment<WorkspaceSession, DeploymentWorkspaceServed> | undefined;
	/** Runs seen active per agent (from followed runs' events). */
	private readonly activeRuns = new Map<string, Set<string>>();
	/** `runId\nuri` pairs already warned about. */
	private readonly warned = new Set<string>();
	/** Large files the user was asked about recently (uri → time). */
	private readonly asked = new Map<string, number>();

	constructor(private readonly deps: WorkspaceFeatureDeps) {
		super();
		this.home = this.register(this.makeWorkspace(deps.session, undefined));
		this.provider = this.register(new WorkspaceFileSystemProvider(this.home.cache));
		if (deps.runEvents) {
			this.register(deps.runEvents((e) => this.onRunEvent(e)));
		}
		if (deps.deployments) {
			this.others = this.register(
				new PerDeployment(deps.deployments, ({ deployment, session }) => this.serve(deployment, session), 'configured'),
			);
		}
		this.register(vscode.workspace.onWillSaveTextDocument((e) => this.warnIfAgentBusy(e.document)));
		this.register(vscode.workspace.onDidChangeWorkspaceFolders((e) => this.onFoldersChange(e.added)));
		this.onFoldersChange(vscode.workspace.workspaceFolders ?? []);
	}

	/** What the window knows about the default deployment's agent workspaces (listings, stats, reads in flight). */
	get cache(): WorkspaceCache {
		return this.home.cache;
	}

	/** The client of the default deployment's session. */
	get client(): CloudAgentsClient {
		return this.home.client;
	}

	/** A `cloud-agent:` URI of a workspace path of the default deployment, under the agent's workspace folder when the window has one. */
	uriFor(agentId: string, path = ''): vscode.Uri {
		return this.home.uriFor(agentId, path);
	}

	/**
	 * The agent workspaces of the deployment whose addresses carry `deploymentPart` (undefined: the
	 * default deployment). Throws an error naming it for a deployment no longer configured, or one
	 * this window does not serve.
	 */
	workspaceOf(deploymentPart: string | undefined): DeploymentWorkspace {
		if (deploymentPart === undefined) {
			return this.home;
		}
		const held = this.others?.get(deploymentPart.toLowerCase());
		if (held) {
			return held.workspace;
		}
		const named = deploymentOfPart(deploymentPart);
		throw new Error(
			named !== undefined && 'removed' in named
				? removedDeploymentMessage(named.removed, 'address')
				: vscode.l10n.t('The agent workspaces of the deployment {0} are not served in this window.', deploymentPart),
		);
	}

	/** The agent workspaces of the deployment of this name or id (any case); undefined when none is configured. */
	workspaceNamed(nameOrId: string): DeploymentWorkspace | undefined {
		const wanted = nameOrId.trim().toLowerCase();
		const all = this.deps.deployments?.all.map((d) => d.deployment) ?? [];
		const deployment = all.find((d) => d.id === wanted) ?? all.find((d) => d.name.toLowerCase() === wanted);
		if (deployment === undefined) {
			return undefined;
		}
		return deployment.isDefault ? this.home : this.others?.get(deployment.id)?.workspace;
	}

	/**
	 * The agent the window points at: the one of the active `cloud-agent:` editor, else the only
	 * agent workspace folder of the window. Undefined when that is not clear. Of the default
	 * deployment only (`contextAddress` for any).
	 */
	contextAgentId(): string | undefined {
		const address = this.contextAddress();
		return address?.deploymentPart === undefined ? address?.agentId : undefined;
	}

	/** As `contextAgentId`, for an agent of any deployment: the agent and its deployment part. */
	contextAddress(): WorkspaceAddress | undefined {
		const active = vscode.window.activeTextEditor?.document.uri;
		if (active?.scheme === FS_SCHEME) {
			return workspaceAddressOf(active);
		}
		const open = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FS_SCHEME);
		return open.length === 1 && open[0] ? workspaceAddressOf(open[0].uri) : undefined;
	}

	/** Lets an agent's (or every open agent folder's) workspace operations reach the server again and refreshes its folder. */
	retryInterface(agentId?: string): void {
		if (agentId !== undefined) {
			this.home.retryInterface(agentId);
			return;
		}
		for (const workspace of this.workspaces()) {
			workspace.retryInterface();
		}
	}

	// ------------------------------------------------------------------ deployments

	/** The default deployment's workspaces, then the other deployments'. */
	private workspaces(): DeploymentWorkspace[] {
		return [this.home, ...(this.others?.values() ?? []).map((held) => held.workspace)];
	}

	private makeWorkspace(session: WorkspaceSession, deploymentPart: string | undefined): DeploymentWorkspace {
		return new DeploymentWorkspace({
			session,
			deploymentPart,
			log: this.deps.log,
			largeFileBytes,
			uriFor: (agentId, path, part) => this.provider.uriFor(agentId, path, part),
			notices: {
				largeFile: (workspace, r) => void this.confirmLargeFile(workspace, r.agentId, r.path, r.size),
				interfaceDiffers: (workspace, e) => void this.reportInterfaceDiffers(workspace, e),
			},
		});
	}

	/** The agent workspaces of a configured deployment other than the default one, served at addresses with its part. */
	private serve(deployment: Deployment, session: WorkspaceSession): DeploymentWorkspaceServed {
		const part = deployment.id;
		const workspace = this.makeWorkspace(session, part);
		const served = this.provider.serve(part, workspace.cache);
		workspace.foldersAdded(workspace.openAgentIds());
		return {
			workspace,
			gone: () => {
				// Its open folders are read again: they now say why they cannot be served.
				for (const agentId of workspace.openAgentIds()) {
					workspace.cache.invalidate(agentId, '');
				}
			},
			dispose: () => {
				served.dispose();
				workspace.dispose();
			},
		};
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
		const addresses = added.map((f) => workspaceAddressOf(f.uri)).filter((a) => a !== undefined);
		if (addresses.length > 0) {
			this.showSearchHint(allAgents);
		}
		for (const workspace of this.workspaces()) {
			workspace.foldersAdded(addresses.filter((a) => a.deploymentPart === workspace.deploymentPart).map((a) => a.agentId));
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

	// ------------------------------------------------------------------ run events

	/**
	 * An event of a followed run of the deployment `deploymentId` (one other than the default, whose
	 * events `runEvents` brings): a file it changed is read again from that deployment's workspace.
	 */
	runEventOf(deploymentId: string, { agentId, event }: WorkspaceRunEvent): void {
		const changed = eventFileChange(event);
		const workspace = this.others?.get(deploymentId)?.workspace;
		if (changed && workspace) {
			try {
				workspace.cache.invalidate(agentId, changed.path, changed.change);
			} catch (err) {
				this.deps.log.warn(`Ignored a file change for an unusable path: ${err instanceof Error ? err.message : String(err)}`);
			}
		}
	}

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
	private async reportInterfaceDiffers(workspace: DeploymentWorkspace, { agentId, error }: InterfaceDiffers): Promise<void> {
		// Named as the window names its folder (the agent's name), the id only when no folder says it (issue 42, item 15).
		const address = { agentId, deploymentPart: workspace.deploymentPart };
		const folder = vscode.workspace.workspaceFolders?.find((f) => sameAddress(workspaceAddressOf(f.uri), address));
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
			workspace.retryInterface(agentId);
		}
	}

	// ------------------------------------------------------------------ large files

	private async confirmLargeFile(workspace: DeploymentWorkspace, agentId: string, path: string, size: number): Promise<void> {
		const uri = workspace.uriFor(agentId, path);
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
			workspace.cache.approveLargeFile(agentId, path);
			await vscode.commands.executeCommand('vscode.open', uri);
		}
	}
}
