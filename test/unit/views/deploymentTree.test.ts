import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { DeploymentRootNode, DeploymentTreeProvider } from '../../../src/views/deploymentTree';
import type { DeploymentListArg, DeploymentRows, RowsProvider } from '../../../src/views/deploymentTree';

/** A deployment's list: rows the test sets, a parent map, change events. */
class FakeRows implements RowsProvider {
	readonly emitter = new vscode.EventEmitter<vscode.TreeItem | vscode.TreeItem[] | undefined>();
	readonly onDidChangeTreeData = this.emitter.event;
	readonly children = new Map<vscode.TreeItem | undefined, vscode.TreeItem[]>();
	readonly parents = new Map<vscode.TreeItem, vscode.TreeItem>();
	async getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
		return this.children.get(element) ?? [];
	}
	getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
		return element;
	}
	getParent(element: vscode.TreeItem): vscode.TreeItem | undefined {
		return this.parents.get(element);
	}
}

function row(id: string, label: string, options: { contextValue?: string; command?: vscode.Command } = {}): vscode.TreeItem {
	const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.None);
	item.id = id;
	item.contextValue = options.contextValue ?? 'agent:idle';
	item.command = options.command;
	return item;
}

function deployment(id: string, name: string, host: string): DeploymentRows & { rows: FakeRows } {
	return { id, name, host, rows: new FakeRows() };
}

/** src/views/deploymentTree.ts: one view's rows, the default deployment's alone or each deployment's under its root row. */
suite('views/deploymentTree', () => {
	let tree: DeploymentTreeProvider | undefined;
	let owners: WeakMap<object, string>;
	let fired: Array<vscode.TreeItem | vscode.TreeItem[] | undefined>;

	setup(() => {
		owners = new WeakMap();
		fired = [];
	});

	teardown(() => {
		tree?.dispose();
		tree = undefined;
	});

	function make(main: DeploymentRows): DeploymentTreeProvider {
		tree = new DeploymentTreeProvider(main, owners);
		tree.onDidChangeTreeData((e) => fired.push(e));
		return tree;
	}

	test('one deployment: its rows as they are, the same objects, ids and events; no root row and no deployment name anywhere', async () => {
		const main = deployment('default', 'Production', 'api.example.com');
		const a1 = row('agent/a1', 'First');
		const more = row('agents/loadMore', 'Load more…', { contextValue: 'loadMore', command: { command: 'more', title: 'More' } });
		main.rows.children.set(undefined, [a1, more]);
		const t = make(main);
		for (const shown of [[], [main]]) {
			t.show(shown);
			const rows = await t.getChildren();
			assert.deepEqual(rows, [a1, more]);
			assert.equal(rows[0], a1, 'the very row object');
			assert.deepEqual(
				rows.map((r) => r.id),
				['agent/a1', 'agents/loadMore'],
			);
			assert.equal(more.command?.arguments, undefined, 'the Load more row keeps its own command');
			assert.equal(t.getParent(a1), undefined);
			assert.ok(!JSON.stringify(rows.map((r) => [r.id, r.label, r.description, r.tooltip])).includes('Production'));
		}
		assert.deepEqual(fired, [], 'showing the one deployment again changes nothing');
		main.rows.emitter.fire(a1);
		main.rows.emitter.fire(undefined);
		assert.deepEqual(fired, [a1, undefined], 'its changes forwarded as they are');
	});

	test('two deployments: a root row each (name, host, expanded), their rows under it; the other deployment’s ids prefixed and owned', async () => {
		const main = deployment('default', 'api.example.com', 'api.example.com');
		const staging = deployment('staging-1234567890ab', 'Staging', 'staging.example.com');
		const mainAgent = row('agent/same', 'Main agent');
		const stagingAgent = row('agent/same', 'Staging agent', {
			command: { command: 'open', title: 'Open', arguments: [{ agentId: 'same' }] },
		});
		main.rows.children.set(undefined, [mainAgent]);
		staging.rows.children.set(undefined, [stagingAgent]);
		const t = make(main);
		t.show([main, staging]);
		assert.deepEqual(fired, [undefined], 'the whole view read again');
		const roots = await t.getChildren();
		assert.ok(roots.every((r) => r instanceof DeploymentRootNode));
		assert.deepEqual(
			roots.map((r) => [r.id, r.label, r.description, r.collapsibleState]),
			[
				['deployment:default', 'api.example.com', undefined, vscode.TreeItemCollapsibleState.Expanded],
				['deployment:staging-1234567890ab', 'Staging', 'staging.example.com', vscode.TreeItemCollapsibleState.Expanded],
			],
		);
		assert.deepEqual(await t.getChildren(roots[0]), [mainAgent]);
		assert.deepEqual(await t.getChildren(roots[1]), [stagingAgent]);
		assert.equal(mainAgent.id, 'agent/same', "the default deployment's ids as they were");
		assert.equal(stagingAgent.id, 'staging-1234567890ab:agent/same', 'the same agent id on the other service: another row id');
		assert.equal(owners.get(mainAgent), undefined);
		assert.equal(owners.get(stagingAgent), 'staging-1234567890ab');
		t.getTreeItem(stagingAgent);
		assert.equal(
			owners.get(stagingAgent.command!.arguments![0] as object),
			'staging-1234567890ab',
			"its click's argument is owned too",
		);
		assert.equal(t.getParent(mainAgent), roots[0]);
		assert.equal(t.getParent(stagingAgent), roots[1]);
		assert.equal(t.getParent(roots[1]!), undefined);
		// Drawn again, a row is not prefixed twice.
		await t.getChildren(roots[1]);
		assert.equal(stagingAgent.id, 'staging-1234567890ab:agent/same');
	});

	test('the list rows of another deployment carry an owned argument with their own list id; its sign-in row names it', async () => {
		const main = deployment('default', 'Production', 'api.example.com');
		const staging = deployment('staging-1234567890ab', 'Staging', 'staging.example.com');
		const retry = row('runs/x/retry', 'Retry', {
			contextValue: 'retry',
			command: { command: 'refresh', title: 'Retry', arguments: ['child-1'] },
		});
		const more = row('agents/loadMore', 'Load more…', { contextValue: 'loadMore', command: { command: 'more', title: 'More' } });
		const signIn = row('agents/signIn', 'Sign In…', {
			contextValue: 'signIn',
			command: { command: 'cloudAgents.signIn', title: 'Sign In' },
		});
		staging.rows.children.set(undefined, [retry, more, signIn]);
		const t = make(main);
		t.show([main, staging]);
		const [, root] = await t.getChildren();
		await t.getChildren(root);
		await t.getChildren(root);
		const retryArg = retry.command!.arguments![0] as DeploymentListArg;
		assert.equal(retryArg.listId, 'child-1');
		assert.equal(owners.get(retryArg), 'staging-1234567890ab');
		const moreArg = more.command!.arguments![0] as DeploymentListArg;
		assert.equal(moreArg.listId, undefined);
		assert.equal(owners.get(moreArg), 'staging-1234567890ab');
		assert.equal(retry.command!.arguments!.length, 1, 'wrapped once, however often drawn');
		assert.deepEqual(signIn.command!.arguments, [{ deployment: 'staging-1234567890ab' }]);
	});

	test('a change of a deployment’s whole list redraws its root row only; a row change is forwarded; a deployment not shown is not heard', async () => {
		const main = deployment('default', 'Production', 'api.example.com');
		const staging = deployment('staging-1234567890ab', 'Staging', 'staging.example.com');
		const gone = deployment('gone-1234567890ab', 'Gone', 'gone.example.com');
		const t = make(main);
		t.show([main, staging, gone]);
		t.show([main, staging]);
		fired.length = 0;
		const [mainRoot, stagingRoot] = await t.getChildren();
		staging.rows.emitter.fire(undefined);
		main.rows.emitter.fire(undefined);
		const a = row('agent/a', 'A');
		staging.rows.emitter.fire(a);
		gone.rows.emitter.fire(undefined);
		assert.deepEqual(fired, [stagingRoot, mainRoot, a]);
	});

	test('signing out of the second deployment: its root row goes and the default deployment’s rows are shown alone again, as before', async () => {
		const main = deployment('default', 'Production', 'api.example.com');
		const staging = deployment('staging-1234567890ab', 'Staging', 'staging.example.com');
		const a1 = row('agent/a1', 'First');
		main.rows.children.set(undefined, [a1]);
		staging.rows.children.set(undefined, [row('agent/a1', 'Staging first')]);
		const t = make(main);
		t.show([main, staging]);
		await t.getChildren();
		fired.length = 0;
		t.show([main]);
		assert.deepEqual(fired, [undefined]);
		assert.deepEqual(await t.getChildren(), [a1]);
		assert.equal(t.getParent(a1), undefined);
		staging.rows.emitter.fire(undefined);
		assert.deepEqual(fired, [undefined], 'the signed-out deployment is no longer heard');
	});

	test('only another deployment signed in: its rows alone, no root row (the default deployment’s rows are empty signed out)', async () => {
		const main = deployment('default', 'Production', 'api.example.com');
		const staging = deployment('staging-1234567890ab', 'Staging', 'staging.example.com');
		const s1 = row('agent/s1', 'Staging first');
		staging.rows.children.set(undefined, [s1]);
		const t = make(main);
		t.show([staging]);
		assert.deepEqual(await t.getChildren(), [s1]);
		assert.equal(s1.id, 'staging-1234567890ab:agent/s1');
		const child = row('checkpoint/x', 'Checkpoint');
		staging.rows.children.set(s1, [child]);
		assert.deepEqual(await t.getChildren(s1), [child], "a row's children come from its own deployment's list");
		assert.equal(owners.get(child), 'staging-1234567890ab');
	});

	test('adopt: a row made outside the tree (revealed) is drawn as the tree draws it', () => {
		const main = deployment('default', 'Production', 'api.example.com');
		const staging = deployment('staging-1234567890ab', 'Staging', 'staging.example.com');
		const t = make(main);
		t.show([main, staging]);
		const revealed = t.adopt(staging, row('agent/a', 'A'));
		assert.equal(revealed.id, 'staging-1234567890ab:agent/a');
		assert.equal(t.getParent(revealed), t.rootOf(staging));
		const own = t.adopt(main, row('agent/a', 'A'));
		assert.equal(own.id, 'agent/a');
		assert.equal(t.getParent(own), t.rootOf(main));
	});
});
