/**
 * What a failed connection means, read from the error's code (Node's socket and TLS codes, undici's
 * time-outs): whether the request may have reached the server, and what a person can do about a
 * certificate. Pure: the browser's fetch wire has no codes, and its failures read as plain network errors.
 */
import { NetworkError } from './errors';

const NOT_SENT_CODES = new Set([
	'ECONNREFUSED',
	'ENOTFOUND',
	'EAI_AGAIN',
	'EHOSTUNREACH',
	'ENETUNREACH',
	'ENETDOWN',
	'EHOSTDOWN',
	'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * What a TLS failure means, by Node's error code: a certificate the connection does not trust, one
 * that expired, one for another host. The handshake failed, so nothing (no token) was sent.
 */
const TLS_FAILURES: ReadonlyArray<{ codes: readonly string[]; reason: string; advice: string }> = [
	{
		codes: [
			'SELF_SIGNED_CERT_IN_CHAIN',
			'DEPTH_ZERO_SELF_SIGNED_CERT',
			'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
			'UNABLE_TO_GET_ISSUER_CERT',
			'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
			'CERT_UNTRUSTED',
		],
		reason: 'its certificate is not signed by an authority this machine trusts',
		advice: 'If your network inspects TLS with its own certificate authority, make it trusted (NODE_EXTRA_CA_CERTS, or the system certificate store where VS Code uses it) and reload the window',
	},
	{
		codes: ['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID'],
		reason: 'its certificate has expired or is not valid yet',
		advice: "Check the machine's clock; otherwise the server's certificate must be renewed",
	},
	{
		codes: ['ERR_TLS_CERT_ALTNAME_INVALID'],
		reason: 'its certificate is for another host name',
		advice: 'Check cloudAgents.apiUrl: the host must be one the certificate names',
	},
];

/** The TLS failure an error (or its cause, as undici wraps socket errors) stands for, if any. */
export function tlsFailure(err: unknown): { code: string; detail: string; reason: string; advice: string } | undefined {
	for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 3; e = (e as { cause?: unknown }).cause, depth++) {
		const code = (e as { code?: unknown }).code;
		const failure = typeof code === 'string' ? TLS_FAILURES.find((f) => f.codes.includes(code)) : undefined;
		if (failure && typeof code === 'string') {
			return { code, detail: e instanceof Error ? e.message : code, reason: failure.reason, advice: failure.advice };
		}
	}
	return undefined;
}

/**
 * Turns an undici/socket error into a NetworkError, telling whether the request may have been sent.
 * `host` names the server in a TLS failure's message; `secrets` are scrubbed from the message and cause.
 */
export function toNetworkError(err: unknown, host?: string, secrets: ReadonlyArray<string> = []): NetworkError {
	const tls = tlsFailure(err);
	if (tls) {
		const where = host ? `${host}: ` : '';
		return new NetworkError(
			'tls_error',
			`${where}secure connection refused: ${tls.reason} (${tls.detail} [${tls.code}]). ${tls.advice}.`,
			false,
			{
				cause: err,
				secrets,
			},
		);
	}
	const code = (err as { code?: unknown } | undefined)?.code;
	const message = err instanceof Error ? err.message : String(err);
	if (code === 'UND_ERR_CONNECT_TIMEOUT') {
		return new NetworkError('connect_timeout', `Connection timed out (${message})`, false, { cause: err, secrets });
	}
	if (code === 'ECONNREFUSED') {
		return new NetworkError('connection_refused', `Connection refused (${message})`, false, { cause: err, secrets });
	}
	if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
		return new NetworkError('timeout', `The server did not answer in time (${message})`, true, { cause: err, secrets });
	}
	const sent = !(typeof code === 'string' && NOT_SENT_CODES.has(code));
	return new NetworkError('network_error', `Network error: ${message}${typeof code === 'string' ? ` [${code}]` : ''}`, sent, {
		cause: err,
		secrets,
	});
}
