import * as vscode from 'vscode';
import { SAFETY, fromUnixMillis, isAuthFailure } from '../api';
import { plainText, singleLine } from '../util/text';
import { Disposable, toDisposable } from '../util/lifecycle';
import { describeError } from '../messages/errors';
import { FIRST_READ_WAITING_MS, emptyViewContextKey, waitingViewContextKey, type CommandId } from '../ids';
import { Connectivity } from './connectivity';
import type { Participant } from './connectivity';
import { clockTime, relativeTime, safeTreeItem } from './format';
import type { ListContext, ListDescriptor, RowContext } from './descriptor';
import { ListModel as BaseListModel, MIN_DELAY_MS, RELATIVE_TIME_REDRAW_MS, shapeOf } from './listModel';
import type { ListModelHost, ListRow } from './listModel';
import type { RowCache } from './rowCache';
import { afterReplies } from '../util/turns';
import { LoadMoreNode, MessageNode, RecordNode, resolveTooltip } from './rows';

/** The configured page size (`cloudAgents.pageSize`, 1–100, default 50). */
export function pageSize(): number {
	const n = vscode.workspace.getConfiguration('cloudAgents').get<number>('pageSize', 50);
	return Number.isInteger(n) && n >= 1 ? Math.min(n, 100) : 50;
}

/** What a list needs from its host: sign-in state, 401 reporting and where to log. */
export interface ListHost {
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
	log: vscode.LogOutputChannel;
	/** Reports an error of a background fetch (the session's single 401 prompt, when it has one). */
	reportError(err: unknown): void;
	/**
	 * Whether the service answers, shared by every list (connectivity.ts): the lists report their
	 * reads to it and wait there while offline. Without it the provider keeps one of its own.
	 */
	readonly connectivity?: Connectivity;
	/** The rows as last loaded (rowCache.ts), for the lists whose descriptor has `cache`. */
	readonly rowCache?: RowCache;
}

/**
 * How long a page read ahead (`readAhead`) is drawn as it is when the view first shows: older, the
 * view reads again as when nothing was read ahead (the rows as last loaded, then the answer).
 */
export const READ_AHEAD_FRESH_MS = 30_000;

/** The command of the offline row's click and inline action, and of the status bar item: "Retry Now". */
export const RETRY_NOW_COMMAND: CommandId = 'cloudAgents.retryConnection';

// ---------------------------------------------------------------------------------------------
// Lists from descriptors (descriptor.ts): one provider for every list view and subtree.
// ---------------------------------------------------------------------------------------------

/** A parent record and its key (the selected agent of Runs; the row a subtree hangs under). */
interface ParentRef {
	readonly record: unknown;
	readonly key: string;
	/** The row the list hangs under (subtrees), for `getParent`. */
	readonly node?: vscode.TreeItem;
}

/** The row that groups one child list of a row, when the row has several. */
class GroupNode extends vscode.TreeItem {
	constructor(
		readonly model: ListModel<unknown>,
		readonly parentNode: vscode.TreeItem,
	) {
		super(model.descriptor.title?.() ?? model.descriptor.key, vscode.TreeItemCollapsibleState.Collapsed);
		this.id = `${parentNode.id ?? ''}/${model.descriptor.key}`;
		this.contextValue = `group:${model.descriptor.kind}`;
	}
}

/** What a model needs from its provider. */
type ModelHost = ListModelHost<ListContext, ListModel<unknown>>;

/** The state of one list (listModel.ts) with this provider's descriptors, context and parent rows. */
class ListModel<T> extends BaseListModel<T, ListDescriptor<T, object, unknown>, ListContext, ParentRef> {}

/**
 * A list view from a descriptor (descriptor.ts), with the subtrees of the descriptors whose
 * parent is `children` of it. Owns the loading state of each list (not loaded, loaded, failed),
 * the "Load more…" row, the error and Retry rows, the empty row, and automatic refresh: only while
 * the view is visible and a record is in motion (`isActive`, or marked with `markActive`), with a
 * delay that starts at 2 s and doubles up to 5 s while nothing changes.
 *
 * While the service does not answer (`isUnreachable`), a list keeps its rows under an "Offline —
 * retrying in N s" row (click: Retry Now) and stops polling; it waits in the shared connectivity
 * (connectivity.ts) while its view is visible, which retries with backoff and reads it again as soon
 * as anything gets an answer. The countdown is kept true by redrawing that one row once a second
 * (an element refresh: VS Code reads that row's item again, no request, the other rows untouched).
 */
export class DescriptorTreeProvider<T, F extends object = object, P = unknown>
	extends Disposable
	implements vscode.TreeDataProvider<vscode.TreeItem>
{
	protected readonly _onDidChangeTreeData = this.register(new vscode.EventEmitter<vscode.TreeItem | vscode.TreeItem[] | undefined>());
	/** Fires when the rows change. */
	readonly onDidChangeTreeData = this._onDidChangeTreeData.event;

	private readonly _onDidLoad = this.register(new vscode.EventEmitter<void>());
	/** Fires after each successful fetch of the list (not of its subtrees). */
	readonly onDidLoad = this._onDidLoad.event;

	private readonly _onDidSettle = this.register(new vscode.EventEmitter<void>());
	/** Fires when a record that was in motion (`isActive`) is seen at rest or gone. */
	readonly onDidSettle = this._onDidSettle.event;

	private readonly _onDidRequestRefresh = this.register(new vscode.EventEmitter<P | undefined>());
	/**
	 * Fires when the list is refreshed on request (a command, the Refresh button), with its parent
	 * record, even while the view is hidden.
	 */
	readonly onDidRequestRefresh = this._onDidRequestRefresh.event;

	private readonly root: ListModel<T>;
	/** The child lists of rows, by `<row id>/<child key>`; created when a row is expanded. */
	private readonly childModels = new Map<string, ListModel<unknown>>();
	/** Keys of records known elsewhere to be in motion (an agent with a run just started). */
	private readonly marked = new Set<string>();
	/** Keys of the records that were in motion at the last load. */
	private active = new Set<string>();
	/** Names of records seen outside the loaded pages (selected by id, looked up): for titles. */
	private readonly names = new Map<string, string>();
	private view: vscode.TreeView<vscode.TreeItem> | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	/** When the automatic refresh last redrew the rows (or the provider was made). */
	private polledRedrawAt = Date.now();
	private readonly modelHost: ModelHost;
	private readonly connectivity: Connectivity;
	/** What waits in the connectivity while a list of this view is offline: reads the offline lists again. */
	private readonly participant: Participant = { retry: () => this.retryOffline() };
	/** The last value of the view's "read and found nothing" context key, undefined before the first. */
	private emptyTold: boolean | undefined;
	/** The offline row drawn last for each offline list: its label is updated in place as the countdown runs. */
	private readonly offlineNodes = new Map<ListModel<unknown>, MessageNode>();
	/**
	 * The rows as last loaded (rowCache.ts), shown marked until the list's first answer; read once
	 * after each reset (`cacheRead`), dropped by the first answer, by a refused token and by a reset.
	 */
	private cached: { items: T[]; savedAt: number } | undefined;
	private cacheRead = false;
	/** Cancels the read behind the rows as last loaded, set to start once their answer is written. */
	private cachedLoad: (() => void) | undefined;
	/**
	 * What each list handed to VS Code last: its record rows (`redraw` and `rowsInPlace` update these
	 * in place) and the shape of all its rows (what `rowsInPlace` compares; '' for rows as last
	 * loaded, which an answer always replaces).
	 */
	private readonly drawn = new Map<ListModel<unknown>, { records: RecordNode[]; shape: string }>();
	/**
	 * Whether VS Code has asked for rows (`getChildren`). Until it has, it shows none of ours and reads
	 * them fresh when it first shows the view, so no change is told (`changed`). At start-up every list
	 * resets on the sign-in state (once, twice with a development token) while its view is still
	 * closed: each event had the extension host send the window a refresh (`$refresh`) to answer, which
	 * a window still loading answers late. One closed or reloaded before answering left the refresh
	 * rejected: a terminating extension host rejects every call still waiting for its window before it
	 * deactivates the extensions ("Unable to refresh tree view …: Canceled" in its log, issue 41).
	 */
	private asked = false;
	/** VS Code asked for a row's tooltip (resolveTreeItem) since the rows were last redrawn. */
	private tooltipsShown = false;
	/** When the root's first page was read ahead (`readAhead`), until the view first draws it. */
	private readAheadAt: number | undefined;

	constructor(
		readonly descriptor: ListDescriptor<T, F, P>,
		private readonly host: ListHost,
		readonly ctx: ListContext,
		/** The descriptors of the lists nested under this list's rows. */
		private readonly childLists: readonly ListDescriptor<unknown, object, T>[] = [],
	) {
		super();
		if (host.connectivity) {
			this.connectivity = host.connectivity;
		} else {
			const own = new Connectivity();
			this.connectivity = own;
			this.register(toDisposable(() => own.dispose()));
		}
		this.modelHost = {
			ctx,
			log: host.log,
			reportError: (err, model) => {
				host.reportError(err);
				this.reportRead(model, err);
			},
			pageSize,
			describeError,
			loaded: (model) => {
				this.reportRead(model, undefined);
				if (model === this.root) {
					this.keepRows();
					this.afterRootLoad();
				}
			},
		};
		this.root = new ListModel<T>(descriptor.key, descriptor, undefined, this.modelHost);
		this.register(host.onDidChange(() => this.reset()));
		this.register(toDisposable(() => this.stopTimer()));
		this.register(toDisposable(() => this.cachedLoad?.()));
		this.register(toDisposable(() => this.connectivity.leave(this.participant)));
		this.register(this.connectivity.onDidTick(() => this.updateOfflineRows()));
		this.register(this.connectivity.onDidChange(() => this.updateOfflineRows()));
	}

	/** The list's short name (`agents`, `runs`, …). */
	get key(): string {
		return this.descriptor.key;
	}

	/** Connects the tree view, so refreshes follow its visibility. */
	attach(view: vscode.TreeView<vscode.TreeItem>): void {
		this.view = view;
		this.register(
			view.onDidChangeVisibility((e) => {
				if (e.visible) {
					this.schedule();
					if (this.anyOffline()) {
						this.connectivity.join(this.participant);
						this.updateOfflineRows();
					}
				} else {
					this.stopTimer();
					this.connectivity.leave(this.participant);
				}
			}),
		);
	}

	/** The records shown, in display order. */
	get records(): readonly T[] {
		return this.root.items;
	}

	/** The parent record the list shows the records of (`selection` lists), if any. */
	get parent(): P | undefined {
		return this.root.parent?.record as P | undefined;
	}

	/**
	 * Shows the records of another parent (or none) — a `selection` list following the record
	 * selected in another view. The same parent again only updates the record.
	 */
	setParent(record: P | undefined): void {
		const spec = this.descriptor.parent;
		if (!spec) {
			return;
		}
		const key = record === undefined ? undefined : spec.of.keyOf(record);
		const next = record === undefined || key === undefined ? undefined : { record, key };
		if (key === this.root.parent?.key) {
			this.root.parent = next;
			return;
		}
		this.root.parent = next;
		this.active.clear();
		this.reset();
	}

	/** The record with this key among the loaded rows. */
	find(key: string): T | undefined {
		return this.root.items.find((item) => this.descriptor.keyOf(item) === key);
	}

	/** Remembers a record's name (a record selected or read outside the loaded pages). */
	rememberName(item: T): void {
		const name = this.descriptor.name?.(item);
		if (name) {
			const key = this.descriptor.keyOf(item);
			this.names.delete(key);
			this.names.set(key, name);
			if (this.names.size > REMEMBERED_NAMES) {
				this.names.delete(this.names.keys().next().value!);
			}
		}
	}

	/** A record's name for titles: from the loaded rows, else as last seen; undefined when unknown. */
	nameOf(key: string): string | undefined {
		const item = this.find(key);
		return (item !== undefined ? this.descriptor.name?.(item) : undefined) || this.names.get(key);
	}

	/** The row of a record (for reveal and selection). */
	nodeOf(item: T): RecordNode<T, F> {
		return this.toNode(this.root, item) as RecordNode<T, F>;
	}

	/**
	 * Records whether a record is in motion as seen from elsewhere (an agent whose run the Runs
	 * view shows active): while one is, the list refreshes itself (when visible).
	 */
	markActive(key: string, active: boolean): void {
		const had = this.marked.has(key);
		if (active) {
			this.marked.add(key);
		} else {
			this.marked.delete(key);
		}
		if (active && !had) {
			// Nothing the row shows changes: only the automatic refresh starts.
			this.schedule();
		}
	}

	/** The row as shown: every row passes `safeTreeItem` here (server text on one line, cut, neutralised). */
	getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
		return safeTreeItem(element);
	}

	/** VS Code asks for a tooltip left out of the row (hover): built now. */
	resolveTreeItem(item: vscode.TreeItem, element: vscode.TreeItem): vscode.TreeItem {
		this.tooltipsShown = true;
		resolveTooltip(element);
		item.tooltip = element.tooltip;
		return safeTreeItem(item);
	}

	getParent(element: vscode.TreeItem): vscode.TreeItem | undefined {
		if (element instanceof RecordNode || element instanceof GroupNode) {
			return element.parentNode;
		}
		return undefined;
	}

	/** The rows: records then "Load more…", or a message row; signed out, none (welcome content). */
	async getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
		this.asked = true;
		if (!this.host.signedIn) {
			return [];
		}
		if (!element) {
			const spec = this.descriptor.parent;
			if (spec?.as === 'selection' && !this.root.parent) {
				const kind = spec.of.kind;
				return [
					new MessageNode(`${this.key}/select${kind.charAt(0).toUpperCase()}${kind.slice(1)}`, spec.selectLabel(), {
						icon: new vscode.ThemeIcon('info'),
						tooltip: spec.selectTooltip(),
					}),
				];
			}
			return this.rowsOf(this.root);
		}
		if (element instanceof GroupNode) {
			return this.rowsOf(element.model);
		}
		if (element instanceof RecordNode && element.descriptor === this.descriptor && this.childLists.length > 0) {
			const models = this.childLists.map((child) => this.childModel(element as RecordNode<T, F>, child));
			if (models.length === 1) {
				return this.rowsOf(models[0]!);
			}
			return models.map((model) => new GroupNode(model, element));
		}
		return [];
	}

	/**
	 * Redraws the rows from the records held (something they show, such as a name or a flag, changed
	 * elsewhere): each record row shown is read again in place (an element refresh), so VS Code keeps
	 * every row's handle. A whole-tree refresh would make it drop them until it has read the rows
	 * again, and a row's context menu or inline action used meanwhile would run without its row.
	 */
	redraw(): void {
		this.tooltipsShown = false;
		const rows = [...this.drawn.values()].flatMap((d) => d.records);
		for (const row of rows) {
			row.update();
		}
		if (rows.length > 0) {
			this.changed(rows);
		}
		this.schedule();
	}

	/**
	 * Redraws the rows when what only their tooltips show changed (a runtime's name), if VS Code holds
	 * a tooltip built since the last redraw: one sent while the view first drew its rows held them back.
	 */
	redrawTooltips(): void {
		if (this.tooltipsShown) {
			this.redraw();
		}
	}

	/**
	 * Reads the root's first page before VS Code asks for rows (issue 44): signed in, in the idle
	 * time after activation (Session.warmUpClient), so a click on the view draws the answer at once
	 * instead of the rows as last loaded and, a round trip to the window later, the answer's (on the
	 * bench's machine 70–85 ms of a fresh row's 160–190 ms). For a list of the top (the Agents
	 * view's): nothing once the view has asked; a failed read leaves the first drawing to read again.
	 */
	readAhead(): void {
		if (this.asked || this.root.loaded || !this.host.signedIn) {
			return;
		}
		void this.root.load().then(() => {
			if (this.asked) {
				return;
			}
			if (this.root.loaded && this.root.error === undefined) {
				this.readAheadAt = Date.now();
				// The rows built once and dropped: the first drawing then runs code the extension host has
				// already compiled (built first at the click, they held its turn 17–41 ms: bench firstRows).
				const { listRows } = this.buildRows(this.root);
				// The view's "empty" context key as the first drawing will find it, set now: a setContext
				// sent with the click's rows goes to the window before them and holds them back.
				this.tellEmpty(listRows.length === 0);
			} else {
				this.root.reset();
			}
		});
	}

	/**
	 * Re-reads the records shown (keeping the pages loaded) and redraws; with the id of a subtree
	 * (its Retry row) only that subtree. Shared while in flight. While the view is hidden nothing is
	 * fetched: the list is only marked stale and reloads when it is next shown.
	 */
	async refresh(listId?: unknown): Promise<void> {
		const model = typeof listId === 'string' ? this.childModels.get(listId) : undefined;
		if (model) {
			model.error = undefined;
			await model.load();
			this.changed(undefined);
			return;
		}
		if (this.descriptor.parent === undefined || this.root.parent) {
			this._onDidRequestRefresh.fire(this.root.parent?.record as P | undefined);
		}
		this.root.error = undefined;
		this.root.delayMs = MIN_DELAY_MS;
		for (const child of this.childModels.values()) {
			// Subtrees reload when next expanded or drawn.
			child.reset();
		}
		if (this.view && !this.view.visible) {
			this.root.loaded = false;
			this.changed(undefined);
			return;
		}
		await this.root.load();
		this.changed(undefined);
	}

	/** Loads the next page (the "Load more…" row; with a subtree's id, of that subtree). Concurrent clicks share one request. */
	async loadMore(listId?: unknown): Promise<void> {
		const model = (typeof listId === 'string' ? this.childModels.get(listId) : undefined) ?? this.root;
		if (!model.more) {
			return;
		}
		await model.loadMore();
		this.changed(undefined);
	}

	/** Forgets everything (sign-in change, another parent selected) and redraws from scratch. */
	reset(): void {
		this.root.reset();
		for (const child of this.childModels.values()) {
			child.reset();
		}
		this.childModels.clear();
		this.marked.clear();
		this.offlineNodes.clear();
		this.drawn.clear();
		this.dropCached();
		this.cacheRead = false;
		this.cachedLoad?.();
		this.cachedLoad = undefined;
		this.stopTimer();
		this.connectivity.leave(this.participant);
		this.tellEmpty(false);
		this.changed(undefined);
	}

	/** Whether a list of this view (its own, or a subtree) is offline. */
	private anyOffline(): boolean {
		return this.root.offline || [...this.childModels.values()].some((m) => m.offline);
	}

	/** Whether the rows can be seen (a provider without a view counts as shown). */
	private get shown(): boolean {
		return this.view === undefined || this.view.visible;
	}

	/**
	 * Tells the connectivity how a read ended: an answer (this view leaves the waiting lists once none
	 * of its lists is offline), no answer (it waits there, while shown), or nothing either way.
	 */
	private reportRead(model: ListModel<unknown>, err: unknown): void {
		const stillOffline = this.anyOffline();
		if (err === undefined) {
			this.connectivity.reportAnswered(stillOffline ? undefined : this.participant);
			if (stillOffline && this.connectivity.online && this.shown) {
				// Online again with another list of this view still offline: read it too.
				this.connectivity.join(this.participant);
			}
		} else if (model.offline) {
			this.connectivity.reportUnreachable(err, {
				participant: this.shown ? this.participant : undefined,
				startedAt: model.fetchStartedAt,
			});
		} else {
			this.connectivity.report(err, { participant: stillOffline ? undefined : this.participant, startedAt: model.fetchStartedAt });
		}
	}

	/** Reads again every offline list of this view (the connectivity's attempt, or the service answering again). */
	private async retryOffline(): Promise<void> {
		const models = [this.root as ListModel<unknown>, ...this.childModels.values()].filter((m) => m.offline);
		if (models.length === 0 || !this.shown) {
			return;
		}
		this.updateOfflineRows();
		await Promise.all(models.map((m) => m.load()));
		this.changed(undefined);
	}

	/** The offline row's label, icon and tooltip as the connectivity stands now; `rowsBelow`: records are shown under it. */
	private offlineText(error: unknown, rowsBelow: boolean): { label: string; icon: vscode.ThemeIcon; tooltip: string } {
		const state = this.connectivity.state;
		const seconds = this.connectivity.secondsToNextAttempt();
		const reason = describeError(state?.reason ?? error);
		const tooltip = `${
			state
				? vscode.l10n.t('Cannot reach the Cloud Agents service since {0}: {1}', clockTime(state.since), reason)
				: vscode.l10n.t('Cannot reach the Cloud Agents service: {0}', reason)
		}\n${
			rowsBelow
				? vscode.l10n.t(
						'The rows below are as last loaded; they refresh by themselves when the service answers again. Click to retry now.',
					)
				: vscode.l10n.t('Nothing could be loaded yet; the list loads by itself when the service answers again. Click to retry now.')
		}`;
		if (seconds !== undefined && !(state?.attempting ?? false)) {
			return {
				label: vscode.l10n.t('Offline — retrying in {0} s', seconds),
				icon: new vscode.ThemeIcon('debug-disconnect'),
				tooltip,
			};
		}
		if (state !== undefined && !state.attempting) {
			// Nothing is retried (the view was hidden meanwhile): a click still retries.
			return { label: vscode.l10n.t('Offline'), icon: new vscode.ThemeIcon('debug-disconnect'), tooltip };
		}
		return { label: vscode.l10n.t('Offline — retrying now…'), icon: new vscode.ThemeIcon('sync~spin'), tooltip };
	}

	/** Redraws the offline rows whose text changed (the countdown, an attempt starting), each on its own. */
	private updateOfflineRows(): void {
		if (!this.shown || this.isDisposed) {
			return;
		}
		for (const [model, node] of this.offlineNodes) {
			if (!model.offline) {
				continue;
			}
			const text = this.offlineText(model.error, this.rowsBelow(model));
			if (node.label !== text.label || node.tooltip !== text.tooltip) {
				node.label = text.label;
				node.iconPath = text.icon;
				node.tooltip = text.tooltip;
				this.changed(node);
			}
		}
	}

	private afterRootLoad(): void {
		const isActive = this.descriptor.isActive;
		if (isActive) {
			const nowActive = new Set(this.root.items.filter((item) => isActive(item)).map((item) => this.descriptor.keyOf(item)));
			const settled = [...this.active].some((key) => !nowActive.has(key));
			this.active = nowActive;
			if (settled) {
				this._onDidSettle.fire();
			}
		}
		this._onDidLoad.fire();
	}

	private childModel(node: RecordNode<T, F>, child: ListDescriptor<unknown, object, T>): ListModel<unknown> {
		const id = `${node.id ?? ''}/${child.key}`;
		let model = this.childModels.get(id);
		const parent: ParentRef = { record: node.record, key: this.descriptor.keyOf(node.record), node };
		if (!model) {
			model = new ListModel<unknown>(`${child.key}/${node.id ?? ''}`, child, parent, this.modelHost);
			this.childModels.set(id, model);
		} else {
			// A list read from its parent record (`fromParent`) is read again when that record is new.
			if (child.fromParent === true && model.parent?.record !== node.record) {
				model.loaded = false;
			}
			model.parent = parent;
		}
		return model;
	}

	private async rowsOf<U>(model: ListModel<U>): Promise<vscode.TreeItem[]> {
		const isRoot = (model as ListModel<unknown>) === (this.root as ListModel<unknown>);
		if (isRoot && this.readAheadAt !== undefined) {
			// A page read ahead is drawn as it is while young; older, it is read again.
			if (Date.now() - this.readAheadAt > READ_AHEAD_FRESH_MS) {
				this.root.reset();
			}
			this.readAheadAt = undefined;
		}
		if (!model.loaded && model.error === undefined) {
			const cached = isRoot ? this.cachedRows() : undefined;
			if (cached) {
				// The rows as last loaded at once, marked; the answer replaces them (or an error row goes above them).
				// The read starts once these rows are written (src/util/turns.ts): its first step may load
				// the HTTP client (dist/client.js), which would otherwise hold them back.
				this.cachedLoad ??= afterReplies(() => void this.loadBehindCache());
				const nodes = this.cachedNodes(cached);
				this.drawn.set(model, { records: nodes, shape: '' });
				return nodes;
			}
			// A first read may load the HTTP client (dist/client.js) synchronously: once the answers of
			// this turn are written, so the rows of the views VS Code asked for in the same breath (rows
			// as last loaded) go out first (src/util/turns.ts).
			await new Promise<void>((resolve) => afterReplies(resolve));
			const waiting = isRoot ? this.tellWaitingSoon() : undefined;
			try {
				await model.load();
			} finally {
				waiting?.dispose();
			}
		}
		const { listRows, rows } = this.buildRows(model);
		if (this.cached && this.showsCached(model)) {
			if (isAuthFailure(model.error)) {
				// The token was refused: nothing it loaded is shown any more.
				this.dropCached();
			} else {
				// Not refreshed: the error or offline row, then the rows as last loaded, still marked.
				this.showCachedMessage();
				rows.push(...this.cachedNodes(this.cached));
			}
		}
		this.drawn.set(model, {
			records: rows.filter((row): row is RecordNode => row instanceof RecordNode),
			shape: shapeOf(model.descriptor.keyOf, listRows),
		});
		if (isRoot) {
			this.tellEmpty(rows.length === 0 && model.loaded && model.error === undefined);
		}
		if (!model.offline) {
			this.offlineNodes.delete(model);
		}
		if (model.error === undefined) {
			this.schedule();
		}
		return rows;
	}

	/** A list's rows (listModel.ts) and their tree items. */
	private buildRows<U>(model: ListModel<U>): { listRows: ListRow<U>[]; rows: vscode.TreeItem[] } {
		const commands = this.commandsOf(model);
		const listRows = this.listRowsOf(model, commands);
		return { listRows, rows: listRows.map((row) => this.rowNode(model, row, commands)) };
	}

	/** Whether an offline list shows records under its offline row (loaded before, or as last loaded). */
	private rowsBelow(model: ListModel<unknown>): boolean {
		return model.items.length > 0 || this.showsCached(model);
	}

	/** Whether `model` shows the rows as last loaded under its error or offline row: the root, not loaded yet, failed. */
	private showsCached(model: ListModel<unknown>): boolean {
		return model === (this.root as ListModel<unknown>) && this.cached !== undefined && !model.loaded && model.error !== undefined;
	}

	/**
	 * Sets the view's "waiting for the service" context key (waitingViewContextKey) if the read under
	 * way has no answer within FIRST_READ_WAITING_MS; disposing it (the read settled) clears it.
	 */
	private tellWaitingSoon(): vscode.Disposable {
		const viewId = this.descriptor.viewId;
		if (!viewId) {
			return { dispose: () => undefined };
		}
		let told = false;
		const timer = setTimeout(() => {
			told = true;
			void vscode.commands.executeCommand('setContext', waitingViewContextKey(viewId), true);
		}, FIRST_READ_WAITING_MS);
		return {
			dispose: () => {
				clearTimeout(timer);
				if (told) {
					void vscode.commands.executeCommand('setContext', waitingViewContextKey(viewId), false);
				}
			},
		};
	}

	/** Sets the view's "read and found nothing" context key (emptyViewContextKey) when it changes. */
	private tellEmpty(empty: boolean): void {
		const viewId = this.descriptor.viewId;
		if (!viewId || this.emptyTold === empty) {
			return;
		}
		this.emptyTold = empty;
		void vscode.commands.executeCommand('setContext', emptyViewContextKey(viewId), empty);
	}

	/** The tree item of one row of a list (listModel.ts decides which rows a list shows). */
	private rowNode<U>(model: ListModel<U>, row: ListRow<U>, commands: { refresh?: string; loadMore?: string }): vscode.TreeItem {
		const isRoot = (model as ListModel<unknown>) === (this.root as ListModel<unknown>);
		switch (row.kind) {
			case 'record':
				return this.toNode(model, row.item);
			case 'loadMore': {
				const more = new LoadMoreNode(model.id, commands.loadMore!);
				if (!isRoot && more.command) {
					more.command.arguments = [this.childIdOf(model)];
				}
				return more;
			}
			case 'notice':
				return new MessageNode(`${model.id}/notice`, singleLine(row.text, SAFETY.labelMaxChars), {
					icon: new vscode.ThemeIcon('warning'),
					tooltip: plainText(row.text),
					contextValue: 'notice',
				});
			case 'empty': {
				const spec = model.descriptor.empty!();
				return new MessageNode(`${model.id}/empty`, spec.label, {
					icon: spec.icon ?? new vscode.ThemeIcon('info'),
					tooltip: spec.tooltip,
					command: spec.command && { ...spec.command },
					contextValue: 'empty',
				});
			}
			case 'error':
				// A short label that fits the default sidebar width; the reason in the description and tooltip.
				return new MessageNode(`${model.id}/error`, row.auth ? vscode.l10n.t('Sign in again') : vscode.l10n.t('Could not load'), {
					icon: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
					description: row.auth ? vscode.l10n.t('token refused') : undefined,
					tooltip: row.auth
						? vscode.l10n.t('The service refused the token. Sign in again.\n{0}', describeError(row.error))
						: vscode.l10n.t('Could not load: {0}', describeError(row.error)),
					contextValue: 'error',
				});
			case 'offline': {
				const text = this.offlineText(row.error, this.rowsBelow(model));
				const node = new MessageNode(`${model.id}/offline`, text.label, {
					icon: text.icon,
					tooltip: text.tooltip,
					command: { command: RETRY_NOW_COMMAND, title: vscode.l10n.t('Retry Now') },
					contextValue: 'offline',
				});
				this.offlineNodes.set(model, node);
				return node;
			}
			case 'retry':
				return new MessageNode(`${model.id}/retry`, vscode.l10n.t('Retry'), {
					icon: new vscode.ThemeIcon('refresh'),
					command: {
						command: commands.refresh!,
						title: vscode.l10n.t('Retry'),
						...(isRoot ? {} : { arguments: [this.childIdOf(model)] }),
					},
					contextValue: 'retry',
				});
			case 'signIn':
				return new MessageNode(`${model.id}/signIn`, vscode.l10n.t('Sign In…'), {
					icon: new vscode.ThemeIcon('sign-in'),
					command: { command: 'cloudAgents.signIn', title: vscode.l10n.t('Sign In') },
					contextValue: 'signIn',
				});
		}
	}

	private toNode<U>(model: ListModel<U>, item: U): vscode.TreeItem {
		const parent = model.parent;
		const ctx: RowContext<unknown> = { ...this.ctx, parent: parent?.record, parentKey: parent?.key };
		const isRoot = (model as ListModel<unknown>) === (this.root as ListModel<unknown>);
		return new RecordNode<U, object>(model.descriptor, item, parent?.record, parent?.node, ctx, isRoot && this.childLists.length > 0);
	}

	/** Reads the list behind its rows as last loaded, then redraws it. */
	private async loadBehindCache(): Promise<void> {
		this.cachedLoad?.();
		this.cachedLoad = undefined;
		await this.root.load();
		this.changed(undefined);
	}

	/** The rows as last loaded with this URL and token (read once after a reset), or undefined. */
	private cachedRows(): { items: T[]; savedAt: number } | undefined {
		const cache = this.descriptor.cache;
		if (!this.cacheRead && cache && this.host.rowCache && this.descriptor.parent === undefined) {
			this.cacheRead = true;
			const stored = this.host.rowCache.read(this.descriptor.key);
			const seen = new Set<string>();
			const items = (stored?.items ?? []).flatMap((value) => {
				const item = cache.restore(value);
				const key = item === undefined ? undefined : this.descriptor.keyOf(item);
				if (item === undefined || key === undefined || seen.has(key)) {
					return [];
				}
				seen.add(key);
				return [item];
			});
			this.cached = stored && items.length > 0 ? { items, savedAt: stored.savedAt } : undefined;
		}
		this.showCachedMessage();
		return this.cached;
	}

	/** The rows of records as last loaded: marked (RecordNode.cachedAt). */
	private cachedNodes(cached: { items: T[]; savedAt: number }): RecordNode[] {
		const ctx: RowContext<unknown> = { ...this.ctx, parent: undefined, parentKey: undefined };
		return cached.items.map(
			(item) =>
				new RecordNode<T, object>(
					this.descriptor,
					item,
					undefined,
					undefined,
					ctx,
					this.childLists.length > 0,
					cached.savedAt,
				) as RecordNode,
		);
	}

	/**
	 * The view's message when rows as last loaded stay after a failed read: when they were loaded. None
	 * while the first read is under way (the rows say "cached" and when): the extension host sends a
	 * view's message and its rows through one 200 ms debounce (leading edge), so a message set with
	 * the rows as last loaded would hold the answer's rows back until its trailing edge.
	 */
	private showCachedMessage(): void {
		if (!this.view) {
			return;
		}
		const cached = this.cached;
		const message =
			cached === undefined || this.root.error === undefined
				? undefined
				: vscode.l10n.t('Last loaded {0} — not refreshed', relativeTime(fromUnixMillis(cached.savedAt)) ?? '');
		// Set only when it changes (a new view's message reads '', not undefined): each set goes through
		// that debounce.
		if ((this.view.message || undefined) !== message) {
			this.view.message = message;
		}
	}

	/** Forgets the rows as last loaded (an answer came, the token was refused, a reset). */
	private dropCached(): void {
		if (this.cached) {
			this.cached = undefined;
			this.showCachedMessage();
		}
	}

	/** Keeps the first page of a fresh answer for the next time the view opens (rowCache.ts). */
	private keepRows(): void {
		this.dropCached();
		const cache = this.descriptor.cache;
		if (cache && this.host.rowCache && this.descriptor.parent === undefined) {
			this.host.rowCache.write(
				this.descriptor.key,
				this.root.items.slice(0, pageSize()).map((item) => cache.store(item)),
				this.root.fetchStartedAt,
			);
		}
	}

	/** The key under which a child model is kept (the argument of its Load more and Retry rows). */
	private childIdOf(model: ListModel<unknown>): string | undefined {
		for (const [id, m] of this.childModels) {
			if (m === model) {
				return id;
			}
		}
		return undefined;
	}

	/** The refresh and load-more commands of a list: its own, else the view's (with the subtree's id). */
	private commandsOf(model: ListModel<unknown> | ListModel<T>): { refresh?: string; loadMore?: string } {
		return {
			refresh: model.descriptor.commands?.refresh ?? this.descriptor.commands?.refresh,
			loadMore: model.descriptor.commands?.loadMore ?? this.descriptor.commands?.loadMore,
		};
	}

	/** The lists in motion: the view's, and the loaded subtrees'. */
	private changingModels(): ListModel<unknown>[] {
		const all: ListModel<unknown>[] = [this.root, ...this.childModels.values()];
		// An offline list waits in the connectivity instead (one shared retry, not one poll per list).
		return all.filter((m) => m.loaded && !m.offline && m.isChanging(m === (this.root as ListModel<unknown>) ? this.marked : EMPTY));
	}

	/** Arms the automatic refresh when the view is visible and a list is in motion. */
	private schedule(): void {
		if (this.timer || this.isDisposed || !this.root.loaded || !this.host.signedIn) {
			return;
		}
		if (!this.view?.visible) {
			return;
		}
		const changing = this.changingModels();
		if (changing.length === 0) {
			return;
		}
		this.timer = setTimeout(
			() => {
				this.timer = undefined;
				const now = this.view?.visible ? this.changingModels() : [];
				if (now.length === 0) {
					return;
				}
				// A poll that brings nothing new leaves the rows alone: a redraw makes VS Code drop every
				// row's handle until it has read the rows again, so a row's context menu or inline action
				// used meanwhile would run without its row (Open Computer on an agent row then asked
				// which agent).
				const revisions = now.map((m) => m.revision);
				void Promise.all(now.map((m) => m.load())).then(() => {
					const changed = now.filter((m, i) => m.revision !== revisions[i]);
					if (changed.length > 0) {
						this.polledRedrawAt = Date.now();
						// The same rows with newer copies of their records: updated in place (VS Code
						// keeps every handle, and a context menu open on a row stays open); rows added,
						// removed or moved: the whole tree is read again.
						const inPlace = changed.map((m) => this.rowsInPlace(m));
						if (inPlace.every((rows): rows is RecordNode[] => rows !== undefined)) {
							const rows = inPlace.flat();
							if (rows.length > 0) {
								this.changed(rows);
							}
						} else {
							this.changed(undefined);
						}
					} else if (Date.now() - this.polledRedrawAt >= RELATIVE_TIME_REDRAW_MS) {
						// Only the relative times moved on: the rows in place.
						this.polledRedrawAt = Date.now();
						this.redraw();
						return;
					}
					this.schedule();
				});
			},
			Math.min(...changing.map((m) => m.delayMs)),
		);
	}

	/**
	 * When a read of `model` brought the rows VS Code shows (the same rows, in the same order), only
	 * with newer copies of their records: puts each copy on its row object and returns those record
	 * rows to refresh (message rows are unchanged); else (rows added, removed or moved, a message row
	 * come, gone or changed) undefined.
	 */
	private rowsInPlace(model: ListModel<unknown>): RecordNode[] | undefined {
		const shown = this.drawn.get(model);
		if (!shown || model.error !== undefined) {
			return undefined;
		}
		const rows = this.listRowsOf(model, this.commandsOf(model));
		const records = rows.flatMap((row) => (row.kind === 'record' ? [row.item] : []));
		if (records.length !== shown.records.length || shapeOf(model.descriptor.keyOf, rows) !== shown.shape) {
			return undefined;
		}
		shown.records.forEach((node, i) => node.setRecord(records[i]));
		return shown.records;
	}

	/** The rows a list shows (listModel.ts decides), given the view's commands. */
	private listRowsOf<U>(model: ListModel<U>, commands: { refresh?: string; loadMore?: string }): ListRow<U>[] {
		return model.rows({
			loadMore: Boolean(commands.loadMore),
			retry: Boolean(commands.refresh),
			empty: model.descriptor.empty !== undefined,
		});
	}

	/**
	 * Tells VS Code that rows changed (`undefined`: the whole list), once it has asked for rows (see
	 * `asked`) and never after disposal (the extension deactivating, or a provider a test built).
	 */
	private changed(rows: vscode.TreeItem | vscode.TreeItem[] | undefined): void {
		if (this.asked && !this.isDisposed) {
			this._onDidChangeTreeData.fire(rows);
		}
	}

	private stopTimer(): void {
		if (this.timer) {
			clearTimeout(this.timer);
			this.timer = undefined;
		}
	}
}

const EMPTY: ReadonlySet<string> = new Set();

/** How many names of records seen outside the loaded pages a list remembers. */
const REMEMBERED_NAMES = 100;
