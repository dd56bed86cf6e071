/**
 * The webviews' Content-Security-Policy and the socket origins a page may connect to
 * (src/webviews/csp.ts): the policy read back as directives (a nonce-only script-src, nothing by
 * default, no unsafe-inline or unsafe-eval, connect-src exactly the origins given), its refusals
 * (a nonce, a cspSource or an origin that would widen it), the nonce itself and the loopback rule of
 * `ws:` addresses. The rendered document's meta tag: html.test.ts.
 */
import * as assert from 'node:assert/strict';
import { ConnectOriginError, contentSecurityPolicy, createNonce, isLoopbackHost, webSocketOrigin } from '../../../src/webviews/csp';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

/** The policy's directives by name (each named once), with their sources. */
function directives(policy: string): Map<string, string[]> {
	const out = new Map<string, string[]>();
	for (const part of policy.split(';')) {
		const [name, ...values] = part.trim().split(/\s+/);
		assert.ok(name, `an empty directive in ${policy}`);
		assert.ok(!out.has(name), `${name} named twice`);
		out.set(name, values);
	}
	return out;
}

suite('webviews/csp: the policy', () => {
	test('nothing by default; scripts only with the nonce; styles, fonts and images only from the extension (images also data:)', () => {
		const nonce = createNonce();
		const policy = directives(contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce }));
		assert.deepEqual(policy.get('default-src'), ["'none'"]);
		assert.deepEqual(policy.get('script-src'), [`'nonce-${nonce}'`]);
		assert.deepEqual(policy.get('style-src'), [CSP_SOURCE]);
		assert.deepEqual(policy.get('font-src'), [CSP_SOURCE]);
		assert.deepEqual(policy.get('img-src'), [CSP_SOURCE, 'data:']);
		assert.deepEqual(policy.get('connect-src'), ["'none'"]);
		assert.deepEqual([...policy.keys()].sort(), ['connect-src', 'default-src', 'font-src', 'img-src', 'script-src', 'style-src']);
	});

	test('no source anywhere is unsafe-inline, unsafe-eval, a wildcard or a bare scheme', () => {
		const policy = contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'bm9uY2U=', connectSrc: ['wss://vnc.example.com'] });
		for (const [name, values] of directives(policy)) {
			for (const v of values) {
				assert.doesNotMatch(v, /unsafe|\*/i, `${name} ${v}`);
				if (v !== 'data:') {
					assert.doesNotMatch(v, /^[a-z-]+:$/i, `${name} ${v}`);
				}
			}
		}
	});

	test('connect-src is exactly the origins given, in order, each once', () => {
		const connectSrc = ['wss://vnc.example.com:8443', 'ws://127.0.0.1:4010', 'wss://vnc.example.com:8443', 'https://[::1]:9'];
		const policy = directives(contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'abc', connectSrc }));
		assert.deepEqual(policy.get('connect-src'), ['wss://vnc.example.com:8443', 'ws://127.0.0.1:4010', 'https://[::1]:9']);
		assert.deepEqual(directives(contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'abc', connectSrc: [] })).get('connect-src'), [
			"'none'",
		]);
	});

	test('a connect-src entry that is not a plain origin is a ConnectOriginError naming it (cut to 80 characters)', () => {
		for (const bad of [
			'*',
			'wss:',
			'wss://*.example.com',
			'wss://a.example/',
			'wss://a.example?x',
			'wss://a.example:123456',
			'ftp://a.example',
			'wss://user@a.example',
			'wss://a.example; script-src *',
			'wss://a.example script-src',
			'wss://a.example\n',
			"'self'",
			'',
		]) {
			assert.throws(
				() => contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'abc', connectSrc: [bad] }),
				(err: unknown) => err instanceof ConnectOriginError && err.message.includes('not an origin'),
				JSON.stringify(bad),
			);
		}
		const long = `wss://${'a'.repeat(500)}/x`;
		assert.throws(
			() => contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'abc', connectSrc: [long] }),
			(err: unknown) => err instanceof ConnectOriginError && err.message.length < 120,
		);
	});

	test('a nonce that is not base64 (a quote, a space, a semicolon, empty) is refused before any policy is made', () => {
		for (const nonce of ["abc' 'unsafe-inline", 'abc def', 'abc;', '', 'abc-_', 'é']) {
			assert.throws(() => contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce }), /nonce must be base64/, JSON.stringify(nonce));
		}
	});

	test('a cspSource of several sources is kept; one that ends the directive or is blank is refused', () => {
		const several = "'self' https://*.vscode-cdn.net";
		assert.deepEqual(directives(contentSecurityPolicy({ cspSource: several, nonce: 'abc' })).get('style-src'), [
			"'self'",
			'https://*.vscode-cdn.net',
		]);
		for (const bad of ['https://a; script-src *', 'https://a, https://b', 'https://a\r\nX-Header: 1', 'https://a\n', '', '   ']) {
			assert.throws(() => contentSecurityPolicy({ cspSource: bad, nonce: 'abc' }), /cspSource/, JSON.stringify(bad));
		}
	});
});

suite('webviews/csp: nonces', () => {
	test('each nonce is 16 random bytes in base64, accepted by the policy, and differs from the last', () => {
		const seen = new Set<string>();
		for (let i = 0; i < 50; i++) {
			const n = createNonce();
			assert.match(n, /^[A-Za-z0-9+/]{22}==$/);
			assert.equal(Buffer.from(n, 'base64').byteLength, 16);
			assert.doesNotThrow(() => contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: n }));
			seen.add(n);
		}
		assert.equal(seen.size, 50);
	});
});

suite('webviews/csp: loopback hosts', () => {
	test('localhost (any case), 127.x.y.z and [::1] are this machine', () => {
		for (const host of ['localhost', 'LOCALHOST', 'LocalHost', '127.0.0.1', '127.1.2.3', '127.255.255.255', '[::1]']) {
			assert.equal(isLoopbackHost(host), true, host);
		}
	});

	test('other names and addresses are not, however close they look', () => {
		for (const host of [
			'',
			'::1',
			'0.0.0.0',
			'10.0.0.1',
			'128.0.0.1',
			'127.0.0.1.nip.io',
			'localhost.example.com',
			'evil-localhost',
			'127.0.0.1x',
			'127.0.0',
			'127.1234.0.1',
			'[::2]',
			'[::ffff:127.0.0.1]',
		]) {
			assert.equal(isLoopbackHost(host), false, host);
		}
	});
});

suite('webviews/csp: socket origins', () => {
	test('wss: anywhere becomes its origin (port kept, path and query dropped)', () => {
		assert.equal(webSocketOrigin('wss://vnc.example.com/_s/abc?x=1'), 'wss://vnc.example.com');
		assert.equal(webSocketOrigin('wss://vnc.example.com:8443/a'), 'wss://vnc.example.com:8443');
	});

	test('ws: only to loopback', () => {
		assert.equal(webSocketOrigin('ws://127.0.0.1:4010/_emulator/vnc/cs_1'), 'ws://127.0.0.1:4010');
		assert.equal(webSocketOrigin('ws://localhost:4010/x'), 'ws://localhost:4010');
		assert.equal(webSocketOrigin('ws://[::1]:4010/x'), 'ws://[::1]:4010');
		for (const bad of ['ws://vnc.example.com/x', 'ws://10.0.0.5:5900/', 'ws://127.0.0.1.nip.io/', 'ws://localhost.example.com/']) {
			assert.throws(() => webSocketOrigin(bad), ConnectOriginError, bad);
		}
	});

	test('refuses other schemes, credentials in the URL and non-URLs', () => {
		for (const bad of [
			'https://vnc.example.com/',
			'http://127.0.0.1/',
			'javascript:alert(1)',
			'wss://user:pw@vnc.example.com/',
			'not a url',
			'',
		]) {
			assert.throws(() => webSocketOrigin(bad), ConnectOriginError, bad);
		}
	});

	test('each refusal says why in words', () => {
		assert.throws(() => webSocketOrigin('::'), /not a URL/);
		assert.throws(() => webSocketOrigin('wss://u@vnc.example.com/'), /carries credentials/);
		assert.throws(() => webSocketOrigin('wss://:pw@vnc.example.com/'), /carries credentials/);
		assert.throws(() => webSocketOrigin('ws://10.0.0.5/'), /only accepted for this machine, not 10\.0\.0\.5/);
		assert.throws(() => webSocketOrigin('https://vnc.example.com/'), /uses https instead of wss:/);
	});

	test('every origin it returns is one the policy accepts as connect-src', () => {
		for (const url of [
			'wss://vnc.example.com/x',
			'wss://vnc.example.com:8443/',
			'ws://127.0.0.1:4010/a',
			'ws://[::1]:1/',
			'ws://localhost/',
		]) {
			const origin = webSocketOrigin(url);
			const policy = directives(contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'abc', connectSrc: [origin] }));
			assert.deepEqual(policy.get('connect-src'), [origin], url);
		}
	});
});
