import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Emulator } from './emulator';
import { notFound } from './errors';
import { Desktop, type DesktopInfo } from './rfb/desktop';
import { RfbConnection } from './rfb/server';
import type { ComputerSessionRow } from './state';
import { nowIso } from './util';

/** RFC 6455 §1.3: the GUID appended to Sec-WebSocket-Key for Sec-WebSocket-Accept. */
export const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** The synthetic desktop's default size (RFB ServerInit). */
export const DESKTOP_SIZE = { width: 1280, height: 800 } as const;
/** WebSocket close codes the emulator uses when a session ends under an open connection. */
export const SESSION_CLOSE = { expired: 4001, ended: 4002 } as const;
/**
 * Desktops (with their input logs) kept for sessions, about 8 MB each; past this the oldest without
 * connections go first (their input log with them).
 */
const MAX_DESKTOPS = 16;
/** Events of the latest run the terminal considers (it shows the tail that fits). */
const RUN_EVENTS_SHOWN = 60;

function refuse(socket: Duplex, status: number, text: string): void {
	socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

interface Entry {
	desktop: Desktop;
	agentId: string;
	expiresMs: number;
	conns: Set<RfbConnection>;
}

/**
 * Why a session's desktop ends now, or undefined while it lasts. The emulator's tick drops a
 * session from its data once it expired, and on a busy machine that can come before the socket's
 * own expiry timer: a session gone after its expiry still ended because it expired (4001); one gone
 * before it was removed (a reset: 4002).
 */
export function sessionEndReason(present: boolean, expiresMs: number, now: number): 'session expired' | 'session ended' | undefined {
	if (expiresMs <= now) return 'session expired';
	return present ? undefined : 'session ended';
}

/**
 * The computer-session websocket_url points here: a WebSocket endpoint that checks the session
 * and its `session.<token>` subprotocol before the upgrade (404 unknown or expired, 403 wrong
 * token), then serves an RFB 3.8 desktop (emulator/src/rfb/). Also registers the admin routes
 * under /_emulator/computer-sessions/{id}/ (loopback only): `input` (what viewers sent),
 * `desktop` (`{animated, tight_png}`: the bench's changing full-screen pattern, TightPNG for viewers
 * that list it) and `expire`.
 */
export function attachVncUpgrade(app: FastifyInstance, emu: Emulator, size: { width: number; height: number } = DESKTOP_SIZE): void {
	const open = new Set<Duplex>();
	const desktops = new Map<string, Entry>();
	// Before the server closes (`preClose`), not after (`onClose`): the server's close waits for every
	// socket, and an upgraded one (an open computer panel) is not among those fastify ends; the
	// emulator stopped listening and lived on (issue 42, item 14).
	app.addHook('preClose', async () => {
		for (const e of desktops.values()) e.desktop.stop();
		for (const s of open) s.destroy();
		open.clear();
	});

	const sessionOf = (id: string): ComputerSessionRow | undefined => emu.data.computerSessions.find((s) => s.id === id);

	const infoFor = (agentId: string) => (): DesktopInfo => {
		const agent = emu.data.agents.find((a) => a.id === agentId);
		const rt = agent ? emu.data.runtimes.find((r) => r.id === agent.runtime_id) : undefined;
		let run: (typeof emu.data.runs)[number] | undefined;
		for (const r of emu.data.runs) if (r.agent_id === agentId && (!run || r.created_ms >= run.created_ms)) run = r;
		const info: DesktopInfo = {
			agentName: agent?.name ?? '(agent deleted)',
			runtimeName: rt?.display_name ?? 'runtime',
			signature: `${agent?.name}|${rt?.display_name}|${run?.id}|${run?.status}|${run?.events.length}`,
		};
		if (run) info.run = { id: run.id, status: run.status, prompt: run.prompt, events: run.events.slice(-RUN_EVENTS_SHOWN) };
		return info;
	};

	const endAll = (e: Entry, reason: string): void => {
		const code = reason === 'session expired' ? SESSION_CLOSE.expired : SESSION_CLOSE.ended;
		for (const c of e.conns) c.close(code, reason);
	};

	const entryFor = (s: ComputerSessionRow): Entry => {
		let e = desktops.get(s.id);
		if (e) return e;
		const created: Entry = {
			agentId: s.agent_id,
			expiresMs: s.expires_ms,
			conns: new Set(),
			desktop: new Desktop(
				size.width,
				size.height,
				infoFor(s.agent_id),
				() => {
					const row = sessionOf(s.id);
					if (row) created.expiresMs = row.expires_ms;
					return sessionEndReason(row !== undefined, created.expiresMs, Date.now());
				},
				(reason) => endAll(created, reason),
			),
		};
		e = created;
		desktops.set(s.id, e);
		if (desktops.size > MAX_DESKTOPS) {
			for (const [id, old] of desktops) {
				if (desktops.size <= MAX_DESKTOPS) break;
				if (old.conns.size === 0) {
					old.desktop.stop();
					desktops.delete(id);
				}
			}
		}
		return e;
	};

	app.server.on('upgrade', (req, socket: Duplex) => {
		open.add(socket);
		socket.on('close', () => open.delete(socket));
		socket.on('error', () => socket.destroy());
		const m = /^\/_emulator\/vnc\/([A-Za-z0-9_]+)$/.exec((req.url ?? '').split('?')[0] ?? '');
		if (!m) return refuse(socket, 404, 'Not Found');
		const session = emu.data.computerSessions.find((s) => s.id === m[1] && s.expires_ms > Date.now());
		if (!session) return refuse(socket, 404, 'Not Found');
		const protocols = String(req.headers['sec-websocket-protocol'] ?? '')
			.split(',')
			.map((s) => s.trim());
		if (!protocols.includes(`session.${session.token}`) || !protocols.includes('binary')) return refuse(socket, 403, 'Forbidden');
		const key = req.headers['sec-websocket-key'];
		if (typeof key !== 'string' || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
			return refuse(socket, 400, 'Bad Request');
		}
		if (req.headers['sec-websocket-version'] !== '13') {
			socket.end('HTTP/1.1 426 Upgrade Required\r\nSec-WebSocket-Version: 13\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
			return;
		}
		const accept = createHash('sha1')
			.update(key + WS_GUID)
			.digest('base64');
		socket.write(
			`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: binary\r\n\r\n`,
		);
		(socket as Duplex & { setNoDelay?: (b: boolean) => void }).setNoDelay?.(true);
		const e = entryFor(session);
		const agent = emu.data.agents.find((a) => a.id === session.agent_id);
		const name = `Cloud Agent: ${agent?.name ?? session.agent_id}`.slice(0, 120);
		const conn = new RfbConnection(socket, e.desktop, name, (c) => {
			e.conns.delete(c);
			clearTimeout(t);
		});
		e.conns.add(conn);
		const t = setTimeout(() => conn.close(SESSION_CLOSE.expired, 'session expired'), Math.max(session.expires_ms - Date.now(), 0));
		t.unref();
	});

	// ---- admin routes (loopback only: the `admin` config goes through server.ts's check) ----------
	const cfg = { auth: 'none' as const, admin: true };
	const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', pattern: '^[A-Za-z0-9_]{1,64}$' } } } as const;
	const known = (id: string): { row: ComputerSessionRow | undefined; entry: Entry } => {
		const row = sessionOf(id);
		const entry = row ? entryFor(row) : desktops.get(id);
		if (!entry) throw notFound('computer session', id);
		return { row, entry };
	};
	const describe = (id: string, row: ComputerSessionRow | undefined, e: Entry) => ({
		session_id: id,
		agent_id: e.agentId,
		expires_at: nowIso(row?.expires_ms ?? e.expiresMs),
		active: row !== undefined && row.expires_ms > Date.now(),
		desktop: {
			width: e.desktop.width,
			height: e.desktop.height,
			animated: e.desktop.animated,
			tight_png: e.desktop.tightPng,
			frame: e.desktop.frame,
		},
	});

	app.get('/_emulator/computer-sessions/:id/input', { config: cfg, schema: { params: idParams } }, async (req) => {
		const { id } = req.params as { id: string };
		const { row, entry } = known(id);
		return { ...describe(id, row, entry), ...entry.desktop.input };
	});

	app.put(
		'/_emulator/computer-sessions/:id/desktop',
		{
			config: cfg,
			schema: {
				params: idParams,
				body: {
					type: 'object',
					additionalProperties: false,
					properties: { animated: { type: 'boolean' }, tight_png: { type: 'boolean' } },
				},
			},
		},
		async (req) => {
			const { id } = req.params as { id: string };
			const { row, entry } = known(id);
			const body = req.body as { animated?: boolean; tight_png?: boolean };
			if (body.tight_png !== undefined) entry.desktop.tightPng = body.tight_png;
			if (body.animated !== undefined) entry.desktop.setAnimated(body.animated);
			return describe(id, row, entry);
		},
	);

	app.post(
		'/_emulator/computer-sessions/:id/expire',
		{ config: { ...cfg, optionalBody: true }, schema: { params: idParams } },
		async (req) => {
			const { id } = req.params as { id: string };
			const { row, entry } = known(id);
			if (row) row.expires_ms = Math.min(row.expires_ms, Date.now());
			entry.expiresMs = Math.min(entry.expiresMs, Date.now());
			endAll(entry, 'session expired');
			emu.markDirty();
			return describe(id, row, entry);
		},
	);
}
