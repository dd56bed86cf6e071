import * as assert from 'node:assert/strict';
import { messageValidator } from '../../../src/webviews/messages';

suite('webview message validator', () => {
	type Msg = { type: 'a' } | { type: 'b'; n: number; s?: string; e: 'x' | 'y'; f: boolean };
	const validate = messageValidator<Msg>({
		a: {},
		b: {
			n: { kind: 'number', min: 0, max: 10, integer: true },
			s: { kind: 'string', maxLength: 3, optional: true },
			e: { kind: 'enum', values: ['x', 'y'] },
			f: { kind: 'boolean' },
		},
	});

	test('accepts each declared message and returns it', () => {
		assert.deepEqual(validate({ type: 'a' }), { ok: true, message: { type: 'a' } });
		const b = { type: 'b', n: 3, e: 'y', f: false };
		assert.deepEqual(validate(b), { ok: true, message: b });
		assert.equal(validate({ ...b, s: 'abc' }).ok, true);
	});

	const refused: [string, unknown, RegExp][] = [
		['null', null, /not a plain object/],
		['undefined', undefined, /not a plain object/],
		['a number', 42, /not a plain object/],
		['an object without a prototype', Object.assign(Object.create(null) as object, { type: 'a' }), /not a plain object/],
		['a string', 'ready', /not a plain object/],
		['an array', [{ type: 'a' }], /not a plain object/],
		['a class instance', new Date(), /not a plain object/],
		['no type', {}, /no message type/],
		['a non-string type', { type: 1 }, /no message type/],
		['an unknown type', { type: 'evil' }, /unknown message type "evil"/],
		['an inherited name as type', { type: 'toString' }, /unknown message type/],
		['an extra field', { type: 'a', token: 'x' }, /unexpected field "token"/],
		['a missing field', { type: 'b', e: 'x', f: true }, /missing field "n"/],
		['a wrong kind', { type: 'b', n: '3', e: 'x', f: true }, /"n" is not a finite number/],
		['NaN', { type: 'b', n: Number.NaN, e: 'x', f: true }, /"n" is not a finite number/],
		['a fraction', { type: 'b', n: 1.5, e: 'x', f: true }, /"n" is not an integer/],
		['out of range', { type: 'b', n: 11, e: 'x', f: true }, /outside 0\.\.10/],
		['a long string', { type: 'b', n: 1, s: 'abcd', e: 'x', f: true }, /longer than 3/],
		['an unknown enum value', { type: 'b', n: 1, e: 'z', f: true }, /"e" is not one of x, y/],
		['a non-boolean', { type: 'b', n: 1, e: 'x', f: 1 }, /"f" is not a boolean/],
	];
	for (const [what, raw, reason] of refused) {
		test(`drops ${what}, saying why`, () => {
			const r = validate(raw);
			assert.equal(r.ok, false);
			assert.match((r as { reason: string }).reason, reason);
		});
	}

	test('reasons never echo a long value back (they are logged)', () => {
		const r = validate({ type: 'x'.repeat(10_000) });
		assert.equal(r.ok, false);
		assert.ok((r as { reason: string }).reason.length < 100);
	});
});
