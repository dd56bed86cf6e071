/**
 * The token check that runs after every unit test file (support/rootHooks.ts) finds a token in what
 * the API tests collect: in an error's cause, in a log line's arguments.
 */
import assert from 'node:assert/strict';
import { assertNoTokenIn, collected, recordError, recordingLogger } from './leaks';
import { DEV_TOKEN } from './emulator';

suite('token hygiene over the whole API unit run', () => {
	test('a token in an error cause or a log argument is found; lines without one pass', () => {
		const before = collected.length;
		try {
			recordError(new Error('outer', { cause: new Error(`Bearer ${DEV_TOKEN}`) }));
			assert.throws(() => assertNoTokenIn(collected.slice(before)), /a token leaked into/);
			collected.splice(before);
			recordingLogger.warn?.('request failed', { headers: { authorization: `Bearer ${DEV_TOKEN}` } });
			assert.throws(() => assertNoTokenIn(collected.slice(before)), /a token leaked into/);
			collected.splice(before);
			recordingLogger.debug?.('GET /v2/agents 200', { authorization: '[redacted]' });
			assert.doesNotThrow(() => assertNoTokenIn(collected.slice(before)));
		} finally {
			collected.splice(before);
		}
	});
});
