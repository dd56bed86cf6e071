/**
 * The messages between the computer panel (src/webviews/computer/computerPanel.ts) and its page
 * (src/webviews/pages/computer/main.ts). Shared by both; imports neither vscode nor node.
 */
import type { MessageSpec } from '../messages';
import { messageValidator } from '../messages';

/**
 * A short-lived session as the page receives it: the socket URL, the subprotocols (including the
 * session's own token: short-lived, for this socket only), and when it ends (Unix ms).
 */
export interface ComputerSessionInfo {
	url: string;
	protocols: string[];
	/** Unix milliseconds; undefined when the service gave no usable expiry. */
	expiresAtMs?: number;
}

/** The page's texts, localised by the extension (`vscode.l10n.t`); `{0}` is filled in by the page. */
export const COMPUTER_STRING_KEYS = [
	'connecting',
	'connected',
	'timeLeft',
	'expired',
	'disconnected',
	'lost',
	'securityFailure',
	'credentials',
	'minting',
	'pasted',
	'pasteEmpty',
	'notConnected',
	'ctrlAltDelSent',
] as const;

/** The localised texts of the page, by key. */
export type ComputerStrings = Record<(typeof COMPUTER_STRING_KEYS)[number], string>;

/** Extension → page. */
export type ComputerHostMessage =
	/** Who the panel shows and the page's texts (sent first; agent saved by the page for restore). */
	| { type: 'agent'; agentId: string; agentName: string; deployment?: string; strings: ComputerStrings }
	/** Connect to this session (replaces any other). */
	| { type: 'session'; session: ComputerSessionInfo }
	/** No session: why (minting failed, restored after a reload, …); the page offers Reconnect. */
	| { type: 'ended'; reason: 'failed' | 'restored' | 'refused'; message: string }
	/** The extension is minting a session (Reconnect pressed). */
	| { type: 'minting' }
	/** Text from the local clipboard to paste into the session. */
	| { type: 'paste'; text: string };

/** Page → extension. */
export type ComputerPageMessage =
	/** The page has loaded and listens. */
	| { type: 'ready' }
	/** Mint a new session and send it. */
	| { type: 'reconnect' }
	/** Read the local clipboard and send it back as `paste`. */
	| { type: 'requestPaste' }
	/** The socket connected and the desktop has this size. */
	| { type: 'connected'; width: number; height: number }
	/** The socket closed; `clean` false for an error; `expired` when the session's time ran out. */
	| { type: 'disconnected'; clean: boolean; expired: boolean }
	/** The server refused the security handshake. */
	| { type: 'securityFailure'; status: number; reason: string };

/** Longest clipboard text sent to the page (and pasted into the session), in UTF-16 units. */
export const PASTE_MAX_CHARS = 64 * 1024;

/** Longest security-failure reason the extension accepts from the page. */
const REASON_MAX_CHARS = 500;

/** The shape of every page message (see `messageValidator`). */
export const COMPUTER_PAGE_SPEC: MessageSpec = {
	ready: {},
	reconnect: {},
	requestPaste: {},
	connected: {
		width: { kind: 'number', min: 0, max: 65535, integer: true },
		height: { kind: 'number', min: 0, max: 65535, integer: true },
	},
	disconnected: { clean: { kind: 'boolean' }, expired: { kind: 'boolean' } },
	securityFailure: {
		status: { kind: 'number', min: -1, max: 0xffffffff, integer: true },
		reason: { kind: 'string', maxLength: REASON_MAX_CHARS },
	},
};

/**
 * Validates a message from the computer page. Building it has no side effects (`@__PURE__`): a
 * bundle that imports this module without reading the validator (the activation bundle, through
 * the Open Computer action it drops) leaves it out.
 */
export const validateComputerPageMessage = /* @__PURE__ */ messageValidator<ComputerPageMessage>(COMPUTER_PAGE_SPEC);

const HOST_TYPES: ReadonlySet<string> = new Set<ComputerHostMessage['type']>(['agent', 'session', 'ended', 'minting', 'paste']);

/** The page's check of a message from the extension (its type only: the extension is trusted). */
export function isComputerHostMessage(message: { type: string }): message is ComputerHostMessage {
	return HOST_TYPES.has(message.type);
}

/** What the page saves with `setState` (and a restored panel is handed): never the session. */
export interface ComputerPageState {
	agentId: string;
	agentName: string;
	/** The id of the agent's deployment when it is not the default one (issue 47); absent for the default deployment's. */
	deployment?: string;
	scale: 'fit' | 'native';
	viewOnly: boolean;
}

/** Reads a saved page state (from the serializer: untrusted shape), or undefined. */
export function parseComputerPageState(raw: unknown): ComputerPageState | undefined {
	if (raw === null || typeof raw !== 'object') {
		return undefined;
	}
	const s = raw as Record<string, unknown>;
	if (typeof s.agentId !== 'string' || s.agentId === '' || s.agentId.length > 255 || typeof s.agentName !== 'string') {
		return undefined;
	}
	const deployment = typeof s.deployment === 'string' && /^[a-z0-9-]{1,64}$/.test(s.deployment) ? s.deployment : undefined;
	return {
		agentId: s.agentId,
		agentName: s.agentName.slice(0, 255),
		...(deployment !== undefined ? { deployment } : {}),
		scale: s.scale === 'native' ? 'native' : 'fit',
		viewOnly: s.viewOnly === true,
	};
}
