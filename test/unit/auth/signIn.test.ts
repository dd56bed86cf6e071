import * as assert from 'node:assert/strict';
import { ApiError } from '../../../src/api';
import { type Session, tokenKey } from '../../../src/auth/session';
import { browserVerificationUrl, rejectedText, signIn, signOut } from '../../../src/auth/signIn';
import { DEV_TOKEN, type TestEmulator, clientOfDeadPort, startTestEmulator } from '../support/emulator';
import { collected } from '../support/leaks';
import * as fake from '../support/vscodeFake';
import { sessionPerTest } from './authTestKit';

/**
 * src/auth/signIn.ts: keys checked with GET /v2/me and revoked with DELETE /v2/auth/token at the
 * emulator (one per test: a sign-out revokes the key), stored in a test SecretStorage. Neither a key
 * nor a token may appear in a message or the log (collected: the root hook fails the file if one does).
 */
const WRONG_KEY = 'ca_wrong_9f8e7d6c5b4a3210';
const log = {
	info: (m: string) => void collected.push(m),
	warn: (m: string) => void collected.push(m),
	error: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map((x) => (x instanceof Error ? x.message : String(x)))),
	debug: (m: string) => void collected.push(m),
};

suite('auth/signIn', () => {
	let emu: TestEmulator;
	let secrets: fake.FakeSecretStorage;
	let session: Session;
	sessionPerTest(log, (kit) => ({ emu, secrets, session } = kit));
	teardown(async () => {
		session.dispose();
		await emu.faults([]);
	});

	const stored = (): string | undefined => secrets.values.get(tokenKey(session.apiUrl));
	const messages = (kind: 'Information' | 'Warning' | 'Error'): string[] =>
		fake.calls(`window.show${kind}Message`).map((c) => c[0] as string);
	const everythingShown = (): string =>
		JSON.stringify([fake.calls('window.showErrorMessage'), fake.calls('window.showInformationMessage')]);

	test('automation {apiKey}: a key the service takes is stored (trimmed) and who signed in is said', async () => {
		assert.equal(await signIn({ session, log }, { apiKey: `  ${DEV_TOKEN} ` }), true);
		assert.equal(stored(), DEV_TOKEN);
		assert.equal(session.signedIn, true);
		assert.match(messages('Information')[0]!, /^Signed in to Cloud Agents as .+\.$/);
		assert.ok(!everythingShown().includes(DEV_TOKEN));
	});

	test('a key the service refuses is never stored; the error says so (with the demo hint on loopback) without the key', async () => {
		assert.equal(await signIn({ session, log }, { apiKey: WRONG_KEY }), false);
		assert.equal(stored(), undefined);
		const [error] = messages('Error');
		assert.match(error!, /^The API key was not accepted/);
		assert.match(error!, /npm run demo:key/);
		assert.ok(!everythingShown().includes(WRONG_KEY));
		assert.ok(collected.some((l) => l.startsWith('The API key was rejected by')));
	});

	test('an empty key is refused before any request', async () => {
		const before = (await emu.counters()).requests.total;
		assert.equal(await signIn({ session, log }, { apiKey: '   ' }), false);
		assert.deepEqual(messages('Error'), ['The API key is empty.']);
		assert.equal((await emu.counters()).requests.total, before);
	});

	test('without arguments it asks how; dismissing the pick signs in nothing', async () => {
		assert.equal(await signIn({ session, log }), false);
		const [items, options] = fake.calls('window.showQuickPick')[0] as [
			Array<{ method: string }>,
			{ ignoreFocusOut: boolean; title: string },
		];
		assert.deepEqual(
			items.map((i) => i.method),
			['apiKey', 'device'],
		);
		assert.equal(options.ignoreFocusOut, true);
		assert.equal(options.title, `Sign in to Cloud Agents (${emu.url})`);
	});

	test("the key's input box: a refused key is said in the box, which stays with the key; a good key then signs in and closes it", async () => {
		const box = inputBox();
		const done = signIn({ session, log }, { method: 'apiKey' });
		assert.equal(box.password, true);
		box.accept('');
		assert.equal(box.validationMessage, 'The API key is empty.');
		box.accept(WRONG_KEY);
		await waitFor(() => box.validationMessage !== undefined && !box.busy);
		assert.match(box.validationMessage, /^The API key was not accepted/);
		assert.ok(!box.validationMessage.includes(WRONG_KEY));
		assert.equal(box.hidden, false);
		assert.equal(stored(), undefined);
		box.accept(DEV_TOKEN);
		assert.equal(await done, true);
		assert.equal(box.hidden, true);
		assert.equal(stored(), DEV_TOKEN);
	});

	test('Escape in the input box signs in nothing', async () => {
		const box = inputBox();
		const done = signIn({ session, log }, { method: 'apiKey' });
		box.hide();
		assert.equal(await done, false);
		assert.equal(stored(), undefined);
	});

	test('the device flow against a service out of reach ends with an error notification, storing nothing', async () => {
		const dead = await clientOfDeadPort();
		dead.client.close();
		fake.settings['cloudAgents.apiUrl'] = `http://127.0.0.1:${dead.port}`;
		assert.equal(await signIn({ session, log }, { method: 'device', openBrowser: false }), false);
		const shown = [...messages('Error'), ...messages('Warning')];
		assert.ok(
			shown.some((m) => m.startsWith('Could not sign in')),
			JSON.stringify(shown),
		);
		assert.deepEqual([...secrets.values.keys()], []);
	});

	test('sign-out when signed out says so and succeeds', async () => {
		assert.equal(await signOut({ session, log }), true);
		assert.deepEqual(messages('Information'), ['You are not signed in to Cloud Agents.']);
	});

	test('sign-out asks first (modal); declining keeps the token', async () => {
		await session.storeToken(DEV_TOKEN);
		assert.equal(await signOut({ session, log }), false);
		const [text, options] = fake.calls('window.showWarningMessage')[0] as [string, { modal: boolean }];
		assert.equal(text, `Sign out of Cloud Agents at ${new URL(emu.url).host}?`);
		assert.equal(options.modal, true);
		assert.equal(stored(), DEV_TOKEN);
	});

	test('"Sign Out and Don\'t Ask Again" revokes the token at the service, deletes it here and turns the question off', async () => {
		// An emulator of its own: the revoked token stays revoked there.
		const own = await startTestEmulator();
		fake.settings['cloudAgents.apiUrl'] = own.url;
		try {
			await revokeHere(own);
		} finally {
			await own.close();
		}
	});

	async function revokeHere(own: TestEmulator): Promise<void> {
		await session.storeToken(DEV_TOKEN);
		fake.answer('window.showWarningMessage', async (_t: string, _o: unknown, ...items: string[]) => items[1]);
		assert.equal(await signOut({ session, log }), true);
		assert.equal(stored(), undefined);
		assert.equal(fake.settings['cloudAgents.confirmSignOut'], false);
		assert.deepEqual(messages('Information'), ['Signed out of Cloud Agents.']);
		const check = session.clientWith(own.url, DEV_TOKEN);
		try {
			await assert.rejects(check.getMe(), (e: unknown) => e instanceof ApiError && e.status === 401);
		} finally {
			check.close();
		}
		await session.storeToken('ca_first_token_1');
		fake.answer('window.showWarningMessage', async () => undefined);
		await signOut({ session, log });
		assert.equal(fake.calls('window.showWarningMessage').length, 1, 'asked no more');
	}

	test('a service that cannot revoke: signed out here all the same, with a warning that the token may still be valid', async () => {
		await session.storeToken(DEV_TOKEN);
		await emu.faults([{ method: 'DELETE', route: '/v2/auth/token', status: 400 }]);
		fake.answer('window.showWarningMessage', async () => undefined);
		assert.equal(await signOut({ session, log }, { confirm: false }), false);
		assert.equal(stored(), undefined);
		assert.match(messages('Warning')[0]!, /^Signed out on this computer, but the service could not revoke the token: /);
		assert.ok(!messages('Warning')[0]!.includes(DEV_TOKEN));
	});

	test('rejectedText: the reason on one line without its final period; the demo hint only for a loopback URL', () => {
		const err = new ApiError(401, 'unauthorized', 'Key revoked.\nContact admin.', undefined);
		assert.equal(rejectedText(err, 'https://api.example.test'), 'The API key was not accepted: Key revoked. Contact admin.');
		assert.equal(
			rejectedText(new ApiError(401, 'unauthorized', '', undefined), 'http://127.0.0.1:8787'),
			'The API key was not accepted. In the demo, "npm run demo:key" prints a fresh key.',
		);
	});

	test('browserVerificationUrl: https as sent, loopback http through asExternalUri, anything else refused', async () => {
		assert.equal(await browserVerificationUrl('https://id.example.test/device?x=1'), 'https://id.example.test/device?x=1');
		fake.answer('env.asExternalUri', async () => fake.Uri.parse('https://proxy.example.test/proxy/8787/device'));
		assert.equal(await browserVerificationUrl('http://127.0.0.1:8787/device'), 'https://proxy.example.test/proxy/8787/device');
		fake.answer('env.asExternalUri', async () => {
			throw new Error('no mapping');
		});
		assert.equal(await browserVerificationUrl('http://localhost:8787/device'), 'http://localhost:8787/device');
		assert.equal(await browserVerificationUrl('http://evil.example.test/device'), undefined);
		assert.equal(await browserVerificationUrl('javascript:alert(1)'), undefined);
	});
});

/** A fake `window.createInputBox` answer: `accept(value)` types and presses Enter, `hide()` presses Escape. */
function inputBox() {
	const accept = new fake.EventEmitter<void>();
	const hide = new fake.EventEmitter<void>();
	const change = new fake.EventEmitter<string>();
	const box = {
		value: '',
		title: undefined as string | undefined,
		prompt: undefined as string | undefined,
		password: false,
		ignoreFocusOut: false,
		busy: false,
		enabled: true,
		validationMessage: undefined as string | undefined,
		hidden: false,
		onDidAccept: accept.event,
		onDidHide: hide.event,
		onDidChangeValue: change.event,
		show: () => undefined,
		dispose: () => undefined,
		hide: () => {
			box.hidden = true;
			hide.fire();
		},
		accept: (value: string) => {
			box.value = value;
			change.fire(value);
			accept.fire();
		},
	};
	fake.answer('window.createInputBox', () => box);
	return box;
}

/** Waits (turns of the event loop, never a clock) until `done`; mocha's time-out ends a wait that never comes true. */
async function waitFor(done: () => boolean): Promise<void> {
	while (!done()) {
		await new Promise<void>((r) => setImmediate(r));
	}
}
