import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { Agent, Run } from '../../../src/api';
import { LIMITS } from '../../../src/api';
import { SKIP_CANCEL_CONFIRM_KEY, runActions, runResultMarkdown, runsList } from '../../../src/resources/runs';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, type FakeKitOptions, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/runs.ts: run rows from the emulator, the result document, Cancel/Resume/Follow-up, following. */
suite('resources/runs', () => {
	const env = emulatorPerSuite();
	let agents: Agent[];
	let state: Map<string, unknown>;
	let followed: Array<{ agentId: string; runId: string; hint?: unknown }>;
	let records: Array<{ uri: vscode.Uri; content: string; language: string }>;

	setup(async () => {
		agents = (await env.client.listAgents({ limit: 100 })).items;
		state = new Map();
		followed = [];
		records = [];
	});

	const agent = (name: string): Agent => agents.find((a) => a.name === name)!;
	const runsOf = async (name: string): Promise<Run[]> => readList(runsList, listContext(env.client), agent(name));
	const kitOf = (opts: FakeKitOptions = {}) =>
		fakeKit({
			client: env.client,
			lists: { agents },
			...opts,
			extra: {
				context: {
					globalState: { get: (k: string) => state.get(k), update: async (k: string, v: unknown) => void state.set(k, v) },
				},
				follow: async (agentId: string, runId: string, hint?: unknown) => void followed.push({ agentId, runId, hint }),
				records: {
					show: async (uri: vscode.Uri, content: string, language: string) => {
						records.push({ uri, content, language });
						return {};
					},
				},
				...opts.extra,
			} as never,
		});
	/** Answers the modal question with the button titled `title` (undefined: dismissed); records the questions. */
	const answerModal = (title: string | undefined): unknown[][] => {
		const asked: unknown[][] = [];
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => {
			asked.push(args);
			return args.slice(2).find((i) => (i as { title?: string }).title === title);
		});
		return asked;
	};

	test('rows: a finished run opens its result, an active one its live output; flags in the context value', async () => {
		const billing = agent('Refactor billing module');
		const runs = await runsOf('Refactor billing module');
		assert.ok(runs.length >= 3);
		const done = runs.find((r) => r.status === 'succeeded')!;
		const ctx = rowContext(listContext(env.client, {}, { followed: [done.id] }), billing, billing.id);
		const r = runsList.row(done, ctx);
		assert.equal(r.contextValue, 'run:succeeded:terminal:hasResult:followed');
		assert.equal(r.command?.command, 'cloudAgents.runs.openResult');
		assert.ok(r.label.length <= 32, r.label);
		assert.match(tooltipText(r.tooltip), new RegExp(`^Run ${done.id}\\nStatus: succeeded`));
		const triage = agent('CI triage');
		const active = (await runsOf('CI triage')).find((x) => x.status === 'running')!;
		const a = runsList.row(active, rowContext(listContext(env.client), triage, triage.id));
		assert.equal(a.contextValue, 'run:running:active');
		assert.deepEqual(a.command, {
			command: 'cloudAgents.runs.follow',
			title: 'Show Run Output',
			arguments: [{ agentId: triage.id, runId: active.id }],
		});
		assert.equal(runsList.isActive!(active), true);
	});

	test('the list asks for a page more each time, up to the service limit, and says when there may be more', async () => {
		const billing = agent('Refactor billing module');
		const source = runsList.source as { list: (c: unknown, r: unknown, p: Agent) => Promise<{ items: Run[]; more: boolean }> };
		const signal = new AbortController().signal;
		const one = await source.list(listContext(env.client), { pages: 1, pageSize: 2, signal }, billing);
		assert.equal(one.items.length, 2);
		assert.equal(one.more, true);
		const all = await source.list(listContext(env.client), { pages: 100, pageSize: 100, signal }, billing);
		assert.equal(all.more, false, `limit capped at ${LIMITS.runListLimit.max}`);
	});

	test('the result document: server text cannot make links or HTML; headed by the prompt', () => {
		const md = runResultMarkdown('Agent [x](command:evil)', {
			id: 'run_1',
			agent_id: 'a',
			status: 'succeeded',
			prompt: 'Fix <b>it</b>\nplease',
			result: '## Done\n\n[click](command:workbench.action.quit) ![img](https://x.example/i.png) <script>',
		} as Run);
		assert.match(md, /^# Fix \\<b>it\\<\/b> please\n/);
		assert.ok(!/\]\(command:/.test(md.replace(/\\\]/g, '')), md);
		assert.ok(md.includes('\\[click\\](command:workbench.action.quit)'), md);
		assert.ok(md.includes('\\<script>'), md);
		assert.ok(md.includes('## Result'));
		assert.ok(md.includes('## Done'), 'headings of the result still render');
		assert.ok(md.includes('- Agent: Agent \\[x\\](command:evil)'), md);
	});

	test('the result document of a run without a result: ended, or not yet', () => {
		const base = { id: 'run_2', agent_id: 'a', prompt: '' } as Run;
		assert.match(runResultMarkdown(undefined, { ...base, status: 'cancelled' }), /_The run ended without a result\._/);
		assert.match(runResultMarkdown(undefined, { ...base, status: 'running' }), /_The run has no result yet \(running\)\._/);
		assert.match(runResultMarkdown(undefined, { ...base, status: 'failed', error: 'boom' }), /## Error\n\nboom/);
		assert.match(runResultMarkdown(undefined, base), /^# Run run_2\n/);
	});

	test('Open Result: the run read again, shown as a Markdown record named by the agent', async () => {
		const billing = agent('Refactor billing module');
		const done = (await runsOf('Refactor billing module')).find((r) => r.status === 'succeeded')!;
		const { kit } = kitOf();
		await runActions.openResult.run({ agentId: billing.id, run: { ...done, result: 'stale' } }, kit);
		assert.equal(records.length, 1);
		assert.equal(records[0]!.language, 'markdown');
		assert.ok(records[0]!.content.includes(`- Agent: Refactor billing module`), records[0]!.content);
		assert.ok(!records[0]!.content.includes('stale'), 'read again');
	});

	test('Cancel Run: asked with "Keep Running" as the dismiss; dismissed sends nothing', async () => {
		const triage = agent('CI triage');
		const active = (await runsOf('CI triage')).find((x) => x.status === 'running')!;
		const asked = answerModal(undefined);
		const { kit } = kitOf();
		assert.equal(await runActions.cancel.run({ agentId: triage.id, run: active }, kit), undefined);
		assert.match(asked[0]![0] as string, /^Cancel the run "CI triage: Watch the CI pipeline/);
		assert.deepEqual(
			asked[0]!.slice(2).map((i) => (i as { title: string }).title),
			['Cancel Run', "Cancel Run, Don't Ask Again", 'Keep Running'],
		);
		assert.equal((await env.client.getRun(triage.id, active.id)).status, 'running');
	});

	test("Cancel Run, Don't Ask Again: cancelled, remembered, and the next one is not asked", async () => {
		const triage = agent('CI triage');
		const active = (await runsOf('CI triage')).find((x) => x.status === 'running')!;
		const asked = answerModal("Cancel Run, Don't Ask Again");
		const { kit, log } = kitOf();
		const run = (await runActions.cancel.run({ agentId: triage.id, run: active }, kit)) as Run;
		assert.ok(['cancelled', 'cancelling', 'canceled'].includes(run.status), run.status);
		assert.equal(state.get(SKIP_CANCEL_CONFIRM_KEY), true);
		assert.deepEqual(log.listRefreshes, ['runs']);
		assert.equal(asked.length, 1);
		const billing = agent('Refactor billing module');
		const started = await env.client.createRun(billing.id, { prompt: 'wait [[hold]]' });
		await runActions.cancel.run({ agentId: billing.id, run: started }, kit);
		assert.notEqual((await env.client.getRun(billing.id, started.id)).status, 'running');
		assert.equal(asked.length, 1, 'not asked again');
	});

	test('Cancel Run for automation naming the run: not asked, unless it says confirm: true', async () => {
		const triage = agent('CI triage');
		const active = (await runsOf('CI triage')).find((x) => x.status === 'running')!;
		const asked = answerModal(undefined);
		const ask = kitOf({ arg: automation({ agentId: triage.id, runId: active.id, confirm: true }), automation: true });
		assert.equal(await runActions.cancel.run({ agentId: triage.id, run: active }, ask.kit), undefined);
		assert.equal(asked.length, 1);
		const quiet = kitOf({ arg: automation({ agentId: triage.id, runId: active.id }), automation: true });
		await runActions.cancel.run({ agentId: triage.id, run: active }, quiet.kit);
		assert.equal(asked.length, 1);
		assert.notEqual((await env.client.getRun(triage.id, active.id)).status, 'running');
		assert.equal(runActions.cancel.filter(active), true);
		assert.equal(runActions.resume.filter(active), false);
	});

	test('Resume Run (automation with a prompt): a new run started, the agent remembered, the run followed', async () => {
		const billing = agent('Refactor billing module');
		const done = (await runsOf('Refactor billing module'))[0]!;
		const { kit, log } = kitOf({ arg: automation({ agentId: billing.id, runId: done.id, prompt: 'Go on' }), automation: true });
		const run = (await runActions.resume.run({ agentId: billing.id, run: done }, kit)) as Run;
		assert.notEqual(run.id, done.id);
		assert.equal(run.prompt, 'Go on');
		assert.deepEqual(state.get('cloudAgents.recentAgents'), [billing.id]);
		assert.deepEqual(log.listRefreshes, ['runs']);
		assert.deepEqual(followed, [{ agentId: billing.id, runId: run.id, hint: undefined }]);
	});

	test('Resume Run by a person: the prompt asked (empty allowed); dismissed starts nothing', async () => {
		const billing = agent('Refactor billing module');
		const done = (await runsOf('Refactor billing module'))[0]!;
		let validate: ((v: string) => string | undefined) | undefined;
		fake.answer('window.showInputBox', async (o: { validateInput: typeof validate }) => {
			validate = o.validateInput;
			return undefined;
		});
		const before = (await runsOf('Refactor billing module')).length;
		const { kit } = kitOf();
		assert.equal(await runActions.resume.run({ agentId: billing.id, run: done }, kit), undefined);
		assert.equal(validate!(''), undefined);
		assert.match(validate!('x'.repeat(LIMITS.promptBytes + 1))!, /the limit is 65536 bytes/);
		assert.equal((await runsOf('Refactor billing module')).length, before);
		assert.deepEqual(followed, []);
	});

	test('Send Follow-up with a prompt past the limit: refused with a warning before sending', async () => {
		const billing = agent('Refactor billing module');
		const done = (await runsOf('Refactor billing module'))[0]!;
		const before = (await env.emu.counters()).requests.total;
		const { kit } = kitOf({
			arg: automation({ agentId: billing.id, runId: done.id, prompt: 'x'.repeat(LIMITS.promptBytes + 1) }),
			automation: true,
		});
		assert.equal(await runActions.followUp.run({ agentId: billing.id, run: done }, kit), undefined);
		assert.match(fake.calls('window.showWarningMessage')[0]![0] as string, /^Not sent: prompt must be /);
		assert.equal((await env.emu.counters()).requests.total, before);
		assert.deepEqual(followed, []);
	});

	test('Send Follow-up by a person: an empty prompt is refused in the box; the prompt sent starts a followed run', async () => {
		const billing = agent('Refactor billing module');
		const done = (await runsOf('Refactor billing module'))[0]!;
		let validate: ((v: string) => string | undefined) | undefined;
		fake.answer('window.showInputBox', async (o: { validateInput: typeof validate; prompt: string }) => {
			validate = o.validateInput;
			assert.match(o.prompt, /starts a new run that continues this one/);
			return 'And the tests';
		});
		const { kit } = kitOf();
		const run = (await runActions.followUp.run({ agentId: billing.id, run: done }, kit)) as Run;
		assert.equal(validate!('  '), 'Enter a prompt.');
		assert.equal(run.prompt, 'And the tests');
		assert.equal(followed[0]!.runId, run.id);
	});

	test('a failing start that is not a validation error is thrown', async () => {
		const billing = agent('Refactor billing module');
		const { kit } = kitOf({ arg: automation({ agentId: billing.id, runId: 'run_nope', prompt: 'x' }), automation: true });
		await assert.rejects(
			runActions.followUp.run({ agentId: billing.id, run: { id: 'run_nope', status: 'succeeded' } as Run }, kit),
			(err: Error & { status?: number }) => err.status === 404,
		);
	});

	test('Follow a Run: a run row or ids followed as given, with the names it carries; else the pick', async () => {
		const { kit } = kitOf({ arg: { run: { id: 'run_a', agent_id: 'agt_a', prompt: 'Hello' } } });
		await runActions.follow.run(kit);
		assert.deepEqual(followed, [{ agentId: 'agt_a', runId: 'run_a', hint: { agentName: undefined, prompt: 'Hello' } }]);
		let resolved = 0;
		const picked = kitOf({ extra: { resolve: async () => (resolved++, { agentId: 'agt_b', run: { id: 'run_b' } }) } as never });
		await runActions.follow.run(picked.kit);
		assert.equal(resolved, 1);
		assert.deepEqual(followed[1], { agentId: 'agt_b', runId: 'run_b', hint: {} });
	});

	test('Copy ID copies the run id', async () => {
		const { kit, log } = kitOf();
		await runActions.copyId.run({ agentId: 'a', run: { id: 'run_x' } as Run }, kit);
		assert.deepEqual(log.copies, [{ text: 'run_x', message: 'Copied the run ID run_x' }]);
	});

	test("the status bar's actions: nothing followed is said; an action runs on the followed run", async () => {
		const none = kitOf({ extra: { follower: { statusRunInfo: undefined } } as never });
		assert.equal(await runActions.followedRunActions.run(none.kit), undefined);
		assert.deepEqual(none.log.infos, ['No run is being followed.']);
		const calls: string[] = [];
		const invoked: unknown[] = [];
		const follower = {
			statusRunInfo: {
				agentId: 'agt',
				runId: 'run',
				title: '$(zap) t',
				status: 'running',
				actions: ['showOutput', 'cancel', 'stopFollowing'],
			},
			show: () => (calls.push('show'), false),
			follow: async () => void calls.push('follow'),
			stop: (a: string, r: string) => void calls.push(`stop ${a}/${r}`),
			dismissStatus: () => void calls.push('dismiss'),
		};
		const { kit } = kitOf({
			arg: automation({ action: 'showOutput' }),
			extra: { follower, invoke: async (_a: unknown, arg: unknown) => void invoked.push(arg) } as never,
		});
		assert.equal(await runActions.followedRunActions.run(kit), 'showOutput');
		assert.deepEqual(calls, ['show', 'follow'], 'not shown: followed again');
		const cancel = kitOf({
			arg: automation({ action: 'cancel' }),
			extra: { follower, invoke: async (_a: unknown, arg: unknown) => void invoked.push(arg) } as never,
		});
		await runActions.followedRunActions.run(cancel.kit);
		assert.deepEqual(invoked, [{ agentId: 'agt', runId: 'run', confirm: true }], 'cancel asks first');
		// An action the run does not offer is not taken.
		const dismiss = kitOf({ arg: automation({ action: 'dismiss' }), extra: { follower } as never });
		assert.equal(await runActions.followedRunActions.run(dismiss.kit), undefined);
		assert.ok(!calls.includes('dismiss'));
		// A person picks from the menu, titled by the run (a codicon shown as typed).
		fake.answer('window.showQuickPick', async (items: Array<{ action: string }>) => items.find((i) => i.action === 'stopFollowing'));
		const person = kitOf({ extra: { follower } as never });
		assert.equal(await runActions.followedRunActions.run(person.kit), 'stopFollowing');
		assert.deepEqual(calls.at(-1), 'stop agt/run');
		assert.equal((fake.calls('window.showQuickPick')[0]![1] as { title: string }).title, '\\$(zap) t');
	});

	test('Stop Following: the named run; the only one; a pick among several; none said', async () => {
		const stopped: string[] = [];
		const followerOf = (following: Array<{ agentId: string; runId: string; status?: string }>) => ({
			following,
			stateOf: () => undefined,
			stop: (a: string, r: string) => void stopped.push(`${a}/${r}`),
		});
		const named = kitOf({ arg: { agentId: 'a1', runId: 'r1' }, extra: { follower: followerOf([]) } as never });
		await runActions.stopFollowing.run(named.kit);
		const only = kitOf({ extra: { follower: followerOf([{ agentId: 'a2', runId: 'r2' }]) } as never });
		await runActions.stopFollowing.run(only.kit);
		fake.answer('window.showQuickPick', async (items: unknown[]) => items[1]);
		const many = kitOf({
			extra: {
				follower: followerOf([
					{ agentId: 'a3', runId: 'r3' },
					{ agentId: 'a4', runId: 'r4' },
				]),
			} as never,
		});
		await runActions.stopFollowing.run(many.kit);
		assert.deepEqual(stopped, ['a1/r1', 'a2/r2', 'a4/r4']);
		const none = kitOf({ extra: { follower: followerOf([]) } as never });
		await runActions.stopFollowing.run(none.kit);
		assert.deepEqual(none.log.infos, ['No run is being followed.']);
	});
});
