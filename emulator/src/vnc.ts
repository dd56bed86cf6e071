import type { FastifyInstance } from 'fastify';
import { createHash } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { Emulator } from './emulator';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function refuse(socket: Duplex, status: number, text: string): void {
	socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

function binaryFrame(payload: Buffer): Buffer {
	const head = payload.length < 126 ? Buffer.from([0x82, payload.length]) : Buffer.from([0x82, 126, payload.length >> 8, payload.length & 0xff]);
	return Buffer.concat([head, payload]);
}

/**
 * The computer-session websocket_url points here: a minimal WebSocket endpoint that checks the
 * session and its `session.<token>` subprotocol, then greets with an RFB 3.8 version banner.
 */
export function attachVncUpgrade(app: FastifyInstance, emu: Emulator): void {
	const open = new Set<Duplex>();
	app.addHook('onClose', async () => {
		for (const s of open) s.destroy();
		open.clear();
	});
	app.server.on('upgrade', (req, socket: Duplex) => {
		open.add(socket);
		socket.on('close', () => open.delete(socket));
		socket.on('end', () => socket.end());
		socket.on('error', () => socket.destroy());
		const m = /^\/_emulator\/vnc\/([A-Za-z0-9_]+)$/.exec((req.url ?? '').split('?')[0] ?? '');
		if (!m) return refuse(socket, 404, 'Not Found');
		const session = emu.data.computerSessions.find((s) => s.id === m[1] && s.expires_ms > Date.now());
		if (!session) return refuse(socket, 404, 'Not Found');
		const protocols = String(req.headers['sec-websocket-protocol'] ?? '').split(',').map((s) => s.trim());
		if (!protocols.includes(`session.${session.token}`) || !protocols.includes('binary')) return refuse(socket, 403, 'Forbidden');
		const key = req.headers['sec-websocket-key'];
		if (typeof key !== 'string') return refuse(socket, 400, 'Bad Request');
		const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
		socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: binary\r\n\r\n`);
		socket.write(binaryFrame(Buffer.from('RFB 003.008\n', 'latin1')));
		socket.on('data', (chunk: Buffer) => {
			// A close frame (opcode 8) is echoed and the socket closed; other frames are ignored.
			if (chunk.length > 0 && (chunk[0]! & 0x0f) === 0x8) socket.end(Buffer.from([0x88, 0x00]));
		});
		const t = setTimeout(() => socket.destroy(), Math.max(session.expires_ms - Date.now(), 0));
		t.unref();
		socket.on('close', () => clearTimeout(t));
	});
}
