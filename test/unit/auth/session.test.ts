import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ApiError } from '../../../src/api';
import { DEFAULT_API_URL } from '../../../src/auth/deployments';
import { Session, accountFingerprint, isSafeExternalUrl, tokenKey, userAgent } from '../../../src/auth/session';
import { nodeConnect } from '../../../src/platform/node/network';
import { DEV_TOKEN, READONLY_TOKEN, type TestEmulator } from '../support/emulator';
import { collected } from '../support/leaks';
import * as fake from '../support/vscodeFake';
import { sessionPerTest } from './authTestKit';

/**
 * src/auth/session.ts: the token in a SecretStorage the test makes (fake.FakeSecretStorage), the
 * API URL in the fake's settings, requests to the emulator. The token must never reach the log
 * (every line is collected: the root hook fails the file when a test token appears in one).
 */
const logger = {
	debug: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map(String)),
	info: (m: string) => void collected.push(m),
	warn: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map(String)),
	error: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map(String)),
};

suite('auth/session', () => {
	let emu: TestEmulator;
	let secrets: fake.FakeSecretStorage;
	let session: Session;
	sessionPerTest(logger, (kit) => ({ emu, secrets, session } = kit));
	teardown(() => session.dispose());

	const contextKeys = (): unknown[] =>
		fake
			.calls('commands.executeCommand')
			.filter((c) => c[0] === 'setContext' && c[1] === 'cloudAgents.signedIn')
			.map((c) => c[2]);

	test('apiUrl: the setting trimmed, without trailing slashes; the local emulator when unset or blank', () => {
		fake.settings['cloudAgents.apiUrl'] = '  https://api.example.test///  ';
		assert.equal(session.apiUrl, 'https://api.example.test');
		fake.settings['cloudAgents.apiUrl'] = '   ';
		assert.equal(session.apiUrl, DEFAULT_API_URL);
		delete fake.settings['cloudAgents.apiUrl'];
		assert.equal(session.apiUrl, DEFAULT_API_URL);
	});

	test('tokenKey is per origin (path and credentials left out); the fingerprint tells tokens apart without holding them', () => {
		assert.equal(tokenKey('https://user:pw@api.example.test:8443/v2/'), 'cloudAgents.token.https://api.example.test:8443');
		assert.throws(() => tokenKey('not a url'));
		const a = accountFingerprint(DEV_TOKEN);
		assert.match(a, /^[0-9a-f]{16}$/);
		assert.notEqual(a, accountFingerprint(READONLY_TOKEN));
		assert.ok(!DEV_TOKEN.includes(a) && !a.includes(DEV_TOKEN.slice(3, 10)));
	});

	test('isSafeExternalUrl: https, or http on a loopback host only', () => {
		assert.equal(isSafeExternalUrl('https://example.test/device'), true);
		assert.equal(isSafeExternalUrl('http://127.0.0.1:8787/device'), true);
		assert.equal(isSafeExternalUrl('http://localhost/device'), true);
		assert.equal(isSafeExternalUrl('http://example.test/device'), false);
		assert.equal(isSafeExternalUrl('javascript:alert(1)'), false);
		assert.equal(isSafeExternalUrl('file:///etc/passwd'), false);
		assert.equal(isSafeExternalUrl('not a url'), false);
	});

	test('userAgent names the extension and the editor', () => {
		assert.equal(userAgent(), 'cloud-agents-vscode (Visual Studio Code (fake) 1.99.0-fake)');
	});

	test('initialize stores the development token for a loopback URL with none stored, then reads the sign-in state', async () => {
		let changes = 0;
		session.onDidChange(() => changes++);
		assert.equal(session.initialized, false);
		await session.initialize(`  ${DEV_TOKEN}\n`);
		assert.equal(secrets.values.get(tokenKey(emu.url)), DEV_TOKEN);
		assert.equal(session.signedIn, true);
		assert.equal(session.initialized, true);
		assert.deepEqual(contextKeys().at(-1), true);
		assert.ok(changes >= 1);
		const scope = session.cacheScope!;
		assert.equal(scope.apiUrl, emu.url);
		assert.equal(scope.account, accountFingerprint(DEV_TOKEN));
		assert.ok(!JSON.stringify(scope).includes(DEV_TOKEN));
		assert.ok(!collected.some((l) => l.includes(DEV_TOKEN)));
	});

	test('initialize never replaces a stored token, and stores none for a URL that is not loopback', async () => {
		secrets.values.set(tokenKey(emu.url), READONLY_TOKEN);
		await session.initialize(DEV_TOKEN);
		assert.equal(secrets.values.get(tokenKey(emu.url)), READONLY_TOKEN);

		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		const other = new Session(new fake.FakeSecretStorage() as unknown as vscode.SecretStorage, logger, nodeConnect);
		try {
			await other.initialize(DEV_TOKEN);
			assert.equal(other.signedIn, false);
			assert.equal(other.cacheScope, undefined);
			assert.equal(await other.getToken(), undefined);
		} finally {
			other.dispose();
		}
	});

	test('the shared client sends the stored token: a listing answers; after deleteToken it is refused', async () => {
		await session.storeToken(DEV_TOKEN);
		const page = await session.client.listAgents({ limit: 5 });
		assert.ok(page.items.length > 0);
		await session.deleteToken();
		assert.equal(session.signedIn, false);
		assert.equal(session.cacheScope, undefined);
		const err = await session.client.listAgents({ limit: 5 }).then(
			() => undefined,
			(e: unknown) => e,
		);
		assert.ok(err instanceof ApiError && err.status === 401, String(err));
		assert.ok(!String((err as Error).message).includes(DEV_TOKEN));
	});

	test('a token stored or deleted in another window changes the sign-in state here', async () => {
		const seen: boolean[] = [];
		session.onDidChange(() => seen.push(session.signedIn));
		secrets.changeElsewhere(tokenKey(emu.url), DEV_TOKEN);
		await waitFor(() => seen.length === 1);
		secrets.changeElsewhere(tokenKey(emu.url), undefined);
		await waitFor(() => seen.length === 2);
		assert.deepEqual(seen, [true, false]);
		secrets.changeElsewhere('someone.else', 'x');
		await Promise.resolve();
		assert.equal(seen.length, 2, 'another extension key is not ours');
	});

	test('concurrent reads of the token share one SecretStorage read', async () => {
		secrets.values.set(tokenKey(emu.url), DEV_TOKEN);
		const [a, b, c] = await Promise.all([session.getToken(), session.getToken(), session.getToken()]);
		assert.deepEqual([a, b, c], [DEV_TOKEN, DEV_TOKEN, DEV_TOKEN]);
		assert.equal(secrets.reads.get(tokenKey(emu.url)), 1);
		// What it answered is kept until the token changes (issue 44: each read is a round trip to a
		// window busy drawing just when a person clicks).
		await session.getToken();
		assert.equal(secrets.reads.get(tokenKey(emu.url)), 1, 'the answer is kept');
	});

	test('the kept token goes with any change: a store, a delete, another window’s change, the URL', async () => {
		const key = tokenKey(emu.url);
		secrets.values.set(key, DEV_TOKEN);
		assert.equal(await session.getToken(), DEV_TOKEN);
		secrets.changeElsewhere(key, 'ca_dev_from_another_window');
		assert.equal(await session.getToken(), 'ca_dev_from_another_window', 'another window stored one');
		secrets.changeElsewhere(key, undefined);
		assert.equal(await session.getToken(), undefined, 'another window signed out');
		await session.storeToken(DEV_TOKEN);
		assert.equal(await session.getToken(), DEV_TOKEN);
		await session.deleteToken();
		assert.equal(await session.getToken(), undefined);
		secrets.values.set(key, DEV_TOKEN);
		const reads = secrets.reads.get(key) ?? 0;
		fake.changeSettings({ 'cloudAgents.apiUrl': `${emu.url}/` });
		assert.equal(await session.getToken(), DEV_TOKEN);
		assert.equal(secrets.reads.get(key), reads + 1, 'a new URL reads again');
	});

	test('changing the API URL makes a new client and a new sign-in state (the token of the other origin)', async () => {
		await session.storeToken(DEV_TOKEN);
		const before = session.client;
		let changed = 0;
		session.onDidChange(() => changed++);
		fake.changeSettings({ 'cloudAgents.apiUrl': 'https://api.example.test' });
		assert.equal(session.cacheScope, undefined);
		assert.equal(session.hasClient, false);
		await waitFor(() => changed === 1);
		assert.equal(session.signedIn, false);
		assert.notEqual(session.client, before);
	});

	test('a 401 shows one "sign in again" prompt however many calls fail; its Sign In runs the flow; the next sign-in re-arms it', async () => {
		let flows = 0;
		session.setSignInFlow(async () => flows++);
		fake.answer('window.showWarningMessage', async (_m: string, ...items: string[]) => items[0]);
		const unauthorized = new ApiError(401, 'unauthorized', 'token rejected', undefined);
		assert.equal(session.reportError(new ApiError(500, 'internal', 'boom', undefined)), false);
		assert.equal(session.reportError(unauthorized), true);
		assert.equal(session.reportError(unauthorized), true);
		assert.equal(fake.calls('window.showWarningMessage').length, 1);
		assert.match(fake.calls('window.showWarningMessage')[0]![0] as string, /session expired or the token was rejected/);
		await waitFor(() => flows === 1);
		await session.storeToken(DEV_TOKEN);
		session.reportError(unauthorized);
		assert.equal(fake.calls('window.showWarningMessage').length, 2);
	});

	test("another deployment's session (issue 47): its own fixed URL and token, deaf to cloudAgents.apiUrl, the context key left to the default, its prompt naming it", async () => {
		const staging = session.sibling({ id: 'staging-example-test-0123456789ab', name: 'Staging', apiUrl: emu.url, isDefault: false });
		try {
			fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
			assert.equal(staging.apiUrl, emu.url);
			let changed = 0;
			let defaultChanged = 0;
			staging.onDidChange(() => changed++);
			session.onDidChange(() => defaultChanged++);
			fake.changeSettings({ 'cloudAgents.apiUrl': 'https://other.example.test' });
			await waitFor(() => defaultChanged === 1);
			assert.equal(changed, 0, "the API URL setting is the default deployment's");
			const contextCalls = fake.calls('commands.executeCommand').length;
			await staging.storeToken(DEV_TOKEN);
			assert.equal(staging.signedIn, true);
			assert.equal(secrets.values.get(tokenKey(emu.url)), DEV_TOKEN);
			assert.equal((await staging.client.listAgents({ limit: 1 })).items.length, 1);
			assert.ok(
				!fake
					.calls('commands.executeCommand')
					.slice(contextCalls)
					.some((c) => c[1] === 'cloudAgents.signedIn'),
				'cloudAgents.signedIn says whether the default deployment is signed in',
			);
			fake.answer('window.showWarningMessage', async () => undefined);
			staging.reportError(new ApiError(401, 'unauthorized', 'token rejected', undefined));
			assert.match(
				fake.calls('window.showWarningMessage')[0]![0] as string,
				/session of "Staging" expired or the token was rejected/,
			);
		} finally {
			staging.dispose();
		}
	});

	test('the request observer hears how each request of the shared client ended', async () => {
		await session.storeToken(DEV_TOKEN);
		const outcomes: unknown[] = [];
		session.setRequestObserver((err) => outcomes.push(err));
		await session.client.listAgents({ limit: 1 });
		assert.deepEqual(outcomes, [undefined]);
	});

	test('clientWith holds only the token it is given, not the stored one', async () => {
		await session.storeToken(DEV_TOKEN);
		const anonymous = session.clientWith(emu.url, undefined);
		try {
			await assert.rejects(anonymous.listAgents({ limit: 1 }), (e: unknown) => e instanceof ApiError && e.status === 401);
		} finally {
			anonymous.close();
		}
	});

	test('warmUpClient creates the client only when signed in, and not after it is disposed', async () => {
		session.warmUpClient(0);
		await timersBefore();
		assert.equal(session.hasClient, false, 'signed out: nothing loaded');
		await session.storeToken(DEV_TOKEN);
		session.warmUpClient(0).dispose();
		await timersBefore();
		assert.equal(session.hasClient, false);
		session.warmUpClient(0);
		await waitFor(() => session.hasClient);
	});

	test('a signed-in window idle past the warm-up has its HTTP client before its first request: the warm-up makes it, then reads ahead (issue 44)', async () => {
		await session.storeToken(DEV_TOKEN);
		let firstRequestAt: number | undefined;
		session.setRequestObserver((_err, startedAt) => (firstRequestAt ??= startedAt));
		let readAhead = 0;
		session.warmUpClient(0, () => {
			readAhead++;
			void session.client.listAgents({ limit: 1 });
		});
		assert.equal(session.hasClient, false, 'not before the window was idle');
		await waitFor(() => firstRequestAt !== undefined);
		assert.equal(readAhead, 1);
		assert.equal(session.firstClient?.by, 'warm-up', 'the client was loaded by the warm-up, not by the first request');
		assert.ok(session.firstClient.at <= firstRequestAt!, 'loaded before the first request started');
	});

	test('a request before the warm-up loads the client itself, and says so (what the warm-up exists to avoid)', async () => {
		await session.storeToken(DEV_TOKEN);
		await session.client.listAgents({ limit: 1 });
		assert.equal(session.firstClient?.by, 'use');
		let readAhead = 0;
		session.warmUpClient(0, () => readAhead++);
		await timersBefore();
		assert.equal(readAhead, 1, 'the read ahead still runs');
		assert.equal(session.firstClient?.by, 'use', 'the first client is what it was');
	});
});

/**
 * Settles once the 0 ms timers set before it have run: Node runs timers of the same delay in the
 * order they were set (no wait on the clock for something to happen).
 */
function timersBefore(): Promise<void> {
	return new Promise<void>((r) => setTimeout(r, 0));
}

/** Waits (turns of the event loop, never a clock) until `done`; mocha's time-out ends a wait that never comes true. */
async function waitFor(done: () => boolean): Promise<void> {
	while (!done()) {
		await new Promise<void>((r) => setImmediate(r));
	}
}
