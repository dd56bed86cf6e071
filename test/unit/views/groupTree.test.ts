import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AnyListDescriptor, ListContext, ListDescriptor, ListRequest } from '../../../src/views/descriptor';
import { GroupRowNode, GroupedTreeProvider } from '../../../src/views/groupTree';
import type { GroupList } from '../../../src/views/groupTree';

interface Group {
	id: string;
	title: string;
}

/** A group's list: rows the test sets, a parent map, change events; records what it is asked. */
class FakeList implements GroupList {
	readonly emitter = new vscode.EventEmitter<vscode.TreeItem | vscode.TreeItem[] | undefined>();
	readonly onDidChangeTreeData = this.emitter.event;
	readonly asked: Array<vscode.TreeItem | undefined> = [];
	readonly views: unknown[] = [];
	readonly parents = new Map<vscode.TreeItem, vscode.TreeItem>();
	readonly children = new Map<vscode.TreeItem | undefined, vscode.TreeItem[]>();
	constructor(readonly descriptor: AnyListDescriptor) {}
	async getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
		this.asked.push(element);
		return this.children.get(element) ?? [];
	}
	getParent(element: vscode.TreeItem): vscode.TreeItem | undefined {
		return this.parents.get(element);
	}
	attach(view: vscode.TreeView<vscode.TreeItem>): void {
		this.views.push(view);
	}
	resolveTreeItem(item: vscode.TreeItem, element: vscode.TreeItem): vscode.TreeItem {
		item.tooltip = `resolved ${element.label as string}`;
		return item;
	}
}

const ctx: ListContext = { client: () => assert.fail('no client'), lookup: () => undefined, flag: () => false };

function grouped(
	groups: Group[] = [
		{ id: 'images', title: 'Images' },
		{ id: 'builds', title: 'Image builds\nnew' },
	],
) {
	const requests: ListRequest[] = [];
	const descriptor: ListDescriptor<Group, object, undefined> = {
		key: 'account',
		kind: 'accountGroup',
		source: {
			list: async (_ctx, request) => {
				requests.push(request);
				return { items: groups, more: false };
			},
		},
		keyOf: (g) => g.id,
		row: (g) => ({
			label: g.title,
			description: `${g.id} list`,
			icon: new vscode.ThemeIcon('folder'),
			tooltip: () => `About ${g.id}`,
			contextValue: `group:${g.id}`,
		}),
		fields: () => ({}),
	};
	const lists = [new FakeList({ key: 'images' } as AnyListDescriptor), new FakeList({ key: 'builds' } as AnyListDescriptor)];
	let signedIn = true;
	const tree = new GroupedTreeProvider(descriptor, ctx, lists, () => signedIn);
	return {
		tree,
		lists,
		requests,
		signOut: () => {
			signedIn = false;
		},
	};
}

/** src/views/groupTree.ts on the `vscode` fake, with fake group lists. */
suite('views/groupTree', () => {
	test('the top rows: one collapsed group row per record, drawn by the descriptor, with a tooltip built at once', async () => {
		const { tree, lists, requests } = grouped();
		const rows = (await tree.getChildren()) as GroupRowNode[];
		assert.equal(rows.length, 2);
		assert.ok(rows.every((r) => r instanceof GroupRowNode));
		assert.equal(rows[0]!.id, 'accountGroup/images');
		assert.equal(rows[0]!.label, 'Images');
		assert.equal(rows[0]!.description, 'images list');
		assert.equal(rows[0]!.tooltip, 'About images');
		assert.equal(rows[0]!.contextValue, 'group:images');
		assert.equal((rows[0]!.iconPath as vscode.ThemeIcon).id, 'folder');
		assert.equal(rows[0]!.collapsibleState, vscode.TreeItemCollapsibleState.Collapsed);
		assert.equal(rows[0]!.list, lists[0]);
		assert.equal(rows[1]!.list, lists[1]);
		assert.equal(requests[0]!.pages, 1);
		assert.equal(requests[0]!.pageSize, 2, 'as many records as there are lists');
		assert.equal(tree.key, 'account');
		tree.dispose();
	});

	test('the group rows are the same objects on every read (expansion survives refreshes); read once', async () => {
		const { tree, requests } = grouped();
		const first = await tree.getChildren();
		const second = await tree.getChildren();
		assert.equal(second, first);
		assert.equal(requests.length, 1);
		tree.dispose();
	});

	test('a record beyond the lists gets no group row', async () => {
		const { tree } = grouped([
			{ id: 'images', title: 'Images' },
			{ id: 'builds', title: 'Builds' },
			{ id: 'extra', title: 'Extra' },
		]);
		assert.equal((await tree.getChildren()).length, 2);
		tree.dispose();
	});

	test('a descriptor with a paged source has no group rows', async () => {
		const { lists } = grouped();
		const paged: ListDescriptor<Group, object, undefined> = {
			key: 'x',
			kind: 'x',
			source: { page: async () => assert.fail('not read') },
			keyOf: (g) => g.id,
			row: (g) => ({ label: g.title, contextValue: 'x' }),
			fields: () => ({}),
		};
		const tree = new GroupedTreeProvider(paged, ctx, lists, () => true);
		assert.deepEqual(await tree.getChildren(), []);
		tree.dispose();
	});

	test('signed out: no rows at all, not even under a group row', async () => {
		const { tree, lists, signOut } = grouped();
		const [group] = await tree.getChildren();
		signOut();
		assert.deepEqual(await tree.getChildren(), []);
		assert.deepEqual(await tree.getChildren(group), []);
		assert.deepEqual(lists[0]!.asked, []);
		tree.dispose();
	});

	test("under a group row: its list's top rows; under one of those: that list's children; the parents lead back", async () => {
		const { tree, lists } = grouped();
		const [images, builds] = (await tree.getChildren()) as GroupRowNode[];
		const top = new vscode.TreeItem('image 1', vscode.TreeItemCollapsibleState.Collapsed);
		const child = new vscode.TreeItem('version 1');
		lists[0]!.children.set(undefined, [top]);
		lists[0]!.children.set(top, [child]);
		lists[0]!.parents.set(child, top);
		assert.deepEqual(await tree.getChildren(images), [top]);
		assert.deepEqual(lists[0]!.asked, [undefined], 'the group row asks its list for its top rows');
		assert.deepEqual(await tree.getChildren(top), [child]);
		assert.deepEqual(lists[0]!.asked, [undefined, top]);
		assert.deepEqual(lists[1]!.asked, [], 'the other list is not asked');
		assert.equal(tree.getParent(child), top, "the list's own parent");
		assert.equal(tree.getParent(top), images, 'a top row hangs under its group row');
		assert.equal(tree.getParent(images!), undefined);
		assert.equal(tree.getParent(new vscode.TreeItem('stranger')), undefined);
		assert.deepEqual(await tree.getChildren(new vscode.TreeItem('stranger')), [], 'a row of no list has no children');
		assert.deepEqual(await tree.getChildren(builds), []);
		tree.dispose();
	});

	test("a tooltip left out of a row is built by the row's list; a row of no list stays as it is", async () => {
		const { tree, lists } = grouped();
		const [images] = await tree.getChildren();
		const top = new vscode.TreeItem('image 1');
		lists[0]!.children.set(undefined, [top]);
		await tree.getChildren(images);
		const item = new vscode.TreeItem('image 1');
		assert.equal(tree.resolveTreeItem(item, top).tooltip, 'resolved image 1');
		const other = new vscode.TreeItem('other');
		assert.equal(tree.resolveTreeItem(other, new vscode.TreeItem('x')).tooltip, undefined);
		tree.dispose();
	});

	test("a list's change is forwarded as it came (one row, or all); attach hands the view to every list", () => {
		const { tree, lists } = grouped();
		const fired: unknown[] = [];
		tree.onDidChangeTreeData((e) => fired.push(e));
		const row = new vscode.TreeItem('r');
		lists[1]!.emitter.fire(row);
		lists[0]!.emitter.fire(undefined);
		assert.deepEqual(fired, [row, undefined]);
		const view = { name: 'view' } as unknown as vscode.TreeView<vscode.TreeItem>;
		tree.attach(view);
		assert.deepEqual(
			lists.map((l) => l.views),
			[[view], [view]],
		);
		tree.dispose();
		lists[0]!.emitter.fire(undefined);
		assert.equal(fired.length, 2, 'nothing forwarded after dispose');
	});

	test('getTreeItem makes a row safe (group titles are server text too)', async () => {
		const { tree } = grouped();
		const [, builds] = await tree.getChildren();
		assert.equal(tree.getTreeItem(builds!).label, 'Image builds new');
		tree.dispose();
	});
});
