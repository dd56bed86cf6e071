/** Ids are opaque: only what the description states is checked (agent id: a runtime UUID, then a harness id). */
import assert from 'node:assert/strict';
import { ValidationError } from '../../../src/api';
import { checkAgentId } from '../../../src/api/validation';

const UUID = '0190F1C2-ABCD-7000-8000-00000000000A';

suite('agent id validation', () => {
	test('accepts the emulator form, upper case and other separators, keeping case', () => {
		for (const id of [
			`${UUID.toLowerCase()}.main`,
			`${UUID}.Main`,
			`${UUID}:Harness_1`,
			`${UUID}_main`,
			`${UUID}--h`,
			`${UUID}~MAIN`,
			`${UUID}/h`,
		]) {
			assert.doesNotThrow(() => checkAgentId(id), id);
		}
	});
	test('refuses what the description rules out and path tricks', () => {
		for (const id of [
			'',
			'main',
			`${UUID}`,
			`${UUID}.`,
			`${UUID}..`,
			`${UUID}./..`,
			`not-a-uuid-at-all-0000000000000000.main`,
			`${UUID}.a b`,
			`${UUID}.a\u0000`,
			`${UUID}.${'x'.repeat(161)}`,
			`${UUID}.é`,
		]) {
			assert.throws(() => checkAgentId(id), ValidationError, id);
		}
	});
});
