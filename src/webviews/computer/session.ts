/**
 * The check between the service's computer session and the page: what the page may receive, and
 * the one origin its CSP lets it connect to. Plain TypeScript (no `vscode`), unit-tested.
 */
import { SAFETY } from '../../base/limits';
import type { ComputerSession } from '../../api/types';
import { isJsonObject } from '../../api/validation';
import { ConnectOriginError, webSocketOrigin } from '../csp';
import type { ComputerSessionInfo } from './protocol';

/** A WebSocket subprotocol: an RFC 6455 / RFC 7230 token. */
const SUBPROTOCOL = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** A session checked for the page: what it receives and the origin its connect-src names. */
export interface PageSession {
	info: ComputerSessionInfo;
	/** `wss://host[:port]` (or `ws://` to loopback): the page's only connect-src. */
	origin: string;
}

/**
 * Checks a session before any page sees it: the VNC channel is present; its socket URL is `wss:`,
 * or `ws:` to this machine (a ConnectOriginError otherwise); the subprotocols are 1 to
 * `SAFETY.sessionProtocolsMax` tokens; the expiry is a time (undefined when absent or unreadable:
 * the page then shows no countdown).
 */
export function pageSession(session: ComputerSession): PageSession {
	const vnc = (session.channels as { vnc?: unknown } | undefined)?.vnc;
	if (!isJsonObject(vnc)) {
		throw new ConnectOriginError('the session offers no VNC channel');
	}
	const url = vnc.websocket_url;
	if (typeof url !== 'string' || url.length > SAFETY.sessionUrlMaxChars) {
		throw new ConnectOriginError('the session has no usable socket address');
	}
	const origin = webSocketOrigin(url);
	const protocols = vnc.protocols;
	if (
		!Array.isArray(protocols) ||
		protocols.length === 0 ||
		protocols.length > SAFETY.sessionProtocolsMax ||
		!protocols.every((p): p is string => typeof p === 'string' && p.length <= SAFETY.sessionProtocolMaxChars && SUBPROTOCOL.test(p))
	) {
		throw new ConnectOriginError('the session names no usable WebSocket subprotocols');
	}
	const expires = typeof session.expires_at === 'string' ? Date.parse(session.expires_at) : Number.NaN;
	return {
		info: { url, protocols: [...protocols], expiresAtMs: Number.isFinite(expires) ? expires : undefined },
		origin,
	};
}
