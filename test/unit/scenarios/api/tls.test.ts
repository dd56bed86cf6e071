/**
 * A TLS failure is a clear error (issue 22): the host, the reason in words, Node's own detail and
 * code, and what to do — never "fetch failed" — and it is not retried (a certificate does not change
 * by itself). Against the emulator over HTTPS with a test CA (emulator/src/tls.ts, test/support/tls.ts).
 */
import * as assert from 'node:assert/strict';
import { Agent, request } from 'undici';
import { CloudAgentsClient } from '../../../../src/api';
import { NetworkError, toNetworkError } from '../../../../src/api/http';
import { type RunningEmulator, startEmulator } from '../../../../emulator/src/server';
import { createTestCa, emulatorTls, type TestCa } from '../../../support/tls';
import { emulatorAdmin } from '../../support/emulator';
import { nodeConnect } from '../../../../src/platform/node/network';

const DEV_TOKEN = 'ca_dev_0123456789abcdef';

/** The error a plain undici request to `url` fails with when the connection trusts `ca`. */
async function undiciFailure(url: string, ca: string): Promise<unknown> {
	const dispatcher = new Agent({ connect: { ca } });
	try {
		await request(`${url}/v2/agents`, { dispatcher });
	} catch (err) {
		return err;
	} finally {
		await dispatcher.destroy();
	}
	return assert.fail('the request should fail');
}

suite('api: TLS failures are clear errors', () => {
	let ca: TestCa;
	const started: RunningEmulator[] = [];
	const start = async (tls: NonNullable<Parameters<typeof startEmulator>[0]>['tls']): Promise<RunningEmulator> => {
		const e = await startEmulator({ port: 0, seed: 'demo', quiet: true, tls });
		started.push(e);
		return e;
	};
	suiteSetup(async () => {
		ca = await createTestCa();
	});
	teardown(async () => {
		for (const e of started.splice(0)) await e.close();
	});

	test('an untrusted certificate authority: host, reason, code and what to do; not retried; nothing (no token) reached the service', async () => {
		const emu = await start(true);
		const host = new URL(emu.url).host;
		const client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => DEV_TOKEN,
			retry: { baseDelayMs: 3_000, maxDelayMs: 3_000 },
		});
		const t0 = Date.now();
		try {
			const err = await client.listAgents({ limit: 5 }).then(
				() => assert.fail('an untrusted certificate must not be accepted'),
				(e: unknown) => e,
			);
			assert.ok(err instanceof NetworkError, String(err));
			assert.equal(err.code, 'tls_error');
			assert.equal(err.requestSent, false);
			assert.ok(
				err.message.startsWith(
					`${host}: secure connection refused: its certificate is not signed by an authority this machine trusts`,
				),
				err.message,
			);
			assert.match(err.message, /self-signed certificate in certificate chain \[SELF_SIGNED_CERT_IN_CHAIN\]/);
			assert.match(err.message, /NODE_EXTRA_CA_CERTS/);
			assert.doesNotMatch(err.message, /fetch failed/);
			assert.ok(Date.now() - t0 < 2_500, 'not retried (a retry would wait 3 s)');
		} finally {
			client.close();
		}
		const counters = await emulatorAdmin<{ requests: { total: number } }>(emu.adminUrl, 'GET', '/counters');
		assert.equal(counters.requests.total, 0, 'no request (and so no token) reached the service');
	});

	test('an expired certificate and one for another host say so', async () => {
		const expired = await start(await emulatorTls(ca, 'expired'));
		const e1 = toNetworkError(await undiciFailure(expired.url, ca.cert), 'api.example.test');
		assert.equal(e1.code, 'tls_error');
		assert.match(
			e1.message,
			/^api\.example\.test: secure connection refused: its certificate has expired or is not valid yet \(certificate has expired \[CERT_HAS_EXPIRED\]\)\. Check the machine's clock/,
		);
		const wrongHost = await start(await emulatorTls(ca, 'wrong-host'));
		const e2 = toNetworkError(await undiciFailure(wrongHost.url, ca.cert), 'api.example.test');
		assert.equal(e2.code, 'tls_error');
		assert.match(
			e2.message,
			/its certificate is for another host name \(.*\[ERR_TLS_CERT_ALTNAME_INVALID\]\)\. Check cloudAgents\.apiUrl/,
		);
	});

	test('other network failures are not taken for TLS ones', () => {
		const refused = toNetworkError(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }), 'h');
		assert.equal(refused.code, 'connection_refused');
		const wrapped = toNetworkError(
			Object.assign(new TypeError('fetch failed'), { cause: Object.assign(new Error('x'), { code: 'CERT_HAS_EXPIRED' }) }),
			'h',
		);
		assert.equal(wrapped.code, 'tls_error', 'a TLS code in the cause counts');
	});
});
