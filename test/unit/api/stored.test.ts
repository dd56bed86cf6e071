import * as assert from 'node:assert/strict';
import { SAFETY } from '../../../src/base/limits';
import { type StoredField, restoreRecord, storeRecord } from '../../../src/api/stored';
import { isJsonObject } from '../../../src/api/validation';

const FIELDS: Readonly<Record<string, StoredField>> = { id: 'id', name: 'text', runtime_id: 'id', count: 'count' };

suite('stored records (api/stored.ts)', () => {
	test('a record stored with its fields reads back as it was, and only those fields are kept', () => {
		const record = { id: 'agent-1', name: 'Billing', runtime_id: 'rt_1', count: 3, token: 'not kept', nested: { a: 1 } };
		const stored = storeRecord(record, FIELDS);
		assert.deepEqual(stored, { id: 'agent-1', name: 'Billing', runtime_id: 'rt_1', count: 3 });
		assert.deepEqual(restoreRecord(JSON.parse(JSON.stringify(stored)), FIELDS), stored);
		// A field absent stays absent; fields not named are dropped on the way back too.
		assert.deepEqual(restoreRecord({ id: 'agent-2', extra: 'x' }, FIELDS), { id: 'agent-2' });
	});

	test('anything else reads back as nothing', () => {
		const bad: unknown[] = [
			null,
			'agent-1',
			['agent-1'],
			{ name: 'no id' },
			{ id: '' },
			{ id: '..' },
			{ id: 'a\u0000b' },
			{ id: 'x'.repeat(SAFETY.idMaxChars + 1) },
			{ id: 'agent-1', runtime_id: 'rt\u001b1' },
			{ id: 'agent-1', name: 42 },
			{ id: 'agent-1', name: 'x'.repeat(SAFETY.storedTextMaxChars + 1) },
			{ id: 'agent-1', count: -1 },
			{ id: 'agent-1', count: 1.5 },
			{ id: 'agent-1', count: '3' },
		];
		for (const value of bad) {
			assert.equal(restoreRecord(value, FIELDS), undefined, JSON.stringify(value)?.slice(0, 80));
		}
		assert.deepEqual(restoreRecord({ id: 'agent-1', name: 'x'.repeat(SAFETY.storedTextMaxChars) }, FIELDS), {
			id: 'agent-1',
			name: 'x'.repeat(SAFETY.storedTextMaxChars),
		});
	});

	test('isJsonObject takes plain objects only', () => {
		assert.equal(isJsonObject({ a: 1 }), true);
		for (const value of [null, undefined, [], 'x', 1, true]) {
			assert.equal(isJsonObject(value), false);
		}
	});
});
