/**
 * What a list view draws when several deployments are signed in (issue 47): one root row per
 * deployment (its name, its host as description, expanded), and under it that deployment's rows as
 * its own list provider draws them. With one deployment shown (or none) the view is that one's
 * provider as it is: the same rows, ids, events and welcome content as before there were several.
 *
 * The rows of a deployment other than the default one get their ids prefixed with the deployment's
 * id (two services may well have an agent of the same id), and are kept in `owners`, with the
 * arguments of their commands, so an action run on one of them acts with that deployment's
 * client (deploymentViews.ts `scopeOf`). Its Load more, Retry and Offline rows carry an argument naming
 * the deployment, so they page, refresh and retry that deployment's list.
 */
import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import { safeTreeItem } from './format';

/** What draws the rows of one deployment in a view (its list provider). */
export interface RowsProvider {
	readonly onDidChangeTreeData: vscode.Event<vscode.TreeItem | vscode.TreeItem[] | undefined>;
	getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]>;
	getTreeItem(element: vscode.TreeItem): vscode.TreeItem;
	resolveTreeItem?(item: vscode.TreeItem, element: vscode.TreeItem): vscode.TreeItem;
	getParent?(element: vscode.TreeItem): vscode.TreeItem | undefined;
}

/** One deployment's rows in a view, and what its root row says. */
export interface DeploymentRows {
	/** The deployment's id (src/auth/deployments.ts). */
	readonly id: string;
	/** The root row's label: the deployment's name. */
	readonly name: string;
	/** The root row's description: the host of its API URL. */
	readonly host: string;
	readonly rows: RowsProvider;
}

/** The argument of a Load more, Retry or Offline row of another deployment than the default: its own list's id, if any. */
export interface DeploymentListArg {
	readonly listId: unknown;
}

/** The row of one deployment, the rows of its list under it. */
export class DeploymentRootNode extends vscode.TreeItem {
	constructor(readonly rows: DeploymentRows) {
		super(rows.name, vscode.TreeItemCollapsibleState.Expanded);
		this.id = `deployment:${rows.id}`;
		this.description = rows.host !== rows.name ? rows.host : undefined;
		this.tooltip = vscode.l10n.t('Deployment {0} at {1}', rows.name, rows.host);
		this.iconPath = new vscode.ThemeIcon('cloud');
		this.contextValue = 'deployment';
	}
}

/** The context values of the rows whose command acts on their list (paging, reading again). */
const LIST_ROWS = new Set(['loadMore', 'retry', 'offline']);

/** One view's rows: the default deployment's alone, or each shown deployment's under its root row. */
export class DeploymentTreeProvider extends Disposable implements vscode.TreeDataProvider<vscode.TreeItem> {
	private readonly _onDidChangeTreeData = this.register(new vscode.EventEmitter<vscode.TreeItem | vscode.TreeItem[] | undefined>());
	readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
	/** The deployments shown, in order; none: the default deployment's rows alone. */
	private shown: readonly DeploymentRows[] = [];
	private readonly roots = new Map<string, DeploymentRootNode>();
	private readonly listening = new Map<DeploymentRows, vscode.Disposable>();

	constructor(
		/** The default deployment's rows: shown alone unless another deployment is shown. */
		private readonly main: DeploymentRows,
		/** Which deployment a row or a row's command argument belongs to (by id): those of the default deployment are not kept. */
		private readonly owners: WeakMap<object, string>,
	) {
		super();
		this.listen(main);
		this.register({
			dispose: () => {
				for (const listener of this.listening.values()) {
					listener.dispose();
				}
			},
		});
	}

	/** Whether the view shows root rows (two deployments or more). */
	get several(): boolean {
		return this.shown.length > 1;
	}

	/**
	 * Shows these deployments (the signed-in ones, the default first): under a root row each when
	 * there are two or more, else the only one's rows as they are (the default deployment's when none).
	 */
	show(deployments: readonly DeploymentRows[]): void {
		const before = this.shapeOf(this.shown);
		for (const [rows, listener] of this.listening) {
			if (rows !== this.main && !deployments.includes(rows)) {
				listener.dispose();
				this.listening.delete(rows);
			}
		}
		for (const rows of deployments) {
			this.listen(rows);
		}
		this.shown = [...deployments];
		if (this.shapeOf(this.shown) !== before) {
			// New root rows (a name may have changed), and the whole view read again.
			this.roots.clear();
			this._onDidChangeTreeData.fire(undefined);
		}
	}

	/** The root row of a shown deployment (the same object while it is shown). */
	rootOf(rows: DeploymentRows): DeploymentRootNode {
		let root = this.roots.get(rows.id);
		if (root === undefined || root.rows !== rows) {
			root = new DeploymentRootNode(rows);
			this.roots.set(rows.id, root);
		}
		return root;
	}

	/** Takes a row made outside `getChildren` (one revealed) as a row of `rows`: its id and owner as drawn. */
	adopt<N extends vscode.TreeItem>(rows: DeploymentRows, node: N): N {
		this.adoptAll(rows, [node]);
		return node;
	}

	getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
		if (element instanceof DeploymentRootNode) {
			return safeTreeItem(element);
		}
		const rows = this.rowsOf(element);
		const item = rows.rows.getTreeItem(element);
		if (rows !== this.main) {
			// A record row's command may carry its own argument ({agentId, runId}): it acts on this deployment too.
			for (const arg of element.command?.arguments ?? []) {
				if (arg !== null && typeof arg === 'object') {
					this.owners.set(arg as object, rows.id);
				}
			}
		}
		return item;
	}

	resolveTreeItem(item: vscode.TreeItem, element: vscode.TreeItem): vscode.TreeItem {
		if (element instanceof DeploymentRootNode) {
			return item;
		}
		return this.rowsOf(element).rows.resolveTreeItem?.(item, element) ?? item;
	}

	async getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
		if (element === undefined) {
			if (this.several) {
				return this.shown.map((rows) => this.rootOf(rows));
			}
			const only = this.shown[0] ?? this.main;
			return this.adoptAll(only, await only.rows.getChildren());
		}
		if (element instanceof DeploymentRootNode) {
			return this.shown.includes(element.rows) ? this.adoptAll(element.rows, await element.rows.rows.getChildren()) : [];
		}
		const rows = this.rowsOf(element);
		return this.adoptAll(rows, await rows.rows.getChildren(element));
	}

	getParent(element: vscode.TreeItem): vscode.TreeItem | undefined {
		if (element instanceof DeploymentRootNode) {
			return undefined;
		}
		const rows = this.rowsOf(element);
		const parent = rows.rows.getParent?.(element);
		return parent ?? (this.several && this.shown.includes(rows) ? this.rootOf(rows) : undefined);
	}

	/** The deployment a row belongs to (the default one unless kept in `owners`). */
	private rowsOf(element: object): DeploymentRows {
		const id = this.owners.get(element);
		return (id !== undefined ? this.shown.find((d) => d.id === id) : undefined) ?? this.main;
	}

	/**
	 * Rows of another deployment than the default: kept in `owners`, their ids prefixed with the
	 * deployment's id, and their list rows' commands given an argument naming it. The default
	 * deployment's rows are left as they are.
	 */
	private adoptAll(rows: DeploymentRows, nodes: vscode.TreeItem[]): vscode.TreeItem[] {
		if (rows === this.main) {
			return nodes;
		}
		const prefix = `${rows.id}:`;
		for (const node of nodes) {
			this.owners.set(node, rows.id);
			if (node.id !== undefined && !node.id.startsWith(prefix)) {
				node.id = `${prefix}${node.id}`;
			}
			const command = node.command;
			if (command && typeof node.contextValue === 'string') {
				const first: unknown = command.arguments?.[0];
				const owned = first !== null && typeof first === 'object' && this.owners.get(first) === rows.id;
				if (LIST_ROWS.has(node.contextValue) && !owned) {
					const arg: DeploymentListArg = { listId: first };
					this.owners.set(arg, rows.id);
					node.command = { ...command, arguments: [arg] };
				} else if (node.contextValue === 'signIn' && !owned) {
					const arg = { deployment: rows.id };
					this.owners.set(arg, rows.id);
					node.command = { ...command, arguments: [arg] };
				}
			}
		}
		return nodes;
	}

	/** Forwards a deployment's change of rows: as it is when its rows are shown alone; a whole list under its root row. */
	private listen(rows: DeploymentRows): void {
		if (this.listening.has(rows)) {
			return;
		}
		this.listening.set(
			rows,
			rows.rows.onDidChangeTreeData((changed) => {
				if (this.several) {
					if (this.shown.includes(rows)) {
						this._onDidChangeTreeData.fire(changed ?? this.rootOf(rows));
					}
				} else if (rows === (this.shown[0] ?? this.main)) {
					this._onDidChangeTreeData.fire(changed);
				}
			}),
		);
	}

	/** What the top of the view is: the deployments of root rows, or the one shown alone. */
	private shapeOf(shown: readonly DeploymentRows[]): string {
		return shown.length > 1 ? shown.map((d) => `${d.id}\n${d.name}\n${d.host}`).join('\n\n') : (shown[0] ?? this.main).id;
	}
}
