/**
 * Who a token belongs to (src/api/identity.ts meLabel): the first plausible member of GET /v2/me
 * under the usual names, in order, else one level down in `user` or `data`; hostile answers give
 * no label rather than "undefined" or "[object Object]".
 */
import * as assert from 'node:assert/strict';
import { meLabel } from '../../../src/api/identity';

suite('api/identity: meLabel', () => {
	test('the members are tried in order: display_name, email, name, login, username, user_name, id, user_id', () => {
		const all: Record<string, unknown> = {
			user_id: 'by-user_id',
			id: 'by-id',
			user_name: 'by-user_name',
			username: 'by-username',
			login: 'by-login',
			name: 'by-name',
			email: 'by-email',
			display_name: 'by-display_name',
		};
		for (const key of ['display_name', 'email', 'name', 'login', 'username', 'user_name', 'id', 'user_id']) {
			assert.equal(meLabel(all), `by-${key}`);
			delete all[key];
		}
		assert.equal(meLabel(all), undefined, 'none left');
	});

	test('strings are trimmed; a blank one is skipped for the next member; finite numbers are written out', () => {
		assert.equal(meLabel({ display_name: '  Ada Lovelace \n' }), 'Ada Lovelace');
		assert.equal(meLabel({ display_name: ' \t ', email: 'ada@example.test' }), 'ada@example.test');
		assert.equal(meLabel({ id: 42 }), '42');
		assert.equal(meLabel({ id: 0 }), '0', 'zero is an id');
		assert.equal(meLabel({ user_id: -7.5 }), '-7.5');
		assert.equal(meLabel({ id: Number.NaN, user_id: 9 }), '9', 'NaN is skipped');
		assert.equal(meLabel({ id: true, email: null, name: 12n }), undefined, 'booleans, null and bigints are not labels');
	});

	test('non-objects, arrays and members of other types give no label', () => {
		for (const bad of [undefined, null, 'ada', 42, [], [{ email: 'x@example.test' }]]) {
			assert.equal(meLabel(bad), undefined, JSON.stringify(bad));
		}
		assert.equal(meLabel({ display_name: ['Ada'], email: { x: 1 }, id: Number.NaN, user_id: Infinity, name: '   ' }), undefined);
		assert.equal(meLabel({ name: { toString: () => 'Ada' } }), undefined, 'an object that stringifies is no label');
	});

	test('a member at the top wins over a nested one; `user` is read before `data`', () => {
		assert.equal(meLabel({ login: 'top', user: { display_name: 'nested' } }), 'top');
		assert.equal(meLabel({ user: { email: 'u@example.test' }, data: { email: 'd@example.test' } }), 'u@example.test');
		assert.equal(meLabel({ data: { login: 'from-data' } }), 'from-data');
		assert.equal(meLabel({ user: null, data: { login: 'from-data' } }), 'from-data', 'a null user falls back to data');
		assert.equal(meLabel({ user: { id: 7 } }), '7');
		// A `user` with nothing plausible in it does not hide `data`'s label.
		assert.equal(meLabel({ user: {}, data: { email: 'd@example.test' } }), 'd@example.test');
		assert.equal(meLabel({ user: 'ada', data: { email: 'd@example.test' } }), 'd@example.test');
	});

	test('nesting is read one level deep only, and a self-reference ends', () => {
		assert.equal(meLabel({ user: { email: 'one@example.test' } }), 'one@example.test');
		assert.equal(meLabel({ user: { user: { email: 'deep@example.test' } } }), undefined);
		assert.equal(meLabel({ data: { data: { email: 'deep@example.test' } } }), undefined);
		const self: Record<string, unknown> = {};
		self.user = self;
		self.data = { user: self };
		assert.equal(meLabel(self), undefined);
	});
});
