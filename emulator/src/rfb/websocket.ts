/**
 * The server side of RFC 6455 framing over an upgraded socket, just enough for RFB: binary
 * messages both ways, fragmented client messages reassembled, ping answered with pong, the close
 * handshake in both directions. Client frames must be masked (RFC 6455 §5.1); every buffer is
 * bounded (a message over `maxMessageBytes` closes with 1009).
 */
import type { Duplex } from 'node:stream';

/** RFC 6455 §7.4.1 close codes used here. */
export const CLOSE = {
	normal: 1000,
	protocolError: 1002,
	unsupportedData: 1003,
	tooBig: 1009,
	internalError: 1011,
} as const;

export interface WsOptions {
	/** The largest reassembled message accepted from the client. */
	maxMessageBytes: number;
	/** Called with every complete binary message. */
	onMessage(data: Buffer): void;
	/** Called once, when the socket is gone (after a close handshake or not). */
	onClose(code: number, reason: string): void;
}

/** How long to wait for the peer's close frame after sending ours. */
const CLOSE_WAIT_MS = 2000;

/** The header of an unmasked server frame (FIN set) carrying `length` payload bytes. */
export function frameHeader(opcode: number, length: number): Buffer {
	if (length < 126) return Buffer.from([0x80 | opcode, length]);
	if (length < 0x10000) return Buffer.from([0x80 | opcode, 126, length >> 8, length & 0xff]);
	const h = Buffer.alloc(10);
	h[0] = 0x80 | opcode;
	h[1] = 127;
	h.writeUInt32BE(Math.floor(length / 0x1_0000_0000), 2);
	h.writeUInt32BE(length >>> 0, 6);
	return h;
}

/** Bytes of a frame header for a payload of `length` bytes (see {@link frameHeader}). */
export const frameHeaderSize = (length: number): number => (length < 126 ? 2 : length < 0x10000 ? 4 : 10);

/** One accepted WebSocket connection. */
export class WsConnection {
	private pending: Buffer = Buffer.alloc(0);
	private fragments: Buffer[] = [];
	private fragmentBytes = 0;
	private fragmenting = false;
	private closeSent = false;
	private closed = false;
	private closeTimer: NodeJS.Timeout | undefined;
	private closeCode: number = CLOSE.normal;
	private closeReason = '';

	constructor(
		private readonly socket: Duplex,
		private readonly opts: WsOptions,
	) {
		socket.on('data', (chunk: Buffer) => this.onData(chunk));
		// The HTTP server's sockets allow half-open: a peer that ends its side gets the socket closed.
		socket.on('end', () => socket.end());
		socket.on('close', () => this.finish());
		socket.on('error', () => socket.destroy());
	}

	/** Bytes queued in the socket and not yet handed to the kernel. */
	get bufferedBytes(): number {
		return (this.socket as Duplex & { writableLength?: number }).writableLength ?? 0;
	}

	get isOpen(): boolean {
		return !this.closeSent && !this.closed;
	}

	/** Runs `fn` once the socket's write buffer drained (at once if it is empty). */
	onDrain(fn: () => void): void {
		if (this.bufferedBytes === 0) fn();
		else this.socket.once('drain', fn);
	}

	/** Sends one binary message. `frame` may already hold the frame header (see {@link frameHeader}). */
	sendBinary(payload: Buffer): void {
		if (!this.isOpen) return;
		this.socket.write(Buffer.concat([frameHeader(0x2, payload.length), payload]));
	}

	/** Writes a complete frame built by the caller (header included). */
	sendFrame(frame: Buffer): void {
		if (!this.isOpen) return;
		this.socket.write(frame);
	}

	/** Starts the close handshake: a close frame with code and reason, then the socket ends. */
	close(code: number, reason: string): void {
		if (this.closeSent || this.closed) return;
		this.closeSent = true;
		this.closeCode = code;
		this.closeReason = reason;
		const r = Buffer.from(reason, 'utf8').subarray(0, 123);
		const body = Buffer.alloc(2 + r.length);
		body.writeUInt16BE(code, 0);
		r.copy(body, 2);
		this.socket.write(Buffer.concat([frameHeader(0x8, body.length), body]));
		this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_WAIT_MS);
		this.closeTimer.unref();
	}

	private finish(): void {
		if (this.closed) return;
		this.closed = true;
		if (this.closeTimer) clearTimeout(this.closeTimer);
		this.pending = Buffer.alloc(0);
		this.fragments = [];
		this.opts.onClose(this.closeCode, this.closeReason);
	}

	private fail(code: number, reason: string): void {
		this.pending = Buffer.alloc(0);
		this.close(code, reason);
	}

	private onData(chunk: Buffer): void {
		if (this.closed) return;
		this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
		// A frame header is at most 14 bytes; a payload beyond the message cap is refused below.
		while (this.pending.length >= 2 && !this.closed) {
			const b0 = this.pending[0]!;
			const b1 = this.pending[1]!;
			const fin = (b0 & 0x80) !== 0;
			const opcode = b0 & 0x0f;
			if ((b0 & 0x70) !== 0) return this.fail(CLOSE.protocolError, 'reserved bits set');
			if ((b1 & 0x80) === 0) return this.fail(CLOSE.protocolError, 'client frames must be masked');
			let len = b1 & 0x7f;
			let off = 2;
			if (len === 126) {
				if (this.pending.length < 4) return;
				len = this.pending.readUInt16BE(2);
				off = 4;
			} else if (len === 127) {
				if (this.pending.length < 10) return;
				if (this.pending.readUInt32BE(2) !== 0) return this.fail(CLOSE.tooBig, 'frame too large');
				len = this.pending.readUInt32BE(6);
				off = 10;
			}
			const control = opcode >= 0x8;
			if (control && (!fin || len > 125)) return this.fail(CLOSE.protocolError, 'invalid control frame');
			if (!control && this.fragmentBytes + len > this.opts.maxMessageBytes) return this.fail(CLOSE.tooBig, 'message too large');
			if (this.pending.length < off + 4 + len) return;
			const mask = this.pending.subarray(off, off + 4);
			const payload = Buffer.from(this.pending.subarray(off + 4, off + 4 + len));
			for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i & 3]!;
			this.pending = this.pending.subarray(off + 4 + len);
			this.onFrame(fin, opcode, payload);
		}
	}

	private onFrame(fin: boolean, opcode: number, payload: Buffer): void {
		switch (opcode) {
			case 0x8: {
				// The peer's close: answer it (unless we started) and end the socket.
				if (!this.closeSent) {
					const code = payload.length >= 2 ? payload.readUInt16BE(0) : CLOSE.normal;
					this.closeCode = code;
					this.closeReason = payload.subarray(2).toString('utf8');
					this.closeSent = true;
					const echo = Buffer.alloc(2);
					echo.writeUInt16BE(code === 1005 || code === 1006 || code === 1015 ? CLOSE.normal : code, 0);
					this.socket.write(Buffer.concat([frameHeader(0x8, 2), echo]));
				}
				this.socket.end();
				return;
			}
			case 0x9:
				if (!this.closeSent) this.socket.write(Buffer.concat([frameHeader(0xa, payload.length), payload]));
				return;
			case 0xa:
				return;
			case 0x0:
				if (!this.fragmenting) return this.fail(CLOSE.protocolError, 'continuation without a message');
				break;
			case 0x1:
				return this.fail(CLOSE.unsupportedData, 'RFB travels in binary messages');
			case 0x2:
				if (this.fragmenting) return this.fail(CLOSE.protocolError, 'new message inside a fragmented one');
				break;
			default:
				return this.fail(CLOSE.protocolError, `unknown opcode ${opcode}`);
		}
		if (this.closeSent) return;
		if (fin && !this.fragmenting) {
			this.opts.onMessage(payload);
			return;
		}
		this.fragmenting = true;
		this.fragments.push(payload);
		this.fragmentBytes += payload.length;
		if (fin) {
			const whole = Buffer.concat(this.fragments, this.fragmentBytes);
			this.fragments = [];
			this.fragmentBytes = 0;
			this.fragmenting = false;
			this.opts.onMessage(whole);
		}
	}
}
