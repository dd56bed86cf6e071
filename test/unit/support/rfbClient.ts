/**
 * A minimal WebSocket client (RFC 6455: masked frames, optional fragmentation, ping, close) and an
 * RFB 3.8 client on top of it (RFC 6143), for tests and the bench to speak to the emulator's
 * computer-session socket exactly as a viewer does. Reads are bounded by timeouts.
 */
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import type { Socket } from 'node:net';
import { inflateSync } from 'node:zlib';

/** The upgrade was answered with an HTTP status instead of 101. */
export class UpgradeRefused extends Error {
	constructor(readonly status: number) {
		super(`WebSocket upgrade refused with HTTP ${status}`);
	}
}

export interface CloseInfo {
	code: number;
	reason: string;
	/** True when the server sent a close frame (not just a dropped socket). */
	frame: boolean;
}

/** A client-side WebSocket over a plain loopback socket. */
export class WsClient {
	/** The subprotocol the server selected. */
	protocol = '';
	readonly pongs: Buffer[] = [];
	readonly closed: Promise<CloseInfo>;
	private resolveClosed!: (c: CloseInfo) => void;
	/** Received bytes not yet parsed into frames, and how many the next frame needs. */
	private chunks: Buffer[] = [];
	private chunkBytes = 0;
	private need = 0;
	private data: Buffer[] = [];
	private dataBytes = 0;
	private waiter: (() => void) | undefined;
	private closeInfo: CloseInfo | undefined;
	/** Binary messages received (each a separate frame sequence). */
	messages = 0;

	private constructor(private readonly socket: Socket) {
		this.closed = new Promise((r) => (this.resolveClosed = r));
		socket.on('data', (d: Buffer) => this.onData(d));
		socket.on('close', () => this.finish({ code: 1006, reason: '', frame: false }));
		socket.on('error', () => socket.destroy());
	}

	/** Opens `url` (ws://) offering `protocols`; rejects with {@link UpgradeRefused} on an HTTP answer. */
	static connect(url: string, protocols: string[], timeoutMs = 5000): Promise<WsClient> {
		const u = new URL(url);
		const key = randomBytes(16).toString('base64');
		return new Promise((resolve, reject) => {
			const req = request({
				host: u.hostname,
				port: u.port,
				path: u.pathname + u.search,
				headers: {
					connection: 'Upgrade',
					upgrade: 'websocket',
					'sec-websocket-version': '13',
					'sec-websocket-key': key,
					'sec-websocket-protocol': protocols.join(', '),
				},
				timeout: timeoutMs,
			});
			req.on('upgrade', (res, socket: Socket, head: Buffer) => {
				// What a browser checks (RFC 6455 §4.1): the accept value and a protocol we offered.
				const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
				const chosen = res.headers['sec-websocket-protocol'];
				if (res.headers['sec-websocket-accept'] !== accept || (chosen !== undefined && !protocols.includes(chosen))) {
					socket.destroy();
					reject(
						new Error(
							`bad WebSocket handshake: accept ${String(res.headers['sec-websocket-accept'])}, protocol ${String(chosen)}`,
						),
					);
					return;
				}
				socket.setNoDelay(true);
				const c = new WsClient(socket);
				c.protocol = String(res.headers['sec-websocket-protocol'] ?? '');
				if (head.length > 0) c.onData(head);
				resolve(c);
			});
			req.on('response', (res) => {
				res.resume();
				reject(new UpgradeRefused(res.statusCode ?? 0));
			});
			req.on('timeout', () => req.destroy(new Error('WebSocket upgrade timed out')));
			req.on('error', reject);
			req.end();
		});
	}

	/** Sends a masked binary message, split into `fragments` frames when asked. */
	send(payload: Buffer, fragments = 1): void {
		const n = Math.max(1, Math.min(fragments, payload.length || 1));
		const size = Math.ceil(payload.length / n);
		for (let i = 0; i < n; i++) {
			const part = payload.subarray(i * size, Math.min(payload.length, (i + 1) * size));
			this.frame(i === 0 ? 0x2 : 0x0, part, i === n - 1);
		}
	}

	ping(payload: Buffer): void {
		this.frame(0x9, payload, true);
	}

	/** Sends a close frame; `closed` resolves when the server answers or drops the socket. */
	close(code = 1000, reason = ''): void {
		const r = Buffer.from(reason, 'utf8');
		const b = Buffer.alloc(2 + r.length);
		b.writeUInt16BE(code, 0);
		r.copy(b, 2);
		this.frame(0x8, b, true);
	}

	destroy(): void {
		this.socket.destroy();
	}

	/** Writes a raw frame (for tests of the server's framing checks); `mask` false sends it unmasked. */
	frame(opcode: number, payload: Buffer, fin: boolean, mask = true): void {
		const len = payload.length;
		const head: number[] = [(fin ? 0x80 : 0) | opcode];
		const m = mask ? 0x80 : 0;
		if (len < 126) head.push(m | len);
		else if (len < 0x10000) head.push(m | 126, len >> 8, len & 0xff);
		else head.push(m | 127, 0, 0, 0, 0, (len >>> 24) & 0xff, (len >>> 16) & 0xff, (len >>> 8) & 0xff, len & 0xff);
		if (!mask) {
			this.socket.write(Buffer.concat([Buffer.from(head), payload]));
			return;
		}
		const key = randomBytes(4);
		const body = Buffer.from(payload);
		for (let i = 0; i < body.length; i++) body[i]! ^= key[i & 3]!;
		this.socket.write(Buffer.concat([Buffer.from(head), key, body]));
	}

	/** Reads exactly `n` bytes of the binary message stream. */
	async read(n: number, timeoutMs = 5000): Promise<Buffer> {
		const end = Date.now() + timeoutMs;
		while (this.dataBytes < n) {
			if (this.closeInfo) {
				throw new Error(
					`socket closed (${this.closeInfo.code} ${this.closeInfo.reason}) while waiting for ${n} bytes (have ${this.dataBytes})`,
				);
			}
			const left = end - Date.now();
			if (left <= 0) throw new Error(`timed out waiting for ${n} bytes (have ${this.dataBytes})`);
			await new Promise<void>((resolve) => {
				const t = setTimeout(resolve, left);
				this.waiter = () => {
					clearTimeout(t);
					resolve();
				};
			});
			this.waiter = undefined;
		}
		const all = this.data.length === 1 ? this.data[0]! : Buffer.concat(this.data, this.dataBytes);
		const out = all.subarray(0, n);
		const rest = all.subarray(n);
		this.data = rest.length > 0 ? [rest] : [];
		this.dataBytes = rest.length;
		return out;
	}

	/** Bytes received and not read yet. */
	get buffered(): number {
		return this.dataBytes;
	}

	private wake(): void {
		this.waiter?.();
	}

	private finish(c: CloseInfo): void {
		if (this.closeInfo) return;
		this.closeInfo = c;
		this.resolveClosed(c);
		this.wake();
	}

	private onData(d: Buffer): void {
		// Chunks of a large frame are kept as a list and joined once the frame is complete.
		this.chunks.push(d);
		this.chunkBytes += d.length;
		if (this.chunkBytes < this.need) return;
		let b = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.chunkBytes);
		this.chunks = [];
		this.chunkBytes = 0;
		this.need = 0;
		for (;;) {
			if (b.length < 2) break;
			let len = b[1]! & 0x7f;
			let off = 2;
			if (len === 126) {
				if (b.length < 4) break;
				len = b.readUInt16BE(2);
				off = 4;
			} else if (len === 127) {
				if (b.length < 10) break;
				len = b.readUInt32BE(2) * 0x1_0000_0000 + b.readUInt32BE(6);
				off = 10;
			}
			if ((b[1]! & 0x80) !== 0) throw new Error('server frames must not be masked');
			if (b.length < off + len) {
				this.need = off + len;
				break;
			}
			const opcode = b[0]! & 0x0f;
			const payload = b.subarray(off, off + len);
			b = b.subarray(off + len);
			if (opcode === 0x2 || opcode === 0x0) {
				this.messages++;
				this.data.push(payload);
				this.dataBytes += payload.length;
				this.wake();
			} else if (opcode === 0xa) {
				this.pongs.push(Buffer.from(payload));
			} else if (opcode === 0x8) {
				const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
				this.finish({ code, reason: payload.subarray(2).toString('utf8'), frame: true });
				this.socket.end();
			}
		}
		if (b.length > 0) {
			this.chunks.push(b);
			this.chunkBytes = b.length;
		}
	}
}

/** RFC 6143 §7.4 pixel format. */
export interface RfbPixelFormat {
	bitsPerPixel: number;
	depth: number;
	bigEndian: boolean;
	trueColour: boolean;
	redMax: number;
	greenMax: number;
	blueMax: number;
	redShift: number;
	greenShift: number;
	blueShift: number;
}

/** What noVNC asks for (core/rfb.js RFB.messages.pixelFormat with depth 24). */
export const NOVNC_FORMAT: RfbPixelFormat = {
	bitsPerPixel: 32,
	depth: 24,
	bigEndian: false,
	trueColour: true,
	redMax: 255,
	greenMax: 255,
	blueMax: 255,
	redShift: 0,
	greenShift: 8,
	blueShift: 16,
};

export interface ServerInit {
	width: number;
	height: number;
	format: RfbPixelFormat;
	name: string;
}

export interface RawRect {
	x: number;
	y: number;
	w: number;
	h: number;
	encoding: number;
}

/** An RFB 3.8 viewer with security type None that keeps the screen as RGB bytes. */
export class RfbClient {
	format: RfbPixelFormat;
	/** The screen as R, G, B bytes per pixel, decoded from every Raw rectangle received. */
	rgb: Uint8Array;
	/** Server cut texts received. */
	readonly serverCutTexts: string[] = [];

	private constructor(
		readonly ws: WsClient,
		readonly init: ServerInit,
		/** The bytes of the server's version banner. */
		readonly banner: string,
		/** The security types the server offered. */
		readonly securityTypes: number[],
	) {
		this.format = init.format;
		this.rgb = new Uint8Array(init.width * init.height * 3);
	}

	/** Connects, negotiates 3.8 with security None and reads ServerInit. */
	static async connect(url: string, protocols: string[]): Promise<RfbClient> {
		const ws = await WsClient.connect(url, protocols);
		const banner = (await ws.read(12)).toString('latin1');
		ws.send(Buffer.from('RFB 003.008\n', 'latin1'));
		const count = (await ws.read(1))[0]!;
		if (count === 0) throw new Error('the server offered no security type');
		const types = [...(await ws.read(count))];
		if (!types.includes(1)) throw new Error(`security None not offered (types ${types.join(',')})`);
		ws.send(Buffer.from([1]));
		const result = (await ws.read(4)).readUInt32BE(0);
		if (result !== 0) throw new Error(`SecurityResult ${result}`);
		ws.send(Buffer.from([1])); // ClientInit, shared
		const head = await ws.read(24);
		const format = readFormat(head, 4);
		const name = (await ws.read(head.readUInt32BE(20))).toString('utf8');
		return new RfbClient(ws, { width: head.readUInt16BE(0), height: head.readUInt16BE(2), format, name }, banner, types);
	}

	setPixelFormat(pf: RfbPixelFormat): void {
		const b = Buffer.alloc(20);
		b[0] = 0;
		b[4] = pf.bitsPerPixel;
		b[5] = pf.depth;
		b[6] = pf.bigEndian ? 1 : 0;
		b[7] = pf.trueColour ? 1 : 0;
		b.writeUInt16BE(pf.redMax, 8);
		b.writeUInt16BE(pf.greenMax, 10);
		b.writeUInt16BE(pf.blueMax, 12);
		b[14] = pf.redShift;
		b[15] = pf.greenShift;
		b[16] = pf.blueShift;
		this.ws.send(b);
		this.format = pf;
	}

	setEncodings(list: number[]): void {
		const b = Buffer.alloc(4 + 4 * list.length);
		b[0] = 2;
		b.writeUInt16BE(list.length, 2);
		list.forEach((e, i) => b.writeInt32BE(e, 4 + 4 * i));
		this.ws.send(b);
	}

	requestUpdate(incremental: boolean, x = 0, y = 0, w = this.init.width, h = this.init.height): void {
		const b = Buffer.alloc(10);
		b[0] = 3;
		b[1] = incremental ? 1 : 0;
		b.writeUInt16BE(x, 2);
		b.writeUInt16BE(y, 4);
		b.writeUInt16BE(w, 6);
		b.writeUInt16BE(h, 8);
		this.ws.send(b);
	}

	key(keysym: number, down: boolean): void {
		const b = Buffer.alloc(8);
		b[0] = 4;
		b[1] = down ? 1 : 0;
		b.writeUInt32BE(keysym, 4);
		this.ws.send(b);
	}

	/** Presses and releases each character of ASCII text. */
	type(text: string): void {
		for (const ch of text) {
			const ks = ch === '\n' ? 0xff0d : ch.charCodeAt(0);
			this.key(ks, true);
			this.key(ks, false);
		}
	}

	pointer(x: number, y: number, buttons: number): void {
		const b = Buffer.alloc(6);
		b[0] = 5;
		b[1] = buttons;
		b.writeUInt16BE(x, 2);
		b.writeUInt16BE(y, 4);
		this.ws.send(b);
	}

	cutText(text: string): void {
		const t = Buffer.from(text, 'latin1');
		const b = Buffer.alloc(8 + t.length);
		b[0] = 6;
		b.writeUInt32BE(t.length, 4);
		t.copy(b, 8);
		this.ws.send(b);
	}

	/**
	 * Reads server messages until a FramebufferUpdate has been applied; returns its rectangles.
	 * `decode: false` skips the pixel decoding (the bench's throughput baseline).
	 */
	async readUpdate(timeoutMs = 5000, decode = true): Promise<RawRect[]> {
		for (;;) {
			const type = (await this.ws.read(1, timeoutMs))[0];
			if (type === 0) {
				const n = (await this.ws.read(3, timeoutMs)).readUInt16BE(1);
				const rects: RawRect[] = [];
				for (let i = 0; i < n; i++) {
					const h = await this.ws.read(12, timeoutMs);
					const r: RawRect = {
						x: h.readUInt16BE(0),
						y: h.readUInt16BE(2),
						w: h.readUInt16BE(4),
						h: h.readUInt16BE(6),
						encoding: h.readInt32BE(8),
					};
					if (r.encoding === -260) {
						// TightPNG: compression control 0xA0, a compact length, a PNG.
						const ctl = (await this.ws.read(1, timeoutMs))[0];
						if (ctl !== 0xa0) throw new Error(`TightPNG: control byte ${String(ctl)}, expected 0xa0`);
						let len = 0;
						for (let i = 0, more = true; more && i < 3; i++) {
							const b = (await this.ws.read(1, timeoutMs))[0]!;
							len |= (i < 2 ? b & 0x7f : b) << (7 * i);
							more = i < 2 && (b & 0x80) !== 0;
						}
						const png = await this.ws.read(len, timeoutMs);
						if (decode) this.applyPng(r, png);
						rects.push(r);
						continue;
					}
					if (r.encoding !== 0) throw new Error(`unexpected encoding ${r.encoding}`);
					const data = await this.ws.read(r.w * r.h * (this.format.bitsPerPixel >> 3), timeoutMs);
					if (decode) this.apply(r, data);
					rects.push(r);
				}
				return rects;
			}
			if (type === 2) continue; // Bell
			if (type === 3) {
				const len = (await this.ws.read(7, timeoutMs)).readUInt32BE(3);
				this.serverCutTexts.push((await this.ws.read(len, timeoutMs)).toString('latin1'));
				continue;
			}
			throw new Error(`unexpected server message type ${type}`);
		}
	}

	/** The pixel at (x, y) as [r, g, b] (0–255). */
	pixel(x: number, y: number): [number, number, number] {
		const i = (y * this.init.width + x) * 3;
		return [this.rgb[i]!, this.rgb[i + 1]!, this.rgb[i + 2]!];
	}

	/** Distinct colours in a region (for "several colours" checks). */
	colours(x = 0, y = 0, w = this.init.width, h = this.init.height): Set<number> {
		const out = new Set<number>();
		for (let yy = y; yy < y + h; yy++) {
			for (let xx = x; xx < x + w; xx++) {
				const [r, g, b] = this.pixel(xx, yy);
				out.add((r << 16) | (g << 8) | b);
			}
		}
		return out;
	}

	/** Decodes an 8-bit RGB PNG (filters None, Sub and Up) into the screen at `r`. */
	private applyPng(r: RawRect, png: Buffer): void {
		if (!png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
			throw new Error('TightPNG: not a PNG');
		}
		let off = 8;
		const idat: Buffer[] = [];
		let w = 0;
		let h = 0;
		while (off + 8 <= png.length) {
			const len = png.readUInt32BE(off);
			const type = png.toString('ascii', off + 4, off + 8);
			const body = png.subarray(off + 8, off + 8 + len);
			if (type === 'IHDR') {
				w = body.readUInt32BE(0);
				h = body.readUInt32BE(4);
				if (body[8] !== 8 || body[9] !== 2) throw new Error('TightPNG: only 8-bit RGB is decoded here');
			} else if (type === 'IDAT') {
				idat.push(body);
			}
			off += 12 + len;
		}
		if (w !== r.w || h !== r.h) throw new Error(`TightPNG: image ${w}×${h} for a ${r.w}×${r.h} rectangle`);
		const raw = inflateSync(Buffer.concat(idat));
		const row = w * 3;
		const prev = new Uint8Array(row);
		const cur = new Uint8Array(row);
		for (let y = 0; y < h; y++) {
			const f = raw[y * (row + 1)];
			const line = raw.subarray(y * (row + 1) + 1, (y + 1) * (row + 1));
			for (let i = 0; i < row; i++) {
				const left = i >= 3 ? cur[i - 3]! : 0;
				cur[i] = f === 0 ? line[i]! : f === 1 ? (line[i]! + left) & 0xff : f === 2 ? (line[i]! + prev[i]!) & 0xff : -1;
				if (f !== 0 && f !== 1 && f !== 2) throw new Error(`TightPNG: filter ${String(f)} not decoded here`);
			}
			this.rgb.set(cur, ((r.y + y) * this.init.width + r.x) * 3);
			prev.set(cur);
		}
	}

	private apply(r: RawRect, data: Buffer): void {
		const pf = this.format;
		const bpp = pf.bitsPerPixel >> 3;
		const scale = (v: number, max: number): number => Math.round((v * 255) / max);
		let p = 0;
		for (let y = r.y; y < r.y + r.h; y++) {
			for (let x = r.x; x < r.x + r.w; x++, p += bpp) {
				let v: number;
				if (bpp === 4) v = pf.bigEndian ? data.readUInt32BE(p) : data.readUInt32LE(p);
				else if (bpp === 2) v = pf.bigEndian ? data.readUInt16BE(p) : data.readUInt16LE(p);
				else v = data[p]!;
				const i = (y * this.init.width + x) * 3;
				this.rgb[i] = scale((v >>> pf.redShift) & pf.redMax, pf.redMax);
				this.rgb[i + 1] = scale((v >>> pf.greenShift) & pf.greenMax, pf.greenMax);
				this.rgb[i + 2] = scale((v >>> pf.blueShift) & pf.blueMax, pf.blueMax);
			}
		}
	}
}

function readFormat(b: Buffer, off: number): RfbPixelFormat {
	return {
		bitsPerPixel: b[off]!,
		depth: b[off + 1]!,
		bigEndian: b[off + 2] !== 0,
		trueColour: b[off + 3] !== 0,
		redMax: b.readUInt16BE(off + 4),
		greenMax: b.readUInt16BE(off + 6),
		blueMax: b.readUInt16BE(off + 8),
		redShift: b[off + 10]!,
		greenShift: b[off + 11]!,
		blueShift: b[off + 12]!,
	};
}
