/**
 * The agent workspace in VS Code: registers the `cloud-agent:` file system, the "Open Agent
 * Workspace", "Search Workspace…" and "Go to File in Agent Workspace…" commands, the large-file
 * confirmation, the save warning while a run of the agent is active, and cache invalidation from
 * followed runs' `file.changed` events.
 */
import * as vscode from 'vscode';
import type { Agent, CloudAgentsClient, EventRecord, WorkspaceSearchMatch } from '../api';
import { LIMITS, eventFileChange, eventStatus, isTerminalRunStatus, utf8Length } from '../api';
import { agentIdOf, workspaceUri, WorkspaceFileSystemProvider } from '../fs/workspaceFs';
import { type InterfaceDiffers, WALK_LIMITS, WorkspaceCache } from '../fs/workspaceCache';
import { baseName, normalizeWorkspacePath, parentPath } from '../fs/paths';
import { FS_SCHEME } from '../ids';
import { Disposable } from '../util/lifecycle';
import type { UnauthorizedHandler } from '../util/errors';
import { type CommandLogger, registerCommand } from './registry';
import { pickItem, pickWhenLoaded, showInfo, showWarning } from './support';
import { notificationText, singleLine } from '../util/text';

/** One event of a followed run (what `RunFollower.onDidReceiveEvent` fires). */
export interface WorkspaceRunEvent {
	agentId: string;
	runId: string;
	event: EventRecord;
}

/** What the workspace feature needs from the rest of the extension. */
export interface WorkspaceFsDeps {
	/** The shared connection (`Session`): its client, and an event when URL or token change. */
	session: { readonly client: CloudAgentsClient; readonly onDidChange: vscode.Event<void> };
	log: CommandLogger & { warn(message: string, ...args: unknown[]): void };
	/** Events of followed runs (`RunFollower.onDidReceiveEvent`). */
	runEvents?: vscode.Event<WorkspaceRunEvent>;
	/** The session's single "sign in again" prompt for 401s. */
	onUnauthorized?: UnauthorizedHandler;
}

/** Argument of `cloudAgents.agents.openWorkspace`: an agent tree node, or an id for automation. */
export type OpenWorkspaceArg = { agent?: Pick<Agent, 'id' | 'name'> } | { agentId: string; name?: string; mode?: 'add' | 'newWindow' } | undefined;

/** Argument of `cloudAgents.workspace.search` for automation: `pick` opens that match without UI. */
export interface SearchWorkspaceArg {
	agentId?: string;
	query?: string;
	pick?: number;
}

/**
 * Argument of `cloudAgents.workspace.goToFile`: an agent tree node, a `cloud-agent:` URI (Explorer
 * context menu), or `{agentId, path?}` for automation. With `path` the file is opened without UI
 * once the walk found it, and the command returns every walked path.
 */
export type GoToFileArg = { agent?: Pick<Agent, 'id' | 'name'> } | { agentId: string; path?: string } | vscode.Uri | undefined;

/** True for the automation form `{agentId, …}` of a command argument (its failures go back to the caller). */
function isAutomationArg(arg: unknown): boolean {
	return arg !== null && typeof arg === 'object' && !(arg instanceof vscode.Uri) && typeof (arg as { agentId?: unknown }).agentId === 'string';
}

/** One file in the "Go to File" pick. */
interface FileItem extends vscode.QuickPickItem {
	uri: vscode.Uri;
}

/** How often the "Go to File" pick takes in the files listed so far while the walk runs. */
const PICK_REFRESH_MS = 150;

/** A search match from the server with a usable path and position, or undefined. */
function usableMatch(m: WorkspaceSearchMatch): { path: string; line: number; column: number; preview: string } | undefined {
	if (m === null || typeof m !== 'object' || typeof m.path !== 'string') {
		return undefined;
	}
	let path: string;
	try {
		path = normalizeWorkspacePath(m.path);
	} catch {
		return undefined;
	}
	const position = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : 1);
	return { path, line: position(m.line), column: position(m.column), preview: typeof m.preview === 'string' ? m.preview : '' };
}

function largeFileBytes(): number {
	const mb = vscode.workspace.getConfiguration('cloudAgents.workspace').get<number>('largeFileWarningMb', 16);
	return Math.max(1, mb) * 1024 * 1024;
}

/** Registers everything of the agent-workspace feature; dispose the result to undo it. */
export function registerWorkspaceFs(deps: WorkspaceFsDeps): vscode.Disposable {
	return new WorkspaceFeature(deps);
}

class WorkspaceFeature extends Disposable {
	readonly cache: WorkspaceCache;
	private readonly provider: WorkspaceFileSystemProvider;
	/** Runs seen active per agent (from followed runs' events). */
	private readonly activeRuns = new Map<string, Set<string>>();
	/** `runId\nuri` pairs already warned about. */
	private readonly warned = new Set<string>();
	/** Large files the user was asked about recently (uri → time). */
	private readonly asked = new Map<string, number>();
	/** The "interface differs" messages shown in this window (internal command, for the tests). */
	private readonly interfaceNotices: string[] = [];

	constructor(private readonly deps: WorkspaceFsDeps) {
		super();
		this.cache = new WorkspaceCache(() => deps.session.client, { largeFileBytes, log: deps.log });
		this.provider = this.register(new WorkspaceFileSystemProvider(this.cache));
		this.register(vscode.workspace.registerFileSystemProvider(FS_SCHEME, this.provider, { isCaseSensitive: true }));
		this.register(deps.session.onDidChange(() => this.cache.clear()));
		this.register(this.cache.onDidRefuseLargeFile((r) => void this.confirmLargeFile(r.agentId, r.path, r.size)));
		this.register(this.cache.onDidDetectInterfaceDiffers((e) => void this.reportInterfaceDiffers(e)));
		if (deps.runEvents) {
			this.register(deps.runEvents((e) => this.onRunEvent(e)));
		}
		this.register(vscode.workspace.onWillSaveTextDocument((e) => this.warnIfAgentBusy(e.document)));
		this.register(registerCommand('cloudAgents.agents.openWorkspace', (arg?: OpenWorkspaceArg) => this.openWorkspace(arg), deps.log, { onUnauthorized: deps.onUnauthorized }));
		// Internal (not contributed): lets the integration tests start from an empty cache.
		this.register(vscode.commands.registerCommand('_cloudAgents.workspace.clearCache', () => this.cache.clear()));
		// Internal: the "interface differs" messages shown so far (tests), and a retry of one agent (or all).
		this.register(vscode.commands.registerCommand('_cloudAgents.workspace.interfaceNotices', () => this.interfaceNotices.slice()));
		this.register(vscode.commands.registerCommand('_cloudAgents.workspace.retry', (agentId?: string) => this.retryInterface(agentId)));
		this.register(registerCommand('cloudAgents.workspace.search', (arg?: SearchWorkspaceArg) => this.search(arg), deps.log, { onUnauthorized: deps.onUnauthorized }));
		this.register(registerCommand('cloudAgents.workspace.goToFile', (arg?: GoToFileArg) => this.goToFile(arg), deps.log, { rethrow: isAutomationArg, onUnauthorized: deps.onUnauthorized }));
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
		void showWarning(vscode.l10n.t('The agent is running ({0}) and may be editing {1} too. Your save went ahead; if the agent changes the file, VS Code will ask you to compare.', runId, document.uri.path.slice(1)));
	}

	// ------------------------------------------------------------------ interface differs

	/**
	 * One error notification per agent when the server rejected or misread our workspace operation
	 * (the folder's root shows the same message); "Retry" lets the next listing ask again.
	 */
	private async reportInterfaceDiffers({ agentId, error }: InterfaceDiffers): Promise<void> {
		const message = vscode.l10n.t('Agent workspace {0}: {1} (request {2}). Its files are not asked for again until you retry.', agentId, error.message, error.requestId ?? vscode.l10n.t('unknown'));
		this.interfaceNotices.push(message);
		this.deps.log.warn(message);
		const retry = vscode.l10n.t('Retry');
		const answer = await vscode.window.showErrorMessage(notificationText(message), retry);
		if (answer === retry) {
			this.retryInterface(agentId);
		}
	}

	/** Lets an agent's (or every agent's) workspace operations reach the server again and refreshes its folder. */
	private retryInterface(agentId?: string): void {
		const ids = agentId !== undefined ? [agentId] : (vscode.workspace.workspaceFolders ?? []).map((f) => agentIdOf(f.uri)).filter((id) => id !== undefined);
		for (const id of ids) {
			if (this.cache.retryInterface(id)) {
				// A change of the root makes the Explorer list it again.
				this.cache.invalidate(id, '');
			}
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
			vscode.l10n.t('{0} is {1} MB. Opening it downloads the whole file from the agent workspace.', notificationText(path), (size / (1024 * 1024)).toFixed(1)),
			{ modal: true, detail: vscode.l10n.t('The limit is set by cloudAgents.workspace.largeFileWarningMb.') },
			open,
		);
		if (answer === open) {
			this.cache.approveLargeFile(agentId, path);
			await vscode.commands.executeCommand('vscode.open', uri);
		}
	}

	// ------------------------------------------------------------------ open workspace

	private async openWorkspace(arg: OpenWorkspaceArg): Promise<void> {
		let agentId: string | undefined;
		let name: string | undefined;
		let mode: 'add' | 'newWindow' | undefined;
		if (arg && 'agent' in arg && arg.agent) {
			agentId = arg.agent.id;
			name = arg.agent.name;
		} else if (arg && 'agentId' in arg) {
			agentId = arg.agentId;
			name = arg.name;
			mode = arg.mode;
		}
		if (agentId === undefined) {
			const agent = await this.pickAgent(vscode.l10n.t('Open the workspace of which agent?'));
			if (!agent) {
				return;
			}
			agentId = agent.id;
			name = agent.name;
		}
		name ??= agentId;
		const uri = workspaceUri(agentId);
		const folders = vscode.workspace.workspaceFolders ?? [];
		// Opening again is a retry of a workspace whose interface differed.
		this.retryInterface(agentId);
		if (folders.some((f) => agentIdOf(f.uri) === agentId && f.uri.path.replace(/\/+$/, '') === '')) {
			await vscode.commands.executeCommand('workbench.view.explorer');
			return;
		}
		if (mode === undefined) {
			const add = vscode.l10n.t('Add to Workspace');
			const newWindow = vscode.l10n.t('Open in New Window');
			const answer = await vscode.window.showInformationMessage(notificationText(vscode.l10n.t('Open the workspace of "{0}"', singleLine(name))), { modal: true }, add, newWindow);
			mode = answer === add ? 'add' : answer === newWindow ? 'newWindow' : undefined;
		}
		if (mode === 'add') {
			const ok = vscode.workspace.updateWorkspaceFolders(folders.length, 0, { uri, name: vscode.l10n.t('Agent: {0}', singleLine(name)) });
			if (!ok) {
				throw new Error(vscode.l10n.t('VS Code refused to add the workspace folder of "{0}".', name));
			}
			await vscode.commands.executeCommand('workbench.view.explorer');
		} else if (mode === 'newWindow') {
			await vscode.commands.executeCommand('vscode.openFolder', uri, { forceNewWindow: true });
		}
	}

	private async pickAgent(placeHolder: string): Promise<Pick<Agent, 'id' | 'name'> | undefined> {
		const client = this.deps.session.client;
		const items = (async (): Promise<Array<vscode.QuickPickItem & { agent: Agent }>> => {
			const out: Array<vscode.QuickPickItem & { agent: Agent }> = [];
			for await (const agent of client.iterateAgents({ limit: 100 })) {
				out.push(pickItem({ label: agent.name, description: agent.status, detail: agent.id }, { agent }));
			}
			return out;
		})();
		const picked = await pickWhenLoaded(items, { placeHolder, matchOnDetail: true });
		return picked?.agent;
	}

	/**
	 * The agent the window points at: the one of the active `cloud-agent:` editor, else the only
	 * agent workspace folder of the window. Undefined when that is not clear.
	 */
	private contextAgentId(): string | undefined {
		const active = vscode.window.activeTextEditor?.document.uri;
		if (active?.scheme === FS_SCHEME) {
			return agentIdOf(active);
		}
		const open = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === FS_SCHEME);
		return open.length === 1 && open[0] ? agentIdOf(open[0].uri) : undefined;
	}

	// ------------------------------------------------------------------ search

	private async search(arg: SearchWorkspaceArg = {}): Promise<vscode.Uri | undefined> {
		const agentId = arg.agentId ?? this.contextAgentId() ?? (await this.pickAgent(vscode.l10n.t('Search the workspace of which agent?')))?.id;
		if (agentId === undefined) {
			return undefined;
		}
		const query = arg.query ?? (await vscode.window.showInputBox({
			prompt: vscode.l10n.t('Search the agent workspace'),
			placeHolder: vscode.l10n.t('Text to find (at most {0} bytes)', LIMITS.searchQueryBytes.max),
			validateInput: (value) => {
				const bytes = utf8Length(value);
				return bytes > LIMITS.searchQueryBytes.max ? vscode.l10n.t('At most {0} bytes (this is {1}).', LIMITS.searchQueryBytes.max, bytes) : undefined;
			},
		}));
		if (!query) {
			return undefined;
		}
		// A server whose workspace interface differs is not asked again (until a retry).
		const stopped = this.cache.interfaceError(agentId);
		if (stopped) {
			throw stopped;
		}
		// The client validates the query (1 to 256 bytes) before sending anything.
		const result = await this.deps.session.client.searchWorkspace(agentId, query);
		// At most the documented maximum of matches is shown; unusable paths and positions are dropped.
		const usable = (Array.isArray(result.matches) ? result.matches : []).slice(0, LIMITS.searchMaxResults.max).map(usableMatch).filter((m) => m !== undefined);
		const truncated = result.truncated || (Array.isArray(result.matches) && result.matches.length > LIMITS.searchMaxResults.max);
		const matches = usable.map((m, index) => pickItem({
			label: `${m.path}:${m.line}`,
			description: vscode.l10n.t('column {0}', m.column),
			detail: m.preview.trim(),
		}, { index, match: m }));
		let chosen: (typeof matches)[number] | undefined;
		if (arg.pick !== undefined) {
			chosen = matches[arg.pick];
			if (!chosen) {
				throw new Error(vscode.l10n.t('There is no match number {0} for "{1}" ({2} found).', arg.pick, query, matches.length));
			}
		} else {
			if (matches.length === 0) {
				void showInfo(vscode.l10n.t('No matches for "{0}" in the agent workspace.', query));
				return undefined;
			}
			chosen = await vscode.window.showQuickPick(matches, {
				placeHolder: truncated ? vscode.l10n.t('{0} matches (truncated: more exist, refine the query)', matches.length) : vscode.l10n.t('{0} matches', matches.length),
				matchOnDetail: true,
			});
		}
		if (!chosen) {
			return undefined;
		}
		const { match } = chosen;
		const uri = this.provider.uriFor(agentId, match.path);
		const line = Math.max(0, match.line - 1);
		const column = Math.max(0, match.column - 1);
		const selection = new vscode.Range(line, column, line, column + query.length);
		await vscode.window.showTextDocument(uri, { selection, preview: true });
		return uri;
	}

	// ------------------------------------------------------------------ go to file

	/**
	 * The closest a published extension gets to Quick Open for `cloud-agent:` (file search for
	 * extension file systems is a proposed API): a pick filled by a bounded, cancellable
	 * breadth-first walk of the workspace through the cache.
	 */
	private async goToFile(arg?: GoToFileArg): Promise<string[] | vscode.Uri | undefined> {
		let agentId: string | undefined;
		let name: string | undefined;
		let path: string | undefined;
		if (arg instanceof vscode.Uri) {
			agentId = agentIdOf(arg);
		} else if (arg && 'agent' in arg && arg.agent) {
			agentId = arg.agent.id;
			name = arg.agent.name;
		} else if (arg && 'agentId' in arg) {
			agentId = arg.agentId;
			path = arg.path;
		}
		agentId ??= this.contextAgentId();
		if (agentId === undefined) {
			const agent = await this.pickAgent(vscode.l10n.t('Go to a file in the workspace of which agent?'));
			if (!agent) {
				return undefined;
			}
			agentId = agent.id;
			name = agent.name;
		}
		if (path !== undefined) {
			return this.openWalkedFile(agentId, path);
		}
		name ??= (vscode.workspace.workspaceFolders ?? []).find((f) => agentIdOf(f.uri) === agentId)?.name ?? agentId;
		const uri = await this.pickWorkspaceFile(agentId, name);
		if (uri) {
			await vscode.window.showTextDocument(uri, { preview: true });
		}
		return uri;
	}

	/** Automation: walks the workspace, opens `rawPath` if it is one of the files found, returns them all. */
	private async openWalkedFile(agentId: string, rawPath: string): Promise<string[]> {
		const path = normalizeWorkspacePath(rawPath);
		const { files, truncated } = await this.cache.walkFiles(agentId);
		if (!files.includes(path)) {
			throw new Error(truncated
				? vscode.l10n.t('"{0}" is not among the {1} files listed in the workspace of agent {2} (the listing stops at {3} files and folders and {4} folder levels).', path, files.length, agentId, WALK_LIMITS.maxEntries, WALK_LIMITS.maxDepth)
				: vscode.l10n.t('"{0}" is not a file in the workspace of agent {1} ({2} files listed).', path, agentId, files.length));
		}
		await vscode.window.showTextDocument(this.provider.uriFor(agentId, path), { preview: true });
		return files;
	}

	/** Shows the file pick while the walk fills it; resolves with the chosen file, undefined when dismissed. */
	private pickWorkspaceFile(agentId: string, name: string): Promise<vscode.Uri | undefined> {
		const pick = vscode.window.createQuickPick<FileItem>();
		pick.title = vscode.l10n.t('Go to File in {0}', name);
		pick.placeholder = vscode.l10n.t('Listing the files of the agent workspace…');
		pick.matchOnDescription = true;
		pick.keepScrollPosition = true;
		pick.busy = true;
		const controller = new AbortController();
		const items: FileItem[] = [];
		let timer: ReturnType<typeof setTimeout> | undefined;
		const refresh = (): void => {
			timer = undefined;
			pick.items = items.slice();
			pick.placeholder = vscode.l10n.t('Type to filter the {0} files listed so far (still listing…)', items.length);
		};
		return new Promise<vscode.Uri | undefined>((resolve, reject) => {
			let done = false;
			const finish = (settle: () => void): void => {
				if (done) {
					return;
				}
				done = true;
				controller.abort();
				if (timer !== undefined) {
					clearTimeout(timer);
				}
				pick.dispose();
				settle();
			};
			pick.onDidAccept(() => {
				const item = pick.selectedItems[0] ?? pick.activeItems[0];
				if (item) {
					finish(() => resolve(item.uri));
				}
			});
			pick.onDidHide(() => finish(() => resolve(undefined)));
			pick.show();
			this.cache.walkFiles(agentId, {
				signal: controller.signal,
				onFiles: (paths) => {
					for (const path of paths) {
						const folder = parentPath(path);
						items.push({ label: baseName(path), description: folder || undefined, uri: this.provider.uriFor(agentId, path) });
					}
					timer ??= setTimeout(refresh, PICK_REFRESH_MS);
				},
			}).then(({ truncated }) => {
				if (done) {
					return;
				}
				if (timer !== undefined) {
					clearTimeout(timer);
					timer = undefined;
				}
				pick.items = items;
				pick.busy = false;
				pick.placeholder = items.length === 0
					? vscode.l10n.t('The agent workspace has no files')
					: truncated
						? vscode.l10n.t('Type to filter the first {0} files (truncated: the listing stops at {1} files and folders and {2} folder levels)', items.length, WALK_LIMITS.maxEntries, WALK_LIMITS.maxDepth)
						: vscode.l10n.t('Type to filter {0} files', items.length);
			}, (err: unknown) => {
				finish(() => reject(err instanceof Error ? err : new Error(String(err))));
			});
		});
	}
}
