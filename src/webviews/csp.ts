/**
 * The Content-Security-Policy of every webview, and the checks on the origins a page may connect to.
 * Plain TypeScript (no `vscode`), so plain-Node unit tests cover it.
 */
import { randomBase64 } from '../base/random';

/** A fresh nonce for one render: 16 random bytes, base64 (a CSP `nonce-source`). */
export function createNonce(): string {
	return randomBase64(16);
}

/** Host names a `ws:` (unencrypted) socket may reach: the local machine only. */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** True when `hostname` (as `URL.hostname` spells it) names the local machine. */
export function isLoopbackHost(hostname: string): boolean {
	return LOOPBACK_HOSTS.has(hostname.toLowerCase()) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

/** Why a URL cannot be a page's connect-src: the reason for the user, in English (logged and shown). */
export class ConnectOriginError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'ConnectOriginError';
	}
}

/**
 * The origin (`wss://host:port`) a page may open a WebSocket to, from a socket URL the server gave:
 * `wss:` anywhere, `ws:` only to a loopback host; anything else (http, a user-info part, a
 * malformed URL) throws a ConnectOriginError. The extension calls this before rendering a page, so a
 * refused URL never reaches the webview.
 */
export function webSocketOrigin(url: string): string {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		throw new ConnectOriginError('the session address is not a URL');
	}
	if (parsed.username !== '' || parsed.password !== '') {
		throw new ConnectOriginError('the session address carries credentials');
	}
	if (parsed.protocol === 'wss:') {
		return `wss://${parsed.host}`;
	}
	if (parsed.protocol === 'ws:') {
		if (!isLoopbackHost(parsed.hostname)) {
			throw new ConnectOriginError(`an unencrypted (ws:) session address is only accepted for this machine, not ${parsed.hostname}`);
		}
		return `ws://${parsed.host}`;
	}
	throw new ConnectOriginError(`the session address uses ${parsed.protocol.replace(/[^a-z0-9+.-]/gi, '')} instead of wss:`);
}

/** A CSP source expression we accept in connect-src: a scheme plus host[:port] origin, nothing else. */
const ORIGIN_SOURCE = /^(wss?|https?):\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

/** What `contentSecurityPolicy` needs. */
export interface CspOptions {
	/** `webview.cspSource`: where the extension's own resources come from. */
	cspSource: string;
	/** The nonce of this render's `<script>` elements. */
	nonce: string;
	/** Origins the page may connect to (exactly these; none by default). Each must be a plain origin. */
	connectSrc?: readonly string[];
}

/**
 * The policy: nothing by default; scripts only with this render's nonce; styles, images and fonts
 * from the extension (images also `data:`, which canvases and codicons use); connect-src exactly
 * the origins given, or `'none'`. No `unsafe-inline`, no `unsafe-eval`. Throws on a connect-src
 * entry that is not a plain origin (a policy must never widen by accident).
 */
export function contentSecurityPolicy(options: CspOptions): string {
	const { cspSource, nonce } = options;
	if (!/^[A-Za-z0-9+/=]+$/.test(nonce)) {
		throw new Error('nonce must be base64');
	}
	// cspSource may list several sources (VS Code for the web: the webview origin and its CDN);
	// it must not end the directive or start another.
	if (/[;,\r\n]/.test(cspSource) || cspSource.trim() === '') {
		throw new Error('unexpected webview cspSource');
	}
	const connect = options.connectSrc ?? [];
	for (const origin of connect) {
		if (!ORIGIN_SOURCE.test(origin)) {
			throw new ConnectOriginError(`not an origin: ${origin.slice(0, 80)}`);
		}
	}
	return [
		`default-src 'none'`,
		`script-src 'nonce-${nonce}'`,
		`style-src ${cspSource}`,
		`img-src ${cspSource} data:`,
		`font-src ${cspSource}`,
		`connect-src ${connect.length > 0 ? [...new Set(connect)].join(' ') : `'none'`}`,
	].join('; ');
}
