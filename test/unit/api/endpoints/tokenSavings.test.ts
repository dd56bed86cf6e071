import * as assert from 'node:assert/strict';
import { request } from 'undici';
import { CloudAgentsClient } from '../../../../src/api/client';
import type { TokenSavingEventRecord } from '../../../../src/api/types';
import { loadSavings } from '../../../../src/webviews/savings/data';
import { CLIENT_PROFILES, DEV_TOKEN, type TestEmulator } from '../../support/emulator';
import { type Served, serve } from '../../support/serve';
import { nodeConnect } from '../../../../src/platform/node/network';
import { ValidationError } from '../../../../src/api/errors';
import { ListingStoppedError } from '../../../../src/api/pagination';
import { type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

/** Every event of GET /v2/token-savings read with plain HTTP (not the client under test), standard member names. */
async function rawEvents(emu: TestEmulator): Promise<{ totals: Record<string, number>; events: Array<Record<string, unknown>> }> {
	const res = await request(`${emu.url}/v2/token-savings?page_size=100`, { headers: { authorization: `Bearer ${DEV_TOKEN}` } });
	const body = (await res.body.json()) as { data: { events: Array<Record<string, unknown>>; totals: Record<string, number> } };
	return body.data;
}

CLIENT_PROFILES.forEach((profile) =>
	suite(`token savings through the client [${profile}]`, () => {
		let emu: TestEmulator;
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ emu, client } = s), { profile, retry: { baseDelayMs: 10, maxDelayMs: 50 } });

		test('account-wide events and totals arrive with the documented names and match the service', async () => {
			const raw = await rawEvents(emu);
			const page = await client.listTokenSavings({ limit: 100 });
			assert.ok(page.items.length > 0);
			assert.equal(page.items.length, raw.events.length);
			const count = (v: unknown): number => (typeof v === 'number' ? v : 0);
			const rawTotals = raw.totals;
			// The standard names the totals applied_events/saved_*; the variant events/bytes_saved/tokens_saved.
			assert.equal(page.totals?.applied_events, rawTotals.applied_events ?? rawTotals.events);
			assert.equal(page.totals?.saved_estimated_tokens, rawTotals.saved_estimated_tokens ?? rawTotals.tokens_saved);
			assert.equal(page.totals?.saved_wire_bytes, rawTotals.saved_wire_bytes ?? rawTotals.bytes_saved);
			let sum = 0;
			let n = 0;
			for await (const ev of client.iterateTokenSavings({ limit: 100 })) {
				sum += count(ev.saved_estimated_tokens);
				n++;
			}
			assert.ok(n > 100, 'more than one page');
			assert.equal(n, page.totals?.applied_events);
			assert.equal(sum, page.totals?.saved_estimated_tokens);
			for (const ev of page.items) {
				assert.equal(typeof ev.runtime_id, 'string');
				assert.equal(typeof ev.runtime_name, 'string');
				assert.ok(!Number.isNaN(Date.parse(ev.observed_at ?? '')));
				assert.ok(ev.methods.length > 0 && ev.methods.every((m) => typeof m === 'string'));
			}
			assert.equal(page.dropped, 0);
		});

		test("the runtime filter selects one runtime (the variant's parameter name is found and remembered)", async () => {
			const all: TokenSavingEventRecord[] = [];
			for await (const ev of client.iterateTokenSavings({ limit: 100 })) {
				all.push(ev);
			}
			const runtimeId = all[0]!.runtime_id!;
			const expected = all.filter((e) => e.runtime_id === runtimeId);
			assert.ok(expected.length > 0 && expected.length <= 100 && expected.length < all.length);
			const fresh = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN });
			try {
				await emu.admin('POST', '/counters/reset');
				const page = await fresh.listTokenSavings({ limit: 100, runtimeId });
				assert.equal(page.runtimeFilterIgnored, false);
				assert.deepEqual(
					page.items.map((e) => e.id),
					expected.map((e) => e.id),
				);
				assert.equal(page.totals?.applied_events, expected.length);
				await fresh.listTokenSavings({ limit: 100, runtimeId });
				const counters = await emu.counters();
				// Standard: one request per page. Variant: `runtime_id` ignored once, `runtime` then, and remembered.
				assert.equal(counters.requests.by_route['GET /v2/token-savings'], profile === 'standard' ? 2 : 3);
			} finally {
				fresh.close();
			}
		});

		test("the dashboard's totals over everything equal the service's account totals", async () => {
			const data = await loadSavings(client, { range: 'all' });
			assert.equal(data.aggregate.totals.events, data.accountTotals?.applied_events);
			assert.equal(data.aggregate.totals.tokens, data.accountTotals?.saved_estimated_tokens);
			assert.equal(data.aggregate.totals.bytes, data.accountTotals?.saved_wire_bytes);
			assert.equal(
				data.aggregate.series.tokens.reduce((a, b) => a + b, 0),
				data.accountTotals?.saved_estimated_tokens,
			);
			assert.equal(data.aggregate.malformed, 0);
		});

		test("a runtime's savings summary is decoded (applied, saved bytes and tokens, malformed)", async () => {
			const withMalformed = new Map<string, number>();
			for await (const e of client.iterateTokenSavings({ limit: 100 })) {
				withMalformed.set(e.runtime_id!, (withMalformed.get(e.runtime_id!) ?? 0) + 1);
			}
			for (const [runtimeId, events] of withMalformed) {
				const page = await client.listRuntimeTokenSavings(runtimeId, { limit: 1 });
				assert.equal(page.summary?.applied_events, events);
				assert.equal(typeof page.summary?.saved_estimated_tokens, 'number');
				assert.equal(typeof page.summary?.malformed_events, 'number');
			}
			const sum = async (key: 'malformed_events'): Promise<number> => {
				let n = 0;
				for (const id of withMalformed.keys()) {
					n += (await client.listRuntimeTokenSavings(id, { limit: 1 })).summary?.[key] ?? 0;
				}
				return n;
			};
			assert.ok((await sum('malformed_events')) >= 1, 'the seed has an event with a parse error');
		});
	}),
);

suite('token savings from a broken server', () => {
	let served: Served;
	let client: CloudAgentsClient;
	let body: unknown;

	suiteSetup(async () => {
		served = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req-1' });
			res.end(JSON.stringify(body));
		});
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: served.baseUrl,
			getToken: () => DEV_TOKEN,
			retry: { maxAttempts: 1 },
		});
	});
	suiteTeardown(async () => {
		client?.close();
		await served?.close();
	});

	test('malformed counts are left out, unsafe ids drop the event (counted), methods of other shapes are skipped', async () => {
		body = {
			data: {
				events: [
					{
						id: 'ok',
						runtime_id: 'rt',
						runtime_name: 'a',
						observed_at: '2026-11-23T10:00:00Z',
						saved_wire_bytes: -1,
						saved_estimated_tokens: '12',
						methods: [{ method: 'log' }, { method: 7 }, 'json_array', null],
					},
					{
						id: '..',
						runtime_id: 'rt',
						observed_at: '2026-11-23T10:00:00Z',
						saved_wire_bytes: 1,
						saved_estimated_tokens: 1,
						methods: [],
					},
					'not an object',
					{
						id: 'ok2',
						runtime_id: 'bad\u0000id',
						observed_at: 5,
						saved_wire_bytes: 1.5,
						saved_estimated_tokens: 2 ** 60,
						methods: 'log',
					},
				],
				totals: { applied_events: 'many', saved_wire_bytes: 10, saved_estimated_tokens: -3 },
				pagination: { has_more: false },
			},
		};
		const page = await client.listTokenSavings();
		assert.equal(page.dropped, 2);
		assert.deepEqual(
			page.items.map((e) => e.id),
			['ok', 'ok2'],
		);
		const [a, b] = page.items;
		assert.deepEqual([a!.saved_wire_bytes, a!.saved_estimated_tokens, a!.methods], [undefined, undefined, ['log', 'json_array']]);
		assert.deepEqual(
			[b!.runtime_id, b!.observed_at, b!.saved_wire_bytes, b!.saved_estimated_tokens, b!.methods],
			[undefined, undefined, undefined, undefined, []],
		);
		assert.deepEqual(page.totals, { applied_events: undefined, saved_wire_bytes: 10, saved_estimated_tokens: undefined });
	});

	test('a runtime filter the server ignores under every name is reported, not hidden', async () => {
		body = {
			data: {
				events: [
					{
						id: 'x',
						runtime_id: 'other',
						observed_at: '2026-11-23T10:00:00Z',
						saved_wire_bytes: 1,
						saved_estimated_tokens: 1,
						methods: [],
					},
				],
				totals: {},
				pagination: { has_more: false },
			},
		};
		const page = await client.listTokenSavings({ runtimeId: 'mine' });
		assert.equal(page.runtimeFilterIgnored, true);
	});
});

suite('token savings: requests as sent (a recording server)', () => {
	let rec: Recorder;
	let client: CloudAgentsClient;
	const event = (id: string, runtime_id: string): Record<string, unknown> => ({
		id,
		runtime_id,
		runtime_name: runtime_id,
		observed_at: '2026-11-23T10:00:00Z',
		saved_wire_bytes: 1,
		saved_estimated_tokens: 1,
		methods: [],
	});

	recorderSuite((s) => ({ rec, client } = s));

	test('page sizes outside 1–100 and bad runtime ids are refused before sending', async () => {
		const cases: Array<[() => Promise<unknown>, string]> = [
			[() => client.listTokenSavings({ limit: 0 }), 'limit'],
			[() => client.listTokenSavings({ limit: 101 }), 'limit'],
			[() => client.listTokenSavings({ runtimeId: '' }), 'runtimeId'],
			[() => client.listRuntimeTokenSavings('rt\n'), 'runtimeId'],
			[() => client.listRuntimeTokenSavings('rt', { limit: 101 }), 'limit'],
		];
		for (const [call, field] of cases) {
			const err = await rejection(call);
			assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
			assert.equal(err.field, field);
		}
		assert.throws(() => client.iterateTokenSavings({ limit: 1000 }), ValidationError);
		assert.equal(rec.requests.length, 0);
	});

	test('the account-wide query: page_size, runtime_id and method; the runtime listing: limit and after under an encoded id', async () => {
		rec.answer(() => ({ body: { data: { events: [event('e1', 'rt 1')], totals: {}, pagination: { has_more: false } } } }));
		await client.listTokenSavings({ limit: 20, runtimeId: 'rt 1', method: 'json_array' });
		await client.listTokenSavings();
		rec.answer(() => ({ body: { data: [], summary: {}, pagination: { has_more: false } } }));
		await client.listRuntimeTokenSavings('rt/1', { limit: 5, cursor: 'c 1' });
		assert.deepEqual(
			rec.requests.map((r) => `${r.method} ${r.url}`),
			[
				'GET /v2/token-savings?page_size=20&runtime_id=rt%201&method=json_array',
				'GET /v2/token-savings',
				'GET /v1/runtimes/rt%2F1/tokensaver/savings?limit=5&after=c%201',
			],
		);
	});

	test('a server that reads only `runtime` is found on the first filtered page and asked that way afterwards', async () => {
		rec.answer((req) => {
			const filter = req.query.get('runtime');
			const events = filter ? [event('e1', filter)] : [event('e1', 'mine'), event('e2', 'other')];
			return { body: { data: { events, totals: { applied_events: events.length }, pagination: { has_more: false } } } };
		});
		const first = await client.listTokenSavings({ runtimeId: 'mine' });
		assert.equal(first.runtimeFilterIgnored, false);
		assert.deepEqual(
			first.items.map((e) => e.id),
			['e1'],
		);
		assert.equal(first.totals?.applied_events, 1);
		assert.deepEqual(
			rec.requests.map((r) => [...r.query.keys()]),
			[['runtime_id'], ['runtime']],
		);
		await client.listTokenSavings({ runtimeId: 'mine' });
		assert.deepEqual([...rec.requests[2]!.query.keys()], ['runtime'], 'remembered: one request');
	});

	test("a runtime's page: records from data, the summary decoded (either spelling), none when absent", async () => {
		rec.answer(() => ({
			body: {
				data: [{ id: 'r1' }, { id: 'r2' }],
				summary: { events: 2, bytes_saved: 10, tokens_saved: 3, malformed_events: -1 },
				pagination: { next_cursor: 'n', has_more: true },
			},
		}));
		const page = await client.listRuntimeTokenSavings('rt');
		assert.equal(page.items.length, 2);
		assert.equal(page.nextCursor, 'n');
		assert.deepEqual(page.summary, { applied_events: 2, saved_wire_bytes: 10, saved_estimated_tokens: 3, malformed_events: undefined });
		rec.answer(() => ({ body: { data: [] } }));
		assert.equal((await client.listRuntimeTokenSavings('rt')).summary, undefined);
	});

	test("iterating a runtime's records follows the cursor and stops when the server repeats it", async () => {
		rec.answer((req) => {
			const after = req.query.get('after');
			if (after === null) {
				return { body: { data: [{ id: 'r1' }], pagination: { next_cursor: 'p2', has_more: true } } };
			}
			return { body: { data: [{ id: `r-${after}` }], pagination: { next_cursor: 'p2', has_more: true } } };
		});
		const seen: string[] = [];
		const err = await rejection(async () => {
			for await (const r of client.iterateRuntimeTokenSavings('rt', { limit: 1 })) {
				seen.push((r as { id: string }).id);
			}
		});
		assert.ok(err instanceof ListingStoppedError);
		assert.equal(err.reason, 'repeated_cursor');
		assert.deepEqual(seen, ['r1', 'r-p2']);
	});
});
