import * as assert from 'node:assert/strict';
import { RANGE_IDS } from '../../../../src/webviews/savings/data';
import {
	SAVINGS_RANGES,
	isSavingsHostMessage,
	parseSavingsPageState,
	validateSavingsPageMessage,
} from '../../../../src/webviews/savings/protocol';

suite('token-savings page messages', () => {
	test('the page offers exactly the ranges the data layer knows', () => {
		assert.deepEqual([...SAVINGS_RANGES], [...RANGE_IDS]);
	});

	test('accepts every declared message', () => {
		for (const m of [
			{ type: 'ready' },
			{ type: 'setFilter', range: '24h', runtimeId: '' },
			{ type: 'setFilter', range: 'all', runtimeId: '0190a1b2-0000-7000-8000-000000000001' },
			{ type: 'refresh' },
			{ type: 'exportCsv' },
			{ type: 'cancel' },
		]) {
			const r = validateSavingsPageMessage(m);
			assert.ok(r.ok, `${JSON.stringify(m)}: ${r.ok ? '' : r.reason}`);
		}
	});

	test('refuses unknown types, unknown ranges, extra fields, wrong kinds and oversized ids', () => {
		const refused: Array<[unknown, RegExp]> = [
			[{ type: 'deleteEverything' }, /unknown message type/],
			[{ type: 'setFilter', range: '1y', runtimeId: '' }, /range/],
			[{ type: 'setFilter', range: '7d' }, /missing field "runtimeId"/],
			[{ type: 'setFilter', range: '7d', runtimeId: 42 }, /not a string/],
			[{ type: 'setFilter', range: '7d', runtimeId: 'x'.repeat(256) }, /longer than 255/],
			[{ type: 'refresh', url: 'https://evil.example' }, /unexpected field "url"/],
			[{ type: 'exportCsv', path: '/etc/passwd' }, /unexpected field "path"/],
			[['refresh'], /not a plain object/],
			[null, /not a plain object/],
			[{ type: 7 }, /no message type/],
		];
		for (const [raw, reason] of refused) {
			const r = validateSavingsPageMessage(raw);
			assert.equal(r.ok, false, JSON.stringify(raw));
			assert.match(r.ok ? '' : r.reason, reason, JSON.stringify(raw));
		}
	});

	test("the page accepts only the extension's message types", () => {
		assert.ok(isSavingsHostMessage({ type: 'data' }));
		assert.ok(!isSavingsHostMessage({ type: 'eval' }));
	});

	test('a saved page state is read defensively', () => {
		assert.deepEqual(parseSavingsPageState({ range: '30d', runtimeId: 'rt' }), { range: '30d', runtimeId: 'rt' });
		assert.deepEqual(parseSavingsPageState({ range: '30d', runtimeId: 5 }), { range: '30d', runtimeId: '' });
		assert.equal(parseSavingsPageState({ range: 'forever' }), undefined);
		assert.equal(parseSavingsPageState('7d'), undefined);
	});
});
