/**
 * What a failed connection means (src/api/netErrors.ts): TLS failures by Node's code (in the error
 * or one or two causes deep), time-outs, refusals, and whether the request may have reached the
 * server; secrets stay out of the message and cause.
 */
import * as assert from 'node:assert/strict';
import { NetworkError } from '../../../src/api/errors';
import { tlsFailure, toNetworkError } from '../../../src/api/netErrors';

const SECRET = 'ca_netErrors_secret_7f3a9c';

/** An Error with Node's `code` (and a cause, as undici wraps socket errors). */
function coded(message: string, code: string, cause?: unknown): Error {
	return Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code });
}

suite('api/netErrors: tlsFailure', () => {
	test('each family of certificate codes has its reason and advice', () => {
		const untrusted = tlsFailure(coded('self-signed certificate in certificate chain', 'SELF_SIGNED_CERT_IN_CHAIN'));
		assert.equal(untrusted?.code, 'SELF_SIGNED_CERT_IN_CHAIN');
		assert.equal(untrusted?.detail, 'self-signed certificate in certificate chain');
		assert.match(untrusted?.reason ?? '', /not signed by an authority this machine trusts/);
		assert.match(untrusted?.advice ?? '', /NODE_EXTRA_CA_CERTS/);
		for (const code of [
			'DEPTH_ZERO_SELF_SIGNED_CERT',
			'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
			'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
			'CERT_UNTRUSTED',
		]) {
			assert.equal(tlsFailure(coded('x', code))?.reason, untrusted?.reason, code);
		}
		for (const code of ['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']) {
			assert.match(tlsFailure(coded('x', code))?.advice ?? '', /clock/, code);
		}
		assert.match(tlsFailure(coded('x', 'ERR_TLS_CERT_ALTNAME_INVALID'))?.advice ?? '', /cloudAgents\.apiUrl/);
	});

	test('the code is found in the error or its causes, at most three levels down', () => {
		const leaf = coded('certificate has expired', 'CERT_HAS_EXPIRED');
		const two = new TypeError('fetch failed', { cause: new Error('socket', { cause: leaf }) });
		const found = tlsFailure(two);
		assert.equal(found?.code, 'CERT_HAS_EXPIRED');
		assert.equal(found?.detail, 'certificate has expired', "the detail is the coded error's own message");
		const tooDeep = new Error('a', { cause: new Error('b', { cause: new Error('c', { cause: leaf }) }) });
		assert.equal(tlsFailure(tooDeep), undefined, 'a code four levels down is not read');
		assert.equal(tlsFailure({ code: 'CERT_HAS_EXPIRED' })?.detail, 'CERT_HAS_EXPIRED', 'a plain object: the code is the detail');
	});

	test('other codes, codes of other types, and non-objects are no TLS failure', () => {
		for (const err of [
			coded('refused', 'ECONNREFUSED'),
			coded('reset', 'ECONNRESET'),
			{ code: 0 },
			{ code: ['CERT_HAS_EXPIRED'] },
			'CERT_HAS_EXPIRED',
			undefined,
			null,
		]) {
			assert.equal(tlsFailure(err), undefined, JSON.stringify(err) ?? typeof err);
		}
	});
});

suite('api/netErrors: toNetworkError', () => {
	test('a TLS failure names the host, reason, detail and code; nothing was sent', () => {
		const err = toNetworkError(coded('unable to verify the first certificate', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'api.example.test');
		assert.ok(err instanceof NetworkError);
		assert.equal(err.code, 'tls_error');
		assert.equal(err.status, 0);
		assert.equal(err.requestSent, false);
		assert.match(
			err.message,
			/^api\.example\.test: secure connection refused: its certificate is not signed by an authority this machine trusts \(unable to verify the first certificate \[UNABLE_TO_VERIFY_LEAF_SIGNATURE\]\)\. If your network/,
		);
		assert.match(err.message, /\.$/);
		assert.match(toNetworkError(coded('x', 'CERT_HAS_EXPIRED')).message, /^secure connection refused: /, 'no host: no prefix');
	});

	test('connect time-out and refusal were not sent; header and body time-outs may have been (a timeout)', () => {
		const connect = toNetworkError(coded('Connect Timeout Error', 'UND_ERR_CONNECT_TIMEOUT'));
		assert.deepEqual([connect.code, connect.requestSent], ['connect_timeout', false]);
		assert.equal(connect.message, 'Connection timed out (Connect Timeout Error)');
		const refused = toNetworkError(coded('connect ECONNREFUSED 127.0.0.1:1', 'ECONNREFUSED'));
		assert.deepEqual([refused.code, refused.requestSent], ['connection_refused', false]);
		assert.equal(refused.message, 'Connection refused (connect ECONNREFUSED 127.0.0.1:1)');
		for (const code of ['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']) {
			const t = toNetworkError(coded('Timeout', code));
			assert.deepEqual([t.code, t.requestSent], ['timeout', true], code);
			assert.equal(t.message, 'The server did not answer in time (Timeout)');
		}
	});

	test('DNS and routing failures were not sent; a reset or an unknown failure may have been', () => {
		for (const code of ['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EHOSTDOWN']) {
			const err = toNetworkError(coded(`getaddrinfo ${code} api.example.test`, code));
			assert.deepEqual([err.code, err.requestSent], ['network_error', false], code);
			assert.equal(err.message, `Network error: getaddrinfo ${code} api.example.test [${code}]`);
		}
		const reset = toNetworkError(coded('socket hang up', 'ECONNRESET'));
		assert.deepEqual([reset.code, reset.requestSent], ['network_error', true]);
		const plain = toNetworkError(new TypeError('fetch failed'));
		assert.deepEqual([plain.code, plain.requestSent, plain.message], ['network_error', true, 'Network error: fetch failed']);
		const text = toNetworkError('something odd');
		assert.equal(text.message, 'Network error: something odd', 'a thrown string');
	});

	test('the cause is kept; secrets are scrubbed from message and cause', () => {
		const original = coded(`connect ECONNREFUSED via proxy user:${SECRET}@proxy.test`, 'ECONNREFUSED');
		const err = toNetworkError(original, 'api.example.test', [SECRET]);
		assert.ok(!err.message.includes(SECRET), err.message);
		assert.match(err.message, /<redacted>/);
		const cause = err.cause as Error;
		assert.ok(cause instanceof Error);
		assert.ok(!cause.message.includes(SECRET), cause.message);
		assert.equal((cause as { code?: unknown }).code, 'ECONNREFUSED', "the cause's code is kept");
		const tls = toNetworkError(coded(`bad cert for ${SECRET}`, 'CERT_HAS_EXPIRED'), 'h', [SECRET]);
		assert.ok(!tls.message.includes(SECRET), tls.message);
	});
});
