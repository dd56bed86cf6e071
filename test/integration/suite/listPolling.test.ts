import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent } from '../../../src/api';
import type { CloudAgentsTestApi } from '../../../src/extension';
import type { ListContext } from '../../../src/views/descriptor';
import { DescriptorTreeProvider } from '../../../src/views/listTree';
import type { ListHost } from '../../../src/views/listTree';
import { agentsList } from '../../../src/resources/agents';
import { advanceClock, emu, holdClock, restoreDevToken, testApi, waitFor } from '../support/cloudAgents';

/**
 * The automatic refresh of a list (src/views/listTree.ts) against the emulator. Every redraw of a
 * tree (`onDidChangeTreeData` without an element) makes VS Code drop the handles of all its rows
 * until it has read them again; a row's context menu or inline action used in that moment runs
 * without its row (Open Computer then asked which agent) or not at all. So a poll that brings
 * nothing new must not redraw.
 */
/** A row's tooltip as text (ours are plain strings; a MarkdownString's source otherwise). */
const tooltipText = (row: vscode.TreeItem): string => (typeof row.tooltip === 'string' ? row.tooltip : (row.tooltip?.value ?? ''));

/** A row's tooltip as a hover reads it: the item VS Code got, then resolved (tooltips are built on hover). */
const hoverText = (tree: DescriptorTreeProvider<Agent>, row: vscode.TreeItem): string =>
	tooltipText(tree.resolveTreeItem(tree.getTreeItem(row), row));

suite('Automatic refresh of a list', () => {
	let api: CloudAgentsTestApi;
	const disposables: vscode.Disposable[] = [];

	suiteSetup(async function () {
		this.timeout(30_000);
		api = await testApi();
		await restoreDevToken();
	});

	suiteTeardown(() => {
		for (const d of disposables.splice(0)) {
			d.dispose();
		}
	});

	/**
	 * An Agents list (not a view) over the emulator whose runtimes are all named `name` until
	 * `rename`, and the first row of an agent on a runtime.
	 */
	async function agentsWithRuntimeName(
		name: string,
	): Promise<{ tree: DescriptorTreeProvider<Agent>; withRuntime: vscode.TreeItem & { agent: Agent }; rename: (to: string) => void }> {
		const signedIn = new vscode.EventEmitter<void>();
		const log = vscode.window.createOutputChannel('Cloud Agents redraw test', { log: true });
		const host: ListHost = { signedIn: true, onDidChange: signedIn.event, log, reportError: () => undefined };
		let runtimeName = name;
		const ctx: ListContext = {
			client: () => api.session.client,
			lookup: ((_list: unknown, id: string) => ({ id, display_name: runtimeName })) as ListContext['lookup'],
			flag: () => false,
		};
		const tree = new DescriptorTreeProvider(agentsList, host, ctx);
		disposables.push(tree, signedIn, log);
		const rows = await tree.getChildren();
		const withRuntime = rows.find((r): r is vscode.TreeItem & { agent: Agent } => Boolean((r as { agent?: Agent }).agent?.runtime_id));
		assert.ok(withRuntime, 'an agent of the demo seed runs on a runtime');
		return { tree, withRuntime, rename: (to) => (runtimeName = to) };
	}

	test('a redraw (a runtime renamed, a flag changed) reads the shown rows again in place: their handles stay; marking a record active redraws nothing', async function () {
		this.timeout(30_000);
		const { tree, withRuntime, rename } = await agentsWithRuntimeName('before-rename');
		assert.match(hoverText(tree, withRuntime), /before-rename/);
		const fired: Array<vscode.TreeItem | vscode.TreeItem[] | undefined> = [];
		disposables.push(tree.onDidChangeTreeData((e) => fired.push(e)));

		tree.markActive(withRuntime.agent.id, true);
		tree.markActive(withRuntime.agent.id, false);
		assert.deepEqual(fired, [], 'marking a record active changes nothing a row shows');

		rename('after-rename');
		tree.redraw();
		assert.equal(fired.length, 1);
		const changed = fired[0];
		assert.ok(Array.isArray(changed), 'an element refresh of the rows, not of the whole tree (which drops every handle)');
		assert.ok((changed as vscode.TreeItem[]).includes(withRuntime), 'the very row objects VS Code holds');
		assert.equal(withRuntime.tooltip, undefined, 'the tooltip built on the last hover is dropped: the next hover builds it again');
		assert.match(hoverText(tree, withRuntime), /after-rename/, 'the row reads its runtime name again');
	});

	test("a change only the rows' tooltips show (a runtime's name) redraws nothing until a tooltip was built; the tooltip reads the name when built", async function () {
		this.timeout(30_000);
		const { tree, withRuntime, rename } = await agentsWithRuntimeName('first-name');
		const fired: Array<vscode.TreeItem | vscode.TreeItem[] | undefined> = [];
		disposables.push(tree.onDidChangeTreeData((e) => fired.push(e)));

		// The Runtimes view's first page comes while the rows are first drawn: nothing is sent.
		rename('second-name');
		tree.redrawTooltips();
		assert.equal(fired.length, 0, 'no tooltip was built yet: the rows are left alone');
		assert.match(hoverText(tree, withRuntime), /second-name/, 'the tooltip reads the name when it is built');

		// A tooltip VS Code holds would show the old name: the rows are redrawn in place, once.
		rename('third-name');
		tree.redrawTooltips();
		assert.equal(fired.length, 1);
		assert.ok(Array.isArray(fired[0]) && fired[0].includes(withRuntime), 'an element refresh of the rows VS Code holds');
		assert.match(hoverText(tree, withRuntime), /third-name/);
		tree.redraw();
		fired.length = 0;
		tree.redrawTooltips();
		assert.equal(fired.length, 0, 'no tooltip built since the last redraw');
	});

	test("a poll that brings nothing new leaves the rows alone (Open Computer from an agent row's context menu keeps its row); a change on the service updates the rows in place", async function () {
		this.timeout(60_000);
		const signedIn = new vscode.EventEmitter<void>();
		const visibility = new vscode.EventEmitter<vscode.TreeViewVisibilityChangeEvent>();
		const log = vscode.window.createOutputChannel('Cloud Agents polling test', { log: true });
		const host: ListHost = { signedIn: true, onDidChange: signedIn.event, log, reportError: () => undefined };
		const ctx: ListContext = { client: () => api.session.client, lookup: () => undefined, flag: () => false };
		const tree = new DescriptorTreeProvider(agentsList, host, ctx);
		disposables.push(tree, signedIn, visibility, log);
		// The provider polls only while its view is visible: a visible stand-in for the view.
		tree.attach({ visible: true, onDidChangeVisibility: visibility.event } as unknown as vscode.TreeView<vscode.TreeItem>);

		const { agents } = (await emu<{ agents: Agent[] }>('GET', '/_emulator/state')).body;
		const agent = agents.find((a) => a.name === 'Shared reviewer');
		assert.ok(agent, 'the demo seed has the "Shared reviewer" agent');
		// The Agents view lists the most recently active first (issue 33), and a rename is activity: renamed
		// once beforehand, the agent is first already, so the rename below changes its row, not the order.
		// No other agent's activity may match or pass the renames' seconds (the wire has whole seconds).
		// Seen in a reversed run: an agent made ready on an emulator clock that earlier suites had moved
		// ahead of the wall clock was first, above the agent renamed on the wall clock. The emulator now
		// dates all activity on one clock that never goes back (the later of its clock and the wall
		// clock); here that clock is held (a run of an earlier suite does not end meanwhile) and moved
		// past every earlier activity before each rename.
		const releaseClock = await holdClock();
		disposables.push({ dispose: () => void releaseClock() });
		const pastEveryActivity = async (): Promise<void> => {
			const { offset_ms } = (await emu<{ offset_ms: number }>('GET', '/_emulator/clock')).body;
			await advanceClock(Math.max(0, -offset_ms) / 1000 + 2);
		};
		await pastEveryActivity();
		await api.session.client.renameAgent(agent.id, agent.name);
		await tree.refresh();
		const rows = await tree.getChildren();
		assert.equal(rows[0]?.id, `agent/${agent.id}`, 'the agent renamed last is first');
		assert.ok(
			rows.some((r) => r.id === `agent/${agent.id}`),
			'the agent has a row',
		);

		// In motion as seen from elsewhere (a run just started on it): the list polls while visible.
		tree.markActive(agent.id, true);
		let redraws = 0;
		let loads = 0;
		let changedLoads = 0;
		let last = JSON.stringify(tree.records);
		let lastChange: vscode.TreeItem | vscode.TreeItem[] | undefined;
		disposables.push(
			tree.onDidChangeTreeData((e) => {
				redraws++;
				lastChange = e;
			}),
		);
		disposables.push(
			tree.onDidLoad(() => {
				loads++;
				const now = JSON.stringify(tree.records);
				if (now !== last) {
					changedLoads++;
					last = now;
				}
			}),
		);
		const newName = `Shared reviewer ${Date.now()}`;
		try {
			// Two polls that found the list as it was (other suites' runs may change it meanwhile:
			// those polls count as changed and may redraw).
			await waitFor(
				'two automatic refreshes that change nothing',
				async () => (loads - changedLoads >= 2 ? true : undefined),
				30_000,
			);
			assert.ok(
				redraws <= changedLoads,
				`${redraws} redraw(s) over ${loads} automatic refreshes of which ${changedLoads} changed the list`,
			);

			// The service renames the agent: the next poll redraws and the row has the new name.
			const before = redraws;
			await pastEveryActivity();
			await api.session.client.renameAgent(agent.id, newName);
			await waitFor('a redraw after the rename', async () => (redraws > before ? true : undefined), 20_000);
			// The same rows with a newer copy of one record: the row object VS Code holds is updated in
			// place (its handle, and a context menu open on a row, survive the poll).
			const shownRow = rows.find((r) => r.id === `agent/${agent.id}`)!;
			assert.ok(Array.isArray(lastChange), 'an element refresh of the rows, not of the whole tree');
			assert.ok(lastChange.includes(shownRow), 'the row object VS Code holds');
			assert.equal(shownRow.label, newName);
			assert.equal((shownRow as { agent?: Agent }).agent?.name, newName, "a command on the row gets the record's new copy");
			const row = (await tree.getChildren()).find((r) => r.id === `agent/${agent.id}`);
			assert.equal(row?.label, newName);
		} finally {
			tree.markActive(agent.id, false);
			await api.session.client.renameAgent(agent.id, agent.name);
			await releaseClock();
		}
	});

	test('a list VS Code has not read yet tells it of no change (the sign-in state read at start-up, a refresh): once read it does; disposed, never', async function () {
		this.timeout(30_000);
		const signedIn = new vscode.EventEmitter<void>();
		const log = vscode.window.createOutputChannel('Cloud Agents first read test', { log: true });
		const host: ListHost = { signedIn: true, onDidChange: signedIn.event, log, reportError: () => undefined };
		const ctx: ListContext = { client: () => api.session.client, lookup: () => undefined, flag: () => false };
		const tree = new DescriptorTreeProvider(agentsList, host, ctx);
		disposables.push(tree, signedIn, log);
		const fired: Array<vscode.TreeItem | vscode.TreeItem[] | undefined> = [];
		disposables.push(tree.onDidChangeTreeData((e) => fired.push(e)));

		// As at activation with the view closed: the session reads the sign-in state (twice when it
		// stores a development token) and every list resets; the Refresh command reads it meanwhile.
		// Each event would have VS Code answer a refresh of rows it never got, and a window closed
		// before it answers leaves that refresh rejected in the extension host's log.
		signedIn.fire();
		signedIn.fire();
		await tree.refresh();
		assert.deepEqual(fired, [], 'nothing told before VS Code asked for rows');

		const rows = await tree.getChildren();
		assert.ok(rows.length > 0, 'the first read shows the agents read meanwhile');
		signedIn.fire();
		assert.deepEqual(fired, [undefined], 'once VS Code holds rows, a sign-in change redraws the whole list');

		// A read under way when the extension deactivates (its providers are disposed) tells nothing when it ends.
		const reading = tree.refresh();
		tree.dispose();
		await reading;
		assert.deepEqual(fired, [undefined], 'nothing told after disposal');
	});
});
