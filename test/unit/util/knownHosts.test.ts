/**
 * src/util/knownHosts.ts: the known_hosts line's format and whether a file's content already
 * trusts it (the file itself: knownHostsFile.test.ts).
 */
import assert from 'node:assert/strict';
import { hasKnownHost, knownHostsHost, knownHostsLine } from '../../../src/util/knownHosts';

const KEY = { keyType: 'ssh-ed25519', keyBase64: 'AAAAC3NzaC1lZDI1NTE5AAAAIAcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH' };

suite('known_hosts lines (src/util/knownHosts.ts)', () => {
	test('the host field: plain on port 22, [host]:port otherwise, lower case; junk refused', () => {
		assert.equal(knownHostsHost('GW.Example.com'), 'gw.example.com');
		assert.equal(knownHostsHost('gw.example.com', 22), 'gw.example.com');
		assert.equal(knownHostsHost('gw.example.com', 2222), '[gw.example.com]:2222');
		assert.equal(knownHostsLine(KEY, 'gw.example.com', 2222), `[gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}`);
		for (const bad of ['', 'a b', 'a,b', 'a\nb', '*.example.com', '-gw.example.com']) {
			assert.throws(() => knownHostsHost(bad), bad);
		}
	});

	test('present means: same host (in a host list, any case), same type and key; comments, @revoked and other keys do not count', () => {
		const line = knownHostsLine(KEY, 'gw.example.com', 2222);
		assert.ok(
			hasKnownHost(`other.example ssh-rsa AAAA\n[GW.example.com]:2222,10.0.0.1 ssh-ed25519 ${KEY.keyBase64} a comment\n`, line),
		);
		assert.ok(hasKnownHost(`@cert-authority [gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}\n`, line));
		assert.ok(!hasKnownHost(`# [gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}\n`, line));
		assert.ok(!hasKnownHost(`@revoked [gw.example.com]:2222 ssh-ed25519 ${KEY.keyBase64}\n`, line));
		assert.ok(!hasKnownHost(`gw.example.com ssh-ed25519 ${KEY.keyBase64}\n`, line), 'another port is another host');
		assert.ok(!hasKnownHost('[gw.example.com]:2222 ssh-ed25519 AAAAother\n', line));
	});
});
