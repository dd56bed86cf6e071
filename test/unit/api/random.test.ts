import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBase64, randomHex, randomUuid, sha256Hex } from '../../../src/api/random';

suite('api/random: Web Crypto, on both extension hosts', () => {
	test("sha256Hex: the FIPS 180-2 vectors and Node's digest of a large buffer", async () => {
		assert.equal(await sha256Hex(new Uint8Array()), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
		assert.equal(await sha256Hex(new TextEncoder().encode('abc')), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
		const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 31) & 0xff);
		assert.equal(await sha256Hex(big), createHash('sha256').update(big).digest('hex'));
	});

	test('random values have the asked length and shape, and differ', () => {
		assert.match(randomHex(4), /^[0-9a-f]{8}$/);
		assert.match(randomBase64(16), /^[A-Za-z0-9+/]{22}==$/);
		assert.match(randomUuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		const seen = new Set(Array.from({ length: 100 }, () => randomBase64(16)));
		assert.equal(seen.size, 100);
	});

	test('the nonce, tool-marker, idempotency-key and Send to Agent code no longer import node:crypto', () => {
		for (const file of ['webviews/csp.ts', 'chat/toolText.ts', 'api/endpoints/images.ts', 'changes/send.ts']) {
			const text = readFileSync(join(__dirname, '../../../../src', file), 'utf8');
			assert.doesNotMatch(text, /node:crypto/, file);
		}
	});
});
