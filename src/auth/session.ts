import { sha256HexSync } from '../base/random';
import * as vscode from 'vscode';
import { CloudAgentsClient, isAuthFailure, isLoopbackUrl } from '../api';
import type { Connect, Logger, NetworkSettings } from '../api';
import { CONFIG } from '../ids';
import { Disposable } from '../util/lifecycle';
import { notificationText } from '../util/text';
import { type Deployment, defaultApiUrl } from './deployments';
import { type NetworkSettingsLog, NetworkSettingsSource } from './networkSettings';

/** The User-Agent of every request to the service (Node's extension host sends it; a browser sets its own). */
export function userAgent(): string {
	return `cloud-agents-vscode (${vscode.env.appName} ${vscode.version})`;
}

/** True for URLs that may be opened in a browser: https:, or http: on a loopback host. */
export function isSafeExternalUrl(url: string): boolean {
	try {
		const u = new URL(url);
		return u.protocol === 'https:' || (u.protocol === 'http:' && isLoopbackUrl(url));
	} catch {
		return false;
	}
}

/** The SecretStorage key of the token for one API origin. */
export function tokenKey(apiUrl: string): string {
	return `cloudAgents.token.${new URL(apiUrl).origin}`;
}

/**
 * Whose rows may be shown from the last listing (src/views/rowCache.ts): the API URL and a
 * fingerprint of the token (never the token), as of the last read of the sign-in state, and when the
 * token or URL last changed (a listing started before then may have used another token).
 */
export interface CacheScope {
	readonly apiUrl: string;
	/** The first 16 hex digits of a SHA-256 of the token (with a fixed prefix): tells accounts apart, cannot give the token back. */
	readonly account: string;
	/** When the token or the URL last changed (Date.now()). */
	readonly since: number;
}

/** The fingerprint of a token for `CacheScope.account`. */
export function accountFingerprint(token: string): string {
	return sha256HexSync(`cloud-agents-row-cache\0${token}`).slice(0, 16);
}

/**
 * The connection to the service that every view, command and the file system share: the configured
 * API URL, whether a token is stored for it, and one `CloudAgentsClient` that reads the token from
 * SecretStorage on every request (so the token never sits in a field of a long-lived object).
 * Fires `onDidChange` when the URL changes or a token is stored or deleted (in any window).
 *
 * The session of a deployment other than the default one (src/auth/deployments.ts, made by
 * src/auth/deploymentSessions.ts) has that deployment's fixed URL, its own token and client, and
 * leaves the `cloudAgents.signedIn` context key, which says whether the default one is signed in, alone.
 */
export class Session extends Disposable {
	private readonly _onDidChange = this.register(new vscode.EventEmitter<void>());
	/** Fires after the API URL changed or the token for it was stored or deleted. */
	readonly onDidChange = this._onDidChange.event;

	private _client: CloudAgentsClient | undefined;
	private _signedIn = false;
	private _initialized = false;
	/** Set once the "sign in again" prompt was shown; cleared by the next stored token. */
	private unauthorizedLatch = false;
	/** The sign-in flow the "Sign In" button of the expiry prompt runs (set by the extension). */
	private signInFlow: (() => Promise<unknown>) | undefined;
	/** Told how each request of the shared client ended (set by the extension: the views' connectivity). */
	private requestObserver: ((err: unknown, startedAt: number) => void) | undefined;

	/** The proxy and certificate settings every client of this session (and the sign-in's, the GitHub look-up's) uses. */
	private readonly network: NetworkSettingsSource;

	constructor(
		private readonly secrets: vscode.SecretStorage,
		private readonly logger: Logger & NetworkSettingsLog,
		/** How every client of this session reaches the network: the platform's, chosen by the entry point. */
		readonly connect: Connect,
		/** A deployment other than the default one (undefined: the default, `cloudAgents.apiUrl`). */
		readonly deployment?: Deployment,
	) {
		super();
		this.network = this.register(new NetworkSettingsSource(logger));
		if (deployment === undefined) {
			this.register(
				vscode.workspace.onDidChangeConfiguration((e) => {
					if (e.affectsConfiguration(`${CONFIG.section}.${CONFIG.apiUrl}`)) {
						this.apiUrlChanged();
					}
				}),
			);
		}
		this.register(
			secrets.onDidChange((e) => {
				if (this.isOwnTokenKey(e.key)) {
					// A token stored or deleted (here or in another window) starts a new sign-in state;
					// another deployment's token (another origin) leaves this one's as it is.
					this.tokenChanged();
					this.unauthorizedLatch = false;
					void this.refreshSignedIn();
				}
			}),
		);
		this.register({ dispose: () => this.resetClient() });
	}

	/** Whether `key` is the secret of this session's token (for the current URL; none for a URL that is not one). */
	private isOwnTokenKey(key: string): boolean {
		try {
			return key === tokenKey(this.apiUrl);
		} catch {
			return false;
		}
	}

	/** The configured API base URL (without a trailing slash): the deployment's, else `cloudAgents.apiUrl`. */
	get apiUrl(): string {
		if (this.deployment !== undefined) {
			return this.deployment.apiUrl;
		}
		return defaultApiUrl(vscode.workspace.getConfiguration(CONFIG.section).get<string>(CONFIG.apiUrl, ''));
	}

	/** Counts the changes of the token or URL seen here; `scope` holds only for a read within one. */
	private changes = 0;
	private changedAt = Date.now();
	private _scope: CacheScope | undefined;

	/** Whose rows may be shown from the last listing: undefined while signed out or since a change not yet read. */
	get cacheScope(): CacheScope | undefined {
		return this._scope;
	}

	/** A token stored or deleted, or the URL changed: the token read in flight and the scope no longer hold. */
	private tokenChanged(): void {
		this.tokenRead = undefined;
		this.tokenKnown = undefined;
		this.changes++;
		this.changedAt = Date.now();
		this._scope = undefined;
	}

	/** The API URL setting changed: another token, another client, a new sign-in state. */
	protected apiUrlChanged(): void {
		this.tokenChanged();
		this.resetClient();
		void this.refreshSignedIn();
	}

	/** Whether a token for the current API URL was found at the last check. */
	get signedIn(): boolean {
		return this._signedIn;
	}

	/**
	 * Whether the sign-in state has been read (`onDidChange` has fired at least once, normally for
	 * activation's `initialize`); until then `signedIn` is false whatever SecretStorage holds.
	 */
	get initialized(): boolean {
		return this._initialized;
	}

	/** The shared client for the current API URL; created on first use. */
	get client(): CloudAgentsClient {
		return this.createClient('use');
	}

	/**
	 * How this session's first client came (issue 44): by the warm-up in the idle time after
	 * activation, or by a use that had to load it, and when (epoch ms). Undefined until then.
	 */
	firstClient: { by: 'warm-up' | 'use'; at: number } | undefined;

	private createClient(by: 'warm-up' | 'use'): CloudAgentsClient {
		this.firstClient ??= this._client ? undefined : { by, at: Date.now() };
		this._client ??= new CloudAgentsClient({
			baseUrl: this.apiUrl,
			getToken: () => this.getToken(),
			userAgent: userAgent(),
			logger: this.logger,
			connect: this.connect,
			network: this.networkSettings,
			onOutcome: (err, startedAt) => this.requestObserver?.(err, startedAt),
		});
		return this._client;
	}

	/** The session of another deployment, on this one's secret storage, log and connection. */
	sibling(deployment: Deployment): Session {
		return new Session(this.secrets, this.logger, this.connect, deployment);
	}

	/**
	 * A short-lived client of `apiUrl` on this session's connection and network settings that holds
	 * only `token` (undefined: anonymous), not the stored one: the sign-in's key check and device
	 * flow. The caller closes it.
	 */
	clientWith(apiUrl: string, token: string | undefined): CloudAgentsClient {
		return new CloudAgentsClient({
			baseUrl: apiUrl,
			getToken: () => token,
			userAgent: userAgent(),
			connect: this.connect,
			network: this.networkSettings,
		});
	}

	/** The current proxy and certificate settings (read before every request; see src/auth/networkSettings.ts). */
	readonly networkSettings = (): NetworkSettings => this.network.current();

	/**
	 * Reads the token for the current API URL from SecretStorage, once activation's `initialize` has
	 * stored the development token (if any): a command run from the palette activates the extension
	 * and runs at once, and must not send its first request before the stored (or development) token
	 * is in place. It does not wait for the rest of `initialize` (the context key, `onDidChange`):
	 * the first listing needs the token only.
	 */
	async getToken(): Promise<string | undefined> {
		await this.initializing;
		return this.readToken();
	}

	/**
	 * The read of the token in flight, shared by whoever asks meanwhile (at start-up the sign-in
	 * state, the first listing and the Accounts menu ask at once; each read is a round trip to the
	 * window). Dropped when it settles, and when a token is stored or deleted or the URL changes, so
	 * a read started before a change never answers one asked after it.
	 */
	private tokenRead: { key: string; value: Promise<string | undefined> } | undefined;

	/**
	 * What the last read answered, until the token or the URL changes (`tokenChanged`: a store or a
	 * delete here, the secret's change event for one in another window, the URL setting). Each read
	 * is a round trip to the window, which is busy drawing just when a person clicks: the first
	 * listing after the click waited 13–49 ms for it of a 17–56 ms read (issue 44). Memory only, as
	 * the client's headers hold it for every request anyway.
	 */
	private tokenKnown: { key: string; value: string | undefined } | undefined;

	private readToken(): Promise<string | undefined> {
		const key = tokenKey(this.apiUrl);
		if (this.tokenKnown?.key === key) {
			return Promise.resolve(this.tokenKnown.value);
		}
		if (this.tokenRead?.key === key) {
			return this.tokenRead.value;
		}
		const value: Promise<string | undefined> = Promise.resolve(this.secrets.get(key)).then(
			(token) => {
				if (this.tokenRead?.value === value) {
					this.tokenRead = undefined;
					this.tokenKnown = { key, value: token };
				}
				return token;
			},
			(err: unknown) => {
				if (this.tokenRead?.value === value) {
					this.tokenRead = undefined;
				}
				throw err;
			},
		);
		this.tokenRead = { key, value };
		return value;
	}

	/** Settles when `initialize` has stored the development token, or found it needs none (never rejects). */
	private initializing: Promise<void> = Promise.resolve();

	/** Stores a token for the current API URL (SecretStorage only). */
	async storeToken(token: string): Promise<void> {
		this.tokenChanged();
		await this.secrets.store(tokenKey(this.apiUrl), token);
		this.tokenChanged();
		this.unauthorizedLatch = false;
		await this.refreshSignedIn();
	}

	/**
	 * Activation-time setup without network I/O: stores `devToken` (the emulator's public dev token,
	 * from the `CLOUD_AGENTS_DEV_TOKEN` environment variable) when the API URL is a loopback address
	 * and no token is stored yet, then sets the `cloudAgents.signedIn` context key.
	 */
	initialize(devToken: string | undefined): Promise<void> {
		const stored = this.storeDevToken(devToken);
		this.initializing = stored.catch(() => undefined);
		return (async () => {
			try {
				await stored;
			} finally {
				await this.refreshSignedIn();
			}
		})();
	}

	private async storeDevToken(devToken: string | undefined): Promise<void> {
		if (devToken && isLoopbackUrl(this.apiUrl) && (await this.readToken()) === undefined) {
			this.tokenChanged();
			await this.secrets.store(tokenKey(this.apiUrl), devToken.trim());
			this.tokenChanged();
			this.logger.debug('Stored the development token from CLOUD_AGENTS_DEV_TOKEN for the loopback API URL.');
		}
	}

	/**
	 * Reports a failed call. A 401 (token rejected or expired) leads to one "sign in again" prompt
	 * however many calls fail; the prompt can appear again only after the next successful sign-in.
	 * Returns true when the error was a 401 and was handled here (callers then show nothing else).
	 */
	reportError(err: unknown): boolean {
		if (!isAuthFailure(err)) {
			return false;
		}
		this.handleUnauthorized();
		return true;
	}

	/**
	 * Sets who is told how each request of the shared client ended (`err` undefined for an answer):
	 * the views' connectivity (src/views/connectivity.ts), wired by the extension.
	 */
	setRequestObserver(observer: (err: unknown, startedAt: number) => void): void {
		this.requestObserver = observer;
	}

	/** Sets the sign-in flow the expiry prompt's "Sign In" runs (src/auth/signIn.ts, wired by the extension). */
	setSignInFlow(flow: () => Promise<unknown>): void {
		this.signInFlow = flow;
	}

	/** Shows the "session expired, sign in again" prompt unless it was shown since the last sign-in. */
	handleUnauthorized(): void {
		if (this.unauthorizedLatch) {
			return;
		}
		this.unauthorizedLatch = true;
		const signIn = vscode.l10n.t('Sign In');
		const text =
			this.deployment === undefined
				? vscode.l10n.t('Your Cloud Agents session expired or the token was rejected. Sign in again.')
				: notificationText(
						vscode.l10n.t(
							'Your Cloud Agents session of "{0}" expired or the token was rejected. Sign in again.',
							this.deployment.name,
						),
					);
		void vscode.window.showWarningMessage(text, signIn).then((choice) => (choice === signIn ? this.signInFlow?.() : undefined));
	}

	/** Deletes the token for the current API URL. */
	async deleteToken(): Promise<void> {
		this.tokenChanged();
		await this.secrets.delete(tokenKey(this.apiUrl));
		this.tokenChanged();
		await this.refreshSignedIn();
	}

	/** Re-reads SecretStorage, updates the `cloudAgents.signedIn` context key and fires onDidChange. */
	async refreshSignedIn(): Promise<void> {
		const changes = this.changes;
		const apiUrl = this.apiUrl;
		const token = await this.readToken();
		this._signedIn = token !== undefined;
		if (this.deployment === undefined) {
			await vscode.commands.executeCommand('setContext', 'cloudAgents.signedIn', this._signedIn);
		}
		// Set with the event, in one turn: the lists reset on it before any answer of the old token lands.
		// After a change during the read the scope stays unset: the read that change started sets it.
		if (changes === this.changes) {
			this._scope = token !== undefined ? { apiUrl, account: accountFingerprint(token), since: this.changedAt } : undefined;
		}
		this._initialized = true;
		this._onDidChange.fire();
	}

	/** Whether the shared client exists (its code, dist/client.js, is loaded with the first one). */
	get hasClient(): boolean {
		return this._client !== undefined;
	}

	/**
	 * Creates the shared client `delayMs` from now if signed in then, so the first listing does not
	 * load the HTTP client (dist/client.js: undici, ~60 ms) between a click on the view and its rows
	 * (issue 23). Called after activation, never during it; signed out, nothing is loaded. Then
	 * `readAhead` runs (the Agents view's first page, issue 44: the click draws the answer at once).
	 * Disposing the result cancels it.
	 */
	warmUpClient(delayMs: number, readAhead?: () => void): vscode.Disposable {
		const timer = setTimeout(() => {
			if (this._signedIn && !this.isDisposed) {
				this.createClient('warm-up');
				readAhead?.();
			}
		}, delayMs);
		return { dispose: () => clearTimeout(timer) };
	}

	private resetClient(): void {
		this._client?.close();
		this._client = undefined;
	}
}
