/**
 * Cursor pagination: every listing has a page-at-a-time call (for "Load more…" rows) and an async
 * iterator over all items built from it with `paginate`. A server that repeats a cursor or a page,
 * or never stops, cannot make either loop forever: PageChain decides when a chain ends.
 */
import { ApiError } from './errors';
import { SAFETY } from '../base/limits';
import type { Page } from './types';
import { isJsonObject } from './validation';

/** A listing stopped because the server's paging went wrong (repeated cursor or page, too many pages or items). */
export class ListingStoppedError extends ApiError {
	constructor(
		/** Why: `repeated_cursor`, `repeated_page`, `too_many_pages`, `too_many_items`, `cursor_ignored`. */
		readonly reason: 'repeated_cursor' | 'repeated_page' | 'too_many_pages' | 'too_many_items' | 'cursor_ignored',
		message: string,
		/** Items delivered before the stop. */
		readonly delivered: number,
	) {
		super(200, 'listing_stopped', message, undefined);
	}
}

/** Identity of a listed item for repeated-page detection: its `id`, else `name`, else its JSON (bounded). */
function itemKey(item: unknown): string {
	if (isJsonObject(item)) {
		const o = item;
		if (typeof o.id === 'string' || typeof o.id === 'number') {
			return `id:${o.id}`;
		}
		if (typeof o.name === 'string') {
			return `name:${o.name}`;
		}
	}
	const json = JSON.stringify(item) ?? '';
	return json.length > 512 ? json.slice(0, 512) : json;
}

/**
 * The state of one walk along a cursor chain. `accept(page, cursorUsed)` returns the next cursor
 * to request, or undefined when the chain has ended; it throws ListingStoppedError when the server
 * repeats a cursor (one already sent, or the one just used), sends the same page again, or the
 * walk exceeds SAFETY.listingMaxPages pages or SAFETY.listingMaxItems items. The views' "Load more…"
 * rows and `paginate` share it.
 */
export class PageChain {
	private readonly cursors = new Set<string>();
	private lastPageKey: string | undefined;
	private pages = 0;
	private items = 0;

	constructor(
		private readonly maxPages: number = SAFETY.listingMaxPages,
		private readonly maxItems: number = SAFETY.listingMaxItems,
	) {}

	/** Items accepted so far. */
	get delivered(): number {
		return this.items;
	}

	/** Records a page fetched with `cursorUsed`; returns the cursor for the next page, or undefined at the end. */
	accept<T>(page: Page<T>, cursorUsed: string | undefined): string | undefined {
		this.pages++;
		if (cursorUsed !== undefined) {
			this.cursors.add(cursorUsed);
		}
		const key =
			page.items.length > 0
				? `${page.items.length}|${itemKey(page.items[0])}|${itemKey(page.items[page.items.length - 1])}`
				: undefined;
		if (key !== undefined && key === this.lastPageKey) {
			throw new ListingStoppedError(
				'repeated_page',
				'The server sent the same page again; the listing stops here (the server may not support this paging)',
				this.items,
			);
		}
		this.lastPageKey = key;
		this.items += page.items.length;
		if (this.items > this.maxItems) {
			throw new ListingStoppedError(
				'too_many_items',
				`The listing has more than ${this.maxItems} items; it stops here`,
				this.items - page.items.length,
			);
		}
		const next = page.nextCursor;
		if (next === undefined) {
			return undefined;
		}
		if (this.cursors.has(next)) {
			throw new ListingStoppedError(
				'repeated_cursor',
				'The server repeated a page cursor; the listing stops here (the server may not support this paging)',
				this.items,
			);
		}
		if (this.pages >= this.maxPages) {
			throw new ListingStoppedError('too_many_pages', `The listing has more than ${this.maxPages} pages; it stops here`, this.items);
		}
		return next;
	}
}

/**
 * Iterates every item of a cursor-paginated listing, fetching a page only when the previous one
 * is consumed. Yields what arrived, then throws ListingStoppedError when the server's paging goes
 * wrong (see PageChain).
 */
export async function* paginate<T>(
	fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
	startCursor?: string,
): AsyncGenerator<T, void, undefined> {
	const chain = new PageChain();
	let cursor = startCursor;
	for (;;) {
		const page = await fetchPage(cursor);
		let next: string | undefined;
		let stop: Error | undefined;
		try {
			next = chain.accept(page, cursor);
		} catch (err) {
			stop = err instanceof Error ? err : new Error(String(err));
		}
		if (!(stop instanceof ListingStoppedError && stop.reason === 'repeated_page')) {
			yield* page.items;
		}
		if (stop !== undefined) {
			throw stop;
		}
		if (next === undefined) {
			return;
		}
		cursor = next;
	}
}

/** Refuses a page with more than SAFETY.pageMaxItems items. */
export function checkPageSize(items: readonly unknown[], requestId?: string): void {
	if (items.length > SAFETY.pageMaxItems) {
		throw new ApiError(
			200,
			'response_too_large',
			`The server sent ${items.length} items in one page; at most ${SAFETY.pageMaxItems} are accepted`,
			requestId,
		);
	}
}

/** Normalises a `{data, pagination: {next_cursor, has_more}}` listing into a Page. */
export function dataPage<T>(body: unknown, itemsKey?: string): Page<T> {
	const b = (body ?? {}) as Record<string, unknown>;
	let container: unknown = b.data;
	if (itemsKey && isJsonObject(container)) {
		container = container[itemsKey];
	}
	const items = Array.isArray(container) ? (container as T[]) : [];
	checkPageSize(items);
	const pagination = (b.pagination ?? (b.data as Record<string, unknown> | undefined)?.pagination) as
		{ next_cursor?: unknown; has_more?: unknown } | undefined;
	const next =
		typeof pagination?.next_cursor === 'string' && pagination.next_cursor !== '' && pagination.has_more !== false
			? pagination.next_cursor
			: undefined;
	return { items, nextCursor: next };
}
