// Draws the 128x128 marketplace icon, media/icon.png (vsce requires a PNG for `icon`), with no
// dependencies: shapes are sampled 4x4 per pixel and written as an RGBA PNG with node:zlib.
//   node scripts/make-icon.mjs
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const BG = [0x1f, 0x5f, 0xd1];
const FG = [0xff, 0xff, 0xff];

const inCircle = (x, y, cx, cy, r) => (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
function inRoundRect(x, y, x0, y0, x1, y1, r) {
	if (x < x0 || x > x1 || y < y0 || y > y1) {
		return false;
	}
	const cx = Math.min(Math.max(x, x0 + r), x1 - r);
	const cy = Math.min(Math.max(y, y0 + r), y1 - r);
	return inCircle(x, y, cx, cy, r);
}
const inCloud = (x, y) =>
	inCircle(x, y, 42, 78, 16) || inCircle(x, y, 66, 58, 27) || inCircle(x, y, 90, 76, 18) || inRoundRect(x, y, 42, 62, 92, 94, 0);
const inAntenna = (x, y) => (Math.abs(x - 66) <= 2 && y >= 58 && y <= 68) || inCircle(x, y, 66, 56, 4);
const inFace = (x, y) => inRoundRect(x, y, 52, 67, 80, 88, 6);
const inEye = (x, y) => inCircle(x, y, 60, 77, 3.2) || inCircle(x, y, 72, 77, 3.2);

/** Colour and coverage of one sample point; undefined outside the icon. */
function sample(x, y) {
	if (!inRoundRect(x, y, 0, 0, SIZE, SIZE, 26)) {
		return undefined;
	}
	if (inEye(x, y)) {
		return FG;
	}
	if (inFace(x, y) || inAntenna(x, y)) {
		return BG;
	}
	if (inCloud(x, y)) {
		return FG;
	}
	return BG;
}

const raw = Buffer.alloc(SIZE * (SIZE * 4 + 1));
const N = 4;
for (let py = 0; py < SIZE; py++) {
	const row = py * (SIZE * 4 + 1);
	raw[row] = 0; // filter: none
	for (let px = 0; px < SIZE; px++) {
		let r = 0,
			g = 0,
			b = 0,
			a = 0;
		for (let sy = 0; sy < N; sy++) {
			for (let sx = 0; sx < N; sx++) {
				const c = sample(px + (sx + 0.5) / N, py + (sy + 0.5) / N);
				if (c) {
					r += c[0];
					g += c[1];
					b += c[2];
					a++;
				}
			}
		}
		const o = row + 1 + px * 4;
		if (a > 0) {
			raw[o] = Math.round(r / a);
			raw[o + 1] = Math.round(g / a);
			raw[o + 2] = Math.round(b / a);
		}
		raw[o + 3] = Math.round((a / (N * N)) * 255);
	}
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k++) {
		c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	}
	return c >>> 0;
});
function crc32(buf) {
	let c = 0xffffffff;
	for (const byte of buf) {
		c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
	}
	return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
	const len = Buffer.alloc(4);
	len.writeUInt32BE(data.length);
	const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(body));
	return Buffer.concat([len, body, crc]);
}
const ihdr = Buffer.alloc(13);
ihdr.writeUInt32BE(SIZE, 0);
ihdr.writeUInt32BE(SIZE, 4);
ihdr[8] = 8;
ihdr[9] = 6; // 8-bit RGBA
const png = Buffer.concat([
	Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
	chunk('IHDR', ihdr),
	chunk('IDAT', deflateSync(raw, { level: 9 })),
	chunk('IEND', Buffer.alloc(0)),
]);
const out = new URL('../media/icon.png', import.meta.url);
writeFileSync(out, png);
console.log(`wrote ${out.pathname} (${png.length} bytes)`);
