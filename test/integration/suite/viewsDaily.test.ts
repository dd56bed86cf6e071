import * as assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as vscode from 'vscode';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { EXTENSION_ID } from '../../../src/ids';
import { GITHUB_API_URL_ENV } from '../../../src/testing';
import type { RowSnapshot } from '../../../src/testing';
import { emu, restoreDevToken, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { devToken } from '../support/env';

/**
 * The daily journeys of issue 12 in the views: status that follows our own actions, a default
 * action on every row, editor tabs that name the thing, rows that fit the default sidebar width.
 */

type ViewKey = 'agents' | 'runs' | 'runtimes' | 'artifacts';

interface AgentBody {
	id: string;
	name: string;
	status: string;
	runtime_id?: string;
	repositories?: Array<{ repository_id: number; branch: string }>;
}
interface RunBody {
	id: string;
	agent_id?: string;
	status: string;
	prompt?: string;
	result?: string;
}
interface RuntimeBody {
	id: string;
	display_name: string;
	status: string;
	desired_status?: string;
}
interface State {
	agents: AgentBody[];
	runs: RunBody[];
	runtimes: RuntimeBody[];
}

const enc = encodeURIComponent;
const rows = async (key: ViewKey): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key)) ?? [];
const click = <T>(key: ViewKey, rowId: string): Thenable<T> => vscode.commands.executeCommand<T>('_cloudAgents.views.click', key, rowId);
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const activeTabLabel = (): string | undefined => vscode.window.tabGroups.activeTabGroup.activeTab?.label;

async function createIdleAgent(name: string): Promise<AgentBody> {
	const created = await emu<AgentBody>('POST', '/v2/agents', { name }, devToken());
	assert.equal(created.status, 201, JSON.stringify(created.body));
	await waitFor(`agent ${name} to become idle`, async () =>
		(await state()).agents.find((a) => a.id === created.body.id)?.status === 'idle' ? true : undefined,
	);
	return created.body;
}

async function startRun(agentId: string, prompt: string): Promise<RunBody> {
	const res = await emu<RunBody>('POST', `/v2/agents/${enc(agentId)}/runs`, { prompt }, devToken());
	assert.equal(res.status, 202, JSON.stringify(res.body));
	return res.body;
}

async function waitForRunStatus(runId: string, statuses: string[]): Promise<RunBody> {
	return waitFor(
		`run ${runId} to be ${statuses.join(' or ')}`,
		async () => {
			const r = (await state()).runs.find((x) => x.id === runId);
			return r && statuses.includes(r.status) ? r : undefined;
		},
		20_000,
	);
}

/** The row of the Agents view for an agent, read as the view has it (no refresh). */
async function agentRow(agentId: string): Promise<RowSnapshot | undefined> {
	return (await rows('agents')).find((r) => r.id === `agent/${agentId}`);
}

suite('Views for daily use', () => {
	let api: CloudAgentsTestApi;
	const created: string[] = [];

	suiteSetup(async function () {
		this.timeout(30_000);
		api = await testApi();
		await restoreDevToken();
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
	});

	suiteTeardown(async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		await closeAllEditors();
		for (const id of created) {
			await emu('DELETE', `/v2/agents/${enc(id)}?delete_runtime=true`, undefined, devToken());
		}
	});

	test("the agent's row says running right after Send Prompt, without a manual refresh", async function () {
		this.timeout(60_000);
		const agent = await createIdleAgent(`daily-status-${Date.now()}`);
		created.push(agent.id);
		await vscode.commands.executeCommand('workbench.view.explorer');
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		assert.match((await agentRow(agent.id))?.description ?? '', /^idle/, 'the new agent is idle before the prompt');

		const run = await vscode.commands.executeCommand<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
			automation: true,
			agentId: agent.id,
			prompt: 'Stay busy [[hold]]',
		});
		assert.ok(run?.id, 'the prompt was sent');
		// At once: well before the automatic refresh's first tick (2 s after the view is shown, which
		// Send Prompt's reveal of the agent does), so only the refresh after our own action passes.
		const row = await waitFor(
			'the Agents row to say running',
			async () => {
				const r = await agentRow(agent.id);
				return r?.description?.startsWith('running') ? r : undefined;
			},
			1_000,
		);
		assert.equal(row.contextValue, 'agent:running');

		// The run ends elsewhere (not through us): while the view is visible and the agent is active,
		// the existing polling (now capped at 5 s between reads) brings the row back to idle.
		await vscode.commands.executeCommand('workbench.view.extension.cloudAgents');
		await emu('DELETE', `/v2/agents/${enc(agent.id)}/runs/${enc(run.id)}`, undefined, devToken());
		await waitForRunStatus(run.id, ['cancelled']);
		await waitFor(
			'the Agents row to say idle again',
			async () => ((await agentRow(agent.id))?.description?.startsWith('idle') ? true : undefined),
			12_000,
		);
	});

	test('idle agents show a neutral icon, not the green check of "succeeded"; tooltips name the runtime', async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('cloudAgents.runtimes.refresh');
		const runtimes = (await state()).runtimes;
		await rows('runtimes');
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		const agentRows = await rows('agents');
		const agents = (await state()).agents;
		const idle = agentRows.find((r) => r.contextValue === 'agent:idle');
		assert.ok(idle, 'an idle agent is listed');
		assert.notEqual(idle.icon, 'pass-filled');
		assert.equal(idle.icon, 'circle-large-outline');
		const withRuntime = agentRows.find((r) => {
			const a = agents.find((x) => `agent/${x.id}` === r.id);
			return a?.runtime_id && runtimes.some((rt) => rt.id === a.runtime_id && rt.display_name);
		});
		assert.ok(withRuntime, 'an agent on a named runtime is listed');
		const agent = agents.find((x) => `agent/${x.id}` === withRuntime.id)!;
		const runtime = runtimes.find((rt) => rt.id === agent.runtime_id)!;
		assert.match(
			withRuntime.tooltip ?? '',
			new RegExp(`Runtime: ${runtime.display_name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
			withRuntime.tooltip,
		);
	});

	test('run rows fit the sidebar: a short prompt, the status first; clicking opens the result or the live output', async function () {
		this.timeout(60_000);
		const agent = await createIdleAgent(`daily-runs-${Date.now()}`);
		created.push(agent.id);
		const longPrompt = 'Refactor the billing module so invoices are computed in one place and add tests [[events:1]]';
		const done = await startRun(agent.id, longPrompt);
		await waitForRunStatus(done.id, ['succeeded']);
		const held = await startRun(agent.id, 'Keep watching [[hold]]');
		await waitForRunStatus(held.id, ['running']);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agent.id);
		await vscode.commands.executeCommand('cloudAgents.runs.refresh');
		const list = await rows('runs');

		const doneRow = list.find((r) => r.id === `run/${agent.id}/${done.id}`);
		assert.ok(doneRow, JSON.stringify(list));
		assert.ok(doneRow.label.length <= 33, `a short label: ${doneRow.label}`);
		assert.match(doneRow.description ?? '', /^succeeded/);
		assert.equal(doneRow.icon, 'pass-filled');
		assert.equal(doneRow.command, 'cloudAgents.runs.openResult');
		const heldRow = list.find((r) => r.id === `run/${agent.id}/${held.id}`);
		assert.ok(heldRow);
		assert.match(heldRow.description ?? '', /^running/);
		assert.equal(heldRow.command, 'cloudAgents.runs.follow');

		// Clicking the finished run opens its result, titled by agent and prompt and rendered.
		const doc = await click<vscode.TextDocument | undefined>('runs', doneRow.id!);
		assert.ok(doc, 'the result record was opened');
		assert.match(doc.getText(), /## Result/);
		await waitFor(
			'the result tab',
			async () => (activeTabLabel()?.includes(`Result — ${agent.name}: Refactor the billing`) ? true : undefined),
			5_000,
		).catch(() => assert.fail(`the active tab is "${activeTabLabel()}"`));
		assert.equal(activeTabLabel()?.includes('result.md'), false);
		const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
		assert.ok(
			tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('markdown.preview'),
			`rendered as a Markdown preview: ${tab?.label}`,
		);

		// Clicking the active run follows it (its live output).
		await click('runs', heldRow.id!);
		assert.ok(
			api.runFollower.following.some((f) => f.runId === held.id),
			'the active run is followed',
		);
		await vscode.commands.executeCommand('cloudAgents.runs.stopFollowing', { automation: true, agentId: agent.id, runId: held.id });
		await emu('DELETE', `/v2/agents/${enc(agent.id)}/runs/${enc(held.id)}`, undefined, devToken());
		await closeAllEditors();
	});

	test("clicking a runtime opens its details in a tab titled by the runtime's name", async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('cloudAgents.runtimes.refresh');
		const list = (await rows('runtimes')).filter((r) => r.id?.startsWith('runtime/'));
		const runtimes = (await state()).runtimes;
		const row = list.find((r) => runtimes.find((rt) => `runtime/${rt.id}` === r.id)?.display_name);
		assert.ok(row, JSON.stringify(list));
		const runtime = runtimes.find((rt) => `runtime/${rt.id}` === row.id)!;
		assert.equal(row.command, 'cloudAgents.runtimes.showDetails');
		const doc = await click<vscode.TextDocument | undefined>('runtimes', row.id!);
		assert.ok(doc);
		assert.equal((JSON.parse(doc.getText()) as { id: string }).id, runtime.id);
		assert.equal(doc.languageId, 'json');
		assert.equal(activeTabLabel(), `Runtime ${runtime.display_name}`);
		assert.equal(activeTabLabel()?.includes(runtime.id), false, 'no id in the title');
		for (const r of list) {
			assert.doesNotMatch(r.tooltip ?? '', /\d\.0 [KMGT]iB/, `sizes without ".0": ${r.tooltip}`);
		}
		await closeAllEditors();
	});

	test("artifact tabs are titled by the artifact's name, with no ids in the breadcrumbs", async function () {
		this.timeout(30_000);
		const agent = await createIdleAgent(`daily-artifacts-${Date.now()}`);
		created.push(agent.id);
		const run = await startRun(agent.id, 'Produce notes [[events:1]]');
		await waitForRunStatus(run.id, ['succeeded', 'failed']);
		const artifact = await emu<{ id: string; name: string }>(
			'POST',
			`/v2/agents/${enc(agent.id)}/artifacts`,
			{
				run_id: run.id,
				name: 'coverage-notes.md',
				media_type: 'text/markdown',
				content_base64: Buffer.from('# Coverage\n').toString('base64'),
			},
			devToken(),
		);
		assert.equal(artifact.status, 201, JSON.stringify(artifact.body));
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agent.id);
		await vscode.commands.executeCommand('cloudAgents.artifacts.refresh');
		await click('artifacts', `artifact/${agent.id}/${artifact.body.id}`);
		assert.equal(activeTabLabel(), 'coverage-notes.md');
		// The breadcrumbs follow the URI's path: the name only, no ids of agent or artifact.
		const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
		assert.ok(input instanceof vscode.TabInputText);
		assert.equal(input.uri.path, '/coverage-notes.md');

		// An image opens in the image preview, its tab titled by the artifact's name.
		const png = Buffer.from(
			'89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
				'1f15c4890000000d49444154789c6300010000050001' +
				'0d0a2db40000000049454e44ae426082',
			'hex',
		);
		const image = await emu<{ id: string }>(
			'POST',
			`/v2/agents/${enc(agent.id)}/artifacts`,
			{
				run_id: run.id,
				name: 'coverage-chart.png',
				media_type: 'image/png',
				content_base64: png.toString('base64'),
			},
			devToken(),
		);
		assert.equal(image.status, 201, JSON.stringify(image.body));
		await vscode.commands.executeCommand('cloudAgents.artifacts.refresh');
		await click('artifacts', `artifact/${agent.id}/${image.body.id}`);
		await waitFor('the image tab', async () => (activeTabLabel() === 'coverage-chart.png' ? true : undefined), 5_000).catch(() =>
			assert.fail(`the active tab is "${activeTabLabel()}"`),
		);
		await closeAllEditors();
	});

	test('hint rows are short with the sentence in the tooltip; the empty Runs view offers Send Prompt', async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		const [hint] = await rows('runs');
		assert.ok(hint);
		assert.ok(hint.label.length <= 20, `short: ${hint.label}`);
		assert.match(hint.tooltip ?? '', /Select an agent in the Agents view/);

		const agent = await createIdleAgent(`daily-empty-${Date.now()}`);
		created.push(agent.id);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agent.id);
		assert.deepEqual(await rows('runs'), [], 'no rows, so the welcome content shows');
		const welcome = (
			vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as {
				contributes: { viewsWelcome: Array<{ view: string; contents: string; when?: string }> };
			}
		).contributes.viewsWelcome.filter(
			// The signed-in welcome of a Runs view read and found empty (the other says "Loading runs…").
			(w) =>
				w.view === 'cloudAgents.runs' && w.when?.startsWith('cloudAgents.signedIn') && w.when.endsWith('&& cloudAgents.runs.empty'),
		);
		assert.equal(welcome.length, 1);
		assert.match(welcome[0]!.contents, /\[Send Prompt…\]\(command:cloudAgents\.runs\.sendPrompt\)/);
	});

	test('Create Agent takes owner/name[@branch]: the id and default branch come from GitHub (a stub), asked without a token; not found is refused before sending', async function () {
		this.timeout(60_000);
		const asked: Array<{ url: string; authorization: string | undefined }> = [];
		const github = createServer((req, res) => {
			asked.push({ url: req.url ?? '', authorization: req.headers.authorization });
			const repos: Record<string, unknown> = {
				'/repos/octocat/hello-world': { id: 1296269, full_name: 'octocat/Hello-World', default_branch: 'master' },
				'/repos/octocat/Spoon-Knife': { id: 1300192, full_name: 'octocat/Spoon-Knife', default_branch: 'main' },
			};
			const found = repos[req.url ?? ''];
			res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
			res.end(JSON.stringify(found ?? { message: 'Not Found' }));
		});
		await new Promise<void>((resolve) => github.listen(0, '127.0.0.1', resolve));
		const previous = process.env[GITHUB_API_URL_ENV];
		process.env[GITHUB_API_URL_ENV] = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;
		try {
			const name = `daily-gh-${Date.now()}`;
			const agent = await vscode.commands.executeCommand<AgentBody | undefined>('cloudAgents.agents.create', {
				automation: true,
				name,
				repositories: 'octocat/hello-world, octocat/Spoon-Knife@dev 4242@main',
			});
			assert.ok(agent?.id, 'the agent was created');
			created.push(agent.id);
			const stored = (await state()).agents.find((a) => a.id === agent.id);
			assert.deepEqual(stored?.repositories, [
				{ repository_id: 1296269, branch: 'master' },
				{ repository_id: 1300192, branch: 'dev' },
				{ repository_id: 4242, branch: 'main' },
			]);
			assert.deepEqual(
				asked.map((a) => a.authorization),
				[undefined, undefined],
				'GitHub is asked twice (not for 4242@main), without any token',
			);

			const refused = await vscode.commands.executeCommand<AgentBody | undefined>('cloudAgents.agents.create', {
				automation: true,
				name: `${name}-missing`,
				repositories: 'octocat/no-such-repo',
			});
			assert.equal(refused, undefined);
			assert.equal(
				(await state()).agents.some((a) => a.name === `${name}-missing`),
				false,
				'nothing was sent',
			);
			assert.ok(
				asked.every((a) => a.authorization === undefined || !a.authorization.includes(devToken())),
				'our own token never goes to GitHub',
			);
		} finally {
			if (previous === undefined) {
				delete process.env[GITHUB_API_URL_ENV];
			} else {
				process.env[GITHUB_API_URL_ENV] = previous;
			}
			github.closeAllConnections();
			await new Promise<void>((resolve) => github.close(() => resolve()));
		}
	});

	test('Create Agent can add repositories (GitHub id@branch); a malformed entry is refused before sending', async function () {
		this.timeout(30_000);
		const name = `daily-repos-${Date.now()}`;
		const agent = await vscode.commands.executeCommand<AgentBody | undefined>('cloudAgents.agents.create', {
			automation: true,
			name,
			repositories: '4242@main, 77@feature/x',
		});
		assert.ok(agent?.id, 'the agent was created');
		created.push(agent.id);
		const stored = (await state()).agents.find((a) => a.id === agent.id);
		assert.deepEqual(stored?.repositories, [
			{ repository_id: 4242, branch: 'main' },
			{ repository_id: 77, branch: 'feature/x' },
		]);

		const refused = await vscode.commands.executeCommand<AgentBody | undefined>('cloudAgents.agents.create', {
			automation: true,
			name: `${name}-bad`,
			repositories: 'owner/repo/extra',
		});
		assert.equal(refused, undefined);
		assert.equal(
			(await state()).agents.some((a) => a.name === `${name}-bad`),
			false,
			'nothing was sent',
		);
	});

	test('Create Agent with a first message selects the new agent and follows the run the message starts, as Send Prompt does (issue 33)', async function () {
		this.timeout(60_000);
		const api = await testApi();
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		const name = `daily-first-${Date.now()}`;
		const prompt = `Say hello as ${name}`;
		const agent = await vscode.commands.executeCommand<AgentBody | undefined>('cloudAgents.agents.create', {
			automation: true,
			name,
			initialMessage: prompt,
		});
		assert.ok(agent?.id, 'the agent was created');
		created.push(agent.id);
		// The service starts the run once the agent is ready (about a second in the emulator).
		const run = await waitFor("the first message's run on the service", async () =>
			(await state()).runs.find((r) => r.agent_id === agent.id),
		);
		assert.equal(run.prompt, prompt);
		const followed = await waitFor('the run to be followed', async () => api.runFollower.stateOf(agent.id, run.id), 20_000);
		assert.ok(followed.title.includes(name), `the followed run is titled with the agent's name: ${followed.title}`);
		// Selected: the Runs view shows the new agent's runs.
		await waitFor("the Runs view to show the new agent's run", async () =>
			(await rows('runs')).find((r) => r.id === `run/${agent.id}/${run.id}`),
		);
	});
});
