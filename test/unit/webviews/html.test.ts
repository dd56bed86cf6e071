import * as assert from 'node:assert/strict';
import { ConnectOriginError, contentSecurityPolicy } from '../../../src/webviews/csp';
import { renderWebviewHtml } from '../../../src/webviews/html';

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
