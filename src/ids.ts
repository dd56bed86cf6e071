/**
 * The strings shared between code and package.json: command ids, view ids, context keys and the
 * URI scheme. This module must not import `vscode`, so plain-Node unit tests can compare it with
 * the manifest.
 */

/** Every command the extension contributes; `test/unit/manifest.test.ts` checks it equals package.json. */
export const COMMAND_IDS = [
	'cloudAgents.signIn',
	'cloudAgents.signOut',
	'cloudAgents.refresh',
	'cloudAgents.agents.openWorkspace',
	'cloudAgents.workspace.search',
	'cloudAgents.workspace.goToFile',
	'cloudAgents.agents.refresh',
	'cloudAgents.agents.loadMore',
	'cloudAgents.agents.create',
	'cloudAgents.agents.rename',
	'cloudAgents.agents.delete',
	'cloudAgents.agents.copyId',
	'cloudAgents.runs.refresh',
	'cloudAgents.runs.loadMore',
	'cloudAgents.runs.sendPrompt',
	'cloudAgents.runs.cancel',
	'cloudAgents.runs.resume',
	'cloudAgents.runs.followUp',
	'cloudAgents.runs.openResult',
	'cloudAgents.runs.copyId',
	'cloudAgents.runtimes.refresh',
	'cloudAgents.runtimes.loadMore',
	'cloudAgents.runtimes.resume',
	'cloudAgents.runtimes.showDetails',
	'cloudAgents.runtimes.listVncCredentials',
	'cloudAgents.artifacts.refresh',
	'cloudAgents.artifacts.open',
	'cloudAgents.artifacts.save',
	'cloudAgents.artifacts.upload',
	'cloudAgents.artifacts.delete',
	'cloudAgents.runs.follow',
	'cloudAgents.runs.stopFollowing',
	'cloudAgents.runs.followedRunActions',
	'cloudAgents.agents.openComputer',
	'cloudAgents.savings.open',
	'cloudAgents.savings.showSummary',
] as const;

/** A contributed command id. */
export type CommandId = (typeof COMMAND_IDS)[number];

/** The activity-bar view container (`workbench.view.extension.<id>` in the workbench DOM). */
export const VIEW_CONTAINER_ID = 'cloudAgents';

/** The tree views inside the container, in display order. */
export const VIEW_IDS = {
	agents: 'cloudAgents.agents',
	runs: 'cloudAgents.runs',
	runtimes: 'cloudAgents.runtimes',
	artifacts: 'cloudAgents.artifacts',
} as const;

/** A contributed view id. */
export type ViewId = (typeof VIEW_IDS)[keyof typeof VIEW_IDS];

/** Context keys used in `when` clauses of package.json. */
export const CONTEXT_KEYS = {
	/** True while a token for the configured API URL is stored. */
	signedIn: 'cloudAgents.signedIn',
	/** True once activation has set the other keys, so welcome content does not flash. */
	loaded: 'cloudAgents.loaded',
} as const;

/** The configuration section and keys under it. */
export const CONFIG = {
	section: 'cloudAgents',
	apiUrl: 'apiUrl',
} as const;

/** URI scheme of an agent's remote workspace: `cloud-agent://<agentId>/<path>`. */
export const FS_SCHEME = 'cloud-agent';

/** URI scheme of the read-only documents that show server records (run results, runtime details, text artifacts). */
export const RECORD_SCHEME = 'cloud-agents-record';

/**
 * Schemes of documents a prompt may be taken from ("Send Prompt…" with an editor active): files,
 * untitled documents, remote files and our own; never an output channel, a log or settings.
 */
export const PROMPT_SOURCE_SCHEMES: ReadonlySet<string> = new Set(['file', 'untitled', 'vscode-remote', FS_SCHEME, RECORD_SCHEME]);

/** True when a document of this URI scheme may be the source of a prompt. */
export function isPromptSource(scheme: string): boolean {
	return PROMPT_SOURCE_SCHEMES.has(scheme);
}

/** The extension's id in the marketplace sense: `<publisher>.<name>` from package.json. */
export const EXTENSION_ID = 'cloud-agents.cloud-agents-vscode';

/** Webview panel types (package.json `onWebviewPanel:<type>` activation restores their panels). */
export const WEBVIEW_TYPES = {
	computer: 'cloudAgents.computer',
	savings: 'cloudAgents.savings',
} as const;
