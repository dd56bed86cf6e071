/**
 * The one place that reads how requests reach the network from VS Code: `http.proxy`,
 * `http.noProxy`, `http.proxyAuthorization`, `http.proxyStrictSSL` and `http.systemCertificates`
 * (the transport reads the extension host's HTTPS_PROXY / HTTP_PROXY / NO_PROXY itself). Every client
 * (the service's, the device-flow sign-in's, the GitHub look-up's) is given `current`, which the
 * transport reads before each request: after a change the next request uses a dispatcher made for
 * the new settings (src/platform/node/network.ts).
 */
import * as vscode from 'vscode';
import type { NetworkSettings } from '../api';
import { Disposable } from '../util/lifecycle';

/** The `http.*` settings that change how requests go out. */
export const NETWORK_SETTINGS = ['proxy', 'noProxy', 'proxyAuthorization', 'proxyStrictSSL', 'systemCertificates'] as const;

/** Where the source writes; `vscode.LogOutputChannel` satisfies it. */
export interface NetworkSettingsLog {
	info(message: string): void;
	warn(message: string): void;
}

function text(value: unknown): string | undefined {
	return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** Reads the settings now. */
export function readNetworkSettings(): NetworkSettings {
	const http = vscode.workspace.getConfiguration('http');
	const noProxy = http.get<unknown>('noProxy');
	return {
		proxy: text(http.get<unknown>('proxy')),
		noProxy: Array.isArray(noProxy) ? noProxy.filter((h): h is string => typeof h === 'string' && h.trim() !== '') : [],
		proxyAuthorization: text(http.get<unknown>('proxyAuthorization')),
		strictSSL: http.get<unknown>('proxyStrictSSL', true) !== false,
		systemCertificates: http.get<unknown>('systemCertificates', true) !== false,
		// `env` left out: the transport reads the extension host's HTTPS_PROXY / HTTP_PROXY / NO_PROXY itself.
	};
}

/**
 * The current network settings, read once and again after one of NETWORK_SETTINGS changes. When
 * `http.proxyStrictSSL` is false it says once, as a notification, that certificates are not verified.
 */
export class NetworkSettingsSource extends Disposable {
	private cached: NetworkSettings | undefined;
	private warnedInsecure = false;
	private readonly _onDidChange = this.register(new vscode.EventEmitter<void>());
	/** Fires after one of the settings changed (the next request uses them). */
	readonly onDidChange = this._onDidChange.event;

	constructor(private readonly log: NetworkSettingsLog) {
		super();
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (NETWORK_SETTINGS.some((key) => e.affectsConfiguration(`http.${key}`))) {
					this.cached = undefined;
					this.log.info('Network settings changed (http.*): the next request uses them.');
					this._onDidChange.fire();
				}
			}),
		);
	}

	/** The settings the next request uses (a new object after each change). */
	readonly current = (): NetworkSettings => {
		if (!this.cached) {
			this.cached = readNetworkSettings();
			if (!this.cached.strictSSL) {
				this.warnInsecure();
			}
		}
		return this.cached;
	};

	private warnInsecure(): void {
		if (this.warnedInsecure) {
			return;
		}
		this.warnedInsecure = true;
		void vscode.window.showWarningMessage(
			vscode.l10n.t(
				'http.proxyStrictSSL is off: Cloud Agents does not verify certificates, so anyone on the network path could read its traffic, your token included. Turn it back on once your certificate authority is trusted.',
			),
		);
	}
}
