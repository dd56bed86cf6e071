import * as vscode from 'vscode';
import { SAFETY } from '../api';
import { registerCommand } from './registry';
import { isCancellation, showApiError } from '../messages/errors';
import { whenRead } from '../util/lifecycle';
import { iconSafe, notificationText, plainText } from '../util/text';
import type { Action, ActionFollower, ActionKit, ActionSession, ResourceActions, ScmAction, Services } from './actions';
import type { AnyListDescriptor } from './descriptor';
import { manifestCommandTitles } from '../ids';
import { inDeployment, loadMoreList, refreshList, scopeOf } from './deploymentViews';
import { namedRecordUri, recordsIn, titledRecordUri, withDeploymentPart } from './recordDocuments';
import { addressPart, shownDeploymentName } from '../auth/deployments';
import { type TargetDeps, resolveFiles, resolveLink, resolveTarget } from './targets';
import { isAutomation, showInfo, showModalWarning, showWarning, toAbortSignal } from './ui';

/**
 * The one place that registers the commands of the lists, of the resources' actions and of Source
 * Control's, finds what an action acts on, and applies one rule to what it tells:
 * - each list's `refresh` re-reads it (with a subtree's id, from its Retry row, only that subtree)
 *   and `loadMore` reads one page more;
 * - each action resolves its target through the command-target resolver (src/views/targets.ts: a
 *   row, a link or an automation object naming it, the selection, or a quick pick; for Source
 *   Control, a source control, group or resource states, a local URI, `{link, paths}`, or a pick)
 *   and runs with a kit;
 * - the automation contract (src/views/automation.ts): a caller whose argument carries the marker
 *   gets the error thrown, is never asked to confirm, and its messages go to the log; anyone else
 *   is a person: a failure is shown once as a message (a 401 goes to the session's single sign-in
 *   prompt), confirmations are asked, messages shown. Cancellations are silent.
 */
export class ActionRegistry {
	private titles: ReadonlyMap<string, string> | undefined;

	constructor(
		private readonly services: Services,
		private readonly lists: readonly AnyListDescriptor[],
		private readonly resources: readonly ResourceActions[],
		/**
		 * The run follower of a signed-in deployment other than the default one, by its id (issue 47:
		 * src/shell/deploymentFollowers.ts); without it, or for a deployment without one, actions on
		 * that deployment's rows follow nothing.
		 */
		private readonly followerOf?: (deploymentId: string) => ActionFollower | undefined,
	) {}

	/** Registers every list command and action; the caller owns the disposables. */
	register(): vscode.Disposable[] {
		const out: vscode.Disposable[] = [];
		const { log, views } = this.services;
		const options = { onUnauthorized: this.services.onUnauthorized, rethrow: (arg?: unknown) => isAutomation(arg) };
		for (const descriptor of this.lists) {
			const { refresh, loadMore } = descriptor.commands ?? {};
			// With the id of a subtree (its Retry or Load more row), or a row's argument naming another deployment (deploymentTree.ts).
			if (refresh) {
				out.push(registerCommand(refresh, (listId?: unknown) => refreshList(views, descriptor, listId), log, options));
			}
			if (loadMore) {
				out.push(registerCommand(loadMore, (listId?: unknown) => loadMoreList(views, descriptor, listId), log, options));
			}
		}
		// A failure of an action on a row of another deployment goes to that deployment's 401 prompt, and names it when there are several.
		const actionOptions = { ...options, errorContext: (arg?: unknown) => this.errorContext(arg) };
		for (const actions of this.resources) {
			for (const action of Object.values(actions)) {
				out.push(registerCommand(action.command, (...args: unknown[]) => this.invokeWith(action, args), log, actionOptions));
			}
		}
		return out;
	}

	/**
	 * The command's title as package.json contributes it, without a trailing "…" (the quick pick it
	 * titles is the rest of the command), so an action does not write its name a second time.
	 */
	private titleOf(action: Action): string {
		return (action.on !== undefined ? action.title?.() : undefined) ?? this.commandTitle(action.command);
	}

	private commandTitle(command: string): string {
		this.titles ??= manifestCommandTitles(this.services.context.extension.packageJSON);
		return this.titles.get(command)?.replace(/\u2026$/, '') ?? command;
	}

	/** Runs an action as its command would, with `arg` as the command's argument; failures are thrown. */
	invoke(action: Action, arg?: unknown): Promise<unknown> {
		return this.invokeWith(action, arg === undefined ? [] : [arg]);
	}

	/**
	 * Runs an action for a person outside a command (a button of our own notification: the run
	 * follower's "Open Result"): as for a click on its command, a failure is logged and shown once
	 * (a 401 goes to the session's sign-in prompt) and cancellations are silent.
	 */
	async invokeShown(action: Action, arg?: unknown): Promise<unknown> {
		try {
			return await this.invoke(action, arg);
		} catch (err) {
			if (isCancellation(err)) {
				return undefined;
			}
			this.services.log.error(`${action.command} failed:`, err instanceof Error ? err : String(err));
			const context = this.errorContext(arg);
			void showApiError(err, undefined, context.prefix, context.onUnauthorized ?? this.services.onUnauthorized, undefined, () =>
				this.invokeShown(action, arg),
			);
			return undefined;
		}
	}

	/**
	 * How a failure of an action run with `arg` is shown (issue 47): named after its row's
	 * deployment when two or more are configured (`shownDeploymentName`), and a 401 of another
	 * deployment's row goes to that deployment's own "sign in again" prompt.
	 */
	private errorContext(arg: unknown): { prefix?: string; onUnauthorized?: (err: unknown) => boolean } {
		const scope = scopeOf(this.services.views, arg);
		const session = scope.session;
		return {
			prefix: shownDeploymentName(scope.deployment),
			onUnauthorized: session?.reportError ? (err) => session.reportError!(err) : undefined,
		};
	}

	private async invokeWith(action: Action, args: readonly unknown[]): Promise<unknown> {
		const arg = args[0];
		const kit = this.kit(action, arg, args);
		if ('scm' in action) {
			return this.runScm(action, kit, args);
		}
		if (action.on === undefined) {
			return action.run(kit);
		}
		if (!kit.automation && !(await this.signedInOnceKnown(kit.session)) && !(await this.signInFirst(action))) {
			return undefined;
		}
		const pick = action.pick;
		const target: unknown = await resolveTarget(kit.targets, action.on, action.targetArg ? action.targetArg(arg) : arg, {
			title: this.titleOf(action),
			filter: action.filter,
			useSelection: action.useSelection,
			alsoOn: action.alsoOn,
			pick: pick && ((): Promise<unknown> => pick(kit)),
		});
		return target === undefined ? undefined : action.run(target, kit);
	}

	/** A Source Control action: its link or files found by the one rule (targets.ts), then run. */
	private async runScm(action: ScmAction, kit: ActionKit, args: readonly unknown[]): Promise<unknown> {
		if (action.acts === 'files') {
			return action.run(resolveFiles(action.scm, args), kit);
		}
		const link: unknown = await resolveLink(action.scm, kit.arg, {
			title: kit.title,
			placeHolder: action.placeHolder(),
			tell: kit.info,
		});
		return link === undefined ? undefined : action.run(link, kit);
	}

	/**
	 * Whether a token is stored, once the session has read it: a command from the palette activates
	 * the extension and runs at once, while the sign-in state is still being read from SecretStorage
	 * (a round trip to the window, long on a busy machine); until then `signedIn` is false whatever
	 * is stored, and the person would be told they are signed out. Waits for the first read, at most
	 * SAFETY.sessionReadMaxMs (then the state as it stands).
	 */
	private async signedInOnceKnown(session: ActionSession): Promise<boolean> {
		await whenRead(session, SAFETY.sessionReadMaxMs);
		return session.signedIn;
	}

	/**
	 * A person ran an action on a record while signed out (Send Prompt stays in the palette): says
	 * so and offers Sign In; true when the sign-in succeeded, so the action goes on (to its pick).
	 * Otherwise nothing more happens, and the message said why.
	 */
	private async signInFirst(action: Action): Promise<boolean> {
		const signIn = vscode.l10n.t('Sign In');
		const choice = await showInfo(
			vscode.l10n.t('You are signed out of Cloud Agents. Sign in to use {0}.', this.commandTitle(action.command)),
			signIn,
		);
		if (choice !== signIn) {
			return false;
		}
		await this.services.signIn();
		return this.services.session.signedIn;
	}

	/**
	 * The kit of one invocation: a row of another deployment than the default one (or its command's
	 * argument) gets that deployment's lists, session and client (issue 47: deploymentViews.ts `scopeOf`).
	 */
	private kit(action: Action, arg: unknown, args: readonly unknown[]): ActionKit & { targets: TargetDeps } {
		const services = this.services;
		const scope = scopeOf(services.views, arg);
		const views = scope.lists;
		const session = scope.session ?? services.session;
		const automation = isAutomation(arg);
		// Records shown from another deployment's row are that deployment's documents (their URIs carry its part).
		const records = recordsIn(services.records, scope.deployment && addressPart(scope.deployment));
		// Each deployment's runs are followed by its own follower (issue 47), the default one's by the services'.
		const follower = scope.deployment === undefined ? services.follower : (this.followerOf?.(scope.deployment.id) ?? NOT_FOLLOWING);
		// With several deployments configured, what the action tells names its deployment (the default one's too).
		const shownName = shownDeploymentName(scope.deployment);
		const said = sayingDeployment(shownName);
		return {
			arg,
			args,
			title: this.titleOf(action),
			automation,
			targets: { views, context: services.context },
			client: () => session.client,
			session,
			signIn: () => services.signIn(),
			githubApiUrl: () => services.githubApiUrl(),
			list: (descriptor) => views.providerOf(descriptor),
			refresh: async () => {
				if (action.on !== undefined) {
					await views.providerOf(action.on).refresh();
				}
			},
			selected: (descriptor) => views.selected(descriptor),
			select: (descriptor, record) => views.select(descriptor, record),
			selectById: (descriptor, id) => views.selectById(descriptor, id),
			refreshFollowing: (descriptor) => views.refreshFollowing(descriptor),
			resolve: (descriptor, target, options) => resolveTarget({ views, context: services.context }, descriptor, target, options),
			// Another action run from this one acts in the same deployment ({agentId, runId} of a followed run of Staging is Staging's).
			invoke: (other, otherArg) => this.invoke(other, inDeployment(services.views, scope.deployment?.id, otherArg)),
			follow: async (agentId, runId, hint) => {
				if (follower === NOT_FOLLOWING) {
					this.tell(
						action,
						automation,
						vscode.l10n.t('Runs of {0} are not followed in this window.', scope.deployment?.name ?? ''),
						showInfo,
					);
					return;
				}
				await follower.follow(agentId, runId, hint ?? {});
			},
			follower,
			deployment: { id: scope.deployment?.id, shownName },
			records,
			images: imagesIn(services.images, scope.deployment && addressPart(scope.deployment), shownName),
			// JSON.stringify escapes control characters; plainText also drops bidi and invisible ones.
			showJson: (title, key, value) =>
				records.show(
					titledRecordUri(title, ...key),
					`${plainText(JSON.stringify(value, null, 2), SAFETY.documentMaxChars)}\n`,
					'json',
					{
						forceLanguage: true,
					},
				),
			context: services.context,
			userFiles: services.userFiles,
			log: services.log,
			confirm: async (message, detail, choice) => automation || (await showModalWarning(said(message), detail, choice)) === choice,
			progress: async (title, work) =>
				vscode.window.withProgress(
					{ location: vscode.ProgressLocation.Notification, title: notificationText(said(title)), cancellable: true },
					async (progress, token) => {
						const abort = toAbortSignal(token);
						try {
							return await work(abort.signal, (message) => progress.report({ message: notificationText(message) }));
						} finally {
							abort.dispose();
						}
					},
				),
			pending: (title, work) => pendingSaid(said(title), work, automation),
			info: (message) => this.tell(action, automation, said(message), showInfo),
			copy: async (text, message) => {
				await vscode.env.clipboard.writeText(text);
				vscode.window.setStatusBarMessage(iconSafe(message), 3000);
			},
			warn: (message) => this.tell(action, automation, said(message), showWarning),
		};
	}

	/**
	 * The one rule for what an action tells: a person sees the message; an automation caller's goes
	 * to the log (its result carries what it says). Either way the log records it.
	 */
	private tell(action: Action, automation: boolean, message: string, show: (message: string) => Thenable<unknown>): void {
		const text = notificationText(message);
		if (automation) {
			this.services.log.info(`${action.command} (automation): not shown: ${text}`);
			return;
		}
		this.services.log.info(`${action.command}: shown: ${text}`);
		void show(message);
	}
}

/**
 * The image documents (imageDocuments.ts) as an action on a row of the deployment whose addresses
 * carry `deploymentPart` shows them: in that deployment (its part as the URI authority, as
 * `withDeploymentPart` puts a record), the tab naming it (`name`: when two or more are configured, the
 * default one's too); the documents themselves with one deployment.
 */
export function imagesIn<I extends { show(uri: vscode.Uri, bytes: Uint8Array): Promise<vscode.Uri> }>(
	images: I,
	deploymentPart: string | undefined,
	name: string | undefined,
): Pick<I, 'show'> {
	return deploymentPart === undefined && name === undefined
		? images
		: { show: (uri, bytes) => images.show(namedRecordUri(withDeploymentPart(uri, deploymentPart), name), bytes) };
}

/**
 * What an action tells, as a person reads it beside other deployments' (`name`: the deployment's
 * name when two or more are configured, `shownDeploymentName`): "Staging: Deleted the agent …";
 * the message itself with one deployment.
 */
function sayingDeployment(name: string | undefined): (message: string) => string {
	return name === undefined ? (message) => message : (message) => vscode.l10n.t('{0}: {1}', name, message);
}

/**
 * The run follower as an action on another deployment's row sees it when that deployment has none
 * (no follower was handed for it): none of these are followed; deleting that deployment's agent of
 * an id the default deployment also has leaves the default one's followed runs alone.
 */
const NOT_FOLLOWING: ActionFollower = {
	following: [],
	stateOf: () => undefined,
	statusRunInfo: undefined,
	show: () => false,
	follow: async () => undefined,
	stop: () => false,
	forget: async () => undefined,
	dismissStatus: () => undefined,
};

/** How long a request runs unsaid before a progress notification says that it waits (ActionKit.pending). */
export const PENDING_SAID_AFTER_MS = 1_000;

/** ActionKit.pending: `work` at once; after PENDING_SAID_AFTER_MS still running, a cancellable progress until it ends. */
async function pendingSaid<R>(title: string, work: (signal: AbortSignal) => Promise<R>, automation: boolean): Promise<R> {
	const abort = new AbortController();
	const running = work(abort.signal);
	if (automation) {
		return running;
	}
	const ended: Promise<void> = running.then(
		() => undefined,
		() => undefined,
	);
	let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => {
		timer = undefined;
		void vscode.window.withProgress(
			{ location: vscode.ProgressLocation.Notification, title: notificationText(title), cancellable: true },
			async (_progress, token) => {
				const cancelled = token.onCancellationRequested(() => abort.abort());
				try {
					await ended;
				} finally {
					cancelled.dispose();
				}
			},
		);
	}, PENDING_SAID_AFTER_MS);
	try {
		return await running;
	} finally {
		if (timer !== undefined) {
			clearTimeout(timer);
		}
	}
}
