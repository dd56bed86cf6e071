/**
 * The scrub of free text (src/base/logger.ts `scrub`): tokens never appear, by value wherever they
 * are and by shape after "Bearer"; the words a server writes after "bearer" stay readable.
 */
import assert from 'node:assert/strict';
import { ApiError, CloudAgentsClient, scrub } from '../../../src/api';
import { looksLikeToken } from '../../../src/base/logger';
import { DEV_TOKEN, type TestEmulator, startTestEmulator } from '../support/emulator';
import { collected, rejection, recordingLogger } from '../support/leaks';
import { nodeConnect } from '../../../src/platform/node/network';

/** A key a person might paste by mistake: token-shaped, unknown to the service. */
const WRONG_KEY = 'ca_wrong_9f8e7d6c5b4a3210';

suite('scrub: tokens by value and by shape, words kept (src/base/logger.ts)', () => {
	test('the words after "bearer" in a server\'s message stay as written', () => {
		for (const text of [
			'missing bearer token: send Authorization: Bearer <API_KEY_OR_ACCESS_TOKEN>',
			'bearer token rejected: unknown token',
			'bearer token rejected: the token was revoked',
			'malformed Authorization header: expected "Bearer <token>"',
			'WWW-Authenticate: Bearer realm="cloud-agents"',
			'Bearer authentication failed. Send a Bearer token.',
			'use the bearer scheme; bearer-only endpoints refuse cookies',
		]) {
			assert.equal(scrub(text, [DEV_TOKEN]), text);
		}
	});

	test('a known token is removed wherever it appears, in any case of "bearer", also glued to other text', () => {
		const text = `bad token ${DEV_TOKEN} (Bearer ${DEV_TOKEN}); header=bearer ${DEV_TOKEN}, x${DEV_TOKEN}y`;
		const out = scrub(text, [DEV_TOKEN]);
		assert.ok(!out.includes(DEV_TOKEN), out);
		assert.equal(out, 'bad token <redacted> (Bearer <redacted>); header=bearer <redacted>, x<redacted>y');
	});

	test('a token the client never sent is still removed after "Bearer" when it is token-shaped', () => {
		const tokens = [
			'ghp_demo7Yq2Lr5Xz8Kp1Vb4Nm6Tc9Wd3',
			'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1In0.c2lnbmF0dXJl',
			'0123456789abcdef0123456789abcdef',
			'abcdefghijklmnopqrstuvwxyz',
			'dGVzdC10b2tlbg==',
			'AbCdEfGhIj',
			'sk-demo-4f9a0c1e',
		];
		for (const token of tokens) {
			assert.ok(looksLikeToken(token), token);
			const out = scrub(`upstream said: Authorization: Bearer ${token}. Retry.`);
			assert.equal(out, 'upstream said: Authorization: Bearer <redacted>. Retry.');
		}
		for (const word of ['token', 'token:', 'rejected:', '<API_KEY>', 'wrong-key', 'Authorization', 'realm=x', 'short1']) {
			assert.equal(looksLikeToken(word), false, word);
		}
	});

	suite('against the emulator', () => {
		let emu: TestEmulator;
		suiteSetup(async () => {
			emu = await startTestEmulator();
		});
		suiteTeardown(async () => {
			await emu.close();
		});
		const client = (token: string | undefined): CloudAgentsClient =>
			new CloudAgentsClient({
				connect: nodeConnect,
				baseUrl: emu.url,
				getToken: () => token,
				logger: recordingLogger,
				retry: { baseDelayMs: 10 },
			});

		test("a wrong key and a missing one: the service's reason reads as it wrote it, and the key is nowhere", async () => {
			const wrong = await rejection(client(WRONG_KEY).getMe());
			assert.ok(wrong instanceof ApiError && wrong.isAuthFailure, String(wrong));
			assert.equal(wrong.message, 'bearer token rejected: unknown token');
			const missing = await rejection(client(undefined).getMe());
			assert.ok(missing instanceof ApiError && missing.isAuthFailure, String(missing));
			assert.equal(missing.message, 'missing bearer token: send Authorization: Bearer <API_KEY_OR_ACCESS_TOKEN>');
			assert.ok(!collected.some((line) => line.includes(WRONG_KEY)), 'the wrong key appears in a log line or error');
		});
	});
});
