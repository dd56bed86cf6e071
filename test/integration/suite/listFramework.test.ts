import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent, Runtime, VncCredential } from '../../../src/api';
import type { CloudAgentsTestApi } from '../../../src/extension';
import type { ListContext, ListDescriptor } from '../../../src/views/descriptor';
import { DescriptorTreeProvider } from '../../../src/views/listTree';
import { RecordNode } from '../../../src/views/rows';
import type { ListHost } from '../../../src/views/listTree';
import { runtimesList } from '../../../src/resources/runtimes';
import { emu, restoreDevToken, testApi } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';

/**
 * The list framework of src/views (descriptor.ts, listTree.ts) with subtrees, and the command-target
 * resolver (src/views/targets.ts), against the emulator inside VS Code. The registered views are
 * covered by views.test.ts; here a provider is built from the real Runtimes descriptor plus child
 * descriptors defined in the test, the way a new subtree module would declare them.
 */

interface State {
	runtimes: Array<Runtime & { vnc_credentials: VncCredential[] }>;
	agents: Agent[];
}
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;

/** VNC credentials nested under each runtime (a `children` list over a real endpoint). */
const vncChildren: ListDescriptor<VncCredential, { runtimeId: string; credential: VncCredential }, Runtime> = {
	key: 'testVnc',
	kind: 'testVnc',
	parent: { as: 'children', of: runtimesList },
	title: () => 'VNC credentials',
	source: {
		list: async (ctx, { signal }, runtime) => ({ items: await ctx.client().listVncCredentials(runtime.id, { signal }), more: false }),
	},
	keyOf: (c) => c.id,
	fields: (credential, runtimeId) => ({ runtimeId: runtimeId ?? '', credential }),
	row: (c) => ({ label: c.display_name || c.id, contextValue: `testVnc:${c.revoked_at ? 'revoked' : 'active'}` }),
	empty: () => ({ label: 'No VNC credentials' }),
};

/** Every agent, paged, under each runtime: a paged child list to exercise "Load more…" in a subtree. */
const agentChildren: ListDescriptor<Agent, { agent: Agent }, Runtime> = {
	key: 'testAgents',
	kind: 'testAgent',
	parent: { as: 'children', of: runtimesList },
	title: () => 'Agents',
	commands: { refresh: 'cloudAgents.agents.refresh', loadMore: 'cloudAgents.agents.loadMore' },
	source: { page: (ctx, request) => ctx.client().listAgents(request) },
	keyOf: (a) => a.id,
	fields: (agent) => ({ agent }),
	row: (a) => ({ label: a.name || a.id, contextValue: 'testAgent' }),
};

function label(item: vscode.TreeItem): string {
	return typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
}

suite('List descriptors: subtrees and command targets', () => {
	let api: CloudAgentsTestApi;
	const disposables: vscode.Disposable[] = [];

	function provider(children: ListDescriptor<unknown, object, Runtime>[]): DescriptorTreeProvider<Runtime, object, undefined> {
		const changed = new vscode.EventEmitter<void>();
		const log = vscode.window.createOutputChannel('Cloud Agents list framework test', { log: true });
		const host: ListHost = { signedIn: true, onDidChange: changed.event, log, reportError: () => undefined };
		const ctx: ListContext = { client: () => api.session.client, lookup: () => undefined, flag: () => false };
		const p = new DescriptorTreeProvider(runtimesList, host, ctx, children);
		disposables.push(p, changed, log);
		return p;
	}

	suiteSetup(async function () {
		this.timeout(30_000);
		api = await testApi();
		await restoreDevToken();
	});

	teardown(async () => {
		await emu('DELETE', '/_emulator/faults');
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', undefined, vscode.ConfigurationTarget.Global);
	});

	suiteTeardown(async () => {
		for (const d of disposables.splice(0)) {
			d.dispose();
		}
		await closeAllEditors();
	});

	test('a child descriptor nests its records under each row: collapsible parents, ids under the parent, getParent, an empty row', async function () {
		this.timeout(30_000);
		const tree = provider([vncChildren]);
		const top = await tree.getChildren();
		const runtimes = (await state()).runtimes;
		const withCredentials = runtimes.find((r) => r.vnc_credentials.length >= 2)!;
		const without = runtimes.find((r) => r.vnc_credentials.length === 0)!;
		const parentRow = top.find((n) => n.id === `runtime/${withCredentials.id}`);
		assert.ok(parentRow instanceof RecordNode, `the runtime ${withCredentials.id} has a row: ${top.map((n) => n.id).join(', ')}`);
		assert.equal(parentRow.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);

		const children = await tree.getChildren(parentRow);
		assert.deepEqual(
			children.map((n) => n.id),
			withCredentials.vnc_credentials.map((c) => `testVnc/${withCredentials.id}/${c.id}`),
		);
		assert.deepEqual(
			children.map((n) => n.contextValue),
			withCredentials.vnc_credentials.map((c) => `testVnc:${c.revoked_at ? 'revoked' : 'active'}`),
		);
		for (const child of children) {
			assert.equal(tree.getParent(child), parentRow, 'getParent returns the row the child hangs under (reveal)');
			assert.ok(child instanceof RecordNode);
			// The fields a command would receive, as the node's own properties too.
			assert.equal((child as unknown as { runtimeId: string }).runtimeId, withCredentials.id);
		}

		const emptyParent = top.find((n) => n.id === `runtime/${without.id}`)!;
		const empty = await tree.getChildren(emptyParent);
		assert.deepEqual(
			empty.map((n) => [label(n), n.contextValue]),
			[['No VNC credentials', 'empty']],
		);
	});

	test('a subtree that fails shows its own error and Retry rows (Retry names the subtree) and recovers alone', async function () {
		this.timeout(30_000);
		const tree = provider([vncChildren]);
		const runtime = (await state()).runtimes.find((r) => r.vnc_credentials.length > 0)!;
		const top = await tree.getChildren();
		const parentRow = top.find((n) => n.id === `runtime/${runtime.id}`)!;
		await emu('PUT', '/_emulator/faults', {
			rules: [{ method: 'GET', route: '/v2/runtimes/{runtime_id}/vnc-credentials', status: 500, count: 1 }],
		});
		const failed = await tree.getChildren(parentRow);
		const error = failed.find((n) => n.contextValue === 'error');
		assert.ok(error, `an error row: ${failed.map((n) => n.contextValue).join(', ')}`);
		assert.match(typeof error.tooltip === 'string' ? error.tooltip : '', /request [0-9a-f-]{8,}/i, 'the error names the request id');
		const retry = failed.find((n) => n.contextValue === 'retry');
		assert.equal(retry?.command?.command, 'cloudAgents.runtimes.refresh', "the subtree retries through its view's refresh command");
		const listId = retry.command.arguments?.[0] as string;
		assert.equal(listId, `runtime/${runtime.id}/testVnc`);
		// The top list is untouched by the subtree's failure.
		assert.equal(
			(await tree.getChildren()).some((n) => n.contextValue === 'error'),
			false,
		);

		await tree.refresh(listId);
		const recovered = await tree.getChildren(parentRow);
		assert.deepEqual(
			recovered.map((n) => n.id),
			runtime.vnc_credentials.map((c) => `testVnc/${runtime.id}/${c.id}`),
		);
	});

	test('several child lists hang under group rows; a paged child has its own "Load more…" naming the subtree', async function () {
		this.timeout(30_000);
		await vscode.workspace.getConfiguration('cloudAgents').update('pageSize', 2, vscode.ConfigurationTarget.Global);
		const tree = provider([vncChildren, agentChildren]);
		const top = await tree.getChildren();
		const parentRow = top.find((n) => n instanceof RecordNode)!;
		const groups = await tree.getChildren(parentRow);
		assert.deepEqual(groups.map(label), ['VNC credentials', 'Agents']);
		assert.deepEqual(
			groups.map((g) => g.collapsibleState),
			[vscode.TreeItemCollapsibleState.Collapsed, vscode.TreeItemCollapsibleState.Collapsed],
		);
		assert.equal(tree.getParent(groups[1]!), parentRow);

		const agents = (await state()).agents;
		assert.ok(agents.length > 2, 'the seed has more agents than one page of 2');
		const firstPage = await tree.getChildren(groups[1]);
		const records = (rows: vscode.TreeItem[]): vscode.TreeItem[] => rows.filter((n) => n instanceof RecordNode);
		assert.equal(records(firstPage).length, 2);
		const more = firstPage.find((n) => n.contextValue === 'loadMore');
		assert.equal(more?.command?.command, 'cloudAgents.agents.loadMore');
		const listId = more.command.arguments?.[0] as string;
		assert.equal(listId, `${parentRow.id}/testAgents`);
		await tree.loadMore(listId);
		const secondPage = await tree.getChildren(groups[1]);
		assert.equal(records(secondPage).length, Math.min(4, agents.length));
		// The top list did not grow: "Load more…" of the subtree loads only the subtree.
		assert.equal(records(await tree.getChildren()).length, records(top).length);
	});

	test('the resolver takes a string id (a link) and an automation object the same way, and refuses an unknown id', async function () {
		this.timeout(30_000);
		const runtime = (await state()).runtimes[0]!;
		const byString = await vscode.commands.executeCommand<vscode.TextDocument | undefined>(
			'cloudAgents.runtimes.showDetails',
			runtime.id,
		);
		assert.ok(byString, "a string argument opened the runtime's details");
		assert.equal((JSON.parse(byString.getText()) as Runtime).id, runtime.id);
		const byObject = await vscode.commands.executeCommand<vscode.TextDocument | undefined>('cloudAgents.runtimes.showDetails', {
			automation: true,
			runtimeId: runtime.id,
		});
		assert.equal((JSON.parse(byObject!.getText()) as Runtime).id, runtime.id);

		// An id that names nothing: the command shows an error (handled) and opens nothing.
		const before = vscode.window.tabGroups.all.flatMap((g) => g.tabs).length;
		const none = await vscode.commands.executeCommand('cloudAgents.runtimes.showDetails', '00000000-0000-4000-8000-000000000000');
		assert.equal(none, undefined);
		assert.equal(vscode.window.tabGroups.all.flatMap((g) => g.tabs).length, before);
		await closeAllEditors();
	});
});
