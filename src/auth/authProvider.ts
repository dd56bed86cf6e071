import * as vscode from 'vscode';
import { sha256HexSync } from '../base/random';
import { AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL } from '../ids';
import { Disposable } from '../util/lifecycle';
import { type Registrations, directRegistrations } from '../util/registrations';
import type { Session } from './session';
import { accountLabel } from './accountLabel';
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

/**
 * Shows the Cloud Agents account in VS Code's Accounts menu. There is at most one session: the
 * token stored for the configured API URL. The account label comes from GET /v2/me, fetched the
 * first time VS Code asks for sessions (never during activation) and cached until the token or
 * URL changes.
 */
export class CloudAgentsAuthProvider extends Disposable implements vscode.AuthenticationProvider {
	private readonly _onDidChangeSessions = this.register(
		new vscode.EventEmitter<vscode.AuthenticationProviderAuthenticationSessionsChangeEvent>(),
	);
	/** Fires when the stored token appears, disappears or changes. */
	readonly onDidChangeSessions = this._onDidChangeSessions.event;

	private current: vscode.AuthenticationSession | undefined;
	private label: { key: string; value: Promise<string> } | undefined;

	constructor(
		private readonly session: Session,
		private readonly log: AuthLogger,
		private readonly flows: AuthFlows,
		registrations: Registrations = directRegistrations,
	) {
		super();
		this.register(registrations.authentication(AUTH_PROVIDER_ID, AUTH_PROVIDER_LABEL, this));
		this.register(session.onDidChange(() => void this.checkForChanges()));
	}

	async getSessions(): Promise<vscode.AuthenticationSession[]> {
		const next = await this.readSession();
		this.current = next;
		return next ? [next] : [];
	}

	async createSession(): Promise<vscode.AuthenticationSession> {
		const ok = await this.flows.signIn({ session: this.session, log: this.log });
		const created = ok ? await this.readSession() : undefined;
		if (!created) {
			throw new vscode.CancellationError();
		}
		return created;
	}

	async removeSession(): Promise<void> {
		// VS Code's Accounts menu asks before it calls this: no second confirmation.
		await this.flows.signOut({ session: this.session, log: this.log }, { confirm: false });
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
		const label = await this.label.value;
		return { id: origin, accessToken: token, account: { id: origin, label }, scopes: [] };
	}

	private async checkForChanges(): Promise<void> {
		const before = this.current;
		const token = await this.session.getToken();
		if (token === undefined) {
			// Only if no other check announced it meanwhile (a sign-out changes the session twice:
			// the secret's change, then its own read).
			if (before && this.current === before) {
				this.current = undefined;
				this._onDidChangeSessions.fire({ added: [], removed: [before], changed: [] });
			}
			return;
		}
		const origin = new URL(this.session.apiUrl).origin;
		if (before?.id === origin && before.accessToken === token) {
			return;
		}
		// The Accounts menu shows the label of the session in this event, so it must be who is
		// signed in (GET /v2/me, looked up once per token), never the URL.
		const next = await this.readSession();
		if (!next || next.accessToken !== (await this.session.getToken()) || this.current !== before) {
			return; // changed again meanwhile: that change reports itself
		}
		if (!before) {
			this._onDidChangeSessions.fire({ added: [next], removed: [], changed: [] });
		} else if (before.id !== next.id) {
			this._onDidChangeSessions.fire({ added: [next], removed: [before], changed: [] });
		} else {
			this._onDidChangeSessions.fire({ added: [], removed: [], changed: [next] });
		}
		this.current = next;
	}
}

function digest(text: string): string {
	return sha256HexSync(text).slice(0, 16);
}
