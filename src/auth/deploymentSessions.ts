/**
 * One Session per configured deployment (src/auth/deployments.ts): the default one, which the
 * extension has always had (`cloudAgents.apiUrl`), and one for each entry of
 * `cloudAgents.deployments`, each with its own URL, token and client. Sessions come and go with
 * the setting; signing in or out of one leaves the others as they are. A token is read by its own
 * deployment's session only (`tokenKey` of its URL, one origin per deployment), and each client
 * sends to its own URL only.
 */
import * as vscode from 'vscode';
import { CONFIG, CONTEXT_KEYS } from '../ids';
import { Disposable } from '../util/lifecycle';
import { notificationText, outputLine } from '../util/text';
import { type Deployment, type DeploymentList, readDeployments } from './deployments';
import { KeyedHolder } from './keyedHolder';
import { PerDeployment, type PerDeploymentItem, type PerDeploymentWhich } from './perDeployment';
import type { Session } from './session';

/** A deployment and its session. */
export interface DeploymentSession {
	readonly deployment: Deployment;
	readonly session: Session;
}

/** Where the refused entries of the setting are written. */
export interface DeploymentLog {
	warn(message: string): void;
}

/** The sessions of every configured deployment, the default one first. */
export class DeploymentSessions extends Disposable {
	private readonly _onDidChange = this.register(new vscode.EventEmitter<void>());
	/** Fires when a deployment is added or removed, and when any session's sign-in state changes. */
	readonly onDidChange = this._onDidChange.event;

	private list: DeploymentList;
	/** The sessions of the deployments other than the default one, by deployment id (a renamed one gets a new session). */
	private readonly others: KeyedHolder<Deployment, { session: Session } & vscode.Disposable>;
	/** The problems last told (the same ones are not told again on every change of the settings). */
	private told = '';
	/** The `cloudAgents.severalDeployments` context key as last set (unset reads as false: with one deployment it is never set). */
	private several = false;

	constructor(
		/** The default deployment's session (the extension's shared one). */
		private readonly defaultSession: Session,
		/** Makes the session of a deployment other than the default one. */
		private readonly makeSession: (deployment: Deployment) => Session,
		private readonly log: DeploymentLog,
	) {
		super();
		this.others = new KeyedHolder(
			(deployment) => this.open(deployment),
			(held, now) => held.name === now.name,
		);
		this.list = readDeployments();
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (
					e.affectsConfiguration(`${CONFIG.section}.${CONFIG.deployments}`) ||
					e.affectsConfiguration(`${CONFIG.section}.${CONFIG.apiUrl}`)
				) {
					this.reload();
				}
			}),
		);
		this.register(defaultSession.onDidChange(() => this._onDidChange.fire()));
		this.register(this.others);
		this.sync();
		this.tell();
	}

	/** Every configured deployment with its session, the default one first. */
	get all(): readonly DeploymentSession[] {
		return this.list.deployments.map((deployment) => ({
			deployment,
			session: deployment.isDefault ? this.defaultSession : this.others.get(deployment.id)!.session,
		}));
	}

	/** The deployments whose session holds a token. */
	get signedIn(): readonly DeploymentSession[] {
		return this.all.filter((d) => d.session.signedIn);
	}

	/** Why entries of `cloudAgents.deployments` were refused (one sentence each). */
	get problems(): readonly string[] {
		return this.list.problems;
	}

	/** The deployment of this id, or of this name (any case); undefined when none is configured. */
	find(nameOrId: string): DeploymentSession | undefined {
		const wanted = nameOrId.trim().toLowerCase();
		return this.all.find((d) => d.deployment.id === wanted) ?? this.all.find((d) => d.deployment.name.toLowerCase() === wanted);
	}

	/**
	 * A thing for each deployment other than the default one that is signed in (or configured), by
	 * deployment id: made when it comes, disposed when it goes (signed out, removed, renamed), all
	 * disposed with the holder (src/auth/perDeployment.ts).
	 */
	perDeployment<T extends PerDeploymentItem>(
		make: (deployment: DeploymentSession) => T,
		which: PerDeploymentWhich,
	): PerDeployment<Session, T> {
		return new PerDeployment(this, make, which);
	}

	/** Reads the settings again (after a change, or after the sign-in flow wrote them) and fires when the list changed. */
	reload(): void {
		const before = JSON.stringify(this.list.deployments);
		this.list = readDeployments();
		this.sync();
		this.tell();
		if (JSON.stringify(this.list.deployments) !== before) {
			this._onDidChange.fire();
		}
	}

	/** A session for each configured deployment other than the default, none for any other (a renamed one gets a new session). */
	private sync(): void {
		const wanted = new Map(this.list.deployments.filter((d) => !d.isDefault).map((d) => [d.id, d]));
		if (this.several !== wanted.size > 0) {
			this.several = wanted.size > 0;
			// Sign In and Sign Out stay in the palette while signed in: another deployment may not be.
			void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.severalDeployments, this.several);
		}
		this.others.sync(wanted);
	}

	/** The session of a deployment other than the default one, its changes told as the list's, its sign-in state being read. */
	private open(deployment: Deployment): { session: Session } & vscode.Disposable {
		const session = this.makeSession(deployment);
		const listener = session.onDidChange(() => this._onDidChange.fire());
		void session.initialize(undefined).catch((err: unknown) => {
			this.log.warn(outputLine(`Could not read the sign-in state of the deployment ${deployment.name}: ${String(err)}`));
		});
		return {
			session,
			dispose: () => {
				listener.dispose();
				session.dispose();
			},
		};
	}

	/** Says once why entries of the setting were refused (a warning and the log), not again until they change. */
	private tell(): void {
		const text = this.list.problems.join(' ');
		if (text === this.told) {
			return;
		}
		this.told = text;
		for (const problem of this.list.problems) {
			this.log.warn(outputLine(problem));
		}
		if (text !== '') {
			void vscode.window.showWarningMessage(notificationText(text));
		}
	}
}
