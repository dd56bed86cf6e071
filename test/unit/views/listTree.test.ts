import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, NetworkError } from '../../../src/api';
import type { Page } from '../../../src/api';
import type { CommandId, ViewId } from '../../../src/ids';
import { Connectivity } from '../../../src/views/connectivity';
import type { ListContext, ListDescriptor, PageRequest } from '../../../src/views/descriptor';
import { MIN_DELAY_MS } from '../../../src/views/listModel';
import { clockTime } from '../../../src/views/format';
import { DescriptorTreeProvider, RETRY_NOW_COMMAND, pageSize } from '../../../src/views/listTree';
import type { ListHost } from '../../../src/views/listTree';
import { ROW_CACHE_KEY, RowCache } from '../../../src/views/rowCache';
import { LoadMoreNode, RecordNode } from '../../../src/views/rows';
import { FakeClock } from '../support/fakeClock';
import { captureTimeouts } from '../support/until';
import type { CapturedTimer } from '../support/until';
import * as fake from '../support/vscodeFake';

interface Agent {
	id: string;
	name: string;
	status: string;
}
interface Run {
	id: string;
	agentId: string;
}

const VIEW = 'cloudAgents.agents' as ViewId;
const REFRESH = 'cloudAgents.refreshAgents' as CommandId;
const MORE = 'cloudAgents.loadMoreAgents' as CommandId;

/** A cursor-paged service of agents (cursor `@<offset>`), and of the runs of each; `fail` makes reads throw it. */
function service(count = 3) {
	const s = {
		agents: Array.from({ length: count }, (_, i): Agent => ({ id: `a${i + 1}`, name: `Agent ${i + 1}`, status: 'idle' })),
		runs: [] as Run[],
		fail: undefined as Error | undefined,
		requests: [] as Array<PageRequest & { parent: unknown }>,
		page: async (_ctx: ListContext, request: PageRequest, parent: unknown): Promise<Page<Agent>> => {
			s.requests.push({ ...request, parent });
			await Promise.resolve();
			if (s.fail !== undefined) {
				throw s.fail;
			}
			const start = request.cursor === undefined ? 0 : Number(request.cursor.slice(1));
			const end = start + request.limit;
			return { items: s.agents.slice(start, end), nextCursor: end < s.agents.length ? `@${end}` : undefined };
		},
	};
	return s;
}

type Service = ReturnType<typeof service>;

function agentsOf(
	s: Service,
	extra: Partial<ListDescriptor<Agent, { agent: Agent }, undefined>> = {},
): ListDescriptor<Agent, { agent: Agent }, undefined> {
	return {
		key: 'agents',
		kind: 'agent',
		viewId: VIEW,
		commands: { refresh: REFRESH, loadMore: MORE },
		source: { page: s.page },
		keyOf: (a) => a.id,
		name: (a) => a.name,
		row: (a) => ({ label: a.name, description: a.status, contextValue: `agent:${a.status}`, tooltip: () => `Agent ${a.id}` }),
		fields: (agent) => ({ agent }),
		empty: () => ({ label: 'No agents', tooltip: 'Create one.' }),
		isActive: (a) => a.status === 'running',
		...extra,
	};
}

function runsUnder(s: Service, key = 'runs'): ListDescriptor<Run, { run: Run }, Agent> {
	return {
		key,
		kind: 'run',
		title: () => `Title ${key}`,
		source: { list: async (_ctx, _request, agent) => ({ items: s.runs.filter((r) => r.agentId === agent.id), more: false }) },
		keyOf: (r) => r.id,
		row: (r) => ({ label: r.id, contextValue: 'run' }),
		fields: (run) => ({ run }),
		parent: undefined,
	};
}

/** A host over a session the test signs in and out, a connectivity on a fake clock, and recorded errors. */
function hostOf(options: { rowCache?: RowCache } = {}) {
	const changed = new vscode.EventEmitter<void>();
	// The lists time their reads by Date.now (ListModel.fetchStartedAt): the connectivity's wall clock starts there too.
	const clock = new FakeClock(Date.now());
	const connectivity = new Connectivity({ clock, random: () => 0 });
	const reported: unknown[] = [];
	const h = {
		signedIn: true,
		onDidChange: changed.event,
		log: { warn: () => undefined, info: () => undefined, error: () => undefined } as unknown as vscode.LogOutputChannel,
		reportError: (err: unknown) => void reported.push(err),
		connectivity,
		rowCache: options.rowCache,
	};
	return { host: h as ListHost & typeof h, changed, clock, connectivity, reported };
}

const ctx: ListContext = { client: () => assert.fail('no client'), lookup: () => undefined, flag: () => false };

/** A tree view the provider attaches to: visible unless said, `message` as VS Code's ('' until set). */
function viewOf(visible = true) {
	const visibility = new vscode.EventEmitter<vscode.TreeViewVisibilityChangeEvent>();
	const v = {
		visible,
		message: '' as string | undefined,
		onDidChangeVisibility: visibility.event,
		setVisible(value: boolean) {
			v.visible = value;
			visibility.fire({ visible: value });
		},
	};
	return v;
}

function attach<T>(tree: DescriptorTreeProvider<T, object, unknown>, visible = true): ReturnType<typeof viewOf> {
	const v = viewOf(visible);
	tree.attach(v as unknown as vscode.TreeView<vscode.TreeItem>);
	return v;
}

function labelOf(row: vscode.TreeItem): string {
	return typeof row.label === 'string' ? row.label : (row.label?.label ?? '');
}

/** The rows as short strings: a record's label; a message row as `[<contextValue>] <label>`; "Load more…" as `more`. */
function text(rows: vscode.TreeItem[]): string[] {
	return rows.map((r) =>
		r instanceof RecordNode ? labelOf(r) : r instanceof LoadMoreNode ? 'more' : `[${r.contextValue ?? ''}] ${labelOf(r)}`,
	);
}

/** The next whole-tree change (`undefined`) the provider fires. */
function nextRedraw<T>(tree: DescriptorTreeProvider<T, object, unknown>): Promise<void> {
	return new Promise((resolve) => {
		const sub = tree.onDidChangeTreeData((e) => {
			if (e === undefined) {
				sub.dispose();
				resolve();
			}
		});
	});
}

/** src/views/listTree.ts: the provider of every list view, over a fake service, a real Connectivity (fake clock) and the `vscode` fake. */
suite('views/listTree', () => {
	const owned: Array<{ dispose(): void }> = [];
	teardown(() => {
		for (const d of owned.splice(0).reverse()) {
			d.dispose();
		}
	});

	function provider<T, F extends object, P>(
		descriptor: ListDescriptor<T, F, P>,
		h = hostOf(),
		children: ListDescriptor<unknown, object, T>[] = [],
	): { tree: DescriptorTreeProvider<T, F, P>; h: ReturnType<typeof hostOf> } {
		const tree = new DescriptorTreeProvider(descriptor, h.host, ctx, children);
		owned.push(h.connectivity, tree);
		return { tree, h };
	}

	test('pageSize: cloudAgents.pageSize when it is an integer of at least 1, at most 100; else 50', () => {
		assert.equal(pageSize(), 50);
		for (const [value, expected] of [
			[20, 20],
			[1, 1],
			[250, 100],
			[0, 50],
			[-3, 50],
			[2.5, 50],
			['30', 50],
		] as const) {
			fake.settings['cloudAgents.pageSize'] = value;
			assert.equal(pageSize(), expected, String(value));
		}
	});

	test('clockTime: hours, minutes and seconds of the display language; an unknown language falls back', () => {
		const at = new Date(2030, 0, 1, 14, 2, 11).getTime();
		assert.match(clockTime(at), /14:02:11|2:02:11/);
		Object.assign(fake.env, { language: 'not a language tag!' });
		try {
			assert.match(clockTime(at), /02:11/);
		} finally {
			Object.assign(fake.env, { language: 'en' });
		}
	});

	test('signed out: no rows (the welcome content shows)', async () => {
		const s = service();
		const { tree, h } = provider(agentsOf(s));
		h.host.signedIn = false;
		assert.deepEqual(await tree.getChildren(), []);
		assert.equal(s.requests.length, 0);
	});

	test('the records of the first page, then "Load more…"; it reads the next page with the cursor', async () => {
		fake.settings['cloudAgents.pageSize'] = 2;
		const s = service(3);
		const { tree } = provider(agentsOf(s));
		const rows = await tree.getChildren();
		assert.deepEqual(text(rows), ['Agent 1', 'Agent 2', 'more']);
		assert.equal(rows[0]!.id, 'agent/a1');
		assert.equal((rows[2] as LoadMoreNode).command?.command, MORE);
		assert.deepEqual(
			s.requests.map((r) => [r.cursor, r.limit]),
			[[undefined, 2]],
		);
		const redrawn = nextRedraw(tree);
		await tree.loadMore();
		await redrawn;
		assert.deepEqual(text(await tree.getChildren()), ['Agent 1', 'Agent 2', 'Agent 3']);
		assert.equal(s.requests[1]!.cursor, '@2');
		assert.deepEqual(
			tree.records.map((a) => a.id),
			['a1', 'a2', 'a3'],
		);
		await tree.loadMore();
		assert.equal(s.requests.length, 2, 'no more pages: nothing read');
	});

	test('an empty list: the descriptor’s empty row; without one, no rows and the view’s "found nothing" context key', async () => {
		const s = service(0);
		const { tree } = provider(agentsOf(s));
		const rows = await tree.getChildren();
		assert.deepEqual(text(rows), ['[empty] No agents']);
		assert.equal(rows[0]!.tooltip, 'Create one.');
		const emptyKeys = (): unknown[] =>
			fake
				.calls('commands.executeCommand')
				.filter((c) => c[0] === 'setContext' && c[1] === `${VIEW}.empty`)
				.map((c) => c[2]);
		assert.deepEqual(emptyKeys(), [false], 'a row shows: the welcome content does not');
		const { tree: bare } = provider(agentsOf(s, { empty: undefined }));
		assert.deepEqual(await bare.getChildren(), []);
		assert.deepEqual(emptyKeys(), [false, true]);
		await bare.getChildren();
		assert.deepEqual(emptyKeys(), [false, true], 'set only when it changes');
		s.agents.push({ id: 'a1', name: 'Agent 1', status: 'idle' });
		await bare.refresh();
		await bare.getChildren();
		assert.deepEqual(emptyKeys(), [false, true, false]);
	});

	test('a failed read: "Could not load" with the reason, and Retry running the refresh command', async () => {
		const s = service();
		s.fail = new ApiError(500, 'internal', 'database on fire', undefined);
		const { tree, h } = provider(agentsOf(s));
		const rows = await tree.getChildren();
		assert.deepEqual(text(rows), ['[error] Could not load', '[retry] Retry']);
		assert.match(rows[0]!.tooltip as string, /^Could not load: database on fire/);
		assert.equal(rows[1]!.command?.command, REFRESH);
		assert.deepEqual(h.reported, [s.fail], 'the host hears the failure');
		s.fail = undefined;
		await tree.refresh();
		assert.deepEqual(text(await tree.getChildren()), ['Agent 1', 'Agent 2', 'Agent 3']);
	});

	test('a refused token: "Sign in again", Retry and Sign In', async () => {
		const s = service();
		s.fail = new ApiError(401, 'unauthorized', 'bad token', undefined);
		const { tree } = provider(agentsOf(s));
		const rows = await tree.getChildren();
		assert.deepEqual(text(rows), ['[error] Sign in again', '[retry] Retry', '[signIn] Sign In…']);
		assert.equal(rows[0]!.description, 'token refused');
		assert.equal(rows[2]!.command?.command, 'cloudAgents.signIn');
	});

	test('no answer: an offline row counting down to the next attempt (click: Retry Now); the rows come back when it answers', async () => {
		fake.settings['cloudAgents.pageSize'] = 5;
		const s = service();
		const { tree, h } = provider(agentsOf(s));
		attach(tree);
		await tree.getChildren();
		s.fail = new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:9', false);
		await tree.refresh();
		const rows = await tree.getChildren();
		assert.deepEqual(text(rows), ['[offline] Offline — retrying in 5 s', 'Agent 1', 'Agent 2', 'Agent 3']);
		assert.equal(rows[0]!.command?.command, RETRY_NOW_COMMAND);
		assert.match(rows[0]!.tooltip as string, /^Cannot reach the Cloud Agents service since .*ECONNREFUSED/);
		assert.match(rows[0]!.tooltip as string, /The rows below are as last loaded/);
		assert.ok(h.connectivity.state, 'the shared connectivity is offline');
		// The countdown redraws that one row, in place.
		const changedRows: unknown[] = [];
		tree.onDidChangeTreeData((e) => changedRows.push(e));
		await h.clock.advance(1000);
		assert.equal(rows[0]!.label, 'Offline — retrying in 4 s');
		assert.deepEqual(changedRows, [rows[0]]);
		// It answers again: the next attempt reads the list.
		s.fail = undefined;
		const redrawn = nextRedraw(tree);
		await h.connectivity.retryNow();
		await redrawn;
		assert.equal(h.connectivity.state, undefined);
		assert.deepEqual(text(await tree.getChildren()), ['Agent 1', 'Agent 2', 'Agent 3']);
	});

	test('offline before anything was loaded: the row says nothing could be loaded yet', async () => {
		const s = service();
		s.fail = new NetworkError('timeout', 'timed out', true);
		const { tree } = provider(agentsOf(s));
		attach(tree);
		const rows = await tree.getChildren();
		assert.equal(rows.length, 1);
		assert.match(rows[0]!.tooltip as string, /Nothing could be loaded yet/);
	});

	test('a list following a selection: "Select an agent" until a parent is set; then the parent’s records', async () => {
		const s = service();
		s.runs = [
			{ id: 'r1', agentId: 'a1' },
			{ id: 'r2', agentId: 'a2' },
		];
		const agents = agentsOf(s);
		const runs: ListDescriptor<Run, { run: Run }, Agent> = {
			...runsUnder(s),
			parent: {
				as: 'selection',
				of: agents,
				selectLabel: () => 'Select an agent',
				selectTooltip: () => 'Select an agent to see its runs.',
			},
		};
		const { tree } = provider(runs);
		const rows = await tree.getChildren();
		assert.deepEqual(text(rows), ['[message] Select an agent']);
		assert.equal(rows[0]!.id, 'runs/selectAgent');
		assert.equal(rows[0]!.tooltip, 'Select an agent to see its runs.');
		tree.setParent(s.agents[0]);
		assert.equal(tree.parent, s.agents[0]);
		assert.deepEqual(text(await tree.getChildren()), ['r1']);
		assert.equal((await tree.getChildren())[0]!.id, 'run/a1/r1');
		const renamed = { ...s.agents[0]!, name: 'Renamed' };
		tree.setParent(renamed);
		assert.equal(tree.parent, renamed, 'the same parent again: only the record is updated');
		tree.setParent(s.agents[1]);
		assert.deepEqual(text(await tree.getChildren()), ['r2']);
		tree.setParent(undefined);
		assert.deepEqual(text(await tree.getChildren()), ['[message] Select an agent']);
	});

	test('child lists: one is shown right under the row; several under a group row each; parents lead back', async () => {
		const s = service(1);
		s.runs = [{ id: 'r1', agentId: 'a1' }];
		const runs = runsUnder(s, 'runs');
		const { tree: one } = provider(agentsOf(s), hostOf(), [runs as ListDescriptor<unknown, object, Agent>]);
		const [agent] = await one.getChildren();
		assert.equal(agent!.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
		const runRows = await one.getChildren(agent);
		assert.deepEqual(text(runRows), ['r1']);
		assert.equal(one.getParent(runRows[0]!), agent);
		assert.equal(one.getParent(agent!), undefined);

		const both = [runsUnder(s, 'runs'), runsUnder(s, 'builds')] as ListDescriptor<unknown, object, Agent>[];
		const { tree: two } = provider(agentsOf(s), hostOf(), both);
		const [agent2] = await two.getChildren();
		const groups = await two.getChildren(agent2);
		assert.deepEqual(
			groups.map((g) => [g.label, g.id, g.contextValue]),
			[
				['Title runs', 'agent/a1/runs', 'group:run'],
				['Title builds', 'agent/a1/builds', 'group:run'],
			],
		);
		assert.equal(two.getParent(groups[0]!), agent2);
		assert.deepEqual(text(await two.getChildren(groups[1])), ['r1']);
		assert.deepEqual(await two.getChildren(new vscode.TreeItem('stranger')), []);
	});

	test('refresh: tells who listens, re-reads and redraws; hidden, it only marks the list to read when shown', async () => {
		const s = service();
		const { tree } = provider(agentsOf(s));
		const view = attach(tree);
		await tree.getChildren();
		const requested: unknown[] = [];
		tree.onDidRequestRefresh((p) => requested.push(p));
		const redraws: unknown[] = [];
		tree.onDidChangeTreeData((e) => redraws.push(e));
		await tree.refresh();
		assert.equal(s.requests.length, 2);
		assert.deepEqual(requested, [undefined]);
		assert.deepEqual(redraws, [undefined]);
		view.setVisible(false);
		await tree.refresh();
		assert.equal(s.requests.length, 2, 'hidden: nothing read');
		assert.equal(redraws.length, 2);
		await tree.getChildren();
		assert.equal(s.requests.length, 3, 'read when drawn again');
	});

	test('nothing is told to VS Code before it has asked for rows', async () => {
		const s = service();
		const { tree, h } = provider(agentsOf(s));
		const redraws: unknown[] = [];
		tree.onDidChangeTreeData((e) => redraws.push(e));
		h.changed.fire();
		await tree.refresh();
		assert.deepEqual(redraws, []);
		await tree.getChildren();
		h.changed.fire();
		assert.deepEqual(redraws, [undefined], 'a sign-in change resets and redraws once asked');
	});

	test('find, nameOf and rememberName: loaded records first, then names seen elsewhere (at most 100)', async () => {
		const s = service(2);
		const { tree } = provider(agentsOf(s));
		await tree.getChildren();
		assert.equal(tree.find('a2'), s.agents[1]);
		assert.equal(tree.find('zz'), undefined);
		assert.equal(tree.nameOf('a1'), 'Agent 1');
		assert.equal(tree.nameOf('far'), undefined);
		tree.rememberName({ id: 'far', name: 'Far away', status: 'idle' });
		assert.equal(tree.nameOf('far'), 'Far away');
		for (let i = 0; i < 100; i++) {
			tree.rememberName({ id: `x${i}`, name: `X ${i}`, status: 'idle' });
		}
		assert.equal(tree.nameOf('far'), undefined, 'the oldest name is forgotten');
		assert.equal(tree.nameOf('x99'), 'X 99');
		assert.equal(tree.nodeOf(s.agents[0]!).id, 'agent/a1');
	});

	test('rows are made safe as drawn; a tooltip built on hover is made safe too', async () => {
		const s = service(1);
		s.agents[0]!.name = 'evil\u202E\nname';
		const { tree } = provider(agentsOf(s));
		const [row] = await tree.getChildren();
		const item = tree.getTreeItem(row!);
		assert.equal(item.label, 'evil name');
		assert.equal(item.tooltip, undefined);
		const hovered = tree.resolveTreeItem(new vscode.TreeItem('x'), row!);
		assert.equal(hovered.tooltip, 'Agent a1');
	});

	test('redraw updates every row shown in place and tells VS Code those rows', async () => {
		const s = service(2);
		let suffix = '';
		const { tree } = provider(agentsOf(s, { row: (a) => ({ label: `${a.name}${suffix}`, contextValue: 'agent' }) }));
		const rows = await tree.getChildren();
		const told: unknown[] = [];
		tree.onDidChangeTreeData((e) => told.push(e));
		suffix = ' (followed)';
		tree.redraw();
		assert.deepEqual(
			rows.map((r) => r.label),
			['Agent 1 (followed)', 'Agent 2 (followed)'],
		);
		assert.deepEqual(told, [rows]);
	});

	suite('the automatic refresh (its timer captured, never waited for)', () => {
		const timers = captureTimeouts(MIN_DELAY_MS);

		const live = (): CapturedTimer[] => timers.filter((t) => !t.cleared);

		test('only while visible and a record is in motion; a poll with newer copies updates the rows in place', async () => {
			const s = service(2);
			const { tree } = provider(agentsOf(s));
			const view = attach(tree);
			await tree.getChildren();
			assert.equal(live().length, 0, 'nothing in motion: no poll');
			s.agents[0]!.status = 'running';
			await tree.refresh();
			const rows = await tree.getChildren();
			assert.equal(live().length, 1, 'a record in motion: a poll is armed');
			const told: unknown[] = [];
			tree.onDidChangeTreeData((e) => told.push(e));
			const settled = new Promise<void>((resolve) => tree.onDidSettle(() => resolve()));
			s.agents[0] = { ...s.agents[0]!, status: 'idle' };
			live()[0]!.fn();
			timers.splice(0);
			await settled;
			await new Promise((resolve) => setImmediate(resolve));
			assert.deepEqual(told, [rows.filter((r) => r instanceof RecordNode)], 'the same rows, updated in place');
			assert.equal(rows[0]!.description, 'idle');
			assert.equal(live().length, 0, 'at rest: no further poll');
			// Hidden: no poll even with a record in motion.
			view.setVisible(false);
			tree.markActive('a2', true);
			assert.equal(live().length, 0);
			view.setVisible(true);
			assert.equal(live().length, 1, 'shown again with a marked record: a poll');
			tree.markActive('a2', false);
		});

		test('a poll that brings rows added or removed redraws the whole list', async () => {
			const s = service(1);
			s.agents[0]!.status = 'running';
			const { tree } = provider(agentsOf(s));
			attach(tree);
			await tree.getChildren();
			assert.equal(live().length, 1);
			s.agents.push({ id: 'a9', name: 'New', status: 'idle' });
			const redrawn = nextRedraw(tree);
			live()[0]!.fn();
			await redrawn;
			assert.deepEqual(text(await tree.getChildren()), ['Agent 1', 'New']);
		});
	});

	suite('rows as last loaded', () => {
		class Memento {
			readonly values = new Map<string, unknown>();
			get<T>(key: string): T | undefined {
				return this.values.get(key) as T | undefined;
			}
			async update(key: string, value: unknown): Promise<void> {
				this.values.set(key, value);
			}
		}

		function cached(s: Service) {
			const memento = new Memento();
			const scope = {
				cacheScope: { apiUrl: 'https://api.example.test', account: 'aaaa', since: Date.now() - 1000 },
				onDidChange: new vscode.EventEmitter<void>().event,
			};
			const rowCache = new RowCache(memento as unknown as vscode.Memento, scope);
			owned.push(rowCache);
			const descriptor = agentsOf(s, {
				cache: {
					store: (a) => ({ id: a.id, name: a.name }),
					restore: (v) => {
						const o = v as { id?: unknown; name?: unknown };
						return typeof o.id === 'string' && typeof o.name === 'string'
							? { id: o.id, name: o.name, status: 'unknown' }
							: undefined;
					},
				},
			});
			return { memento, rowCache, descriptor };
		}

		test('a fresh answer is kept; the next view shows it at once, marked, then the answer replaces it', async () => {
			const s = service(2);
			const c = cached(s);
			const first = provider(c.descriptor, hostOf({ rowCache: c.rowCache }));
			await first.tree.getChildren();
			const kept = c.memento.get<Record<string, { items: unknown[] }>>(ROW_CACHE_KEY);
			assert.deepEqual(kept?.agents?.items, [
				{ id: 'a1', name: 'Agent 1' },
				{ id: 'a2', name: 'Agent 2' },
			]);
			// Something the cache holds that fails `restore`, and a duplicate: both left out.
			c.memento.get<Record<string, { items: unknown[] }>>(ROW_CACHE_KEY)!.agents!.items.push({ id: 7 }, { id: 'a1', name: 'Again' });
			s.agents[0]!.name = 'Agent 1 renamed';
			const second = provider(c.descriptor, hostOf({ rowCache: c.rowCache }));
			const redrawn = nextRedraw(second.tree);
			const marked = await second.tree.getChildren();
			assert.deepEqual(text(marked), ['Agent 1', 'Agent 2']);
			assert.ok(marked.every((r) => r instanceof RecordNode && r.cachedAt !== undefined));
			assert.match(String(marked[0]!.description), /^cached/);
			await redrawn;
			const fresh = await second.tree.getChildren();
			assert.deepEqual(text(fresh), ['Agent 1 renamed', 'Agent 2']);
			assert.ok(fresh.every((r) => r instanceof RecordNode && r.cachedAt === undefined));
		});

		test('the answer fails: the error row above the rows as last loaded, and the view says when they were loaded', async () => {
			const s = service(2);
			const c = cached(s);
			await provider(c.descriptor, hostOf({ rowCache: c.rowCache })).tree.getChildren();
			s.fail = new ApiError(500, 'internal', 'down', undefined);
			const { tree } = provider(c.descriptor, hostOf({ rowCache: c.rowCache }));
			const view = attach(tree);
			const redrawn = nextRedraw(tree);
			await tree.getChildren();
			await redrawn;
			const rows = await tree.getChildren();
			assert.deepEqual(text(rows), ['[error] Could not load', '[retry] Retry', 'Agent 1', 'Agent 2']);
			assert.match(String(view.message), /^Last loaded .* — not refreshed$/);
		});

		test('a refused token: the rows as last loaded are dropped at once', async () => {
			const s = service(2);
			const c = cached(s);
			await provider(c.descriptor, hostOf({ rowCache: c.rowCache })).tree.getChildren();
			s.fail = new ApiError(401, 'unauthorized', 'no', undefined);
			const { tree } = provider(c.descriptor, hostOf({ rowCache: c.rowCache }));
			const redrawn = nextRedraw(tree);
			await tree.getChildren();
			await redrawn;
			assert.deepEqual(text(await tree.getChildren()), ['[error] Sign in again', '[retry] Retry', '[signIn] Sign In…']);
		});
	});
});
