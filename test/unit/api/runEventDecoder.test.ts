/**
 * The decoding of run-event frames on its own (no connection): what a frame means, chunk by chunk,
 * and the state that outlives a reconnect.
 */
import assert from 'node:assert/strict';
import { ApiError, InvalidResponseError } from '../../../src/api';
import type { EventRecord } from '../../../src/api';
import { RunEventDecoder } from '../../../src/api/runEventDecoder';

const REQUEST_ID = '0192f1a0-1234-7abc-8def-0123456789ab';

function decoder(after = -1): RunEventDecoder {
	return new RunEventDecoder(after, {
		requestId: () => REQUEST_ID,
		checkRequestId: (value) => (typeof value === 'string' && /^[\w-]+$/.test(value) && !value.includes('secret') ? value : undefined),
		scrub: (text) => text.replaceAll('secret', '<redacted>'),
	});
}

function frame(seq: number, type = 'log', data: unknown = {}): [string, string, string] {
	return [String(seq), type, JSON.stringify({ seq, type, data })];
}

suite('api/runEventDecoder', () => {
	test('a chunk of well-formed frames becomes records in order, with seq and type', () => {
		const d = decoder();
		for (const f of [frame(0), frame(1, 'status', { status: 'running' }), frame(2)]) {
			d.push(...f);
		}
		const out: EventRecord[] = [];
		assert.equal(d.flush(out), 3);
		assert.deepEqual(
			out.map((r) => [r.seq, r.type]),
			[
				[0, 'log'],
				[1, 'status'],
				[2, 'log'],
			],
		);
		assert.deepEqual(out[1]?.data, { status: 'running' });
		assert.equal(d.last, 2);
		assert.equal(d.pending, 0);
	});

	test('one malformed payload among many: the others still decode, it is kept as raw text', () => {
		const d = decoder();
		d.push(...frame(0));
		d.push('1', 'log', '{not json');
		d.push(...frame(2));
		const out: EventRecord[] = [];
		d.flush(out);
		assert.deepEqual(
			out.map((r) => r.seq),
			[0, 1, 2],
		);
		assert.deepEqual(out[1]?.data, { raw: '{not json' });
	});

	test('a payload whose seq disagrees with its frame id: the frame id wins (decoded frame by frame)', () => {
		const d = decoder();
		d.push('0', 'log', JSON.stringify({ seq: 0, type: 'log' }));
		d.push('5', 'log', JSON.stringify({ seq: 1, type: 'log' }));
		const out: EventRecord[] = [];
		d.flush(out);
		assert.equal(d.last, 5, 'the id is the cursor to resume from');
		assert.equal(out.length, 2);
	});

	test('replays at or below the last delivered sequence are dropped, across a reconnect (reset)', () => {
		const d = decoder(3);
		d.push(...frame(2));
		d.push(...frame(4));
		const out: EventRecord[] = [];
		d.flush(out);
		d.push(...frame(9)); // A connection that went away before its chunk was flushed.
		d.reset();
		d.push(...frame(3));
		d.push(...frame(4));
		d.push(...frame(5));
		d.flush(out);
		assert.deepEqual(
			out.map((r) => r.seq),
			[4, 5],
		);
	});

	test('nothing after run.completed is delivered', () => {
		const d = decoder();
		d.push(...frame(0));
		d.push(...frame(1, 'run.completed'));
		d.push(...frame(2));
		const out: EventRecord[] = [];
		d.flush(out);
		assert.deepEqual(
			out.map((r) => r.seq),
			[0, 1],
		);
		assert.equal(d.ended, true);
	});

	test('an id that is not a plain decimal stops decoding with an InvalidResponseError carrying the request id', () => {
		const d = decoder();
		d.push(...frame(0));
		d.push('0x10', 'log', '{}');
		d.push(...frame(2));
		const out: EventRecord[] = [];
		d.flush(out);
		assert.deepEqual(
			out.map((r) => r.seq),
			[0],
		);
		assert.ok(d.error instanceof InvalidResponseError, String(d.error));
		assert.equal(d.error.requestId, REQUEST_ID);
	});

	test('error events: a retryable code asks for a reconnect; any other becomes an ApiError with the message scrubbed', () => {
		const retry = decoder();
		retry.push(undefined, 'error', JSON.stringify({ error: { code: 'unavailable', message: 'busy' } }));
		retry.flush([]);
		assert.equal(retry.reconnectRequested, true);
		assert.equal(retry.error, undefined);

		const stop = decoder();
		stop.push(undefined, 'error', JSON.stringify({ error: { code: 'permission_denied', message: 'the secret is wrong' } }));
		stop.flush([]);
		assert.equal(stop.reconnectRequested, false);
		assert.ok(stop.error instanceof ApiError, String(stop.error));
		assert.equal(stop.error.code, 'permission_denied');
		assert.equal(stop.error.status, 403);
		assert.equal(stop.error.message, 'the <redacted> is wrong');
		assert.equal(stop.error.requestId, REQUEST_ID);
	});
});
