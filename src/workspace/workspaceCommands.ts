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
import { sameAddress, workspaceAddressOf } from './fs/workspaceFs';
import type { AgentWorkspaces } from './deploymentWorkspace';
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
	/**
	 * The deployment (its id) of a row of a view that belongs to a deployment other than the default
	 * one (the views list every signed-in deployment: src/views/deploymentViews.ts); undefined for
	 * the default deployment's rows and for anything that is not a row.
	 */
	rowDeployment?: (arg: unknown) => string | undefined;
}

/**
 * The deployment (its name or id) an agent of a command's argument belongs to, for automation;
 * absent for the default deployment's agents. A row of a view says none: its deployment is the
 * one whose list holds it (`rowDeployment`).
 */
interface InDeployment {
	deployment?: string;
}

/** Argument of `cloudAgents.agents.openWorkspace`: an agent tree node, or an id for automation. */
export type OpenWorkspaceArg =
	| ({ agent?: Pick<Agent, 'id' | 'name'> } & InDeployment)
	| ({ agentId: string; name?: string; mode?: OpenWorkspaceMode } & InDeployment)
	| undefined;

/** Argument of `cloudAgents.workspace.search` for automation: `pick` opens that match without UI. */
export interface SearchWorkspaceArg extends InDeployment {
	agentId?: string;
	query?: string;
	pick?: number;
}

/**
 * Argument of `cloudAgents.workspace.goToFile`: an agent tree node, a `cloud-agent:` URI (Explorer
 * context menu), or `{agentId, path?}` for automation. With `path` the file is opened without UI
 * once the walk found it, and the command returns every walked path.
 */
export type GoToFileArg =
	({ agent?: Pick<Agent, 'id' | 'name'> } & InDeployment) | ({ agentId: string; path?: string } & InDeployment) | vscode.Uri | undefined;

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

	/** The agent workspaces of the deployment named (by name or id): the default deployment's when none is named. */
	private workspaceFor(deployment: string | undefined): AgentWorkspaces {
		if (deployment === undefined) {
			return this.feature;
		}
		const found = this.feature.workspaceNamed(deployment);
		if (!found) {
			throw new Error(vscode.l10n.t('No deployment named "{0}" is configured.', deployment));
		}
		return found;
	}

	private async openWorkspace(arg: OpenWorkspaceArg): Promise<void> {
		let agentId: string | undefined;
		let name: string | undefined;
		let mode: OpenWorkspaceMode | undefined;
		const workspace = this.workspaceFor(arg?.deployment ?? this.deps.rowDeployment?.(arg));
		if (arg && 'agent' in arg && arg.agent) {
			agentId = arg.agent.id;
			name = arg.agent.name;
		} else if (arg && 'agentId' in arg) {
			agentId = arg.agentId;
			name = arg.name;
			mode = arg.mode;
		}
		if (agentId === undefined) {
			const agent = await this.pickAgent(workspace, vscode.l10n.t('Open the workspace of which agent?'));
			if (!agent) {
				return;
			}
			agentId = agent.id;
			name = agent.name;
		}
		await openAgentWorkspace(workspace, agentId, name ?? (await this.agentName(workspace, agentId)), mode, this.deps.storageUri);
	}

	private async search(arg: SearchWorkspaceArg = {}): Promise<vscode.Uri | undefined> {
		const context = arg.agentId === undefined && arg.deployment === undefined ? this.feature.contextAddress() : undefined;
		const workspace = context ? this.feature.workspaceOf(context.deploymentPart) : this.workspaceFor(arg.deployment);
		let agentId = arg.agentId ?? context?.agentId;
		let name: string | undefined;
		if (agentId === undefined) {
			const agent = await this.pickAgent(workspace, vscode.l10n.t('Search the workspace of which agent?'));
			if (!agent) {
				return undefined;
			}
			agentId = agent.id;
			name = agent.name;
		}
		// The box and the pick are titled with the agent's name; automation that gives both shows neither.
		if (arg.query === undefined || arg.pick === undefined) {
			name ??= await this.agentName(workspace, agentId);
		}
		return searchAgentWorkspace(workspace, agentId, { query: arg.query, pick: arg.pick, name });
	}

	private async goToFile(arg?: GoToFileArg): Promise<string[] | vscode.Uri | undefined> {
		let agentId: string | undefined;
		let name: string | undefined;
		let path: string | undefined;
		// The agent's address: the URI's, the argument's (its deployment named, else the default), or the window's.
		let address = arg instanceof vscode.Uri ? workspaceAddressOf(arg) : undefined;
		let workspace: AgentWorkspaces | undefined;
		if (arg && !(arg instanceof vscode.Uri)) {
			const deployment = arg.deployment ?? this.deps.rowDeployment?.(arg);
			workspace = deployment === undefined ? undefined : this.workspaceFor(deployment);
			if ('agent' in arg && arg.agent) {
				agentId = arg.agent.id;
				name = arg.agent.name;
				workspace ??= this.feature;
			} else if ('agentId' in arg) {
				agentId = arg.agentId;
				path = arg.path;
				workspace ??= this.feature;
			}
		}
		agentId ??= address?.agentId;
		if (agentId === undefined && workspace === undefined) {
			address = this.feature.contextAddress();
			agentId = address?.agentId;
		}
		workspace ??= this.feature.workspaceOf(address?.deploymentPart);
		if (agentId === undefined) {
			const agent = await this.pickAgent(workspace, vscode.l10n.t('Go to a file in the workspace of which agent?'));
			if (!agent) {
				return undefined;
			}
			agentId = agent.id;
			name = agent.name;
		}
		if (path !== undefined) {
			return openWalkedFile(workspace, agentId, path);
		}
		name ??= await this.agentName(workspace, agentId);
		return goToWorkspaceFile(workspace, agentId, name);
	}

	/**
	 * The agent's name, for titles: the window's folder's name when it names the agent (a folder
	 * opened on its own is named after its URI: "/" or the authority), else the service's (5 s at
	 * most), else the id.
	 */
	private async agentName(workspace: AgentWorkspaces, agentId: string): Promise<string> {
		const address = { agentId, deploymentPart: workspace.deploymentPart };
		const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => sameAddress(workspaceAddressOf(f.uri), address));
		if (folder && folder.name !== '/' && folder.name !== '' && folder.name.toLowerCase() !== folder.uri.authority.toLowerCase()) {
			return folder.name;
		}
		try {
			const agent = await workspace.client.getAgent(agentId, { signal: AbortSignal.timeout(NAME_TIMEOUT_MS) });
			if (agent.name) {
				return agent.name;
			}
		} catch (err) {
			this.deps.log.warn(`Reading the name of agent ${agentId} failed: ${String(err)}`);
		}
		return agentId;
	}

	/** Asks for an agent in a pick that fills as the agents load. */
	private async pickAgent(workspace: AgentWorkspaces, placeHolder: string): Promise<Pick<Agent, 'id' | 'name'> | undefined> {
		const client = workspace.client;
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
