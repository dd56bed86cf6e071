/**
 * Actions: what a user can do with a record of a list (or with a resource as a whole), as data.
 * Each resource module (src/resources/<kind>.ts) exports its list descriptors and one object of
 * actions; the registry (src/views/actionRegistry.ts) registers every action as a command, finds
 * the record it acts on, hands it a kit (`ActionKit`) and applies one error rule to all of them.
 */
import type * as vscode from 'vscode';
import type { CloudAgentsClient, Connect, NetworkSettings } from '../api';
import type { CommandId } from '../ids';
import type { Activity } from '../activity/activity';
import type { LocalFiles } from '../compare/localFiles';
import type { RunFollower } from '../runFollowing';
import type { RunNameHint } from '../runFollowing';
import type { UnauthorizedHandler } from '../messages/errors';
import type { KnownHostsFile } from '../util/knownHosts';
import type { ListDescriptor } from './descriptor';
import type { ImageDocuments } from './imageDocuments';
import type { CloudAgentViews } from './index';
import type { DescriptorTreeProvider } from './listTree';
import type { RecordDocuments, RecordShower } from './recordDocuments';

/** The session as actions and flows see it; `client` reads the token per request. */
export interface ActionSession {
	readonly client: CloudAgentsClient;
	readonly signedIn: boolean;
	readonly apiUrl: string;
	/** Whether the sign-in state has been read (the first `onDidChange` has fired). */
	readonly initialized: boolean;
	readonly onDidChange: vscode.Event<void>;
	/** The proxy and certificate settings a client made outside the session uses (the GitHub look-up). */
	networkSettings(this: void): NetworkSettings;
	/** How clients of this session reach the network (the GitHub look-up's too). */
	readonly connect: Connect;
}

/**
 * The user's own files as the extension host reaches them, chosen by the entry point (the Platform
 * of src/platform/types.ts): Node's host has a home folder and ~/.ssh; the browser's (VS Code for
 * the Web) has neither.
 */
export interface UserFiles {
	/** The user's home folder (where a save dialog starts when nothing better is known); undefined in the browser. */
	homeFolder(this: void): vscode.Uri | undefined;
	/** The user's SSH known_hosts file; undefined where the extension host cannot write it (the browser). */
	readonly knownHosts: KnownHostsFile | undefined;
}

/**
 * The services of the extension, handed to the action registry and to the flows that act on no
 * single record (src/flows): objects, never our own command ids.
 */
export interface Services {
	session: ActionSession;
	views: CloudAgentViews;
	log: vscode.LogOutputChannel;
	context: vscode.ExtensionContext;
	/** The read-only record documents (run results, runtime details, text artifacts). */
	records: RecordDocuments;
	/** Image artifacts for the image preview, from memory. */
	images: ImageDocuments;
	/** Follows runs into output channels and the status bar. */
	follower: RunFollower;
	/** Runs the sign-in flow (the Sign In command's flow); resolves when it ends. */
	signIn(this: void): Promise<unknown>;
	/** The session's 401 handler (its single "sign in again" prompt), for failed commands. */
	onUnauthorized?: UnauthorizedHandler;
	/**
	 * The GitHub REST API base of Create Agent's repository look-up: the test harness's stub when it
	 * sets one (src/testing.ts), else undefined (GitHub's own). Read at each look-up.
	 */
	githubApiUrl(this: void): string | undefined;
	/** The user's own files, where the extension host reaches them (the platform's). */
	userFiles: UserFiles;
	/**
	 * A local folder as this extension host reaches it (the platform's, chosen by the entry point:
	 * Node's worker thread and file system, or `vscode.workspace.fs` in VS Code for the Web);
	 * undefined when it cannot compare with that folder.
	 */
	localFiles(this: void, root: vscode.Uri): LocalFiles | undefined;
	/**
	 * What the watcher over the account noticed (src/activity/activity.ts): the chat tools read it;
	 * the features hand it the deployments to watch beside the default one.
	 */
	activity: Pick<Activity, 'since' | 'entries' | 'watchDeployments'>;
}

/** What actions use of the run follower (ActionKit.follower). */
export type ActionFollower = Pick<
	RunFollower,
	'following' | 'stateOf' | 'statusRunInfo' | 'show' | 'follow' | 'stop' | 'forget' | 'dismissStatus'
>;

/** How the quick pick (or the command's own picker) finds a record when none is given. */
export interface ResolveOptions<T> {
	/** The quick pick's title (the command's name). */
	title: string;
	/** Narrows what the quick pick offers (e.g. only active runs for Cancel Run). */
	filter?: (item: T) => boolean;
	/** Take the record selected in the UI (the agent the Runs view follows) before asking. */
	useSelection?: boolean;
	/** The command's own picker, instead of the descriptor's quick pick (Send Prompt's agent pick). */
	pick?: () => Promise<T | undefined>;
	/**
	 * Further lists showing the same records with the same fields (a runtime's secret stubs beside
	 * the Account view's): a row of one of them is taken as it is.
	 */
	alsoOn?: readonly ListDescriptor<T, object, unknown>[];
}

/**
 * A command acting on one record of the list `on`: the registry resolves the record, then `run`
 * acts on it. A resource module writes its actions as plain object literals checked with
 * `satisfies RecordAction<T, F>` (no call at module level, so the activation bundle, which reads
 * only the list descriptors, leaves the actions out: see esbuild.mjs and test/unit/build/bundles.test.ts).
 */
export interface RecordAction<T, F extends object> {
	/** The list whose records the action acts on (usually the resource's own). */
	readonly on: ListDescriptor<T, F, unknown>;
	/** The contributed command (package.json `contributes.commands`). */
	readonly command: CommandId;
	/**
	 * The quick pick's title when the record is picked, where it is not the command's own title in
	 * package.json (which the registry takes otherwise, without a trailing "…").
	 */
	title?(this: void): string;
	/** Narrows what the pick offers (e.g. only paused runtimes for Resume). */
	filter?(this: void, item: T): boolean;
	/** Take the record selected in the UI before asking. */
	readonly useSelection?: boolean;
	/** Further lists whose rows are the same records with the same fields: their rows are taken as they are (ResolveOptions.alsoOn). */
	// eslint-disable-next-line @typescript-eslint/no-explicit-any
	readonly alsoOn?: readonly ListDescriptor<T, F, any>[];
	/**
	 * The action's own picker, asked instead of the list's quick pick when the argument names no
	 * record (Send Prompt's agent pick, which starts at the selected agent; a secret: one a stub
	 * uses, or any name or UUID typed).
	 */
	pick?(this: void, kit: ActionKit): Promise<T | undefined>;
	/**
	 * The argument the record is resolved from, when it is not the command's own argument (a row of
	 * another list the record hangs under); undefined falls back to the argument.
	 */
	targetArg?(this: void, arg: unknown): unknown;
	/** Acts on the record; what it returns is the command's result (for automation and tests). */
	run(this: void, target: F, kit: ActionKit): Promise<unknown>;
}

/** A command of a resource that acts on no one record (create, upload from the editor): `satisfies ResourceAction`. */
export interface ResourceAction {
	readonly command: CommandId;
	readonly on?: undefined;
	/** Acts; what it returns is the command's result. */
	run(this: void, kit: ActionKit): Promise<unknown>;
}

/**
 * What Source Control commands act on, as the feature that owns those source controls knows it
 * (src/changes: a link is one source control, a file one of its resource states). The registry's
 * resolver (src/views/scmTargets.ts) decides which argument means what; these only look things up.
 */
export interface ScmTargets<L, F> {
	/** Every link now in Source Control, in the order a pick offers them. */
	links(this: void): readonly L[];
	/** The link `{link: id}` names, or undefined. */
	linkById(this: void, id: string): L | undefined;
	/** The link whose `SourceControl` or resource group `arg` is (scm/title, a group's menu, a status bar command), or undefined. */
	linkOfControl(this: void, arg: unknown): L | undefined;
	/** The files a local URI stands for (a resource state's, an Explorer file's), in every link, or in `link` only. */
	filesOfUri(this: void, uri: vscode.Uri, link?: L): F[];
	/** The files of a link: those `paths` name, or all of them. */
	filesOf(this: void, link: L, paths?: readonly string[]): F[];
	/** The link a file belongs to. */
	linkOfFile(this: void, file: F): L;
	/** What makes two files the same file (the link and the path). */
	keyOf(this: void, file: F): string;
	/** A link as a quick-pick row. */
	pickText(this: void, link: L): { label: string; description?: string };
	/** Said when a command run from the palette finds no link to act on. */
	noLinks(this: void): string;
}

/**
 * A command on one link of Source Control (its title menu: Refresh, Unlink, Apply All…): the
 * registry finds the link (a source control or group, `{link}`, the link of a resource state, the
 * only link, or a pick), then `run` acts on it.
 */
export interface LinkAction<L, F> {
	readonly command: CommandId;
	readonly on?: undefined;
	readonly scm: ScmTargets<L, F>;
	readonly acts: 'link';
	/** The quick pick's placeholder when several links could be meant. */
	placeHolder(this: void): string;
	run(this: void, link: L, kit: ActionKit): Promise<unknown>;
}

/**
 * A command on files of Source Control (a resource state's menu: Apply, Send, Open…): the registry
 * finds the files (the resource state clicked and the selection, a group's, a local URI's, or
 * `{link, paths}`), then `run` acts on them (none found: `run` gets none and says so).
 */
export interface FilesAction<L, F> {
	readonly command: CommandId;
	readonly on?: undefined;
	readonly scm: ScmTargets<L, F>;
	readonly acts: 'files';
	run(this: void, files: F[], kit: ActionKit): Promise<unknown>;
}

/** A Source Control command. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ScmAction = LinkAction<any, any> | FilesAction<any, any>;

/** Any action of a resource (or of Source Control). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Action = RecordAction<any, any> | ResourceAction | ScmAction;

/** The actions of one resource, by a name its own module and the flows can refer to. */
export type ResourceActions = Readonly<Record<string, Action>>;

/**
 * What an action may use besides its record: the services, as functions and objects (never a
 * command id of ours). Server text passed to `confirm`, `info`, `warn` and `progress` is made safe
 * there (notificationText).
 */
export interface ActionKit {
	/** The command's first argument (a row, an id, an automation object, or nothing). */
	readonly arg: unknown;
	/** Every argument of the command (an Explorer menu passes the resource and the selection). */
	readonly args: readonly unknown[];
	/** The action's title: its command's title in package.json (what an action's own picker is titled). */
	readonly title: string;
	/**
	 * True when the argument is an automation object (it carries the marker: src/views/automation.ts):
	 * the caller has decided, so no confirmation, and messages go to the log, not to the screen.
	 */
	readonly automation: boolean;
	/** The shared client. */
	client(this: void): CloudAgentsClient;
	/** The session (sign-in state, API URL). */
	readonly session: ActionSession;
	/** Runs the sign-in flow. */
	signIn(this: void): Promise<unknown>;
	/**
	 * The GitHub REST API base of Create Agent's repository look-up: the test harness's stub when it
	 * sets one (src/testing.ts), else undefined (GitHub's own). Read at each look-up.
	 */
	githubApiUrl(this: void): string | undefined;
	/** The loaded list of a descriptor: its records, `find`, `nameOf`, `refresh`. */
	list<T, F extends object, P>(this: void, descriptor: ListDescriptor<T, F, P>): DescriptorTreeProvider<T, F, P>;
	/** Re-reads the list the action belongs to (its view; a subtree through its parent's view). */
	refresh(this: void): Promise<void>;
	/** The record selected in `descriptor`'s view that other lists follow (the agent of Runs). */
	selected<T>(this: void, descriptor: ListDescriptor<T, object, unknown>): T | undefined;
	/** Makes the lists following `descriptor`'s view show `record` (or nothing). */
	select<T>(this: void, descriptor: ListDescriptor<T, object, unknown>, record: T | undefined): void;
	/** Re-reads the lists following `descriptor`'s view (the Runs and Artifacts of the selected agent). */
	refreshFollowing<T>(this: void, descriptor: ListDescriptor<T, object, unknown>): Promise<void>;
	/**
	 * Selects the record `id` of `descriptor`'s view, revealing its row when it is loaded (read
	 * otherwise), and makes the lists following the view show it; resolves with the record.
	 */
	selectById<T>(this: void, descriptor: ListDescriptor<T, object, unknown>, id: string): Promise<T | undefined>;
	/** Finds a further record (the run an upload belongs to) the way commands find theirs. */
	resolve<T, F extends object, P>(
		this: void,
		descriptor: ListDescriptor<T, F, P>,
		arg: unknown,
		options: ResolveOptions<T>,
	): Promise<F | undefined>;
	/** Runs another action with its own kit, as its command would (no command bus). */
	invoke(this: void, action: Action, arg?: unknown): Promise<unknown>;
	/** Follows a run in its output channel (the Runs view marks it). */
	follow(this: void, agentId: string, runId: string, hint?: RunNameHint): Promise<void>;
	/**
	 * The run follower (what is followed, the status bar's run). It follows the default deployment's
	 * runs: an action on another deployment's row sees one that follows nothing (issue 47).
	 */
	readonly follower: ActionFollower;
	/**
	 * The deployment of the row the action runs on (issue 47): its id when it is not the default one,
	 * and the name that says which it is when two or more are configured (undefined with one).
	 */
	readonly deployment?: { readonly id: string | undefined; readonly shownName: string | undefined };
	/** The read-only record documents, in the row's deployment (recordDocuments.ts `recordsIn`). */
	readonly records: RecordShower;
	/** The image documents, in the row's deployment (recordDocuments.ts `imagesIn`). */
	readonly images: Pick<ImageDocuments, 'show'>;
	/** A read-only JSON document of a record, titled by `title`, its tab reused for the same `key`. */
	showJson(this: void, title: string, key: string[], value: unknown): Promise<vscode.TextDocument>;
	/** The extension's global state and storage. */
	readonly context: vscode.ExtensionContext;
	/** The user's own files, where the extension host reaches them (the platform's). */
	readonly userFiles: UserFiles;
	readonly log: vscode.LogOutputChannel;
	/** A modal warning with one action: true when the user chose it (always true for automation). */
	confirm(this: void, message: string, detail: string | undefined, action: string): Promise<boolean>;
	/** Runs work under a cancellable progress notification. */
	progress<R>(this: void, title: string, work: (signal: AbortSignal, report: (message: string) => void) => Promise<R>): Promise<R>;
	/**
	 * Runs a request that is usually quick: when it has not ended after PENDING_SAID_AFTER_MS, a
	 * cancellable progress notification titled `title` says it waits, until it ends (issue 42, item
	 * 3: a stalled service was two minutes of silence). Cancel aborts `signal` (the request rejects
	 * with an AbortError). An automation caller gets no notification.
	 */
	pending<R>(this: void, title: string, work: (signal: AbortSignal) => Promise<R>): Promise<R>;
	/** An information message for a person (an automation caller's goes to the log). */
	info(this: void, message: string): void;
	/** Puts `text` on the clipboard and says `message` in the status bar for a few seconds. */
	copy(this: void, text: string, message: string): Promise<void>;
	/** A warning message for a person (an automation caller's goes to the log). */
	warn(this: void, message: string): void;
}
