import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError } from '../../../src/api';
import type { CloudAgentsClient } from '../../../src/api';
import { Connectivity } from '../../../src/views/connectivity';
import type { AnyListDescriptor, ListDescriptor } from '../../../src/views/descriptor';
import { GroupedTreeProvider } from '../../../src/views/groupTree';
import type { Deployment } from '../../../src/auth/deployments';
import { DeploymentRootNode } from '../../../src/views/deploymentTree';
import { refreshList, scopeOf, showDeployments } from '../../../src/views/deploymentViews';
import { automation } from '../../../src/views/automation';
import { CloudAgentViews, DescriptorTreeProvider, RecordNode } from '../../../src/views/index';
import type { ViewRows } from '../../../src/views/index';
import type { DeploymentSource, DeploymentViewSession } from '../../../src/views/index';
import { READ_AHEAD_FRESH_MS } from '../../../src/views/listTree';
import { until } from '../support/until';
import * as fake from '../support/vscodeFake';

interface Agent {
	id: string;
	name: string;
}
interface Run {
	id: string;
	agentId: string;
}
interface Group {
	id: string;
}

/** A tree view as `window.createTreeView` gives it, recording reveals; the test fires its selection. */
class FakeTreeView {
	visible = true;
	message: string | undefined = '';
	description: string | undefined;
	readonly reveals: unknown[][] = [];
	readonly selection = new vscode.EventEmitter<{ selection: vscode.TreeItem[] }>();
	readonly onDidChangeSelection = this.selection.event;
	readonly onDidChangeVisibility = new vscode.EventEmitter<{ visible: boolean }>().event;
	disposed = false;
	revealFails = false;
	constructor(
		readonly id: string,
		readonly options: { treeDataProvider: unknown; showCollapseAll: boolean },
	) {}
	async reveal(...args: unknown[]): Promise<void> {
		this.reveals.push(args);
		if (this.revealFails) {
			throw new Error('not rendered');
		}
	}
	dispose(): void {
		this.disposed = true;
	}
}

/** The service: agents, their runs, a 404 for the runs of an agent that is gone; every request recorded. */
function service() {
	const s = {
		agents: [
			{ id: 'a1', name: 'First' },
			{ id: 'a2', name: 'Second' },
		] as Agent[],
		runs: [
			{ id: 'r1', agentId: 'a1' },
			{ id: 'r2', agentId: 'a2' },
		] as Run[],
		gone: new Set<string>(),
		requests: [] as string[],
		gets: [] as string[],
	};
	const agents: ListDescriptor<Agent, { agent: Agent }, undefined> = {
		key: 'agents',
		kind: 'agent',
		viewId: 'cloudAgents.agents',
		source: {
			list: async () => {
				s.requests.push('agents');
				return { items: s.agents, more: false };
			},
		},
		keyOf: (a) => a.id,
		name: (a) => a.name,
		row: (a) => ({ label: a.name, contextValue: 'agent' }),
		fields: (agent) => ({ agent }),
		readAhead: true,
		target: {
			idField: 'agentId',
			get: async (_ctx, id) => {
				s.gets.push(id);
				return s.agents.find((a) => a.id === id && !s.gone.has(id));
			},
			choices: async () => s.agents,
			pickText: (a) => ({ label: a.name }),
			placeholder: () => 'Agent',
		},
	};
	const runs: ListDescriptor<Run, { run: Run }, Agent> = {
		key: 'runs',
		kind: 'run',
		viewId: 'cloudAgents.runs',
		parent: { as: 'selection', of: agents, selectLabel: () => 'Select an agent', selectTooltip: () => 'Select an agent.' },
		source: {
			list: async (_ctx, _r, agent) => {
				s.requests.push(`runs of ${agent.id}`);
				if (s.gone.has(agent.id)) {
					throw new ApiError(404, 'not_found', `agent ${agent.id} not found`, undefined);
				}
				return { items: s.runs.filter((r) => r.agentId === agent.id), more: false };
			},
		},
		keyOf: (r) => r.id,
		row: (r) => ({ label: r.id, contextValue: `run:${ctxFlag(r)}` }),
		fields: (run) => ({ run }),
	};
	/** Set by the test once the views exist: how a run row reads the `followed` flag. */
	let ctxFlag = (_r: Run): string => '';
	const artifacts: ListDescriptor<{ id: string }, object, Run> = {
		key: 'artifacts',
		kind: 'artifact',
		parent: { as: 'children', of: runs },
		source: { list: async () => ({ items: [], more: false }) },
		keyOf: (a) => a.id,
		row: (a) => ({ label: a.id, contextValue: 'artifact' }),
		fields: () => ({}),
	};
	const images: ListDescriptor<{ id: string }, object, undefined> = {
		key: 'images',
		kind: 'image',
		source: { list: async () => ({ items: [{ id: 'img1' }], more: false }) },
		keyOf: (a) => a.id,
		row: (a) => ({ label: a.id, contextValue: 'image' }),
		fields: () => ({}),
	};
	const account: ListDescriptor<Group, object, undefined> = {
		key: 'account',
		kind: 'accountGroup',
		viewId: 'cloudAgents.account',
		groups: [images],
		source: { list: async () => ({ items: [{ id: 'images' }], more: false }) },
		keyOf: (g) => g.id,
		row: (g) => ({ label: g.id, contextValue: 'group' }),
		fields: () => ({}),
	};
	return {
		s,
		agents,
		runs,
		artifacts,
		images,
		account,
		lists: [agents, runs, artifacts, images, account] as AnyListDescriptor[],
		setRunFlag: (fn: (r: Run) => string) => {
			ctxFlag = fn;
		},
	};
}

class Memento {
	readonly values = new Map<string, unknown>();
	get<T>(key: string): T | undefined {
		return this.values.get(key) as T | undefined;
	}
	async update(key: string, value: unknown): Promise<void> {
		if (value === undefined) {
			this.values.delete(key);
		} else {
			this.values.set(key, value);
		}
	}
}

/** src/views/index.ts: the views of the container over fake tree views, a fake session and lists. */
suite('views/index', () => {
	let views: CloudAgentViews | undefined;
	let connectivity: Connectivity;
	let treeViews: FakeTreeView[];
	let changed: vscode.EventEmitter<void>;
	let session: { signedIn: boolean; onDidChange: vscode.Event<void>; client: CloudAgentsClient };
	let reported: unknown[];

	setup(() => {
		treeViews = [];
		fake.answer('window.createTreeView', (id: string, options: FakeTreeView['options']) => {
			const view = new FakeTreeView(id, options);
			treeViews.push(view);
			return view;
		});
		changed = new vscode.EventEmitter<void>();
		session = { signedIn: true, onDidChange: changed.event, client: {} as CloudAgentsClient };
		connectivity = new Connectivity();
		reported = [];
	});

	teardown(() => {
		views?.dispose();
		views = undefined;
		connectivity.dispose();
	});

	function make(w: ReturnType<typeof service>, memory?: Memento): CloudAgentViews {
		views = new CloudAgentViews(
			session,
			{ warn: () => undefined } as unknown as vscode.LogOutputChannel,
			(err) => reported.push(err),
			w.lists,
			connectivity,
			undefined,
			memory as unknown as vscode.Memento,
		);
		return views;
	}

	const view = (id: string): FakeTreeView => treeViews.find((v) => v.id === id)!;

	test('one tree view per list with a view id; a subtree is served by its parent’s provider; a group view by a grouped one', () => {
		const w = service();
		const v = make(w);
		assert.deepEqual(
			treeViews.map((t) => [t.id, t.options.showCollapseAll]),
			[
				['cloudAgents.agents', false],
				['cloudAgents.runs', false],
				['cloudAgents.account', true],
			],
		);
		assert.ok(v.providerOf(w.agents) instanceof DescriptorTreeProvider);
		// The view draws the default deployment's rows through what the features replace with the tree of deployments.
		assert.equal(typeof (view('cloudAgents.agents').options.treeDataProvider as ViewRows).setTarget, 'function');
		assert.equal(view('cloudAgents.agents').options.treeDataProvider, v.viewOf(w.agents)?.rows);
		assert.equal(v.providerOf(w.artifacts), v.providerOf(w.runs), 'the artifacts under a run row: the runs provider');
		assert.equal(v.providerOf(w.images).key, 'images', 'a group’s list has a provider, no view of its own');
		assert.ok(v.groupViews.get('account')?.main instanceof GroupedTreeProvider);
		assert.equal(view('cloudAgents.account').options.treeDataProvider, v.viewOf(w.account)?.rows);
		assert.equal(v.viewOf(w.images), undefined);
		assert.throws(() => v.providerOf({ ...w.images, key: 'nothing' }), { message: 'no list nothing' });
		assert.equal(v.providerOf({ ...w.agents }), v.providerOf(w.agents), 'a copy of a descriptor finds its provider by key');
	});

	test('readAhead (issue 44): the first page is read before the view asks, and its first drawing is that page, with no second read', async () => {
		const w = service();
		// The rows are built once with the page (the first drawing then runs code already compiled).
		const built: string[] = [];
		const row = w.agents.row;
		w.agents.row = (agent, ctx) => {
			built.push(agent.id);
			return row(agent, ctx);
		};
		const v = make(w);
		v.readAhead();
		await until(() => w.s.requests.length === 1, 'the read ahead');
		await until(() => v.providerOf(w.agents).find('a1') !== undefined, 'the page kept');
		assert.deepEqual(built, ['a1', 'a2'], 'the rows built with the page read ahead');
		const contextKeys = (): unknown[][] => fake.calls('commands.executeCommand').filter(([id]) => id === 'setContext');
		// The view's "empty" context key goes with the read ahead, not with the click's rows (a
		// setContext sent with them reaches the window first and holds them back).
		assert.deepEqual(contextKeys(), [['setContext', 'cloudAgents.agents.empty', false]]);
		const rows = await v.providerOf(w.agents).getChildren();
		assert.deepEqual(
			rows.map((r) => r.label),
			['First', 'Second'],
		);
		assert.deepEqual(w.s.requests, ['agents'], 'drawn from the page read ahead');
		assert.equal(contextKeys().length, 1, 'the first drawing sets no context key');
		// Once the view has asked, nothing is read ahead any more.
		v.readAhead();
		assert.deepEqual(w.s.requests, ['agents']);
	});

	test('readAhead: nothing while signed out; a page older than READ_AHEAD_FRESH_MS is read again when the view first draws', async () => {
		const w = service();
		session.signedIn = false;
		const v = make(w);
		v.readAhead();
		assert.deepEqual(w.s.requests, []);
		session.signedIn = true;
		const realNow = Date.now;
		try {
			v.readAhead();
			await until(() => v.providerOf(w.agents).find('a1') !== undefined, 'the page kept');
			const later = realNow() + READ_AHEAD_FRESH_MS + 1;
			Date.now = () => later;
			w.s.agents.push({ id: 'a3', name: 'Third' });
			const rows = await v.providerOf(w.agents).getChildren();
			assert.deepEqual(w.s.requests, ['agents', 'agents'], 'read again');
			assert.deepEqual(
				rows.map((r) => r.label),
				['First', 'Second', 'Third'],
			);
		} finally {
			Date.now = realNow;
		}
	});

	test('selecting an agent row makes Runs show its runs, names it in the Runs view and remembers it', async () => {
		const w = service();
		const memory = new Memento();
		const v = make(w, memory);
		const [row] = await v.providerOf(w.agents).getChildren();
		view('cloudAgents.agents').selection.fire({ selection: [row!] });
		assert.equal(v.selected(w.agents), w.s.agents[0]);
		assert.equal(view('cloudAgents.runs').description, 'First');
		assert.equal(memory.get('cloudAgents.selected.agents'), 'a1');
		const runs = await v.providerOf(w.runs).getChildren();
		assert.deepEqual(
			runs.map((r) => r.id),
			['run/a1/r1'],
		);
		// A selection that is no agent row changes nothing.
		view('cloudAgents.agents').selection.fire({ selection: [new vscode.TreeItem('x')] });
		assert.equal(v.selected(w.agents), w.s.agents[0]);
		v.select(w.agents, undefined);
		assert.equal(v.selected(w.agents), undefined);
		assert.equal(view('cloudAgents.runs').description, undefined);
		assert.equal(memory.get('cloudAgents.selected.agents'), undefined);
	});

	test('signing out drops the selection', () => {
		const w = service();
		const v = make(w);
		v.select(w.agents, w.s.agents[1]);
		changed.fire();
		assert.equal(v.selected(w.agents), w.s.agents[1], 'still signed in: kept');
		session.signedIn = false;
		changed.fire();
		assert.equal(v.selected(w.agents), undefined);
	});

	test('selectById: a loaded record is revealed and selected; another is read; a read outrun by a click gives way', async () => {
		const w = service();
		const v = make(w);
		await v.providerOf(w.agents).getChildren();
		assert.equal(await v.selectById(w.agents, 'a2'), w.s.agents[1]);
		const [node, options] = view('cloudAgents.agents').reveals[0]!;
		assert.ok(node instanceof RecordNode && node.id === 'agent/a2');
		assert.deepEqual(options, { select: true, focus: false });
		assert.deepEqual(w.s.gets, []);
		view('cloudAgents.agents').revealFails = true;
		assert.equal(await v.selectById(w.agents, 'a1'), w.s.agents[0], 'a view not rendered yet: selected all the same');
		w.s.agents.push({ id: 'a3', name: 'Third' });
		v.providerOf(w.agents).reset();
		assert.equal(await v.selectById(w.agents, 'a3'), w.s.agents[2]);
		assert.deepEqual(w.s.gets, ['a3']);
		v.select(w.agents, w.s.agents[0]);
		assert.equal(await v.selectById(w.agents, 'a2', () => false), w.s.agents[0], 'another row selected meanwhile stands');
		assert.equal(await v.selectById(w.agents, undefined), undefined);
		assert.equal(v.selected(w.agents), undefined);
	});

	test('after a reload the remembered agent is selected again once signed in; one that is gone is forgotten', async () => {
		const w = service();
		const memory = new Memento();
		memory.values.set('cloudAgents.selected.agents', 'a2');
		session.signedIn = false;
		const v = make(w, memory);
		assert.equal(v.selected(w.agents), undefined, 'signed out: not yet');
		session.signedIn = true;
		changed.fire();
		await until(() => v.selected(w.agents) !== undefined, 'the selection to come back');
		assert.equal(v.selected(w.agents), w.s.agents[1]);
		v.dispose();
		views = undefined;

		const gone = service();
		gone.s.gone.add('a2');
		const memory2 = new Memento();
		memory2.values.set('cloudAgents.selected.agents', 'a2');
		make(gone, memory2);
		await until(() => memory2.get('cloudAgents.selected.agents') === undefined, 'the gone agent to be forgotten');
	});

	test('the runs of an agent deleted meanwhile (404): the selection is dropped, "Select an agent" again', async () => {
		const w = service();
		const v = make(w);
		v.select(w.agents, w.s.agents[0]);
		w.s.gone.add('a1');
		const rows = await v.providerOf(w.runs).getChildren();
		assert.equal(rows[0]!.contextValue, 'error');
		assert.equal((reported[0] as ApiError).status, 404, 'the failure is still reported');
		await until(() => v.selected(w.agents) === undefined, 'the selection to go');
		const again = await v.providerOf(w.runs).getChildren();
		assert.equal(again[0]!.label, 'Select an agent');
	});

	test('ctx.lookup finds a record another list loaded; ctx.flag reads the flags set', async () => {
		const w = service();
		const v = make(w);
		assert.equal(v.ctx.lookup(w.agents, 'a1'), undefined, 'not loaded yet');
		await v.providerOf(w.agents).getChildren();
		assert.equal(v.ctx.lookup(w.agents, 'a1'), w.s.agents[0]);
		assert.equal(v.ctx.flag('followed', 'r1', 'a1'), false, 'an unknown flag holds for nothing');
		v.setFlag('followed', (key, parentKey) => key === 'r1' && parentKey === 'a1');
		assert.equal(v.ctx.flag('followed', 'r1', 'a1'), true);
		assert.equal(v.ctx.flag('followed', 'r1', 'a2'), false);
		// redrawAll reads every row again: the flag shows.
		w.setRunFlag((r) => (v.ctx.flag('followed', r.id, r.agentId) ? 'followed' : ''));
		v.select(w.agents, w.s.agents[0]);
		const [run] = await v.providerOf(w.runs).getChildren();
		assert.equal(run!.contextValue, 'run:followed');
		v.setFlag('followed', () => false);
		v.redrawAll();
		assert.equal(run!.contextValue, 'run:');
	});

	test('refreshAll reads every list again; refreshFollowing only those following the selection', async () => {
		const w = service();
		const v = make(w);
		v.select(w.agents, w.s.agents[0]);
		await v.providerOf(w.agents).getChildren();
		await v.providerOf(w.runs).getChildren();
		w.s.requests.splice(0);
		await v.refreshFollowing(w.agents);
		assert.deepEqual(w.s.requests, ['runs of a1']);
		w.s.requests.splice(0);
		await v.refreshAll();
		assert.deepEqual(w.s.requests.sort(), ['agents', 'runs of a1']);
	});

	test('a change of cloudAgents.pageSize makes every list start over', async () => {
		const w = service();
		const v = make(w);
		await v.providerOf(w.agents).getChildren();
		assert.equal(v.providerOf(w.agents).records.length, 2);
		fake.changeSettings({ 'cloudAgents.theme': 'x' });
		assert.equal(v.providerOf(w.agents).records.length, 2, 'another setting: nothing');
		fake.changeSettings({ 'cloudAgents.pageSize': 10 });
		assert.equal(v.providerOf(w.agents).records.length, 0);
	});

	test('several deployments (issue 47): a root row each, rows know their deployment, the selection follows it, sign-out drops its rows', async () => {
		const w = service();
		const mainClient = { who: 'main' } as unknown as CloudAgentsClient;
		const stagingClient = { who: 'staging' } as unknown as CloudAgentsClient;
		session.client = mainClient;
		// The agents come from the client the lists read with: the same id on both services.
		const agents: ListDescriptor<Agent, { agent: Agent }, undefined> = {
			...w.agents,
			source: {
				list: async (ctx) => {
					w.s.requests.push(ctx.client() === stagingClient ? 'staging agents' : 'agents');
					return { items: ctx.client() === stagingClient ? [{ id: 'a1', name: 'Staging first' }] : w.s.agents, more: false };
				},
			},
		};
		const stagingChanged = new vscode.EventEmitter<void>();
		const staging = { signedIn: true, onDidChange: stagingChanged.event, client: stagingClient, cacheScope: undefined };
		const sourceChanged = new vscode.EventEmitter<void>();
		const deployment = (id: string, name: string, apiUrl: string, isDefault: boolean): Deployment => ({ id, name, apiUrl, isDefault });
		const source: DeploymentSource = {
			all: [
				{
					deployment: deployment('main-0123456789ab', '127.0.0.1:8787', 'http://127.0.0.1:8787', true),
					session: session as unknown as DeploymentViewSession,
				},
				{
					deployment: deployment('staging-0123456789ab', 'Staging', 'http://127.0.0.1:9999', false),
					session: staging as unknown as DeploymentViewSession,
				},
			],
			onDidChange: sourceChanged.event,
		};
		views = new CloudAgentViews(
			session,
			{ warn: () => undefined } as unknown as vscode.LogOutputChannel,
			(err) => reported.push(err),
			[agents, w.runs, w.artifacts, w.images, w.account],
			connectivity,
		);
		const v = views;
		const shown = showDeployments(v, source, new Memento() as unknown as vscode.Memento);
		const tree = v.viewOf(agents)!.rows;
		const roots = (await tree.getChildren())!;
		assert.ok(roots.every((r) => r instanceof DeploymentRootNode));
		assert.deepEqual(
			roots.map((r) => [r.id, r.label, r.description]),
			[
				['deployment:main-0123456789ab', '127.0.0.1:8787', undefined],
				['deployment:staging-0123456789ab', 'Staging', '127.0.0.1:9999'],
			],
		);
		const mainRows = (await tree.getChildren(roots[0]))!;
		const stagingRows = (await tree.getChildren(roots[1]))!;
		assert.deepEqual(
			mainRows.map((r) => [r.id, r.label]),
			[
				['agent/a1', 'First'],
				['agent/a2', 'Second'],
			],
		);
		assert.deepEqual(
			stagingRows.map((r) => [r.id, r.label]),
			[['staging-0123456789ab:agent/a1', 'Staging first']],
		);
		// A row's actions act with its own deployment's lists and client.
		const scope = scopeOf(v, stagingRows[0]);
		assert.equal(scope.lists.ctx.client(), stagingClient);
		assert.equal(scope.session, staging);
		assert.equal(scope.deployment?.name, 'Staging');
		assert.equal(scopeOf(v, mainRows[0]).lists, v);
		assert.equal(scopeOf(v, mainRows[0]).session, undefined, "the default deployment's: the services' own session");
		// An automation argument naming a deployment (a chat tool's call on its agent) acts with it; naming
		// the default deployment, with the default's; naming no signed-in one, it is refused (never the default).
		assert.equal(scopeOf(v, automation({ agentId: 'a1', deployment: 'staging' })).session, staging);
		assert.equal(scopeOf(v, automation({ agentId: 'a1', deployment: 'staging-0123456789ab' })).deployment?.name, 'Staging');
		assert.equal(scopeOf(v, automation({ agentId: 'a1', deployment: '127.0.0.1:8787' })).session, undefined);
		assert.throws(
			() => scopeOf(v, automation({ agentId: 'a1', deployment: 'Production' })),
			/No signed-in deployment is named "Production"/,
		);
		assert.equal(
			scopeOf(v, { agentId: 'a1', deployment: 'staging' }).session,
			undefined,
			'a plain object (a click) names no deployment',
		);
		// Selecting the staging agent: the Runs view follows it under Staging's root row; the default deployment selects nothing.
		v.select(agents, w.s.agents[0]);
		view('cloudAgents.agents').selection.fire({ selection: [stagingRows[0]!] });
		assert.equal(v.selected(agents), undefined);
		assert.equal(scope.lists.selected(agents)?.name, 'Staging first');
		assert.equal(view('cloudAgents.runs').description, 'Staging first');
		const runs = v.viewOf(w.runs)!.rows;
		const runRoots = (await runs.getChildren())!;
		assert.deepEqual(
			(await runs.getChildren(runRoots[0]))!.map((r) => r.label),
			['Select an agent'],
		);
		assert.deepEqual(
			(await runs.getChildren(runRoots[1]))!.map((r) => [r.id, r.label]),
			[['staging-0123456789ab:run/a1/r1', 'r1']],
		);
		// The view's Refresh reads every deployment's list; a row's own argument only its deployment's.
		w.s.requests.splice(0);
		await refreshList(v, agents, undefined);
		assert.deepEqual(w.s.requests.sort(), ['agents', 'staging agents']);
		// Signing out of Staging: its root row goes, the default deployment's rows are shown alone again.
		staging.signedIn = false;
		sourceChanged.fire();
		assert.equal(scope.lists.selected(agents), undefined, 'its selection went with it');
		assert.equal(view('cloudAgents.runs').description, undefined);
		const after = (await tree.getChildren())!;
		assert.deepEqual(
			after.map((r) => [r.id, r.label]),
			[
				['agent/a1', 'First'],
				['agent/a2', 'Second'],
			],
		);
		assert.equal(scopeOf(v, stagingRows[0]).lists, v, 'a row of a deployment no longer shown acts as nothing of it');
		assert.throws(() => scopeOf(v, automation({ agentId: 'a1', deployment: 'Staging' })), /No signed-in deployment/);
		shown.dispose();
		stagingChanged.dispose();
		sourceChanged.dispose();
	});

	test("several deployments (issue 47): the Account view shows each signed-in deployment's groups under its root row; with one, its groups as before", async () => {
		const w = service();
		const stagingClient = { who: 'staging' } as unknown as CloudAgentsClient;
		// The images come from the client the lists read with.
		const images: ListDescriptor<{ id: string }, object, undefined> = {
			...w.images,
			source: { list: async (ctx) => ({ items: [{ id: ctx.client() === stagingClient ? 'staging-img' : 'img1' }], more: false }) },
		};
		const account = { ...w.account, groups: [images] };
		const stagingChanged = new vscode.EventEmitter<void>();
		const staging = { signedIn: false, onDidChange: stagingChanged.event, client: stagingClient, cacheScope: undefined };
		const sourceChanged = new vscode.EventEmitter<void>();
		const source: DeploymentSource = {
			all: [
				{
					deployment: { id: 'main-0123456789ab', name: '127.0.0.1:8787', apiUrl: 'http://127.0.0.1:8787', isDefault: true },
					session: session as unknown as DeploymentViewSession,
				},
				{
					deployment: { id: 'staging-0123456789ab', name: 'Staging', apiUrl: 'http://127.0.0.1:9999', isDefault: false },
					session: staging as unknown as DeploymentViewSession,
				},
			],
			onDidChange: sourceChanged.event,
		};
		views = new CloudAgentViews(
			session,
			{ warn: () => undefined } as unknown as vscode.LogOutputChannel,
			(err) => reported.push(err),
			[w.agents, w.runs, w.artifacts, images, account],
			connectivity,
		);
		const v = views;
		const shown = showDeployments(v, source, new Memento() as unknown as vscode.Memento);
		const tree = v.viewOf(account)!.rows;
		const labels = async (element?: vscode.TreeItem): Promise<Array<[string | undefined, unknown]>> =>
			((await tree.getChildren(element)) ?? []).map((r) => [r.id, r.label]);
		// One deployment signed in: its group rows as they always were.
		const alone = (await tree.getChildren())!;
		assert.deepEqual(await labels(), [['accountGroup/images', 'images']]);
		assert.deepEqual(await labels(alone[0]), [['image/img1', 'img1']]);
		assert.ok(!JSON.stringify(await labels()).includes('127.0.0.1:8787'));
		// Staging signed in too: a root row each, each deployment's groups and records under it.
		staging.signedIn = true;
		sourceChanged.fire();
		const roots = (await tree.getChildren())!;
		assert.deepEqual(
			roots.map((r) => [r.id, r.label, r.contextValue]),
			[
				['deployment:main-0123456789ab', '127.0.0.1:8787', 'deployment'],
				['deployment:staging-0123456789ab', 'Staging', 'deployment'],
			],
		);
		const [mainGroups, stagingGroups] = [(await tree.getChildren(roots[0]))!, (await tree.getChildren(roots[1]))!];
		assert.deepEqual(
			mainGroups.map((r) => r.id),
			['accountGroup/images'],
		);
		assert.deepEqual(
			stagingGroups.map((r) => r.id),
			['staging-0123456789ab:accountGroup/images'],
		);
		const stagingImages = (await tree.getChildren(stagingGroups[0]))!;
		assert.deepEqual(
			stagingImages.map((r) => [r.id, r.label]),
			[['staging-0123456789ab:image/staging-img', 'staging-img']],
		);
		assert.deepEqual(await labels(mainGroups[0]), [['image/img1', 'img1']]);
		// A row of Staging's group acts with Staging's client; its parents lead to Staging's root row.
		assert.equal(scopeOf(v, stagingImages[0]).lists.ctx.client(), stagingClient);
		assert.equal(tree.getParent?.(stagingImages[0]!), stagingGroups[0]);
		assert.equal(tree.getParent?.(stagingGroups[0]!), roots[1]);
		// Signing out of Staging: the default deployment's groups alone again.
		staging.signedIn = false;
		sourceChanged.fire();
		assert.deepEqual(await labels(), [['accountGroup/images', 'images']]);
		shown.dispose();
		stagingChanged.dispose();
		sourceChanged.dispose();
	});

	test("several deployments (issue 47): an agent selected on another deployment's row comes back after a reload on that deployment's row", async () => {
		const w = service();
		const stagingClient = { who: 'staging' } as unknown as CloudAgentsClient;
		const gets: string[] = [];
		// The agents come from the client the lists read with: the same id on both services.
		const agents: ListDescriptor<Agent, { agent: Agent }, undefined> = {
			...w.agents,
			source: {
				list: async (ctx) => ({
					items: ctx.client() === stagingClient ? [{ id: 'a1', name: 'Staging first' }] : w.s.agents,
					more: false,
				}),
			},
			target: {
				...w.agents.target!,
				get: async (ctx, id) => {
					gets.push(`${ctx.client() === stagingClient ? 'staging' : 'main'} ${id}`);
					return ctx.client() === stagingClient ? { id, name: 'Staging first' } : w.s.agents.find((a) => a.id === id);
				},
			},
		};
		const memory = new Memento();
		/** A window: the views, the two deployments signed in, each shown. */
		const open = () => {
			const stagingChanged = new vscode.EventEmitter<void>();
			const staging = { signedIn: true, onDidChange: stagingChanged.event, client: stagingClient, cacheScope: undefined };
			const sourceChanged = new vscode.EventEmitter<void>();
			const source: DeploymentSource = {
				all: [
					{
						deployment: { id: 'main-0123456789ab', name: '127.0.0.1:8787', apiUrl: 'http://127.0.0.1:8787', isDefault: true },
						session: session as unknown as DeploymentViewSession,
					},
					{
						deployment: { id: 'staging-0123456789ab', name: 'Staging', apiUrl: 'http://127.0.0.1:9999', isDefault: false },
						session: staging as unknown as DeploymentViewSession,
					},
				],
				onDidChange: sourceChanged.event,
			};
			const v = new CloudAgentViews(
				session,
				{ warn: () => undefined } as unknown as vscode.LogOutputChannel,
				(err) => reported.push(err),
				[agents, w.runs, w.artifacts, w.images, w.account],
				connectivity,
				undefined,
				memory as unknown as vscode.Memento,
			);
			const shown = showDeployments(v, source, new Memento() as unknown as vscode.Memento);
			const close = (): void => {
				shown.dispose();
				v.dispose();
				stagingChanged.dispose();
				sourceChanged.dispose();
			};
			return { v, staging, sourceChanged, close };
		};
		const first = open();
		const tree = first.v.viewOf(agents)!.rows;
		const roots = (await tree.getChildren())!;
		const stagingRow = (await tree.getChildren(roots[1]))![0]!;
		treeViews.at(-3)!.selection.fire({ selection: [stagingRow] });
		assert.equal(scopeOf(first.v, stagingRow).lists.selected(agents)?.name, 'Staging first');
		assert.deepEqual(memory.get('cloudAgents.selected.agents'), { deployment: 'staging-0123456789ab', id: 'a1' });
		// The window closes (a reload): the memory keeps it.
		first.close();
		assert.deepEqual(memory.get('cloudAgents.selected.agents'), { deployment: 'staging-0123456789ab', id: 'a1' });
		// The next window: Staging's agent is selected again on Staging's lists, not the default deployment's a1.
		const second = open();
		const staged = (): Agent | undefined => second.v.deployments?.all()[0]?.selected(agents);
		await until(() => staged() !== undefined, "Staging's agent selected again");
		assert.equal(staged()?.name, 'Staging first');
		assert.equal(second.v.selected(agents), undefined, "the default deployment's agent of the same id is not selected");
		assert.deepEqual(gets, ['staging a1'], "read from Staging's service only");
		assert.equal(treeViews.find((t) => t.id === 'cloudAgents.runs' && !t.disposed)?.description, 'Staging first');
		// Signed out of the default deployment: Staging's selection stays, in the views and in the memory.
		session.signedIn = false;
		changed.fire();
		assert.equal(staged()?.name, 'Staging first');
		assert.deepEqual(memory.get('cloudAgents.selected.agents'), { deployment: 'staging-0123456789ab', id: 'a1' });
		session.signedIn = true;
		changed.fire();
		// Signed out of Staging: its selection is forgotten.
		second.staging.signedIn = false;
		second.sourceChanged.fire();
		assert.equal(memory.get('cloudAgents.selected.agents'), undefined);
		second.close();
		// The default deployment's selection is kept as it always was: its id alone.
		memory.values.set('cloudAgents.selected.agents', { deployment: 'gone-0123456789ab', id: 'a2' });
		const third = open();
		await new Promise((r) => setImmediate(r));
		assert.equal(third.v.selected(agents), undefined, "a kept selection of a deployment not shown is not the default deployment's");
		assert.equal(third.v.deployments?.all()[0]?.selected(agents), undefined);
		third.v.select(agents, w.s.agents[1]);
		assert.equal(memory.get('cloudAgents.selected.agents'), 'a2');
		third.close();
		views = undefined;
	});

	test('dispose disposes every tree view', () => {
		const w = service();
		make(w).dispose();
		views = undefined;
		assert.ok(treeViews.every((t) => t.disposed));
	});
});
