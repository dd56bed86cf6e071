/**
 * The state of one list of a tree view (a view's records, or the records under one row), without
 * VS Code: the pages read through a cursor chain (src/api PageChain), refreshes that replace what
 * is shown and "Load more…" that appends, the error of the last read, which rows to show for it,
 * and the delay of the automatic refresh. `DescriptorTreeProvider` (listTree.ts) draws the rows and
 * decides when to refresh; this module is plain TypeScript, so its behaviour is unit-tested in Node
 * (test/unit/views/listModel.test.ts).
 */
import type { Page } from '../api';
import { ListingStoppedError, PageChain, isAuthFailure, isUnreachable } from '../api';

/** The shortest wait between two automatic refreshes, and the wait after one that brought a change. */
export const MIN_DELAY_MS = 2_000;
/**
 * The longest wait between two automatic refreshes while something is in motion. Short, so a status
 * the server changed (an agent done provisioning) shows within seconds, not after a 30 s back-off;
 * the polling still only runs while the view is visible and something is active.
 */
export const MAX_DELAY_MS = 5_000;
/**
 * While polling, rows are redrawn at least this often even when nothing changed, so their relative
 * times ("just now", "2 min ago") stay true (a redraw is otherwise avoided: see listTree.ts `schedule`).
 */
export const RELATIVE_TIME_REDRAW_MS = 60_000;

/**
 * The wait before the next automatic refresh: back to MIN_DELAY_MS after a read that changed what is
 * compared (the descriptor's `signature`), else twice the last wait, up to MAX_DELAY_MS.
 */
export function nextPollDelay(previousMs: number, changed: boolean): number {
	return changed ? MIN_DELAY_MS : Math.min(previousMs * 2, MAX_DELAY_MS);
}

/** What one fetch produced: the records in display order and whether more exist. */
export interface Loaded<T> {
	items: T[];
	more: boolean;
	/** Why the listing ended early (the server's paging went wrong): shown as a row after the items kept. */
	notice?: string;
}

/** What a cursor-paged source is asked for (descriptor.ts `PageRequest`). */
export interface ModelPageRequest {
	cursor: string | undefined;
	limit: number;
	signal: AbortSignal;
}

/** What a whole-list source is asked for (descriptor.ts `ListRequest`). */
export interface ModelListRequest {
	pages: number;
	pageSize: number;
	signal: AbortSignal;
}

/** Where a list's records come from (descriptor.ts `ListSource`): a cursor-paged listing, or the first `pages` pages at once. */
export type ModelSource<T, C, P> =
	| { page(this: void, ctx: C, request: ModelPageRequest, parent: P): Promise<Page<T>> }
	| { list(this: void, ctx: C, request: ModelListRequest, parent: P): Promise<{ items: T[]; more: boolean }> };

/** What a list model reads of its descriptor (a `ListDescriptor` of descriptor.ts has all of it). */
export interface ModelDescriptor<T, C = unknown, P = unknown> {
	readonly source: ModelSource<T, C, P>;
	/** The stable key of a record: records are shown once per key. */
	keyOf(this: void, item: T): string;
	/** Whether the record is in motion (the list then refreshes itself while visible). */
	isActive?(this: void, item: T): boolean;
	/** What of a record is compared between reads to adapt the refresh delay (default: all of it). */
	signature?(this: void, item: T): unknown;
	/**
	 * The order the rows are shown in, when not the service's: a comparator applied to every record
	 * loaded (all pages read so far) after each read; ties keep the service's order. Paging is not
	 * affected: the next page is still read from the service's cursor.
	 */
	order?(this: void, a: T, b: T): number;
}

/** A parent record and its key (the selected agent of Runs; the row a subtree hangs under). */
export interface ModelParent {
	readonly record: unknown;
	readonly key: string;
}

/** What a model needs from the tree that shows it. */
export interface ListModelHost<C, M> {
	/** Passed to the descriptor's source. */
	readonly ctx: C;
	readonly log: { warn(message: string): void };
	/** Reports an error of a read of `model` (the session's single 401 prompt, when it has one; the shared connectivity). */
	reportError(err: unknown, model: M): void;
	/** Called after each successful read of the model. */
	loaded(model: M): void;
	/** The wall clock (default Date.now): when a read starts (`fetchStartedAt`). */
	now?(): number;
	/** The page size to ask for (`cloudAgents.pageSize`). */
	pageSize(): number;
	/** An error as one line for people (with its request id): logged, and compared to tell whether the rows changed. */
	describeError(err: unknown): string;
}

/** A row of a list, as data: the tree draws each kind (listTree.ts). */
export type ListRow<T> =
	| { readonly kind: 'record'; readonly item: T }
	| { readonly kind: 'loadMore' }
	/** The listing ended early (the server's paging went wrong): why, after the records kept. */
	| { readonly kind: 'notice'; readonly text: string }
	| { readonly kind: 'empty' }
	/** The last read failed; `auth` when the service refused the token. */
	| { readonly kind: 'error'; readonly auth: boolean; readonly error: unknown }
	/** The service did not answer the last read (`isUnreachable`): first, above the records kept. */
	| { readonly kind: 'offline'; readonly error: unknown }
	| { readonly kind: 'retry' }
	| { readonly kind: 'signIn' };

/** What rows a list shows, in order (record keys, message rows and their text), to tell a read that changed only records' contents. */
export function shapeOf<T>(keyOf: (item: T) => string, rows: readonly ListRow<T>[]): string {
	return rows
		.map((row) => (row.kind === 'record' ? `record:${keyOf(row.item)}` : row.kind === 'notice' ? `notice:${row.text}` : row.kind))
		.join('\n');
}

/** Which optional rows the list can offer: each needs a command or a spec of the descriptor. */
export interface RowOffer {
	/** A "Load more…" row when more pages exist (the list has a load-more command). */
	loadMore: boolean;
	/** A Retry row under an error (the list has a refresh command). */
	retry: boolean;
	/** A row saying the list is empty (the descriptor has `empty`). */
	empty: boolean;
}

/**
 * The state of one list: loading, one fetch in flight at a time (callers share it), the pages asked
 * for, the cursor chain of a paged source, the error of the last fetch, the delay of the automatic
 * refresh. Type parameters: `T` the record, `D` the descriptor (the tree reads more of it than the
 * model), `C` what the source receives as context, `R` the parent reference.
 */
export class ListModel<T, D extends ModelDescriptor<T, C> = ModelDescriptor<T>, C = unknown, R extends ModelParent = ModelParent> {
	items: T[] = [];
	more = false;
	notice: string | undefined;
	pages = 1;
	loaded = false;
	error: unknown;
	delayMs = MIN_DELAY_MS;
	/** When the last read started (the host's clock): a failure of a read sent before the service last answered is stale. */
	fetchStartedAt: number | undefined;
	private pending: Promise<void> | undefined;
	/** The read in flight is a "Load more…" (appends), not a read of the pages shown. */
	private pendingAppends = false;
	private controller: AbortController | undefined;
	private generation = 0;
	private lastSignature = '';
	/**
	 * Counts the fetches that changed what the rows are drawn from (`shown`): the automatic refresh
	 * redraws only when it moved.
	 */
	revision = 0;
	private cursor: string | undefined;
	/** The cursor chain of the pages shown: a repeated cursor or page, or endless pages, end it (src/api PageChain). */
	private chain = new PageChain();

	constructor(
		/** Prefix of the message rows' ids (`agents`, `resources/runtime/<id>`). */
		readonly id: string,
		readonly descriptor: D,
		public parent: R | undefined,
		private readonly host: ListModelHost<C, ListModel<T, D, C, R>>,
	) {}

	/** True while the last read got no answer from the service (`isUnreachable`): the rows are kept under an offline row. */
	get offline(): boolean {
		return this.error !== undefined && isUnreachable(this.error);
	}

	/** Whether a record is in motion (its descriptor says so, or it was marked from outside). */
	isChanging(marked: ReadonlySet<string>): boolean {
		return this.items.some((item) => this.descriptor.isActive?.(item) === true || marked.has(this.descriptor.keyOf(item)));
	}

	/** Reads the pages shown again (as many as were loaded) and replaces the records with what came. */
	load(): Promise<void> {
		return this.run((signal) => this.fetch(this.pages, signal), false);
	}

	/**
	 * Reads one page more and appends its records (a record already shown stays where it is, unless
	 * the descriptor has an `order`: then every record loaded is sorted by it). Asked
	 * while a read is in flight: during the first read (no row to click yet) or another "Load more…",
	 * it shares that read; during a refresh of the rows shown (the automatic one, or Refresh), it
	 * reads the next page once the refresh has answered, so the click is not lost.
	 */
	loadMore(): Promise<void> {
		const inFlight = this.pending;
		if (inFlight) {
			if (!this.loaded || this.pendingAppends) {
				return inFlight;
			}
			const generation = this.generation;
			return inFlight.then(() =>
				this.generation === generation && this.error === undefined && this.more ? this.loadMore() : undefined,
			);
		}
		return this.run(async (signal) => {
			const next = await this.fetchMore(signal);
			this.pages++;
			return next;
		}, true);
	}

	/** Forgets everything: the next read starts from the first page; a read in flight is cancelled and its answer dropped. */
	reset(): void {
		this.generation++;
		this.controller?.abort();
		this.controller = undefined;
		this.items = [];
		this.more = false;
		this.notice = undefined;
		this.pages = 1;
		this.loaded = false;
		this.error = undefined;
		this.pending = undefined;
		this.lastSignature = '';
		this.delayMs = MIN_DELAY_MS;
		this.cursor = undefined;
		this.chain = new PageChain();
	}

	/**
	 * The rows to show. While the service does not answer (`offline`): the offline row first, then
	 * the records as last read and the notice (no "Load more…", no empty row; a list never read shows
	 * the offline row alone). After any other failure: an error row (with Retry, and Sign In for a
	 * refused token), the records kept meanwhile coming back once a read succeeds. Else the records,
	 * "Load more…" when more pages exist, the notice of a listing that ended early, and the empty row
	 * when there is nothing else.
	 */
	rows(offer: RowOffer): ListRow<T>[] {
		if (this.offline) {
			const rows: ListRow<T>[] = [{ kind: 'offline', error: this.error }];
			rows.push(...this.items.map((item): ListRow<T> => ({ kind: 'record', item })));
			if (this.notice !== undefined) {
				rows.push({ kind: 'notice', text: this.notice });
			}
			return rows;
		}
		if (this.error !== undefined) {
			const auth = isAuthFailure(this.error);
			const rows: ListRow<T>[] = [{ kind: 'error', auth, error: this.error }];
			if (offer.retry) {
				rows.push({ kind: 'retry' });
			}
			if (auth) {
				rows.push({ kind: 'signIn' });
			}
			return rows;
		}
		const rows: ListRow<T>[] = this.items.map((item) => ({ kind: 'record', item }));
		if (this.more && offer.loadMore) {
			rows.push({ kind: 'loadMore' });
		}
		if (this.notice !== undefined) {
			rows.push({ kind: 'notice', text: this.notice });
		}
		if (rows.length === 0 && offer.empty) {
			rows.push({ kind: 'empty' });
		}
		return rows;
	}

	private async fetch(pages: number, signal: AbortSignal): Promise<Loaded<T>> {
		const source = this.descriptor.source;
		const parent = this.parent?.record;
		if ('list' in source) {
			return source.list(this.host.ctx, { pages, pageSize: this.host.pageSize(), signal }, parent);
		}
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

	private async fetchMore(signal: AbortSignal): Promise<Loaded<T>> {
		if ('list' in this.descriptor.source) {
			return this.fetch(this.pages + 1, signal);
		}
		const step = await this.step(this.cursor, signal);
		this.cursor = step.next;
		return { items: step.items, more: step.next !== undefined, notice: step.notice };
	}

	/**
	 * One page through the chain. When the server's paging goes wrong (it ignores the cursor,
	 * repeats a cursor or a page, or never ends) the items loaded so far stay, "Load more…" goes
	 * away and a row says why: never an endless "Load more".
	 */
	private async step(
		cursor: string | undefined,
		signal: AbortSignal,
	): Promise<{ items: T[]; next: string | undefined; notice?: string }> {
		const source = this.descriptor.source;
		if ('list' in source) {
			return { items: [], next: undefined };
		}
		let page: Page<T>;
		try {
			page = await source.page(this.host.ctx, { cursor, limit: this.host.pageSize(), signal }, this.parent?.record);
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

	/**
	 * What the rows of the list are drawn from, as one string compared before and after a fetch: the
	 * records as read (all of them: `signature` may leave out what a row shows), "Load more…", the
	 * notice and the error.
	 */
	private shown(): string {
		return JSON.stringify([
			this.loaded,
			this.items,
			this.more,
			this.notice ?? null,
			this.error === undefined ? null : this.host.describeError(this.error),
		]);
	}

	private signatureOf(items: readonly T[]): string {
		const sign = this.descriptor.signature;
		return JSON.stringify(sign ? items.map((item) => sign(item)) : items);
	}

	private run(fetcher: (signal: AbortSignal) => Promise<Loaded<T>>, append: boolean): Promise<void> {
		if (this.pending) {
			return this.pending;
		}
		const generation = this.generation;
		const controller = new AbortController();
		this.controller = controller;
		this.fetchStartedAt = this.host.now?.() ?? Date.now();
		this.pendingAppends = append;
		this.pending = (async () => {
			try {
				const result = await fetcher(controller.signal);
				if (this.generation !== generation) {
					return;
				}
				const shownBefore = this.shown();
				const merged = append ? [...this.items, ...result.items] : result.items;
				const seen = new Set<string>();
				this.items = merged.filter((item) => {
					const k = this.descriptor.keyOf(item);
					if (seen.has(k)) {
						return false;
					}
					seen.add(k);
					return true;
				});
				if (this.descriptor.order) {
					// Array.prototype.sort is stable: records the order ranks alike keep the service's order.
					this.items.sort(this.descriptor.order);
				}
				this.more = result.more;
				this.notice = result.notice;
				this.loaded = true;
				this.error = undefined;
				const signature = this.signatureOf(this.items);
				this.delayMs = nextPollDelay(this.delayMs, signature !== this.lastSignature);
				this.lastSignature = signature;
				if (this.shown() !== shownBefore) {
					this.revision++;
				}
				this.host.loaded(this);
			} catch (err) {
				if (this.generation !== generation) {
					return;
				}
				const shownBefore = this.shown();
				this.error = err;
				if (this.shown() !== shownBefore) {
					this.revision++;
				}
				this.host.log.warn(`${this.id}: loading failed: ${this.host.describeError(err)}`);
				this.host.reportError(err, this);
			} finally {
				if (this.generation === generation) {
					this.pending = undefined;
					this.controller = undefined;
				}
			}
		})();
		return this.pending;
	}
}
