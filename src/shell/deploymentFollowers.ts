/**
 * Run following per deployment (issue 47): each signed-in deployment other than the default one
 * has its own RunFollower — its session and client, its own run-event store, its own followed runs
 * and announced ends — made at its sign-in and disposed at its sign-out (src/auth/perDeployment.ts),
 * which stops its follows only. The default deployment's follower is the extension's own (made at
 * activation, src/shell/main.ts), and its storage is what it always was: `runs/` under the global
 * storage, `cloudAgents.followedRuns` and the announced ends under their keys. Another deployment's
 * are apart from it: `deployments/<id>/runs/` and the same keys with `.<id>` after them, so two runs
 * of the same ids on two services never meet.
 */
import * as vscode from 'vscode';
import { type Deployment, deploymentNameWhenSeveral } from '../auth/deployments';
import type { PerDeployment, PerDeploymentHolders } from '../auth/perDeployment';
import { type FollowerSession, type RunEventNotice, RunFollower, type RunFollowerOptions } from '../runFollowing';
import { RunEventStore } from '../runFollowing/runStore';
import { describeError } from '../messages/errors';
import type { ChannelCloser } from '../util/outputChannels';
import { outputLine } from '../util/text';

/** What the followers of the deployments are made with. */
export interface DeploymentFollowersDeps {
	/** Where run histories are kept (context.globalStorageUri). */
	globalStorageUri: vscode.Uri;
	/** The announced ends (context.globalState) and the followed runs (context.workspaceState), kept apart per deployment. */
	globalState: vscode.Memento;
	workspaceState: vscode.Memento;
	log: vscode.LogOutputChannel;
	/** What the status bar's click of a deployment's followed run passes to its actions: an argument naming that deployment. */
	statusArg?: (deployment: Deployment) => unknown;
	/** Opens a run's result (the end notification's Open Result) on its deployment. */
	openResult?: (deployment: Deployment, agentId: string, runId: string) => Promise<void>;
	/** Every event of a deployment's followed run (its agent workspaces' cache hears of changed files). */
	onEvent?: (deployment: Deployment, notice: RunEventNotice) => void;
	/** Closes the followers' run channels safely (ChannelCloser), outliving them: a follower ends at its deployment's sign-out. */
	closer?: ChannelCloser;
	/** The followers' pace and bounds (tests). */
	options?: Pick<RunFollowerOptions, 'flushMs' | 'maxActive' | 'maxChannels' | 'endedStatusMs'>;
}

/** Where the run histories of `deployment` are kept: `runs/` for the default one (as always), `deployments/<id>/runs/` for another. */
export function runStoreRoot(globalStorageUri: vscode.Uri, deployment: Pick<Deployment, 'id' | 'isDefault'>): vscode.Uri {
	return deployment.isDefault
		? vscode.Uri.joinPath(globalStorageUri, 'runs')
		: vscode.Uri.joinPath(globalStorageUri, 'deployments', deployment.id, 'runs');
}

/**
 * `memento` as another deployment's follower sees it: each key with `.<deployment id>` after it,
 * beside the default deployment's entries (which it never reads nor writes).
 */
export function mementoApart(memento: vscode.Memento, deploymentId: string): vscode.Memento {
	const keyOf = (key: string): string => `${key}.${deploymentId}`;
	return {
		keys: () => memento.keys(),
		get: (key: string, fallback?: unknown) => memento.get(keyOf(key), fallback),
		update: (key: string, value: unknown) => memento.update(keyOf(key), value),
	};
}

/**
 * A RunFollower for each signed-in deployment of `deployments` other than the default one, by
 * deployment id; each follows again, once made, the runs it followed when its deployment was
 * signed out (or the window closed). Disposing it stops every one of them.
 */
export function followPerDeployment<S extends FollowerSession>(
	deployments: PerDeploymentHolders<S>,
	deps: DeploymentFollowersDeps,
): PerDeployment<S, RunFollower> {
	return deployments.perDeployment(({ deployment, session }) => {
		const follower = new RunFollower({
			session,
			store: new RunEventStore(runStoreRoot(deps.globalStorageUri, deployment)),
			globalState: mementoApart(deps.globalState, deployment.id),
			workspaceState: mementoApart(deps.workspaceState, deployment.id),
			log: deps.log,
			deploymentName: () => deploymentNameWhenSeveral(deployment.id),
			status: { id: `cloudAgents.followedRun.${deployment.id}`, arg: deps.statusArg?.(deployment) },
			closer: deps.closer,
			...deps.options,
		});
		const { openResult, onEvent } = deps;
		if (openResult) {
			follower.setResultOpener((agentId, runId) => openResult(deployment, agentId, runId));
		}
		if (onEvent) {
			// Its emitter goes with the follower, and this listener with it.
			follower.onDidReceiveEvent((notice) => onEvent(deployment, notice));
		}
		// Signed in (again): what it followed when signed out, or when the window closed, is followed from where it stopped.
		void follower.resumeActive().catch((err: unknown) => {
			deps.log.warn(outputLine(`Could not follow again the runs of ${deployment.name}: ${describeError(err)}`));
		});
		return follower;
	}, 'signedIn');
}

/** A deployment's lists as the followed-run flag reaches them (DeploymentLists). */
export interface FlaggedLists {
	setFlag(name: string, test: (key: string, parentKey: string | undefined) => boolean): void;
	/** Draws the Runs view's rows of this deployment again. */
	redrawRuns(): void;
}

/**
 * The Runs view's rows of each other deployment say which of its runs its own follower streams (the
 * `followed` flag: Stop Following inline), as the default deployment's say its follower's, and are
 * drawn again when that changes. `listsOf` finds a deployment's lists (undefined while it has none).
 */
export function flagFollowedRuns<S extends FollowerSession>(
	followers: PerDeployment<S, RunFollower>,
	listsOf: (deploymentId: string) => FlaggedLists | undefined,
): vscode.Disposable {
	const flagged = new WeakSet<RunFollower>();
	const flag = (): void => {
		for (const [{ deployment }, follower] of followers) {
			const lists = flagged.has(follower) ? undefined : listsOf(deployment.id);
			if (lists) {
				flagged.add(follower);
				lists.setFlag('followed', (runId, agentId) => follower.stateOf(agentId ?? '', runId)?.active ?? false);
				// Its emitter goes with the follower, and this listener with it.
				follower.onDidChangeFollowing(() => lists.redrawRuns());
			}
		}
	};
	flag();
	return followers.onDidChange(flag);
}
