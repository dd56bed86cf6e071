import * as vscode from 'vscode';
import { SAFETY } from '../api';
import type { Deployment } from '../auth/deployments';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import type { ActionSession } from './actions';
import { Connectivity } from './connectivity';
import type { AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';
import { type AnyProvider, DeploymentLists, type ViewSession } from './deploymentLists';
import type { RowsProvider } from './deploymentTree';
import { GroupedTreeProvider } from './groupTree';
import type { DescriptorTreeProvider } from './listTree';
import { RecordNode } from './rows';
import type { RowCache } from './rowCache';
import { type Registrations, directRegistrations } from '../util/registrations';

export { DescriptorTreeProvider, pageSize } from './listTree';
export { RecordNode } from './rows';
export type { ViewSession } from './deploymentLists';
export type { DeploymentSource, DeploymentViewSession } from './deploymentViews';
export type { AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';
export type { Action, ActionKit, RecordAction, ResourceAction, ResourceActions, Services } from './actions';

/** A view of the container: the tree VS Code draws and what draws its rows (a list's, or a view of group rows). */
export interface ShownView {
	readonly view: vscode.TreeView<vscode.TreeItem>;
	readonly rows: vscode.TreeDataProvider<vscode.TreeItem>;
}

/**
 * The lists of one deployment as actions and the command-target resolver (targets.ts) use them:
 * its records, its selection, its context (client). CloudAgentViews itself is the default
 * deployment's; deploymentViews.ts `scopeOf` gives the one a row belongs to.
 */
export interface ListScope {
	readonly ctx: ListContext;
	providerOf<T, F extends object, P>(descriptor: ListDescriptor<T, F, P>): DescriptorTreeProvider<T, F, P>;
	selected<T>(descriptor: ListDescriptor<T, object, unknown>): T | undefined;
	select<T>(descriptor: ListDescriptor<T, object, unknown>, record: T | undefined): void;
	selectById<T>(descriptor: ListDescriptor<T, object, unknown>, id: string | undefined): Promise<T | undefined>;
	refreshFollowing<T>(descriptor: ListDescriptor<T, object, unknown>): Promise<void>;
}

/** What an action run on a row acts with: that row's deployment's lists and session (undefined: the default deployment's). */
export interface DeploymentScope {
	readonly lists: ListScope;
	/** Its session, with its single "sign in again" prompt for a 401 (`reportError`). */
	readonly session: (ActionSession & { reportError?(err: unknown): boolean }) | undefined;
	/** The deployment of a row of another deployment than the default one. */
	readonly deployment: Deployment | undefined;
}

/** How the lists of a deployment follow one another (src/resources/index.ts `connectLists`): the views own what it returns. */
export type ListConnector = (scope: ListScope) => vscode.Disposable[];

/** The other signed-in deployments' lists (deploymentViews.ts, loaded with the features), as CloudAgentViews consults them. */
export interface OtherDeployments extends vscode.Disposable {
	/** Every other deployment's lists shown now. */
	all(): readonly DeploymentLists[];
	/** The deployment a row of another deployment (or its command's argument) belongs to: its lists and what its actions act with. */
	ownerOf(arg: unknown): { readonly lists: DeploymentLists; readonly scope: DeploymentScope } | undefined;
	/** Reveals and selects a row of `lists`' deployment in the view of the list `key`. */
	reveal(key: string, lists: DeploymentLists, node: vscode.TreeItem): Promise<void>;
	/** Retries now: the deployment `arg` (an Offline row's argument) names, else every deployment. */
	retryNow(arg: unknown): Promise<void>;
	/**
	 * Makes `value` (a command's argument: a followed run's status bar click, an action invoking
	 * another) belong to the deployment of this id, as its rows do: an action run with it acts with
	 * that deployment. Returns `value`.
	 */
	claim<T extends object>(value: T, deploymentId: string): T;
	/** The id of the deployment whose lists `lists` are (undefined: none shown now). */
	idOf(lists: DeploymentLists): string | undefined;
}

/**
 * What a view of a list draws: the default deployment's list as it is, until the features put the
 * tree of several deployments in its place (deploymentViews.ts); activation holds no more of them.
 */
export interface ViewRows extends vscode.TreeDataProvider<vscode.TreeItem>, vscode.Disposable {
	/** Draws the rows of `target` from now on; `redraw`: they differ from those drawn (the whole view is read again). */
	setTarget(target: RowsProvider, redraw: boolean): void;
}

/** The rows of a view, drawn by `target` until `setTarget` says otherwise. */
export function viewRows(target: RowsProvider): ViewRows {
	const changed = new vscode.EventEmitter<vscode.TreeItem | vscode.TreeItem[] | undefined>();
	const follow = (): vscode.Disposable => target.onDidChangeTreeData((e) => changed.fire(e));
	let listener = follow();
	return {
		onDidChangeTreeData: changed.event,
		setTarget: (next, redraw) => {
			listener.dispose();
			target = next;
			listener = follow();
			if (redraw) {
				changed.fire(undefined);
			}
		},
		getTreeItem: (element) => target.getTreeItem(element),
		resolveTreeItem: (item, element) => target.resolveTreeItem?.(item, element) ?? item,
		getChildren: (element) => target.getChildren(element),
		getParent: (element) => target.getParent?.(element),
		dispose: () => {
			listener.dispose();
			changed.dispose();
		},
	};
}

/**
 * The tree views of the Cloud Agents container, one per descriptor of the registry
 * (`LIST_DESCRIPTORS`, src/resources/index.ts, handed in by src/extension.ts) that names a view id, each with the subtrees of the
 * descriptors nested under its rows. A list whose parent is a `selection` follows the record
 * selected in its parent's view (Runs and Artifacts follow the agent selected in Agents); each
 * list keeps its own paging, scroll and refresh.
 *
 * Several deployments (issue 47): the default deployment's lists (deploymentLists.ts) are made at
 * activation; once the deployments' sessions are handed in (`showDeployments`, with the features),
 * each other signed-in deployment gets lists of its own, and the list views and the Account view
 * (its groups) show one root row per signed-in deployment when there are two or more
 * (deploymentTree.ts). A row knows its deployment (deploymentViews.ts `scopeOf`): its actions act with that one's client.
 */
export class CloudAgentViews extends Disposable implements ListScope {
	/** The default deployment's lists, made at activation. */
	private readonly main: DeploymentLists;
	/** The lists of the other signed-in deployments, once the features have made them (deploymentViews.ts `showDeployments`). */
	deployments: OtherDeployments | undefined;
	/** The views of lists, by the list's key: the tree view, what draws it, the default deployment's list. */
	readonly listViews = new Map<string, { view: vscode.TreeView<vscode.TreeItem>; rows: ViewRows; main: AnyProvider }>();
	private readonly views = new Map<AnyListDescriptor, vscode.TreeView<vscode.TreeItem>>();
	/** Per list key, how many times its selection was set (restoreSelection: was a row selected meanwhile?). */
	private readonly selectionChanges = new Map<string, number>();
	/** The views of group rows (Account), by the list's key: the tree view, what draws it, the default deployment's groups. */
	readonly groupViews = new Map<
		string,
		{ descriptor: AnyListDescriptor; view: vscode.TreeView<vscode.TreeItem>; rows: ViewRows; main: GroupedTreeProvider<unknown> }
	>();
	/** Every view by its list's key, with what draws its rows (group views included). */
	private readonly shown = new Map<string, ShownView>();
	/** How each deployment's lists follow one another (`connect`). */
	readonly connectors: ListConnector[] = [];
	/** What the descriptors' functions use: the default deployment's client, other lists' records, flags. */
	readonly ctx: ListContext;
	/** Whether the service answers, shared by every list (connectivity.ts). */
	readonly connectivity: Connectivity;

	constructor(
		/** The default deployment's session. */
		readonly session: ViewSession,
		readonly log: vscode.LogOutputChannel,
		reportError: (err: unknown) => void,
		/** Every list of the extension (src/resources/index.ts), in the order of their views. */
		readonly lists: readonly AnyListDescriptor[],
		/** The shared connectivity (the extension's, which the client reports to); else one of the views' own. */
		connectivity?: Connectivity,
		/** The rows as last loaded, shown marked until the first answer (rowCache.ts); none without it. */
		rowCache?: RowCache,
		/** The window's memory (workspaceState): the selected agent comes back after a reload; none without it. */
		readonly memory?: vscode.Memento,
		/** Where the tree views come from (the activation's stand-ins in the extension: src/shell/standIns.ts). */
		registrations: Registrations = directRegistrations,
	) {
		super();
		if (connectivity) {
			this.connectivity = connectivity;
		} else {
			const own = new Connectivity();
			this.connectivity = own;
			this.register({ dispose: () => own.dispose() });
		}
		this.main = this.register(
			new DeploymentLists({
				session,
				log,
				reportError,
				lists,
				connectivity: this.connectivity,
				rowCache,
				onSelectedGone: (of) => this.select(of, undefined),
			}),
		);
		this.ctx = this.main.ctx;
		for (const [descriptor, provider] of this.main.providers) {
			if (descriptor.viewId) {
				const rows = this.register(viewRows(provider));
				const view = this.register(registrations.treeView<vscode.TreeItem>(descriptor.viewId, rows, { showCollapseAll: false }));
				provider.attach(view);
				this.views.set(descriptor, view);
				this.listViews.set(descriptor.key, { view, rows, main: provider });
				this.shown.set(descriptor.key, { view, rows });
			}
		}
		this.createGroupViews(registrations);
		this.followSelections();
		this.register(
			session.onDidChange(() => {
				if (!session.signedIn) {
					// The default deployment's selection goes; one among another deployment's rows stays (issue 47).
					for (const descriptor of this.views.keys()) {
						if (!this.allLists().some((lists) => lists !== this.main && lists.selected(descriptor) !== undefined)) {
							this.select(descriptor, undefined);
						}
					}
				}
			}),
		);
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration('cloudAgents.pageSize')) {
					this.resetAll();
				}
			}),
		);
		this.restoreSelections(session);
	}

	/** Views of group rows (Account): each group is a list of the default deployment, shown under its group row. */
	private createGroupViews(registrations: Registrations): void {
		for (const descriptor of this.lists) {
			if (descriptor.groups && descriptor.viewId) {
				const groupLists = descriptor.groups.map((d) => this.providerOf(d));
				const grouped = this.register(
					new GroupedTreeProvider(
						descriptor as ListDescriptor<unknown, object, undefined>,
						this.ctx,
						groupLists,
						() => this.session.signedIn,
					),
				);
				// Drawn through `rows`, which the features point at a tree of every signed-in deployment's groups (deploymentViews.ts).
				const rows = this.register(viewRows(grouped));
				const view = this.register(registrations.treeView<vscode.TreeItem>(descriptor.viewId, rows, { showCollapseAll: true }));
				grouped.attach(view);
				this.shown.set(descriptor.key, { view, rows });
				this.groupViews.set(descriptor.key, { descriptor, view, rows, main: grouped });
			}
		}
	}

	/** Selecting a row drives the lists that follow its kind (Runs and Artifacts follow Agents), of the row's deployment. */
	private followSelections(): void {
		for (const [descriptor, view] of this.views) {
			if (this.lists.some((d) => d.parent?.as === 'selection' && d.parent.of.key === descriptor.key)) {
				this.register(
					view.onDidChangeSelection((e) => {
						const node = e.selection.find(
							(n): n is RecordNode => n instanceof RecordNode && n.descriptor.key === descriptor.key,
						);
						if (node) {
							this.select(descriptor, node.record, this.deployments?.ownerOf(node)?.lists);
						}
					}),
				);
			}
		}
	}

	/**
	 * How the lists of each deployment follow one another: applied to the default deployment's lists
	 * now and to each other deployment's when its lists are made (at activation, before those); the
	 * views own the disposables.
	 */
	connect(connector: ListConnector): void {
		this.connectors.push(connector);
		for (const d of connector(this)) {
			this.register(d);
		}
	}

	/** Retries now (the status bar, an Offline row): the deployment an Offline row's argument names, else every deployment. */
	retryNow(arg?: unknown): Promise<void> {
		return this.deployments ? this.deployments.retryNow(arg) : this.connectivity.retryNow();
	}

	/**
	 * The agent selected before a reload is selected again once signed in (issue 42, item 6: the Runs
	 * view said "Select an agent" after every reload); one that is gone is forgotten.
	 */
	private restoreSelections(session: ViewSession): void {
		const memory = this.memory;
		if (!memory) {
			return;
		}
		const restore = (): void => {
			for (const descriptor of this.views.keys()) {
				const id = memory.get<unknown>(selectionKey(descriptor.key));
				if (typeof id === 'string' && id !== '' && this.selected(descriptor) === undefined) {
					void this.restoreSelection(descriptor, id);
				}
			}
		};
		if (session.signedIn) {
			restore();
			return;
		}
		const first = session.onDidChange(() => {
			if (session.signedIn) {
				first.dispose();
				restore();
			}
		});
		this.register(first);
	}

	/**
	 * Selects the record a reload kept (`id`, of `lists`' deployment: the default one's unless
	 * given), unless a row is selected while it is looked up: that selection stands (the kept agent,
	 * fetched because it was not among the loaded rows, was selected after the user's click, and the
	 * Runs view followed it, issue 41). A kept record no longer there is forgotten, unless a row was
	 * selected meanwhile (the memory then holds that row).
	 */
	async restoreSelection(descriptor: AnyListDescriptor, id: string, lists: DeploymentLists = this.main): Promise<void> {
		const changes = (): number => this.selectionChanges.get(descriptor.key) ?? 0;
		const before = changes();
		let selectedMeanwhile = false;
		const stillWanted = (): boolean => {
			selectedMeanwhile = changes() !== before;
			return !selectedMeanwhile;
		};
		const record = await this.selectById(descriptor, id, stillWanted, lists).catch(() => {
			stillWanted();
			return undefined;
		});
		if (record === undefined && !selectedMeanwhile && this.memory) {
			await this.memory.update(selectionKey(descriptor.key), undefined);
		}
	}

	/** The provider of a list of the default deployment (top-level; a subtree's rows are served by its parent's provider). */
	providerOf<T, F extends object, P>(descriptor: ListDescriptor<T, F, P>): DescriptorTreeProvider<T, F, P> {
		return this.main.providerOf(descriptor);
	}

	/** The view of a list (or of group rows) and what draws its rows, when it is a view. */
	viewOf(descriptor: AnyListDescriptor): ShownView | undefined {
		return this.shown.get(descriptor.key);
	}

	/**
	 * Sets a flag the default deployment's rows read through `ctx.flag` (e.g. `followed` for runs
	 * whose events stream); whoever changes what it says redraws the list.
	 */
	setFlag(name: string, test: (key: string, parentKey: string | undefined) => boolean): void {
		this.main.setFlag(name, test);
	}

	/** Redraws every list from the records held. */
	redrawAll(): void {
		for (const provider of this.allProviders()) {
			provider.redraw();
		}
	}

	/** The record of the default deployment selected in a list's view that the lists following it show (the agent of Runs). */
	selected<T>(descriptor: ListDescriptor<T, object, unknown>): T | undefined {
		return this.main.selected(descriptor);
	}

	/**
	 * Makes the lists that follow `descriptor`'s view show the records of `record` (or nothing), a
	 * record of `lists`' deployment (the default one's unless given): the other deployments' lists
	 * show nothing (one row is selected in a view). Names it in their views' descriptions. The memory
	 * keeps it for a reload, with its deployment when that is not the default one (unless `remember`
	 * is false: the lists of another deployment go with the window).
	 */
	select<T>(
		descriptor: ListDescriptor<T, object, unknown>,
		record: T | undefined,
		lists: DeploymentLists = this.main,
		remember = true,
	): void {
		this.selectionChanges.set(descriptor.key, (this.selectionChanges.get(descriptor.key) ?? 0) + 1);
		const following = this.main.following(descriptor);
		if (record !== undefined) {
			lists.providersByKey.get(descriptor.key)?.rememberName(record);
		}
		const description =
			record !== undefined
				? singleLine(descriptor.name?.(record) || descriptor.keyOf(record), SAFETY.descriptionMaxChars)
				: undefined;
		if (this.memory && following.length > 0 && remember) {
			void this.memory.update(selectionKey(descriptor.key), this.keptOf(descriptor, record, lists));
		}
		for (const each of this.allLists()) {
			each.setSelected(descriptor, each === lists ? record : undefined);
		}
		for (const [d] of following) {
			const view = this.views.get(d);
			if (view) {
				view.description = description;
			}
		}
	}

	/**
	 * What the memory keeps of a selected record: the default deployment's by its id alone (as
	 * before deployments existed), another deployment's with that deployment's id (issue 47).
	 */
	private keptOf<T>(
		descriptor: ListDescriptor<T, object, unknown>,
		record: T | undefined,
		lists: DeploymentLists,
	): string | { deployment: string; id: string } | undefined {
		if (record === undefined) {
			return undefined;
		}
		if (lists === this.main) {
			return descriptor.keyOf(record);
		}
		const deployment = this.deployments?.idOf(lists);
		return deployment === undefined ? undefined : { deployment, id: descriptor.keyOf(record) };
	}

	/** Re-reads the lists that follow the selection of `descriptor`'s view (the Runs and Artifacts of the selected agent). */
	async refreshFollowing<T>(descriptor: ListDescriptor<T, object, unknown>): Promise<void> {
		await this.main.refreshFollowing(descriptor);
	}

	/** Selects a record of `descriptor` by id (of `lists`' deployment): reveals its row when loaded, else reads it. Undefined clears. */
	async selectById<T>(
		descriptor: ListDescriptor<T, object, unknown>,
		id: string | undefined,
		stillWanted: () => boolean = () => true,
		lists: DeploymentLists = this.main,
	): Promise<T | undefined> {
		if (!id) {
			this.select(descriptor, undefined, lists);
			return undefined;
		}
		const provider = lists.providerOf(descriptor);
		let record = provider.find(id);
		if (record !== undefined) {
			try {
				// In its view, under its root row when there are several deployments.
				const node = provider.nodeOf(record);
				await (lists === this.main
					? this.listViews.get(descriptor.key)?.view.reveal(node, { select: true, focus: false })
					: this.deployments?.reveal(descriptor.key, lists, node));
			} catch {
				// Not rendered yet (view hidden): selecting the data is enough.
			}
		} else {
			record = await descriptor.target?.get(lists.ctx, id, undefined);
			if (!stillWanted()) {
				// Another row was selected meanwhile: that selection stands.
				return lists.selected(descriptor);
			}
		}
		this.select(descriptor, record, lists);
		return record;
	}

	/** Reads the first page of each list whose descriptor has `readAhead`, before its view asks (ListTree.readAhead). */
	readAhead(): void {
		for (const descriptor of this.lists.filter((d) => d.readAhead)) {
			this.providerOf(descriptor).readAhead();
		}
	}

	/** Refreshes every view (the `cloudAgents.refresh` command), of every deployment. */
	async refreshAll(): Promise<void> {
		await Promise.all(this.allProviders().map((provider) => provider.refresh()));
	}

	/** Forgets every list (page size changed) so each reloads from page one. */
	resetAll(): void {
		for (const provider of this.allProviders()) {
			provider.reset();
		}
	}

	/** The lists of every deployment shown, the default one's first. */
	private allLists(): DeploymentLists[] {
		return [this.main, ...(this.deployments?.all() ?? [])];
	}

	/** The providers of every deployment's lists. */
	private allProviders(): AnyProvider[] {
		return this.allLists().flatMap((lists) => [...lists.providers.values()]);
	}
}

/** The workspaceState key of the record selected in a list's view (by the list's key). */
export function selectionKey(listKey: string): string {
	return `cloudAgents.selected.${listKey}`;
}
