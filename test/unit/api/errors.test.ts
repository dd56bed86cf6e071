import * as assert from 'node:assert/strict';
import { startEmulator } from '../../../emulator/src/server';
import { ApiError, CloudAgentsClient, NetworkError, OutcomeUnknownError, isUnreachable } from '../../../src/api';
import { toNetworkError } from '../../../src/api/http';
import { DEV_TOKEN, clientOfDeadPort, emulatorAdmin } from '../support/emulator';
import { nodeConnect } from '../../../src/platform/node/network';

/**
 * Issue 20 (5): a command that got no answer from the service offers Retry and Configure API URL (as
 * Check Connection does); `isUnreachable` is the one check of "no answer", and only of that.
 */
suite('api/isUnreachable: the service is out of reach, and nothing else', () => {
	test('a refused connection from the client is unreachable', async () => {
		const { client } = await clientOfDeadPort();
		try {
			const err = await client.listAgents({ limit: 1 }).then(
				() => assert.fail('expected a failure'),
				(e: unknown) => e,
			);
			assert.ok(isUnreachable(err), String(err));
		} finally {
			client.close();
		}
	});

	test('every transport failure but TLS is, and 502/503/504; another answer, an unknown outcome, an abort or junk is not', () => {
		for (const code of ['network_error', 'timeout', 'connect_timeout', 'connection_refused'] as const) {
			assert.equal(isUnreachable(new NetworkError(code, 'x', false)), true, code);
		}
		// DNS failures and resets, as Node reports them, through the transport's conversion.
		for (const code of [
			'ENOTFOUND',
			'EAI_AGAIN',
			'ECONNRESET',
			'ECONNREFUSED',
			'UND_ERR_SOCKET',
			'UND_ERR_CONNECT_TIMEOUT',
			'UND_ERR_HEADERS_TIMEOUT',
		]) {
			const err = toNetworkError(Object.assign(new Error(`failed ${code}`), { code }), 'api.example.test');
			assert.equal(isUnreachable(err), true, `${code} → ${err.code}`);
		}
		for (const status of [502, 503, 504]) {
			assert.equal(isUnreachable(new ApiError(status, `http_${status}`, 'gateway', undefined)), true, String(status));
		}
		// A proxy that cannot reach the service answers CONNECT with 502/503/504 (undici: an AbortError nobody asked for).
		const tunnel = Object.assign(new Error('Proxy response (502) !== 200 when HTTP Tunneling'), {
			name: 'AbortError',
			code: 'UND_ERR_ABORTED',
		});
		assert.equal(isUnreachable(tunnel), true, 'proxy tunnel 502');
		// From another bundle (a copy of the client): the same shape counts.
		assert.equal(isUnreachable({ name: 'ApiError', status: 0, code: 'connection_refused', message: 'x' }), true);
		assert.equal(isUnreachable({ name: 'ApiError', status: 503, code: 'unavailable', message: 'x' }), true);
		const not: unknown[] = [
			new NetworkError('tls_error', 'certificate', false),
			toNetworkError(Object.assign(new Error('self-signed'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' })),
			new ApiError(401, 'unauthenticated', 'no', undefined),
			new ApiError(403, 'permission_denied', 'no', undefined),
			new ApiError(404, 'not_found', 'no', undefined),
			new ApiError(407, 'http_407', 'proxy credentials', undefined),
			new ApiError(429, 'rate_limited', 'slow down', undefined),
			new ApiError(500, 'internal', 'bug', undefined),
			new ApiError(200, 'invalid_response', 'malformed', undefined),
			new ApiError(0, 'invalid_code', 'odd', undefined),
			new ApiError(0, 'reconnect_limit', 'storm', undefined),
			new OutcomeUnknownError('run', 'unknown'),
			Object.assign(new Error('aborted'), { name: 'AbortError' }),
			Object.assign(new Error('Request aborted'), { name: 'AbortError', code: 'UND_ERR_ABORTED' }),
			Object.assign(new Error('Proxy response (407) !== 200 when HTTP Tunneling'), { name: 'AbortError', code: 'UND_ERR_ABORTED' }),
			{ name: 'ApiError', status: '0', code: 'connection_refused' },
			{ name: 'ApiError', status: 0, code: ['connection_refused'] },
			{ name: 'Error', status: 0, code: 'connection_refused' },
			{ status: 0, code: 'timeout' },
			{ status: 503 },
			null,
			undefined,
			'connection_refused',
			0,
		];
		for (const value of not) {
			assert.equal(isUnreachable(value), false, String(JSON.stringify(value) ?? value));
		}
	});

	suite('against the emulator (real HTTP)', () => {
		let emu: Awaited<ReturnType<typeof startEmulator>>;
		let client: CloudAgentsClient;
		suiteSetup(async () => {
			emu = await startEmulator({ port: 0, seed: 'demo', quiet: true });
			client = new CloudAgentsClient({
				connect: nodeConnect,
				baseUrl: emu.url,
				getToken: () => DEV_TOKEN,
				retry: { maxAttempts: 1 },
				timeouts: { headersMs: 500, connectMs: 1000 },
			});
		});
		suiteTeardown(async () => {
			client.close();
			await emu.close();
		});
		teardown(async () => {
			await emulatorAdmin(emu.adminUrl, 'DELETE', '/outage');
			await emulatorAdmin(emu.adminUrl, 'DELETE', '/faults');
		});

		const failureOf = (p: Promise<unknown>): Promise<unknown> =>
			p.then(
				() => assert.fail('expected a failure'),
				(e: unknown) => e,
			);

		for (const status of [502, 503, 504, 401, 403, 404, 500]) {
			test(`an answer ${status} is ${status >= 502 ? '' : 'not '}unreachable`, async () => {
				await emulatorAdmin(emu.url, 'PUT', '/faults', { rules: [{ method: 'GET', route: '/v2/agents', status, retry_after: 0 }] });
				const err = await failureOf(client.listAgents({ limit: 1 }));
				assert.ok(err instanceof ApiError && err.status === status, String(err));
				assert.equal(isUnreachable(err), status >= 502, String(err));
			});
		}

		for (const mode of ['refuse', 'reset', 'stall'] as const) {
			test(`an outage (${mode}) is unreachable`, async () => {
				await emulatorAdmin(emu.adminUrl, 'POST', '/outage', { mode, seconds: 60 });
				const err = await failureOf(client.listAgents({ limit: 1 }));
				assert.ok(isUnreachable(err), String(err));
			});
		}
	});
});
