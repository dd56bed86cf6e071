import { createHash, randomBytes, randomUUID } from 'node:crypto';

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID-shaped 26-character identifier (time-ordered, Crockford base32). */
export function ulid(now = Date.now()): string {
	let time = '';
	let t = now;
	for (let i = 0; i < 10; i++) {
		time = CROCKFORD[t % 32]! + time;
		t = Math.floor(t / 32);
	}
	const rnd = randomBytes(16);
	let tail = '';
	for (let i = 0; i < 16; i++) tail += CROCKFORD[rnd[i]! % 32]!;
	return time + tail;
}

let lastV7Ms = 0;
let v7Counter = 0;

/** RFC 9562 UUID version 7 (Unix ms timestamp, monotonic within one millisecond). */
export function uuidv7(): string {
	const now = Date.now();
	if (now === lastV7Ms) v7Counter = (v7Counter + 1) & 0xfff;
	else {
		lastV7Ms = now;
		v7Counter = randomBytes(2).readUInt16BE(0) & 0x7ff;
	}
	const b = randomBytes(16);
	b.writeUIntBE(now, 0, 6);
	b[6] = 0x70 | (v7Counter >> 8);
	b[7] = v7Counter & 0xff;
	b[8] = (b[8]! & 0x3f) | 0x80;
	const h = b.toString('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const uuid = (): string => randomUUID();

/** A stable, realistic-looking UUID v4 derived from a name (for seed data). */
export function stableUuid(name: string): string {
	const b = createHash('sha256').update(`cloud-agents-emulator:${name}`).digest().subarray(0, 16);
	b[6] = (b[6]! & 0x0f) | 0x40;
	b[8] = (b[8]! & 0x3f) | 0x80;
	const h = b.toString('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const randomToken = (prefix: string): string => `${prefix}${randomBytes(24).toString('base64url')}`;

export const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');

export const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
export const IDENT_RE = /^[A-Za-z0-9_-]{1,160}$/;
