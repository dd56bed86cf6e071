/**
 * The commands of the agent workspace: "Open Agent Workspace", "Search Workspace…" and "Go to File
 * in Agent Workspace…" (the integration tests' seams are in src/testing.ts). Each finds its agent
 * (the argument, the window's agent workspace, or a pick) and hands over to the workspace feature
 * (`src/workspace/`), which owns the `cloud-agent:` file system and the flows. Loaded on first use
 * with the other commands (src/shell/featureEntry.ts): the first command, or the first call of
 * VS Code to the `cloud-agent:` file system (src/workspace/fs/lazyProvider.ts), creates them.
 */
import * as vscode from 'vscode';
import type { Agent } from '../api';
import { agentIdOf } from './fs/workspaceFs';
import { Disposable } from '../util/lifecycle';
import { type UnauthorizedHandler, showApiError } from '../messages/errors';
import { goToWorkspaceFile, openWalkedFile } from './goToFile';
import { type OpenWorkspaceMode, openAgentWorkspace } from './openWorkspace';
import { restoreAgentWindowFolder } from './agentWindow';
import { searchAgentWorkspace } from './searchWorkspace';
import { WorkspaceFeature, type WorkspaceFeatureDeps } from './workspaceFeature';
import type { CommandLogger, FlowCommand } from '../views/registry';
import { isAutomation, pickItem, pickWhenLoaded } from '../views/ui';

export type { WorkspaceRunEvent } from './workspaceFeature';

/** What the workspace feature and its commands need from the rest of the extension. */
export interface WorkspaceFsDeps extends WorkspaceFeatureDeps {
	log: CommandLogger & WorkspaceFeatureDeps['log'];
	/** The session's single "sign in again" prompt for 401s. */
	onUnauthorized?: UnauthorizedHandler;
	/** Where the workspace files of agent windows are written (the extension's global storage): "Open in New Window" names the window after the agent. */
	storageUri?: vscode.Uri;
}

/** Argument of `cloudAgents.agents.openWorkspace`: an agent tree node, or an id for automation. */
export type OpenWorkspaceArg =
	{ agent?: Pick<Agent, 'id' | 'name'> } | { agentId: string; name?: string; mode?: OpenWorkspaceMode } | undefined;

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

/** How long a title waits for the agent's name before it shows the id. */
const NAME_TIMEOUT_MS = 5_000;

/** Creates the workspace feature and says its commands (`commands`); dispose the result to undo it. */
export function registerWorkspace(deps: WorkspaceFsDeps): WorkspaceCommands {
	return new WorkspaceCommands(deps);
}

/** The workspace feature (the `cloud-agent:` file system) and its commands. */
export class WorkspaceCommands extends Disposable {
	/** The file system, its cache and the interface check. */
	readonly feature: WorkspaceFeature;

	constructor(private readonly deps: WorkspaceFsDeps) {
		super();
		this.feature = this.register(
			new WorkspaceFeature({
				...deps,
				searchActions: {
					goToFile: () => this.goToFile().catch((err: unknown) => showApiError(err, deps.log, undefined, deps.onUnauthorized)),
					search: () => this.search().catch((err: unknown) => showApiError(err, deps.log, undefined, deps.onUnauthorized)),
				},
			}),
		);
		// A window of an agent that VS Code opened without its folder gets it back.
		const storage = deps.storageUri;
		if (storage) {
			restoreAgentWindowFolder(storage, deps.log).catch((err: unknown) =>
				deps.log.warn(`Putting the agent's folder back into its window failed: ${String(err)}`),
			);
		}
	}

	/** The workspace's commands, for `registerFlows` (src/shell/features.ts). */
	readonly commands: readonly FlowCommand[] = [
		{ id: 'cloudAgents.agents.openWorkspace', run: (arg?: OpenWorkspaceArg) => this.openWorkspace(arg) },
		{ id: 'cloudAgents.workspace.search', run: (arg?: SearchWorkspaceArg) => this.search(arg) },
		// An automation caller (the marker: src/views/automation.ts) gets its failure back.
		{ id: 'cloudAgents.workspace.goToFile', run: (arg?: GoToFileArg) => this.goToFile(arg), rethrow: isAutomation },
	];

	private async openWorkspace(arg: OpenWorkspaceArg): Promise<void> {
		let agentId: string | undefined;
		let name: string | undefined;
		let mode: OpenWorkspaceMode | undefined;
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
		await openAgentWorkspace(this.feature, agentId, name ?? (await this.agentName(agentId)), mode, this.deps.storageUri);
	}

	private async search(arg: SearchWorkspaceArg = {}): Promise<vscode.Uri | undefined> {
		let agentId = arg.agentId ?? this.feature.contextAgentId();
		let name: string | undefined;
		if (agentId === undefined) {
			const agent = await this.pickAgent(vscode.l10n.t('Search the workspace of which agent?'));
			if (!agent) {
				return undefined;
			}
			agentId = agent.id;
			name = agent.name;
		}
		// The box and the pick are titled with the agent's name; automation that gives both shows neither.
		if (arg.query === undefined || arg.pick === undefined) {
			name ??= await this.agentName(agentId);
		}
		return searchAgentWorkspace(this.feature, agentId, { query: arg.query, pick: arg.pick, name });
	}

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
		agentId ??= this.feature.contextAgentId();
		if (agentId === undefined) {
			const agent = await this.pickAgent(vscode.l10n.t('Go to a file in the workspace of which agent?'));
			if (!agent) {
				return undefined;
			}
			agentId = agent.id;
			name = agent.name;
		}
		if (path !== undefined) {
			return openWalkedFile(this.feature, agentId, path);
		}
		name ??= await this.agentName(agentId);
		return goToWorkspaceFile(this.feature, agentId, name);
	}

	/**
	 * The agent's name, for titles: the window's folder's name when it names the agent (a folder
	 * opened on its own is named after its URI: "/" or the authority), else the service's (5 s at
	 * most), else the id.
	 */
	private async agentName(agentId: string): Promise<string> {
		const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => agentIdOf(f.uri) === agentId);
		if (folder && folder.name !== '/' && folder.name !== '' && folder.name.toLowerCase() !== folder.uri.authority.toLowerCase()) {
			return folder.name;
		}
		try {
			const agent = await this.deps.session.client.getAgent(agentId, { signal: AbortSignal.timeout(NAME_TIMEOUT_MS) });
			if (agent.name) {
				return agent.name;
			}
		} catch (err) {
			this.deps.log.warn(`Reading the name of agent ${agentId} failed: ${String(err)}`);
		}
		return agentId;
	}

	/** Asks for an agent in a pick that fills as the agents load. */
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
}
