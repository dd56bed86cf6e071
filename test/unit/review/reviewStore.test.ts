/**
 * src/review/reviewStore.ts: review threads kept in globalState — what is read back is checked (a
 * damaged record is dropped, the others kept), the bounds refuse rather than drop, the range's
 * lines and their digest, and the unsent prompts per agent.
 */
import assert from 'node:assert/strict';
import {
	MAX_COMMENTS_PER_THREAD,
	MAX_COMMENT_CHARS,
	MAX_DRAFTS,
	MAX_THREADS,
	boundProblem,
	checkThread,
	digestOf,
	isAgentPath,
	linesOf,
	readDrafts,
	readThreads,
	storedQuote,
	withDraft,
	writeThreads,
	type StoredThread,
} from '../../../src/review/reviewStore';

function thread(over: Partial<StoredThread> = {}): StoredThread {
	return {
		id: 'abc123',
		agentId: 'agent_1',
		path: 'src/a.ts',
		startLine: 2,
		endLine: 4,
		quote: ['a', 'b', 'c'],
		digest: digestOf(['a', 'b', 'c']),
		comments: [{ id: 'c1', body: 'Fix this', created: 1 }],
		state: 'open',
		...over,
	};
}

suite('review threads in globalState (src/review/reviewStore.ts)', () => {
	test('a thread written is read back the same', () => {
		const t = thread({ state: 'sent', sentRunId: 'run_9' });
		assert.deepEqual(readThreads(JSON.parse(JSON.stringify(writeThreads([t])))), [t]);
	});

	test('a damaged record is dropped, the others kept; a foreign or missing value reads as none', () => {
		const good = thread();
		const damaged: unknown[] = [
			{ ...good, id: 'Bad Id!' },
			{ ...good, agentId: '' },
			{ ...good, path: '../etc/passwd' },
			{ ...good, path: '/abs' },
			{ ...good, startLine: -1 },
			{ ...good, endLine: 1 },
			{ ...good, startLine: 1.5 },
			{ ...good, digest: 'nothex' },
			{ ...good, comments: [] },
			{ ...good, comments: [{ id: 'c', body: 5 }] },
			{ ...good, comments: [{ id: 'c', body: 'x'.repeat(MAX_COMMENT_CHARS + 1) }] },
			{ ...good, state: 'resolved' },
			{ ...good, quote: 'a' },
			{ ...good, sentRunId: 7 },
			null,
			'thread',
		];
		for (const d of damaged) {
			assert.equal(checkThread(d), undefined, JSON.stringify(d)?.slice(0, 80));
		}
		const kept = readThreads({ v: 1, threads: [...damaged, good, { ...good }] });
		assert.deepEqual(kept, [good], 'only the good one, once');
		assert.deepEqual(readThreads(undefined), []);
		assert.deepEqual(readThreads({ v: 2, threads: [good] }), []);
		assert.deepEqual(readThreads([good]), []);
	});

	test('a hostile file name of the agent is kept as it is (its own name), within the path limit', () => {
		assert.ok(isAgentPath('dir/evil\nname```\u202e.ts'));
		assert.ok(!isAgentPath('a//b'));
		assert.ok(!isAgentPath('a/./b'));
		assert.ok(!isAgentPath(''));
		assert.ok(!isAgentPath('x'.repeat(5000)));
	});

	test('the bounds refuse (and say which), never drop', () => {
		assert.equal(boundProblem([thread()]), undefined);
		const many = Array.from({ length: MAX_THREADS + 1 }, (_, i) => thread({ id: `t${i}` }));
		assert.deepEqual(boundProblem(many), { kind: 'threads', max: MAX_THREADS });
		const comments = Array.from({ length: MAX_COMMENTS_PER_THREAD + 1 }, (_, i) => ({ id: `c${i}`, body: 'x', created: 0 }));
		assert.equal(boundProblem([thread({ comments })])?.kind, 'comments');
		assert.equal(
			boundProblem([thread({ comments: [{ id: 'c', body: 'x'.repeat(MAX_COMMENT_CHARS + 1), created: 0 }] })])?.kind,
			'commentChars',
		);
		const big = Array.from({ length: 260 }, (_, i) =>
			thread({ id: `t${i}`, comments: [{ id: 'c', body: 'x'.repeat(MAX_COMMENT_CHARS), created: 0 }] }),
		);
		assert.equal(boundProblem(big)?.kind, 'totalChars');
		assert.equal(readThreads(writeThreads(many)).length, MAX_THREADS, 'reading back takes at most the bound');
	});

	test("a range's lines, any line break; past the end: none; the quote kept is bounded; the digest tells a change", () => {
		assert.deepEqual(linesOf('a\r\nb\rc\nd', 1, 2), ['b', 'c']);
		assert.equal(linesOf('a\nb', 1, 5), undefined);
		assert.equal(storedQuote(Array.from({ length: 100 }, () => 'x')).length, 41);
		assert.ok(storedQuote(['y'.repeat(9000), 'z']).length === 1);
		assert.equal(digestOf(['a', 'b']), digestOf(['a', 'b']));
		assert.notEqual(digestOf(['a', 'b']), digestOf(['a', 'b ']));
		assert.notEqual(digestOf(['a\nb']), digestOf(['a', 'b', '']));
	});

	test('unsent prompts: per agent, checked when read, blank forgets, the oldest goes past the bound', () => {
		let drafts = readDrafts({ a1: 'edited prompt', a2: 5, '': 'x' });
		assert.deepEqual([...drafts], [['a1', 'edited prompt']]);
		drafts = readDrafts(withDraft(drafts, 'a1', '  '));
		assert.equal(drafts.size, 0);
		let many = new Map<string, string>();
		for (let i = 0; i < MAX_DRAFTS + 3; i++) {
			many = readDrafts(withDraft(many, `agent${i}`, `p${i}`));
		}
		assert.equal(many.size, MAX_DRAFTS);
		assert.equal(many.get(`agent${MAX_DRAFTS + 2}`), `p${MAX_DRAFTS + 2}`);
		assert.equal(many.get('agent0'), undefined);
	});
});
