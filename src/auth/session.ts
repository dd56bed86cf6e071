import * as vscode from 'vscode';
import { CloudAgentsClient } from '../api';
import type { Logger } from '../api';
import { CONFIG } from '../ids';
import { Disposable } from '../util/lifecycle';

/** Default API base URL when `cloudAgents.apiUrl` is not set: the local emulator. */
export const DEFAULT_API_URL = 'http://127.0.0.1:8787';

/** The SecretStorage key of the token for one API origin. */
export function tokenKey(apiUrl: string): string {
	return `cloudAgents.token.${new URL(apiUrl).origin}`;
}

/**
 * The connection to the service that every view, command and the file system share: the configured
 * API URL, whether a token is stored for it, and one `CloudAgentsClient` that reads the token from
 * SecretStorage on every request (so the token never sits in a field of a long-lived object).
 * Fires `onDidChange` when the URL changes or a token is stored or deleted (in any window).
 */
export class Session extends Disposable {
	private readonly _onDidChange = this.register(new vscode.EventEmitter<void>());
	/** Fires after the API URL changed or the token for it was stored or deleted. */
	readonly onDidChange = this._onDidChange.event;

	private _client: CloudAgentsClient | undefined;
	private _signedIn = false;

	constructor(
		private readonly secrets: vscode.SecretStorage,
		private readonly logger: Logger,
	) {
		super();
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration(`${CONFIG.section}.${CONFIG.apiUrl}`)) {
					this.resetClient();
					void this.refreshSignedIn();
				}
			}),
		);
		this.register(
			secrets.onDidChange((e) => {
				if (e.key.startsWith('cloudAgents.token.')) {
					void this.refreshSignedIn();
				}
			}),
		);
		this.register({ dispose: () => this.resetClient() });
	}

	/** The configured API base URL (without a trailing slash). */
	get apiUrl(): string {
		const configured = vscode.workspace.getConfiguration(CONFIG.section).get<string>(CONFIG.apiUrl, '').trim();
		return (configured || DEFAULT_API_URL).replace(/\/+$/, '');
	}

	/** Whether a token for the current API URL was found at the last check. */
	get signedIn(): boolean {
		return this._signedIn;
	}

	/** The shared client for the current API URL; created on first use. */
	get client(): CloudAgentsClient {
		this._client ??= new CloudAgentsClient({
			baseUrl: this.apiUrl,
			getToken: () => this.getToken(),
			userAgent: `cloud-agents-vscode (${vscode.env.appName} ${vscode.version})`,
			logger: this.logger,
			proxyUrl: vscode.workspace.getConfiguration('http').get<string>('proxy') || undefined,
		});
		return this._client;
	}

	/** Reads the token for the current API URL from SecretStorage. */
	async getToken(): Promise<string | undefined> {
		return this.secrets.get(tokenKey(this.apiUrl));
	}

	/** Stores a token for the current API URL (SecretStorage only). */
	async storeToken(token: string): Promise<void> {
		await this.secrets.store(tokenKey(this.apiUrl), token);
		await this.refreshSignedIn();
	}

	/** Deletes the token for the current API URL. */
	async deleteToken(): Promise<void> {
		await this.secrets.delete(tokenKey(this.apiUrl));
		await this.refreshSignedIn();
	}

	/** Re-reads SecretStorage, updates the `cloudAgents.signedIn` context key and fires onDidChange. */
	async refreshSignedIn(): Promise<void> {
		this._signedIn = (await this.getToken()) !== undefined;
		await vscode.commands.executeCommand('setContext', 'cloudAgents.signedIn', this._signedIn);
		this._onDidChange.fire();
	}

	private resetClient(): void {
		this._client?.close();
		this._client = undefined;
	}
}
