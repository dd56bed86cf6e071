import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { counters, createIdleAgent, emu, restoreDevToken, startAgentRun, testApi, waitFor } from '../support/cloudAgents';
import type { RowSnapshot } from '../../../src/testing';
import { devToken } from '../support/env';

/** A row as `_cloudAgents.views.rows` returns it. */
type Row = RowSnapshot;

type ViewKey = 'agents' | 'runs' | 'runtimes' | 'artifacts';

interface AgentBody {
	id: string;
	name: string;
	status: string;
}
interface RuntimeBody {
	id: string;
	display_name: string;
	status: string;
	degraded?: boolean;
}
interface RunBody {
	id: string;
	status: string;
	prompt?: string;
}
interface ArtifactBody {
	id: string;
	name: string;
}

const rows = async (key: ViewKey): Promise<Row[]> => (await vscode.commands.executeCommand<Row[]>('_cloudAgents.views.rows', key)) ?? [];
const records = (list: Row[]): Row[] => list.filter((r) => r.contextValue !== 'loadMore');
const hasLoadMore = (list: Row[]): boolean => list.some((r) => r.contextValue === 'loadMore');

async function allAgents(): Promise<AgentBody[]> {
	const res = await emu<{ agents: AgentBody[] }>('GET', '/v2/agents?limit=100', undefined, devToken());
	assert.equal(res.status, 200);
	return res.body.agents;
}

/**
 * `agents` in the Agents view's order: most recent activity first (the agent's updated time, in whole
 * seconds as the wire has it; `/_emulator/state` keeps it in every profile), ties in the given order.
 */
async function byActivity(agents: readonly AgentBody[]): Promise<AgentBody[]> {
	const state = (await emu<{ agents: Array<{ id: string; updated_at_ms: number }> }>('GET', '/_emulator/state')).body;
	const at = new Map(state.agents.map((a) => [a.id, Math.floor(a.updated_at_ms / 1000)]));
	return [...agents].sort((a, b) => (at.get(b.id) ?? 0) - (at.get(a.id) ?? 0));
}

async function allRuntimes(): Promise<RuntimeBody[]> {
	const res = await emu<{ data: RuntimeBody[] }>('GET', '/v2/runtimes?limit=100', undefined, devToken());
	assert.equal(res.status, 200);
	return res.body.data;
}

/** Clicks "Load more…" until the list ends; returns the final rows and how many clicks it took. */
/**
 * Runs a view's "Load more…" and waits until its rows show the next page (more records, or no
 * "Load more…" row left): the view redraws after the command's answer, later on a busy machine.
 */
async function loadMore(key: ViewKey, command: string, before: Row[]): Promise<Row[]> {
	await vscode.commands.executeCommand(command);
	let next: Row[] = before;
	try {
		return await waitFor('the next page in the view', async () => {
			next = await rows(key);
			return records(next).length > records(before).length || !hasLoadMore(next) ? next : undefined;
		});
	} catch {
		assert.fail(`Load more… added no rows (${records(before).length} before, ${records(next).length} after)`);
	}
}

async function loadAll(key: ViewKey, command: string): Promise<{ list: Row[]; clicks: number }> {
	let list = await rows(key);
	let clicks = 0;
	while (hasLoadMore(list)) {
		assert.ok(clicks < 60, 'Load more… never ended');
		list = await loadMore(key, command, list);
		clicks++;
	}
	return { list, clicks };
}

suite('Views', () => {
	let api: CloudAgentsTestApi;

	suiteSetup(async function () {
		this.timeout(30_000);
		api = await testApi();
		await restoreDevToken();
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', 2, vscode.ConfigurationTarget.Global);
		await waitFor('the page size setting', async () =>
			vscode.workspace.getConfiguration('cloudAgents').get('pageSize') === 2 ? true : undefined,
		);
	});

	suiteTeardown(async () => {
		await emu('DELETE', '/_emulator/faults');
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
	});

	teardown(async () => {
		await emu('DELETE', '/_emulator/faults');
	});

	test('the Agents view lists the agents the emulator\'s cursors bring, two per page, through "Load more…", most recent activity first among those loaded [variant] [web]', async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		const listed = await allAgents();
		assert.ok(listed.length > 4, `the demo seed should have more than 4 agents, has ${listed.length}`);

		const first = await rows('agents');
		const firstPage = await byActivity(listed.slice(0, 2));
		assert.deepEqual(
			records(first).map((r) => r.id),
			firstPage.map((a) => `agent/${a.id}`),
		);
		assert.deepEqual(
			records(first).map((r) => r.label),
			firstPage.map((a) => a.name),
		);
		const more = first[first.length - 1]!;
		assert.equal(more.contextValue, 'loadMore');
		assert.equal(more.label, 'Load more…');
		assert.equal(more.command, 'cloudAgents.agents.loadMore');

		const second = await loadMore('agents', 'cloudAgents.agents.loadMore', first);
		assert.deepEqual(
			records(second).map((r) => r.id),
			(await byActivity(listed.slice(0, 4))).map((a) => `agent/${a.id}`),
		);

		const { list } = await loadAll('agents', 'cloudAgents.agents.loadMore');
		const expected = await byActivity(listed);
		assert.deepEqual(
			records(list).map((r) => r.id),
			expected.map((a) => `agent/${a.id}`),
		);
		assert.equal(hasLoadMore(list), false, 'no "Load more…" row after the last page');
		for (const [i, agent] of expected.entries()) {
			const row = records(list)[i]!;
			// Menus match the lower-cased status (the variant's are upper case: READY, BUSY, …).
			assert.equal(row.contextValue, `agent:${agent.status.toLowerCase()}`);
			assert.ok(row.description?.startsWith(agent.status), `description "${row.description}" starts with the status`);
			assert.ok(row.tooltip?.includes(agent.id), 'the tooltip carries the agent id');
		}
		const running = expected.find((a) => a.status === 'running');
		if (running) {
			assert.equal(records(list).find((r) => r.id === `agent/${running.id}`)?.icon, 'sync~spin');
		}
	});

	test('the Runtimes view lists every runtime in order through "Load more…" and shows the degraded state [variant]', async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('cloudAgents.runtimes.refresh');
		const expected = await allRuntimes();
		const first = await rows('runtimes');
		assert.deepEqual(
			records(first).map((r) => r.id),
			expected.slice(0, 2).map((r) => `runtime/${r.id}`),
		);
		assert.equal(first[first.length - 1]!.command, 'cloudAgents.runtimes.loadMore');

		const before = (await counters()).requests.by_route['GET /v2/runtimes'] ?? 0;
		const { list, clicks } = await loadAll('runtimes', 'cloudAgents.runtimes.loadMore');
		const after = (await counters()).requests.by_route['GET /v2/runtimes'] ?? 0;
		assert.deepEqual(
			records(list).map((r) => r.id),
			expected.map((r) => `runtime/${r.id}`),
		);
		// Each "Load more…" asks for exactly one page, through the cursor.
		assert.equal(after - before, clicks);

		const degraded = expected.find((r) => r.degraded === true);
		assert.ok(degraded, 'the demo seed has a degraded runtime');
		const row = records(list).find((r) => r.id === `runtime/${degraded.id}`)!;
		assert.equal(row.icon, 'warning');
		assert.ok(row.description?.includes('degraded'), `description "${row.description}"`);
		assert.ok(row.contextValue?.includes(':degraded'), `contextValue "${row.contextValue}"`);
		assert.ok(row.tooltip?.includes('Degraded'), 'the tooltip explains the degraded state');
	});

	test('Runs and Artifacts follow the agent selected in the Agents view; runs page by a growing limit [variant]', async function () {
		this.timeout(30_000);
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		const none = await rows('runs');
		assert.equal(none.length, 1);
		assert.match(none[0]!.label, /Select an agent/);
		assert.match((await rows('artifacts'))[0]!.label, /Select an agent/);

		const agent = (await allAgents()).find((a) => a.name === 'Refactor billing module');
		assert.ok(agent, 'the demo agent "Refactor billing module" exists');
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agent.id);

		const runsRes = await emu<RunBody[]>('GET', `/v2/agents/${encodeURIComponent(agent.id)}/runs?limit=100`, undefined, devToken());
		const expectedRuns = runsRes.body;
		assert.ok(expectedRuns.length > 4);
		const first = await rows('runs');
		assert.deepEqual(
			records(first).map((r) => r.id),
			expectedRuns.slice(0, 2).map((r) => `run/${agent.id}/${r.id}`),
		);
		assert.ok(hasLoadMore(first));
		assert.ok(records(first)[0]!.contextValue?.startsWith(`run:${expectedRuns[0]!.status}`));

		const second = await loadMore('runs', 'cloudAgents.runs.loadMore', first);
		assert.deepEqual(
			records(second).map((r) => r.id),
			expectedRuns.slice(0, 4).map((r) => `run/${agent.id}/${r.id}`),
		);
		const { list } = await loadAll('runs', 'cloudAgents.runs.loadMore');
		assert.deepEqual(
			records(list).map((r) => r.id),
			expectedRuns.map((r) => `run/${agent.id}/${r.id}`),
		);

		const artifactsRes = await emu<{ artifacts?: ArtifactBody[]; data?: ArtifactBody[] } | ArtifactBody[]>(
			'GET',
			`/v2/agents/${encodeURIComponent(agent.id)}/artifacts`,
			undefined,
			devToken(),
		);
		const body = artifactsRes.body;
		const expectedArtifacts = Array.isArray(body) ? body : (body.artifacts ?? body.data ?? []);
		assert.ok(expectedArtifacts.length > 0);
		const artifacts = await rows('artifacts');
		assert.deepEqual(
			artifacts.map((r) => r.id),
			expectedArtifacts.map((a) => `artifact/${agent.id}/${a.id}`),
		);
		assert.equal(hasLoadMore(artifacts), false, 'the artifacts listing has no paging');
		assert.ok(
			artifacts.some((r) => r.contextValue === 'artifact:image'),
			'the PNG artifact is an image row',
		);
	});

	test('a failed listing shows a short error row (the request id in its tooltip) and a Retry row that recovers [web]', async function () {
		this.timeout(30_000);
		const fault = await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/runtimes', status: 500, count: 1 }] });
		assert.equal(fault.status < 300, true, JSON.stringify(fault.body));
		await vscode.commands.executeCommand('cloudAgents.runtimes.refresh');
		const failed = await rows('runtimes');
		const error = failed.find((r) => r.contextValue === 'error');
		assert.ok(error, `an error row in ${JSON.stringify(failed)}`);
		assert.match(error.tooltip ?? '', /request [0-9a-f-]{8,}/i, "the error row's tooltip names the request id");
		assert.ok(error.label.length <= 20, `the error row is short enough for the default sidebar: ${error.label}`);
		const retry = failed.find((r) => r.contextValue === 'retry');
		assert.equal(retry?.command, 'cloudAgents.runtimes.refresh');

		await vscode.commands.executeCommand(retry.command);
		const recovered = await rows('runtimes');
		assert.equal(
			recovered.some((r) => r.contextValue === 'error'),
			false,
		);
		// The pages loaded before stay loaded: the retry re-reads all of them.
		const expected = await allRuntimes();
		assert.ok(records(recovered).length >= 2);
		assert.deepEqual(
			records(recovered).map((r) => r.id),
			expected.slice(0, records(recovered).length).map((r) => `runtime/${r.id}`),
		);
	});

	test('signed out, the views have no rows (the welcome content shows) and fetch nothing', async function () {
		this.timeout(30_000);
		await api.session.deleteToken();
		try {
			const before = (await counters()).requests.by_route['GET /v2/agents'] ?? 0;
			assert.deepEqual(await rows('agents'), []);
			assert.deepEqual(await rows('runtimes'), []);
			const after = (await counters()).requests.by_route['GET /v2/agents'] ?? 0;
			assert.equal(after, before);
		} finally {
			await restoreDevToken();
		}
		assert.ok(records(await rows('agents')).length > 0, 'signed in again, the agents come back');
	});

	test('row ids stay stable across a refresh', async function () {
		this.timeout(30_000);
		const before = await rows('agents');
		await vscode.commands.executeCommand('cloudAgents.agents.refresh');
		const after = await rows('agents');
		assert.deepEqual(
			after.map((r) => r.id),
			before.map((r) => r.id),
		);
	});

	test('a row selected while a reload restores the kept selection stands: the kept agent, looked up later, does not take it over (issue 41)', async function () {
		this.timeout(60_000);
		const chosen = await createIdleAgent('chosen-meanwhile');
		const run = await startAgentRun(chosen, '[[events:1]] the chosen agent’s run');
		let kept: string | undefined;
		const runRows = async (): Promise<RowSnapshot[]> =>
			(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', 'runs')) ?? [];
		try {
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
			await vscode.commands.executeCommand('cloudAgents.agents.refresh');
			await waitFor('the chosen agent listed', async () =>
				(await rows('agents')).some((r) => r.id?.includes(chosen)) ? true : undefined,
			);
			// The kept agent exists but is not among the loaded rows: restoring it looks it up, and the
			// lookup waits at the emulator until the test clears the rule.
			kept = await createIdleAgent('kept-across-a-reload');
			await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/agents/{agent_id}', hold: true }] });
			const restored = vscode.commands.executeCommand('_cloudAgents.views.restoreAgent', kept);
			await waitFor('the lookup held', async () => {
				const f = await emu<{ rules: Array<{ matched?: number }> }>('GET', '/_emulator/faults');
				return (f.body.rules[0]?.matched ?? 0) > 0 ? true : undefined;
			});
			// A click meanwhile (the chosen agent is a row of the list: no lookup).
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', chosen);
			await emu('DELETE', '/_emulator/faults');
			await restored;
			const shown = await waitFor('the Runs view listing', async () => {
				const list = await runRows();
				return list.length > 0 && !list.some((r) => /loading/i.test(r.label)) ? list : undefined;
			});
			assert.ok(
				shown.some((r) => r.id?.includes(run.id)),
				`the Runs view follows another agent than the one selected meanwhile: ${JSON.stringify(shown)}`,
			);
		} finally {
			await emu('DELETE', '/_emulator/faults');
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
			for (const id of [chosen, kept]) {
				if (id) await emu('DELETE', `/v2/agents/${encodeURIComponent(id)}?delete_runtime=true`, undefined, devToken());
			}
		}
	});

	test('the selected agent deleted elsewhere: the Runs view drops it ("Select an agent"), not "Could not load: not found" (issue 42, item 6)', async function () {
		this.timeout(60_000);
		const id = await createIdleAgent('deleted-while-selected');
		const rows = async (): Promise<RowSnapshot[]> =>
			(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', 'runs')) ?? [];
		try {
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', id);
			await emu('DELETE', `/v2/agents/${encodeURIComponent(id)}?delete_runtime=true`, undefined, devToken());
			await vscode.commands.executeCommand('cloudAgents.runs.refresh');
			const shown = await waitFor('the Runs view without the deleted agent', async () => {
				const list = await rows();
				return list.length > 0 && list.every((r) => r.contextValue !== 'error') && /Select an agent/.test(list[0]?.label ?? '')
					? list
					: undefined;
			});
			assert.ok(!shown.some((r) => /not found/.test(r.label)), JSON.stringify(shown));
		} finally {
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		}
	});
});
