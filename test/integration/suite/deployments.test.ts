/**
 * Several deployments (issue 47) in a real extension host: the default one is the emulator (signed
 * in with the dev token, as every suite starts), "Staging" is a hostile test server that records
 * every request with the token it carried. Signing in and out of Staging through the commands never
 * touches the default deployment's token, and no request of either reaches the other; an address of
 * a deployment that is not configured fails with an error naming it. Staging also answers the
 * workspace endpoints for the emulator's billing agent (the same agent id on both services): each
 * address is read from its own service. The views show each signed-in deployment under a root row
 * (Staging lists one agent whose id is an agent of the emulator's), a row's action goes to its own
 * deployment, and with one deployment signed in the rows are as they were. A chat tool's agent
 * found on Staging only is read there (an id both have asks which), and a Source Control link of
 * Staging's agent compares with Staging's files. The suite restores
 * `cloudAgents.deployments`, the dev token and the editors after each test.
 */
import * as assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { ComparisonAnswer } from '../../../src/changes/changesFeature';
import { deploymentId } from '../../../src/auth/deployments';
import { AUTH_PROVIDER_ID } from '../../../src/ids';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { workspaceAddressOf, workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import type { RowSnapshot } from '../../../src/testing';
import { runStoreRoot } from '../../../src/shell/deploymentFollowers';
import { RunEventStore } from '../../../src/runFollowing/runStore';
import { AGENT_ID, RUNTIME_ID, TOKEN, agent, run } from '../../hostile/fixtures';
import { type HostileServer, type RouteHandler, json, sseFrame, sseStart, startHostile } from '../../hostile/server';
import { workspaceRoutes } from '../../unit/workspace/fs/hostileWorkspace';
import { createIdleAgent, emu, messagesShown, releaseRun, restoreDevToken, startAgentRun, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { devToken } from '../support/env';

const STAGING = 'Staging';
/** What Staging's copy of the agent's README.md says (the emulator's says something else). */
const STAGING_README = '# Staging: the billing agent of the second deployment\n';
const MTIME = 1_760_000_000_000;

/** The routes of a second deployment: who the key is (its own only), its revocation, and one workspace (README.md and notes/). */
const stagingRoutes: Record<string, RouteHandler> = {
	'GET /v2/me': (req, res) =>
		req.token === TOKEN ? json(res, 200, { id: 'user_staging', email: 'staging@example.invalid' }) : json(res, 401, {}),
	'DELETE /v2/auth/token': (_req, res) => {
		res.writeHead(204).end();
	},
	...workspaceRoutes({
		list: (path) =>
			path === ''
				? [
						{ name: 'README.md', type: 'file', size: Buffer.byteLength(STAGING_README), mtime_unix_ms: MTIME },
						{ name: 'notes', type: 'directory', size: 0, mtime_unix_ms: MTIME },
					]
				: path === 'notes'
					? [{ name: 'staging.txt', type: 'file', size: 3, mtime_unix_ms: MTIME }]
					: undefined,
		file: (path) =>
			path === 'README.md'
				? { content: Buffer.from(STAGING_README), mtime: MTIME }
				: path === 'notes/staging.txt'
					? { content: Buffer.from('s3\n'), mtime: MTIME }
					: undefined,
	}),
};

/** A view's rows as the seam draws them: the top rows, or those under the row `parentRowId`. */
const rows = async (key: string, parentRowId?: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key, parentRowId)) ?? [];
/** What a row is, without what moves with the clock (relative times in descriptions and tooltips). */
const shapeOf = (list: readonly RowSnapshot[]): string[] => list.map((r) => `${r.id ?? ''} ${r.label} ${r.contextValue ?? ''}`);

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
	/** The id of the agent Staging lists: set by a test to an agent of the emulator's (the same id on both services). */
	let twinId = AGENT_ID;
	/** The runtimes Staging lists (none unless a test sets them). */
	let stagingRuntimes: unknown[] = [];
	/** Signs in to Staging (configured first) and waits until the Agents view shows a root row per deployment. */
	const signInToStaging = async (): Promise<RowSnapshot[]> => {
		await setDeployments([{ name: STAGING, apiUrl: server.baseUrl }]);
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { deployment: STAGING, apiKey: TOKEN }), true);
		return waitFor('a root row per deployment', async () => {
			const top = await rows('agents');
			return top.length === 2 && top.every((r) => r.contextValue === 'deployment') ? top : undefined;
		});
	};

	suiteSetup(async () => {
		api = await testApi();
		server = await startHostile({
			description: 'a second deployment that accepts the hostile token only',
			routes: {
				...stagingRoutes,
				// What the Agents view reads, and what Rename sends.
				'GET /v2/agents': (req, res) =>
					req.token === TOKEN ? json(res, 200, { agents: [agent({ id: twinId, name: 'Staging twin' })] }) : json(res, 401, {}),
				// What the Runtimes view reads, and List VNC Credentials (none).
				'GET /v2/runtimes': (req, res) =>
					req.token === TOKEN
						? json(res, 200, { data: stagingRuntimes, pagination: { next_cursor: null, has_more: false } })
						: json(res, 401, {}),
				'GET /v2/runtimes/*/vnc-credentials': (req, res) =>
					req.token === TOKEN ? json(res, 200, { data: [] }) : json(res, 401, {}),
				// What a comparison reads of the agent's runs (none here), and what an action on Staging's agent by id reads first.
				'GET /v2/agents/*/runs': (req, res) =>
					req.token === TOKEN ? json(res, 200, { runs: [run({ status: 'succeeded' })] }) : json(res, 401, {}),
				'GET /v2/agents/*': (req, res) =>
					req.token === TOKEN ? json(res, 200, agent({ id: twinId, name: 'Staging twin' })) : json(res, 401, {}),
				// A run of Staging's, followed (issue 47): one that ends after three events, or (an id with "held") one that never ends.
				'GET /v2/agents/*/runs/*': (req, res) =>
					req.token === TOKEN
						? json(
								res,
								200,
								run({ id: req.path.split('/').pop(), agent_id: twinId, status: 'running', prompt: 'Staging work' }),
							)
						: json(res, 401, {}),
				'GET /v2/agents/*/runs/*/events': (req, res) => {
					if (req.token !== TOKEN) {
						json(res, 401, {});
						return;
					}
					const write = sseStart(res);
					write(sseFrame(1, 'run.status', { status: 'running' }));
					if (req.path.includes('held')) {
						return; // Open until the client lets go.
					}
					write(sseFrame(2, 'log', { message: 'working at Staging' }));
					write(sseFrame(3, 'run.completed', { status: 'succeeded' }));
					res.end();
				},
				'PATCH /v2/agents/*': (req, res, ctx) =>
					req.token === TOKEN
						? json(res, 200, agent({ id: twinId, name: (ctx.json() as { name?: string } | undefined)?.name ?? 'Staging twin' }))
						: json(res, 401, {}),
			},
		});
	});

	teardown(async () => {
		// Its token goes with it (the secret storage keeps a removed deployment's token for its return).
		const listed = vscode.workspace.getConfiguration('cloudAgents').get<Array<{ name?: unknown }>>('deployments') ?? [];
		if (listed.some((d) => d.name === STAGING)) {
			await vscode.commands.executeCommand('cloudAgents.signOut', { deployment: STAGING, confirm: false });
		}
		await closeAllEditors();
		await setDeployments(undefined);
		await restoreDevToken();
		await vscode.commands.executeCommand('notifications.clearAll');
	});

	/** The emulator's billing agent (the demo seed's): Staging answers for the same id. */
	const billingAgentId = async (): Promise<string> => {
		const agents = await api.session.client.listAgents({ limit: 100 });
		const billing = agents.items.find((a) => a.name === 'Refactor billing module') ?? agents.items[0];
		assert.ok(billing, 'the emulator lists an agent');
		return billing.id;
	};
	/** Staging configured (and signed in with its own key when `signIn`); its deployment part. */
	const useStaging = async (signIn: boolean): Promise<string> => {
		await setDeployments([{ name: STAGING, apiUrl: server.baseUrl }]);
		if (signIn) {
			assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { deployment: STAGING, apiKey: TOKEN }), true);
		}
		const staging = api.features.load().deployments.find(STAGING);
		assert.ok(staging);
		return staging.deployment.id;
	};
	const workspaceRequests = (): Array<{ path: string; token: string | undefined }> =>
		server.requests.filter((r) => r.path.includes('/workspace')).map((r) => ({ path: r.path, token: r.token }));
	const text = (b: Uint8Array): string => new TextDecoder().decode(b);

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
		// The Agents view lists Staging's agents while it is signed in (when VS Code shows the view), the
		// Accounts menu reads who is signed in there and Activity reads its lists, each with its key (issue 47):
		// not the sign-out's. Nothing else, and nothing without its key.
		assert.deepEqual(
			server.requests
				.filter((r) => `${r.method} ${r.path}` !== 'GET /v2/agents' && !(r.method === 'GET' && r.token === TOKEN))
				.map((r) => [`${r.method} ${r.path}`, r.token]),
			[['DELETE /v2/auth/token', TOKEN]],
		);
		assert.equal(api.session.signedIn, true);
		assert.equal(await api.session.getToken(), devToken());
		// Signed out there: a sign-in to it asks for a key again (the old one is gone).
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { deployment: STAGING, confirm: false }), true);
		assert.equal(server.requests.filter((r) => r.method !== 'GET').length, 1, 'nothing more was sent: no token was left to revoke');
	});

	test('views with one deployment signed in: the rows as they were, no root row and no deployment name in any row', async () => {
		const before = await rows('agents');
		assert.ok(before.length > 0, 'the emulator lists agents');
		await setDeployments([{ name: STAGING, apiUrl: server.baseUrl }]);
		const defaultName = api.features.load().deployments.all[0]!.deployment.name;
		for (const key of ['agents', 'runtimes']) {
			const shown = await rows(key);
			const text = JSON.stringify(shown);
			assert.ok(!shown.some((r) => r.contextValue === 'deployment' || /^deployment:/.test(r.id ?? '')), `${key}: no root row`);
			for (const name of [STAGING, defaultName]) {
				assert.ok(!text.includes(name), `${key}: ${name} appears in ${text}`);
			}
		}
		assert.deepEqual(shapeOf(await rows('agents')), shapeOf(before), 'the same rows with the same ids');
	});

	test('two deployments signed in: a root row each with its own agents (the same agent id twice, distinctly); an action on a row of the second goes to the second service only; signing out of it restores the rows as they were', async () => {
		const single = await rows('agents');
		const first = single.find((r) => r.contextValue?.startsWith('agent:') === true && r.id?.startsWith('agent/') === true);
		assert.ok(first?.id, 'the emulator lists an agent');
		twinId = first.id.slice('agent/'.length);
		const roots = await signInToStaging();
		const [main, staging] = api.features.load().deployments.all;
		assert.deepEqual(
			roots.map((r) => [r.id, r.label]),
			[
				[`deployment:${main!.deployment.id}`, main!.deployment.name],
				[`deployment:${api.features.load().deployments.find(STAGING)!.deployment.id}`, STAGING],
			],
		);
		assert.equal(staging?.deployment.name, STAGING);
		assert.equal(roots[1]!.description, new URL(server.baseUrl).host);
		const mainRows = await rows('agents', roots[0]!.id);
		const stagingRows = await rows('agents', roots[1]!.id);
		assert.deepEqual(shapeOf(mainRows), shapeOf(single), "the default deployment's rows as they were, under its root row");
		const twin = stagingRows.find((r) => r.label === 'Staging twin');
		assert.equal(twin?.id, `${staging.deployment.id}:agent/${twinId}`, 'the same agent id on the second service: another row');
		const ids = [...roots, ...mainRows, ...stagingRows].map((r) => r.id);
		assert.equal(new Set(ids).size, ids.length, 'no row id twice');
		// Rename from the second deployment's row: sent there, with its token; the emulator's agent keeps its name.
		server.requests.length = 0;
		const emulatorName = async (): Promise<unknown> =>
			(await emu<{ name?: string }>('GET', `/v2/agents/${encodeURIComponent(twinId)}`, undefined, devToken())).body.name;
		const nameBefore = await emulatorName();
		await vscode.commands.executeCommand(
			'_cloudAgents.views.runOnRow',
			'agents',
			twin.id,
			'cloudAgents.agents.rename',
			{ name: 'Renamed at Staging' },
			roots[1]!.id,
		);
		const patches = server.requestsTo('PATCH /v2/agents/*');
		assert.deepEqual(
			patches.map((r) => [r.path, r.token, r.body.toString()]),
			[[`/v2/agents/${twinId}`, TOKEN, JSON.stringify({ name: 'Renamed at Staging' })]],
		);
		assert.equal(await emulatorName(), nameBefore, "the emulator's agent of the same id was not renamed");
		assert.ok(!tokensSeen().includes(devToken()), "the default deployment's token never reached the second service");
		// Signing out of the second deployment: its root row goes, the default deployment's rows are shown alone again.
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { deployment: STAGING, confirm: false }), true);
		const after = await waitFor('the rows of one deployment', async () => {
			const top = await rows('agents');
			return top.length > 0 && top.every((r) => r.contextValue !== 'deployment') ? top : undefined;
		});
		assert.deepEqual(shapeOf(after), shapeOf(single));
	});

	test("record tabs, notifications and agent folders name their deployment with two configured (the default one's too), and none with one", async () => {
		const runtimes = (await emu<{ data: Array<Record<string, unknown>> }>('GET', '/v2/runtimes?limit=100', undefined, devToken())).body
			.data;
		// One that stays: a runtime an earlier suite left deleting is gone by the time its details are read.
		const runtime = runtimes.find((r) => r.status !== 'deleting');
		assert.ok(runtime, 'the emulator lists a runtime that is not being deleted');
		const name = String(runtime.display_name);
		const activeTab = (): string | undefined => vscode.window.tabGroups.activeTabGroup.activeTab?.label;
		const showDetails = async (): Promise<vscode.TextDocument | undefined> =>
			vscode.commands.executeCommand<vscode.TextDocument | undefined>('cloudAgents.runtimes.showDetails', {
				automation: true,
				runtimeId: runtime.id,
			});
		// One deployment: the tab is titled as it always was, nothing names a deployment.
		const defaultName = api.features.load().deployments.all[0]!.deployment.name;
		const alone = await showDetails();
		assert.equal(alone?.uri.path, `/Runtime ${name}`);
		await waitFor('the tab of the record', async () => (activeTab() === `Runtime ${name}` ? true : undefined));
		await closeAllEditors();
		// Staging beside it, signed in, listing a runtime of its own.
		stagingRuntimes = [{ ...runtime, id: RUNTIME_ID, display_name: 'Staging runtime', vnc_enabled: true }];
		try {
			const roots = await signInToStaging();
			const named = await showDetails();
			assert.equal(named?.uri.path, `/Runtime ${name} (${defaultName})`, "the default deployment's record names it");
			await waitFor('the named tab', async () => (activeTab() === `Runtime ${name} (${defaultName})` ? true : undefined));
			const stagingRoot = roots[1]!.id!;
			const stagingRow = await waitFor("Staging's runtime row", async () =>
				(await rows('runtimes', stagingRoot)).find((r) => r.label === 'Staging runtime'),
			);
			await vscode.commands.executeCommand(
				'_cloudAgents.views.runOnRow',
				'runtimes',
				stagingRow.id,
				'cloudAgents.runtimes.showDetails',
				{},
				stagingRoot,
			);
			await waitFor("Staging's record tab", async () => (activeTab() === 'Runtime Staging runtime (Staging)' ? true : undefined));
			// A notification of an action on Staging's row says it is Staging's.
			await vscode.commands.executeCommand(
				'_cloudAgents.views.runOnRow',
				'runtimes',
				stagingRow.id,
				'cloudAgents.runtimes.listVncCredentials',
				{},
				stagingRoot,
			);
			assert.deepEqual(await messagesShown('information', /has no VNC credentials/), [
				'Staging: The runtime Staging runtime has no VNC credentials.',
			]);
			// Its agent's workspace folder is named with it (in a multi-root window: adding a folder to another reloads it).
			if (vscode.workspace.workspaceFile !== undefined) {
				const before = vscode.workspace.workspaceFolders?.length ?? 0;
				const changed = new Promise<void>((resolve) => {
					const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
						sub.dispose();
						resolve();
					});
				});
				await vscode.commands.executeCommand('cloudAgents.agents.openWorkspace', {
					automation: true,
					agentId: twinId,
					name: 'Staging twin',
					mode: 'add',
					deployment: STAGING,
				});
				await changed;
				try {
					assert.equal(vscode.workspace.workspaceFolders?.[before]?.name, 'Agent: Staging twin (Staging)');
				} finally {
					vscode.workspace.updateWorkspaceFolders(before, 1);
				}
			}
		} finally {
			stagingRuntimes = [];
		}
	});

	test("the Account view and the Accounts menu: each signed-in deployment's account apart, labelled with its deployment; with one, as before", async () => {
		const accounts = async (): Promise<string[]> => (await vscode.authentication.getAccounts(AUTH_PROVIDER_ID)).map((a) => a.label);
		const alone = await accounts();
		assert.equal(alone.length, 1, JSON.stringify(alone));
		const groupsAlone = shapeOf(await rows('account'));
		assert.ok(groupsAlone.length > 0 && groupsAlone.every((r) => r.startsWith('account/')), JSON.stringify(groupsAlone));
		const roots = await signInToStaging();
		const defaultName = api.features.load().deployments.all[0]!.deployment.name;
		// The Accounts menu: a session per deployment, each named, so each signs out on its own.
		const both = await waitFor('an account per deployment in the Accounts menu', async () => {
			const labels = await accounts();
			return labels.length === 2 ? labels : undefined;
		});
		assert.deepEqual(both, [`${alone[0]!} (${defaultName})`, 'staging@example.invalid (Staging)']);
		// The Account view: a root row per deployment, each with its groups under it.
		const accountRoots = await waitFor('a root row per deployment in the Account view', async () => {
			const top = await rows('account');
			return top.length === 2 && top.every((r) => r.contextValue === 'deployment') ? top : undefined;
		});
		assert.deepEqual(
			accountRoots.map((r) => r.id),
			roots.map((r) => r.id),
		);
		assert.deepEqual(shapeOf(await rows('account', accountRoots[0]!.id)), groupsAlone, "the default deployment's groups as they were");
		const stagingId = api.features.load().deployments.find(STAGING)!.deployment.id;
		assert.deepEqual(
			shapeOf(await rows('account', accountRoots[1]!.id)),
			groupsAlone.map((r) => `${stagingId}:${r}`),
			"Staging's groups, its own",
		);
		// Signed out of Staging: its account leaves the menu and its root row the view; the other deployment's stays.
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { deployment: STAGING, confirm: false }), true);
		await waitFor("Staging's account gone from the Accounts menu", async () =>
			JSON.stringify(await accounts()) === JSON.stringify([both[0]]) ? true : undefined,
		);
		await waitFor('the groups of one deployment', async () =>
			JSON.stringify(shapeOf(await rows('account'))) === JSON.stringify(groupsAlone) ? true : undefined,
		);
		// One deployment configured again: the label is who is signed in, as before.
		await setDeployments(undefined);
		await waitFor('the label without a deployment name', async () =>
			JSON.stringify(await accounts()) === JSON.stringify(alone) ? true : undefined,
		);
	});

	test("a run of Staging followed from its row: its channel, status bar and end notice name Staging, its events are kept apart, the default deployment's follower never hears of it; signing out of Staging stops its follows only", async () => {
		const agentId = await createIdleAgent('deployments-follow');
		twinId = agentId;
		const roots = await signInToStaging();
		const [home, staging] = api.features.load().deployments.all.map((d) => d.deployment);
		assert.equal(staging?.name, STAGING);
		// The default deployment follows a run of the same agent id on the emulator meanwhile, named after it (two are configured).
		const homeRun = await startAgentRun(agentId, 'the default deployment’s run [[hold]]');
		try {
			await api.runFollower.follow(agentId, homeRun.id, { agentName: 'Home twin', prompt: 'Home work', reveal: false });
			const twin = (await rows('agents', roots[1]!.id)).find((r) => r.label === 'Staging twin');
			assert.ok(twin?.id, "Staging's agent row");
			const follow = (runId: string, prompt: string): Thenable<unknown> =>
				vscode.commands.executeCommand(
					'_cloudAgents.views.runOnRow',
					'agents',
					twin.id,
					'cloudAgents.runs.follow',
					{ agentId, runId, agentName: 'Staging twin', prompt },
					roots[1]!.id,
				);
			// Unique per run of the suite: an announced end is remembered in the profile.
			const endsRun = `run_staging${Date.now()}`;
			server.requests.length = 0;
			await follow(endsRun, 'Staging work');
			const notice = await waitFor('Staging’s end notice', async () => (await messagesShown('information', /Staging work/))[0]);
			assert.equal(notice, 'Staging twin: Staging work (Staging) — succeeded.');
			const channels = api.recorder.outputChannels();
			assert.ok(channels.includes('Cloud Agents: Staging twin: Staging work (Staging)'), channels.join(', '));
			assert.ok(channels.includes(`Cloud Agents: Home twin: Home work (${home!.name})`), channels.join(', '));
			assert.match(api.recorder.statusBarItem(`cloudAgents.followedRun.${staging.id}`)?.text ?? '', /Staging work \(Staging\)/);
			// Its events in Staging's own store, none in the default deployment's, which never heard of the run.
			const stored = await new RunEventStore(runStoreRoot(api.globalStorageUri, staging)).read(agentId, endsRun);
			assert.deepEqual(
				stored.map((e) => e.seq),
				[1, 2, 3],
			);
			assert.deepEqual(await api.runStore.read(agentId, endsRun), []);
			assert.equal(api.runFollower.stateOf(agentId, endsRun), undefined);
			const streams = server.requestsTo('GET /v2/agents/*/runs/*/events');
			assert.ok(streams.length > 0 && streams.every((r) => r.token === TOKEN), 'streamed from Staging with its own token');
			assert.ok(!tokensSeen().includes(devToken()), "the default deployment's token never reached Staging");
			// A run of Staging that goes on; then signing out of Staging stops it, and only it.
			const heldRun = `run_staging_held${Date.now()}`;
			await follow(heldRun, 'Staging held');
			const heldChannel = 'Cloud Agents: Staging twin: Staging held (Staging)';
			await waitFor('Staging’s held run followed', async () =>
				api.recorder.outputChannels().includes(heldChannel) ? true : undefined,
			);
			assert.equal(
				await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { deployment: STAGING, confirm: false }),
				true,
			);
			await waitFor('Staging’s follows to stop', async () =>
				api.recorder.outputChannels().includes(heldChannel) ? undefined : true,
			);
			assert.deepEqual(
				api.runFollower.following.map((f) => f.runId),
				[homeRun.id],
				'the default deployment still follows its run',
			);
			await releaseRun(homeRun.id);
			const homeNotice = await waitFor(
				'the default deployment’s end notice',
				async () => (await messagesShown('information', /Home work/))[0],
			);
			assert.equal(homeNotice, `Home twin: Home work (${home!.name}) — succeeded.`);
		} finally {
			await releaseRun(homeRun.id).catch(() => undefined);
			await api.runFollower.forget(agentId);
		}
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

	test('the same agent id on the default deployment and on Staging: two folders, each read from its own service with its own token', async () => {
		const agentId = await billingAgentId();
		const part = await useStaging(true);
		server.requests.length = 0;
		const onStaging = workspaceUri(agentId, '', part);
		const onDefault = workspaceUri(agentId);
		assert.notEqual(onStaging.toString(), onDefault.toString());
		assert.equal(text(await vscode.workspace.fs.readFile(workspaceUri(agentId, 'README.md', part))), STAGING_README);
		const fromEmulator = text(await vscode.workspace.fs.readFile(workspaceUri(agentId, 'README.md')));
		assert.ok(fromEmulator.length > 0 && fromEmulator !== STAGING_README, 'the default deployment reads the emulator');
		const stagingNames = (await vscode.workspace.fs.readDirectory(onStaging)).map(([name]) => name).sort();
		assert.deepEqual(stagingNames, ['README.md', 'notes']);
		const defaultNames = (await vscode.workspace.fs.readDirectory(onDefault)).map(([name]) => name).sort();
		assert.notDeepEqual(defaultNames, stagingNames, "the default deployment's folder is the emulator's");
		await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(workspaceUri(agentId, 'notes/staging.txt'))), vscode.FileSystemError);
		// Staging was asked for this agent, with its own key only; the dev token never reached it.
		const asked = workspaceRequests();
		assert.ok(asked.length >= 2, JSON.stringify(asked.map((r) => r.path)));
		for (const request of asked) {
			assert.equal(request.path.startsWith(`/v2/agents/${agentId}/workspace`), true, request.path);
			assert.equal(request.token, TOKEN);
		}
		assert.ok(!tokensSeen().includes(devToken()));
	});

	test("Go to File names a deployment: the file opens at Staging's address, with Staging's content", async () => {
		const agentId = await billingAgentId();
		const part = await useStaging(true);
		const files = await vscode.commands.executeCommand<string[]>('cloudAgents.workspace.goToFile', {
			automation: true,
			agentId,
			path: 'notes/staging.txt',
			deployment: STAGING,
		});
		assert.deepEqual([...files].sort(), ['README.md', 'notes/staging.txt']);
		const editor = vscode.window.activeTextEditor;
		assert.ok(editor);
		assert.deepEqual(workspaceAddressOf(editor.document.uri), { agentId, deploymentPart: part });
		assert.equal(editor.document.getText(), 's3\n');
	});

	test("chat tools: an agent only Staging has is read there with Staging's key; an id both have asks which and sends nothing; `deployment` picks", async () => {
		const agentId = await billingAgentId();
		// Staging lists the emulator's billing agent's id, as "Staging twin".
		twinId = agentId;
		await useStaging(true);
		server.requests.length = 0;
		const invoke = async (name: string, input: object): Promise<string> => {
			const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
			return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
		};
		const onlyThere = await invoke('cloudAgents_readFile', { agent: 'Staging twin', path: 'README.md' });
		assert.ok(onlyThere.includes(STAGING_README.trim()), onlyThere);
		assert.match(onlyThere, /"deployment": "Staging"/);
		assert.ok(workspaceRequests().length > 0, 'read at Staging');
		const both = await invoke('cloudAgents_runPrompt', { agent: agentId, prompt: 'which one?' });
		assert.match(both, /is in several deployments/, both);
		assert.ok(!server.requests.some((r) => r.method === 'POST' && r.path.includes('/runs')), 'no prompt sent to Staging');
		const picked = await invoke('cloudAgents_readFile', { agent: agentId, deployment: STAGING, path: 'README.md' });
		assert.ok(picked.includes(STAGING_README.trim()), picked);
		assert.deepEqual(new Set(tokensSeen()), new Set([TOKEN]), "only Staging's key reached Staging");
	});

	test("Source Control: Compare with Local Folder naming Staging links Staging's agent; the link compares with Staging's workspace, with Staging's key only", async () => {
		const agentId = await billingAgentId();
		twinId = agentId;
		await useStaging(true);
		server.requests.length = 0;
		const local = await mkdtemp(join(tmpdir(), 'ca-deployments-link-'));
		const answer = await vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.compareWithLocal', {
			automation: true,
			agentId,
			deployment: STAGING,
			localFolder: local,
		});
		try {
			assert.equal(answer.error, undefined, answer.error);
			// Its folders were listed at Staging (the emulator's agent of that id has other files).
			assert.ok((answer.stats?.foldersListed ?? 0) > 0, JSON.stringify(answer.stats));
			assert.ok(workspaceRequests().length > 0, "compared with Staging's workspace");
			assert.deepEqual(new Set(tokensSeen()), new Set([TOKEN]), "only Staging's key reached Staging");
		} finally {
			if (answer.link) {
				await vscode.commands.executeCommand('cloudAgents.changes.unlink', { automation: true, link: answer.link });
			}
			await rm(local, { recursive: true, force: true });
		}
	});

	test('a configured deployment that is signed out fails as the default does when signed out; nothing is asked of it', async () => {
		const agentId = await billingAgentId();
		const part = await useStaging(false);
		server.requests.length = 0;
		await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(workspaceUri(agentId, 'README.md', part))), (err: unknown) => {
			assert.ok(err instanceof vscode.FileSystemError, String(err));
			assert.match(err.message, /Signed out/);
			return true;
		});
		assert.deepEqual(workspaceRequests(), []);
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
