/**
 * Runs after the other API tests (files load in name order): no token appears in any error message
 * or log line they produced.
 */
import assert from 'node:assert/strict';
import { collected } from '../support/leaks';
import { DEV_TOKEN, READONLY_TOKEN } from '../support/emulator';

suite('token hygiene over the whole API unit run', () => {
	test('no token appears in any error message or log line produced by the API tests', () => {
		assert.ok(collected.length > 50, `only ${collected.length} lines were collected`);
		const tokens = [DEV_TOKEN, READONLY_TOKEN, 'ca_first_token_1', 'ca_second_token_2', 'wrong-token', 'ca_wrong_9f8e7d6c5b4a3210'];
		for (const line of collected) {
			for (const token of tokens) {
				assert.ok(!line.includes(token), `a token leaked into: ${line.slice(0, 200)}`);
			}
		}
	});
});
