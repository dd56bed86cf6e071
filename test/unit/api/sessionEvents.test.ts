/**
 * The session replay's items (GET /v2/agents/{id}/events, Show Session History) decoded once at the
 * API boundary: hostile items are dropped or read safely, never handed on raw.
 */
import assert from 'node:assert/strict';
import { CloudAgentsClient, decodeSessionEvent } from '../../../src/api';
import { AGENT_ID } from '../../hostile/fixtures';
import { serve } from '../support/serve';

const TOKEN = 'ca_test_session_events';

suite('api/decode: session events', () => {
	test('reads our spelling and the variant spelling (sequence, event, at)', () => {
		assert.deepEqual(
			decodeSessionEvent({ seq: 3, type: 'log', created_at: '2026-01-01T00:00:00Z', run_id: 'r1', data: { line: 'x' } }),
			{
				seq: 3,
				type: 'log',
				created_at: '2026-01-01T00:00:00Z',
				run_id: 'r1',
				data: { line: 'x' },
			},
		);
		const variant = decodeSessionEvent({ sequence: 4, event: 'status', at: '2026-01-01T00:00:01Z' });
		assert.equal(variant?.seq, 4);
		assert.equal(variant?.type, 'status');
		assert.equal(variant?.created_at, '2026-01-01T00:00:01Z');
	});

	test('an item that is not an object, or has no usable sequence number, is dropped', () => {
		for (const item of [
			null,
			undefined,
			7,
			'seq',
			[{ seq: 1 }],
			{},
			{ type: 'log' },
			{ seq: '1' },
			{ seq: -1 },
			{ seq: 1.5 },
			{ seq: Number.NaN },
			{ seq: Number.MAX_SAFE_INTEGER + 2 },
			{ seq: null, sequence: 'x' },
		]) {
			assert.equal(decodeSessionEvent(item), undefined, JSON.stringify(item) ?? 'undefined');
		}
	});

	test('a type of the wrong kind, huge, empty or with control characters reads as "event"', () => {
		for (const type of [42, { a: 1 }, '', 'x'.repeat(100_000), 'log\u0000', 'a\nb', '\u009b31m']) {
			assert.equal(decodeSessionEvent({ seq: 1, type })?.type, 'event', JSON.stringify(type).slice(0, 40));
		}
		assert.equal(decodeSessionEvent({ seq: 1 })?.type, 'event');
	});

	test('a time or run id that is not a short clean string is left out', () => {
		for (const created_at of [12, {}, 'x'.repeat(1_000), '2026\u0007']) {
			const event = decodeSessionEvent({ seq: 1, type: 'log', created_at });
			assert.ok(event && !('created_at' in event), JSON.stringify(created_at).slice(0, 40));
		}
		for (const run_id of [12, '', '..', 'r'.repeat(256), 'r\u0000']) {
			const event = decodeSessionEvent({ seq: 1, type: 'log', run_id });
			assert.ok(event && !('run_id' in event), JSON.stringify(run_id).slice(0, 40));
		}
	});

	test('the client hands out only decoded events', async () => {
		const served = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					agent_id: AGENT_ID,
					session_id: 's1',
					events: [{ seq: 0, type: 'log' }, 'junk', null, { seq: 'one' }, { sequence: 2, event: 'status', created_at: 5 }],
				}),
			);
		});
		const client = new CloudAgentsClient({ baseUrl: served.baseUrl, getToken: () => TOKEN });
		try {
			const answer = await client.getAgentEvents(AGENT_ID);
			assert.equal(answer.session_id, 's1');
			assert.deepEqual(
				answer.events.map((e) => [e.seq, e.type, e.created_at]),
				[
					[0, 'log', undefined],
					[2, 'status', undefined],
				],
			);
		} finally {
			client.close();
			await served.close();
		}
	});
});
