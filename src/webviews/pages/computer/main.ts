/**
 * The computer panel's page: noVNC against the short-lived session the extension sends. The page
 * never sees the user's token; it holds only the session (socket URL and subprotocols), in memory
 * (its saved state has the agent and the view options, not the session).
 */
import RFB from '@novnc/novnc/core/rfb.js';
import { initLogging } from '@novnc/novnc/core/util/logging.js';
import type {
	ComputerHostMessage,
	ComputerPageMessage,
	ComputerPageState,
	ComputerSessionInfo,
	ComputerStrings,
} from '../../computer/protocol';
import { isComputerHostMessage } from '../../computer/protocol';
import { byId, hostApi, onHostMessage } from '../shared/host';

// noVNC would log connection failures to the console; the page shows every failure itself.
initLogging('none');

const host = hostApi<ComputerPageState, ComputerPageMessage>();
const screen = byId('screen', HTMLDivElement);
const statusLine = byId('status', HTMLDivElement);
const timeLeft = byId('time-left', HTMLSpanElement);
const scaleButton = byId('scale', HTMLButtonElement);
const viewOnlyButton = byId('view-only', HTMLButtonElement);
const cadButton = byId('ctrl-alt-del', HTMLButtonElement);
const pasteButton = byId('paste', HTMLButtonElement);
const reconnectButton = byId('reconnect', HTMLButtonElement);
const newSessionButton = byId('new-session', HTMLButtonElement);

let state: ComputerPageState | undefined = host.getState();
let strings: ComputerStrings | undefined;
let rfb: RFB | undefined;
/** Bumped for each socket, so events of a replaced socket are ignored. */
let generation = 0;
let expiresAtMs: number | undefined;
let expired = false;
let ticker: number | undefined;

function text(key: keyof ComputerStrings, arg?: string): string {
	const template = strings?.[key] ?? key;
	return arg === undefined ? template : template.replace('{0}', arg);
}

function show(message: string, kind: 'info' | 'warning' | 'error' = 'info'): void {
	statusLine.textContent = message;
	statusLine.className = kind === 'info' ? 'message' : `message ${kind}`;
	statusLine.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

/** Offers (or withdraws) "Start a New Session" beside the status: shown once a session has ended. */
function offerNewSession(offer: boolean): void {
	newSessionButton.hidden = !offer;
	if (offer) {
		newSessionButton.focus();
	}
}

function save(patch: Partial<ComputerPageState>): void {
	if (state || (patch.agentId !== undefined && patch.agentName !== undefined)) {
		state = { scale: 'fit', viewOnly: false, ...state, ...patch } as ComputerPageState;
		host.setState(state);
	}
}

function setConnected(connected: boolean): void {
	cadButton.disabled = !connected;
	pasteButton.disabled = !connected;
}

function renderToggles(): void {
	const fit = (state?.scale ?? 'fit') === 'fit';
	const viewOnly = state?.viewOnly ?? false;
	scaleButton.setAttribute('aria-pressed', String(fit));
	viewOnlyButton.setAttribute('aria-pressed', String(viewOnly));
	screen.classList.toggle('native', !fit);
	if (rfb) {
		rfb.scaleViewport = fit;
		rfb.viewOnly = viewOnly;
	}
}

function formatLeft(ms: number): string {
	const total = Math.max(0, Math.ceil(ms / 1000));
	const h = Math.floor(total / 3600);
	const m = Math.floor((total % 3600) / 60);
	const s = String(total % 60).padStart(2, '0');
	return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${s}` : `${m}:${s}`;
}

function tick(): void {
	if (expiresAtMs === undefined) {
		timeLeft.hidden = true;
		return;
	}
	const left = expiresAtMs - Date.now();
	timeLeft.hidden = false;
	timeLeft.textContent = text('timeLeft', formatLeft(left));
	if (left <= 0 && !expired) {
		expired = true;
		stopTicker();
		if (rfb) {
			// The disconnect event reports the expiry.
			rfb.disconnect();
		} else {
			show(text('expired'), 'warning');
			offerNewSession(true);
		}
	}
}

function stopTicker(): void {
	if (ticker !== undefined) {
		window.clearInterval(ticker);
		ticker = undefined;
	}
}

function closeSocket(): void {
	generation++;
	const old = rfb;
	rfb = undefined;
	old?.disconnect();
	screen.replaceChildren();
	setConnected(false);
}

function connect(session: ComputerSessionInfo): void {
	closeSocket();
	const mine = generation;
	expiresAtMs = session.expiresAtMs;
	expired = false;
	stopTicker();
	ticker = window.setInterval(tick, 1000);
	tick();
	if (expired) {
		return;
	}
	show(text('connecting'));
	offerNewSession(false);
	reconnectButton.disabled = false;
	// The page opens the socket itself (noVNC takes it as its channel) to read the close code and
	// reason, which noVNC does not report: they tell an expired session from a lost connection.
	const socket = new WebSocket(session.url, [...session.protocols]);
	socket.binaryType = 'arraybuffer';
	let closed: { code: number; reason: string } | undefined;
	socket.addEventListener('close', (event) => {
		closed = { code: event.code, reason: event.reason };
	});
	const client = new RFB(screen, socket, { shared: true });
	rfb = client;
	client.focusOnClick = true;
	client.background = 'transparent';
	renderToggles();
	client.addEventListener('connect', () => {
		if (mine !== generation) {
			return;
		}
		setConnected(true);
		show(text('connected'));
		const canvas = screen.querySelector('canvas');
		host.postMessage({ type: 'connected', width: canvas?.width ?? 0, height: canvas?.height ?? 0 });
		client.focus();
	});
	client.addEventListener('disconnect', (event) => {
		if (mine !== generation) {
			return;
		}
		const clean = (event as CustomEvent<{ clean?: boolean }>).detail?.clean === true;
		if (!expired && (isExpiryClose(closed) || (expiresAtMs !== undefined && expiresAtMs - Date.now() <= EXPIRY_SLACK_MS))) {
			expired = true;
		}
		rfb = undefined;
		setConnected(false);
		stopTicker();
		timeLeft.hidden = true;
		if (expired) {
			show(text('expired'), 'warning');
		} else if (clean) {
			show(text('disconnected'), 'warning');
		} else {
			show(text('lost'), 'error');
		}
		host.postMessage({ type: 'disconnected', clean, expired });
		offerNewSession(true);
	});
	client.addEventListener('securityfailure', (event) => {
		if (mine !== generation) {
			return;
		}
		const detail = (event as CustomEvent<{ status?: number; reason?: string }>).detail ?? {};
		const reason =
			typeof detail.reason === 'string' && detail.reason !== '' ? detail.reason.slice(0, 500) : String(detail.status ?? '');
		// Shown after the disconnect event that follows, so it is not overwritten.
		window.setTimeout(() => show(text('securityFailure', reason), 'error'), 0);
		host.postMessage({
			type: 'securityFailure',
			status: typeof detail.status === 'number' && Number.isSafeInteger(detail.status) ? detail.status : -1,
			reason,
		});
	});
	client.addEventListener('credentialsrequired', () => {
		if (mine !== generation) {
			return;
		}
		client.disconnect();
		window.setTimeout(() => show(text('credentials'), 'error'), 0);
	});
}

/** A disconnect this close to `expires_at` is the session's end. */
const EXPIRY_SLACK_MS = 2_000;
/** The close code the service uses for an expired session (docs/contract-choices.md). */
const CLOSE_EXPIRED = 4001;

/** True when the socket's close says the session expired (code 4001, or a reason naming expiry). */
function isExpiryClose(close: { code: number; reason: string } | undefined): boolean {
	return close !== undefined && (close.code === CLOSE_EXPIRED || /expire/i.test(close.reason));
}

function handle(message: ComputerHostMessage): void {
	switch (message.type) {
		case 'agent':
			strings = message.strings;
			save({ agentId: message.agentId, agentName: message.agentName, deployment: message.deployment });
			renderToggles();
			break;
		case 'session':
			connect(message.session);
			break;
		case 'minting':
			closeSocket();
			stopTicker();
			timeLeft.hidden = true;
			reconnectButton.disabled = true;
			offerNewSession(false);
			show(text('minting'));
			break;
		case 'ended':
			closeSocket();
			stopTicker();
			timeLeft.hidden = true;
			reconnectButton.disabled = false;
			show(message.message, message.reason === 'restored' ? 'info' : 'error');
			offerNewSession(true);
			break;
		case 'paste':
			if (!rfb) {
				show(text('notConnected'), 'warning');
			} else if (message.text === '') {
				show(text('pasteEmpty'), 'warning');
			} else {
				rfb.clipboardPasteFrom(message.text);
				show(text('pasted', String(message.text.length)));
				rfb.focus();
			}
			break;
	}
}

scaleButton.addEventListener('click', () => {
	save({ scale: state?.scale === 'native' ? 'fit' : 'native' });
	renderToggles();
});
viewOnlyButton.addEventListener('click', () => {
	save({ viewOnly: !(state?.viewOnly ?? false) });
	renderToggles();
});
cadButton.addEventListener('click', () => {
	if (!rfb) {
		show(text('notConnected'), 'warning');
		return;
	}
	rfb.sendCtrlAltDel();
	show(text('ctrlAltDelSent'));
	rfb.focus();
});
pasteButton.addEventListener('click', () => host.postMessage({ type: 'requestPaste' }));
reconnectButton.addEventListener('click', () => host.postMessage({ type: 'reconnect' }));
newSessionButton.addEventListener('click', () => host.postMessage({ type: 'reconnect' }));

setConnected(false);
renderToggles();
onHostMessage(isComputerHostMessage, handle);
host.postMessage({ type: 'ready' });
