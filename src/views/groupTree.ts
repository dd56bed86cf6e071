import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import type { AnyListDescriptor, ListContext, ListDescriptor, RowContext } from './descriptor';
import { safeTreeItem } from './format';

/** What a group view needs of each group's list: the rows, their parents, change events, visibility. */
export interface GroupList {
	readonly descriptor: AnyListDescriptor;
	readonly onDidChangeTreeData: vscode.Event<vscode.TreeItem | vscode.TreeItem[] | undefined>;
	getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]>;
	getParent(element: vscode.TreeItem): vscode.TreeItem | undefined;
	attach(view: vscode.TreeView<vscode.TreeItem>): void;
	resolveTreeItem(item: vscode.TreeItem, element: vscode.TreeItem): vscode.TreeItem;
}

/** A group row: one list of the view (Images, Image builds, …), collapsed until opened. */
export class GroupRowNode extends vscode.TreeItem {
	constructor(
		readonly list: GroupList,
		id: string,
		label: string,
		options: { icon?: vscode.ThemeIcon; tooltip?: string; contextValue: string; description?: string },
	) {
		super(label, vscode.TreeItemCollapsibleState.Collapsed);
		this.id = id;
		this.iconPath = options.icon;
		this.tooltip = options.tooltip;
		this.description = options.description;
		this.contextValue = options.contextValue;
	}
}

/**
 * A view whose top rows are group rows, one per list the view's descriptor names in `groups`
 * (the Account view). Each group is a list of its own (its own provider: paging, empty, error and
 * Retry rows, refresh, polling, commands and the command-target resolver, with no parent to pick
 * first); this provider only puts each list's rows under its group row and forwards changes.
 * Every group's list follows this view's visibility (it polls only while the view is visible).
 */
export class GroupedTreeProvider<G> extends Disposable implements vscode.TreeDataProvider<vscode.TreeItem> {
	private readonly _onDidChangeTreeData = this.register(new vscode.EventEmitter<vscode.TreeItem | vscode.TreeItem[] | undefined>());
	/** Fires when a group's rows change. */
	readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
	/** The list that produced a row (for its children and parent). */
	private readonly owner = new WeakMap<vscode.TreeItem, GroupList>();
	/** The group row of each list's top rows. */
	private readonly groupOf = new WeakMap<vscode.TreeItem, GroupRowNode>();
	private groupRows: GroupRowNode[] | undefined;

	constructor(
		/** The view's descriptor: its records are the groups, its `row` draws a group row. */
		readonly descriptor: ListDescriptor<G, object, undefined>,
		private readonly ctx: ListContext,
		/** The list of each group, in the order of the descriptor's `groups`. */
		private readonly lists: readonly GroupList[],
		private readonly signedIn: () => boolean,
	) {
		super();
		for (const list of lists) {
			// A row of a list is the same object here: a change of one row (the offline row's countdown) redraws that row only.
			this.register(list.onDidChangeTreeData((row) => this._onDidChangeTreeData.fire(row)));
		}
	}

	/** The view's short name (`account`). */
	get key(): string {
		return this.descriptor.key;
	}

	/** Connects the tree view: every group's list follows its visibility. */
	attach(view: vscode.TreeView<vscode.TreeItem>): void {
		for (const list of this.lists) {
			list.attach(view);
		}
	}

	getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
		return safeTreeItem(element);
	}

	/** A tooltip left out of a group's row (hover): its list builds it. */
	resolveTreeItem(item: vscode.TreeItem, element: vscode.TreeItem): vscode.TreeItem {
		return this.owner.get(element)?.resolveTreeItem(item, element) ?? item;
	}

	getParent(element: vscode.TreeItem): vscode.TreeItem | undefined {
		if (element instanceof GroupRowNode) {
			return undefined;
		}
		return this.owner.get(element)?.getParent(element) ?? this.groupOf.get(element);
	}

	async getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
		if (!this.signedIn()) {
			return [];
		}
		if (!element) {
			return this.groups();
		}
		const list = element instanceof GroupRowNode ? element.list : this.owner.get(element);
		if (!list) {
			return [];
		}
		const rows = await list.getChildren(element instanceof GroupRowNode ? undefined : element);
		for (const row of rows) {
			this.owner.set(row, list);
			if (element instanceof GroupRowNode) {
				this.groupOf.set(row, element);
			}
		}
		return rows;
	}

	/** The group rows (the same instances while the view lives, so expansion survives refreshes). */
	private async groups(): Promise<GroupRowNode[]> {
		if (this.groupRows) {
			return this.groupRows;
		}
		const source = this.descriptor.source;
		const records =
			'list' in source
				? (await source.list(this.ctx, { pages: 1, pageSize: this.lists.length, signal: new AbortController().signal }, undefined))
						.items
				: [];
		const rows: GroupRowNode[] = [];
		records.forEach((record, i) => {
			const list = this.lists[i];
			if (!list) {
				return;
			}
			const rowCtx: RowContext<undefined> = { ...this.ctx, parent: undefined, parentKey: undefined };
			const spec = this.descriptor.row(record, rowCtx);
			rows.push(
				new GroupRowNode(list, `${this.descriptor.kind}/${this.descriptor.keyOf(record)}`, spec.label, {
					icon: spec.icon,
					tooltip: typeof spec.tooltip === 'function' ? spec.tooltip() : spec.tooltip,
					contextValue: spec.contextValue,
					description: spec.description,
				}),
			);
		});
		this.groupRows = rows;
		return rows;
	}
}
