/**
 * The local side of a comparison in its worker thread (src/platform/node/compareWorker.ts, localSide.ts):
 * what each local path is, hashes of files the size of the agent's (and only within the byte
 * budget), links and pipes never followed or waited on, and the worker's life (answers in order,
 * cancel, end).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examine } from '../../../../src/platform/node/compareWorker';
import type { LocalAnswer } from '../../../../src/compare/localFiles';
import { LocalSide } from '../../../../src/platform/node/localSide';

const sha = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');

suite('compare/compareWorker: one local path', () => {
	let root: string;
	const big = Buffer.alloc(256 * 1024 * 2 + 7, 'b');
	const exact = Buffer.alloc(256 * 1024 * 2, 'e');
	suiteSetup(async () => {
		root = await mkdtemp(join(tmpdir(), 'ca-compare-worker-'));
		await mkdir(join(root, 'dir'));
		await writeFile(join(root, 'small.txt'), 'hello');
		await writeFile(join(root, 'empty.txt'), '');
		await writeFile(join(root, 'big.bin'), big);
		await writeFile(join(root, 'exact.bin'), exact);
		await writeFile(join(tmpdir(), 'ca-compare-worker-outside.txt'), 'outside');
		await symlink(join(tmpdir(), 'ca-compare-worker-outside.txt'), join(root, 'link.txt'));
	});
	suiteTeardown(async () => {
		await rm(root, { recursive: true, force: true });
		await rm(join(tmpdir(), 'ca-compare-worker-outside.txt'), { force: true });
	});
	const budget = (): { left: number } => ({ left: 1 << 30 });

	test('a file of the agent-side size is hashed as its bytes: small, empty, larger than a read, a multiple of a read', () => {
		for (const [name, content] of [
			['small.txt', Buffer.from('hello')],
			['empty.txt', Buffer.alloc(0)],
			['big.bin', big],
			['exact.bin', exact],
		] as const) {
			const a = examine({ abs: join(root, name), size: content.byteLength, cost: 2 * content.byteLength }, budget());
			assert.equal(a.kind, 'file', name);
			assert.equal(a.sha256, sha(content), name);
			assert.equal(a.size, content.byteLength, name);
		}
	});

	test('another size: the facts only, nothing read; missing, a folder, a link (not followed)', () => {
		const other = examine({ abs: join(root, 'small.txt'), size: 4, cost: 8 }, budget());
		assert.equal(other.kind, 'file');
		assert.equal(other.size, 5);
		assert.equal(other.sha256, undefined);
		assert.ok(other.mtime > 0);
		assert.deepEqual(examine({ abs: join(root, 'nope.txt'), size: 1, cost: 2 }, budget()), { kind: 'missing' });
		assert.deepEqual(examine({ abs: join(root, 'small.txt', 'below'), size: 1, cost: 2 }, budget()), { kind: 'missing' });
		assert.deepEqual(examine({ abs: join(root, 'dir'), size: 1, cost: 2 }, budget()), { kind: 'other' });
		assert.deepEqual(examine({ abs: join(root, 'link.txt'), size: 7, cost: 14 }, budget()), { kind: 'symlink' });
	});

	test('a named pipe is answered at once as not a regular file (never waits for a writer)', function () {
		if (process.platform === 'win32') {
			this.skip();
		}
		const fifo = join(root, 'pipe');
		execFileSync('mkfifo', [fifo]);
		const t0 = Date.now();
		assert.deepEqual(examine({ abs: fifo, size: 0, cost: 0 }, budget()), { kind: 'other' });
		assert.ok(Date.now() - t0 < 2_000);
	});

	test('the byte budget: a hash that would pass it is not made (overBytes), and takes nothing from it', () => {
		const b = { left: 12 };
		const first = examine({ abs: join(root, 'small.txt'), size: 5, cost: 10 }, b);
		assert.equal((first as Extract<LocalAnswer, { kind: 'file' }>).sha256, sha('hello'));
		assert.equal(b.left, 2);
		const second = examine({ abs: join(root, 'small.txt'), size: 5, cost: 10 }, b);
		assert.equal((second as Extract<LocalAnswer, { kind: 'file' }>).overBytes, true);
		assert.equal((second as Extract<LocalAnswer, { kind: 'file' }>).sha256, undefined);
		assert.equal(b.left, 2);
	});

	test('in its thread: batches answered in order, the budget kept across batches, then stopped', async () => {
		const side = new LocalSide(25);
		try {
			const a = side.examine([
				{ abs: join(root, 'small.txt'), size: 5, cost: 10 },
				{ abs: join(root, 'nope.txt'), size: 5, cost: 10 },
			]);
			const b = side.examine([
				{ abs: join(root, 'small.txt'), size: 5, cost: 10 },
				{ abs: join(root, 'small.txt'), size: 5, cost: 10 },
			]);
			const [first, second] = await Promise.all([a, b]);
			assert.deepEqual(
				first.map((x) => x.kind),
				['file', 'missing'],
			);
			assert.equal((first[0] as Extract<LocalAnswer, { kind: 'file' }>).sha256, sha('hello'));
			assert.equal((second[0] as Extract<LocalAnswer, { kind: 'file' }>).sha256, sha('hello'));
			assert.equal((second[1] as Extract<LocalAnswer, { kind: 'file' }>).overBytes, true, 'the third hash would pass 25 bytes');
			assert.ok(side.heapPeak > 0, 'the worker reports its heap with each batch');
		} finally {
			await side.close();
		}
		await assert.rejects(side.examine([{ abs: join(root, 'small.txt'), size: 5, cost: 10 }]), /ended/);
	});

	test('cancel: a batch not answered yet is rejected with the AbortError and the thread stops', async () => {
		const ac = new AbortController();
		const side = new LocalSide(1 << 30, ac.signal);
		const jobs = Array.from({ length: 2000 }, () => ({ abs: join(root, 'big.bin'), size: big.byteLength, cost: 0 }));
		const pending = side.examine(jobs);
		ac.abort();
		await assert.rejects(pending, { name: 'AbortError' });
		await side.close();
	});
});
