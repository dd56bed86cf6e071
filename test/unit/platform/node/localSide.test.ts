/**
 * The engine's handle on the comparison worker (src/platform/node/localSide.ts), each test with its
 * own worker and temporary folder: the heap peak it reports, a worker that fails (its batch and every
 * later one rejected with its error), cancellation after a batch, and close (pending batches
 * rejected, idempotent, the signal let go). What the worker answers for each path:
 * compareWorker.test.ts.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkerJob } from '../../../../src/platform/node/compareWorker';
import { LocalSide } from '../../../../src/platform/node/localSide';

const sha = (b: string): string => createHash('sha256').update(b).digest('hex');

suite('platform/node/localSide', () => {
	let dir: string;
	let sides: LocalSide[];
	/** A side closed in teardown whatever the test did. */
	const open = (maxBytes: number, signal?: AbortSignal): LocalSide => {
		const side = new LocalSide(maxBytes, signal);
		sides.push(side);
		return side;
	};
	const job = (name: string, size: number, cost = size): WorkerJob => ({ abs: join(dir, name), size, cost });

	setup(async () => {
		sides = [];
		dir = await mkdtemp(join(tmpdir(), 'ca-localside-'));
		await writeFile(join(dir, 'a.txt'), 'hello');
	});
	teardown(async () => {
		await Promise.all(sides.map((s) => s.close()));
		await rm(dir, { recursive: true, force: true });
	});

	test('the heap peak is 0 before any batch, then the largest the worker reported', async () => {
		const side = open(1 << 20);
		assert.equal(side.heapPeak, 0);
		const [a] = await side.examine([job('a.txt', 5)]);
		assert.deepEqual(a && { kind: a.kind, sha256: (a as { sha256?: string }).sha256 }, { kind: 'file', sha256: sha('hello') });
		const first = side.heapPeak;
		assert.ok(first > 0);
		await side.examine([job('a.txt', 5)]);
		assert.ok(side.heapPeak >= first, 'a peak never goes down');
	});

	test('an empty batch is answered with no answers', async () => {
		assert.deepEqual(await open(0).examine([]), []);
	});

	test('a job the worker cannot open is an error answer; the worker stays up', async () => {
		const side = open(1 << 20);
		const answers = await side.examine([{ abs: 42 as unknown as string, size: 1, cost: 1 }, job('a.txt', 5)]);
		assert.equal(answers[0]?.kind, 'error');
		assert.equal(answers[1]?.kind, 'file');
	});

	test('a worker that fails: its pending batch and every later one are rejected with its error', async () => {
		const side = open(1 << 20);
		const broken = side.examine(null as unknown as WorkerJob[]);
		await assert.rejects(broken, TypeError);
		const err = await side.examine([job('a.txt', 5)]).then(
			() => undefined,
			(e: unknown) => e,
		);
		assert.ok(err instanceof TypeError, `later batches: ${String(err)}`);
	});

	test('cancelled after a batch was answered: every later batch is rejected at once with the AbortError', async () => {
		const ac = new AbortController();
		const side = open(1 << 20, ac.signal);
		assert.equal((await side.examine([job('a.txt', 5)]))[0]?.kind, 'file');
		const reason = Object.assign(new Error('stopped by the user'), { name: 'AbortError' });
		ac.abort(reason);
		await assert.rejects(side.examine([job('a.txt', 5)]), (err: unknown) => err === reason);
	});

	test('a signal aborted before the side starts: the first batch is rejected with its AbortError, nothing read', async () => {
		const ac = new AbortController();
		ac.abort();
		const side = open(1 << 20, ac.signal);
		await assert.rejects(side.examine([job('a.txt', 5)]), { name: 'AbortError' });
	});

	test('close: pending batches are rejected, later ones too; closing again is fine; an abort after it changes nothing', async () => {
		const ac = new AbortController();
		const side = open(1 << 30, ac.signal);
		const pending = side.examine(Array.from({ length: 500 }, () => job('a.txt', 5)));
		await side.close();
		await assert.rejects(pending, /the comparison ended/);
		await side.close();
		ac.abort();
		await assert.rejects(side.examine([job('a.txt', 5)]), /the comparison ended/);
	});

	test('the worker’s byte budget is the one given: the first hash past it is overBytes', async () => {
		const side = open(9);
		const answers = await side.examine([job('a.txt', 5), job('a.txt', 5)]);
		assert.equal((answers[0] as { sha256?: string }).sha256, sha('hello'));
		assert.equal((answers[1] as { overBytes?: boolean }).overBytes, true);
	});
});
