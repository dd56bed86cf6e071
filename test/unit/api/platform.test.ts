/**
 * The decoders of the SSH gateway host key and of secrets (src/api/decode.ts): against the emulator
 * in each profile over real HTTP, and against crafted answers that must be refused or cleaned.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CloudAgentsClient, InvalidResponseError } from '../../../src/api';
import { decodeGatewayHostKey, decodeSecret } from '../../../src/api/decode';
import { CLIENT_PROFILES, DEV_TOKEN, type TestEmulator, isVariant, startTestEmulator } from '../support/emulator';
import { recordingLogger } from '../support/leaks';

/** An SSH public key blob of a type with a 32-byte body. */
function blob(type: string, body = Buffer.alloc(32, 7)): Buffer {
	const str = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
	return Buffer.concat([str(Buffer.from(type)), str(body)]);
}
const fp = (b: Buffer): string => `SHA256:${createHash('sha256').update(b).digest('base64').replace(/=+$/, '')}`;

CLIENT_PROFILES.forEach((profile) =>
	suite(`platform records against the emulator [${profile}]`, function () {
		this.timeout(30_000);
		let emu: TestEmulator;
		let client: CloudAgentsClient;
		suiteSetup(async () => {
			emu = await startTestEmulator({ profile });
			client = new CloudAgentsClient({ baseUrl: emu.url, getToken: () => DEV_TOKEN, logger: recordingLogger });
		});
		suiteTeardown(async () => {
			client.close();
			await emu.close();
		});

		test('the gateway host key decodes to the same key, fingerprint, host and port in every profile', async () => {
			const key = await client.getGatewayHostKey();
			assert.equal(key.keyType, 'ssh-ed25519');
			const raw = Buffer.from(key.keyBase64, 'base64');
			assert.equal(raw.length, 51);
			assert.equal(key.fingerprintSha256, fp(raw));
			assert.equal(key.host, 'gateway.cloud-agents.example');
			assert.equal(key.port, 2222);
		});

		test('a secret reads by name with its TTL; the preview only when masked (absent in the variant)', async () => {
			const s = (await client.getSecret('npm-token')) as Record<string, unknown>;
			assert.equal(s.display_name, 'npm-token');
			assert.equal(s.cache_ttl_secs, 600);
			if (isVariant(profile)) {
				assert.equal(s.value_preview, undefined);
			} else {
				assert.match(String(s.value_preview), /^npm•{8}h8$|^npm•+/);
			}
			assert.ok(!JSON.stringify(s).includes('npm_demoA1b2C3d4E5f6G7h8'), 'never the value');
		});
	}),
);

suite('platform decoders (crafted answers)', () => {
	const b = blob('ssh-ed25519');
	const b64 = b.toString('base64');

	test('host key: the standard shape, the variant shape and a bare key with host:port', () => {
		const std = decodeGatewayHostKey(
			{
				key_type: 'ssh-ed25519',
				public_key: `ssh-ed25519 ${b64} comment here`,
				fingerprint_sha256: fp(b),
				host: 'GW.Example.com',
				port: 22,
			},
			{},
		);
		assert.deepEqual(std, { keyType: 'ssh-ed25519', keyBase64: b64, fingerprintSha256: fp(b), host: 'gw.example.com', port: 22 });
		const variant = decodeGatewayHostKey(
			{ algorithm: 'ssh-ed25519', key: b64, fingerprints: { sha256: fp(b).slice(7) }, endpoint: 'ssh://gw.example.com:2200' },
			{},
		);
		assert.equal(variant.host, 'gw.example.com');
		assert.equal(variant.port, 2200);
		const bare = decodeGatewayHostKey({ public_key: `ssh-ed25519 ${b64}`, gateway: '[2001:db8::1]:2201' }, {});
		assert.equal(bare.host, '2001:db8::1');
		assert.equal(bare.port, 2201);
		const nohost = decodeGatewayHostKey({ public_key: `ssh-ed25519 ${b64}` }, {});
		assert.equal(nohost.host, undefined);
		assert.equal(nohost.fingerprintSha256, fp(b));
	});

	test('host key: what would corrupt a known_hosts line or trust another key is refused', () => {
		const bad: Array<[string, Record<string, unknown>]> = [
			[
				'a fingerprint of another key',
				{ public_key: `ssh-ed25519 ${b64}`, fingerprint_sha256: fp(blob('ssh-ed25519', Buffer.alloc(32, 8))) },
			],
			['a type that disagrees with the blob', { key_type: 'ssh-rsa', key: b64 }],
			['a blob of another type than its prefix', { public_key: `ssh-rsa ${b64}` }],
			['a newline in the host', { public_key: `ssh-ed25519 ${b64}`, host: 'gw.example.com\nevil.example.com ssh-ed25519 AAAA' }],
			['a space or comma in the host', { public_key: `ssh-ed25519 ${b64}`, host: 'a.example,b.example' }],
			['a port out of range', { public_key: `ssh-ed25519 ${b64}`, host: 'gw.example.com', port: 70000 }],
			['loose base64', { public_key: `ssh-ed25519 ${b64.slice(0, -1)}` }],
			['a key type with odd characters', { key_type: 'ssh ed25519', key: b64 }],
			['no key at all', { key_type: 'ssh-ed25519' }],
			['a blob too short for its type', { public_key: `ssh-ed25519 ${Buffer.from([0, 0, 0, 40, 1]).toString('base64')}` }],
		];
		for (const [why, value] of bad) {
			assert.throws(
				() => decodeGatewayHostKey(value, { requestId: 'req-1' }),
				(err: unknown) => err instanceof InvalidResponseError && err.requestId === 'req-1',
				why,
			);
		}
	});

	test('secret: members that could carry the value are dropped; an unmasked preview is not kept', () => {
		const s = decodeSecret(
			{
				id: '0b5e8f3c-0000-4000-8000-000000000001',
				display_name: 'x',
				cache_ttl_secs: 60,
				value_preview: 'sk-live-abcdef123456',
				value: 'sk-live-abcdef123456',
				secret_value: 'y',
			},
			{},
		);
		assert.deepEqual(s, { id: '0b5e8f3c-0000-4000-8000-000000000001', display_name: 'x', cache_ttl_secs: 60 });
		const masked = decodeSecret({ id: 'a', display_name: 'x', cache_ttl_secs: 0, value_preview: 'sk-••••••••456' }, {});
		assert.equal(masked.value_preview, 'sk-••••••••456');
		assert.throws(() => decodeSecret({ id: 'a', cache_ttl_secs: -1 }, {}), InvalidResponseError);
		assert.throws(() => decodeSecret({ id: 'a', cache_ttl_secs: 2 ** 32 }, {}), InvalidResponseError);
		assert.throws(() => decodeSecret({ id: '..' }, {}), InvalidResponseError);
	});
});
