/**
 * src/base/bytes.ts: base64, UTF-8 lengths and byte equality without Node's `Buffer` (so they also
 * run in a browser's extension host), checked against Buffer over many inputs; and the callers that
 * moved onto them (decodeBase64Strict, checkImages) accept and refuse exactly what they did.
 */
import assert from 'node:assert/strict';
import { base64Decode, base64Encode, bytesEqual, utf8Length } from '../../../src/base/bytes';
import { InvalidResponseError, decodeBase64Strict } from '../../../src/api/decode';
import { base64, checkImages } from '../../../src/api/validation';

/** A seeded generator (xorshift32), so a failure names an input that can be made again. */
function generator(seed: number): (below: number) => number {
	let x = seed >>> 0 || 1;
	return (below) => {
		x ^= x << 13;
		x >>>= 0;
		x ^= x >>> 17;
		x ^= x << 5;
		x >>>= 0;
		return x % below;
	};
}

function randomBytes(next: (below: number) => number, length: number): Uint8Array {
	return Uint8Array.from({ length }, () => next(256));
}

const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Today's decodeBase64Strict before the move off Buffer: the reference it must still equal. */
function oldDecodeBase64Strict(text: string): Uint8Array | 'refused' {
	if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
		return 'refused';
	}
	return new Uint8Array(Buffer.from(text, 'base64'));
}

suite('base/bytes: Buffer-free bytes, equal to Buffer', () => {
	test('base64Encode equals Buffer for every length 0..100, for views at an offset and for 3 MiB', () => {
		const next = generator(1);
		for (let length = 0; length <= 100; length++) {
			for (let k = 0; k < 5; k++) {
				const bytes = randomBytes(next, length);
				assert.equal(base64Encode(bytes), Buffer.from(bytes).toString('base64'), hex(bytes));
				assert.equal(base64(bytes), Buffer.from(bytes).toString('base64'), hex(bytes));
			}
		}
		const whole = randomBytes(next, 300);
		for (const [start, end] of [
			[1, 2],
			[3, 100],
			[7, 299],
			[150, 150],
		] as const) {
			const view = whole.subarray(start, end);
			assert.equal(base64Encode(view), Buffer.from(view).toString('base64'), `${start}..${end}`);
		}
		assert.equal(base64Encode(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc])), '//79/A==');
		const big = randomBytes(next, 3 * 1024 * 1024 + 1);
		assert.equal(base64Encode(big), Buffer.from(big).toString('base64'));
	});

	test('base64Decode equals Buffer on padded, unpadded and loose-bit base64, and for 3 MiB', () => {
		const next = generator(2);
		for (let length = 0; length <= 100; length++) {
			for (let k = 0; k < 5; k++) {
				const bytes = randomBytes(next, length);
				const padded = Buffer.from(bytes).toString('base64');
				assert.equal(hex(base64Decode(padded)), hex(bytes), padded);
				assert.equal(hex(base64Decode(padded.replace(/=+$/, ''))), hex(bytes), padded);
			}
		}
		// Bits after the last whole byte are ignored by both, as is ASCII whitespace.
		for (const text of ['YR==', 'YWJk', 'YWJ=', 'YWK=', 'AB==', 'AAB=', '////', 'YW Jj', 'YWJj\nZA==']) {
			assert.equal(hex(base64Decode(text)), Buffer.from(text, 'base64').toString('hex'), text);
		}
		const big = randomBytes(next, 3 * 1024 * 1024 + 2);
		assert.equal(hex(base64Decode(Buffer.from(big).toString('base64'))), hex(big));
		// Where Buffer would skip a character outside the alphabet, base64Decode throws (callers check first).
		assert.throws(() => base64Decode('YWJj$A=='));
		assert.throws(() => base64Decode('YQ=a'));
	});

	test('decodeBase64Strict accepts and refuses exactly what it did with Buffer, with the same bytes', () => {
		const samples = [
			'',
			'YQ==',
			'YWI=',
			'YWJj',
			'aGVsbG8=',
			'YR==',
			'YWK=',
			'////',
			'++++',
			'AAAA',
			'YWJj$A==',
			'YW Jj',
			'YQ',
			'YQ=a',
			'Y===',
			'====',
			'YWJj\nZA==',
			'YWJj=',
			'YW=j',
			'-_-_',
			'YWJjZA',
			'YWJjZA=',
			'YWJjZA==',
			'YWJjZA===',
			'\u00e9AAA',
		];
		const next = generator(3);
		const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n';
		for (let k = 0; k < 2000; k++) {
			samples.push(Array.from({ length: next(13) }, () => alphabet[next(k % 2 === 0 ? 64 : alphabet.length)]).join(''));
			samples.push(Array.from({ length: 4 * next(4) }, () => alphabet[next(64)]).join('') + ['', '=', '=='][next(3)]);
		}
		let accepted = 0;
		for (const text of samples) {
			const before = oldDecodeBase64Strict(text);
			if (before === 'refused') {
				assert.throws(() => decodeBase64Strict(text, 'f', {}), InvalidResponseError, JSON.stringify(text));
			} else {
				accepted++;
				assert.equal(hex(decodeBase64Strict(text, 'f', {})), hex(before), JSON.stringify(text));
			}
		}
		assert.ok(accepted > 500, `${accepted} accepted samples`);
		for (const value of [undefined, null, 4, ['YQ=='], { a: 1 }]) {
			assert.throws(() => decodeBase64Strict(value, 'f', {}), InvalidResponseError);
		}
	});

	test('checkImages encodes bytes and reads the type from the head of base64 as before', () => {
		const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...randomBytes(generator(4), 1000)]);
		const fromBytes = checkImages([{ data: png }]);
		assert.deepEqual(fromBytes, [{ data: Buffer.from(png).toString('base64'), media_type: 'image/png' }]);
		const text = Buffer.from(png).toString('base64');
		for (const data of [text, text.slice(0, 24), text.slice(0, 12)]) {
			assert.deepEqual(checkImages([{ data }]), [{ data, media_type: 'image/png' }], data);
		}
		for (const data of [`${text.slice(0, 20)}$AAA`, 'iVBORw0KGgo', 'data:image/png;base64,iVBORw0KGgo=']) {
			assert.throws(() => checkImages([{ data }]), /raw base64 data/, data);
		}
	});

	test('utf8Length equals Buffer.byteLength: non-ASCII, emoji, lone surrogates (3 bytes), long strings', () => {
		const fixed = [
			'',
			'a',
			'hello world',
			'é',
			'\u07ff',
			'\u0800',
			'€',
			'\uffff',
			'日本語のテキスト',
			'😀',
			'a😀b',
			'👩‍👩‍👧‍👦',
			'\ud800',
			'\udc00',
			'\udc00\ud800',
			'a\ud800',
			'\ud800a',
			'\ud83d\ud83d\ude00',
			'\ude00\ude00',
			'x'.repeat(512),
			'x'.repeat(511) + '😀',
			'x'.repeat(513) + '😀',
		];
		for (const text of fixed) {
			assert.equal(utf8Length(text), Buffer.byteLength(text, 'utf8'), JSON.stringify(text));
		}
		// Long strings, measured in chunks of 16,384 code units: a pair or a lone surrogate at every seam.
		const seam = 16 * 1024;
		for (const at of [seam - 2, seam - 1, seam, seam + 1, 2 * seam - 1]) {
			for (const insert of ['😀', '\ud800', '\udc00', '\ud800\ud800', 'é']) {
				const text = 'a'.repeat(at) + insert + 'b'.repeat(3 * seam - at);
				assert.equal(utf8Length(text), Buffer.byteLength(text, 'utf8'), `${JSON.stringify(insert)} at ${at}`);
			}
		}
		// Random code units (surrogates included) of many lengths, on both sides of the loop's limit.
		const next = generator(5);
		const units = [0x41, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xe000, 0xfffd, 0xffff];
		for (const length of [1, 2, 3, 10, 100, 511, 512, 513, 1000, 5000, seam + 7, 3 * seam + 1]) {
			for (let k = 0; k < 20; k++) {
				const text = String.fromCharCode(
					...Array.from({ length }, () => (next(3) === 0 ? units[next(units.length)]! : next(0x10000))),
				);
				assert.equal(utf8Length(text), Buffer.byteLength(text, 'utf8'), `length ${length}, sample ${k}`);
			}
		}
		const big = JSON.stringify({ data: 'A'.repeat(3 * 1024 * 1024), name: 'ünïcödé 😀' });
		assert.equal(utf8Length(big), Buffer.byteLength(big, 'utf8'));
	});

	test('bytesEqual equals Buffer#equals: same bytes, other lengths, one byte off anywhere, views', () => {
		const next = generator(6);
		for (let length = 0; length <= 100; length++) {
			const a = randomBytes(next, length);
			assert.ok(bytesEqual(a, a.slice()));
			assert.ok(!bytesEqual(a, randomBytes(next, length + 1)));
			if (length > 0) {
				for (const at of [0, length >> 1, length - 1]) {
					const b = a.slice();
					b[at] = b[at]! ^ (1 + next(255));
					assert.equal(bytesEqual(a, b), Buffer.from(a).equals(Buffer.from(b)));
					assert.ok(!bytesEqual(a, b), `${length} at ${at}`);
				}
			}
		}
		const whole = randomBytes(next, 64);
		const copy = new Uint8Array(65);
		copy.set(whole, 1);
		assert.ok(bytesEqual(whole.subarray(3, 40), copy.subarray(4, 41)));
		assert.ok(!bytesEqual(whole.subarray(3, 40), copy.subarray(3, 40)));
		const big = randomBytes(next, 3 * 1024 * 1024);
		assert.ok(bytesEqual(big, big.slice()));
	});
});
