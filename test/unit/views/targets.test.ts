import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ScmTargets } from '../../../src/views/actions';
import type { ListContext, ListDescriptor } from '../../../src/views/descriptor';
import type { CloudAgentViews } from '../../../src/views/index';
import { RecordNode } from '../../../src/views/rows';
import { resolveFiles, resolveLink, resolveTarget } from '../../../src/views/targets';
import type { TargetDeps } from '../../../src/views/targets';
import * as fake from '../support/vscodeFake';

interface Agent {
	id: string;
	name: string;
	keys?: boolean;
}
interface Run {
	id: string;
	agentId: string;
	status: string;
}

/** The lists and the service behind them: agents, and the runs of an agent (a `selection` list). */
function world() {
	const agents: Agent[] = [
		{ id: 'a1', name: 'First', keys: true },
		{ id: 'a2', name: 'Second' },
		{ id: 'a3', name: 'Third', keys: true },
	];
	const runs: Run[] = [
		{ id: 'r1', agentId: 'a1', status: 'running' },
		{ id: 'r2', agentId: 'a1', status: 'done' },
		{ id: 'r3', agentId: 'a2', status: 'running' },
	];
	const gets: string[] = [];
	const choices: string[] = [];
	const agentList: ListDescriptor<Agent, { agent: Agent }, undefined> = {
		key: 'agents',
		kind: 'agent',
		source: { list: async () => ({ items: agents, more: false }) },
		keyOf: (a) => a.id,
		row: (a) => ({ label: a.name, contextValue: 'agent' }),
		fields: (agent) => ({ agent }),
		target: {
			idField: 'agentId',
			get: async (_ctx, id) => {
				gets.push(`agent:${id}`);
				return agents.find((a) => a.id === id);
			},
			choices: async () => {
				choices.push('agents');
				return agents;
			},
			pickText: (a) => ({ label: a.name, description: a.id }),
			placeholder: () => 'Pick an agent',
			recentKey: 'recent.agents',
		},
	};
	const runList: ListDescriptor<Run, { agentId: string | undefined; run: Run }, Agent> = {
		key: 'runs',
		kind: 'run',
		parent: { as: 'selection', of: agentList, selectLabel: () => 'Select an agent', selectTooltip: () => 'Select an agent.' },
		source: { list: async () => ({ items: runs, more: false }) },
		keyOf: (r) => r.id,
		row: (r) => ({ label: r.id, contextValue: 'run' }),
		fields: (run, agentId) => ({ agentId, run }),
		target: {
			idField: 'runId',
			get: async (_ctx, id, agentId) => {
				gets.push(`run:${agentId}/${id}`);
				return runs.find((r) => r.id === id && r.agentId === agentId);
			},
			choices: async (_ctx, agentId) => {
				choices.push(`runs of ${agentId}`);
				return runs.filter((r) => r.agentId === agentId);
			},
			pickText: (r) => ({ label: r.id, detail: r.status }),
			placeholder: (agent) => `Runs of ${agent?.name ?? '?'}`,
			notFound: (id) => `No run ${id} here.`,
			parentFilter: (a) => a.keys === true,
			matchOnDetail: false,
		},
	};
	const state = new Map<string, unknown>();
	const selection = new Map<string, unknown>();
	/** The loaded rows and parent each provider holds. */
	const loaded = new Map<string, { items: { id: string }[]; parent?: Agent }>();
	const ctx: ListContext = { client: () => assert.fail('no client'), lookup: () => undefined, flag: () => false };
	const views = {
		ctx,
		providerOf: (d: ListDescriptor<unknown, object, unknown>) => {
			const l = loaded.get(d.key) ?? { items: [] };
			return { parent: l.parent, find: (id: string) => l.items.find((i) => i.id === id) };
		},
		selected: (d: ListDescriptor<unknown, object, unknown>) => selection.get(d.key),
	};
	const deps: TargetDeps = {
		views: views as unknown as CloudAgentViews,
		context: { globalState: { get: (k: string) => state.get(k) } } as unknown as vscode.ExtensionContext,
	};
	return { agents, runs, agentList, runList, gets, choices, state, selection, loaded, deps, ctx };
}

type World = ReturnType<typeof world>;

function rowOf<T>(w: World, descriptor: ListDescriptor<T, object, unknown>, record: T, parent?: Agent): RecordNode {
	const parentKey = parent?.id;
	return new RecordNode(descriptor, record, parent, undefined, { ...w.ctx, parent, parentKey }, false);
}

/** Answers every quick pick the resolver shows with `choose` (given the items, once loaded), recording each. */
function answerPicks(choose: (items: readonly fake.FakeQuickPick['items'][number][], pick: fake.FakeQuickPick) => unknown) {
	const shown: fake.FakeQuickPick[] = [];
	fake.answer('window.createQuickPick', () => {
		const pick = new fake.FakeQuickPick();
		shown.push(pick);
		let items = pick.items;
		Object.defineProperty(pick, 'items', {
			get: () => items,
			set: (value: typeof items) => {
				items = value;
				if (value.length > 0) {
					queueMicrotask(() => {
						const choice = choose(value, pick);
						if (choice === undefined) {
							pick.hide();
						} else {
							pick.accept(choice as (typeof value)[number]);
						}
					});
				}
			},
		});
		return pick;
	});
	return shown;
}

const TITLE = { title: 'Do It' };

/** src/views/targets.ts: the one rule that finds what a command acts on. */
suite('views/targets', () => {
	test('a row of the list: its fields, nothing read', async () => {
		const w = world();
		const row = rowOf(w, w.runList, w.runs[0]!, w.agents[0]);
		assert.deepEqual(await resolveTarget(w.deps, w.runList, row, TITLE), { agentId: 'a1', run: w.runs[0] });
		assert.deepEqual(w.gets, []);
	});

	test('a row of a list named in alsoOn is taken as it is; a row of another list is read by the id it carries', async () => {
		const w = world();
		const other: ListDescriptor<Agent, { agent: Agent }, undefined> = { ...w.agentList, key: 'accountAgents' };
		const otherRow = rowOf(w, other, w.agents[1]!);
		assert.deepEqual(await resolveTarget(w.deps, w.agentList, otherRow, { ...TITLE, alsoOn: [other] }), { agent: w.agents[1] });
		assert.deepEqual(w.gets, []);
		// A run row given to an agent command: its `agentId` field names the agent.
		const runRow = rowOf(w, w.runList, w.runs[2]!, w.agents[1]);
		assert.deepEqual(await resolveTarget(w.deps, w.agentList, runRow, TITLE), { agent: w.agents[1] });
		assert.deepEqual(w.gets, ['agent:a2']);
	});

	test('an id as a string or in an automation object is read through target.get', async () => {
		const w = world();
		assert.deepEqual(await resolveTarget(w.deps, w.agentList, 'a3', TITLE), { agent: w.agents[2] });
		assert.deepEqual(await resolveTarget(w.deps, w.agentList, { automation: true, agentId: 'a1' }, TITLE), { agent: w.agents[0] });
		assert.deepEqual(w.gets, ['agent:a3', 'agent:a1']);
	});

	test('an id that does not exist: the descriptor’s message, else "<kind> <id> was not found."', async () => {
		const w = world();
		await assert.rejects(resolveTarget(w.deps, w.agentList, 'nope', TITLE), { message: 'agent nope was not found.' });
		await assert.rejects(resolveTarget(w.deps, w.runList, { agentId: 'a1', runId: 'r9' }, TITLE), { message: 'No run r9 here.' });
	});

	test('a list with no target cannot be resolved from an id', async () => {
		const w = world();
		const bare: ListDescriptor<Agent, { agent: Agent }, undefined> = { ...w.agentList, target: undefined };
		await assert.rejects(resolveTarget(w.deps, bare, 'a1', TITLE), { message: 'the list agents declares no target' });
	});

	test('a record under a parent takes the parent from the same object, without asking for it', async () => {
		const w = world();
		assert.deepEqual(await resolveTarget(w.deps, w.runList, { agentId: 'a1', runId: 'r2' }, TITLE), { agentId: 'a1', run: w.runs[1] });
		assert.deepEqual(w.gets, ['run:a1/r2']);
		assert.equal(fake.calls('window.createQuickPick').length, 0);
	});

	test('a run id alone: the parent is the selected agent', async () => {
		const w = world();
		w.selection.set('agents', w.agents[1]);
		assert.deepEqual(await resolveTarget(w.deps, w.runList, 'r3', TITLE), { agentId: 'a2', run: w.runs[2] });
	});

	test('preferLoaded takes the loaded row, but only when the list shows the same parent', async () => {
		const w = world();
		const loadedRun = { ...w.runs[0]!, status: 'as loaded' };
		w.loaded.set('runs', { items: [loadedRun], parent: w.agents[0] });
		const prefer: typeof w.runList = { ...w.runList, target: { ...w.runList.target!, preferLoaded: true } };
		assert.deepEqual(await resolveTarget(w.deps, prefer, { agentId: 'a1', runId: 'r1' }, TITLE), { agentId: 'a1', run: loadedRun });
		assert.deepEqual(w.gets, []);
		w.loaded.set('runs', { items: [loadedRun], parent: w.agents[1] });
		assert.deepEqual(await resolveTarget(w.deps, prefer, { agentId: 'a1', runId: 'r1' }, TITLE), { agentId: 'a1', run: w.runs[0] });
		assert.deepEqual(w.gets, ['run:a1/r1'], 'another parent shown: read');
		// Without preferLoaded, always read.
		w.loaded.set('runs', { items: [loadedRun], parent: w.agents[0] });
		await resolveTarget(w.deps, w.runList, { agentId: 'a1', runId: 'r1' }, TITLE);
		assert.equal(w.gets.length, 2);
	});

	test('useSelection takes the selected record before asking', async () => {
		const w = world();
		w.selection.set('agents', w.agents[2]);
		assert.deepEqual(await resolveTarget(w.deps, w.agentList, undefined, { ...TITLE, useSelection: true }), { agent: w.agents[2] });
		assert.equal(fake.calls('window.createQuickPick').length, 0);
	});

	test("the command's own picker replaces the quick pick; its dismissal is undefined", async () => {
		const w = world();
		assert.deepEqual(await resolveTarget(w.deps, w.agentList, undefined, { ...TITLE, pick: async () => w.agents[1] }), {
			agent: w.agents[1],
		});
		assert.equal(await resolveTarget(w.deps, w.agentList, undefined, { ...TITLE, pick: async () => undefined }), undefined);
		assert.equal(fake.calls('window.createQuickPick').length, 0);
	});

	test('the quick pick: the filter narrows it, recently used first and said so, safe text, title and placeholder', async () => {
		const w = world();
		w.agents[1]!.name = '$(trash) Second\nline';
		w.state.set('recent.agents', ['a3', 42, 'gone', 'a2']);
		let offered: readonly vscode.QuickPickItem[] = [];
		const shown = answerPicks((items) => {
			offered = items;
			return items[1];
		});
		const result = await resolveTarget(w.deps, w.agentList, undefined, { ...TITLE, filter: (a) => a.id !== 'a1' });
		assert.deepEqual(
			offered.map((i) => [i.label, i.description]),
			[
				['Third', 'a3 · recently used'],
				['\\$(trash) Second line', 'a2 · recently used'],
			],
		);
		assert.deepEqual(result, { agent: w.agents[1] });
		assert.equal(shown[0]!.title, 'Do It');
		assert.equal(shown[0]!.placeholder, 'Pick an agent');
		assert.equal(shown[0]!.matchOnDetail, true, 'matches on the detail by default');
	});

	test('recently used ids that are not a list are ignored; dismissing the pick is undefined', async () => {
		const w = world();
		w.state.set('recent.agents', 'a3');
		let offered: readonly vscode.QuickPickItem[] = [];
		answerPicks((items) => {
			offered = items;
			return undefined;
		});
		assert.equal(await resolveTarget(w.deps, w.agentList, undefined, TITLE), undefined);
		assert.deepEqual(
			offered.map((i) => i.label),
			['First', 'Second', 'Third'],
		);
		assert.deepEqual(
			offered.map((i) => i.description),
			['a1', 'a2', 'a3'],
			'none said to be recently used',
		);
	});

	test('nothing named and nothing selected: the parent is picked first (among those parentFilter keeps), then the record', async () => {
		const w = world();
		const offered: string[][] = [];
		const shown = answerPicks((items) => {
			offered.push(items.map((i) => i.label));
			return items[0];
		});
		const result = await resolveTarget(w.deps, w.runList, undefined, TITLE);
		assert.deepEqual(offered, [
			['First', 'Third'],
			['r1', 'r2'],
		]);
		assert.deepEqual(w.choices, ['agents', 'runs of a1']);
		assert.deepEqual(result, { agentId: 'a1', run: w.runs[0] });
		assert.equal(shown[1]!.placeholder, 'Runs of First', 'the placeholder names the parent picked');
		assert.equal(shown[1]!.matchOnDetail, false);
	});

	test('dismissing the parent pick ends there', async () => {
		const w = world();
		answerPicks(() => undefined);
		assert.equal(await resolveTarget(w.deps, w.runList, undefined, TITLE), undefined);
		assert.deepEqual(w.choices, ['agents']);
	});
});

interface Link {
	id: string;
	control: object;
}
interface File {
	link: string;
	path: string;
}

/** Source Control as a feature sees it: links, each with files under a root folder. */
function scmWorld() {
	const links: Link[] = [
		{ id: 'L1', control: { name: 'control 1' } },
		{ id: 'L2', control: { name: 'control 2' } },
	];
	const roots: Record<string, string> = { L1: '/work/one', L2: '/work/two' };
	const groups = new Map<object, Link>();
	const filesOfCalls: string[][] = [];
	const scm: ScmTargets<Link, File> = {
		links: () => links,
		linkById: (id) => links.find((l) => l.id === id),
		linkOfControl: (arg) => links.find((l) => l.control === arg) ?? (typeof arg === 'object' && arg ? groups.get(arg) : undefined),
		filesOfUri: (uri, link) =>
			links
				.filter((l) => (link === undefined || l === link) && uri.path.startsWith(`${roots[l.id]}/`))
				.map((l) => ({ link: l.id, path: uri.path.slice(roots[l.id]!.length + 1) })),
		filesOf: (link, paths) => {
			filesOfCalls.push([...(paths ?? [])]);
			return (paths ?? ['all']).map((path) => ({ link: link.id, path }));
		},
		linkOfFile: (file) => links.find((l) => l.id === file.link)!,
		keyOf: (file) => `${file.link}:${file.path}`,
		pickText: (link) => ({ label: `$(repo) ${link.id}`, description: roots[link.id] }),
		noLinks: () => 'No agent is linked.',
	};
	const state = (path: string): { resourceUri: vscode.Uri } => ({ resourceUri: vscode.Uri.file(path) });
	return { links, groups, scm, state, filesOfCalls };
}

suite('views/targets (Source Control)', () => {
	const told: string[] = [];
	const options = { title: 'Unlink', placeHolder: 'Which link?', tell: (m: string): void => void told.push(m) };
	setup(() => told.splice(0));

	test('resolveLink: a source control or group of ours is its link', async () => {
		const s = scmWorld();
		assert.equal(await resolveLink(s.scm, s.links[1]!.control, options), s.links[1]);
		const group = { resourceStates: [] };
		s.groups.set(group, s.links[0]!);
		assert.equal(await resolveLink(s.scm, group, options), s.links[0]);
	});

	test('resolveLink: {link} names one; one that is gone is an error', async () => {
		const s = scmWorld();
		assert.equal(await resolveLink(s.scm, { link: 'L2' }, options), s.links[1]);
		await assert.rejects(resolveLink(s.scm, { link: 'L9' }, options), { message: 'No link L9.' });
	});

	test('resolveLink: a resource state or a local URI is the link of its file', async () => {
		const s = scmWorld();
		assert.equal(await resolveLink(s.scm, s.state('/work/two/src/a.ts'), options), s.links[1]);
		assert.equal(await resolveLink(s.scm, vscode.Uri.file('/work/one/b.ts'), options), s.links[0]);
	});

	test('resolveLink from the palette: the only link; none (says so); several (a pick of safe rows)', async () => {
		const s = scmWorld();
		fake.answer('window.showQuickPick', async (items: Array<{ link: Link }>) => items[1]);
		assert.equal(await resolveLink(s.scm, undefined, options), s.links[1]);
		const [items, pickOptions] = fake.calls('window.showQuickPick')[0] as [Array<vscode.QuickPickItem & { link: Link }>, unknown];
		assert.deepEqual(
			items.map((i) => [i.label, i.description]),
			[
				['\\$(repo) L1', '/work/one'],
				['\\$(repo) L2', '/work/two'],
			],
		);
		assert.deepEqual(pickOptions, { title: 'Unlink', placeHolder: 'Which link?' });
		fake.answer('window.showQuickPick', async () => undefined);
		assert.equal(await resolveLink(s.scm, undefined, options), undefined);
		s.links.splice(1);
		assert.equal(await resolveLink(s.scm, undefined, options), s.links[0]);
		assert.deepEqual(told, []);
		s.links.splice(0);
		assert.equal(await resolveLink(s.scm, undefined, options), undefined);
		assert.deepEqual(told, ['No agent is linked.']);
	});

	test('resolveFiles: the clicked state and the selection, each file once, in order', () => {
		const s = scmWorld();
		const a = s.state('/work/one/a.ts');
		const b = s.state('/work/one/b.ts');
		const c = s.state('/work/two/c.ts');
		assert.deepEqual(resolveFiles(s.scm, [b, [a, b, c]]), [
			{ link: 'L1', path: 'b.ts' },
			{ link: 'L1', path: 'a.ts' },
			{ link: 'L2', path: 'c.ts' },
		]);
		assert.deepEqual(resolveFiles(s.scm, [[[a]]]), [], 'an array inside the selection is not followed');
		assert.deepEqual(resolveFiles(s.scm, []), []);
		assert.deepEqual(resolveFiles(s.scm, [undefined, 'x', 3, { resourceUri: '/work/one/a.ts' }]), []);
	});

	test('resolveFiles: a group of ours is its states’ files in its own link only', () => {
		const s = scmWorld();
		const group = { resourceStates: [s.state('/work/one/a.ts'), s.state('/work/two/x.ts'), { resourceUri: 'bad' }, null] };
		s.groups.set(group, s.links[0]!);
		assert.deepEqual(resolveFiles(s.scm, [group]), [{ link: 'L1', path: 'a.ts' }]);
	});

	test('resolveFiles: {link, paths} names files (only strings, at most 10 000); an unknown link or no paths names none', () => {
		const s = scmWorld();
		assert.deepEqual(resolveFiles(s.scm, [{ link: 'L2', paths: ['x.ts', 7, 'y.ts', 'x.ts'] }]), [
			{ link: 'L2', path: 'x.ts' },
			{ link: 'L2', path: 'y.ts' },
		]);
		assert.deepEqual(resolveFiles(s.scm, [{ link: 'L9', paths: ['x.ts'] }]), []);
		assert.deepEqual(resolveFiles(s.scm, [{ link: 'L1' }]), []);
		const many = Array.from({ length: 10_005 }, (_, i) => `f${i}`);
		assert.equal(resolveFiles(s.scm, [{ link: 'L1', paths: many }]).length, 10_000);
		assert.equal(s.filesOfCalls.at(-1)!.length, 10_000);
	});
});
