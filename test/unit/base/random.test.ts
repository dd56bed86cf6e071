import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';
import { randomBase64, randomHex, randomUuid, sha256Base64Sync, sha256Hex, sha256HexSync } from '../../../src/base/random';

const node = (data: string | Uint8Array, encoding: 'hex' | 'base64' = 'hex'): string => createHash('sha256').update(data).digest(encoding);

/** Whether a file's code (not its comments or strings) names `Buffer`. */
function usesBuffer(path: string, text: string): boolean {
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
	const visit = (n: ts.Node): boolean => (ts.isIdentifier(n) && n.text === 'Buffer') || n.forEachChild(visit) === true;
	return visit(file);
}

suite('base/random: Web Crypto, on both extension hosts', () => {
	test("sha256Hex: the FIPS 180-2 vectors and Node's digest of a large buffer", async () => {
		assert.equal(await sha256Hex(new Uint8Array()), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
		assert.equal(await sha256Hex(new TextEncoder().encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
		const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 31) & 0xff);
		assert.equal(await sha256Hex(big), createHash('sha256').update(big).digest('hex'));
	});

	test('sha256HexSync: the FIPS 180-2 vectors, of strings and of bytes', () => {
		const vectors: Array<[string, string]> = [
			['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
			['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
			[
				'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
				'248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
			],
			['a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
		];
		for (const [text, digest] of vectors) {
			assert.equal(sha256HexSync(text), digest, text.slice(0, 20));
			assert.equal(sha256HexSync(new TextEncoder().encode(text)), digest, text.slice(0, 20));
		}
	});

	test("sha256HexSync and sha256Base64Sync equal node:crypto's digest of random bytes and strings", () => {
		for (let length = 0; length <= 300; length += length < 70 ? 1 : 23) {
			const bytes = new Uint8Array(length);
			globalThis.crypto.getRandomValues(bytes);
			assert.equal(sha256HexSync(bytes), node(bytes), `${length} bytes`);
			assert.equal(sha256Base64Sync(bytes), node(bytes, 'base64'), `${length} bytes`);
			// A view at an offset hashes its own bytes only.
			const view = new Uint8Array(length + 5).subarray(3, 3 + length);
			view.set(bytes);
			assert.equal(sha256HexSync(view), node(bytes), `${length} bytes at an offset`);
			// Random UTF-16 code units, lone surrogates included: hashed as UTF-8 with U+FFFD as Node does.
			const units = new Uint16Array(length);
			globalThis.crypto.getRandomValues(units);
			const text = String.fromCharCode(...units);
			assert.equal(sha256HexSync(text), node(text), `${length} code units`);
		}
		for (const text of ['日本語', 'ünïcödé 😀', '\ud800', 'a\udc00b', '\0', 'cloud-agents-row-cache\0tok']) {
			assert.equal(sha256HexSync(text), node(text), JSON.stringify(text));
			assert.equal(sha256Base64Sync(text), node(text, 'base64'), JSON.stringify(text));
		}
		const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 31) & 0xff);
		assert.equal(sha256HexSync(big), node(big));
	});

	test("the row-cache key: one digest of the prefix and token together equals Node's two updates", () => {
		for (const token of ['', 'ca_live_0123456789abcdef', 'tök€n 😀', '\udc00lone', 'x'.repeat(5000)]) {
			const twoUpdates = createHash('sha256').update('cloud-agents-row-cache\0').update(token).digest('hex');
			assert.equal(sha256HexSync(`cloud-agents-row-cache\0${token}`), twoUpdates, JSON.stringify(token.slice(0, 20)));
		}
	});

	test('random values have the asked length and shape, and differ', () => {
		assert.match(randomHex(4), /^[0-9a-f]{8}$/);
		assert.match(randomBase64(16), /^[A-Za-z0-9+/]{22}==$/);
		assert.match(randomUuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		const seen = new Set(Array.from({ length: 100 }, () => randomBase64(16)));
		assert.equal(seen.size, 100);
	});

	test('the nonce, tool-marker, idempotency-key, Send to Agent, digest and base64 code no longer import node:crypto', () => {
		for (const file of [
			'webviews/csp.ts',
			'util/quotedData.ts',
			'api/endpoints/images.ts',
			'changes/send.ts',
			'base/random.ts',
			'base/bytes.ts',
			'auth/session.ts',
			'auth/authProvider.ts',
			'api/decode.ts',
			'resources/imageBuilds.ts',
			'runFollowing/runStore.ts',
		]) {
			const text = readFileSync(join(__dirname, '../../../../src', file), 'utf8');
			assert.doesNotMatch(text, /['"](node:)?crypto['"]/, file);
		}
	});

	test("the digest and base64 code, and its callers, use no Node Buffer (the browser's extension host has none)", () => {
		for (const file of [
			'base/random.ts',
			'base/bytes.ts',
			'api/decode.ts',
			'api/validation.ts',
			'changes/apply.ts',
			'auth/session.ts',
			'auth/authProvider.ts',
			'resources/imageBuilds.ts',
			'runFollowing/runStore.ts',
		]) {
			const text = readFileSync(join(__dirname, '../../../../src', file), 'utf8');
			assert.doesNotMatch(text, /['"](node:)?(crypto|buffer)['"]/, file);
			assert.ok(!usesBuffer(file, text), `${file} uses Buffer`);
		}
		assert.ok(usesBuffer('x.ts', "/** Buffer */ const b = Buffer.from('x');"), 'the check sees a use');
		assert.ok(!usesBuffer('x.ts', "/** Buffer.from */ const b = 'Buffer'; // Buffer"), 'the check skips comments and strings');
	});
});
