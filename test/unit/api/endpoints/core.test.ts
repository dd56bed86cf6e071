/**
 * src/api/endpoints/core.ts: the route-segment encoder `e`, the readers of answer bodies (unwrap,
 * arrayOf, rawArrayOf, nextCursorOf, timeOf) and ClientCore's steps — the outcome observer, the
 * cursor parameter found per listing, and what an ambiguous failure of a create or a mutation
 * becomes — through real HTTP (a recording loopback server, a dropped connection, a dead port).
 */
import * as assert from 'node:assert/strict';
import { ApiError, NetworkError, OutcomeUnknownError, ValidationError } from '../../../../src/api/errors';
import { ListingStoppedError } from '../../../../src/api/pagination';
import {
	CURSOR_PARAMETER_NAMES,
	type Call,
	ClientCore,
	type CloudAgentsClientOptions,
	arrayOf,
	e,
	nextCursorOf,
	rawArrayOf,
	timeOf,
	unwrap,
} from '../../../../src/api/endpoints/core';
import { SAFETY } from '../../../../src/base/limits';
import type { Page } from '../../../../src/api/types';
import { nodeConnect } from '../../../../src/platform/node/network';
import { DEV_TOKEN, clientOfDeadPort } from '../../support/emulator';
import { type Recorder, rejection, startRecorder } from './recorder';

/** ClientCore with its protected steps callable, as an endpoint group calls them. */
class Steps extends ClientCore {
	override call<R>(c: Call): Promise<R> {
		return super.call<R>(c);
	}
	page(listing: string, cursor: string | undefined): Promise<Page<{ id: string }>> {
		return this.pageWithCursor<{ id: string }>(listing, cursor, async (param, c) => {
			const body = await this.call<{ items: Array<{ id: string }>; next?: string }>({
				method: 'GET',
				path: `/${listing}`,
				route: `GET /${listing}`,
				query: { [param]: c },
				idempotent: true,
			});
			return { items: body.items, nextCursor: body.next };
		});
	}
	createOnceOf<R>(send: () => Promise<R>, find: (since: number) => Promise<R[]>): Promise<R> {
		return this.createOnce('widget', send, find);
	}
	mutateOnceOf<R>(send: () => Promise<R>): Promise<R> {
		return this.mutateOnce('widget', send);
	}
}

suite('api/endpoints/core', () => {
	suite('e: an id as one route segment', () => {
		test('encodes every reserved character, so an id never becomes another route or a query', () => {
			assert.equal(e('plain-id_1'), 'plain-id_1');
			assert.equal(e('a/b'), 'a%2Fb');
			assert.equal(e('a?b#c'), 'a%3Fb%23c');
			assert.equal(e('a b%'), 'a%20b%25');
			assert.equal(e('x:y'), 'x%3Ay');
			assert.equal(e('é'), '%C3%A9');
			assert.equal(e('../etc'), '..%2Fetc');
			assert.equal(e('...'), '...');
			assert.equal(e('x'.repeat(SAFETY.idMaxChars)).length, SAFETY.idMaxChars);
		});

		test('refuses empty, ".", "..", over-long and control-character ids, quoting at most 40 characters', () => {
			for (const bad of ['', '.', '..', 'x'.repeat(SAFETY.idMaxChars + 1), 'a\nb', 'a\u0000', 'tab\there', 'del\u007f']) {
				const err = (() => {
					try {
						e(bad);
					} catch (caught) {
						return caught;
					}
					return undefined;
				})();
				assert.ok(err instanceof ValidationError, JSON.stringify(bad));
				assert.equal(err.field, 'id');
				assert.match(err.message, /^Refused to send a request for the id ".*": not a valid id$/);
				assert.ok(err.message.length < 120, 'the id is quoted cut short');
			}
			assert.throws(() => e(42 as unknown as string), ValidationError);
		});
	});

	suite('readers of answer bodies', () => {
		test('unwrap takes data when present, else the body itself', () => {
			assert.deepEqual(unwrap({ data: { id: 1 } }), { id: 1 });
			assert.deepEqual(unwrap({ id: 2 }), { id: 2 });
			assert.equal(unwrap({ data: null }), null);
			assert.deepEqual(unwrap([1, 2]), [1, 2]);
			assert.equal(unwrap('text'), 'text');
		});

		test('rawArrayOf: the body, a named member (of the body, then of data), data itself, else empty', () => {
			assert.deepEqual(rawArrayOf([1], ['items']), [1]);
			assert.deepEqual(rawArrayOf({ items: [2], data: [9] }, ['items']), [2]);
			assert.deepEqual(rawArrayOf({ data: { items: [3] } }, ['items']), [3]);
			assert.deepEqual(rawArrayOf({ other: [4], items: [5] }, ['other', 'items']), [4]);
			assert.deepEqual(rawArrayOf({ items: 'not a list', data: [6] }, ['items']), [6]);
			assert.deepEqual(rawArrayOf({ data: { nothing: true } }, ['items']), []);
			assert.deepEqual(rawArrayOf(null, ['items']), []);
			assert.deepEqual(rawArrayOf('junk', []), []);
		});

		test('arrayOf refuses a page of more than SAFETY.pageMaxItems items', () => {
			assert.equal(arrayOf({ items: new Array(SAFETY.pageMaxItems).fill(0) }, 'items').length, SAFETY.pageMaxItems);
			assert.throws(
				() => arrayOf(new Array(SAFETY.pageMaxItems + 1).fill(0)),
				(err: unknown) => err instanceof ApiError && err.code === 'response_too_large',
			);
		});

		test('nextCursorOf reads every spelling in order, skips empty ones, and stops when has_more is false', () => {
			assert.equal(nextCursorOf({ next_cursor: 'a', next_page_token: 'b' }), 'a');
			assert.equal(nextCursorOf({ next_cursor: '', next_page_token: 'b' }), 'b');
			assert.equal(nextCursorOf({ next: 'c' }), 'c');
			assert.equal(nextCursorOf({ pagination: { next_cursor: 'd', has_more: true } }), 'd');
			assert.equal(nextCursorOf({ pagination: { next_page_token: 'e' } }), 'e');
			assert.equal(nextCursorOf({ pagination: { next_cursor: 'f', has_more: false } }), undefined);
			assert.equal(nextCursorOf({ next_cursor: 'g', pagination: { has_more: false } }), undefined);
			assert.equal(nextCursorOf({ next_cursor: 7, pagination: null }), undefined);
			assert.equal(nextCursorOf({}), undefined);
		});

		test('timeOf: seconds as numbers, dates as strings, anything else unknown', () => {
			assert.equal(timeOf(1_700_000_000), 1_700_000_000_000);
			assert.equal(timeOf('2026-01-02T03:04:05Z'), Date.UTC(2026, 0, 2, 3, 4, 5));
			assert.equal(timeOf('not a date'), undefined);
			assert.equal(timeOf(null), undefined);
			assert.equal(timeOf({}), undefined);
		});

		test('the cursor parameter names start with the standard one and hold no duplicate', () => {
			assert.equal(CURSOR_PARAMETER_NAMES[0], 'cursor');
			assert.equal(new Set(CURSOR_PARAMETER_NAMES).size, CURSOR_PARAMETER_NAMES.length);
		});
	});

	suite('ClientCore over HTTP', () => {
		let rec: Recorder;
		const made: ClientCore[] = [];
		const steps = (extra: Partial<CloudAgentsClientOptions> = {}): Steps => {
			const s = new Steps({
				connect: nodeConnect,
				baseUrl: rec.baseUrl,
				getToken: () => DEV_TOKEN,
				retry: { maxAttempts: 1 },
				...extra,
			});
			made.push(s);
			return s;
		};
		const get: Call = { method: 'GET', path: '/thing', route: 'GET /thing', idempotent: true };

		suiteSetup(async () => {
			rec = await startRecorder();
		});
		setup(() => rec.reset());
		suiteTeardown(async () => {
			for (const s of made) {
				s.close();
			}
			await rec?.close();
		});

		test('onOutcome hears every request once: undefined for an answer, the error for a failure; a throwing observer changes nothing', async () => {
			const heard: unknown[] = [];
			const s = steps({
				onOutcome: (err, startedAt) => {
					assert.ok(startedAt <= Date.now());
					heard.push(err);
					throw new Error('observer failure');
				},
			});
			rec.answer((_req, i) =>
				i === 0 ? { body: { ok: true } } : { status: 404, body: { error: { code: 'not_found', message: 'gone' } } },
			);
			assert.deepEqual(await s.call(get), { ok: true });
			const err = await rejection(() => s.call(get));
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 404);
			assert.equal(heard.length, 2);
			assert.equal(heard[0], undefined);
			assert.equal(heard[1], err);
			assert.equal(s.baseUrl.origin, new URL(rec.baseUrl).origin);
		});

		test('pageWithCursor finds the cursor parameter a server reads, once per listing, and remembers it', async () => {
			// This server reads only `after`; any other name gets the first page again.
			rec.answer((req) => {
				const after = req.query.get('after');
				return after === 'p2' ? { body: { items: [{ id: 'b' }] } } : { body: { items: [{ id: 'a' }], next: 'p2' } };
			});
			const s = steps();
			const first = await s.page('things', undefined);
			assert.equal(first.nextCursor, 'p2');
			const second = await s.page('things', 'p2');
			assert.deepEqual(second.items, [{ id: 'b' }]);
			assert.deepEqual(
				rec.requests.map((r) => r.url),
				['/things', '/things?cursor=p2', '/things?page_token=p2', '/things?after=p2'],
			);
			rec.reset();
			rec.answer((req) =>
				req.query.get('after') === 'p2' ? { body: { items: [{ id: 'b' }] } } : { body: { items: [{ id: 'a' }], next: 'p2' } },
			);
			await s.page('things', 'p2');
			assert.deepEqual(
				rec.requests.map((r) => r.url),
				['/things?after=p2'],
				'remembered',
			);
			// Another listing of the same client starts from `cursor` again.
			rec.reset();
			rec.answer(() => ({ body: { items: [{ id: 'o' }], next: 'p2' } }));
			await s.page('others', undefined);
			await rejection(() => s.page('others', 'p2'));
			assert.equal(rec.requests[1]?.url, '/others?cursor=p2');
		});

		test('a page that hands back the very cursor sent counts as ignored; a server ignoring all names stops the listing', async () => {
			rec.answer((req) => ({ body: { items: [{ id: `x${req.query.toString()}` }], next: 'same' } }));
			const s = steps();
			await s.page('echo', undefined);
			const err = await rejection(() => s.page('echo', 'same'));
			assert.ok(err instanceof ListingStoppedError);
			assert.equal(err.reason, 'cursor_ignored');
			assert.equal(err.delivered, 0);
			assert.equal(rec.requests.length, 1 + CURSOR_PARAMETER_NAMES.length);
		});

		test('createOnce: a dropped connection after sending is reconciled by one look, never sent again', async () => {
			rec.answer(() => ({ destroy: true }));
			const s = steps();
			const sends: number[] = [];
			let since = 0;
			const found = await s.createOnceOf(
				async () => {
					sends.push(1);
					return s.call<{ id: string }>({ ...get, method: 'POST', idempotent: false });
				},
				async (t) => {
					since = t;
					return [{ id: 'w1' }];
				},
			);
			assert.deepEqual(found, { id: 'w1' });
			assert.equal(sends.length, 1);
			assert.equal(rec.requests.length, 1);
			assert.ok(since <= Date.now() - 59_000, 'the look allows a minute of clock skew');

			const none = await rejection(() =>
				s.createOnceOf(
					() => s.call({ ...get, method: 'POST', idempotent: false }),
					async () => [],
				),
			);
			assert.ok(none instanceof OutcomeUnknownError);
			assert.equal(none.resource, 'widget');
			assert.ok(none.cause instanceof NetworkError);
			assert.equal(none.cause.requestSent, true);
		});

		test('createOnce and mutateOnce pass on errors that leave no doubt: a refused connection, a 4xx', async () => {
			const { client: dead } = await clientOfDeadPort();
			try {
				let looked = false;
				const deadSteps = new Steps({
					connect: nodeConnect,
					baseUrl: dead.baseUrl.href,
					getToken: () => DEV_TOKEN,
					retry: { maxAttempts: 1 },
				});
				made.push(deadSteps);
				const refused = await rejection(() =>
					deadSteps.createOnceOf(
						() => deadSteps.call({ ...get, method: 'POST', idempotent: false }),
						async () => {
							looked = true;
							return [];
						},
					),
				);
				assert.ok(refused instanceof NetworkError && !(refused instanceof OutcomeUnknownError));
				assert.equal(refused.requestSent, false);
				assert.equal(looked, false);
				const refusedMutation = await rejection(() =>
					deadSteps.mutateOnceOf(() => deadSteps.call({ ...get, method: 'POST', idempotent: false })),
				);
				assert.ok(refusedMutation instanceof NetworkError);
			} finally {
				dead.close();
			}
			rec.answer(() => ({ status: 409, body: { error: { code: 'failed_precondition', message: 'busy' } } }));
			const s = steps();
			const conflict = await rejection(() => s.mutateOnceOf(() => s.call({ ...get, method: 'POST', idempotent: false })));
			assert.ok(conflict instanceof ApiError && !(conflict instanceof OutcomeUnknownError));
			assert.equal(conflict.status, 409);
		});

		test('mutateOnce: a 502, a 504 or a dropped connection leave the outcome unknown', async () => {
			const s = steps();
			for (const answer of [{ status: 502, body: {} }, { status: 504, body: {} }, { destroy: true }]) {
				rec.answer(() => answer);
				const err = await rejection(() => s.mutateOnceOf(() => s.call({ ...get, method: 'POST', idempotent: false })));
				assert.ok(err instanceof OutcomeUnknownError, JSON.stringify(answer));
				assert.match(err.message, /may or may not have been applied/);
			}
			rec.answer(() => ({ status: 503, body: {} }));
			const unavailable = await rejection(() => s.mutateOnceOf(() => s.call({ ...get, method: 'POST', idempotent: false })));
			assert.ok(unavailable instanceof ApiError && !(unavailable instanceof OutcomeUnknownError), 'a 503 was not applied');
		});

		test('createOnce with several matches names them all as candidates', async () => {
			rec.answer(() => ({ status: 504, body: {} }));
			const s = steps();
			const err = await rejection(() =>
				s.createOnceOf(
					() => s.call({ ...get, method: 'POST', idempotent: false }),
					async () => [{ id: 'a' }, { id: 'b' }],
				),
			);
			assert.ok(err instanceof OutcomeUnknownError);
			assert.deepEqual(err.candidates, [{ id: 'a' }, { id: 'b' }]);
			assert.match(err.message, /2 matching widgets were found/);
		});
	});
});
