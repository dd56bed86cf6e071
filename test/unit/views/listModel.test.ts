import * as assert from 'node:assert/strict';
import { ApiError, NetworkError, SAFETY } from '../../../src/api';
import type { Page } from '../../../src/api';
import { ListModel, MAX_DELAY_MS, MIN_DELAY_MS, nextPollDelay } from '../../../src/views/listModel';
import type { ListModelHost, ListRow, ModelDescriptor, ModelListRequest, ModelPageRequest, RowOffer } from '../../../src/views/listModel';

interface Rec {
	id: string;
	status?: string;
	note?: string;
}

type Model = ListModel<Rec, ModelDescriptor<Rec>, unknown>;

const rec = (id: string, overrides: Partial<Rec> = {}): Rec => ({ id, status: 'idle', ...overrides });
const recs = (...ids: string[]): Rec[] => ids.map((id) => rec(id));
const ALL: RowOffer = { loadMore: true, retry: true, empty: true };
const PAGE_SIZE = 2;

/** A host that records what the model tells it. */
function fakeHost() {
	const host = {
		ctx: { name: 'ctx' },
		warnings: [] as string[],
		reported: [] as unknown[],
		loads: 0,
		log: { warn: (message: string) => host.warnings.push(message) },
		reportError: (err: unknown) => host.reported.push(err),
		loaded: () => {
			host.loads++;
		},
		pageSize: () => PAGE_SIZE,
		describeError: (err: unknown) => (err instanceof Error ? err.message : String(err)),
	};
	return host;
}

/**
 * A cursor-paged server over `records` (changed by the test as it goes): the cursor of a page is
 * `@<offset>`; `fail` makes the next requests throw it; every request is recorded.
 */
function pagedServer(records: Rec[]) {
	const server = {
		records,
		requests: [] as Array<{ cursor: string | undefined; limit: number; ctx: unknown; parent: unknown }>,
		fail: undefined as Error | undefined,
		source: {
			page: async (ctx: unknown, request: ModelPageRequest, parent: unknown): Promise<Page<Rec>> => {
				server.requests.push({ cursor: request.cursor, limit: request.limit, ctx, parent });
				await Promise.resolve();
				if (server.fail !== undefined) {
					throw server.fail;
				}
				const start = request.cursor === undefined ? 0 : Number(request.cursor.slice(1));
				const end = start + request.limit;
				return { items: server.records.slice(start, end), nextCursor: end < server.records.length ? `@${end}` : undefined };
			},
		},
	};
	return server;
}

function modelOf(descriptor: ModelDescriptor<Rec>, host = fakeHost()): { model: Model; host: ReturnType<typeof fakeHost> } {
	const h = host as ListModelHost<unknown, Model> & ReturnType<typeof fakeHost>;
	return {
		model: new ListModel<Rec, ModelDescriptor<Rec>, unknown>('agents', descriptor, { record: { id: 'parent' }, key: 'parent' }, h),
		host,
	};
}

function pagedModel(records: Rec[], extra: Partial<ModelDescriptor<Rec>> = {}) {
	const server = pagedServer(records);
	const { model, host } = modelOf({ source: server.source, keyOf: (r) => r.id, ...extra });
	return { server, model, host };
}

/** The rows as short strings: `rec:<id>`, `loadMore`, `notice:<text>`, `error`/`error:auth`, `offline`, `retry`, `signIn`, `empty`. */
function rowsText(rows: ListRow<Rec>[]): string[] {
	return rows.map((row) => {
		switch (row.kind) {
			case 'record':
				return `rec:${row.item.id}`;
			case 'notice':
				return `notice:${row.text}`;
			case 'error':
				return row.auth ? 'error:auth' : 'error';
			case 'loadMore':
			case 'empty':
			case 'offline':
			case 'retry':
			case 'signIn':
				return row.kind;
		}
	});
}

const ids = (model: Model): string[] => model.items.map((r) => r.id);

suite('views/listModel', () => {
	suite('first page', () => {
		test('the first read asks for one page of the configured size and shows it with "Load more…" when the server has a cursor', async () => {
			const { server, model, host } = pagedModel(recs('a', 'b', 'c', 'd', 'e'));
			assert.equal(model.loaded, false);
			await model.load();
			assert.deepEqual(
				server.requests.map((r) => [r.cursor, r.limit]),
				[[undefined, PAGE_SIZE]],
			);
			assert.deepEqual(server.requests[0]!.ctx, host.ctx, 'the source receives the host context');
			assert.deepEqual(server.requests[0]!.parent, { id: 'parent' }, 'and the parent record');
			assert.equal(model.loaded, true);
			assert.equal(model.more, true);
			assert.deepEqual(rowsText(model.rows(ALL)), ['rec:a', 'rec:b', 'loadMore']);
			assert.equal(host.loads, 1, 'the host hears of the read');
		});

		test('without a load-more command no "Load more…" row is offered, though more pages exist', async () => {
			const { model } = pagedModel(recs('a', 'b', 'c'));
			await model.load();
			assert.equal(model.more, true);
			assert.deepEqual(rowsText(model.rows({ ...ALL, loadMore: false })), ['rec:a', 'rec:b']);
		});

		test('a list that fits on one page has no "Load more…" row', async () => {
			const { model } = pagedModel(recs('a', 'b'));
			await model.load();
			assert.equal(model.more, false);
			assert.deepEqual(rowsText(model.rows(ALL)), ['rec:a', 'rec:b']);
		});

		test('reads asked for while one is in flight share its request', async () => {
			const { server, model } = pagedModel(recs('a', 'b', 'c'));
			const first = model.load();
			const second = model.load();
			const more = model.loadMore();
			assert.equal(second, first);
			assert.equal(more, first, 'a "Load more…" during the first read (no row to click yet) waits for it instead of asking again');
			await Promise.all([first, second, more]);
			assert.equal(server.requests.length, 1);
			assert.deepEqual(ids(model), ['a', 'b']);
			// Two "Load more…" at once (a double click) read one page.
			await Promise.all([model.loadMore(), model.loadMore()]);
			assert.deepEqual(ids(model), ['a', 'b', 'c']);
			assert.equal(server.requests.length, 2);
		});

		test('"Load more…" clicked while the rows shown are being refreshed reads the next page after the refresh (the click is not lost)', async () => {
			const { server, model } = pagedModel(recs('a', 'b', 'c', 'd', 'e'));
			await model.load();
			const refresh = model.load();
			const more = model.loadMore();
			await Promise.all([refresh, more]);
			assert.deepEqual(ids(model), ['a', 'b', 'c', 'd']);
			assert.deepEqual(
				server.requests.map((r) => r.cursor),
				[undefined, undefined, '@2'],
			);
		});
	});

	suite('load more through cursors', () => {
		test('"Load more…" sends the cursor of the last page and appends, until the server sends no cursor', async () => {
			const { server, model } = pagedModel(recs('a', 'b', 'c', 'd', 'e'));
			await model.load();
			await model.loadMore();
			assert.deepEqual(ids(model), ['a', 'b', 'c', 'd']);
			assert.equal(model.pages, 2);
			assert.deepEqual(rowsText(model.rows(ALL)).slice(-1), ['loadMore']);
			await model.loadMore();
			assert.deepEqual(ids(model), ['a', 'b', 'c', 'd', 'e']);
			assert.equal(model.pages, 3);
			assert.equal(model.more, false);
			assert.deepEqual(rowsText(model.rows(ALL)), ['rec:a', 'rec:b', 'rec:c', 'rec:d', 'rec:e']);
			assert.deepEqual(
				server.requests.map((r) => r.cursor),
				[undefined, '@2', '@4'],
			);
		});

		test('a record the next page repeats (the list shifted on the server) is shown once, where it was', async () => {
			const { server, model } = pagedModel(recs('a', 'b', 'c', 'd'));
			await model.load();
			server.records = recs('new', 'a', 'b', 'c', 'd');
			await model.loadMore();
			assert.deepEqual(ids(model), ['a', 'b', 'c']);
		});

		test("a descriptor's order sorts every record loaded after each read (ties in the service's order); the next page still comes from the service's cursor", async () => {
			// The service lists a, b, c, d, e; `note` is the activity the order ranks by (higher first).
			const records = [
				rec('a', { note: '1' }),
				rec('b', { note: '3' }),
				rec('c', { note: '2' }),
				rec('d', { note: '9' }),
				rec('e', { note: '2' }),
			];
			const { server, model } = pagedModel(records, { order: (x, y) => Number(y.note) - Number(x.note) });
			await model.load();
			assert.deepEqual(ids(model), ['b', 'a']);
			await model.loadMore();
			assert.deepEqual(ids(model), ['d', 'b', 'c', 'a'], 'a later page takes its place among the rows loaded');
			await model.loadMore();
			assert.deepEqual(ids(model), ['d', 'b', 'c', 'e', 'a'], 'c and e rank alike: the service put c first');
			assert.equal(model.more, false);
			assert.deepEqual(
				server.requests.map((r) => r.cursor),
				[undefined, '@2', '@4'],
				"paging follows the service's cursors, not the rows' order",
			);
			server.records = [...records.slice(0, 4), rec('e', { note: '10' })];
			await model.load();
			assert.deepEqual(ids(model), ['e', 'd', 'b', 'c', 'a'], 'a refresh of the pages shown sorts again');
		});

		test('a whole-list source is asked again with one page more, and the records are not doubled', async () => {
			const asked: ModelListRequest[] = [];
			const all = recs('a', 'b', 'c', 'd', 'e');
			const { model } = modelOf({
				keyOf: (r) => r.id,
				source: {
					list: async (_ctx, request) => {
						asked.push(request);
						const n = request.pages * request.pageSize;
						return { items: all.slice(0, n), more: n < all.length };
					},
				},
			});
			await model.load();
			await model.loadMore();
			assert.deepEqual(
				asked.map((r) => [r.pages, r.pageSize]),
				[
					[1, PAGE_SIZE],
					[2, PAGE_SIZE],
				],
			);
			assert.deepEqual(ids(model), ['a', 'b', 'c', 'd']);
			assert.equal(model.more, true);
			await model.load();
			assert.equal(asked[2]!.pages, 2, 'a refresh reads as many pages as were shown');
		});
	});

	suite('refresh', () => {
		test('a refresh reads the pages shown again from the first and replaces the records: gone ones leave, new ones come in order', async () => {
			const { server, model } = pagedModel(recs('a', 'b', 'c', 'd', 'e', 'f'));
			await model.load();
			await model.loadMore();
			server.requests = [];
			server.records = [rec('new'), rec('a'), rec('c', { status: 'running' }), rec('d'), rec('e'), rec('f')];
			await model.load();
			assert.deepEqual(
				server.requests.map((r) => r.cursor),
				[undefined, '@2'],
				'two pages, from the first',
			);
			assert.deepEqual(ids(model), ['new', 'a', 'c', 'd']);
			assert.equal(model.items[2]!.status, 'running', 'a record read again shows what the server says now');
			assert.equal(model.more, true);
			assert.equal(model.pages, 2);
			// The cursor chain starts again with the refresh: "Load more…" goes on from its last page.
			await model.loadMore();
			assert.deepEqual(ids(model), ['new', 'a', 'c', 'd', 'e', 'f']);
		});

		test('a refresh that brings what is shown does not count as a change; one that brings something else does', async () => {
			const { server, model } = pagedModel(recs('a', 'b'));
			await model.load();
			const revision = model.revision;
			await model.load();
			assert.equal(model.revision, revision, 'nothing to redraw');
			server.records = [rec('a', { note: 'edited' }), rec('b')];
			await model.load();
			assert.equal(model.revision, revision + 1);
		});

		test('a reset while a read is in flight cancels it and drops its answer; the next read starts from the first page', async () => {
			let release: (() => void) | undefined;
			const signals: AbortSignal[] = [];
			const { model, host } = modelOf({
				keyOf: (r) => r.id,
				source: {
					page: async (_ctx, request) => {
						signals.push(request.signal);
						await new Promise<void>((resolve) => (release = resolve));
						return { items: recs('stale'), nextCursor: undefined };
					},
				},
			});
			const read = model.load();
			await Promise.resolve();
			model.reset();
			assert.equal(signals[0]!.aborted, true);
			release!();
			await read;
			assert.deepEqual(model.items, []);
			assert.equal(model.loaded, false);
			assert.equal(host.loads, 0);
		});
	});

	suite('failures', () => {
		test('a failed refresh keeps the records and shows an error row with Retry; a retry that succeeds shows the records again', async () => {
			const { server, model, host } = pagedModel(recs('a', 'b', 'c'));
			await model.load();
			const revision = model.revision;
			const boom = new Error('connection reset');
			server.fail = boom;
			await model.load();
			assert.equal(model.error, boom);
			assert.deepEqual(ids(model), ['a', 'b'], 'the records are kept');
			assert.deepEqual(rowsText(model.rows(ALL)), ['error', 'retry']);
			assert.deepEqual(rowsText(model.rows({ ...ALL, retry: false })), ['error'], 'no Retry without a refresh command');
			const errorRow = model.rows(ALL)[0];
			assert.ok(errorRow?.kind === 'error' && errorRow.error === boom, 'the error row carries the error');
			assert.deepEqual(host.reported, [boom]);
			assert.deepEqual(host.warnings, ['agents: loading failed: connection reset']);
			assert.equal(model.revision, revision + 1, 'the error is a change to draw');

			server.fail = undefined;
			await model.load();
			assert.equal(model.error, undefined);
			assert.deepEqual(rowsText(model.rows(ALL)), ['rec:a', 'rec:b', 'loadMore']);
		});

		test('a refused token (401) shows the error as a sign-in error, with Retry and Sign In', async () => {
			const { server, model } = pagedModel(recs('a'));
			server.fail = new ApiError(401, 'unauthorized', 'token rejected', 'req-1');
			await model.load();
			assert.deepEqual(rowsText(model.rows(ALL)), ['error:auth', 'retry', 'signIn']);
			assert.deepEqual(rowsText(model.rows({ ...ALL, retry: false })), ['error:auth', 'signIn']);
		});

		test('a failed "Load more…" keeps the cursor: the next click asks for the same page', async () => {
			const { server, model } = pagedModel(recs('a', 'b', 'c', 'd'));
			await model.load();
			server.fail = new Error('503');
			await model.loadMore();
			assert.equal(model.pages, 1, 'the page was not added');
			assert.deepEqual(ids(model), ['a', 'b']);
			server.fail = undefined;
			await model.loadMore();
			assert.deepEqual(
				server.requests.map((r) => r.cursor),
				[undefined, '@2', '@2'],
			);
			assert.deepEqual(ids(model), ['a', 'b', 'c', 'd']);
			assert.equal(model.error, undefined);
		});
	});

	suite('offline (the service does not answer)', () => {
		const refused = (): NetworkError => new NetworkError('connection_refused', 'connect ECONNREFUSED 127.0.0.1:8787', false);

		test('a refresh that gets no answer keeps the records under an offline row first: no error row, no Retry, no "Load more…"', async () => {
			const { server, model, host } = pagedModel(recs('a', 'b', 'c'));
			await model.load();
			const err = refused();
			server.fail = err;
			await model.load();
			assert.equal(model.offline, true);
			assert.deepEqual(rowsText(model.rows(ALL)), ['offline', 'rec:a', 'rec:b']);
			const first = model.rows(ALL)[0];
			assert.ok(first?.kind === 'offline' && first.error === err, 'the offline row carries the failure');
			assert.deepEqual(host.reported, [err], 'reported like any failure (the host tells the connectivity)');

			server.fail = undefined;
			await model.load();
			assert.equal(model.offline, false);
			assert.deepEqual(rowsText(model.rows(ALL)), ['rec:a', 'rec:b', 'loadMore'], 'back to the records as read');
		});

		test('a list never read shows the offline row alone (not the empty row); the notice of a listing cut short stays', async () => {
			const { server, model } = pagedModel(recs('a'));
			server.fail = refused();
			await model.load();
			assert.equal(model.loaded, false);
			assert.deepEqual(rowsText(model.rows(ALL)), ['offline']);
			model.notice = 'the server repeated a page';
			assert.deepEqual(rowsText(model.rows(ALL)), ['offline', 'notice:the server repeated a page']);
		});

		test('answers that are failures keep the error rows: 401, 403, 500 with a body, a malformed answer, any other error', async () => {
			const cases: Array<[unknown, string[]]> = [
				[new ApiError(401, 'unauthenticated', 'token rejected', 'req-1'), ['error:auth', 'retry', 'signIn']],
				[new ApiError(403, 'permission_denied', 'not yours', 'req-2'), ['error', 'retry']],
				[new ApiError(500, 'internal', 'boom', 'req-3'), ['error', 'retry']],
				[new ApiError(200, 'invalid_response', 'the answer is not JSON', undefined), ['error', 'retry']],
				[new Error('something else'), ['error', 'retry']],
			];
			for (const [err, rows] of cases) {
				const { server, model } = pagedModel(recs('a'));
				await model.load();
				server.fail = err as Error;
				await model.load();
				assert.equal(model.offline, false, String(err));
				assert.deepEqual(rowsText(model.rows(ALL)), rows, String(err));
			}
		});

		test("each read notes when it started, on the host's clock (a failure of a read sent before the service last answered is stale)", async () => {
			const host = Object.assign(fakeHost(), { now: () => 42_000 });
			const server = pagedServer(recs('a'));
			const { model } = modelOf({ source: server.source, keyOf: (r) => r.id }, host);
			assert.equal(model.fetchStartedAt, undefined);
			await model.load();
			assert.equal(model.fetchStartedAt, 42_000);
		});
	});

	suite('empty list', () => {
		test('an empty list shows the empty row when the descriptor has one, and nothing otherwise (the welcome content shows)', async () => {
			const { model } = pagedModel([]);
			await model.load();
			assert.equal(model.loaded, true);
			assert.equal(model.more, false);
			assert.deepEqual(rowsText(model.rows(ALL)), ['empty']);
			assert.deepEqual(rowsText(model.rows({ ...ALL, empty: false })), []);
		});

		test('records that all go away on a refresh leave the empty row', async () => {
			const { server, model } = pagedModel(recs('a'));
			await model.load();
			server.records = [];
			await model.load();
			assert.deepEqual(rowsText(model.rows(ALL)), ['empty']);
		});
	});

	suite('bounded page chain', () => {
		test(`a server that never stops paging ends after SAFETY.listingMaxPages (${SAFETY.listingMaxPages}) pages: the records stay, "Load more…" goes, a row says why`, async () => {
			let served = 0;
			const { model } = modelOf({
				keyOf: (r) => r.id,
				source: {
					page: async () => {
						served++;
						return { items: [rec(`r${served}`)], nextCursor: `next-${served}` };
					},
				},
			});
			await model.load();
			for (let clicks = 0; model.more && clicks < 2 * SAFETY.listingMaxPages; clicks++) {
				await model.loadMore();
			}
			assert.equal(model.more, false, 'no endless "Load more…"');
			assert.equal(served, SAFETY.listingMaxPages);
			assert.equal(model.items.length, SAFETY.listingMaxPages, 'the last page read is kept');
			const rows = rowsText(model.rows(ALL));
			assert.equal(rows.includes('loadMore'), false);
			assert.equal(rows.at(-1), `notice:The listing has more than ${SAFETY.listingMaxPages} pages; it stops here`);
		});

		test('a server that sends a cursor again ends the listing with a notice; the records read stay', async () => {
			const { model } = modelOf({
				keyOf: (r) => r.id,
				source: {
					page: async (_ctx, request) =>
						request.cursor === undefined
							? { items: recs('a', 'b'), nextCursor: 'same' }
							: { items: recs('c', 'd'), nextCursor: 'same' },
				},
			});
			await model.load();
			await model.loadMore();
			assert.deepEqual(ids(model), ['a', 'b', 'c', 'd']);
			assert.equal(model.more, false);
			const rows = rowsText(model.rows(ALL));
			assert.match(rows.at(-1)!, /^notice:The server repeated a page cursor/);
		});

		test('a server that ignores the cursor and sends the same page again: the copy is not added', async () => {
			const { model } = modelOf({
				keyOf: (r) => r.id,
				source: { page: async (_ctx, request) => ({ items: recs('a', 'b'), nextCursor: `c-${request.cursor ?? 0}` }) },
			});
			await model.load();
			await model.loadMore();
			assert.deepEqual(ids(model), ['a', 'b']);
			assert.equal(model.more, false);
			assert.match(rowsText(model.rows(ALL)).at(-1)!, /^notice:The server sent the same page again/);
		});
	});

	suite('polling delay', () => {
		test('the delay doubles from 2 s up to 5 s while nothing changes, and is 2 s again after a change', () => {
			assert.equal(MIN_DELAY_MS, 2_000);
			assert.equal(MAX_DELAY_MS, 5_000);
			assert.equal(nextPollDelay(MIN_DELAY_MS, false), 4_000);
			assert.equal(nextPollDelay(4_000, false), MAX_DELAY_MS);
			assert.equal(nextPollDelay(MAX_DELAY_MS, false), MAX_DELAY_MS);
			assert.equal(nextPollDelay(MAX_DELAY_MS, true), MIN_DELAY_MS);
		});

		test('reads that bring the same records back off; a change of what `signature` compares brings the delay back to 2 s', async () => {
			const { server, model } = pagedModel([rec('a', { status: 'running' })], { signature: (r) => r.status });
			const delays: number[] = [];
			for (let i = 0; i < 4; i++) {
				await model.load();
				delays.push(model.delayMs);
			}
			assert.deepEqual(delays, [2_000, 4_000, 5_000, 5_000]);
			server.records = [rec('a', { status: 'running', note: 'not compared' })];
			await model.load();
			assert.equal(model.delayMs, 5_000, 'a change outside the signature does not shorten the delay');
			server.records = [rec('a', { status: 'idle' })];
			await model.load();
			assert.equal(model.delayMs, 2_000);
			await model.load();
			assert.equal(model.delayMs, 4_000);
			model.reset();
			assert.equal(model.delayMs, MIN_DELAY_MS);
		});

		test('a list is in motion while a record is active (its descriptor says so) or marked from outside', async () => {
			const { server, model } = pagedModel([rec('a'), rec('b')], { isActive: (r) => r.status === 'running' });
			await model.load();
			assert.equal(model.isChanging(new Set()), false);
			assert.equal(model.isChanging(new Set(['b'])), true, 'a record marked active elsewhere');
			assert.equal(model.isChanging(new Set(['zzz'])), false, 'a mark for a record not in the list');
			server.records = [rec('a', { status: 'running' }), rec('b')];
			await model.load();
			assert.equal(model.isChanging(new Set()), true);
		});
	});
});
