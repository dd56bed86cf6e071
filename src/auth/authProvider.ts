import * as vscode from 'vscode';
import { sha256HexSync } from '../base/random';
import { AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL } from '../ids';
import { Disposable } from '../util/lifecycle';
import { type Registrations, directRegistrations } from '../util/registrations';
import type { Session } from './session';
import { accountLabel } from './accountLabel';
import type { DeploymentSessions } from './deploymentSessions';
import { shownDeploymentName, withDeploymentName } from './deployments';
import type { AddDeploymentArgs, AuthLogger, SignInArgs, SignInDeps, SignOutArgs } from './signIn';

export { AUTH_PROVIDER_ID };

/**
 * The sign-in and sign-out flows (src/auth/signIn.ts). Handed in: their code loads with the
 * features on first use (src/shell/featureEntry.ts), not at activation.
 */
export interface AuthFlows {
	signIn(this: void, deps: SignInDeps, args?: SignInArgs): Promise<boolean>;
	signOut(this: void, deps: SignInDeps, args?: SignOutArgs): Promise<boolean>;
	addDeployment(this: void, deps: SignInDeps, args?: AddDeploymentArgs): Promise<boolean>;
}

type SessionsChange = vscode.AuthenticationProviderAuthenticationSessionsChangeEvent;

/**
 * Shows the Cloud Agents accounts in VS Code's Accounts menu: one session per signed-in deployment
 * (issue 47), each the token stored for that deployment's API URL, its id the URL's origin (one
 * origin per deployment). The default deployment's is there from activation; the other
 * deployments' once their sessions exist (`showDeployments`, with the features). With two or more
 * deployments configured each account's label names its deployment ("alice@example.com
 * (Staging)"), so the menu lists each apart and its Sign Out signs out of that deployment only; with
 * one, the label is who is signed in, as before. A label comes from GET /v2/me, fetched the first
 * time VS Code asks for sessions (never during activation) and cached until the token or URL changes.
 */
export class CloudAgentsAuthProvider extends Disposable implements vscode.AuthenticationProvider {
	private readonly _onDidChangeSessions = this.register(new vscode.EventEmitter<SessionsChange>());
	/** Fires when a stored token appears, disappears or changes, and when a label changes. */
	readonly onDidChangeSessions = this._onDidChangeSessions.event;

	/** The default deployment's account first, then each other configured deployment's. */
	private readonly accounts: Account[];
	private deployments: DeploymentSessions | undefined;

	constructor(
		private readonly session: Session,
		private readonly log: AuthLogger,
		private readonly flows: AuthFlows,
		registrations: Registrations = directRegistrations,
	) {
		super();
		this.register(registrations.authentication(AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL, this));
		this.accounts = [this.account(session)];
		this.register({ dispose: () => this.accounts.splice(0).forEach((a) => a.dispose()) });
	}

	/**
	 * Follows every configured deployment (once their sessions exist): a session each in the menu
	 * while signed in, labelled with its deployment when there are several. Disposing it leaves the
	 * default deployment's alone, as before.
	 */
	showDeployments(deployments: DeploymentSessions): vscode.Disposable {
		this.deployments = deployments;
		const listener = deployments.onDidChange(() => this.sync());
		this.sync();
		return {
			dispose: () => {
				listener.dispose();
				if (this.deployments === deployments) {
					this.deployments = undefined;
					this.sync();
				}
			},
		};
	}

	async getSessions(): Promise<vscode.AuthenticationSession[]> {
		const read = await Promise.all(this.accounts.map((a) => a.read()));
		return read.filter((s): s is vscode.AuthenticationSession => s !== undefined);
	}

	/** Sign In from the Accounts menu: asks which deployment when there are several. */
	async createSession(): Promise<vscode.AuthenticationSession> {
		const several = this.deployments && this.deployments.all.length > 1 ? this.deployments : undefined;
		const ok = await this.flows.signIn({
			session: this.session,
			log: this.log,
			deployments: several && ((): DeploymentSessions => several),
		});
		const created = ok ? (await this.getSessions())[0] : undefined;
		if (!created) {
			throw new vscode.CancellationError();
		}
		return created;
	}

	/** Sign Out from the Accounts menu: of that session's deployment only. */
	async removeSession(sessionId?: string): Promise<void> {
		const account = this.accounts.find((a) => sessionId !== undefined && a.id === sessionId) ?? this.accounts[0]!;
		// VS Code's Accounts menu asks before it calls this: no second confirmation.
		await this.flows.signOut(
			account.session === this.session
				? { session: this.session, log: this.log }
				: { session: account.session, log: this.log, named: this.nameOf(account.session) },
			{ confirm: false },
		);
	}

	private account(session: Session): Account {
		return new Account(
			session,
			this.log,
			() => this.nameOf(session),
			(e) => this._onDidChangeSessions.fire(e),
		);
	}

	/** The name of `session`'s deployment when two or more are configured (`shownDeploymentName`), else undefined. */
	private nameOf(session: Session): string | undefined {
		const all = this.deployments?.all ?? [];
		const entry = all.find((d) => d.session === session);
		return entry
			? shownDeploymentName(
					entry.deployment,
					all.map((d) => d.deployment),
				)
			: undefined;
	}

	/** An account per configured deployment (the default one's always), none for a deployment removed; labels brought up to date. */
	private sync(): void {
		if (this.isDisposed) {
			return;
		}
		const wanted = (this.deployments?.all ?? []).filter((d) => d.session !== this.session).map((d) => d.session);
		for (const account of this.accounts.slice(1)) {
			if (!wanted.includes(account.session)) {
				this.accounts.splice(this.accounts.indexOf(account), 1);
				account.forget();
				account.dispose();
			}
		}
		for (const session of wanted) {
			if (!this.accounts.some((a) => a.session === session)) {
				const added = this.account(session);
				this.accounts.push(added);
				void added.checkForChanges();
			}
		}
		// A label names the deployment now, or no longer.
		for (const account of this.accounts) {
			void account.checkForChanges();
		}
	}
}

/** One deployment's account in the menu: its session's token, who it is, what was last announced. */
class Account extends Disposable {
	/** The session last answered or announced. */
	private current: vscode.AuthenticationSession | undefined;
	private label: { key: string; value: Promise<string> } | undefined;

	constructor(
		readonly session: Session,
		private readonly log: AuthLogger,
		/** The deployment's name when the label says it (two or more configured). */
		private readonly named: () => string | undefined,
		private readonly fire: (e: SessionsChange) => void,
	) {
		super();
		this.register(session.onDidChange(() => void this.checkForChanges()));
	}

	/** The menu's session id of this account (its API URL's origin), once answered or announced. */
	get id(): string | undefined {
		return this.current?.id;
	}

	/** The session for the stored token (none without one), as VS Code asks for it. */
	async read(): Promise<vscode.AuthenticationSession | undefined> {
		const next = await this.readSession();
		this.current = next;
		return next;
	}

	/** Its deployment is no longer configured: its session, if announced, is removed. */
	forget(): void {
		const before = this.current;
		this.current = undefined;
		if (before) {
			this.fire({ added: [], removed: [before], changed: [] });
		}
	}

	/** The session for the stored token; the label is looked up once per token and URL. */
	private async readSession(): Promise<vscode.AuthenticationSession | undefined> {
		const token = await this.session.getToken();
		if (token === undefined) {
			this.label = undefined;
			return undefined;
		}
		const apiUrl = this.session.apiUrl;
		const origin = new URL(apiUrl).origin;
		// The cache key must not hold the token itself: a short digest is enough to tell tokens apart.
		const key = `${origin}#${digest(token)}`;
		if (this.label?.key !== key) {
			const fallback = new URL(apiUrl).host;
			this.label = {
				key,
				value: this.session.client.getMe({ signal: AbortSignal.timeout(10_000) }).then(
					(me) => accountLabel(me, apiUrl),
					(err: unknown) => {
						this.log.warn(
							`Could not read the account name for the Accounts menu: ${err instanceof Error ? err.message : String(err)}`,
						);
						this.label = undefined; // try again next time
						return fallback;
					},
				),
			};
		}
		const label = withDeploymentName(await this.label.value, this.named());
		return { id: origin, accessToken: token, account: { id: origin, label }, scopes: [] };
	}

	async checkForChanges(): Promise<void> {
		const before = this.current;
		const token = await this.session.getToken();
		if (token === undefined) {
			// Only if no other check announced it meanwhile (a sign-out changes the session twice:
			// the secret's change, then its own read).
			if (before && this.current === before) {
				this.current = undefined;
				this.fire({ added: [], removed: [before], changed: [] });
			}
			return;
		}
		// The Accounts menu shows the label of the session in this event, so it must be who is
		// signed in (GET /v2/me, looked up once per token), never the URL.
		const next = await this.readSession();
		if (!next || next.accessToken !== (await this.session.getToken()) || this.current !== before) {
			return; // changed again meanwhile: that change reports itself
		}
		if (before?.id === next.id && before.accessToken === next.accessToken && before.account.label === next.account.label) {
			return; // nothing new (the label names the deployment as it did)
		}
		if (!before) {
			this.fire({ added: [next], removed: [], changed: [] });
		} else if (before.id !== next.id) {
			this.fire({ added: [next], removed: [before], changed: [] });
		} else {
			this.fire({ added: [], removed: [], changed: [next] });
		}
		this.current = next;
	}
}

function digest(text: string): string {
	return sha256HexSync(text).slice(0, 16);
}
