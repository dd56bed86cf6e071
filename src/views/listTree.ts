import * as vscode from 'vscode';
import type { Agent, Page } from '../api';
import { ListingStoppedError, PageChain, SAFETY } from '../api';
import { plainText, singleLine } from '../util/text';
import { Disposable, toDisposable } from '../util/lifecycle';
import { describeError, isAuthFailure } from '../util/errors';
import { safeTreeItem } from './format';

/** The configured page size (`cloudAgents.pageSize`, 1–100, default 50). */
export function pageSize(): number {
	const n = vscode.workspace.getConfiguration('cloudAgents').get<number>('pageSize', 50);
	return Number.isInteger(n) && n >= 1 ? Math.min(n, 100) : 50;
}

/** A row that is a message, not a record: empty, error, "Select an agent", and so on. */
export class MessageNode extends vscode.TreeItem {
	constructor(id: string, label: string, options: { icon?: vscode.ThemeIcon; command?: vscode.Command; tooltip?: string; contextValue?: string; description?: string } = {}) {
		super(label, vscode.TreeItemCollapsibleState.None);
		this.id = id;
		this.iconPath = options.icon;
		this.command = options.command;
		this.tooltip = options.tooltip;
		this.description = options.description;
		this.contextValue = options.contextValue ?? 'message';
	}
}

/** The "Load more…" row at the end of a list that has more pages. */
export class LoadMoreNode extends vscode.TreeItem {
	constructor(viewKey: string, command: string) {
		super(vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
		this.id = `${viewKey}/loadMore`;
		this.iconPath = new vscode.ThemeIcon('ellipsis');
		this.contextValue = 'loadMore';
		this.command = { command, title: vscode.l10n.t('Load More') };
	}
}

/** What one fetch produced: the records in display order and whether more exist. */
export interface Loaded<T> {
	items: T[];
	more: boolean;
	/** Why the listing ended early (the server's paging went wrong): shown as a row after the items kept. */
	notice?: string;
}

/** What a list needs from its host: sign-in state, 401 reporting and where to log. */
export interface ListHost {
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
	log: vscode.LogOutputChannel;
	/** Reports an error of a background fetch (the session's single 401 prompt, when it has one). */
	reportError(err: unknown): void;
}

const MIN_DELAY_MS = 2_000;
/**
 * The longest wait between two automatic refreshes while something is in motion. Short, so a status
 * the server changed (an agent done provisioning) shows within seconds, not after a 30 s back-off;
 * the polling still only runs while the view is visible and something is active.
 */
const MAX_DELAY_MS = 5_000;

/**
 * A flat list of service records as a tree. Owns the loading state (not loaded, loaded, failed),
 * one in-flight fetch at a time (callers share it), the "Load more…" row, the error and Retry rows,
 * and automatic refresh: only while the view is visible and `isChanging()` says something is in
 * motion, with a delay that starts at 2 s and doubles up to 5 s while nothing changes.
 */
export abstract class ListTreeProvider<T> extends Disposable implements vscode.TreeDataProvider<vscode.TreeItem> {
	protected readonly _onDidChangeTreeData = this.register(new vscode.EventEmitter<vscode.TreeItem | undefined>());
	/** Fires when the rows change. */
	readonly onDidChangeTreeData = this._onDidChangeTreeData.event;

	private readonly _onDidLoad = this.register(new vscode.EventEmitter<void>());
	/** Fires after each successful fetch. */
	readonly onDidLoad = this._onDidLoad.event;

	/** The records shown, in display order, de-duplicated by key. */
	protected items: T[] = [];
	/** Whether the service has more records than `items`. */
	protected more = false;
	/** Why the listing ended early, shown as a last row (see Loaded.notice). */
	private notice: string | undefined;
	/** How many pages the user asked for (1 + "Load more…" clicks). */
	protected pages = 1;
	private loaded = false;
	private error: unknown;
	private pending: Promise<void> | undefined;
	private generation = 0;
	private view: vscode.TreeView<vscode.TreeItem> | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private delayMs = MIN_DELAY_MS;
	private lastSignature = '';

	constructor(
		/** Short name used in row ids (`agents`, `runs`, …). */
		protected readonly key: string,
		protected readonly host: ListHost,
		private readonly commands: { refresh: string; loadMore?: string },
	) {
		super();
		this.register(host.onDidChange(() => this.reset()));
		this.register(toDisposable(() => this.stopTimer()));
	}

	/** Connects the tree view, so refreshes follow its visibility. */
	attach(view: vscode.TreeView<vscode.TreeItem>): void {
		this.view = view;
		this.register(view.onDidChangeVisibility((e) => {
			if (e.visible) {
				this.schedule();
			} else {
				this.stopTimer();
			}
		}));
	}

	/** The view this provider is attached to. */
	get treeView(): vscode.TreeView<vscode.TreeItem> | undefined {
		return this.view;
	}

	/** Fetches the first `pages` pages (the records shown), replacing `items`. */
	protected abstract fetch(pages: number, signal: AbortSignal): Promise<Loaded<T>>;
	/** Fetches one more page and appends it; by default re-fetches with one page more. */
	protected async fetchMore(signal: AbortSignal): Promise<Loaded<T>> {
		return this.fetch(this.pages + 1, signal);
	}
	/** The stable key of a record (its id). */
	protected abstract keyOf(item: T): string;
	/** The row of a record. */
	protected abstract toNode(item: T): vscode.TreeItem;
	/** Whether the list is in motion, so it should refresh itself while visible. */
	protected isChanging(): boolean {
		return false;
	}
	/** Rows shown instead of the list when it cannot load (no agent selected…); undefined to load. */
	protected precondition(): vscode.TreeItem[] | undefined {
		return undefined;
	}
	/** A fingerprint of the records, compared between refreshes to adapt the delay. */
	protected signature(items: readonly T[]): string {
		return JSON.stringify(items);
	}

	/** The row as shown: every row passes `safeTreeItem` here (server text on one line, cut, neutralised). */
	getTreeItem(element: vscode.TreeItem): vscode.TreeItem {
		return safeTreeItem(element);
	}

	getParent(): vscode.TreeItem | undefined {
		return undefined;
	}

	/** The rows: records then "Load more…", or a message row; signed out, none (welcome content). */
	async getChildren(element?: vscode.TreeItem): Promise<vscode.TreeItem[]> {
		if (element || !this.host.signedIn) {
			return [];
		}
		const pre = this.precondition();
		if (pre) {
			return pre;
		}
		if (!this.loaded && this.error === undefined) {
			await this.load();
		}
		if (this.error !== undefined) {
			return this.errorRows(this.error);
		}
		const rows: vscode.TreeItem[] = this.items.map((item) => this.toNode(item));
		if (this.more && this.commands.loadMore) {
			rows.push(new LoadMoreNode(this.key, this.commands.loadMore));
		}
		if (this.notice !== undefined) {
			rows.push(new MessageNode(`${this.key}/notice`, singleLine(this.notice, SAFETY.labelMaxChars), { icon: new vscode.ThemeIcon('warning'), tooltip: plainText(this.notice), contextValue: 'notice' }));
		}
		this.schedule();
		return rows;
	}

	/** The records currently shown. */
	get records(): readonly T[] {
		return this.items;
	}

	/** Redraws the rows from the records held (something they show, such as a name, changed elsewhere). */
	redraw(): void {
		this._onDidChangeTreeData.fire(undefined);
		this.schedule();
	}

	/**
	 * Re-reads the records shown (keeping the pages loaded) and redraws. Shared while in flight.
	 * While the view is hidden nothing is fetched: the list is only marked stale and reloads
	 * when it is next shown.
	 */
	async refresh(): Promise<void> {
		this.error = undefined;
		this.delayMs = MIN_DELAY_MS;
		if (this.view && !this.view.visible) {
			this.loaded = false;
			this._onDidChangeTreeData.fire(undefined);
			return;
		}
		await this.load();
		this._onDidChangeTreeData.fire(undefined);
	}

	/** Loads the next page (the "Load more…" row). Concurrent clicks share one request. */
	async loadMore(): Promise<void> {
		if (!this.more) {
			return;
		}
		await this.run(async (signal) => {
			const next = await this.fetchMore(signal);
			this.pages++;
			return next;
		}, true);
		this._onDidChangeTreeData.fire(undefined);
	}

	/** Forgets everything (sign-in change, another agent selected) and redraws from scratch. */
	reset(): void {
		this.generation++;
		this.items = [];
		this.more = false;
		this.notice = undefined;
		this.pages = 1;
		this.loaded = false;
		this.error = undefined;
		this.pending = undefined;
		this.lastSignature = '';
		this.delayMs = MIN_DELAY_MS;
		this.stopTimer();
		this._onDidChangeTreeData.fire(undefined);
	}

	private load(): Promise<void> {
		return this.run((signal) => this.fetch(this.pages, signal), false);
	}

	private run(fetcher: (signal: AbortSignal) => Promise<Loaded<T>>, append: boolean): Promise<void> {
		if (this.pending) {
			return this.pending;
		}
		const generation = this.generation;
		const controller = new AbortController();
		const cancelOnReset = this.onDidChangeTreeData(() => {
			if (this.generation !== generation) {
				controller.abort();
			}
		});
		this.pending = (async () => {
			try {
				const result = await fetcher(controller.signal);
				if (this.generation !== generation) {
					return;
				}
				const merged = append ? [...this.items, ...result.items] : result.items;
				const seen = new Set<string>();
				this.items = merged.filter((item) => {
					const k = this.keyOf(item);
					if (seen.has(k)) {
						return false;
					}
					seen.add(k);
					return true;
				});
				this.more = result.more;
				this.notice = result.notice;
				this.loaded = true;
				this.error = undefined;
				const signature = this.signature(this.items);
				this.delayMs = signature === this.lastSignature ? Math.min(this.delayMs * 2, MAX_DELAY_MS) : MIN_DELAY_MS;
				this.lastSignature = signature;
				this._onDidLoad.fire();
			} catch (err) {
				if (this.generation !== generation) {
					return;
				}
				this.error = err;
				this.host.log.warn(`${this.key}: loading failed: ${describeError(err)}`);
				this.host.reportError(err);
			} finally {
				cancelOnReset.dispose();
				if (this.generation === generation) {
					this.pending = undefined;
				}
			}
		})();
		return this.pending;
	}

	private errorRows(err: unknown): vscode.TreeItem[] {
		const auth = isAuthFailure(err);
		// A short label that fits the default sidebar width; the reason in the description and tooltip.
		const rows: vscode.TreeItem[] = [
			new MessageNode(`${this.key}/error`, auth ? vscode.l10n.t('Sign in again') : vscode.l10n.t('Could not load'), {
				icon: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
				description: auth ? vscode.l10n.t('token refused') : undefined,
				tooltip: auth ? vscode.l10n.t('The service refused the token. Sign in again.\n{0}', describeError(err)) : vscode.l10n.t('Could not load: {0}', describeError(err)),
				contextValue: 'error',
			}),
		];
		rows.push(new MessageNode(`${this.key}/retry`, vscode.l10n.t('Retry'), {
			icon: new vscode.ThemeIcon('refresh'),
			command: { command: this.commands.refresh, title: vscode.l10n.t('Retry') },
			contextValue: 'retry',
		}));
		if (auth) {
			rows.push(new MessageNode(`${this.key}/signIn`, vscode.l10n.t('Sign In…'), {
				icon: new vscode.ThemeIcon('sign-in'),
				command: { command: 'cloudAgents.signIn', title: vscode.l10n.t('Sign In') },
				contextValue: 'signIn',
			}));
		}
		return rows;
	}

	/** Arms the automatic refresh when the view is visible and the list is in motion. */
	private schedule(): void {
		if (this.timer || this.isDisposed || !this.loaded || !this.host.signedIn) {
			return;
		}
		if (!this.view?.visible || !this.isChanging()) {
			return;
		}
		this.timer = setTimeout(() => {
			this.timer = undefined;
			if (!this.view?.visible || !this.isChanging()) {
				return;
			}
			void this.load().then(() => {
				this._onDidChangeTreeData.fire(undefined);
				this.schedule();
			});
		}, this.delayMs);
	}

	private stopTimer(): void {
		if (this.timer) {
			clearTimeout(this.timer);
			this.timer = undefined;
		}
	}
}

/** What `CursorListTreeProvider.listPage` is asked for: where to start, how many, and when to stop. */
export interface PageRequest {
	/** The cursor of the previous page; undefined for the first page. */
	cursor: string | undefined;
	/** The page size (`cloudAgents.pageSize`). */
	limit: number;
	signal: AbortSignal;
}

/**
 * A list over a cursor-paginated listing: a refresh re-reads the pages shown from the first one,
 * "Load more…" reads one page from the cursor where the last read stopped, and `reset` forgets it.
 */
export abstract class CursorListTreeProvider<T> extends ListTreeProvider<T> {
	private cursor: string | undefined;
	/** The cursor chain of the pages shown: a repeated cursor or page, or endless pages, end it (src/api PageChain). */
	private chain = new PageChain();

	/** One page of the listing. */
	protected abstract listPage(request: PageRequest): Promise<Page<T>>;

	protected override async fetch(pages: number, signal: AbortSignal): Promise<Loaded<T>> {
		const items: T[] = [];
		let cursor: string | undefined;
		this.chain = new PageChain();
		for (let i = 0; i < pages; i++) {
			const step = await this.step(cursor, signal);
			items.push(...step.items);
			cursor = step.next;
			if (!cursor) {
				this.cursor = undefined;
				return { items, more: false, notice: step.notice };
			}
		}
		this.cursor = cursor;
		return { items, more: true };
	}

	protected override async fetchMore(signal: AbortSignal): Promise<Loaded<T>> {
		const step = await this.step(this.cursor, signal);
		this.cursor = step.next;
		return { items: step.items, more: step.next !== undefined, notice: step.notice };
	}

	/**
	 * One page through the chain. When the server's paging goes wrong (it ignores the cursor,
	 * repeats a cursor or a page, or never ends) the items loaded so far stay, "Load more…" goes
	 * away and a row says why: never an endless "Load more".
	 */
	private async step(cursor: string | undefined, signal: AbortSignal): Promise<{ items: T[]; next: string | undefined; notice?: string }> {
		let page: Page<T>;
		try {
			page = await this.listPage({ cursor, limit: pageSize(), signal });
		} catch (err) {
			if (err instanceof ListingStoppedError) {
				return { items: [], next: undefined, notice: err.message };
			}
			throw err;
		}
		try {
			return { items: page.items, next: this.chain.accept(page, cursor) };
		} catch (err) {
			if (err instanceof ListingStoppedError) {
				return { items: err.reason === 'repeated_page' ? [] : page.items, next: undefined, notice: err.message };
			}
			throw err;
		}
	}

	override reset(): void {
		this.cursor = undefined;
		this.chain = new PageChain();
		super.reset();
	}
}

/**
 * A list of records of the agent selected in the Agents view (its runs, its artifacts). Until an
 * agent is selected it shows a single "Select an agent…" row; selecting another agent starts over.
 */
export abstract class AgentListTreeProvider<T> extends ListTreeProvider<T> {
	private _agent: Agent | undefined;

	/** The agent whose records are shown. */
	get agent(): Agent | undefined {
		return this._agent;
	}

	/** Shows the records of another agent (or none); the same agent again only updates the record. */
	setAgent(agent: Agent | undefined): void {
		if (agent?.id === this._agent?.id) {
			this._agent = agent;
			return;
		}
		this._agent = agent;
		this.agentChanged();
		this.reset();
	}

	/** The text of the row shown while no agent is selected. */
	protected abstract selectAgentText(): string;
	/** Fetches the first `pages` pages of the records of `agent` (the agent selected). */
	protected abstract fetchOf(agent: Agent, pages: number, signal: AbortSignal): Promise<Loaded<T>>;
	/** Called when another agent is selected, just before the list starts over. */
	protected agentChanged(): void {
		// Nothing by default.
	}

	protected override precondition(): vscode.TreeItem[] | undefined {
		if (!this._agent) {
			return [new MessageNode(`${this.key}/selectAgent`, vscode.l10n.t('Select an agent'), { icon: new vscode.ThemeIcon('info'), tooltip: this.selectAgentText() })];
		}
		return undefined;
	}

	protected override async fetch(pages: number, signal: AbortSignal): Promise<Loaded<T>> {
		const agent = this._agent;
		if (!agent) {
			return { items: [], more: false };
		}
		return this.fetchOf(agent, pages, signal);
	}
}
