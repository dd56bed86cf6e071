/**
 * The TightPNG encoding (RFB encoding -260, as noVNC implements it): a rectangle is the Tight
 * compression-control byte for PNG (0xA0), the data length in Tight's compact form, and a PNG
 * image. The browser decodes the PNG natively, so a frame that changes everywhere costs the viewer
 * far less than 4 bytes a pixel of Raw. Pixels are RGB whatever the client's pixel format.
 */
import { constants, crc32, deflateSync } from 'node:zlib';
import type { Framebuffer, Rect } from './framebuffer';

/** The encoding number noVNC lists for TightPNG. */
export const ENCODING_TIGHT_PNG = -260;

function chunk(type: string, data: Buffer): Buffer {
	const out = Buffer.alloc(12 + data.length);
	out.writeUInt32BE(data.length, 0);
	out.write(type, 4, 'ascii');
	data.copy(out, 8);
	out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
	return out;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const IEND = chunk('IEND', Buffer.alloc(0));

/** A PNG (8-bit RGB, "Sub" filter on every row, fast deflate) of one framebuffer rectangle. */
export function pngOf(fb: Framebuffer, r: Rect): Buffer {
	const src = fb.bytes;
	const px = fb.pixels;
	const rowBytes = r.w * 3 + 1;
	// Zeroed: a pixel equal to its left neighbour (most of them) is three zeros and is skipped.
	const raw = Buffer.alloc(rowBytes * r.h);
	for (let y = 0; y < r.h; y++) {
		let o = y * rowBytes;
		const i0 = (r.y + y) * fb.width + r.x;
		let p = i0 * 4;
		raw[o++] = 1; // Sub: each byte minus the one a pixel to the left; runs of one colour become zeros.
		raw[o++] = src[p]!;
		raw[o++] = src[p + 1]!;
		raw[o++] = src[p + 2]!;
		p += 4;
		for (let i = i0 + 1; i < i0 + r.w; i++, p += 4, o += 3) {
			if (px[i] === px[i - 1]) continue;
			raw[o] = (src[p]! - src[p - 4]!) & 0xff;
			raw[o + 1] = (src[p + 1]! - src[p - 3]!) & 0xff;
			raw[o + 2] = (src[p + 2]! - src[p - 2]!) & 0xff;
		}
	}
	const ihdr = Buffer.alloc(13);
	ihdr.writeUInt32BE(r.w, 0);
	ihdr.writeUInt32BE(r.h, 4);
	ihdr[8] = 8;
	ihdr[9] = 2;
	const idat = deflateSync(raw, { level: 1, strategy: constants.Z_RLE });
	return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', idat), IEND]);
}

/** Tight's compact length: 7 bits a byte, low bits first, the high bit saying another byte follows. */
export function compactLength(n: number): Buffer {
	if (n < 0x80) return Buffer.from([n]);
	if (n < 0x4000) return Buffer.from([(n & 0x7f) | 0x80, n >> 7]);
	return Buffer.from([(n & 0x7f) | 0x80, ((n >> 7) & 0x7f) | 0x80, (n >> 14) & 0xff]);
}

/** The body of a TightPNG rectangle (after its 12-byte header): control byte, length, PNG; undefined when the image is too large for Tight's 22-bit length. */
export function tightPngRect(fb: Framebuffer, r: Rect): Buffer | undefined {
	const png = pngOf(fb, r);
	if (png.length >= 1 << 22) return undefined;
	return Buffer.concat([Buffer.from([0xa0]), compactLength(png.length), png]);
}
