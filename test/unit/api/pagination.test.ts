/**
 * Cursor pagination (src/api/pagination.ts): where a cursor chain ends (PageChain), the lazy
 * iterator over every page (paginate), the per-page bound and the `{data, pagination}` reader.
 * A server that repeats a cursor or a page, or never stops, cannot make a walk loop forever.
 */
import * as assert from 'node:assert/strict';
import { ApiError } from '../../../src/api/errors';
import { ListingStoppedError, PageChain, checkPageSize, dataPage, paginate } from '../../../src/api/pagination';
import type { Page } from '../../../src/api/types';
import { SAFETY } from '../../../src/base/limits';

type Item = { id: number | string; name?: string };

const items = (from: number, count: number): Item[] => Array.from({ length: count }, (_, i) => ({ id: from + i }));
const page = <T>(list: T[], nextCursor?: string): Page<T> => ({ items: list, nextCursor });

function stopped(fn: () => unknown): ListingStoppedError {
	try {
		fn();
	} catch (err) {
		assert.ok(err instanceof ListingStoppedError, String(err));
		return err;
	}
	assert.fail('the chain went on');
}

async function collect<T>(iter: AsyncIterable<T>): Promise<{ got: T[]; error: unknown }> {
	const got: T[] = [];
	try {
		for await (const item of iter) {
			got.push(item);
		}
	} catch (error) {
		return { got, error };
	}
	return { got, error: undefined };
}

suite('api/pagination: PageChain', () => {
	test('a chain of new cursors goes on; a page without one ends it; delivered counts every item', () => {
		const chain = new PageChain();
		assert.equal(chain.accept(page(items(0, 3), 'c1'), undefined), 'c1');
		assert.equal(chain.accept(page(items(3, 3), 'c2'), 'c1'), 'c2');
		assert.equal(chain.accept(page(items(6, 1)), 'c2'), undefined);
		assert.equal(chain.delivered, 7);
	});

	test('a cursor already sent, or the one just used, stops the walk (repeated_cursor); the page itself counts', () => {
		const chain = new PageChain();
		chain.accept(page(items(0, 2), 'a'), undefined);
		chain.accept(page(items(2, 2), 'b'), 'a');
		const err = stopped(() => chain.accept(page(items(4, 2), 'a'), 'b'));
		assert.equal(err.reason, 'repeated_cursor');
		assert.equal(err.delivered, 6);
		assert.match(err.message, /repeated a page cursor/);

		const same = new PageChain();
		same.accept(page(items(0, 1), 'x'), undefined);
		assert.equal(stopped(() => same.accept(page(items(1, 1), 'x'), 'x')).reason, 'repeated_cursor', 'the cursor just used');
	});

	test('the same page twice in a row stops the walk (repeated_page); the repeat is not counted', () => {
		const chain = new PageChain();
		chain.accept(page(items(0, 3), 'a'), undefined);
		const err = stopped(() => chain.accept(page(items(0, 3), 'b'), 'a'));
		assert.equal(err.reason, 'repeated_page');
		assert.equal(err.delivered, 3);
		assert.ok(err instanceof ApiError);
		assert.deepEqual([err.status, err.code], [200, 'listing_stopped']);
	});

	test('pages are told apart by id (number or string alike), else name, else their JSON', () => {
		const byId = new PageChain();
		byId.accept(page([{ id: 1 }], 'a'), undefined);
		assert.equal(stopped(() => byId.accept(page([{ id: '1', name: 'other' }], 'b'), 'a')).reason, 'repeated_page');

		const byName = new PageChain();
		byName.accept(page([{ name: 'n1' }, { name: 'n2' }], 'a'), undefined);
		assert.equal(byName.accept(page([{ name: 'n1' }, { name: 'n3' }], 'b'), 'a'), 'b', 'another last item: another page');
		assert.equal(stopped(() => byName.accept(page([{ name: 'n1' }, { name: 'n3' }], 'c'), 'b')).reason, 'repeated_page');

		const plain = new PageChain();
		plain.accept(page(['x', 'y'], 'a'), undefined);
		assert.equal(plain.accept(page(['x', 'y', 'z'], 'b'), 'a'), 'b', 'another length: another page');
		assert.equal(plain.accept(page(['x', 'y'], 'c'), 'b'), 'c', 'only the page just before is compared');
	});

	test('empty pages are never taken for a repeat (a server may send empty pages with new cursors)', () => {
		const chain = new PageChain();
		assert.equal(chain.accept(page([], 'a'), undefined), 'a');
		assert.equal(chain.accept(page([], 'b'), 'a'), 'b');
		assert.equal(chain.accept(page([]), 'b'), undefined);
		assert.equal(chain.delivered, 0);
	});

	test('more items than allowed stop the walk at the page that crosses the bound; exactly the bound is fine', () => {
		const exact = new PageChain(100, 6);
		exact.accept(page(items(0, 3), 'a'), undefined);
		assert.equal(exact.accept(page(items(3, 3)), 'a'), undefined);

		const over = new PageChain(100, 5);
		over.accept(page(items(0, 3), 'a'), undefined);
		const err = stopped(() => over.accept(page(items(3, 3), 'b'), 'a'));
		assert.equal(err.reason, 'too_many_items');
		assert.equal(err.delivered, 3, 'the items before the page that crossed');
		assert.match(err.message, /more than 5 items/);
	});

	test('more pages than allowed: the last allowed page may end the chain, but not ask for another', () => {
		const ends = new PageChain(3);
		ends.accept(page(items(0, 1), 'a'), undefined);
		ends.accept(page(items(1, 1), 'b'), 'a');
		assert.equal(ends.accept(page(items(2, 1)), 'b'), undefined);

		const goesOn = new PageChain(3);
		goesOn.accept(page(items(0, 1), 'a'), undefined);
		goesOn.accept(page(items(1, 1), 'b'), 'a');
		const err = stopped(() => goesOn.accept(page(items(2, 1), 'c'), 'b'));
		assert.equal(err.reason, 'too_many_pages');
		assert.equal(err.delivered, 3);
		assert.match(err.message, /more than 3 pages/);
	});

	test('the default bounds are SAFETY.listingMaxPages and SAFETY.listingMaxItems', () => {
		const pages = new PageChain();
		for (let i = 0; i < SAFETY.listingMaxPages - 1; i++) {
			assert.equal(pages.accept(page([{ id: i }], `c${i}`), i === 0 ? undefined : `c${i - 1}`), `c${i}`);
		}
		const last = SAFETY.listingMaxPages - 1;
		assert.equal(stopped(() => pages.accept(page([{ id: last }], `c${last}`), `c${last - 1}`)).reason, 'too_many_pages');

		const many = new PageChain();
		const big = items(0, SAFETY.listingMaxItems);
		assert.equal(many.accept(page(big, 'a'), undefined), 'a');
		assert.equal(stopped(() => many.accept(page([{ id: -1 }]), 'a')).reason, 'too_many_items');
	});
});

suite('api/pagination: paginate', () => {
	test('yields every item in order, starting at the given cursor, and asks for a page only when the last is used up', async () => {
		const asked: Array<string | undefined> = [];
		const pages: Record<string, Page<Item>> = {
			start: page(items(0, 2), 'p2'),
			p2: page(items(2, 2), 'p3'),
			p3: page(items(4, 1)),
		};
		const iter = paginate((cursor) => {
			asked.push(cursor);
			return Promise.resolve(pages[cursor ?? '']!);
		}, 'start');
		assert.deepEqual(asked, [], 'nothing asked before the first read');
		assert.deepEqual((await iter.next()).value, { id: 0 });
		assert.deepEqual(asked, ['start']);
		await iter.next();
		assert.deepEqual(asked, ['start'], 'the first page is not used up yet');
		await iter.next();
		assert.deepEqual(asked, ['start', 'p2']);
		const rest = await collect(iter);
		assert.deepEqual(
			rest.got.map((i) => i.id),
			[3, 4],
		);
		assert.equal(rest.error, undefined);
		assert.deepEqual(asked, ['start', 'p2', 'p3']);
	});

	test('a repeated cursor: the page is yielded, then the walk stops with the error', async () => {
		const { got, error } = await collect(
			paginate((cursor) => Promise.resolve(cursor === undefined ? page(items(0, 2), 'loop') : page(items(2, 2), 'loop'))),
		);
		assert.deepEqual(
			got.map((i) => i.id),
			[0, 1, 2, 3],
		);
		assert.ok(error instanceof ListingStoppedError && error.reason === 'repeated_cursor');
		assert.equal(error.delivered, 4);
	});

	test('a repeated page is not yielded again', async () => {
		let n = 0;
		const { got, error } = await collect(paginate(() => Promise.resolve(page(items(0, 2), `c${n++}`))));
		assert.deepEqual(
			got.map((i) => i.id),
			[0, 1],
		);
		assert.ok(error instanceof ListingStoppedError && error.reason === 'repeated_page');
		assert.equal(n, 2, 'two requests, then it stopped');
	});

	test("a failing page request ends the walk with that error, after the earlier pages' items", async () => {
		const boom = new ApiError(503, 'unavailable', 'down', undefined);
		const { got, error } = await collect(
			paginate((cursor) => (cursor === undefined ? Promise.resolve(page(items(0, 1), 'next')) : Promise.reject(boom))),
		);
		assert.deepEqual(got, [{ id: 0 }]);
		assert.equal(error, boom);
	});

	test('breaking out of the loop asks for no further page', async () => {
		let asked = 0;
		for await (const item of paginate((cursor) => {
			asked++;
			return Promise.resolve(page(items(Number(cursor ?? 0), 2), String(Number(cursor ?? 0) + 2)));
		})) {
			if (item.id === 2) {
				break;
			}
		}
		assert.equal(asked, 2);
	});
});

suite('api/pagination: checkPageSize and dataPage', () => {
	test('a page of SAFETY.pageMaxItems is accepted; one more is response_too_large, naming both counts', () => {
		checkPageSize(new Array<unknown>(SAFETY.pageMaxItems));
		assert.throws(
			() => checkPageSize(new Array<unknown>(SAFETY.pageMaxItems + 1), 'req-1'),
			(err: unknown) =>
				err instanceof ApiError &&
				err.code === 'response_too_large' &&
				err.status === 200 &&
				err.requestId === 'req-1' &&
				err.message.includes(String(SAFETY.pageMaxItems + 1)) &&
				err.message.includes(String(SAFETY.pageMaxItems)),
		);
	});

	test('data and pagination: the cursor counts only when a non-empty string and has_more is not false', () => {
		assert.deepEqual(dataPage({ data: [1, 2], pagination: { next_cursor: 'n', has_more: true } }), { items: [1, 2], nextCursor: 'n' });
		assert.deepEqual(dataPage({ data: [1], pagination: { next_cursor: 'n' } }), { items: [1], nextCursor: 'n' }, 'has_more absent');
		assert.equal(dataPage({ data: [1], pagination: { next_cursor: 'n', has_more: false } }).nextCursor, undefined);
		assert.equal(dataPage({ data: [1], pagination: { next_cursor: '', has_more: true } }).nextCursor, undefined);
		assert.equal(dataPage({ data: [1], pagination: { next_cursor: 5, has_more: true } }).nextCursor, undefined);
		assert.equal(dataPage({ data: [1], pagination: null }).nextCursor, undefined);
	});

	test('items under a named member of data, with the pagination beside them or at the top (the top wins)', () => {
		assert.deepEqual(dataPage({ data: { agents: ['a'], pagination: { next_cursor: 'in-data' } } }, 'agents'), {
			items: ['a'],
			nextCursor: 'in-data',
		});
		assert.equal(
			dataPage({ data: { agents: ['a'], pagination: { next_cursor: 'in-data' } }, pagination: { next_cursor: 'top' } }, 'agents')
				.nextCursor,
			'top',
		);
		assert.deepEqual(dataPage({ data: { other: ['a'] } }, 'agents').items, [], 'the named member is absent');
		assert.deepEqual(dataPage({ data: { agents: ['a'] } }).items, [], 'without a name, data must be the array');
	});

	test('no data, data that is not an array, or no body at all: an empty last page', () => {
		for (const body of [undefined, null, {}, { data: 'x' }, { data: { length: 2 } }, { items: [1] }]) {
			assert.deepEqual(dataPage(body), { items: [], nextCursor: undefined }, JSON.stringify(body));
		}
	});

	test('a page over the bound is refused', () => {
		assert.throws(
			() => dataPage({ data: new Array<unknown>(SAFETY.pageMaxItems + 1).fill(0) }),
			new RegExp(`at most ${SAFETY.pageMaxItems} are accepted`),
		);
	});
});
