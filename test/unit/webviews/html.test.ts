import * as assert from 'node:assert/strict';
import { ConnectOriginError, contentSecurityPolicy, webSocketOrigin } from '../../../src/webviews/csp';
import { renderWebviewHtml } from '../../../src/webviews/html';
import { pageSession } from '../../../src/webviews/computer/session';
import type { ComputerSession } from '../../../src/api/types';

const CSP_SOURCE = 'https://file+.vscode-resource.vscode-cdn.net';

function render(connectSrc?: string[]) {
	return renderWebviewHtml({
		cspSource: CSP_SOURCE,
		title: 'Computer — <b>"x"</b>',
		scriptUri: `${CSP_SOURCE}/ext/dist/webviews/computer.js`,
		styleUris: [`${CSP_SOURCE}/ext/media/webviews/base.css`],
		connectSrc,
	});
}

/** The directives of the policy in the rendered document's meta tag. */
function policyOf(html: string): Map<string, string[]> {
	const m = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html);
	assert.ok(m, 'no CSP meta tag');
	const policy = m[1]!.replace(/&#39;/g, "'");
	return new Map(
		policy
			.split(';')
			.map((d) => d.trim().split(/\s+/))
			.map(([name, ...values]) => [name!, values]),
	);
}

suite('webview HTML helper', () => {
	test('renders a policy without unsafe-inline or unsafe-eval, default-src none and a nonce-only script-src', () => {
		const { html, nonce } = render(['ws://127.0.0.1:4010']);
		assert.doesNotMatch(html, /unsafe-/);
		const policy = policyOf(html);
		assert.deepEqual(policy.get('default-src'), ["'none'"]);
		assert.deepEqual(policy.get('script-src'), [`'nonce-${nonce}'`]);
		assert.deepEqual(policy.get('style-src'), [CSP_SOURCE]);
		assert.deepEqual(policy.get('img-src'), [CSP_SOURCE, 'data:']);
		assert.deepEqual(policy.get('font-src'), [CSP_SOURCE]);
	});

	test("loads the script as a module carrying the render's nonce, and no inline script or style", () => {
		const { html, nonce } = render();
		const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
		assert.equal(scripts.length, 1);
		assert.equal(scripts[0]![1], ` type="module" nonce="${nonce}" src="${CSP_SOURCE}/ext/dist/webviews/computer.js"`);
		assert.equal(scripts[0]![2], '');
		assert.doesNotMatch(html, /<style|style="/);
	});

	test('draws a fresh nonce for every render', () => {
		const nonces = new Set(Array.from({ length: 20 }, () => render().nonce));
		assert.equal(nonces.size, 20);
		for (const n of nonces) {
			assert.ok(Buffer.from(n, 'base64').length >= 16, 'nonce shorter than 128 bits');
		}
	});

	test('connect-src names exactly the origins the caller passes, or none', () => {
		assert.deepEqual(policyOf(render(['wss://vnc.example.com:8443']).html).get('connect-src'), ['wss://vnc.example.com:8443']);
		assert.deepEqual(policyOf(render().html).get('connect-src'), ["'none'"]);
	});

	test('refuses a connect-src entry that is not a plain origin (a wildcard, a path, a second directive)', () => {
		for (const bad of [
			'*',
			'wss:',
			'wss://a.example/path',
			'wss://a.example; script-src *',
			'https://*.example.com',
			"'unsafe-inline'",
		]) {
			assert.throws(() => contentSecurityPolicy({ cspSource: CSP_SOURCE, nonce: 'abc', connectSrc: [bad] }), ConnectOriginError, bad);
		}
	});

	test('accepts a cspSource of several sources but not one that would end the directive', () => {
		const csp = contentSecurityPolicy({ cspSource: "'self' https://*.vscode-cdn.net", nonce: 'abc' });
		assert.match(csp, /; style-src 'self' https:\/\/\*\.vscode-cdn\.net; /);
		assert.throws(() => contentSecurityPolicy({ cspSource: 'https://a; script-src *', nonce: 'abc' }));
	});

	test('escapes the title', () => {
		const { html } = render();
		assert.match(html, /<title>Computer — &#60;b&#62;&#34;x&#34;&#60;\/b&#62;<\/title>/);
	});
});

suite('webview socket origins', () => {
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
});

suite('computer session check', () => {
	const session = (vnc: unknown, expires_at: unknown = '2026-11-23T16:00:00Z') =>
		({ agent_id: 'a', runtime_id: 'r', expires_at, channels: { vnc } }) as unknown as ComputerSession;

	test('passes the URL, every subprotocol and the expiry, with the socket origin for connect-src', () => {
		const checked = pageSession(
			session({ websocket_url: 'ws://127.0.0.1:4010/_emulator/vnc/cs_1', protocols: ['binary', 'session.abc'] }),
		);
		assert.deepEqual(checked, {
			origin: 'ws://127.0.0.1:4010',
			info: {
				url: 'ws://127.0.0.1:4010/_emulator/vnc/cs_1',
				protocols: ['binary', 'session.abc'],
				expiresAtMs: Date.parse('2026-11-23T16:00:00Z'),
			},
		});
	});

	test('refuses ws: to a remote host before any page exists', () => {
		assert.throws(() => pageSession(session({ websocket_url: 'ws://vnc.example.com/s', protocols: ['binary'] })), ConnectOriginError);
	});

	test('refuses missing channels and unusable subprotocols', () => {
		assert.throws(() => pageSession({ agent_id: 'a', channels: {} } as unknown as ComputerSession), ConnectOriginError);
		for (const protocols of [[], ['a b'], ['ok', 3], 'binary', Array.from({ length: 9 }, () => 'p'), ['x'.repeat(513)]]) {
			assert.throws(
				() => pageSession(session({ websocket_url: 'wss://h.example/s', protocols })),
				ConnectOriginError,
				JSON.stringify(protocols).slice(0, 40),
			);
		}
	});

	test('an unreadable expiry leaves the countdown out instead of failing', () => {
		assert.equal(
			pageSession(session({ websocket_url: 'wss://h.example/s', protocols: ['binary'] }, 'soon')).info.expiresAtMs,
			undefined,
		);
	});
});
