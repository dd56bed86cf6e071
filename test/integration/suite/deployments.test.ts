/**
 * Several deployments (issue 47) in a real extension host: the default one is the emulator (signed
 * in with the dev token, as every suite starts), "Staging" is a hostile test server that records
 * every request with the token it carried. Signing in and out of Staging through the commands never
 * touches the default deployment's token, and no request of either reaches the other; an address of
 * a deployment that is not configured fails with an error naming it. The suite restores
 * `cloudAgents.deployments` and the dev token after each test.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { deploymentId } from '../../../src/auth/deployments';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { AGENT_ID, TOKEN } from '../../hostile/fixtures';
import { type HostileServer, json, startHostile } from '../../hostile/server';
import { restoreDevToken, testApi, waitFor } from '../support/cloudAgents';
import { devToken } from '../support/env';

const STAGING = 'Staging';

suite('Deployments: a second service beside the default one', () => {
	let api: CloudAgentsTestApi;
	let server: HostileServer;

	/** Writes the setting and waits until the deployments' sessions (with the features) have read it. */
	const setDeployments = async (value: Array<{ name: string; apiUrl: string }> | undefined): Promise<void> => {
		await vscode.workspace.getConfiguration('cloudAgents').update('deployments', value, vscode.ConfigurationTarget.Global);
		const names = JSON.stringify((value ?? []).map((d) => d.name));
		await waitFor('the deployments to be read', async () => {
			const listed = api.features.load().deployments.all.filter((d) => !d.deployment.isDefault);
			return JSON.stringify(listed.map((d) => d.deployment.name)) === names ? true : undefined;
		});
	};
	const tokensSeen = (): Array<string | undefined> => server.requests.map((r) => r.token);

	suiteSetup(async () => {
		api = await testApi();
		server = await startHostile({
			description: 'a second deployment that accepts the hostile token only',
			routes: {
				'GET /v2/me': (req, res) =>
					req.token === TOKEN ? json(res, 200, { id: 'user_staging', email: 'staging@example.invalid' }) : json(res, 401, {}),
				'DELETE /v2/auth/token': (_req, res) => {
					res.writeHead(204).end();
				},
			},
		});
	});

	teardown(async () => {
		// Its token goes with it (the secret storage keeps a removed deployment's token for its return).
		const listed = vscode.workspace.getConfiguration('cloudAgents').get<Array<{ name?: unknown }>>('deployments') ?? [];
		if (listed.some((d) => d.name === STAGING)) {
			await vscode.commands.executeCommand('cloudAgents.signOut', { deployment: STAGING, confirm: false });
		}
		await setDeployments(undefined);
		await restoreDevToken();
		await vscode.commands.executeCommand('notifications.clearAll');
	});

	suiteTeardown(async () => {
		await server.close();
	});

	test('Add Deployment writes the entry normalised and signs in to it; the default deployment keeps its token, and neither token reaches the other service', async () => {
		server.requests.length = 0;
		const added = await vscode.commands.executeCommand<boolean>('cloudAgents.addDeployment', {
			name: STAGING,
			apiUrl: `${server.baseUrl}/`,
			apiKey: TOKEN,
		});
		assert.equal(added, true);
		assert.deepEqual(vscode.workspace.getConfiguration('cloudAgents').get('deployments'), [{ name: STAGING, apiUrl: server.baseUrl }]);
		assert.ok(server.requestsTo('GET /v2/me').length >= 1, 'the key was checked at the second deployment');
		assert.deepEqual(new Set(tokensSeen()), new Set([TOKEN]), 'only its own key reached the second deployment');
		// The default deployment: still signed in with the dev token, and its requests still go to the emulator.
		assert.equal(api.session.signedIn, true);
		assert.equal(await api.session.getToken(), devToken());
		assert.ok(await api.session.client.getMe());
		assert.ok(!tokensSeen().includes(devToken()));
		assert.ok(!JSON.stringify(vscode.workspace.getConfiguration('cloudAgents')).includes(TOKEN), 'no token in the settings');
	});

	test('Sign Out of one deployment revokes its token there and leaves the default deployment signed in', async () => {
		await setDeployments([{ name: STAGING, apiUrl: server.baseUrl }]);
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { deployment: STAGING, apiKey: TOKEN }), true);
		server.requests.length = 0;
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { deployment: STAGING, confirm: false }), true);
		assert.deepEqual(
			server.requests.map((r) => [`${r.method} ${r.path}`, r.token]),
			[['DELETE /v2/auth/token', TOKEN]],
		);
		assert.equal(api.session.signedIn, true);
		assert.equal(await api.session.getToken(), devToken());
		// Signed out there: a sign-in to it asks for a key again (the old one is gone).
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { deployment: STAGING, confirm: false }), true);
		assert.equal(server.requests.length, 1, 'nothing more was sent: no token was left to revoke');
	});

	test('a second entry for the default deployment is refused before anything is sent or written', async () => {
		const before = vscode.workspace.getConfiguration('cloudAgents').inspect('deployments')?.globalValue;
		const added = await vscode.commands.executeCommand<boolean>('cloudAgents.addDeployment', {
			name: 'Again',
			apiUrl: api.session.apiUrl,
			apiKey: devToken(),
		});
		assert.equal(added, false);
		assert.deepEqual(vscode.workspace.getConfiguration('cloudAgents').inspect('deployments')?.globalValue, before);
	});

	test('an address of a deployment that is not configured fails with an error naming it; nothing is asked of any service', async () => {
		server.requests.length = 0;
		const gone = deploymentId('https://gone.example.invalid');
		const uri = workspaceUri(AGENT_ID, 'README.md', gone);
		await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(uri)), (err: unknown) => {
			assert.ok(err instanceof vscode.FileSystemError, String(err));
			assert.match(err.message, new RegExp(`${gone}, which is no longer configured`));
			return true;
		});
		assert.deepEqual(server.requests, []);
	});
});
