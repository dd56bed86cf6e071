/**
 * Cursor pagination: every listing has a page-at-a-time call (for "Load more…" rows) and an async
 * iterator over all items built from it with `paginate`.
 */
import type { Page } from './types';

/**
 * Iterates every item of a cursor-paginated listing, fetching a page only when the previous one
 * is consumed. Stops on a missing or repeated cursor (a server bug would otherwise loop forever).
 */
export async function* paginate<T>(fetchPage: (cursor: string | undefined) => Promise<Page<T>>, startCursor?: string): AsyncGenerator<T, void, undefined> {
	let cursor = startCursor;
	const seen = new Set<string>();
	for (;;) {
		const page = await fetchPage(cursor);
		yield* page.items;
		if (!page.nextCursor || seen.has(page.nextCursor)) {
			return;
		}
		seen.add(page.nextCursor);
		cursor = page.nextCursor;
	}
}

/** Normalises a `{data, pagination: {next_cursor, has_more}}` listing into a Page. */
export function dataPage<T>(body: unknown, itemsKey?: string): Page<T> {
	const b = (body ?? {}) as Record<string, unknown>;
	let container: unknown = b.data;
	if (itemsKey && container && typeof container === 'object' && !Array.isArray(container)) {
		container = (container as Record<string, unknown>)[itemsKey];
	}
	const items = Array.isArray(container) ? (container as T[]) : [];
	const pagination = (b.pagination ?? ((b.data as Record<string, unknown> | undefined)?.pagination)) as { next_cursor?: unknown; has_more?: unknown } | undefined;
	const next = typeof pagination?.next_cursor === 'string' && pagination.next_cursor !== '' && pagination.has_more !== false ? pagination.next_cursor : undefined;
	return { items, nextCursor: next };
}
