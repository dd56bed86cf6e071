/**
 * What counts as loopback (src/api/loopback.ts): exactly `localhost`, 127.0.0.0/8 written as four
 * plain decimal octets, and `::1`. Plain http: (and a bearer token in clear text) goes only there,
 * so every look-alike must be refused.
 */
import * as assert from 'node:assert/strict';
import { isLoopbackHost, isLoopbackUrl } from '../../../src/api/loopback';

suite('api/loopback: isLoopbackHost', () => {
	test('localhost in any case, every address of 127.0.0.0/8 and ::1 with or without brackets', () => {
		for (const host of ['localhost', 'LocalHost', '127.0.0.1', '127.0.0.0', '127.255.255.255', '127.1.2.3', '::1', '[::1]']) {
			assert.equal(isLoopbackHost(host), true, host);
		}
	});

	test('names that merely contain or end in localhost are not loopback', () => {
		for (const host of ['evil.localhost', 'localhost.', 'localhost.evil.test', 'mylocalhost', 'localhost:80', ' localhost', '']) {
			assert.equal(isLoopbackHost(host), false, JSON.stringify(host));
		}
	});

	test('IPv4 look-alikes: out-of-range or padded octets, other networks, short forms, suffixes', () => {
		for (const host of [
			'127.0.0.256',
			'127.999.0.1',
			'127.0.0.01',
			'127.00.0.1',
			'127.0.1',
			'127.1',
			'127.0.0.1.',
			'127.0.0.1.nip.io',
			'128.0.0.1',
			'126.0.0.1',
			'0.0.0.0',
			'10.0.0.1',
			'127.0.0.1 ',
			'0x7f.0.0.1',
			'2130706433',
		]) {
			assert.equal(isLoopbackHost(host), false, host);
		}
	});

	test('IPv6 forms other than ::1 are not loopback, mapped IPv4 included', () => {
		for (const host of ['::ffff:127.0.0.1', '[::ffff:7f00:1]', '0:0:0:0:0:0:0:1', '::2', '[::1', '::', '[::]']) {
			assert.equal(isLoopbackHost(host), false, host);
		}
	});
});

suite('api/loopback: isLoopbackUrl', () => {
	test('absolute http: and https: URLs to a loopback host, with ports, paths and queries', () => {
		for (const url of [
			'http://localhost',
			'https://localhost:8443/v2',
			'http://127.0.0.1:8787/path?q=1#x',
			'http://127.10.0.1',
			'http://[::1]:9/',
			new URL('http://LOCALHOST:1'),
		]) {
			assert.equal(isLoopbackUrl(url), true, String(url));
		}
	});

	test('short, hexadecimal and long forms are loopback in a URL, as the URL parser (and so the wire) reads them', () => {
		for (const url of ['http://127.1', 'http://0x7f000001/', 'http://2130706433', 'http://[0:0:0:0:0:0:0:1]/']) {
			assert.equal(isLoopbackUrl(url), true, url);
		}
	});

	test('URL parsing decides the host: credentials, look-alikes and other protocols are refused', () => {
		for (const url of [
			'http://localhost.evil.test',
			'http://localhost@evil.test/',
			'http://evil.localhost:8787',
			'http://127.0.0.1.nip.io/',
			'ws://localhost:8787',
			'file://localhost/etc/passwd',
			'ftp://127.0.0.1',
			'https://api.example.test',
		]) {
			assert.equal(isLoopbackUrl(url), false, url);
		}
		assert.equal(isLoopbackUrl('http://evil.test@localhost/'), true, 'the host is what follows the credentials');
	});

	test('what is not an absolute URL is false, never a throw', () => {
		for (const url of ['', 'localhost', '/v2/me', '127.0.0.1:8787', 'http://', 'http://[::1']) {
			assert.equal(isLoopbackUrl(url), false, JSON.stringify(url));
		}
	});
});
