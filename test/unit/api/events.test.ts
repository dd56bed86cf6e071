/** An event's `data` read at the boundary (src/api/events.ts `eventDataFields`): only strings pass as text. */
import assert from 'node:assert/strict';
import { eventDataFields } from '../../../src/api';
import { payloadText } from '../../../src/runFollowing/format';

suite('eventDataFields: hostile event data', () => {
	test('not an object: no fields (the text is found the envelope way)', () => {
		for (const data of [undefined, null, 'text', 7, ['a'], true]) {
			assert.equal(eventDataFields(data), undefined, JSON.stringify(data));
		}
	});
	test('members of the wrong type are dropped, strings kept, input and output kept as sent', () => {
		const fields = eventDataFields({ role: 5, text: { evil: true }, tool: 'grep', input: { q: 1 }, output: [1, 2], status: null });
		assert.ok(fields);
		assert.equal(fields.role, undefined);
		assert.equal(fields.text, undefined);
		assert.equal(fields.status, undefined);
		assert.equal(fields.tool, 'grep');
		assert.deepEqual(fields.input, { q: 1 });
		assert.deepEqual(fields.output, [1, 2]);
	});
	test('payloadText never prints a non-string member as text', () => {
		const line = payloadText({ seq: 1, type: 'message', data: { role: { toString: 'x' }, text: 'hello' } });
		assert.equal(line, 'hello');
		const status = payloadText({ seq: 2, type: 'run.status', data: { status: 42 } });
		assert.equal(status, '{"status":42}');
	});
});
