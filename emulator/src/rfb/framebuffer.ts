/**
 * The desktop's pixels: a 32-bit framebuffer with drawing primitives, a tiled screen that knows
 * which tiles changed (version numbers per tile, so each connection sends only what it has not
 * seen), and the conversion of rectangles into a client's RFB pixel format (RFC 6143 §7.4).
 *
 * In memory every pixel is the bytes R, G, B, 0 whatever the host's byte order, which is the
 * format {@link NATIVE_FORMAT} advertises and what noVNC asks for: then a rectangle row is one copy.
 */
import { endianness } from 'node:os';
import { GLYPH_H, GLYPH_W, glyphRows } from './font';

/** RFC 6143 §7.4 PIXEL_FORMAT. */
export interface PixelFormat {
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

/** The server's own format (ServerInit): 32 bpp, depth 24, little-endian, red in the low byte. */
export const NATIVE_FORMAT: Readonly<PixelFormat> = {
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

/** The 16-byte wire form of a pixel format. */
export function encodePixelFormat(pf: PixelFormat): Buffer {
	const b = Buffer.alloc(16);
	b[0] = pf.bitsPerPixel;
	b[1] = pf.depth;
	b[2] = pf.bigEndian ? 1 : 0;
	b[3] = pf.trueColour ? 1 : 0;
	b.writeUInt16BE(pf.redMax, 4);
	b.writeUInt16BE(pf.greenMax, 6);
	b.writeUInt16BE(pf.blueMax, 8);
	b[10] = pf.redShift;
	b[11] = pf.greenShift;
	b[12] = pf.blueShift;
	return b;
}

/** Reads a 16-byte pixel format at `off`. */
export function decodePixelFormat(b: Buffer, off: number): PixelFormat {
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

/** Why the server cannot send in this format, or undefined when it can (true colour, 8/16/32 bpp). */
export function unsupportedFormat(pf: PixelFormat): string | undefined {
	if (![8, 16, 32].includes(pf.bitsPerPixel)) return `bits-per-pixel ${pf.bitsPerPixel} (8, 16 or 32 supported)`;
	if (!pf.trueColour) return 'colour-map pixel formats (true colour only)';
	for (const [max, shift, name] of [
		[pf.redMax, pf.redShift, 'red'],
		[pf.greenMax, pf.greenShift, 'green'],
		[pf.blueMax, pf.blueShift, 'blue'],
	] as const) {
		if (max === 0 || max > 0xffff) return `${name}-max ${max}`;
		if (shift + Math.ceil(Math.log2(max + 1)) > pf.bitsPerPixel) {
			return `${name}-shift ${shift} with ${name}-max ${max} does not fit ${pf.bitsPerPixel} bits`;
		}
	}
	return undefined;
}

const LITTLE = endianness() === 'LE';

/** A pixel value whose memory bytes are R, G, B, 0 on any host. */
export function rgb(r: number, g: number, b: number): number {
	return LITTLE ? (r | (g << 8) | (b << 16)) >>> 0 : ((r << 24) | (g << 16) | (b << 8)) >>> 0;
}

/** A 32-bit framebuffer (bytes R, G, B, 0 per pixel) with clipped drawing. */
export class Framebuffer {
	readonly pixels: Uint32Array;
	/** The same memory as bytes. */
	readonly bytes: Buffer;

	constructor(
		readonly width: number,
		readonly height: number,
	) {
		this.pixels = new Uint32Array(width * height);
		this.bytes = Buffer.from(this.pixels.buffer, this.pixels.byteOffset, this.pixels.byteLength);
	}

	/** Fills a rectangle (clipped to the screen). */
	fill(x: number, y: number, w: number, h: number, color: number): void {
		const x0 = Math.max(0, Math.floor(x));
		const y0 = Math.max(0, Math.floor(y));
		const x1 = Math.min(this.width, Math.floor(x + w));
		const y1 = Math.min(this.height, Math.floor(y + h));
		if (x1 <= x0 || y1 <= y0) return;
		for (let yy = y0; yy < y1; yy++) this.pixels.fill(color, yy * this.width + x0, yy * this.width + x1);
	}

	/** A rectangle outline `t` pixels thick. */
	outline(x: number, y: number, w: number, h: number, color: number, t = 1): void {
		this.fill(x, y, w, t, color);
		this.fill(x, y + h - t, w, t, color);
		this.fill(x, y, t, h, color);
		this.fill(x + w - t, y, t, h, color);
	}

	/** Draws text with the built-in font; returns the width drawn. Characters outside ASCII show as `?`. */
	text(x: number, y: number, s: string, color: number, scale = 1): number {
		const adv = (GLYPH_W + 1) * scale;
		let cx = x;
		for (let i = 0; i < s.length; i++, cx += adv) {
			if (cx >= this.width) break;
			const code = s.charCodeAt(i);
			if (code === 32) continue;
			const rows = glyphRows(code);
			for (let gy = 0; gy < GLYPH_H; gy++) {
				const bits = rows[gy]!;
				if (bits === 0) continue;
				// Runs of set pixels become one fill each.
				let gx = 0;
				while (gx < GLYPH_W) {
					if ((bits & (1 << (GLYPH_W - 1 - gx))) === 0) {
						gx++;
						continue;
					}
					let end = gx;
					while (end < GLYPH_W && (bits & (1 << (GLYPH_W - 1 - end))) !== 0) end++;
					this.fill(cx + gx * scale, y + gy * scale, (end - gx) * scale, scale, color);
					gx = end;
				}
			}
		}
		return cx - x;
	}
}

/** Tile edge in pixels: the unit of change tracking. */
export const TILE = 32;

/**
 * The screen as tiles with version numbers. A frame is drawn whole into a scratch buffer and then
 * committed: tiles whose pixels differ get a new version, and the buffers swap.
 */
export class TiledScreen {
	current: Framebuffer;
	private scratch: Framebuffer;
	readonly tilesX: number;
	readonly tilesY: number;
	/** Version of each tile (row-major); 0 = never drawn. */
	readonly versions: Uint32Array;
	private counter = 0;

	constructor(
		readonly width: number,
		readonly height: number,
	) {
		this.current = new Framebuffer(width, height);
		this.scratch = new Framebuffer(width, height);
		this.tilesX = Math.ceil(width / TILE);
		this.tilesY = Math.ceil(height / TILE);
		this.versions = new Uint32Array(this.tilesX * this.tilesY);
	}

	/** The buffer to draw the next frame into (its old content is undefined: draw every pixel). */
	get next(): Framebuffer {
		return this.scratch;
	}

	/** Publishes the drawn frame; `all` marks every tile changed without comparing. Returns the changed tile count. */
	commit(all = false): number {
		const a = this.scratch.bytes;
		const b = this.current.bytes;
		const stride = this.width * 4;
		this.counter++;
		let changed = 0;
		for (let ty = 0; ty < this.tilesY; ty++) {
			const y0 = ty * TILE;
			const y1 = Math.min(this.height, y0 + TILE);
			for (let tx = 0; tx < this.tilesX; tx++) {
				const s = tx * TILE * 4;
				const e = Math.min(this.width, (tx + 1) * TILE) * 4;
				let differs = all;
				for (let y = y0; !differs && y < y1; y++) {
					differs = a.compare(b, y * stride + s, y * stride + e, y * stride + s, y * stride + e) !== 0;
				}
				if (differs) {
					this.versions[ty * this.tilesX + tx] = this.counter;
					changed++;
				}
			}
		}
		const t = this.current;
		this.current = this.scratch;
		this.scratch = t;
		return changed;
	}
}

/** A rectangle in pixels. */
export interface Rect {
	x: number;
	y: number;
	w: number;
	h: number;
}

/**
 * The rectangles covering every tile that intersects `region` and whose version is newer than in
 * `sent` (all of them when `full`), clipped to the screen; `sent` is brought up to date. Runs of
 * tiles in a row become one rectangle, and equal runs in consecutive rows merge.
 */
export function changedRects(screen: TiledScreen, sent: Uint32Array, region: Rect, full: boolean): Rect[] {
	const tx0 = Math.max(0, Math.floor(region.x / TILE));
	const ty0 = Math.max(0, Math.floor(region.y / TILE));
	const tx1 = Math.min(screen.tilesX, Math.ceil((region.x + region.w) / TILE));
	const ty1 = Math.min(screen.tilesY, Math.ceil((region.y + region.h) / TILE));
	const rects: Rect[] = [];
	let open = new Map<string, Rect>();
	for (let ty = ty0; ty < ty1; ty++) {
		const nextOpen = new Map<string, Rect>();
		let tx = tx0;
		while (tx < tx1) {
			const i = ty * screen.tilesX + tx;
			if (!full && screen.versions[i]! <= sent[i]!) {
				tx++;
				continue;
			}
			const start = tx;
			while (tx < tx1 && (full || screen.versions[ty * screen.tilesX + tx]! > sent[ty * screen.tilesX + tx]!)) {
				sent[ty * screen.tilesX + tx] = screen.versions[ty * screen.tilesX + tx]!;
				tx++;
			}
			const x = start * TILE;
			const w = Math.min(screen.width, tx * TILE) - x;
			const y = ty * TILE;
			const h = Math.min(screen.height, y + TILE) - y;
			const key = `${x}:${w}`;
			const above = open.get(key);
			if (above && above.y + above.h === y) {
				above.h += h;
				nextOpen.set(key, above);
			} else {
				const r = { x, y, w, h };
				rects.push(r);
				nextOpen.set(key, r);
			}
		}
		open = nextOpen;
	}
	return rects;
}

/** Bytes per pixel of a format. */
export const bytesPerPixel = (pf: PixelFormat): number => pf.bitsPerPixel >> 3;

/** True when the format's bytes in memory are R, G, B, x: rows can be copied as they are. */
function isNativeLayout(pf: PixelFormat): boolean {
	if (pf.bitsPerPixel !== 32 || pf.redMax !== 255 || pf.greenMax !== 255 || pf.blueMax !== 255) return false;
	const byteOf = (shift: number): number => (shift % 8 !== 0 ? -1 : pf.bigEndian ? 3 - shift / 8 : shift / 8);
	return byteOf(pf.redShift) === 0 && byteOf(pf.greenShift) === 1 && byteOf(pf.blueShift) === 2;
}

/** Converts framebuffer rectangles into one pixel format (lookup tables built once per format). */
export class PixelEncoder {
	private readonly native: boolean;
	private readonly bpp: number;
	private readonly rT = new Uint32Array(256);
	private readonly gT = new Uint32Array(256);
	private readonly bT = new Uint32Array(256);

	constructor(readonly format: PixelFormat) {
		this.native = isNativeLayout(format);
		this.bpp = bytesPerPixel(format);
		for (let v = 0; v < 256; v++) {
			this.rT[v] = (Math.round((v * format.redMax) / 255) << format.redShift) >>> 0;
			this.gT[v] = (Math.round((v * format.greenMax) / 255) << format.greenShift) >>> 0;
			this.bT[v] = (Math.round((v * format.blueMax) / 255) << format.blueShift) >>> 0;
		}
	}

	/** Bytes a Raw rectangle of w×h takes. */
	size(r: Rect): number {
		return r.w * r.h * this.bpp;
	}

	/** Writes the Raw pixel data of `r` into `out` at `off`; returns the offset after it. */
	write(fb: Framebuffer, r: Rect, out: Buffer, off: number): number {
		const src = fb.bytes;
		const stride = fb.width * 4;
		if (this.native) {
			if (r.x === 0 && r.w === fb.width) return off + src.copy(out, off, r.y * stride, (r.y + r.h) * stride);
			for (let y = r.y; y < r.y + r.h; y++) off += src.copy(out, off, y * stride + r.x * 4, y * stride + (r.x + r.w) * 4);
			return off;
		}
		const { rT, gT, bT, bpp } = this;
		const big = this.format.bigEndian;
		for (let y = r.y; y < r.y + r.h; y++) {
			let p = y * stride + r.x * 4;
			for (let x = 0; x < r.w; x++, p += 4) {
				const v = (rT[src[p]!]! | gT[src[p + 1]!]! | bT[src[p + 2]!]!) >>> 0;
				if (bpp === 4) {
					if (big) {
						out[off] = v >>> 24;
						out[off + 1] = (v >>> 16) & 0xff;
						out[off + 2] = (v >>> 8) & 0xff;
						out[off + 3] = v & 0xff;
					} else {
						out[off] = v & 0xff;
						out[off + 1] = (v >>> 8) & 0xff;
						out[off + 2] = (v >>> 16) & 0xff;
						out[off + 3] = v >>> 24;
					}
				} else if (bpp === 2) {
					out[off] = big ? (v >>> 8) & 0xff : v & 0xff;
					out[off + 1] = big ? v & 0xff : (v >>> 8) & 0xff;
				} else {
					out[off] = v & 0xff;
				}
				off += bpp;
			}
		}
		return off;
	}
}
