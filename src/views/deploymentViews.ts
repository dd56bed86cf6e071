/**
 * The views of several deployments (issue 47), loaded with the features (src/shell/featureEntry.ts),
 * which make the other deployments' sessions: the default deployment's lists are CloudAgentViews'
 * own, made at activation; here each other signed-in deployment gets lists of its own
 * (deploymentLists.ts: its client, connectivity, rows as last loaded, the lists following one
 * another as the default's do), and each view of a list draws them through a DeploymentTreeProvider
 * (deploymentTree.ts): the default deployment's rows alone while it is the only one signed in,
 * one root row per deployment with two or more. Signing out of a deployment, or removing it from
 * the settings, drops its lists and its rows as last loaded.
 */
import * as vscode from 'vscode';
import { SAFETY } from '../api';
import type { Deployment } from '../auth/deployments';
import { PerDeployment } from '../auth/perDeployment';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import { isAutomation } from './automation';
import type { ActionSession } from './actions';
import { Connectivity } from './connectivity';
import type { AnyListDescriptor } from './descriptor';
import { DeploymentLists } from './deploymentLists';
import type { ViewSession } from './deploymentLists';
import { type DeploymentListArg, type DeploymentRows, DeploymentTreeProvider, type RowsProvider } from './deploymentTree';
import { GroupedTreeProvider } from './groupTree';
import { type CloudAgentViews, type DeploymentScope, type ListScope, type OtherDeployments, type ViewRows, selectionKey } from './index';
import { type CacheScopeSource, ROW_CACHE_KEY, RowCache } from './rowCache';

/** A deployment's session as the views use it (src/auth/session.ts's Session). */
export type DeploymentViewSession = ViewSession & ActionSession & CacheScopeSource & { reportError(err: unknown): boolean };

/** The configured deployments and their sessions (src/auth/deploymentSessions.ts), as the views follow them. */
export interface DeploymentSource {
	/** Every configured deployment, the default one first. */
	readonly all: readonly { readonly deployment: Deployment; readonly session: DeploymentViewSession }[];
	/** Fires when a deployment is added or removed, and when a session's sign-in state changes. */
	readonly onDidChange: vscode.Event<void>;
}

/**
 * Shows every signed-in deployment of `deployments` in `views` (once, with the features);
 * `globalState` keeps each one's rows as last loaded. Disposing it leaves the default deployment's
 * rows alone in the views.
 */
export function showDeployments(views: CloudAgentViews, deployments: DeploymentSource, globalState: vscode.Memento): vscode.Disposable {
	return new DeploymentViews(views, deployments, globalState);
}

/**
 * What an action run with `arg` (a row of a view, its command's argument, anything) acts with: its
 * deployment's lists and session. An automation argument names its deployment with `deployment`
 * (a name or id; a chat tool's call on another deployment's agent); one not signed in is refused.
 */
export function scopeOf(views: CloudAgentViews, arg: unknown): DeploymentScope {
	return views.deployments?.ownerOf(arg)?.scope ?? { lists: views, session: undefined, deployment: undefined };
}

/**
 * `arg` as an argument of the deployment of `deploymentId` (undefined: the default one's, as it is):
 * an action run with it acts with that deployment (its client, lists, records, follower). Only a
 * plain object (`{agentId, runId}`) is, copied first so the caller's stays its own; a row or
 * anything else is taken as it is (a row says its deployment itself).
 */
export function inDeployment(views: CloudAgentViews, deploymentId: string | undefined, arg: unknown): unknown {
	if (deploymentId === undefined || views.deployments === undefined || !isPlainObject(arg) || views.deployments.ownerOf(arg)) {
		return arg;
	}
	return views.deployments.claim({ ...arg }, deploymentId);
}

function isPlainObject(value: unknown): value is object {
	return value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype;
}

/** Re-reads a list (its Retry row, its view's Refresh button): of the deployment the row's argument names, else of every deployment. */
export async function refreshList(views: CloudAgentViews, descriptor: AnyListDescriptor, arg: unknown): Promise<void> {
	const other = views.deployments?.ownerOf(arg);
	if (other) {
		await other.lists.providerOf(descriptor).refresh((arg as DeploymentListArg).listId);
		return;
	}
	const others = arg === undefined ? (views.deployments?.all() ?? []) : [];
	await Promise.all([views.providerOf(descriptor).refresh(arg), ...others.map((lists) => lists.providerOf(descriptor).refresh())]);
}

/** Reads one page more of a list (its Load more row): of the deployment the row's argument names. */
export async function loadMoreList(views: CloudAgentViews, descriptor: AnyListDescriptor, arg: unknown): Promise<void> {
	const other = views.deployments?.ownerOf(arg);
	await (other
		? other.lists.providerOf(descriptor).loadMore((arg as DeploymentListArg).listId)
		: views.providerOf(descriptor).loadMore(arg));
}

/**
 * globalState as another deployment's rows as last loaded (rowCache.ts) see it: their entry under a
 * key of its own, `cloudAgents.rowCache.<deployment id>`, beside the default deployment's.
 */
export function keptApart(globalState: vscode.Memento, deploymentId: string): vscode.Memento {
	const keyOf = (key: string): string => (key === ROW_CACHE_KEY ? `${ROW_CACHE_KEY}.${deploymentId}` : key);
	return {
		keys: () => globalState.keys(),
		get: (key: string, fallback?: unknown) => globalState.get(keyOf(key), fallback),
		update: (key: string, value: unknown) => globalState.update(keyOf(key), value),
	};
}

/** What the lists of a deployment other than the default one are made and shown with. */
interface OtherDeployment {
	readonly deployment: Deployment;
	readonly session: DeploymentViewSession;
	readonly lists: DeploymentLists;
	readonly connectivity: Connectivity;
	readonly scope: DeploymentScope;
	/** Its rows in each view of a list, by the list's key. */
	readonly rows: Map<string, DeploymentRows>;
	/** Its rows as last loaded, when the views were handed globalState. */
	readonly rowCache: RowCache | undefined;
	/** Signed out or no longer configured: nothing of its account stays, its rows as last loaded neither. */
	gone(): void;
	/** Drops its lists; a selection among its rows goes too. */
	dispose(): void;
}

/** The other signed-in deployments' lists, and the tree of each view of a list that shows them beside the default one's. */
class DeploymentViews extends Disposable implements OtherDeployments {
	/** The lists of the other signed-in deployments, by deployment id. */
	private readonly others: PerDeployment<DeploymentViewSession, OtherDeployment>;
	/** Which deployment (by id) a row of another deployment than the default, or its command's argument, belongs to. */
	private readonly owners = new WeakMap<object, string>();
	/** The tree of each view of a list, by the list's key, with the default deployment's rows in it. */
	private readonly trees = new Map<string, { tree: DeploymentTreeProvider; main: DeploymentRows }>();
	/** The default deployment's name and host, for its root row. */
	private defaultDeployment = { id: 'default', name: '', host: '' };
	/** The lists as another deployment's are made: copies of the descriptors without a view id (deploymentLists.ts). */
	private readonly lists: readonly AnyListDescriptor[];

	constructor(
		private readonly views: CloudAgentViews,
		private readonly source: DeploymentSource,
		private readonly globalState: vscode.Memento,
	) {
		super();
		this.lists = views.lists.map((d) => (d.viewId ? { ...d, viewId: undefined } : d));
		views.deployments?.dispose();
		views.deployments = this;
		this.register({
			dispose: () => {
				if (views.deployments === this) {
					views.deployments = undefined;
				}
			},
		});
		const shownViews: Array<[string, { rows: ViewRows; main: RowsProvider }]> = [...views.listViews, ...views.groupViews];
		for (const [key, shown] of shownViews) {
			const info = (): { id: string; name: string; host: string } => this.defaultDeployment;
			const main: DeploymentRows = {
				get id() {
					return info().id;
				},
				get name() {
					return info().name;
				},
				get host() {
					return info().host;
				},
				rows: shown.main,
			};
			const tree = this.register(new DeploymentTreeProvider(main, this.owners));
			this.trees.set(key, { tree, main });
			// The same rows as before while the default deployment is the only one shown: nothing to redraw.
			shown.rows.setTarget(tree, false);
			this.register({ dispose: () => shown.rows.setTarget(shown.main, tree.several) });
		}
		this.others = this.register(new PerDeployment(source, ({ deployment, session }) => this.add(deployment, session), 'signedIn'));
		this.register(this.others.onDidChange(() => this.showRows()));
		this.register(views.session.onDidChange(() => this.showRows()));
		this.showRows();
	}

	all(): readonly DeploymentLists[] {
		return [...this.others.values()].map((o) => o.lists);
	}

	ownerOf(arg: unknown): { readonly lists: DeploymentLists; readonly scope: DeploymentScope } | undefined {
		return this.otherOf(arg);
	}

	idOf(lists: DeploymentLists): string | undefined {
		return [...this.others.values()].find((o) => o.lists === lists)?.deployment.id;
	}

	private otherOf(arg: unknown): OtherDeployment | undefined {
		if (isAutomation(arg) && typeof arg.deployment === 'string') {
			return this.otherNamed(arg.deployment);
		}
		const id = arg !== null && typeof arg === 'object' ? this.owners.get(arg) : undefined;
		return id === undefined ? undefined : this.others.get(id);
	}

	/**
	 * The signed-in deployment an automation argument's `deployment` names (its id or name, any
	 * case: a chat tool acting on another deployment's agent); undefined for the default deployment.
	 * Any other name is refused, so that the call never falls back to the default deployment.
	 */
	private otherNamed(named: string): OtherDeployment | undefined {
		const wanted = named.trim().toLowerCase();
		const other = this.others.get(wanted) ?? [...this.others.values()].find((o) => o.deployment.name.toLowerCase() === wanted);
		if (other || wanted === this.defaultDeployment.id || wanted === this.defaultDeployment.name.toLowerCase()) {
			return other;
		}
		throw new Error(vscode.l10n.t('No signed-in deployment is named "{0}".', singleLine(named, SAFETY.labelMaxChars)));
	}

	async reveal(key: string, lists: DeploymentLists, node: vscode.TreeItem): Promise<void> {
		const other = this.others.values().find((o) => o.lists === lists);
		const rows = other?.rows.get(key);
		const view = this.views.listViews.get(key)?.view;
		if (rows && view) {
			await view.reveal(this.trees.get(key)!.tree.adopt(rows, node), { select: true, focus: false });
		}
	}

	claim<T extends object>(value: T, deploymentId: string): T {
		this.owners.set(value, deploymentId);
		return value;
	}

	async retryNow(arg: unknown): Promise<void> {
		const other = this.otherOf(arg);
		const all = other ? [other] : [this.views, ...this.others.values()];
		await Promise.all(all.map((each) => each.connectivity.retryNow()));
	}

	/** The lists of another deployment, shown in the views of lists beside the default one's. */
	private add(deployment: Deployment, session: DeploymentViewSession): OtherDeployment {
		const connectivity = new Connectivity({
			probe: () => session.client.healthHead({ signal: AbortSignal.timeout(SAFETY.connectionCheckTimeoutMs) }),
		});
		const rowCache = new RowCache(keptApart(this.globalState, deployment.id), session, (err) =>
			this.views.log.warn(`Keeping the rows as last loaded failed: ${String(err)}`),
		);
		const lists: DeploymentLists = new DeploymentLists({
			session,
			log: this.views.log,
			reportError: (err) => void session.reportError(err),
			lists: this.lists,
			connectivity,
			rowCache,
			onSelectedGone: (of) => this.views.select(of, undefined, lists),
		});
		const scope: ListScope = {
			ctx: lists.ctx,
			providerOf: (descriptor) => lists.providerOf(descriptor),
			selected: (descriptor) => lists.selected(descriptor),
			select: (descriptor, record) => this.views.select(descriptor, record, lists),
			selectById: (descriptor, id) => this.views.selectById(descriptor, id, undefined, lists),
			refreshFollowing: (descriptor) => lists.refreshFollowing(descriptor),
		};
		// The lists first: their providers still wait in the connectivity.
		const disposables: vscode.Disposable[] = [
			lists,
			{ dispose: () => connectivity.dispose() },
			session.onDidChange(() => connectivity.reset()),
			rowCache,
		];
		const rows = new Map<string, DeploymentRows>();
		const root = { id: deployment.id, name: deployment.name, host: hostOf(deployment.apiUrl) };
		for (const [key, { view }] of this.views.listViews) {
			const provider = lists.providerOf({ key } as AnyListDescriptor);
			provider.attach(sharedView(view));
			rows.set(key, { ...root, rows: provider });
		}
		// The Account view: this deployment's groups (its own lists of images, checkpoints, …) under its root row.
		for (const [key, { descriptor, view }] of this.views.groupViews) {
			const grouped = new GroupedTreeProvider(
				descriptor,
				lists.ctx,
				(descriptor.groups ?? []).map((d) => lists.providerOf(d)),
				() => session.signedIn,
			);
			grouped.attach(sharedView(view));
			disposables.push(grouped);
			rows.set(key, { ...root, rows: grouped });
		}
		// Set when the deployment went (signed out, removed): its selection is forgotten, not kept for a reload.
		let forget = false;
		const other: OtherDeployment = {
			deployment,
			session,
			lists,
			connectivity,
			scope: { lists: scope, session, deployment },
			rows,
			rowCache,
			gone: () => {
				forget = true;
				rowCache.clear();
			},
			dispose: () => this.remove(other, disposables, forget),
		};
		for (const connector of this.views.connectors) {
			disposables.push(...connector(scope));
		}
		this.restoreSelections(deployment, lists);
		return other;
	}

	/** The record of this deployment selected before a reload (Agents, which Runs and Artifacts follow) is selected again on its row. */
	private restoreSelections(deployment: Deployment, lists: DeploymentLists): void {
		for (const descriptor of this.views.lists) {
			const id = this.views.listViews.has(descriptor.key) ? keptSelection(this.views, descriptor, deployment.id) : undefined;
			if (id !== undefined && lists.selected(descriptor) === undefined) {
				void this.views.restoreSelection(descriptor, id, lists);
			}
		}
	}

	/**
	 * Drops another deployment's lists; a selection among its rows goes too — from the memory when
	 * the deployment went (`forget`), kept for the next window when the window closes.
	 */
	private remove(other: OtherDeployment, disposables: readonly vscode.Disposable[], forget: boolean): void {
		for (const key of this.trees.keys()) {
			const descriptor = this.views.lists.find((d) => d.key === key);
			if (descriptor && other.lists.selected(descriptor) !== undefined) {
				this.views.select(descriptor, undefined, other.lists, forget);
			}
		}
		for (const d of disposables) {
			d.dispose();
		}
	}

	/** Each view of a list shows the signed-in deployments: the default one's rows alone unless another one is signed in. */
	private showRows(): void {
		if (this.isDisposed) {
			return;
		}
		const all = this.source.all;
		const first = all.find((d) => d.deployment.isDefault)?.deployment;
		if (first) {
			this.defaultDeployment = { id: first.id, name: first.name, host: hostOf(first.apiUrl) };
		}
		const order = all.map((d) => d.deployment.id);
		const others = this.others.values().sort((a, b) => order.indexOf(a.deployment.id) - order.indexOf(b.deployment.id));
		for (const [key, { tree, main }] of this.trees) {
			tree.show([...(this.views.session.signedIn ? [main] : []), ...others.map((o) => o.rows.get(key)!)]);
		}
	}
}

/**
 * The id of the record of `deploymentId`'s deployment (not the default one) selected in a list's
 * view before a reload, if the views' memory keeps one of that deployment (issue 47: index.ts
 * `select` keeps it with its deployment's id).
 */
function keptSelection(views: CloudAgentViews, descriptor: AnyListDescriptor, deploymentId: string): string | undefined {
	const kept = views.memory?.get<unknown>(selectionKey(descriptor.key));
	if (kept === null || typeof kept !== 'object') {
		return undefined;
	}
	const { deployment, id } = kept as { deployment?: unknown; id?: unknown };
	return deployment === deploymentId && typeof id === 'string' && id !== '' ? id : undefined;
}

/** The host (and port) of an API URL, for a deployment's root row; the URL as written when it has none. */
function hostOf(apiUrl: string): string {
	try {
		return new URL(apiUrl).host || apiUrl;
	} catch {
		return apiUrl;
	}
}

/**
 * A view as another deployment's lists see it: its visibility (they poll only while it is shown),
 * not its message, which the default deployment's lists set ("Last loaded … — not refreshed").
 */
function sharedView(view: vscode.TreeView<vscode.TreeItem>): vscode.TreeView<vscode.TreeItem> {
	return {
		get visible() {
			return view.visible;
		},
		onDidChangeVisibility: view.onDidChangeVisibility,
		message: undefined,
	} as unknown as vscode.TreeView<vscode.TreeItem>;
}
