import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { Agent } from '../../../src/api';
import { LIMITS } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';
import {
	RECENT_AGENTS_KEY,
	agentActions,
	agentActivity,
	agentNameProblem,
	agentsList,
	parseRepositories,
	promptProblem,
	recentAgentIds,
	rememberAgent,
	resolveRepositories,
} from '../../../src/resources/agents';
import { automation } from '../../../src/views/automation';
import { serve } from '../support/serve';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, type FakeKitOptions, listContext, readList, rowContext, tooltipText } from './kit';

/** A context whose globalState is a map, and whose subscriptions are disposed in teardown. */
function fakeContext(): vscode.ExtensionContext & { state: Map<string, unknown> } {
	const state = new Map<string, unknown>();
	return {
		state,
		subscriptions: [],
		globalState: { get: (k: string) => state.get(k), update: async (k: string, v: unknown) => void state.set(k, v) },
	} as unknown as vscode.ExtensionContext & { state: Map<string, unknown> };
}

/** src/resources/agents.ts: agent rows from the emulator, the checks before sending, Create/Rename/Delete against it. */
suite('resources/agents', () => {
	const env = emulatorPerSuite();
	let agents: Agent[];
	let context: ReturnType<typeof fakeContext>;
	let followerCalls: string[];
	let selected: Agent | undefined;
	let selections: Array<Agent | undefined>;

	setup(async () => {
		agents = await readList(agentsList, listContext(env.client), undefined, { limit: 3 });
		context = fakeContext();
		followerCalls = [];
		selected = undefined;
		selections = [];
	});
	teardown(() => {
		for (const d of context.subscriptions) {
			d.dispose();
		}
	});

	const agent = (name: string): Agent => agents.find((a) => a.name === name)!;
	const kitOf = (opts: FakeKitOptions = {}) =>
		fakeKit({
			client: env.client,
			...opts,
			extra: {
				context,
				session: { onDidChange: new fake.EventEmitter<void>().event, connect: nodeConnect, networkSettings: () => ({}) },
				githubApiUrl: () => undefined,
				selected: () => selected,
				select: (_d: unknown, a: Agent | undefined) => void selections.push(a),
				selectById: async (_d: unknown, id: string) => void followerCalls.push(`selectById ${id}`),
				follower: {
					following: [{ agentId: agent('CI triage').id, runId: 'run_t' }],
					stop: (a: string, r: string) => void followerCalls.push(`stop ${a}/${r}`),
					follow: async (a: string, r: string) => void followerCalls.push(`follow ${a}/${r}`),
					forget: async (a: string) => void followerCalls.push(`forget ${a}`),
				},
				...opts.extra,
			} as never,
		});
	const auto = (fields: Record<string, unknown>, extra?: FakeKitOptions['extra']) =>
		kitOf({ arg: automation(fields), automation: true, extra });
	const mutations = async (kind: string): Promise<number> => (await env.emu.counters()).mutations.by_kind[kind] ?? 0;

	test('the list walks the pages; rows: status token, runtime named as the Runtimes view names it', async () => {
		assert.equal(agents.length, 7);
		const triage = agent('CI triage');
		const runtimes = (await env.client.listRuntimes({ limit: 100 })).items;
		const row = agentsList.row(triage, rowContext(listContext(env.client, { runtimes }), undefined));
		assert.equal(row.contextValue, 'agent:running');
		assert.equal(agentsList.isActive!(triage), true);
		assert.match(tooltipText(row.tooltip), new RegExp(`Runtime: borealis-ci \\(${triage.runtime_id}\\)`));
		// Not loaded there: the id alone.
		assert.match(
			tooltipText(agentsList.row(triage, rowContext(listContext(env.client), undefined)).tooltip),
			new RegExp(`Runtime: ${triage.runtime_id}\\n`),
		);
		assert.equal(agentsList.row(agent('Legacy migration'), rowContext(listContext(env.client), undefined)).contextValue, 'agent:error');
		assert.equal(
			agentsList.row({ ...triage, status: 'Bad Status' }, rowContext(listContext(env.client), undefined)).contextValue,
			'agent:unknown',
		);
	});

	test('order: most recent activity first, the latest reply counting too', () => {
		const old = { id: 'a', created_at_unix_seconds: 100, updated_at_unix_seconds: 200 } as Agent;
		const replied = {
			id: 'b',
			created_at_unix_seconds: 100,
			latest_reply: { updated_at: new Date(300_000).toISOString() },
		} as unknown as Agent;
		assert.equal(agentActivity(old), 200_000);
		assert.equal(agentActivity(replied), 300_000);
		assert.equal(agentActivity({ id: 'c' } as Agent), 0);
		assert.deepEqual(
			[old, replied].sort(agentsList.order).map((a) => a.id),
			['b', 'a'],
		);
	});

	test('the cache keeps the row fields, not the reply text', () => {
		const billing = agent('Refactor billing module');
		assert.ok(billing.latest_reply?.text);
		const restored = agentsList.cache!.restore(JSON.parse(JSON.stringify(agentsList.cache!.store(billing))) as unknown)!;
		assert.equal(restored.id, billing.id);
		assert.equal(restored.name, billing.name);
		assert.equal(restored.runtime_id, billing.runtime_id);
		assert.equal(restored.latest_reply, undefined);
	});

	test('recently used agents: most recent first, no repeats, at most 10, junk ignored', async () => {
		context.state.set(RECENT_AGENTS_KEY, ['x', 3, 'y']);
		assert.deepEqual(recentAgentIds(context), ['x', 'y']);
		await rememberAgent(context, 'y');
		assert.deepEqual(recentAgentIds(context), ['y', 'x']);
		for (let i = 0; i < 12; i++) {
			await rememberAgent(context, `a${i}`);
		}
		assert.equal(recentAgentIds(context).length, 10);
		assert.equal(recentAgentIds(context)[0], 'a11');
		context.state.set(RECENT_AGENTS_KEY, 'not a list');
		assert.deepEqual(recentAgentIds(context), []);
	});

	test('name and prompt checks count UTF-8 bytes after trimming', () => {
		assert.equal(agentNameProblem('  ok  '), undefined);
		assert.equal(agentNameProblem('   '), 'Enter a name.');
		assert.equal(agentNameProblem('é'.repeat(128)), 'The name is 256 bytes long; the limit is 255 bytes (UTF-8, after trimming).');
		assert.equal(agentNameProblem('a'.repeat(255)), undefined);
		assert.equal(promptProblem('', true), undefined);
		assert.equal(promptProblem(' ', false), 'Enter a prompt.');
		assert.match(promptProblem('x'.repeat(LIMITS.promptBytes + 1), true)!, /the limit is 65536 bytes/);
	});

	test('repositories as typed: each shape problem named', () => {
		assert.deepEqual(parseRepositories('octocat/hello-world, 123@main'), {
			refs: [
				{ text: 'octocat/hello-world', owner: 'octocat', repo: 'hello-world' },
				{ text: '123@main', id: 123, branch: 'main' },
			],
		});
		assert.deepEqual(parseRepositories(''), { refs: [] });
		assert.match((parseRepositories('-bad-/x') as { problem: string }).problem, /not a GitHub owner/);
		assert.match((parseRepositories('o/bad name') as { problem: string }).problem, /\S/);
		assert.match((parseRepositories('o/r@a..b') as { problem: string }).problem, /the branch after @ is not one git accepts/);
		assert.match((parseRepositories('nonsense') as { problem: string }).problem, /is not a repository: write owner\/name/);
	});

	test('resolveRepositories: ids with branches need no GitHub; a name is looked up (a stub GitHub), its default branch taken', async () => {
		const { kit } = kitOf();
		assert.deepEqual(await resolveRepositories([{ text: '5@dev', id: 5, branch: 'dev' }], false, kit), {
			repositories: [{ repository_id: 5, branch: 'dev' }],
		});
		const seen: string[] = [];
		const github = await serve((req, res) => {
			seen.push(req.url ?? '');
			res.writeHead(req.url === '/repos/octocat/hello' ? 200 : 404, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify(
					req.url === '/repos/octocat/hello'
						? { id: 77, default_branch: 'trunk', full_name: 'octocat/hello' }
						: { message: 'Not Found' },
				),
			);
		});
		try {
			const viaStub = kitOf({ extra: { githubApiUrl: () => github.baseUrl } }).kit;
			assert.deepEqual(await resolveRepositories([{ text: 'octocat/hello', owner: 'octocat', repo: 'hello' }], false, viaStub), {
				repositories: [{ repository_id: 77, branch: 'trunk' }],
			});
			const missing = await resolveRepositories([{ text: 'octocat/nope', owner: 'octocat', repo: 'nope' }], false, viaStub);
			assert.match((missing as { problem: string }).problem, /^GitHub shows no public repository octocat\/nope\. For a private one/);
			assert.deepEqual(seen, ['/repos/octocat/hello', '/repos/octocat/nope']);
		} finally {
			await github.close();
		}
	});

	test('Create Agent (automation): created, remembered, selected; a first message is said to run once ready', async () => {
		const { kit, log } = auto({ name: '  New helper ', initialMessage: 'Say hello', repositories: '42@main' });
		const created = (await agentActions.create.run(kit)) as Agent;
		assert.equal(created.name, 'New helper');
		assert.deepEqual(recentAgentIds(context), [created.id]);
		assert.deepEqual(log.listRefreshes, ['agents']);
		assert.deepEqual(followerCalls, [`selectById ${created.id}`]);
		assert.match(log.infos[0]!, /^Created agent New helper\. Its first message runs once the agent is ready/);
		assert.equal(await mutations('agents.create'), 1);
	});

	test('Create Agent refused before sending: a bad name, a first message too long, a bad repository', async () => {
		const bad = [
			auto({ name: ' ' }),
			auto({ name: 'ok', initialMessage: 'x'.repeat(LIMITS.promptBytes + 1) }),
			auto({ name: 'ok', repositories: 'not a repo' }),
		];
		for (const { kit } of bad) {
			assert.equal(await agentActions.create.run(kit), undefined);
		}
		assert.deepEqual(
			bad.map(({ log }) => log.warnings[0]!.slice(0, 24)),
			['Not sent: Enter a name.', 'Not sent: The prompt is ', 'Not sent: "not" is not a'].map((s) => s.slice(0, 24)),
		);
		assert.equal((await env.emu.counters()).mutations.total, 0);
	});

	test('Rename: automation renames and the selected agent follows; a bad name is refused before sending', async () => {
		const billing = agent('Refactor billing module');
		selected = billing;
		const { kit, log } = auto({ agentId: billing.id, name: ' Billing v2 ' });
		const renamed = (await agentActions.rename.run({ agent: billing }, kit)) as Agent;
		assert.equal(renamed.name, 'Billing v2');
		assert.deepEqual(log.listRefreshes, ['agents']);
		assert.equal(selections[0]?.name, 'Billing v2');
		const tooLong = auto({ name: 'x'.repeat(256) });
		assert.equal(await agentActions.rename.run({ agent: billing }, tooLong.kit), undefined);
		assert.match(tooLong.log.warnings[0]!, /^Not sent: The name is 256 bytes long/);
		assert.equal(await mutations('agents.rename'), 1);
	});

	test('Rename by a person: the same name or a dismissed box sends nothing', async () => {
		const billing = agent('Refactor billing module');
		const answers = ['Refactor billing module  ', undefined];
		fake.answer('window.showInputBox', async (o: { value: string; validateInput: (v: string) => string | undefined }) => {
			assert.equal(o.value, billing.name);
			assert.equal(o.validateInput(''), 'Enter a name.');
			return answers.shift();
		});
		const { kit } = kitOf();
		assert.equal(await agentActions.rename.run({ agent: billing }, kit), undefined);
		assert.equal(await agentActions.rename.run({ agent: billing }, kit), undefined);
		assert.equal((await env.emu.counters()).mutations.total, 0);
	});

	test('Delete by a person: the runtime named in the question; dismissed deletes nothing', async () => {
		const triage = agent('CI triage');
		fake.answer('window.showWarningMessage', async () => undefined);
		const { kit } = kitOf();
		assert.equal(await agentActions.delete.run({ agent: triage }, kit), false);
		const [message, options, ...items] = fake.calls('window.showWarningMessage')[0]!;
		assert.equal(message, 'Delete the agent "CI triage"?');
		assert.match((options as { detail: string }).detail, /keeps its runtime borealis-ci and the runtime's other agents/);
		assert.deepEqual(items, ['Delete Agent', 'Delete Agent and Runtime']);
		assert.equal(await mutations('agents.delete'), 0);
		assert.deepEqual(followerCalls, []);
	});

	test('Delete (automation): its followed runs stopped, then forgotten; the selection cleared', async () => {
		const triage = agent('CI triage');
		selected = triage;
		const { kit, log } = auto({ agentId: triage.id, deleteRuntime: false });
		assert.equal(await agentActions.delete.run({ agent: triage }, kit), true);
		assert.deepEqual(followerCalls, [`stop ${triage.id}/run_t`, `forget ${triage.id}`]);
		assert.deepEqual(selections, [undefined]);
		assert.deepEqual(log.listRefreshes, ['agents', 'runtimes']);
		await assert.rejects(env.client.getAgent(triage.id), (err: Error & { status?: number }) => err.status === 404);
	});

	test('Delete with the runtime that other agents use: the runtime kept, said so', async () => {
		const docs = agent('Docs writer');
		const { kit, log } = auto({ agentId: docs.id, deleteRuntime: true });
		assert.equal(await agentActions.delete.run({ agent: docs }, kit), true);
		assert.deepEqual(log.infos, ['Deleted agent Docs writer. Its runtime was kept because other agents use it.']);
		assert.ok((await env.client.listRuntimes({ limit: 100 })).items.some((r) => r.id === docs.runtime_id));
	});

	test('Delete that fails: the error thrown, the runs followed again', async () => {
		const triage = agent('CI triage');
		await env.emu.faults([{ method: 'DELETE', route: '/v2/agents/{agent_id}', status: 403 }]);
		const { kit } = auto({ agentId: triage.id, deleteRuntime: false });
		await assert.rejects(agentActions.delete.run({ agent: triage }, kit), (err: Error & { status?: number; requestId?: string }) => {
			assert.equal(err.status, 403);
			assert.ok(err.requestId);
			return true;
		});
		assert.deepEqual(followerCalls, [`stop ${triage.id}/run_t`, `follow ${triage.id}/run_t`]);
	});

	test('Copy ID copies the agent id', async () => {
		const { kit, log } = kitOf();
		await agentActions.copyId.run({ agent: agent('CI triage') }, kit);
		assert.deepEqual(log.copies, [{ text: agent('CI triage').id, message: `Copied the agent ID ${agent('CI triage').id}` }]);
	});
});
