import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { accountLabel } from '../../../src/auth/accountLabel';
import { AUTH_PROVIDER_ID, type AuthFlows, CloudAgentsAuthProvider } from '../../../src/auth/authProvider';
import { type Session, tokenKey } from '../../../src/auth/session';
import { DEV_TOKEN, READONLY_TOKEN, type TestEmulator } from '../support/emulator';
import { collected } from '../support/leaks';
import * as fake from '../support/vscodeFake';
import { sessionPerTest } from './authTestKit';

/**
 * src/auth/authProvider.ts: the Accounts-menu provider over a real Session (a test SecretStorage,
 * the emulator for GET /v2/me); the sign-in and sign-out flows are recording stand-ins.
 */
const logger = {
	debug: (m: string) => void collected.push(m),
	info: (m: string) => void collected.push(m),
	warn: (m: string) => void collected.push(m),
	error: (m: string) => void collected.push(m),
};
type Change = vscode.AuthenticationProviderAuthenticationSessionsChangeEvent;

suite('auth/authProvider', () => {
	let emu: TestEmulator;
	let secrets: fake.FakeSecretStorage;
	let session: Session;
	let provider: CloudAgentsAuthProvider;
	let flowCalls: Array<[string, unknown]>;
	let signInResult: boolean;
	let events: Change[];

	sessionPerTest(logger, (kit) => ({ emu, secrets, session } = kit));
	setup(() => {
		flowCalls = [];
		signInResult = true;
		const flows: AuthFlows = {
			signIn: async (deps, args) => {
				flowCalls.push(['signIn', args]);
				if (signInResult) {
					await deps.session.storeToken(DEV_TOKEN);
				}
				return signInResult;
			},
			signOut: async (deps, args) => {
				flowCalls.push(['signOut', args]);
				await deps.session.deleteToken();
				return true;
			},
			addDeployment: async () => false,
		};
		provider = new CloudAgentsAuthProvider(session, logger, flows);
		events = [];
		provider.onDidChangeSessions((e) => events.push(e));
	});
	teardown(() => {
		provider.dispose();
		session.dispose();
	});

	const meCalls = async (): Promise<number> => {
		const { by_route } = (await emu.counters()).requests;
		return Object.entries(by_route)
			.filter(([route]) => /\/v2\/me\b/.test(route))
			.reduce((n, [, c]) => n + c, 0);
	};
	const expectedLabel = async (token: string): Promise<string> => {
		const c = session.clientWith(emu.url, token);
		try {
			return accountLabel(await c.getMe(), emu.url);
		} finally {
			c.close();
		}
	};

	test('registers itself as the one Cloud Agents provider, single account', () => {
		const [id, label, , options] = fake.calls('authentication.registerAuthenticationProvider')[0]!;
		assert.equal(id, AUTH_PROVIDER_ID);
		assert.equal(label, 'Cloud Agents');
		assert.deepEqual(options, { supportsMultipleAccounts: false });
	});

	test('no token: no session; a token: one session for the origin, labelled with who GET /v2/me says', async () => {
		assert.deepEqual(await provider.getSessions(), []);
		// Stored as VS Code stores it: with its change event (the session keeps what it read until one).
		secrets.changeElsewhere(tokenKey(emu.url), DEV_TOKEN);
		const [s, ...rest] = await provider.getSessions();
		assert.equal(rest.length, 0);
		const origin = new URL(emu.url).origin;
		assert.equal(s!.id, origin);
		assert.equal(s!.account.id, origin);
		assert.equal(s!.accessToken, DEV_TOKEN);
		assert.equal(s!.account.label, await expectedLabel(DEV_TOKEN));
		assert.ok(!s!.account.label.includes(DEV_TOKEN));
	});

	test('the label is looked up once per token, and again for another token', async () => {
		const before = await meCalls();
		secrets.values.set(tokenKey(emu.url), DEV_TOKEN);
		await provider.getSessions();
		await provider.getSessions();
		await provider.getSessions();
		assert.equal((await meCalls()) - before, 1);
		// Stored as VS Code stores it: with its change event (the session keeps what it read until one).
		secrets.changeElsewhere(tokenKey(emu.url), READONLY_TOKEN);
		const [s] = await provider.getSessions();
		assert.equal(s!.accessToken, READONLY_TOKEN);
		assert.equal((await meCalls()) - before, 2);
		assert.equal(s!.accessToken, READONLY_TOKEN);
	});

	test('when GET /v2/me fails the label is the host, the log says why without the token, and the next ask tries again', async () => {
		secrets.values.set(tokenKey(emu.url), DEV_TOKEN);
		await emu.faults([{ method: 'GET', route: '/v2/me', status: 400 }]);
		try {
			const lines = collected.length;
			const [s] = await provider.getSessions();
			assert.equal(s!.account.label, new URL(emu.url).host);
			const warned = collected.slice(lines).filter((l) => l.startsWith('Could not read the account name'));
			assert.equal(warned.length, 1);
			assert.ok(!warned[0]!.includes(DEV_TOKEN));
		} finally {
			await emu.faults([]);
		}
		const [again] = await provider.getSessions();
		assert.equal(again!.account.label, await expectedLabel(DEV_TOKEN));
	});

	test('sign-in, token change and sign-out are announced as added, changed and removed', async () => {
		await session.storeToken(DEV_TOKEN);
		await waitFor(() => events.length === 1);
		assert.equal(events[0]!.added?.[0]?.accessToken, DEV_TOKEN);
		await session.storeToken(READONLY_TOKEN);
		await waitFor(() => events.length === 2);
		assert.equal(events[1]!.changed?.[0]?.accessToken, READONLY_TOKEN);
		assert.deepEqual(events[1]!.added, []);
		await session.deleteToken();
		await waitFor(() => events.length >= 3);
		// The session changes twice on a sign-out (the secret's change, then its own read): both
		// checks have run once the queued callbacks have; the sign-out is announced once.
		for (let i = 0; i < 5; i++) {
			await new Promise((resolve) => setImmediate(resolve));
		}
		assert.equal(events.length, 3, JSON.stringify(events.slice(2).map((e) => e.removed?.length)));
		assert.equal(events[2]!.removed?.[0]?.accessToken, READONLY_TOKEN);
		assert.deepEqual([events[2]!.added, events[2]!.changed], [[], []]);
	});

	test('createSession runs the sign-in flow and answers the new session; a sign-in that stored nothing is a cancellation', async () => {
		const created = await provider.createSession();
		assert.equal(created.accessToken, DEV_TOKEN);
		assert.equal(flowCalls[0]![0], 'signIn');
		await session.deleteToken();
		signInResult = false;
		await assert.rejects(provider.createSession(), (e: unknown) => e instanceof fake.CancellationError);
	});

	test('removeSession signs out without a second confirmation (the Accounts menu asked)', async () => {
		await session.storeToken(DEV_TOKEN);
		await provider.removeSession();
		assert.deepEqual(flowCalls, [['signOut', { confirm: false }]]);
		assert.deepEqual(await provider.getSessions(), []);
	});
});

/** Waits (turns of the event loop, never a clock) until `done`; mocha's time-out ends a wait that never comes true. */
async function waitFor(done: () => boolean): Promise<void> {
	while (!done()) {
		await new Promise<void>((r) => setImmediate(r));
	}
}
