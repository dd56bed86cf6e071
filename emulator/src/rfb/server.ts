/**
 * One RFB 3.8 connection (RFC 6143) over a WebSocket: the version handshake (3.3 and 3.7 clients
 * are served too), security type None (the session's subprotocol was checked before the upgrade),
 * ClientInit/ServerInit, then the client's messages: SetPixelFormat (true colour, 8/16/32 bpp, any
 * shifts and byte order), SetEncodings (recorded; rectangles are always Raw, which every client
 * supports; TightPNG when the session's desktop allows it and the client lists it), FramebufferUpdateRequest (incremental: only tiles changed since this connection last
 * saw them, held until something changes; non-incremental: the whole region at once), KeyEvent,
 * PointerEvent and ClientCutText (to the desktop and its input log). Anything else closes the
 * connection, since its length cannot be known.
 */
import type { Duplex } from 'node:stream';
import type { Desktop, DesktopViewer } from './desktop';
import {
	changedRects,
	decodePixelFormat,
	encodePixelFormat,
	NATIVE_FORMAT,
	PixelEncoder,
	type PixelFormat,
	type Rect,
	unsupportedFormat,
} from './framebuffer';
import { ENCODING_TIGHT_PNG, tightPngRect } from './tightPng';
import { CLOSE, frameHeader, frameHeaderSize, WsConnection } from './websocket';

/** Bounds of one connection. */
export const RFB_LIMITS = {
	/** The largest ClientCutText accepted (bytes); more closes the connection with 1009. */
	maxCutText: 1024 * 1024,
	/** The most encodings a SetEncodings may list. */
	maxEncodings: 1024,
	/** Unparsed client bytes held at most (a cut text plus its header, and some slack). */
	maxInput: 1024 * 1024 + 64,
	/** Updates wait while this many bytes are still queued on the socket. */
	maxQueued: 8 * 1024 * 1024,
} as const;

type State = 'version' | 'security' | 'init' | 'normal' | 'closed';

interface Pending {
	region: Rect;
	full: boolean;
}

/** One viewer's RFB connection to a session's {@link Desktop}, over an upgraded socket. */
export class RfbConnection implements DesktopViewer {
	private readonly ws: WsConnection;
	private state: State = 'version';
	private version = 8;
	private input: Buffer = Buffer.alloc(0);
	private format: PixelFormat = { ...NATIVE_FORMAT };
	private encoder = new PixelEncoder(this.format);
	private readonly sent: Uint32Array;
	private pending: Pending | undefined;
	private waitingForDrain = false;
	private encodings: number[] = [];

	constructor(
		socket: Duplex,
		private readonly desktop: Desktop,
		private readonly name: string,
		private readonly onGone: (c: RfbConnection) => void,
	) {
		this.sent = new Uint32Array(desktop.screen.versions.length);
		this.ws = new WsConnection(socket, {
			maxMessageBytes: RFB_LIMITS.maxInput,
			onMessage: (m) => this.onMessage(m),
			onClose: () => {
				this.state = 'closed';
				this.desktop.detach(this);
				this.onGone(this);
			},
		});
		this.ws.sendBinary(Buffer.from('RFB 003.008\n', 'latin1'));
	}

	/** Closes with a WebSocket close frame carrying the reason (e.g. the session expired). */
	close(code: number, reason: string): void {
		this.ws.close(code, reason);
	}

	onDesktopChanged(): void {
		this.flush();
	}

	private isClosed(): boolean {
		return this.state === 'closed';
	}

	private fail(reason: string, code: number = CLOSE.protocolError): void {
		this.state = 'closed';
		this.input = Buffer.alloc(0);
		this.ws.close(code, reason);
	}

	private onMessage(m: Buffer): void {
		if (this.state === 'closed') return;
		this.input = this.input.length === 0 ? m : Buffer.concat([this.input, m]);
		if (this.input.length > RFB_LIMITS.maxInput) return this.fail('too much unparsed input', CLOSE.tooBig);
		for (;;) {
			const used = this.step();
			if (used === 0 || this.isClosed()) break;
			this.input = this.input.subarray(used);
		}
	}

	/** Handles one message at the head of the input; returns the bytes used (0 = need more). */
	private step(): number {
		const b = this.input;
		switch (this.state) {
			case 'version': {
				if (b.length < 12) return 0;
				const m = /^RFB (\d{3})\.(\d{3})\n$/.exec(b.subarray(0, 12).toString('latin1'));
				if (!m || Number(m[1]) !== 3 || Number(m[2]) < 3) {
					this.fail('unsupported RFB protocol version');
					return 0;
				}
				const minor = Number(m[2]);
				this.version = minor >= 8 ? 8 : minor >= 7 ? 7 : 3;
				if (this.version === 3) {
					// 3.3: the server decides; None needs no SecurityResult.
					this.ws.sendBinary(u32(1));
					this.state = 'init';
				} else {
					this.ws.sendBinary(Buffer.from([1, 1]));
					this.state = 'security';
				}
				return 12;
			}
			case 'security': {
				if (b.length < 1) return 0;
				if (b[0] !== 1) {
					if (this.version === 8) {
						const why = Buffer.from('only security type None is offered', 'latin1');
						this.ws.sendBinary(Buffer.concat([u32(1), u32(why.length), why]));
					}
					this.fail('unsupported security type');
					return 0;
				}
				if (this.version === 8) this.ws.sendBinary(u32(0));
				this.state = 'init';
				return 1;
			}
			case 'init': {
				if (b.length < 1) return 0;
				// The shared flag: every connection of a session shares the one desktop.
				const name = Buffer.from(this.name, 'utf8');
				const head = Buffer.alloc(4);
				head.writeUInt16BE(this.desktop.width, 0);
				head.writeUInt16BE(this.desktop.height, 2);
				this.ws.sendBinary(Buffer.concat([head, encodePixelFormat(NATIVE_FORMAT), u32(name.length), name]));
				this.state = 'normal';
				this.desktop.attach(this);
				this.desktop.input.pixel_format = { ...this.format };
				return 1;
			}
			case 'normal':
				return this.normal(b);
			case 'closed':
				return 0;
		}
	}

	private normal(b: Buffer): number {
		if (b.length < 1) return 0;
		switch (b[0]) {
			case 0: {
				if (b.length < 20) return 0;
				const pf = decodePixelFormat(b, 4);
				const why = unsupportedFormat(pf);
				if (why) {
					this.fail(`SetPixelFormat: ${why}`, CLOSE.unsupportedData);
					return 0;
				}
				this.format = pf;
				this.encoder = new PixelEncoder(pf);
				this.desktop.input.pixel_format = { ...pf };
				// Everything sent so far was in the old format.
				this.sent.fill(0);
				return 20;
			}
			case 2: {
				if (b.length < 4) return 0;
				const n = b.readUInt16BE(2);
				if (n > RFB_LIMITS.maxEncodings) {
					this.fail(`SetEncodings: more than ${RFB_LIMITS.maxEncodings} encodings`, CLOSE.tooBig);
					return 0;
				}
				if (b.length < 4 + 4 * n) return 0;
				const list: number[] = [];
				for (let i = 0; i < n; i++) list.push(b.readInt32BE(4 + 4 * i));
				this.encodings = list;
				this.desktop.input.encodings = list;
				return 4 + 4 * n;
			}
			case 3: {
				if (b.length < 10) return 0;
				const region = { x: b.readUInt16BE(2), y: b.readUInt16BE(4), w: b.readUInt16BE(6), h: b.readUInt16BE(8) };
				const full = b[1] === 0;
				if (this.pending) {
					const p = this.pending.region;
					const x0 = Math.min(p.x, region.x);
					const y0 = Math.min(p.y, region.y);
					this.pending = {
						region: {
							x: x0,
							y: y0,
							w: Math.max(p.x + p.w, region.x + region.w) - x0,
							h: Math.max(p.y + p.h, region.y + region.h) - y0,
						},
						full: this.pending.full || full,
					};
				} else {
					this.pending = { region, full };
				}
				this.flush();
				return 10;
			}
			case 4: {
				if (b.length < 8) return 0;
				this.desktop.key(b.readUInt32BE(4), b[1] !== 0);
				return 8;
			}
			case 5: {
				if (b.length < 6) return 0;
				const x = Math.min(b.readUInt16BE(2), this.desktop.width - 1);
				const y = Math.min(b.readUInt16BE(4), this.desktop.height - 1);
				this.desktop.pointer(x, y, b[1]!);
				return 6;
			}
			case 6: {
				if (b.length < 8) return 0;
				const len = b.readInt32BE(4);
				if (len < 0 || len > RFB_LIMITS.maxCutText) {
					this.fail(
						len < 0
							? 'ClientCutText: extended clipboard was not offered'
							: `ClientCutText: longer than ${RFB_LIMITS.maxCutText} bytes`,
						len < 0 ? CLOSE.protocolError : CLOSE.tooBig,
					);
					return 0;
				}
				if (b.length < 8 + len) return 0;
				// RFC 6143 §7.5.6: ISO 8859-1 text.
				this.desktop.cutText(b.subarray(8, 8 + len).toString('latin1'));
				return 8 + len;
			}
			default:
				this.fail(`unsupported RFB message type ${b[0]}`);
				return 0;
		}
	}

	/** Sends what the pending request asks for, if anything is due and the socket can take it. */
	private flush(): void {
		const p = this.pending;
		if (!p || this.state !== 'normal') return;
		if (this.ws.bufferedBytes > RFB_LIMITS.maxQueued) {
			if (!this.waitingForDrain) {
				this.waitingForDrain = true;
				this.ws.onDrain(() => {
					this.waitingForDrain = false;
					this.flush();
				});
			}
			return;
		}
		const region = clip(p.region, this.desktop.width, this.desktop.height);
		if (!region) {
			// An empty region: answer with an empty update rather than never.
			this.pending = undefined;
			this.send([]);
			return;
		}
		const rects = changedRects(this.desktop.screen, this.sent, region, p.full);
		if (rects.length === 0) {
			this.desktop.wantUpdate();
			return;
		}
		this.pending = undefined;
		this.send(rects);
	}

	/** TightPNG when the desktop allows it, the client listed it, and its format is 24-bit true colour (noVNC's). */
	private usesTightPng(): boolean {
		const f = this.format;
		return this.desktop.tightPng && this.encodings.includes(ENCODING_TIGHT_PNG) && f.bitsPerPixel === 32 && f.depth === 24;
	}

	private send(rects: Rect[]): void {
		const fb = this.desktop.screen.current;
		const log = this.desktop.input;
		if (this.usesTightPng()) {
			const parts: Buffer[] = [Buffer.from([0, 0, rects.length >> 8, rects.length & 0xff])];
			for (const r of rects) {
				const body = tightPngRect(fb, r);
				const raw = body ? undefined : Buffer.alloc(this.encoder.size(r));
				if (raw) this.encoder.write(fb, r, raw, 0);
				parts.push(rectHeader(r, body ? ENCODING_TIGHT_PNG : 0), body ?? raw!);
			}
			const payload = Buffer.concat(parts);
			this.ws.sendFrame(Buffer.concat([frameHeader(0x2, payload.length), payload]));
			log.tight_png_updates++;
			this.count(rects.length, payload.length);
			return;
		}
		let size = 4;
		for (const r of rects) size += 12 + this.encoder.size(r);
		const hs = frameHeaderSize(size);
		const out = Buffer.allocUnsafe(hs + size);
		frameHeader(0x2, size).copy(out, 0);
		let off = hs;
		out[off] = 0;
		out[off + 1] = 0;
		out.writeUInt16BE(rects.length, off + 2);
		off += 4;
		for (const r of rects) {
			rectHeader(r, 0).copy(out, off);
			off = this.encoder.write(fb, r, out, off + 12);
		}
		this.ws.sendFrame(out);
		this.count(rects.length, size);
	}

	private count(rects: number, bytes: number): void {
		const log = this.desktop.input;
		log.updates_sent++;
		log.rects_sent += rects;
		log.bytes_sent += bytes;
	}
}

function rectHeader(r: Rect, encoding: number): Buffer {
	const b = Buffer.alloc(12);
	b.writeUInt16BE(r.x, 0);
	b.writeUInt16BE(r.y, 2);
	b.writeUInt16BE(r.w, 4);
	b.writeUInt16BE(r.h, 6);
	b.writeInt32BE(encoding, 8);
	return b;
}

function u32(v: number): Buffer {
	const b = Buffer.alloc(4);
	b.writeUInt32BE(v >>> 0, 0);
	return b;
}

function clip(r: Rect, width: number, height: number): Rect | undefined {
	const x0 = Math.max(0, r.x);
	const y0 = Math.max(0, r.y);
	const x1 = Math.min(width, r.x + r.w);
	const y1 = Math.min(height, r.y + r.h);
	return x1 > x0 && y1 > y0 ? { x: x0, y: y0, w: x1 - x0, h: y1 - y0 } : undefined;
}
