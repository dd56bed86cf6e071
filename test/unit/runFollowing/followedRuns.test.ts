import * as assert from 'node:assert/strict';
import { SAFETY } from '../../../src/api';
import { MAX_REMEMBERED_RUNS, followedRunsToStore, parseFollowedRuns } from '../../../src/runFollowing/followedRuns';

suite('Followed runs kept in the workspace state', () => {
	test('reads the well-formed entries, without duplicates, ids only', () => {
		assert.deepEqual(
			parseFollowedRuns([
				{ agentId: 'a1', runId: 'r1', title: 'dropped', token: 'never kept' },
				{ agentId: 'a1', runId: 'r1' },
				{ agentId: 'a1', runId: 'r2' },
				{ agentId: 'a2' },
				{ agentId: '', runId: 'r3' },
				{ agentId: 'a3', runId: 42 },
				{ agentId: 'x'.repeat(SAFETY.idMaxChars + 1), runId: 'r4' },
				null,
				'a1/r5',
				[],
			]),
			[
				{ agentId: 'a1', runId: 'r1' },
				{ agentId: 'a1', runId: 'r2' },
			],
		);
	});

	test('anything but a list reads as none', () => {
		for (const value of [undefined, null, 'a1/r1', 3, { agentId: 'a1', runId: 'r1' }]) {
			assert.deepEqual(parseFollowedRuns(value), [], JSON.stringify(value));
		}
	});

	test('keeps the last runs up to the bound, when reading and when writing', () => {
		const many = Array.from({ length: MAX_REMEMBERED_RUNS + 7 }, (_, i) => ({ agentId: 'a', runId: `r${i}` }));
		for (const kept of [parseFollowedRuns(many), followedRunsToStore(many)]) {
			assert.equal(kept.length, MAX_REMEMBERED_RUNS);
			assert.equal(kept[0]?.runId, 'r7');
			assert.equal(kept.at(-1)?.runId, `r${MAX_REMEMBERED_RUNS + 6}`);
		}
	});

	test('writes the ids of each run only, once', () => {
		const run = { agentId: 'a1', runId: 'r1', title: 'Agent: prompt', status: 'running' };
		assert.deepEqual(followedRunsToStore([run, run]), [{ agentId: 'a1', runId: 'r1' }]);
	});
});
