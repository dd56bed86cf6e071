/**
 * The commands loaded on first use (dist/features.js; see src/shell/lazy.ts and esbuild.mjs):
 * every resource's actions and the lists' commands (through the action registry), the flows that
 * act on no single record, "Token Savings", the agent workspace (its `cloud-agent:` file system
 * and commands), and the computer and savings panels VS Code restores. Activation registers a
 * stand-in for each of their ids and for the file system; the first one invoked (or a panel VS Code
 * restores, or VS Code's first call to the file system) loads this.
 */
import { WEBVIEW_TYPES } from '../ids';
import type * as vscode from 'vscode';
import { LIST_DESCRIPTORS, resourceActions } from '../resources';
import { agentsList } from '../resources/agents';
import { runActions, runsList, sendComposedAndFollow } from '../resources/runs';
import { askPrompt, keepDraft, pickPromptAgent } from '../resources/prompt';
import { ActionRegistry } from '../views/actionRegistry';
import { inDeployment, scopeOf, showDeployments } from '../views/deploymentViews';
import { type ComputerDeps, computerPanelFeature } from '../resources/computer';
import { registerFeatureCommands } from './features';
import { ChangesFeature } from '../changes/changesFeature';
import type { LoadedFeatures } from './lazy';
import { savingsFeature } from '../flows/savings';
import type { Services } from '../views/actions';
import { registerWorkspace } from '../workspace/workspaceCommands';
import { ChatTools } from '../chat/chatTools';
import type { HandoverAnswer } from '../util/handover';
import type { Run } from '../api';
import { automation } from '../views/automation';
import { modelProviderDocuments } from '../resources/modelProviders';
import { DeploymentSessions } from '../auth/deploymentSessions';
import { shownDeploymentName } from '../auth/deployments';
import { forgetRecordsAtSignOut } from './deploymentRecords';
import { flagFollowedRuns, followPerDeployment } from './deploymentFollowers';
import type { Session } from '../auth/session';
import type { PerDeployment } from '../auth/perDeployment';
import { ChannelCloser } from '../util/outputChannels';
import type { RunEventNotice, RunFollower } from '../runFollowing';
import { addDeployment, signIn, signOut } from '../auth/signIn';
import { ReviewFeature } from '../review/reviewFeature';

/**
 * Node's local folders (the comparison's worker thread and file system): here, so that their code
 * loads with the features (the only code that compares) rather than at activation. src/extension.ts
 * hands them to nodePlatform.ts from here; the web build has none (esbuild.mjs `webRules`).
 */
export { NodeLocalFiles } from '../platform/node/nodeLocalFiles';

/**
 * Registers the features' commands; the caller owns the disposables. `defaultSession` is
 * `deps.session` as the Session it is, which the other deployments' sessions are made beside.
 */
export function loadFeatures(deps: Services, defaultSession: Session): LoadedFeatures {
	const deployments = deploymentSessions(deps, defaultSession);
	// What each other deployment has beside its session (issue 47): its rows, its records, its run follower.
	const { followers, disposables: ofDeployments } = deploymentParts(deps, deployments, {
		openResult: (arg) => actions.invokeShown(runActions.openResult, arg),
		runEventOf: (id, e) => workspace.feature.runEventOf(id, e),
	});
	const computer = computerPanelFeature({
		context: deps.context,
		log: deps.log,
		client: () => deps.session.client,
		session: deps.session,
		// A computer panel of another deployment that VS Code restores mints through that deployment's session.
		deploymentOf: (id) => computerDeployment(deployments, id),
		deployment: DEFAULT_COMPUTER_DEPLOYMENT,
	});
	const savings = savingsFeature(deps);
	const restorers = new Map<string, (panel: vscode.WebviewPanel, state: unknown) => Promise<void>>([
		[WEBVIEW_TYPES.computer, computer.restorePanel],
		[WEBVIEW_TYPES.savings, savings.restorePanel],
	]);
	// The agent workspace: the `cloud-agent:` file system (behind activation's stand-in) and its
	// commands; each deployment's agent workspaces are served through that deployment's session.
	const workspace = registerWorkspace({
		session: deps.session,
		deployments,
		// A row of another deployment's list opens that deployment's agent, never the default's of the same id.
		rowDeployment: (arg) => scopeOf(deps.views, arg).deployment?.id,
		log: deps.log,
		runEvents: deps.follower.onDidReceiveEvent,
		onUnauthorized: deps.onUnauthorized,
		globalState: deps.context.globalState,
		storageUri: deps.context.globalStorageUri,
	});
	const changes = new ChangesFeature({
		session: deps.session,
		// A link remembers its agent's deployment and compares through that deployment's session.
		deployments,
		deploymentOf: (arg) => scopeOf(deps.views, arg).deployment,
		log: deps.log,
		context: deps.context,
		agents: agentsList,
		runEvents: deps.follower.onDidReceiveEvent,
		// Our own writes and deletes of an agent's files (Send to Agent) reach the file system's cache.
		agentFileChanged: (agentId, path, change, part) => {
			try {
				workspace.feature.workspaceOf(part).cache.invalidate(agentId, path, change);
			} catch {
				// A deployment no longer configured or served here: no cache of it to keep true.
			}
		},
		connectivity: deps.views.connectivity,
		localFiles: deps.localFiles,
		// Continue in Cloud (issue 46) uses Send Prompt's steps and send, handed here (a feature never imports another).
		prompts: {
			pickAgent: pickPromptAgent,
			ask: askPrompt,
			send: sendComposedAndFollow,
			keepDraft,
		},
	});
	// Review comments on the agents' changes and Send Feedback to Agent (issue 46): it sends as Send
	// Prompt does (a follow-up of the active run, else a new run; the run followed), through the registry.
	const review: ReviewFeature = new ReviewFeature({
		session: deps.session,
		log: deps.log,
		globalState: deps.context.globalState,
		runEvents: deps.follower.onDidReceiveEvent,
		sendPrompt: async (agentId, prompt): Promise<Run | undefined> =>
			(await actions.invoke(runActions.sendPrompt, automation({ agentId, prompt, onConflict: 'followUp' }))) as Run | undefined,
		// Review comments are the default deployment's (issue 47): a link of another deployment names no agent here.
		agentOfControl: (arg) => defaultAgentOf(changes.targets.linkOfControl(arg)?.link),
		agentName: (agentId) =>
			deps.views.providerOf(agentsList).records.find((a) => a.id === agentId)?.name ||
			changes.targets.links().find((l) => l.link.agentId === agentId)?.link.agentName ||
			undefined,
	});
	// Every action, Source Control's and the review's included, is registered by the one registry.
	const resources = [...resourceActions(), changes.actions, review.actions];
	const actions: ActionRegistry = new ActionRegistry(deps, LIST_DESCRIPTORS, resources, (id) => followers.get(id));
	const chatTools = chatToolsOf(deps, deployments, actions, changes);
	return {
		auth: { signIn, signOut, addDeployment },
		deployments,
		chatTools,
		disposables: [
			...ofDeployments,
			deployments,
			workspace,
			...actions.register(),
			...registerFeatureCommands(deps, { savings: savings.commands, workspace: workspace.commands }),
			...computer.disposables,
			...savings.disposables,
			changes,
			review,
		],
		workspace: workspace.feature,
		modelProviders: modelProviderDocuments({
			client: () => deps.session.client,
			list: (descriptor) => deps.views.providerOf(descriptor),
			log: deps.log,
			context: deps.context,
		}),
		restorePanel: async (viewType, panel, state) => {
			const restore = restorers.get(viewType);
			if (!restore) {
				// Not ours to restore: closed rather than left blank.
				panel.dispose();
				return;
			}
			await restore(panel, state);
		},
		// The end-of-run notification's button: a person's click, so a failure is shown, not thrown.
		openRunResult: async (agentId, runId) => {
			await actions.invokeShown(runActions.openResult, { agentId, runId });
		},
	};
}

/**
 * What each deployment other than the default one has beside its session (issue 47): its rows in
 * the views beside the default's, under a root row each; its record documents, closed at its
 * sign-out; Activity's watcher of it; and its run follower (src/shell/deploymentFollowers.ts), whose status bar click and end
 * notification's Open Result act on the run's own deployment, and whose runs' changed files are
 * read again from that deployment's agent workspaces. The caller owns the disposables.
 */
function deploymentParts(
	deps: Services,
	deployments: DeploymentSessions,
	late: { openResult(arg: unknown): Promise<unknown>; runEventOf(deploymentId: string, e: RunEventNotice): void },
): { followers: PerDeployment<Session, RunFollower>; disposables: vscode.Disposable[] } {
	const shown = showDeployments(deps.views, deployments, deps.context.globalState);
	const records = forgetRecordsAtSignOut(deployments, deps.records, deps.images);
	const closer = new ChannelCloser();
	const followers = followPerDeployment(deployments, {
		closer,
		globalStorageUri: deps.context.globalStorageUri,
		globalState: deps.context.globalState,
		workspaceState: deps.context.workspaceState,
		log: deps.log,
		statusArg: (deployment) => inDeployment(deps.views, deployment.id, {}),
		openResult: async (deployment, agentId, runId) =>
			void (await late.openResult(inDeployment(deps.views, deployment.id, { agentId, runId }))),
		onEvent: (deployment, e) => late.runEventOf(deployment.id, e),
	});
	const flags = flagFollowedRuns(followers, (id) => {
		const lists = deps.views.deployments?.ownerOf(inDeployment(deps.views, id, {}))?.lists;
		return lists && { setFlag: (name, test) => lists.setFlag(name, test), redrawRuns: () => lists.providerOf(runsList).redraw() };
	});
	// Activity watches every signed-in deployment, each with its own watcher and history.
	const watched = deps.activity.watchDeployments(deployments);
	return { followers, disposables: [shown, records, flags, followers, closer, watched] };
}

/** The agent of a link of the default deployment; undefined for another deployment's link (or none). */
function defaultAgentOf(link: { agentId: string; deployment?: string } | undefined): string | undefined {
	return link?.deployment === undefined ? link?.agentId : undefined;
}

/**
 * The language-model tools (src/chat): Send Prompt's own flow sends, as the command does for
 * automation. An agent is looked up in every signed-in deployment; a call acts through the
 * deployment that has it (an automation argument naming a deployment other than the default is
 * scoped to it: src/views/deploymentViews.ts).
 */
function chatToolsOf(deps: Services, deployments: DeploymentSessions, actions: ActionRegistry, changes: ChangesFeature): ChatTools {
	return new ChatTools({
		session: deps.session,
		deployments,
		log: deps.log,
		sendPrompt: async (agentId, prompt, deployment) =>
			(await actions.invoke(
				runActions.sendPrompt,
				automation({
					agentId,
					prompt,
					onConflict: 'followUp',
					...(deployment?.isDefault === false ? { deployment: deployment.id } : {}),
				}),
			)) as Run | undefined,
		// Continue in Cloud as automation: the tool's confirmation was the person's say.
		continueInCloud: async (request) =>
			(await actions.invoke(changes.actions.continueInCloud!, automation({ ...request, onConflict: 'followUp' }))) as
				HandoverAnswer | undefined,
		activity: deps.activity,
	});
}

/** The default deployment as its computer panels name it: after its host when several are configured (read when a panel is made). */
const DEFAULT_COMPUTER_DEPLOYMENT: ComputerDeps['deployment'] = {
	id: undefined,
	get shownName() {
		return shownDeploymentName(undefined);
	},
};

/** The client, session and shown name of a deployment other than the default one, by id, as a computer panel uses them. */
function computerDeployment(
	deployments: DeploymentSessions,
	id: string,
): Pick<ComputerDeps, 'client' | 'session' | 'deployment'> | undefined {
	const found = deployments.find(id);
	return found && !found.deployment.isDefault
		? {
				client: () => found.session.client,
				session: found.session,
				deployment: { id: found.deployment.id, shownName: shownDeploymentName(found.deployment) },
			}
		: undefined;
}

/** The sessions of the deployments beside the default one, each with its own "sign in again" flow. */
function deploymentSessions(deps: Services, defaultSession: Session): DeploymentSessions {
	return new DeploymentSessions(
		defaultSession,
		(deployment) => {
			const session = defaultSession.sibling(deployment);
			session.setSignInFlow(() => signIn({ session, log: deps.log }));
			return session;
		},
		deps.log,
	);
}
