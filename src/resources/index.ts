/**
 * The registry of resources: every list of the extension (`LIST_DESCRIPTORS`, drawn at activation)
 * and every resource's actions (`resourceActions()`, read on first use with the commands' code), and
 * how the lists follow one another (`connectLists`). A new resource is one module in this folder
 * (its list descriptors and its actions), one line in each array, and its package.json entries
 * (`test/unit/resources/index.test.ts` checks that the folder and these lists agree).
 *
 * The two are separate so that activation, which reads only `LIST_DESCRIPTORS`, does not load the
 * actions' code: esbuild leaves out what the Node activation bundle never reads, and the web bundle
 * (one file) evaluates an action module only when the array is first built (esbuild.mjs
 * webLazyFeatures), so the actions are a function, not an array built at load.
 */
import { isTerminalRunStatus } from '../api';
import type * as vscode from 'vscode';
import type { ListScope } from '../views';
import type { AnyListDescriptor } from '../views/descriptor';
import type { ResourceActions } from '../views/actions';
import { accountList } from './account';
import { agentActions, agentsList } from './agents';
import { artifactActions, artifactsList } from './artifacts';
import { checkpointActions, checkpointsList } from './checkpoints';
import { GitHubRequestExpiry, githubActions, githubRequestsList } from './github';
import { buildAttemptsList, imageBuildActions, imageBuildsList } from './imageBuilds';
import { imageActions, imagesList } from './images';
import { modelProviderActions, modelProvidersList } from './modelProviders';
import { runActions, runsList } from './runs';
import { runtimeActions, runtimesList } from './runtimes';
import { secretActions, secretsList } from './secrets';
import { runtimeSecretStubsList, secretStubActions, secretStubsList } from './secretStubs';
import { sessionHistoryActions } from './sessionHistory';
import { runtimeSshKeysList, sshKeyActions } from './sshKeys';

/**
 * Every list of the extension: `CloudAgentViews` creates a tree view for each one with a `viewId`
 * (in this order), nests each one whose parent is `children` under the rows of its parent, and the
 * action registry registers each one's refresh and load-more commands.
 */
export const LIST_DESCRIPTORS: readonly AnyListDescriptor[] = [
	agentsList,
	runsList,
	runtimesList,
	artifactsList,
	accountList,
	runtimeSecretStubsList,
	secretStubsList,
	secretsList,
	runtimeSshKeysList,
	githubRequestsList,
	imagesList,
	imageBuildsList,
	buildAttemptsList,
	checkpointsList,
	modelProvidersList,
];

/** Every resource's actions (each registered as its command by src/views/actionRegistry.ts). */
export const resourceActions = (): readonly ResourceActions[] => [
	agentActions,
	runActions,
	sessionHistoryActions,
	runtimeActions,
	artifactActions,
	imageActions,
	imageBuildActions,
	checkpointActions,
	modelProviderActions,
	secretStubActions,
	secretActions,
	sshKeyActions,
	githubActions,
];

/**
 * How the lists of one deployment follow one another: pending GitHub requests are read again when
 * one expires; a finished run refreshes the artifacts; the agent's row follows
 * its runs' state; tooltips naming a runtime redraw when a runtime's name changes; the agent the Runs
 * and Artifacts views follow keeps its current name. The caller owns the disposables.
 */
export function connectLists(views: Pick<ListScope, 'providerOf' | 'select'>): vscode.Disposable[] {
	const agents = views.providerOf(agentsList);
	const runs = views.providerOf(runsList);
	const runtimes = views.providerOf(runtimesList);
	const artifacts = views.providerOf(artifactsList);
	// The agent and active runs last compared with the Agents view (one refresh per change, no loop).
	let lastRunState = '';
	// Tooltips name the runtime (as the Runtimes view does) instead of its id, read when built (on
	// hover): the rows are redrawn when a name changed and a tooltip was built already, not on every
	// load (the Runtimes view polls while a runtime is in motion) nor when the Runtimes view's first
	// page comes while the agent rows are first drawn (ListTree.redrawTooltips).
	let runtimeNames = '';
	return [
		// An expired GitHub request drops off when its expiry passes.
		new GitHubRequestExpiry(views.providerOf(githubRequestsList)),
		// A finished run may have produced artifacts.
		runs.onDidSettle(() => void artifacts.refresh()),
		// The agent's status follows its runs: an active run while the agent's row is not `running`
		// (or the reverse) means the row is stale, so the Agents view refreshes now, and the list
		// keeps refreshing while active.
		runs.onDidLoad(() => {
			const agent = runs.parent;
			if (!agent) {
				return;
			}
			const activeRuns = runs.records.filter((r) => !isTerminalRunStatus(r.status)).map((r) => r.id);
			const active = activeRuns.length > 0;
			agents.markActive(agent.id, active);
			const row = agents.find(agent.id);
			const state = `${agent.id}:${activeRuns.join(',')}`;
			if (row && (row.status === 'running') !== active && state !== lastRunState) {
				lastRunState = state;
				void agents.refresh();
			}
		}),
		// Our own action on the agent's runs changes its status: its row refreshes now.
		runs.onDidRequestRefresh(() => void agents.refresh()),
		runtimes.onDidLoad(() => {
			const names = JSON.stringify(runtimes.records.map((r) => [r.id, r.display_name]));
			if (names !== runtimeNames) {
				runtimeNames = names;
				agents.redrawTooltips();
			}
		}),
		// Keep the selected agent's record (name in the view descriptions) current.
		agents.onDidLoad(() => {
			const current = runs.parent;
			const fresh = current && agents.find(current.id);
			if (fresh && fresh.name !== current.name) {
				views.select(agentsList, fresh);
			}
		}),
	];
}
