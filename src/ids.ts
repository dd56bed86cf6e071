/**
 * The strings shared between code and package.json: command ids, view ids, context keys and the
 * URI scheme. This module must not import `vscode`, so plain-Node unit tests can compare it with
 * the manifest.
 */
import { MANIFEST_COMMAND_IDS, MANIFEST_TOOL_NAMES, MANIFEST_VIEW_IDS } from './manifestIds.gen';

/**
 * Every command the extension contributes, in package.json's order: generated from the manifest
 * (src/manifestIds.gen.ts, `npm run ids:gen`), so a command added to package.json is a `CommandId`
 * without an edit here. `test/unit/manifest.test.ts` fails when the generated file is stale.
 */
export const COMMAND_IDS = MANIFEST_COMMAND_IDS;

/** A contributed command id. */
export type CommandId = (typeof COMMAND_IDS)[number];

/** The activity-bar view container (`workbench.view.extension.<id>` in the workbench DOM). */
export const VIEW_CONTAINER_ID = 'cloudAgents';

/** Every view package.json contributes, in display order (generated: see COMMAND_IDS). */
export const ALL_VIEW_IDS = MANIFEST_VIEW_IDS;

/** The tree views code refers to by name (views built from descriptors need no entry: src/resources). */
export const VIEW_IDS = {
	agents: 'cloudAgents.agents',
	runs: 'cloudAgents.runs',
	runtimes: 'cloudAgents.runtimes',
	artifacts: 'cloudAgents.artifacts',
	account: 'cloudAgents.account',
	activity: 'cloudAgents.activity',
} as const;

/** A contributed view id (generated from package.json, like `CommandId`). */
export type ViewId = (typeof MANIFEST_VIEW_IDS)[number];

/**
 * Every language-model tool package.json contributes (`contributes.languageModelTools`), in its
 * order (generated: see COMMAND_IDS). Activation registers each name (src/chat/lazyTools.ts).
 */
export const TOOL_NAMES = MANIFEST_TOOL_NAMES;

/** A contributed language-model tool name. */
export type ToolName = (typeof MANIFEST_TOOL_NAMES)[number];

/** The tool names code refers to by what they do. */
export const TOOLS = {
	listAgents: 'cloudAgents_listAgents',
	runPrompt: 'cloudAgents_runPrompt',
	runStatus: 'cloudAgents_runStatus',
	readFile: 'cloudAgents_readFile',
	searchWorkspace: 'cloudAgents_searchWorkspace',
	listArtifacts: 'cloudAgents_listArtifacts',
	readArtifact: 'cloudAgents_readArtifact',
	recentActivity: 'cloudAgents_recentActivity',
	continueInCloud: 'cloudAgents_continueInCloud',
} as const satisfies Record<string, ToolName>;

/** Context keys used in `when` clauses of package.json. */
export const CONTEXT_KEYS = {
	/** True while a token for the configured API URL is stored. */
	signedIn: 'cloudAgents.signedIn',
	/** True once activation has set the other keys, so welcome content does not flash. */
	loaded: 'cloudAgents.loaded',
	/** `reachable` or `unreachable` after a health check (the signed-out welcome says which); unset before. */
	serverReachable: 'cloudAgents.serverReachable',
	/**
	 * True while the window has workspace folders and every one is an agent workspace
	 * (`cloud-agent:`): then Ctrl+P and Ctrl+Shift+F run our Go to File and Search Workspace (VS
	 * Code's own search finds nothing there). With a local folder beside them, the keys stay VS Code's.
	 */
	agentWorkspace: 'cloudAgents.agentWorkspace',
	/** True while the service does not answer (src/views/connectivity.ts): the palette offers Retry Connection Now. */
	offline: 'cloudAgents.offline',
	/** True while `cloudAgents.deployments` adds a deployment beside the default one: Sign In and Sign Out stay in the palette. */
	severalDeployments: 'cloudAgents.severalDeployments',
} as const;

/**
 * The context key that is true while a list view has read its list and found nothing (no error, not
 * offline): its "No … yet" welcome shows only then, and while its first read is under way the view
 * says it is loading instead (a pending first request is not an empty account).
 */
export function emptyViewContextKey(viewId: string): string {
	return `${viewId}.empty`;
}

/**
 * The context key that is true while a list view's first read has had no answer for
 * FIRST_READ_WAITING_MS: its welcome then says it is waiting for the service, not only "Loading…"
 * (issue 42, item 4: a service that stalled at window load showed a progress bar for two minutes).
 */
export function waitingViewContextKey(viewId: string): string {
	return `${viewId}.waiting`;
}

/** How long a list's first read goes unanswered before its view says it is waiting for the service. */
export const FIRST_READ_WAITING_MS = 3_000;

/** The configuration section and keys under it. */
export const CONFIG = {
	section: 'cloudAgents',
	apiUrl: 'apiUrl',
	deployments: 'deployments',
} as const;

/** Id of the authentication provider (package.json `contributes.authentication`): its session changes tell every part of the extension about sign-in and sign-out. */
export const AUTH_PROVIDER_ID = 'cloudAgents';

/** The authentication provider's label in the Accounts menu (package.json `contributes.authentication`). */
export const AUTH_PROVIDER_LABEL = 'Cloud Agents';

/** URI scheme of an agent's remote workspace: `cloud-agent://<agentId>/<path>`. */
export const FS_SCHEME = 'cloud-agent';

/**
 * The folder under the extension's global storage that holds the agent windows' workspace files
 * (`agent-windows/<agent authority>/<agent name>.code-workspace`: src/workspace/agentWindow.ts).
 * Activation loads the features in a window opened on one of them without its folder.
 */
export const AGENT_WINDOWS_FOLDER = 'agent-windows';

/** globalState key of the agent ↔ local folder links (src/changes/linkStore.ts): activation loads the features when it holds one. */
export const LINKS_KEY = 'cloudAgents.changes.links';

/** globalState key set once the agent workspace's search hint was shown (once per machine: src/workspace/workspaceFeature.ts). */
export const SEARCH_HINT_KEY = 'cloudAgents.workspace.searchHintShown';

/** globalState key: the ids of the runs whose end was announced (each once, across windows and restarts). */
export const RUN_NOTIFIED_KEY = 'cloudAgents.notifiedRuns';

/** workspaceState key: the ids of the runs this window follows, followed again after a reload (src/runFollowing/runFollower.ts). */
export const FOLLOWED_RUNS_KEY = 'cloudAgents.followedRuns';

/** URI scheme of the read-only documents that show server records (run results, runtime details, text artifacts). */
export const RECORD_SCHEME = 'cloud-agents-record';

/** URI scheme of image artifacts shown in VS Code's image preview, from memory (src/views/imageDocuments.ts). */
export const IMAGE_SCHEME = 'cloud-agents-image';

/** URI scheme of the model provider documents being edited (src/resources/modelProviders.ts): saving one sends it. */
export const PROVIDER_SCHEME = 'cloud-agents-provider';

/** URI scheme of the empty side of a diff of an added or deleted file (Source Control: src/changes/). */
export const EMPTY_SCHEME = 'cloud-agents-empty';

/**
 * Every URI scheme of ours an editor tab can hold: each is served from activation and has its
 * `onFileSystem:<scheme>` activation event in package.json, so VS Code restores the tab after a
 * reload (test/unit/manifest.test.ts checks the manifest).
 */
export const TAB_SCHEMES = [FS_SCHEME, RECORD_SCHEME, IMAGE_SCHEME, PROVIDER_SCHEME, EMPTY_SCHEME] as const;

/**
 * Of TAB_SCHEMES, those served as file systems, with how each is registered (the others are
 * read-only documents), and whether its provider copies (`copies`: its activation stand-in then
 * offers `copy`; without it VS Code copies by reading and writing).
 */
export const FILE_SYSTEM_SCHEMES: Readonly<
	Record<string, { readonly isCaseSensitive: boolean; readonly isReadonly?: boolean; readonly copies?: boolean }>
> = {
	[FS_SCHEME]: { isCaseSensitive: true, copies: true },
	[IMAGE_SCHEME]: { isCaseSensitive: true, isReadonly: true },
	[PROVIDER_SCHEME]: { isCaseSensitive: true },
};

/** Of TAB_SCHEMES, those served as read-only documents (a text document content provider each). */
export const DOCUMENT_SCHEMES = [RECORD_SCHEME, EMPTY_SCHEME] as const;

/**
 * The views drawn with a Collapse All button: the views of group rows (src/views/groupTree.ts; the
 * Account view), whose groups open one by one. Activation creates every view before its lists exist
 * (src/shell/standIns.ts); test/unit/resources/index.test.ts checks this against the lists.
 */
export const COLLAPSE_ALL_VIEWS: ReadonlySet<string> = new Set(['cloudAgents.account']);

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

/**
 * Command id → title of the commands a manifest (`extension.packageJSON`) contributes. VS Code has
 * replaced the `%key%` titles by package.nls.json's text, or, where a translation
 * (package.nls.<lang>.json) differs from it, by `{ value, original }`: the translation is `value`.
 */
export function manifestCommandTitles(manifest: unknown): ReadonlyMap<string, string> {
	const titles = new Map<string, string>();
	const field = (o: unknown, name: string): unknown => (typeof o === 'object' && o !== null ? Reflect.get(o, name) : undefined);
	const commands = field(field(manifest, 'contributes'), 'commands');
	for (const entry of Array.isArray(commands) ? (commands as unknown[]) : []) {
		const command = field(entry, 'command');
		const given = field(entry, 'title');
		const title = typeof given === 'string' ? given : field(given, 'value');
		if (typeof command === 'string' && typeof title === 'string') {
			titles.set(command, title);
		}
	}
	return titles;
}

/** The name of activate()'s entry in the web worker's performance timeline (src/platform/web/webPlatform.ts; the bench's activation section reads it). */
export const ACTIVATION_MEASURE = 'cloud-agents/activate';

/**
 * The environment variable the test harness sets (to the report's path): under it the extension
 * records what it shows and `activate()` returns what the integration tests read (src/testing.ts).
 */
export const TEST_HARNESS_ENV = 'CLOUD_AGENTS_TEST_REPORT';
