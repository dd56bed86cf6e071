import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { type AuthFlows, CloudAgentsAuthProvider } from '../../../../src/auth/authProvider';
import { DeploymentSessions } from '../../../../src/auth/deploymentSessions';
import { Session, tokenKey } from '../../../../src/auth/session';
import { addDeployment, signIn, signOut } from '../../../../src/auth/signIn';
import { nodeConnect } from '../../../../src/platform/node/network';
import { type KeyService, PROD_KEY, STAGING_KEY, collectingLog as log, twoKeyServicesPerSuite } from '../../support/twoDeployments';
import * as fake from '../../support/vscodeFake';

/**
 * src/auth/authProvider.ts with several deployments (issue 47): the Accounts menu's sessions over
 * two recording services on loopback (each answers GET /v2/me and DELETE /v2/auth/token for its own
 * key), the default deployment at one and "Staging" at the other, with the real sign-out flow.
 */
type Change = vscode.AuthenticationProviderAuthenticationSessionsChangeEvent;

/** Waits (turns of the event loop, never a clock) until `done`; mocha's time-out ends a wait that never comes true. */
async function waitFor(done: () => boolean): Promise<void> {
	while (!done()) {
		await new Promise<void>((r) => setImmediate(r));
	}
}

suite('auth/authProvider: the Accounts menu with several deployments', () => {
	let prod: KeyService;
	let staging: KeyService;
	let secrets: fake.FakeSecretStorage;
	let defaultSession: Session;
	let sessions: DeploymentSessions | undefined;
	let provider: CloudAgentsAuthProvider;
	let events: Change[];
	let signOuts: Array<string | undefined>;

	twoKeyServicesPerSuite((p, s) => ([prod, staging] = [p, s]));
	setup(async () => {
		signOuts = [];
		fake.settings['cloudAgents.apiUrl'] = prod.baseUrl;
		secrets = new fake.FakeSecretStorage();
		secrets.values.set(tokenKey(prod.baseUrl), PROD_KEY);
		defaultSession = new Session(secrets as unknown as vscode.SecretStorage, log, nodeConnect);
		await defaultSession.initialize(undefined);
		// The real flows (src/auth/signIn.ts), the sign-out's named deployment recorded.
		const flows: AuthFlows = {
			signIn,
			signOut: (deps, args) => {
				signOuts.push(deps.named);
				return signOut(deps, args);
			},
			addDeployment,
		};
		provider = new CloudAgentsAuthProvider(defaultSession, log, flows);
		events = [];
		provider.onDidChangeSessions((e) => events.push(e));
	});
	teardown(() => {
		provider.dispose();
		sessions?.dispose();
		sessions = undefined;
		defaultSession.dispose();
	});

	/** The deployments' sessions as the features make them (the setting read now), shown in the menu. */
	const showDeployments = (): DeploymentSessions => {
		sessions = new DeploymentSessions(defaultSession, (d) => defaultSession.sibling(d), log);
		provider.showDeployments(sessions);
		return sessions;
	};
	const stagingSession = (): Session => sessions!.find('Staging')!.session;
	const prodHost = (): string => new URL(prod.baseUrl).host;

	test('one deployment configured: one session, labelled with who is signed in and no deployment name', async () => {
		showDeployments();
		const all = await provider.getSessions();
		assert.deepEqual(
			all.map((s) => [s.id, s.account.label, s.accessToken]),
			[[new URL(prod.baseUrl).origin, 'prod@example.test', PROD_KEY]],
		);
		assert.ok(
			!all.some((s) => s.account.label.includes(prodHost()) || s.account.label.includes('(')),
			'no deployment name in the menu',
		);
	});

	test('two deployments signed in: a session each, labelled with its deployment, each with its own token; Sign Out of one from the menu leaves the other', async () => {
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: staging.baseUrl }];
		// The default deployment's session was in the menu before the features loaded: its label changes to name it.
		assert.equal((await provider.getSessions())[0]!.account.label, 'prod@example.test');
		showDeployments();
		await waitFor(() => events.some((e) => e.changed?.length === 1));
		assert.equal(events.at(-1)!.changed![0]!.account.label, `prod@example.test (${prodHost()})`);
		// Signed in to Staging: announced as added, with its own label.
		await waitFor(() => stagingSession().initialized);
		await stagingSession().storeToken(STAGING_KEY);
		await waitFor(() => events.some((e) => e.added?.length === 1));
		assert.equal(events.find((e) => e.added?.length === 1)!.added![0]!.account.label, 'staging@example.test (Staging)');
		const all = await provider.getSessions();
		assert.deepEqual(
			all.map((s) => [s.id, s.account.id, s.account.label, s.accessToken]),
			[
				[new URL(prod.baseUrl).origin, new URL(prod.baseUrl).origin, `prod@example.test (${prodHost()})`, PROD_KEY],
				[new URL(staging.baseUrl).origin, new URL(staging.baseUrl).origin, 'staging@example.test (Staging)', STAGING_KEY],
			],
		);
		// Each label was read from its own service with its own key only.
		assert.ok(staging.seen.length > 0 && staging.seen.every((r) => r.endsWith('own key')), staging.seen.join('\n'));
		assert.ok(
			prod.seen.every((r) => r.endsWith('own key')),
			prod.seen.join('\n'),
		);
		// Sign Out of Staging's account from the menu: revoked there, the default deployment stays signed in.
		events.length = 0;
		prod.seen.length = 0;
		await provider.removeSession(new URL(staging.baseUrl).origin);
		assert.deepEqual(signOuts, ['Staging']);
		assert.ok(staging.seen.includes('DELETE /v2/auth/token own key'), staging.seen.join('\n'));
		assert.deepEqual(prod.seen, [], 'nothing was asked of the default deployment');
		assert.equal(secrets.values.get(tokenKey(prod.baseUrl)), PROD_KEY);
		assert.equal(secrets.values.get(tokenKey(staging.baseUrl)), undefined);
		await waitFor(() => events.some((e) => e.removed?.length === 1));
		assert.deepEqual(
			events.flatMap((e) => e.removed ?? []).map((s) => s.account.label),
			['staging@example.test (Staging)'],
		);
		assert.deepEqual(
			(await provider.getSessions()).map((s) => s.account.label),
			[`prod@example.test (${prodHost()})`],
		);
		// The default deployment's account from the menu: its own sign-out, no name handed (its messages say which when several).
		await provider.removeSession(new URL(prod.baseUrl).origin);
		assert.deepEqual(signOuts, ['Staging', undefined]);
		assert.equal(secrets.values.get(tokenKey(prod.baseUrl)), undefined);
	});

	test('a deployment removed from the settings: its session leaves the menu, and the default one no longer names its deployment', async () => {
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: staging.baseUrl }];
		secrets.values.set(tokenKey(staging.baseUrl), STAGING_KEY);
		const shown = showDeployments();
		await waitFor(() => stagingSession().initialized);
		await waitFor(() => events.some((e) => e.added?.length === 1));
		assert.equal((await provider.getSessions()).length, 2);
		events.length = 0;
		fake.settings['cloudAgents.deployments'] = [];
		shown.reload();
		await waitFor(() => events.some((e) => e.removed?.length === 1) && events.some((e) => e.changed?.length === 1));
		assert.equal(events.find((e) => e.removed?.length === 1)!.removed![0]!.account.label, 'staging@example.test (Staging)');
		assert.equal(events.find((e) => e.changed?.length === 1)!.changed![0]!.account.label, 'prod@example.test');
		assert.deepEqual(
			(await provider.getSessions()).map((s) => s.account.label),
			['prod@example.test'],
		);
	});
});
