/**
 * What an agent changed, in Source Control (issue 21): "Compare with Local Folder…" links an
 * agent's workspace folder to a local folder; each link is a source control (src/changes/linkSource.ts)
 * whose files open as diffs (local ↔ agent) and can be applied to the local folder (a WorkspaceEdit:
 * Undo works, open editors follow) or sent to the agent (refused when the agent's copy changed since
 * it was listed). Links refresh when a followed run of their agent ends or names a changed file, when
 * one of the agent's files is saved through `cloud-agent:`, and on demand. Nothing is written locally
 * without the user's action, and every local write is checked to stay inside the linked folder.
 *
 * The commands are actions of the one registry (src/changes/changesActions.ts, registered by
 * src/views/actionRegistry.ts): this file keeps the links and tells the registry's resolver what a
 * source control, group, resource state or `{link}` stands for (`targets`).
 *
 * A link remembers its agent's deployment (issue 47): it compares, applies and sends through that
 * deployment's session and `cloud-agent:` addresses, its label names the deployment when two or more
 * are configured, and a link whose deployment was removed says so instead of comparing.
 */
import * as vscode from 'vscode';
import type { Agent, CloudAgentsClient } from '../api';
import { eventFileChange, eventStatus, isTerminalRunStatus } from '../api';
import { DEFAULT_COMPARE_LIMITS } from '../compare/engine';
import type { LocalFiles } from '../compare/localFiles';
import { workspaceAddressOf } from '../workspace/fs/workspaceFs';
import { CONFIG, FS_SCHEME } from '../ids';
import type { Deployment } from '../auth/deployments';
import { Disposable } from '../util/lifecycle';
import type { ResourceActions, ScmTargets } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { changesActions, type ChangeFile, type ChangesHost, type LinkSpec } from './changesActions';
import { type AgentLink, LinkStore, sameLink } from './linkStore';
import { LinkSource, SCM_ID } from './linkSource';
import type { LinkSourceDeps } from './linkSource';
import type { PromptFlow } from './continueInCloud';

export type { ComparisonAnswer } from './changesActions';

/** A session as the links use it. */
export interface LinkSession {
	readonly client: CloudAgentsClient;
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
}

/** The configured deployments (src/auth/deploymentSessions.ts), as the links use them. */
export interface LinkDeployments {
	/** Every configured deployment with its session, the default one first. */
	readonly all: readonly { readonly deployment: Deployment; readonly session: LinkSession }[];
	/** Fires when a deployment is added or removed, and when a session's sign-in state changes. */
	readonly onDidChange: vscode.Event<void>;
}

/** What the feature needs from the extension. */
export interface ChangesDeps {
	/** The default deployment's session. */
	session: LinkSession;
	/** Every configured deployment (issue 47); absent: the default deployment only. */
	deployments?: LinkDeployments;
	/** The deployment a command's argument belongs to (a row of another deployment's list, automation's `deployment`); undefined: the default one. */
	deploymentOf?(this: void, arg: unknown): Deployment | undefined;
	log: vscode.LogOutputChannel;
	context: vscode.ExtensionContext;
	/** The Agents list (src/resources/agents.ts), handed by the shell: Compare with Local Folder acts on its records. */
	agents: ListDescriptor<Agent, { agent: Agent }, unknown>;
	/** Events of followed runs (RunFollower.onDidReceiveEvent). */
	runEvents: vscode.Event<{ agentId: string; runId: string; event: Parameters<typeof eventFileChange>[0] }>;
	/** Tells the `cloud-agent:` file system (of the deployment whose addresses carry `deploymentPart`) that the agent's copy of a file changed (a send). */
	agentFileChanged(this: void, agentId: string, path: string, change: 'created' | 'modified' | 'deleted', deploymentPart?: string): void;
	/** The views' shared connectivity: a comparison that found the service out of reach runs again when it answers. */
	connectivity?: LinkSourceDeps['connectivity'];
	/** A local folder as this extension host reaches it (the platform's: src/platform/types.ts); undefined: it cannot. */
	localFiles(this: void, root: vscode.Uri): LocalFiles | undefined;
	/** Send Prompt's flow (the runs resource's, handed by the shell): Continue in Cloud uses its steps. */
	prompts: PromptFlow;
}

/** The links, their source controls and decorations; the commands are `actions`, for the registry. */
export class ChangesFeature extends Disposable implements ChangesHost {
	private readonly store: LinkStore;
	private readonly sources = new Map<string, LinkSource>();
	/** Where each link stood when last looked at (stateOf), by link id: what changed is acted on. */
	private readonly states = new Map<string, string>();
	private readonly _onDidChangeFileDecorations = this.register(new vscode.EventEmitter<vscode.Uri[]>());

	/** What the registry's resolver asks about Source Control arguments (src/views/targets.ts). */
	readonly targets: ScmTargets<LinkSource, ChangeFile> = {
		links: () => [...this.sources.values()],
		linkById: (id) => this.sources.get(id),
		linkOfControl: (arg) => [...this.sources.values()].find((s) => s.scm === arg || s.agentGroup === arg || s.otherGroup === arg),
		filesOfUri: (uri, link) =>
			(link ? [link] : [...this.sources.values()]).flatMap((source) => {
				const d = source.differenceOf(uri);
				return d ? [{ source, d }] : [];
			}),
		filesOf: (source, paths) => {
			const all = source.all();
			if (paths === undefined) {
				return all.map((d) => ({ source, d }));
			}
			const byPath = new Map(all.map((d) => [d.path, d]));
			return paths.flatMap((p) => {
				const d = byPath.get(p);
				return d ? [{ source, d }] : [];
			});
		},
		linkOfFile: (file) => file.source,
		keyOf: (file) => `${file.source.link.id}\n${file.d.path}`,
		pickText: (source) => ({ label: source.label(), description: source.localRoot.fsPath }),
		noLinks: () => vscode.l10n.t('No agent is linked to a local folder. Use "Compare with Local Folder…" on an agent.'),
	};

	/** The Source Control commands, registered by the action registry. */
	readonly actions: ResourceActions;

	constructor(private readonly deps: ChangesDeps) {
		super();
		this.store = this.register(
			new LinkStore(
				deps.context.globalState,
				vscode.Uri.joinPath(deps.context.globalStorageUri, 'links'),
				DEFAULT_COMPARE_LIMITS.maxFiles,
			),
		);
		this.actions = changesActions(this, deps.agents);
		this.register(
			vscode.window.registerFileDecorationProvider({
				onDidChangeFileDecorations: this._onDidChangeFileDecorations.event,
				provideFileDecoration: (uri) => {
					for (const s of this.sources.values()) {
						const d = s.decorationOf(uri);
						if (d) {
							return d;
						}
					}
					return undefined;
				},
			}),
		);
		// Links kept from an earlier window compare again once signed in (the groups are not stored);
		// one of a removed deployment says so.
		for (const link of this.store.all()) {
			const source = this.open(link);
			const place = this.placeOf(link);
			if ('removed' in place || place.session.signedIn) {
				source.refreshSoon(1_000);
			}
		}
		this.refreshWhenSignedIn();
		this.register(deps.runEvents((e) => this.onRunEvent(e.agentId, e.event)));
		this.register(vscode.workspace.onDidSaveTextDocument((doc) => this.onSaved(doc.uri)));
		this.register({ dispose: () => [...this.sources.values()].forEach((s) => s.dispose()) });
	}

	get prompts(): PromptFlow {
		return this.deps.prompts;
	}

	get log(): vscode.LogOutputChannel {
		return this.deps.log;
	}

	deploymentOf(arg: unknown): Deployment | undefined {
		return this.deps.deploymentOf?.(arg);
	}

	agentFileChanged(agentId: string, path: string, change: 'created' | 'modified' | 'deleted', deploymentPart?: string): void {
		this.deps.agentFileChanged(agentId, path, change, deploymentPart);
	}

	localFiles(root: vscode.Uri): LocalFiles | undefined {
		return this.deps.localFiles(root);
	}

	async link(spec: LinkSpec): Promise<{ source: LinkSource; existed: boolean }> {
		const existed = this.store.all().some((l) => sameLink(l, spec));
		const link = await this.store.add(spec);
		return { source: this.open(link), existed };
	}

	async unlink(source: LinkSource): Promise<void> {
		this.sources.delete(source.link.id);
		this.states.delete(source.link.id);
		source.dispose();
		await this.store.remove(source.link.id);
	}

	private open(link: AgentLink): LinkSource {
		this.sources.get(link.id)?.dispose();
		const source = new LinkSource(link, {
			client: () => {
				const place = this.placeOf(link);
				if ('removed' in place) {
					throw new Error(place.removed);
				}
				return place.session.client;
			},
			unavailable: () => {
				const place = this.placeOf(link);
				return 'removed' in place ? place.removed : undefined;
			},
			deploymentName: () => {
				if ((this.deps.deployments?.all.length ?? 1) < 2) {
					return undefined;
				}
				const place = this.placeOf(link);
				return 'removed' in place ? link.deployment : place.deployment?.name;
			},
			localFiles: this.deps.localFiles(vscode.Uri.parse(link.localFolder, true)),
			store: this.store,
			log: this.deps.log,
			decorationsChanged: (uris) => this._onDidChangeFileDecorations.fire(uris),
			exclude: (folder) => excludeGlobs(folder),
			agentFileChanged: this.deps.agentFileChanged,
			connectivity: this.deps.connectivity,
		});
		this.sources.set(link.id, source);
		this.states.set(link.id, this.stateOf(link));
		return source;
	}

	/** Where a link stands: its deployment signed in (`true`), signed out (`false`), or `removed`. */
	private stateOf(link: AgentLink): string {
		const place = this.placeOf(link);
		return 'removed' in place ? 'removed' : String(place.session.signedIn);
	}

	/**
	 * The session a link compares through: the default deployment's, or that of the deployment it
	 * names; `removed` (the sentence that says so) when that deployment is no longer configured.
	 */
	private placeOf(link: AgentLink): { session: LinkSession; deployment?: Deployment } | { removed: string } {
		if (link.deployment === undefined) {
			return { session: this.deps.session, deployment: this.deps.deployments?.all.find((d) => d.deployment.isDefault)?.deployment };
		}
		const found = this.deps.deployments?.all.find((d) => !d.deployment.isDefault && d.deployment.id === link.deployment);
		return (
			found ?? {
				removed: vscode.l10n.t(
					"This link's agent belongs to the deployment {0}, which is no longer configured. Add it to the setting {1} again, or unlink the folder.",
					link.deployment,
					`${CONFIG.section}.${CONFIG.deployments}`,
				),
			}
		);
	}

	/**
	 * Signing in (again) to a link's deployment compares it soon; a link whose deployment was removed
	 * says so; a label out of date (a second deployment configured, or the last other one removed)
	 * makes its source control again (VS Code's label cannot change).
	 */
	private refreshWhenSignedIn(): void {
		const look = (): void => {
			for (const source of [...this.sources.values()]) {
				const { link } = source;
				const state = this.stateOf(link);
				const was = this.states.get(link.id);
				this.states.set(link.id, state);
				const again = source.label() !== source.shownLabel ? this.open(link) : source;
				// Signed in anew, removed anew, or made again (nothing compared yet): compared soon, unless signed out.
				if (state !== 'false' && (state !== was || again !== source)) {
					again.refreshSoon(1_000);
				}
			}
		};
		this.register(this.deps.session.onDidChange(look));
		if (this.deps.deployments) {
			this.register(this.deps.deployments.onDidChange(look));
		}
	}

	/**
	 * A save in VS Code: an agent's file (through `cloud-agent:`) refreshes its links soon; a local
	 * file of a link is checked again (Undo after Apply, then save: the file rejoins the list).
	 */
	private onSaved(uri: vscode.Uri): void {
		if (uri.scheme !== FS_SCHEME) {
			for (const s of this.sources.values()) {
				s.localFileChanged(uri);
			}
			return;
		}
		const address = workspaceAddressOf(uri);
		for (const s of this.sources.values()) {
			if (
				address !== undefined &&
				s.link.agentId === address.agentId &&
				s.link.deployment === address.deploymentPart?.toLowerCase() &&
				isBelow(uri.path, s.link.agentFolder)
			) {
				s.refreshSoon(500);
			}
		}
	}

	private onRunEvent(agentId: string, event: Parameters<typeof eventFileChange>[0]): void {
		const change = eventFileChange(event);
		const status = eventStatus(event);
		const ended = (status !== undefined && isTerminalRunStatus(status)) || event.type === 'run.completed';
		if (!change && !ended) {
			return;
		}
		// The run follower follows the default deployment's runs: their events are of its agents only.
		for (const s of this.sources.values()) {
			if (
				s.link.deployment === undefined &&
				s.link.agentId === agentId &&
				(ended || (change && isBelow(change.path, s.link.agentFolder)))
			) {
				// A file event is a hint to look sooner; the comparison decides what changed.
				s.refreshSoon(ended ? 300 : 2_000);
			}
		}
	}
}

function isBelow(path: string, folder: string): boolean {
	const p = path.replace(/^\/+/, '');
	return folder === '' || p === folder || p.startsWith(`${folder}/`);
}

/** `files.exclude` globs set to true for a folder. */
function excludeGlobs(folder: vscode.Uri): string[] {
	const exclude = vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude') ?? {};
	return Object.entries(exclude)
		.filter(([, v]) => v === true)
		.map(([k]) => k)
		.slice(0, 500);
}

export { SCM_ID };
