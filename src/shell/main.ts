import * as vscode from 'vscode';
import { type FlowCommand, registerFlows } from '../views/registry';
import { LazyFileSystemProvider } from '../workspace/fs/lazyProvider';
import { Disposable, onSignedOut } from '../util/lifecycle';
import { Session } from '../auth/session';
import { deploymentNameWhenSeveral } from '../auth/deployments';
import { RunFollower } from '../runFollowing';
import { RunEventStore } from '../runFollowing/runStore';
import { authCommands, authProvider } from '../flows/auth';
import type { AuthFlows, CloudAgentsAuthProvider } from '../auth/authProvider';
import { CloudAgentViews } from '../views';
import { Connectivity } from '../views/connectivity';
import { ConnectionStatusBar } from '../views/connectivityStatus';
import { RowCache } from '../views/rowCache';
import { ImageDocuments } from '../views/imageDocuments';
import { RecordDocuments } from '../views/recordDocuments';
import type { Services } from '../views/actions';
import type { loadFeatures } from './featureEntry';
import { LazyFeatures } from './lazy';
import type { Platform } from '../platform/types';
import { nodePlatform } from '../platform/node/nodePlatform';
import type { NodeLocalFiles } from '../platform/node/nodeLocalFiles';
import { isRegistered } from '../views/registry';
import { registerWelcomeProbe } from '../flows/welcomeProbe';
import {
	AGENT_WINDOWS_FOLDER,
	COMMAND_IDS,
	CONTEXT_KEYS,
	EMPTY_SCHEME,
	FILE_SYSTEM_SCHEMES,
	FS_SCHEME,
	LINKS_KEY,
	PROVIDER_SCHEME,
	VIEW_IDS,
	CONFIG,
} from '../ids';
import type { ToolHandlers } from '../chat/lazyTools';
import { Activity } from '../activity/activity';
import { ACTIVITY_VIEW_ID, ActivityPresenter, ActivityTree, activityCommands } from '../flows/activity';
import type { ActivationFacts, Body, Shell, StartBody } from './standIns';
import { LIST_DESCRIPTORS, connectLists } from '../resources';
import { agentsList } from '../resources/agents';
import { runsList } from '../resources/runs';
import { runtimesList } from '../resources/runtimes';
import { type TestRecorder, githubApiUrlForTests, registerTestSeams, startRecording } from '../testing';
import { SAFETY } from '../base/limits';

/** How long after activation the HTTP client is loaded when signed in (Session.warmUpClient). */
const CLIENT_WARM_UP_DELAY_MS = 1_000;

/**
 * The extension's body: everything it creates while active, started in the first idle moment after
 * activation or by the first call to one of activation's stand-ins (src/shell/standIns.ts), which it
 * hands its providers to. No network I/O here: views fetch when they become visible, commands when
 * they run.
 */
class CloudAgentsExtension extends Disposable {
	/** The extension's log, created at activation (the shell's). */
	readonly log: vscode.LogOutputChannel;
	/** The shared connection to the service (API URL, token, client); see src/auth/session.ts. */
	readonly session: Session;
	/** Follows runs into output channels; `onDidReceiveEvent` publishes every received event. */
	readonly runFollower: RunFollower;
	/** Settles once activation-time setup (the signed-in context key) is done. */
	readonly ready: Promise<void>;
	/** The tree views (every list of src/resources). */
	readonly views: CloudAgentViews;
	/** The commands whose code loads on first use. */
	readonly features: LazyFeatures;
	/** The Accounts menu's provider (made with the session, before the features). */
	private accounts: CloudAgentsAuthProvider | undefined;
	/** What the extension showed, for the tests (only under the test harness or in development: src/testing.ts). */
	readonly recorder: TestRecorder | undefined;
	/** Every followed run's events on disk. */
	readonly runStore: RunEventStore;
	/** What the watcher over the account noticed (issue 45), its view and its announcements. */
	readonly activity: Activity;
	private readonly activityPresenter: ActivityPresenter;

	constructor(
		readonly context: vscode.ExtensionContext,
		readonly platform: Platform,
		/** Activation's stand-ins, which the body's providers are handed to (src/shell/standIns.ts). */
		private readonly shell: Shell,
	) {
		super();
		this.log = shell.log;
		// First, so it sees every message, output channel and status bar item (the log aside).
		this.recorder = startRecording(context);
		if (this.recorder) {
			this.register(this.recorder);
		}
		this.session = this.register(new Session(context.secrets, this.log, platform.connect));
		this.runStore = new RunEventStore(vscode.Uri.joinPath(context.globalStorageUri, 'runs'));
		this.runFollower = this.register(
			new RunFollower({
				session: this.session,
				store: this.runStore,
				globalState: context.globalState,
				workspaceState: context.workspaceState,
				log: this.log,
				// With two or more deployments configured its runs name it, as the other deployments' followers name theirs (issue 47).
				deploymentName: () => deploymentNameWhenSeveral(),
			}),
		);
		this.ready = this.startSession();
		this.views = this.createViews(this.watchConnectivity());
		const shown = this.watchActivity();
		this.activity = shown.activity;
		this.activityPresenter = shown.presenter;
		const services = this.services();
		this.registerShellCommands();
		this.features = this.loadFeaturesOnFirstUse(services);
		// Seams for the test harness only (src/testing.ts): nothing is registered outside it.
		this.registerAll(
			registerTestSeams({
				views: this.views,
				lists: LIST_DESCRIPTORS,
				globalState: context.globalState,
				agents: agentsList,
				features: this.features,
				recorder: this.recorder,
			}),
		);
		this.afterActivation();
		this.log.info(`Cloud Agents activated in ${vscode.env.appName} ${vscode.version}`);
	}

	/** A 401 of a failed command goes to the session's single "sign in again" prompt. */
	private readonly onUnauthorized = (err: unknown): boolean => this.session.reportError(err);

	/** The sign-in and sign-out flows: their code (src/auth/signIn.ts) loads with the features, on first use. */
	private readonly authFlows: AuthFlows = {
		signIn: (deps, args) => this.features.load().auth.signIn(deps, args),
		signOut: (deps, args) => this.features.load().auth.signOut(deps, args),
		addDeployment: (deps, args) => this.features.load().auth.addDeployment(deps, args),
	};

	/** The sign-in flow, as the Sign In command runs it (for "Sign In" buttons of our messages). */
	private readonly runSignIn = (): Promise<unknown> => this.authFlows.signIn({ session: this.session, log: this.log });

	/** Registers every disposable of a list. */
	private registerAll(disposables: readonly vscode.Disposable[]): void {
		for (const d of disposables) {
			this.register(d);
		}
	}

	/**
	 * The session's sign-in flow and commands, and its first read of the stored token. No network
	 * here: only stores CLOUD_AGENTS_DEV_TOKEN for a loopback URL and sets the context key.
	 */
	private startSession(): Promise<void> {
		const { session, log } = this;
		session.setSignInFlow(this.runSignIn);
		this.accounts = this.register(authProvider({ session, log, flows: this.authFlows }, this.shell));
		return session.initialize(process.env.CLOUD_AGENTS_DEV_TOKEN).catch((err: unknown) => {
			log.error('Reading the stored token failed:', err instanceof Error ? err : String(err));
		});
	}

	/**
	 * Whether the service answers, shared by every view: every request of the shared client reports
	 * to it while signed in, so any answer brings offline views back at once; with no view waiting,
	 * HEAD /healthz asks (src/views/connectivity.ts). "reconnecting" in the status bar meanwhile.
	 */
	private watchConnectivity(): Connectivity {
		const { session } = this;
		const connectivity = new Connectivity({
			probe: () => session.client.healthHead({ signal: AbortSignal.timeout(SAFETY.connectionCheckTimeoutMs) }),
		});
		this.register({ dispose: () => connectivity.dispose() });
		session.setRequestObserver((err, startedAt) => {
			if (session.signedIn) {
				connectivity.report(err, { startedAt });
			}
		});
		this.register(session.onDidChange(() => connectivity.reset()));
		this.register(new ConnectionStatusBar(connectivity));
		return connectivity;
	}

	/** The tree views of every list (src/resources), and how the lists follow one another. */
	private createViews(connectivity: Connectivity): CloudAgentViews {
		const { session, log, context } = this;
		// The rows as last loaded (globalState, keyed by the API URL and a fingerprint of the token):
		// shown marked when a view opens, until its first answer (src/views/rowCache.ts).
		const rowCache = this.register(
			new RowCache(context.globalState, session, (err) => log.warn(`Keeping the rows as last loaded failed: ${String(err)}`)),
		);
		const views = this.register(
			new CloudAgentViews(
				session,
				log,
				(err) => void session.reportError(err),
				LIST_DESCRIPTORS,
				connectivity,
				rowCache,
				this.context.workspaceState,
				this.shell,
			),
		);
		// Each deployment's lists follow one another (the other deployments' once their lists are made).
		views.connect(connectLists);
		// Followed runs get `:followed` in the Runs view (only Stop Following shows inline then).
		views.setFlag('followed', (runId, agentId) => this.runFollower.stateOf(agentId ?? '', runId)?.active ?? false);
		this.register(this.runFollower.onDidChangeFollowing(() => views.providerOf(runsList).redraw()));
		return views;
	}

	/**
	 * Activity (issue 45): the watcher over the account, started with the HTTP client after
	 * activation (afterActivation), its view with the unread count as badge, and its announcements,
	 * one window of the profile each (the platform's claims under globalStorageUri). A run this
	 * window follows is announced by the run follower, which claims it too.
	 */
	private watchActivity(): { activity: Activity; presenter: ActivityPresenter } {
		const { session, log, context, runFollower, views } = this;
		const focus = async (viewId: string): Promise<void> => {
			// VS Code's own command of the view (`<view id>.focus`), not one of ours.
			await vscode.commands.executeCommand(`${viewId}.focus`);
		};
		// The presenter needs the Activity, the Activity announces through the presenter.
		const shown: { presenter?: ActivityPresenter } = {};
		const activity = this.register(
			new Activity({
				session,
				globalState: context.globalState,
				claims: this.platform.claims(vscode.Uri.joinPath(context.globalStorageUri, 'activity-claims')),
				log,
				isFollowed: (agentId, runId) => runFollower.stateOf(agentId, runId) !== undefined,
				present: (events) => shown.presenter?.presentAll(events),
			}),
		);
		const presenter = new ActivityPresenter(
			activity,
			{
				openRunResult: (agentId, runId) => this.features.load().openRunResult(agentId, runId),
				revealAgent: async (agentId) => {
					await focus(VIEW_IDS.agents);
					await views.selectById(agentsList, agentId);
				},
				revealRuntime: async (runtimeId) => {
					await focus(VIEW_IDS.runtimes);
					await views.selectById(runtimesList, runtimeId);
				},
				revealBuilds: () => focus(VIEW_IDS.account),
				revealActivity: () => focus(VIEW_IDS.activity),
			},
			log,
		);
		const tree = this.register(new ActivityTree(activity));
		tree.attach(this.register(this.shell.treeView(ACTIVITY_VIEW_ID, tree, { showCollapseAll: false })));
		shown.presenter = presenter;
		runFollower.setEndClaim({ claim: (runId) => activity.claimRunEnd(runId), following: (runId) => activity.noteFollowing(runId) });
		return { activity, presenter };
	}

	/**
	 * What every action and feature is handed, with the read-only documents for run results, runtime
	 * details and text artifacts. Every scheme a tab can hold is served from activation (its
	 * `onFileSystem:` activation event in package.json), so VS Code can restore the tab after a
	 * reload: records, images, the empty side of an added or deleted file's diff (Source Control),
	 * and below the `cloud-agent:` and model provider file systems.
	 */
	private services(): Services {
		this.register(this.shell.textDocuments(EMPTY_SCHEME, { provideTextDocumentContent: () => '' }));
		const records = this.register(new RecordDocuments(this.shell));
		const images = this.register(new ImageDocuments(this.shell));
		// Signing out takes the account's results, details and artifacts off the screen (issue 42, item 5).
		this.register(
			onSignedOut(this.session, () => {
				void Promise.all([records.forgetAll(), images.forgetAll()]).catch((err: unknown) =>
					this.log.warn(`Closing the account's tabs after sign-out failed: ${err instanceof Error ? err.message : String(err)}`),
				);
			}),
		);
		return {
			session: this.session,
			views: this.views,
			log: this.log,
			context: this.context,
			records,
			images,
			follower: this.runFollower,
			signIn: this.runSignIn,
			onUnauthorized: this.onUnauthorized,
			githubApiUrl: githubApiUrlForTests,
			userFiles: this.platform.userFiles,
			localFiles: this.platform.localFiles,
			activity: this.activity,
		};
	}

	/**
	 * The commands on no record that answer at activation, not loaded on first use (those are
	 * src/shell/features.ts's): sign-in and sign-out, Retry Connection, Refresh; and the signed-out
	 * welcome's probe.
	 */
	private registerShellCommands(): void {
		const { session, log, views } = this;
		const flows: FlowCommand[] = [
			// Every configured deployment's session: with the features, which the flows load anyway.
			...authCommands({ session, log, deployments: () => this.features.load().deployments, flows: this.authFlows }),
			...activityCommands(this.activity, this.activityPresenter),
			// An Offline row of another deployment names it (src/views/deploymentTree.ts): that one is retried.
			{ id: 'cloudAgents.retryConnection', run: (arg?: unknown) => views.retryNow(arg) },
			{
				id: 'cloudAgents.refresh',
				// Refresh also asks again an agent workspace that was found to speak another interface
				// (only a loaded workspace feature can have found one).
				run: async () => {
					this.features.current?.workspace.retryInterface(undefined);
					await views.refreshAll();
				},
			},
		];
		this.registerAll(registerFlows(flows, log, { onUnauthorized: this.onUnauthorized }));
		this.registerAll(registerWelcomeProbe({ session, log, agentsView: () => views.viewOf(agentsList)?.view }));
	}

	/**
	 * The lists' and features' commands load on first use (src/shell/featureEntry.ts, in
	 * dist/features.js): until then each contributed command not registered above is a stand-in, and
	 * so are the `cloud-agent:` file system and the language-model tools.
	 */
	private loadFeaturesOnFirstUse(services: Services): LazyFeatures {
		const log = this.log;
		const lazyIds = COMMAND_IDS.filter((id) => !isRegistered(id));
		const features = this.register(
			new LazyFeatures(
				lazyIds,
				() => {
					// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use: see esbuild.mjs
					const entry = require('./featureEntry') as { loadFeatures: typeof loadFeatures };
					const loaded = entry.loadFeatures(services, this.session);
					// The Accounts menu: a session per signed-in deployment from now on (issue 47).
					loaded.disposables.push(...(this.accounts ? [this.accounts.showDeployments(loaded.deployments)] : []));
					return loaded;
				},
				log,
			),
		);
		// The `cloud-agent:` file system: activation's stand-in hands it every call (a window restored
		// with an agent folder activates the extension through it), its code loads with the features on
		// VS Code's first call.
		const fs = this.register(
			new LazyFileSystemProvider(() => features.load().workspace.provider, log, { copies: FILE_SYSTEM_SCHEMES[FS_SCHEME]?.copies }),
		);
		this.register(this.shell.fileSystem(FS_SCHEME, fs, FILE_SYSTEM_SCHEMES[FS_SCHEME] ?? {}));
		// So are the model provider documents (a tab VS Code restores after a reload reads one before any
		// command of ours runs: `onFileSystem:cloud-agents-provider` activates the extension for it).
		const providers = this.register(
			new LazyFileSystemProvider(() => features.load().modelProviders, log, {
				what: () => vscode.l10n.t('model provider documents'),
				copies: FILE_SYSTEM_SCHEMES[PROVIDER_SCHEME]?.copies,
			}),
		);
		this.register(this.shell.fileSystem(PROVIDER_SCHEME, providers, FILE_SYSTEM_SCHEMES[PROVIDER_SCHEME] ?? {}));
		// The end-of-run notification's "Open Result" runs the Runs view's action (loaded on first use).
		this.runFollower.setResultOpener((agentId, runId) => features.load().openRunResult(agentId, runId));
		return features;
	}

	/**
	 * Whether this window is opened on a file under the agent windows' folder and shows no folder: a
	 * path check only, so activation loads no workspace code; the workspace feature parses the file's
	 * path strictly (src/workspace/agentWindow.ts) before it changes anything.
	 */
	private isAgentWindowWithoutFolder(): boolean {
		const file = vscode.workspace.workspaceFile;
		const windows = vscode.Uri.joinPath(this.context.globalStorageUri, AGENT_WINDOWS_FOLDER);
		return (
			file !== undefined &&
			file.scheme === windows.scheme &&
			file.path.startsWith(`${windows.path}/`) &&
			(vscode.workspace.workspaceFolders?.length ?? 0) === 0
		);
	}

	/**
	 * What activation's stand-ins hand the body (src/shell/standIns.ts): restored panels and the
	 * language-model tools' calls go to the features, loaded on the first of them.
	 */
	standInTargets(): Body {
		const { features } = this;
		// eslint-disable-next-line @typescript-eslint/no-this-alias -- read by the getter below
		const extension = this;
		const tools: ToolHandlers = {
			invoke: (name, options, token) => features.load().chatTools.invoke(name, options, token),
			prepare: (name, options, token) => features.load().chatTools.prepare(name, options, token),
		};
		return {
			restorePanel: (viewType, panel, state) => features.load().restorePanel(viewType, panel, state),
			tools,
			testApi: testApiOf(this),
			get clientLoaded() {
				return extension.session.hasClient;
			},
		};
	}

	/** What follows activation: the `loaded` context key, the HTTP client warmed up, an agent window's folder, linked folders' changes. */
	private afterActivation(): void {
		const { session, context, features } = this;
		void this.ready.then(() => vscode.commands.executeCommand('setContext', CONTEXT_KEYS.loaded, true));
		// Signed in, the HTTP client (dist/client.js: undici, ~60 ms of loading) is loaded once the
		// window has settled, so the first listing does not load it between the click and its rows
		// (issue 23), and the first pages of the views that show when the container opens are read
		// then, their rows built (issue 44: descriptors with `readAhead`, Agents and Runtimes; the
		// click draws the answer at once). Not at activation: signed out, nothing is loaded or read.
		// Runtimes read at the click, its answer left the extension host in a message of its own
		// after the others, its reading taking the host's turns while the window drew the agent rows
		// (a trace of bench firstRows, 2026-12-07); read ahead, the four views' rows leave together.
		this.register(session.warmUpClient(CLIENT_WARM_UP_DELAY_MS, () => this.views.readAhead()));
		// Activity watches the account from then on (signed out: from the sign-in on).
		const watch = setTimeout(() => this.activity.start(), CLIENT_WARM_UP_DELAY_MS);
		this.register({ dispose: () => clearTimeout(watch) });
		// Linked folders show their agent's changes in Source Control from the start (src/changes/), and
		// an agent's window that VS Code opened without its folder gets it back (src/workspace/agentWindow.ts).
		const links: unknown = context.globalState.get(LINKS_KEY);
		if ((Array.isArray(links) && links.length > 0) || this.isAgentWindowWithoutFolder() || deploymentsListed()) {
			const timer = setTimeout(() => features.load(), 0);
			this.register({ dispose: () => clearTimeout(timer) });
		}
		// Deployments beside the default one have their sessions with the features (src/auth/deploymentSessions.ts):
		// loaded as soon as one is listed, so their sign-in state, the palette's Sign In and the setting's problems are there.
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration(`${CONFIG.section}.${CONFIG.deployments}`) && deploymentsListed()) {
					features.load();
				}
			}),
		);
	}
}

/** True when `cloudAgents.deployments` has entries (whatever they hold: the features' DeploymentSessions reads them). */
function deploymentsListed(): boolean {
	const listed: unknown = vscode.workspace.getConfiguration(CONFIG.section).get(CONFIG.deployments);
	return Array.isArray(listed) ? listed.length > 0 : listed !== undefined && listed !== null;
}

/**
 * What `activate` returns to the integration tests: only when the test harness runs
 * (CLOUD_AGENTS_TEST_REPORT set) or outside production mode, because it can read the token. Each
 * member but `activation` is the body's, read on first use (src/shell/standIns.ts).
 */
export interface CloudAgentsTestApi {
	session: Session;
	runFollower: RunFollower;
	ready: Promise<void>;
	logUri: vscode.Uri;
	/** The extension's log: a line the harness writes here and waits to read in the log file shows the lines before it are written. */
	log: Pick<vscode.LogOutputChannel, 'info'>;
	globalStorageUri: vscode.Uri;
	/** The commands loaded on first use: whether they are, and loading them now. */
	features: Pick<LazyFeatures, 'isLoaded' | 'load'>;
	/** What the extension showed: messages, output channels, status bar items (src/testing.ts). */
	recorder: TestRecorder;
	/** Every followed run's events on disk, as the run follower keeps them. */
	runStore: Pick<RunEventStore, 'read' | 'flushed'>;
	/** What the watcher over the account noticed (issue 45). */
	activity: Activity;
	/**
	 * What activation left behind (issue 44): whether the body and the HTTP client were loaded when
	 * `activate()` returned (neither may be: the body starts in the idle time after, and loads the
	 * client later still, when signed in).
	 */
	activation: ActivationFacts;
}

/** The test API's members that are the body's. */
function testApiOf(extension: CloudAgentsExtension): Omit<CloudAgentsTestApi, 'activation'> | undefined {
	const { recorder, context } = extension;
	return recorder
		? {
				session: extension.session,
				runFollower: extension.runFollower,
				ready: extension.ready,
				logUri: context.logUri,
				log: extension.log,
				globalStorageUri: context.globalStorageUri,
				features: extension.features,
				recorder,
				runStore: extension.runStore,
				activity: extension.activity,
			}
		: undefined;
}

/** Starts the body on `platform` with activation's stand-ins: each host's `StartBody` (src/shell/standIns.ts). */
export function start(context: vscode.ExtensionContext, platform: Platform, shell: Shell): Body {
	const extension = new CloudAgentsExtension(context, platform, shell);
	context.subscriptions.push(extension);
	return extension.standInTargets();
}

/** The body in Node's extension host (src/extension.ts). */
export const startNode: StartBody = (context, shell) =>
	start(
		context,
		nodePlatform((folder) => {
			// From the features' code (dist/features.js), which only the features (Source Control) call
			// this from: not in the body's bundle. See esbuild.mjs.
			// eslint-disable-next-line @typescript-eslint/no-require-imports
			const entry = require('./featureEntry') as { NodeLocalFiles: typeof NodeLocalFiles };
			return new entry.NodeLocalFiles(folder);
		}),
		shell,
	);
