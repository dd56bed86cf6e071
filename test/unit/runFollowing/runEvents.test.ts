/**
 * Following a run has exactly one reconnect policy: the client's run-event stream. What the run
 * follower reads (`readRunEvents`) against a hostile server whose stream keeps dropping: the
 * connections counted in total, the follower's included, stay within the stream's own bounds.
 */
import assert from 'node:assert/strict';
import { ApiError, CloudAgentsClient, NetworkError, SAFETY } from '../../../src/api';
import type { EventRecord } from '../../../src/api';
import { readRunEvents } from '../../../src/runFollowing/runEvents';
import { AGENT_ID, RUN_ID, TOKEN, run } from '../../hostile/fixtures';
import { type HostileServer, type Scenario, json, sseFrame, sseStart, startHostile } from '../../hostile/server';
import { nodeConnect } from '../../../src/platform/node/network';

const EVENTS_ROUTE = 'GET /v2/agents/*/runs/*/events';

/** Fast pacing (the policy's shape, not its wall-clock defaults): the default attempt and per-minute caps stay. */
const FAST = { reconnectMinMs: 5, reconnectBaseMs: 5, reconnectMaxMs: 20 };

suite('runFollowing/runEvents: one reconnect policy', function () {
	this.timeout(60_000);
	let server: HostileServer | undefined;
	let client: CloudAgentsClient | undefined;

	async function start(s: Scenario): Promise<CloudAgentsClient> {
		server = await startHostile(s);
		client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: server.baseUrl, getToken: () => TOKEN, stream: FAST });
		return client;
	}

	/** Follows the run from the start; resolves with the events received and the error that ended it. */
	async function follow(c: CloudAgentsClient): Promise<{ events: EventRecord[]; error: unknown }> {
		const events: EventRecord[] = [];
		const controller = new AbortController();
		// Bounds the test however the code under test behaves (an outer retry loop would run long).
		const guard = setTimeout(() => controller.abort(), 45_000);
		try {
			await readRunEvents(c, AGENT_ID, RUN_ID, {
				after: -1,
				signal: controller.signal,
				onEvent: (e) => events.push(e),
				ended: () => false,
			});
			return { events, error: undefined };
		} catch (error) {
			return { events, error };
		} finally {
			clearTimeout(guard);
		}
	}

	teardown(async () => {
		client?.close();
		client = undefined;
		await server?.close();
		server = undefined;
	});

	test("a stream that drops every connection before any event: 1 + the stream's attempts in total, then its error ends following", async () => {
		const c = await start({
			description: 'headers, then the connection drops',
			routes: {
				[EVENTS_ROUTE]: (_q, res) => {
					sseStart(res);
					setTimeout(() => res.destroy(), 5);
				},
				'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'running' })),
			},
		});
		const { events, error } = await follow(c);
		const connects = server?.requestsTo(EVENTS_ROUTE).length ?? 0;
		assert.equal(events.length, 0);
		assert.ok(error instanceof NetworkError, String(error));
		assert.match(error.message, /kept failing/);
		// The stream's default budget: 8 reconnects without a new event (StreamReconnectOptions.maxReconnectAttempts).
		assert.equal(connects, 1 + 8, `${connects} connections`);
		assert.ok(connects <= SAFETY.streamReconnectsPerMinute + 1, `${connects} connections exceed the per-minute cap`);
	});

	test('a stream that drops after each event: reconnects stop at the per-minute cap, counted over the whole follow', async () => {
		let seq = 0;
		const c = await start({
			description: 'one event per connection, forever',
			routes: {
				[EVENTS_ROUTE]: (_q, res) => {
					const write = sseStart(res);
					write(sseFrame(seq++, 'log', { text: 'tick' }));
					res.end();
				},
				'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'running' })),
			},
		});
		const { events, error } = await follow(c);
		const connects = server?.requestsTo(EVENTS_ROUTE) ?? [];
		assert.ok(error instanceof ApiError && error.code === 'reconnect_limit', String(error));
		assert.equal(connects.length, SAFETY.streamReconnectsPerMinute + 1, `${connects.length} connections`);
		// Each connection resumed after the last event delivered, none twice.
		assert.deepEqual(
			connects.map((r) => r.query.get('after')),
			connects.map((_r, i) => String(i - 1)),
		);
		assert.deepEqual(
			events.map((e) => e.seq),
			connects.map((_r, i) => i),
		);
	});

	test('an error event the stream does not retry ends following: one connection, no second try around it', async () => {
		const c = await start({
			description: 'an event, then an error event with a code retrying will not fix',
			routes: {
				[EVENTS_ROUTE]: (_q, res) => {
					const write = sseStart(res);
					write(sseFrame(0, 'log', { text: 'first' }));
					write(`event: error\ndata: ${JSON.stringify({ error: { code: 'quota_burnt', message: 'no more' } })}\n\n`);
					res.end();
				},
				'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'running' })),
			},
		});
		const { events, error } = await follow(c);
		assert.deepEqual(
			events.map((e) => e.seq),
			[0],
		);
		assert.ok(error instanceof ApiError && error.code === 'quota_burnt', String(error));
		assert.equal(server?.requestsTo(EVENTS_ROUTE).length, 1);
	});

	test('a clean end on an ended run: resolves with the run as read, no reconnect', async () => {
		const c = await start({
			description: 'two events, a clean end, the run has succeeded',
			routes: {
				[EVENTS_ROUTE]: (_q, res) => {
					const write = sseStart(res);
					write(sseFrame(0, 'log', {}) + sseFrame(1, 'log', {}));
					res.end();
				},
				'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status: 'succeeded' })),
			},
		});
		const events: EventRecord[] = [];
		const final = await readRunEvents(c, AGENT_ID, RUN_ID, {
			after: 0,
			signal: new AbortController().signal,
			onEvent: (e) => events.push(e),
			ended: () => false,
		});
		assert.equal(final?.status, 'succeeded');
		assert.deepEqual(
			events.map((e) => e.seq),
			[1],
			'only events after `after`',
		);
		assert.equal(server?.requestsTo(EVENTS_ROUTE).length, 1);
		assert.equal(server?.requestsTo(EVENTS_ROUTE)[0]?.query.get('after'), '0');
	});
});
