/**
 * src/api/endpoints/account.ts: health, the current user, the gateway host key, the device flow
 * and revoking a token, against the emulator and a recording loopback server (answers the emulator
 * never gives: the device poll's other error spellings, an unwrapped record, a malformed token).
 */
import * as assert from 'node:assert/strict';
import { ApiError } from '../../../../src/api/errors';
import { InvalidResponseError } from '../../../../src/api/decode';
import { SAFETY } from '../../../../src/base/limits';
import type { CloudAgentsClient } from '../../../../src/api/client';
import type { TestEmulator } from '../../support/emulator';
import { type Recorder, clientOf, emulatorSuite, recorderSuite, rejection } from './recorder';

suite('api/endpoints/account', () => {
	suite('against the emulator', () => {
		let emu: TestEmulator;
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ emu, client } = s));

		test('health and healthHead resolve against a live service, whatever the token', async () => {
			const anonymous = clientOf(emu.url, 'ca_not_a_token');
			try {
				await anonymous.health();
				await anonymous.healthHead();
				await assert.rejects(anonymous.getMe(), (err: unknown) => err instanceof ApiError && err.status === 401);
			} finally {
				anonymous.close();
			}
		});

		test('getMe and getGatewayHostKey unwrap the {data} record', async () => {
			const me = (await client.getMe()) as Record<string, unknown>;
			assert.equal(me.id, 'usr_ada_lovelace');
			assert.equal(me.display_name, 'Ada Lovelace');
			const key = await client.getGatewayHostKey();
			assert.equal(key.keyType, 'ssh-ed25519');
			assert.match(key.fingerprintSha256, /^SHA256:[A-Za-z0-9+/]{43}$/);
			assert.equal(key.host, 'gateway.cloud-agents.example');
			assert.equal(key.port, 2222);
		});

		test('the device flow: pending, slow_down when polled too fast, success once approved, then refused', async () => {
			const auth = await client.startDeviceAuthorization({ client_id: 'vscode-unit' });
			assert.match(auth.device_code, /^dc_/);
			const first = await client.pollDeviceToken(auth.device_code);
			assert.equal(first.status, 'pending');
			assert.equal(first.status === 'pending' ? first.interval : undefined, 2);
			const second = await client.pollDeviceToken(auth.device_code);
			assert.equal(second.status, 'slow_down');
			assert.equal(second.status === 'slow_down' ? second.interval : undefined, 7);
			await emu.admin('POST', '/device/approve', { user_code: auth.user_code });
			const done = await client.pollDeviceToken(auth.device_code);
			assert.equal(done.status, 'success');
			const token = done.status === 'success' ? done.token.access_token : '';
			assert.match(token, /^ca_at_/);
			// The code is consumed: the service's `invalid_grant` is no result the client knows, so an ApiError.
			const err = await rejection(() => client.pollDeviceToken(auth.device_code));
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 400);

			// The new token works, and revoking it ends it (the dev token is untouched).
			const other = clientOf(emu.url, token);
			try {
				await other.getMe();
				await other.revokeToken();
				const gone = await rejection(() => other.getMe());
				assert.ok(gone instanceof ApiError);
				assert.equal(gone.status, 401);
				assert.ok(!gone.message.includes(token), 'the token is not in the error');
			} finally {
				other.close();
			}
			await client.getMe();
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('health, healthHead and the device flow send no token; getMe and revokeToken do', async () => {
			rec.answer((req) => (req.path === '/v2/auth/device/token' ? { status: 400, body: { error: 'authorization_pending' } } : {}));
			await client.health();
			await client.healthHead();
			rec.answer((req) =>
				req.path === '/v2/auth/device/token'
					? { status: 400, body: { error: 'authorization_pending' } }
					: {
							body: {
								device_code: 'dc_1',
								user_code: 'ABCD-EFGH',
								verification_uri: 'https://x.example/device',
								expires_in: 60,
								interval: 5,
							},
						},
			);
			await client.startDeviceAuthorization({ client_id: 'c' });
			await client.pollDeviceToken('dc_1');
			rec.answer(() => ({ status: 204 }));
			await client.revokeToken();
			rec.answer(() => ({ body: { data: { id: 'u1' } } }));
			await client.getMe();
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.path} ${r.headers.authorization === undefined ? 'anonymous' : 'bearer'}`),
				[
					'GET /healthz anonymous',
					'HEAD /healthz anonymous',
					'POST /v2/auth/device/authorization anonymous',
					'POST /v2/auth/device/token anonymous',
					'DELETE /v2/auth/token bearer',
					'GET /v2/me bearer',
				],
			);
			assert.deepEqual(rec.requests[2]?.body, { client_id: 'c' });
			assert.deepEqual(rec.requests[3]?.body, { device_code: 'dc_1' });
		});

		test('getMe and getSshHostKey take the record wrapped in data or bare', async () => {
			rec.answer(() => ({ body: { data: { id: 'wrapped' } } }));
			assert.deepEqual(await client.getMe(), { id: 'wrapped' });
			rec.answer(() => ({ body: { id: 'bare', email: 'a@b.example' } }));
			assert.deepEqual(await client.getMe(), { id: 'bare', email: 'a@b.example' });
			rec.answer(() => ({ body: { data: { public_key: 'ssh-ed25519 AAAA' } } }));
			assert.deepEqual(await client.getSshHostKey(), { public_key: 'ssh-ed25519 AAAA' });
		});

		test('every spelling of the 400 poll answers maps to its result; intervals are clamped', async () => {
			const cases: Array<[unknown, string, number | undefined]> = [
				[{ error: 'authorization_pending', interval: 5 }, 'pending', 5],
				[{ error: 'pending' }, 'pending', undefined],
				[{ error: 'authorization_pending', interval: 0 }, 'pending', SAFETY.devicePollMinMs / 1000],
				[{ error: 'authorization_pending', interval: 1e9 }, 'pending', SAFETY.devicePollMaxMs / 1000],
				[{ error: 'authorization_pending', interval: 'soon' }, 'pending', SAFETY.devicePollDefaultMs / 1000],
				[{ error: 'slow_down', interval: 10 }, 'slow_down', 10],
				[{ error: 'polling_too_fast' }, 'slow_down', undefined],
				[{ error: 'expired_token' }, 'expired', undefined],
				[{ error: 'expired' }, 'expired', undefined],
				[{ error: 'invalid_device_code' }, 'expired', undefined],
				[{ error: 'access_denied' }, 'denied', undefined],
				[{ error: 'denied' }, 'denied', undefined],
			];
			for (const [body, status, interval] of cases) {
				rec.answer(() => ({ status: 400, body }));
				const result = await client.pollDeviceToken('dc_x');
				assert.equal(result.status, status, JSON.stringify(body));
				assert.equal('interval' in result ? result.interval : undefined, interval, JSON.stringify(body));
			}
		});

		test('an unknown 400 error, or a 400 without a body, is an ApiError with the request id; other statuses throw', async () => {
			rec.answer(() => ({ status: 400, body: { error: 'invalid_client' } }));
			const unknown = await rejection(() => client.pollDeviceToken('dc_x'));
			assert.ok(unknown instanceof ApiError);
			assert.equal(unknown.status, 400);
			assert.equal(unknown.requestId, 'req-1');
			rec.answer(() => ({ status: 400, body: 'not json' }));
			const garbled = await rejection(() => client.pollDeviceToken('dc_x'));
			assert.ok(garbled instanceof ApiError);
			assert.equal(garbled.status, 400);
			rec.answer(() => ({ status: 403, body: { error: { code: 'permission_denied', message: 'no' } } }));
			const forbidden = await rejection(() => client.pollDeviceToken('dc_x'));
			assert.ok(forbidden instanceof ApiError);
			assert.equal(forbidden.status, 403);
		});

		test('a success answer needs a printable access token: missing, empty or with spaces is refused', async () => {
			for (const access_token of [undefined, '', 'two words', 42]) {
				rec.answer(() => ({ body: { access_token, token_type: 'Bearer', expires_in: 60 } }));
				const err = await rejection(() => client.pollDeviceToken('dc_x'));
				assert.ok(err instanceof InvalidResponseError, String(access_token));
				assert.match(err.message, /access_token/);
			}
			rec.answer(() => ({ body: { access_token: 'ca_at_ok', token_type: 'Bearer', expires_in: 60, extra: 1 } }));
			const ok = await client.pollDeviceToken('dc_x');
			assert.equal(ok.status, 'success');
			assert.deepEqual(ok.status === 'success' ? ok.token : undefined, {
				access_token: 'ca_at_ok',
				token_type: 'Bearer',
				expires_in: 60,
				extra: 1,
			});
		});

		test('waitForDeviceToken polls through pending answers to the first final one', async () => {
			const answers: unknown[] = [
				{ status: 400, body: { error: 'authorization_pending' } },
				{ status: 400, body: { error: 'pending' } },
				{ status: 200, body: { access_token: 'ca_at_done', token_type: 'Bearer', expires_in: 60 } },
			];
			rec.answer((_req, i) => answers[i] as { status: number; body: unknown });
			const result = await client.waitForDeviceToken({ device_code: 'dc_w', interval: 0, expires_in: 60 }, { minIntervalMs: 1 });
			assert.equal(result.status, 'success');
			assert.equal(rec.requests.length, 3);
			assert.ok(rec.requests.every((r) => (r.body as { device_code: string }).device_code === 'dc_w'));

			rec.reset();
			rec.answer(() => ({ status: 400, body: { error: 'access_denied' } }));
			assert.deepEqual(await client.waitForDeviceToken({ device_code: 'dc_d', interval: 0, expires_in: 60 }, { minIntervalMs: 1 }), {
				status: 'denied',
			});
			assert.equal(rec.requests.length, 1);
		});

		test('waitForDeviceToken stops at its signal', async () => {
			rec.answer(() => ({ status: 400, body: { error: 'authorization_pending' } }));
			const ac = new AbortController();
			const waiting = client.waitForDeviceToken({ device_code: 'dc_s', interval: 5, expires_in: 60 }, { signal: ac.signal });
			ac.abort();
			await assert.rejects(waiting);
			assert.equal(rec.requests.length, 0, 'aborted during its first wait: nothing polled');
		});
	});
});
