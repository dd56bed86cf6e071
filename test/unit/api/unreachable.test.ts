import * as assert from 'node:assert/strict';
import { ApiError, NetworkError, OutcomeUnknownError, isUnreachable } from '../../../src/api';
import { clientOfDeadPort } from '../support/emulator';

/**
 * Issue 20 (5): a command that got no answer from the service offers Retry and Configure API URL (as
 * Check Connection does); `isUnreachable` is the one check of "no answer", and only of that.
 */
suite('api/isUnreachable: no answer from the service, and nothing else', () => {
	test('a refused connection from the client is unreachable', async () => {
		const { client } = await clientOfDeadPort();
		try {
			const err = await client.listAgents({ limit: 1 }).then(
				() => assert.fail('expected a failure'),
				(e: unknown) => e,
			);
			assert.ok(isUnreachable(err), String(err));
		} finally {
			client.close();
		}
	});

	test('every transport failure is; an answer, an unknown outcome, an abort or junk is not', () => {
		for (const code of ['network_error', 'timeout', 'connect_timeout', 'connection_refused'] as const) {
			assert.equal(isUnreachable(new NetworkError(code, 'x', false)), true, code);
		}
		// From another bundle (a copy of the client): the same shape counts.
		assert.equal(isUnreachable({ name: 'ApiError', status: 0, code: 'connection_refused', message: 'x' }), true);
		const not: unknown[] = [
			new ApiError(503, 'unavailable', 'down', 'req_1'),
			new ApiError(401, 'unauthenticated', 'no', undefined),
			new ApiError(0, 'invalid_code', 'odd', undefined),
			new OutcomeUnknownError('run', 'unknown'),
			Object.assign(new Error('aborted'), { name: 'AbortError' }),
			{ name: 'ApiError', status: '0', code: 'connection_refused' },
			{ name: 'ApiError', status: 0, code: ['connection_refused'] },
			{ name: 'Error', status: 0, code: 'connection_refused' },
			{ status: 0, code: 'timeout' },
			null,
			undefined,
			'connection_refused',
			0,
		];
		for (const value of not) {
			assert.equal(isUnreachable(value), false, String(JSON.stringify(value) ?? value));
		}
	});
});
