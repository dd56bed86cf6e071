/**
 * src/base/hosts.ts: which hosts go into a known_hosts line as they are (the gateway record's host,
 * the host a person types): names, IPv4 and IPv6 addresses; nothing that could add a pattern, a
 * second host, a comment or an option to the line.
 */
import * as assert from 'node:assert/strict';
import { isKnownHostsHost } from '../../../src/base/hosts';

suite('base/hosts: hosts a known_hosts line takes as they are', () => {
	test('DNS names, IPv4 and IPv6 addresses', () => {
		for (const host of [
			'gateway.example.com',
			'localhost',
			'a',
			'ssh-1.eu.example.com.',
			'10.0.0.7',
			'::1',
			'fe80::1',
			'2001:db8::42',
		]) {
			assert.equal(isKnownHostsHost(host), true, host);
		}
	});

	test('anything that would change the line: patterns, lists, brackets, spaces, comments, a leading dash, over 253 characters', () => {
		const long = `${'a'.repeat(63)}.`.repeat(4) + 'com';
		for (const host of [
			'',
			'*.example.com',
			'a,b',
			'[gateway]:2222',
			'gate way',
			'host #x',
			'-oProxyCommand',
			'a..b',
			'!negated',
			long,
		]) {
			assert.equal(isKnownHostsHost(host), false, host);
		}
	});
});
