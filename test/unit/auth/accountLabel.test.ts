/** The Accounts label whatever members GET /v2/me has (its fields are not shown in the description). */
import assert from 'node:assert/strict';
import type { Me } from '../../../src/api';
import { accountLabel } from '../../../src/auth/accountLabel';

const me = (o: Record<string, unknown>): Me => o as unknown as Me;

suite('accountLabel', () => {
	test('prefers a display name, then email, name, login, id', () => {
		assert.equal(accountLabel(me({ display_name: 'Ada', email: 'ada@example.test', id: 'u1' })), 'Ada');
		assert.equal(accountLabel(me({ email: 'ada@example.test', id: 'u1' })), 'ada@example.test');
		assert.equal(accountLabel(me({ name: 'Ada L.' })), 'Ada L.');
		assert.equal(accountLabel(me({ login: 'ada' })), 'ada');
		assert.equal(accountLabel(me({ user_id: 42 })), '42');
	});
	test('looks into a nested user or data member', () => {
		assert.equal(accountLabel(me({ user: { email: 'x@example.test' } })), 'x@example.test');
		assert.equal(accountLabel(me({ data: { login: 'nested' } })), 'nested');
	});
	test('never "undefined": falls back to the host of the API URL', () => {
		assert.equal(
			accountLabel(me({ organization: 'acme', display_name: '  ' }), 'https://api.example.test:8443/v2'),
			'api.example.test:8443',
		);
		assert.equal(accountLabel(undefined, 'http://127.0.0.1:8787'), '127.0.0.1:8787');
		assert.notEqual(accountLabel(me({})), 'undefined');
	});
});
