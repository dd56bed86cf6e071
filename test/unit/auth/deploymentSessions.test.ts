import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { DeploymentSessions } from '../../../src/auth/deploymentSessions';
import { type Deployment, deploymentId } from '../../../src/auth/deployments';
import { Session, tokenKey } from '../../../src/auth/session';
import { addDeployment, signIn, signOut } from '../../../src/auth/signIn';
import { serve } from '../support/serve';
import { until } from '../support/until';
import { type KeyService, PROD_KEY, STAGING_KEY, collectingLog as log, twoKeyServicesPerSuite } from '../support/twoDeployments';
import * as fake from '../support/vscodeFake';
import { WIRES } from '../support/wires';

/**
 * src/auth/deploymentSessions.ts and the per-deployment sign-in and sign-out of src/auth/signIn.ts:
 * two services on loopback (recording servers that answer GET /v2/me and DELETE /v2/auth/token and
 * keep every Authorization header they were sent), the default deployment at one, "Staging" at the
 * other, tokens in a test SecretStorage; over both wires (Node's undici, and the fetch of VS Code
 * for the Web's extension host).
 */
for (const wire of WIRES) {
	suite(`auth/deploymentSessions: one session per deployment (${wire.name} wire)`, () => {
		let prod: KeyService;
		let staging: KeyService;
		let secrets: fake.FakeSecretStorage;
		let defaultSession: Session;
		let sessions: DeploymentSessions;
		let made: Deployment[];
		let disposed: string[];

		twoKeyServicesPerSuite((p, s) => ([prod, staging] = [p, s]));
		setup(async () => {
			made = [];
			disposed = [];
			fake.settings['cloudAgents.apiUrl'] = prod.baseUrl;
			fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: staging.baseUrl }];
			secrets = new fake.FakeSecretStorage();
			const store = secrets as unknown as vscode.SecretStorage;
			defaultSession = new Session(store, log, wire.connect);
			await defaultSession.initialize(undefined);
			sessions = new DeploymentSessions(
				defaultSession,
				(deployment) => {
					made.push(deployment);
					const session = new Session(store, log, wire.connect, deployment);
					const dispose = session.dispose.bind(session);
					session.dispose = () => {
						disposed.push(deployment.name);
						dispose();
					};
					return session;
				},
				log,
			);
		});
		teardown(() => {
			sessions.dispose();
			defaultSession.dispose();
		});

		const deps = (): Parameters<typeof signIn>[0] => ({ session: defaultSession, log, deployments: () => sessions });
		const stagingSession = (): Session => sessions.find('Staging')!.session;

		test('the default deployment keeps the shared session; each other one gets its own, with its URL', () => {
			assert.deepEqual(
				sessions.all.map((d) => [d.deployment.name, d.session.apiUrl]),
				[
					[new URL(prod.baseUrl).host, prod.baseUrl],
					['Staging', staging.baseUrl],
				],
			);
			assert.equal(sessions.all[0]?.session, defaultSession);
			assert.equal(sessions.find(deploymentId(staging.baseUrl))?.session, stagingSession());
			assert.equal(sessions.find('STAGING')?.session, stagingSession());
			assert.equal(sessions.find('nowhere'), undefined);
			assert.deepEqual(
				fake.calls('commands.executeCommand').filter((c) => c[1] === 'cloudAgents.severalDeployments'),
				[['setContext', 'cloudAgents.severalDeployments', true]],
			);
		});

		test('signing in to each deployment stores each key under its own URL; no token is ever sent to the other service', async () => {
			assert.equal(await signIn(deps(), { deployment: 'Staging', apiKey: STAGING_KEY }), true);
			assert.equal(await signIn(deps(), { deployment: new URL(prod.baseUrl).host, apiKey: PROD_KEY }), true);
			assert.equal(secrets.values.get(tokenKey(staging.baseUrl)), STAGING_KEY);
			assert.equal(secrets.values.get(tokenKey(prod.baseUrl)), PROD_KEY);
			// With several deployments the messages say which one.
			assert.deepEqual(
				fake.calls('window.showInformationMessage').map((c) => c[0]),
				['Signed in to Staging as staging@example.test.', `Signed in to ${new URL(prod.baseUrl).host} as prod@example.test.`],
			);
			assert.deepEqual(
				sessions.signedIn.map((d) => d.deployment.name),
				[new URL(prod.baseUrl).host, 'Staging'],
			);
			// Each shared client asks its own service with its own token.
			await stagingSession().client.getMe();
			await defaultSession.client.getMe();
			assert.ok(staging.auth.length >= 2 && staging.auth.every((h) => h === `Bearer ${STAGING_KEY}`), staging.auth.join());
			assert.ok(prod.auth.length >= 2 && prod.auth.every((h) => h === `Bearer ${PROD_KEY}`), prod.auth.join());
		});

		test("a key typed in the key's box for another deployment: the message names that deployment (it said 'Cloud Agents', as with one)", async () => {
			const inputs = fake.installQuickInputs();
			const done = signIn(deps(), { deployment: 'Staging', method: 'apiKey' });
			const box = await inputs.nextBox();
			box.value = STAGING_KEY;
			box.accept();
			assert.equal(await done, true);
			assert.equal(secrets.values.get(tokenKey(staging.baseUrl)), STAGING_KEY);
			assert.deepEqual(
				fake.calls('window.showInformationMessage').map((c) => c[0]),
				['Signed in to Staging as staging@example.test.'],
			);
		});

		test("storing or deleting one deployment's token leaves the other sessions' sign-in state alone (no reset of the default's views)", async () => {
			await secrets.store(tokenKey(prod.baseUrl), PROD_KEY);
			await defaultSession.refreshSignedIn();
			const scope = defaultSession.cacheScope;
			let defaultChanged = 0;
			const sub = defaultSession.onDidChange(() => defaultChanged++);
			try {
				assert.equal(await signIn(deps(), { deployment: 'Staging', apiKey: STAGING_KEY }), true);
				secrets.changeElsewhere(tokenKey(staging.baseUrl), undefined);
				await stagingSession().refreshSignedIn();
				assert.equal(stagingSession().signedIn, false);
				assert.equal(defaultChanged, 0);
				assert.equal(defaultSession.cacheScope, scope, 'the rows as last loaded still hold for the default deployment');
				assert.equal(defaultSession.signedIn, true);
			} finally {
				sub.dispose();
			}
		});

		test('a deployment that redirects to another deployment gets no token sent on: the redirect is not followed, nothing stored', async () => {
			const hostile = await serve((req, res) => {
				res.writeHead(307, { location: `${prod.baseUrl}${req.url ?? '/'}` }).end();
			});
			try {
				fake.changeSettings({ 'cloudAgents.deployments': [{ name: 'Hostile', apiUrl: hostile.baseUrl }] });
				assert.equal(await signIn(deps(), { deployment: 'Hostile', apiKey: STAGING_KEY }), false);
				assert.match(String(fake.calls('window.showErrorMessage')[0]?.[0]), /redirect/i);
				assert.deepEqual(prod.auth, [], 'the key never reached the other deployment');
				assert.equal(secrets.values.get(tokenKey(hostile.baseUrl)), undefined);
			} finally {
				await hostile.close();
			}
		});

		test('signing out of one deployment revokes and deletes its token only; the other stays signed in', async () => {
			await secrets.store(tokenKey(prod.baseUrl), PROD_KEY);
			await secrets.store(tokenKey(staging.baseUrl), STAGING_KEY);
			await defaultSession.refreshSignedIn();
			await stagingSession().refreshSignedIn();
			const contextCalls = fake.calls('commands.executeCommand').length;
			assert.equal(await signOut(deps(), { deployment: 'Staging', confirm: false }), true);
			assert.deepEqual(
				fake.calls('window.showInformationMessage').map((c) => c[0]),
				['Signed out of Staging.'],
			);
			assert.equal(secrets.values.get(tokenKey(staging.baseUrl)), undefined);
			assert.equal(secrets.values.get(tokenKey(prod.baseUrl)), PROD_KEY);
			assert.equal(stagingSession().signedIn, false);
			assert.equal(defaultSession.signedIn, true);
			assert.deepEqual(prod.auth, [], 'nothing was sent to the deployment left signed in');
			assert.deepEqual(staging.auth, [`Bearer ${STAGING_KEY}`]);
			// The default deployment's context key was left as it was by the other session.
			assert.ok(
				!fake
					.calls('commands.executeCommand')
					.slice(contextCalls)
					.some((c) => c[1] === 'cloudAgents.signedIn' && c[2] === false),
			);
		});

		test('perDeployment: a thing made at sign-in to Staging, gone at its sign-out, none for the default deployment; disposed with the holder', async () => {
			const events: string[] = [];
			const held = sessions.perDeployment(({ deployment, session }) => {
				events.push(`made ${deployment.name}`);
				return { session, gone: () => void events.push('gone'), dispose: () => void events.push('disposed') };
			}, 'signedIn');
			try {
				assert.equal(await signIn(deps(), { deployment: new URL(prod.baseUrl).host, apiKey: PROD_KEY }), true);
				assert.equal(await signIn(deps(), { deployment: 'Staging', apiKey: STAGING_KEY }), true);
				await until(() => held.size === 1, 'a thing for Staging');
				assert.deepEqual(events, ['made Staging'], 'none for the default deployment');
				assert.equal(held.get(deploymentId(staging.baseUrl))?.session, stagingSession());
				assert.equal(await signOut(deps(), { deployment: 'Staging', confirm: false }), true);
				await until(() => held.size === 0, 'Staging’s thing gone');
				assert.deepEqual(events, ['made Staging', 'gone', 'disposed']);
				assert.equal(await signIn(deps(), { deployment: 'Staging', apiKey: STAGING_KEY }), true);
				await until(() => held.size === 1, 'a new thing for Staging');
			} finally {
				held.dispose();
			}
			assert.deepEqual(events, ['made Staging', 'gone', 'disposed', 'made Staging', 'disposed']);
		});

		test('several deployments: Sign In asks which (with Add Deployment…), Sign Out asks only among the signed-in ones', async () => {
			await secrets.store(tokenKey(prod.baseUrl), PROD_KEY);
			await defaultSession.refreshSignedIn();
			await stagingSession().refreshSignedIn();
			assert.equal(await signIn(deps()), false);
			const [items, options] = fake.calls('window.showQuickPick')[0] as [
				Array<{ label: string; detail?: string }>,
				{ title: string },
			];
			assert.deepEqual(
				items.map((i) => [i.label, i.detail]),
				[
					[new URL(prod.baseUrl).host, 'Signed in'],
					['Staging', undefined],
					['$(add) Add Deployment…', undefined],
				],
			);
			assert.equal(options.title, 'Sign in to Cloud Agents');
			// One deployment signed in: Sign Out needs no question (and signs out of that one).
			fake.answer('window.showWarningMessage', async () => undefined);
			assert.equal(await signOut(deps()), false, 'the confirmation dismissed');
			assert.equal(fake.calls('window.showQuickPick').length, 1);
			assert.match(
				String(fake.calls('window.showWarningMessage')[0]?.[0]),
				new RegExp(`Sign out of Cloud Agents at ${new URL(prod.baseUrl).host}`),
			);
			await secrets.store(tokenKey(staging.baseUrl), STAGING_KEY);
			await stagingSession().refreshSignedIn();
			assert.equal(await signOut(deps()), false, 'the pick dismissed');
			const [outItems] = fake.calls('window.showQuickPick')[1] as [Array<{ label: string }>];
			assert.deepEqual(
				outItems.map((i) => i.label),
				[new URL(prod.baseUrl).host, 'Staging'],
			);
		});

		test('automation: a key given without a deployment is for the default one, without a question', async () => {
			assert.equal(await signIn(deps(), { apiKey: PROD_KEY }), true);
			assert.deepEqual(fake.calls('window.showQuickPick'), []);
			assert.equal(secrets.values.get(tokenKey(prod.baseUrl)), PROD_KEY);
			assert.deepEqual(staging.auth, []);
		});

		test('a deployment name no deployment has is said, nothing signed in or out', async () => {
			assert.equal(await signIn(deps(), { deployment: 'Nowhere', apiKey: STAGING_KEY }), false);
			assert.equal(await signOut(deps(), { deployment: 'Nowhere', confirm: false }), false);
			const errors = fake.calls('window.showErrorMessage').map((c) => String(c[0]));
			assert.equal(errors.length, 2);
			assert.match(errors[0]!, /No deployment named "Nowhere" is configured/);
			assert.deepEqual([...secrets.values.keys()], []);
			assert.deepEqual([prod.auth, staging.auth], [[], []]);
		});

		test('removing a deployment from the settings disposes its session; its token stays stored for when it comes back', async () => {
			await secrets.store(tokenKey(staging.baseUrl), STAGING_KEY);
			const before = stagingSession();
			await before.refreshSignedIn();
			let fired = 0;
			sessions.onDidChange(() => fired++);
			fake.changeSettings({ 'cloudAgents.deployments': [] });
			assert.equal(sessions.all.length, 1);
			assert.deepEqual(disposed, ['Staging']);
			assert.ok(fired >= 1);
			fake.changeSettings({ 'cloudAgents.deployments': [{ name: 'Staging', apiUrl: `${staging.baseUrl}/` }] });
			assert.notEqual(stagingSession(), before);
			await stagingSession().refreshSignedIn();
			assert.equal(stagingSession().signedIn, true);
			assert.equal(made.length, 2);
		});

		test('one deployment: no question, no context key, the default session as before', async () => {
			sessions.dispose();
			const contextCalls = fake.calls('commands.executeCommand').length;
			delete fake.settings['cloudAgents.deployments'];
			sessions = new DeploymentSessions(defaultSession, () => assert.fail('no other session'), log);
			assert.equal(await signIn(deps(), { apiKey: PROD_KEY }), true);
			assert.equal(secrets.values.get(tokenKey(prod.baseUrl)), PROD_KEY);
			// No deployment name or host in what is said: the message of before deployments.
			assert.deepEqual(
				fake.calls('window.showInformationMessage').map((c) => c[0]),
				['Signed in to Cloud Agents as prod@example.test.'],
			);
			assert.equal(await signIn(deps()), false);
			assert.equal(fake.calls('window.showQuickPick').length, 1);
			const [items] = fake.calls('window.showQuickPick')[0] as [Array<{ method?: string }>];
			assert.deepEqual(
				items.map((i) => i.method),
				['apiKey', 'device'],
				'straight to how, as before deployments',
			);
			assert.ok(
				!fake
					.calls('commands.executeCommand')
					.slice(contextCalls)
					.some((c) => c[1] === 'cloudAgents.severalDeployments'),
			);
		});

		test('refused entries of the setting are said once, in a warning and the log', () => {
			sessions.dispose();
			fake.settings['cloudAgents.deployments'] = [{ name: 'Plain', apiUrl: 'http://api.example.test' }];
			sessions = new DeploymentSessions(defaultSession, () => assert.fail('no other session'), log);
			sessions.reload();
			const warnings = fake.calls('window.showWarningMessage').map((c) => String(c[0]));
			assert.equal(warnings.length, 1);
			assert.match(warnings[0]!, /"Plain" is ignored: http: is refused for the non-loopback host api\.example\.test; use https:/);
			assert.deepEqual(sessions.problems.length, 1);
		});

		test('Add Deployment: name and URL checked before anything is written; then written normalised and signed in to', async () => {
			fake.settings['cloudAgents.deployments'] = [];
			sessions.reload();
			// A second entry for a listed service is refused, nothing written.
			assert.equal(await addDeployment(deps(), { name: 'Again', apiUrl: `${prod.baseUrl}/`, apiKey: PROD_KEY }), false);
			assert.match(String(fake.calls('window.showErrorMessage')[0]?.[0]), /"Again" is ignored: .* is already listed as/);
			assert.deepEqual(fake.calls('workspace.configuration.update'), []);
			// The boxes: the name's box refuses a taken name, the URL's box a URL the client would refuse.
			const checked: Array<Array<string | undefined>> = [];
			fake.answer('window.showInputBox', async (options: { validateInput: (v: string) => string | undefined }) => {
				const check = (...values: string[]): Array<string | undefined> => values.map((v) => options.validateInput(v));
				if (checked.length === 0) {
					checked.push(check(new URL(prod.baseUrl).host.toUpperCase(), 'x'.repeat(65), '', 'Staging'));
					return ' Staging ';
				}
				checked.push(check('http://api.example.test', `${prod.baseUrl}/x`, 'https://api.example.test'));
				return `${staging.baseUrl}//`;
			});
			assert.equal(await addDeployment(deps(), { apiKey: STAGING_KEY }), true);
			assert.deepEqual(checked[0], ['Another deployment has this name.', 'A name of 1 to 64 characters.', undefined, undefined]);
			assert.match(checked[1]?.[0] ?? '', /http: is refused for the non-loopback host/);
			assert.match(checked[1]?.[1] ?? '', /has the origin of/);
			assert.equal(checked[1]?.[2], undefined);
			assert.deepEqual(fake.calls('workspace.configuration.update')[0]?.slice(0, 2), [
				'deployments',
				[{ name: 'Staging', apiUrl: staging.baseUrl }],
			]);
			assert.equal(secrets.values.get(tokenKey(staging.baseUrl)), STAGING_KEY);
			assert.equal(stagingSession().signedIn, true);
			assert.deepEqual(prod.auth, []);
		});
	});
}
