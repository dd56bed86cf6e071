/**
 * The one set of rules for reading a local file (src/platform/node/fileRead.ts): no symbolic link
 * followed, regular files only (checked on the open descriptor), bounded chunked reads with the
 * short-read rule, the descriptor always closed; through the asynchronous driver (hashLocalFile),
 * the synchronous one (readSmallTextFile; the worker's examine: compareWorker.test.ts), and the
 * steps themselves run against a stand-in file system.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	type FileCall,
	type FileSteps,
	NotRegularFileError,
	hashLocalFile,
	hashOpenFile,
	readSmallTextFile,
	withRegularFile,
} from '../../../../src/platform/node/fileRead';
import { UnsafePathError } from '../../../../src/util/paths';

const sha = (bytes: Buffer | string): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Runs reading steps against one stand-in file: fstat reports `statSize`, reads serve `content`
 * (another length: a file that grew or shrank after its fstat). Records every call.
 */
function runOnStandIn<T>(
	steps: FileSteps<T>,
	content: Buffer,
	statSize = content.byteLength,
	failRead = false,
): { value?: T; error?: unknown; calls: string[] } {
	const calls: string[] = [];
	let next = steps.next();
	try {
		while (!next.done) {
			const c: FileCall = next.value;
			calls.push(c.call === 'read' ? `read ${c.position}+${c.length}` : c.call);
			let result: unknown;
			try {
				if (c.call === 'read') {
					if (failRead) {
						throw Object.assign(new Error('EIO'), { code: 'EIO' });
					}
					const n = Math.max(0, Math.min(c.length, content.byteLength - c.position));
					content.copy(c.buffer, 0, c.position, c.position + n);
					result = n;
				} else if (c.call === 'fstat') {
					result = { isFile: () => true, size: statSize, mtimeMs: 7 };
				} else if (c.call === 'lstat') {
					result = { isFile: () => true, isSymbolicLink: () => false };
				} else if (c.call === 'open') {
					result = 3;
				}
			} catch (err) {
				next = steps.throw(err);
				continue;
			}
			next = steps.next(result);
		}
		return { value: next.value, calls };
	} catch (error) {
		return { error, calls };
	}
}

const opened = (calls: string[]): string[] => calls.filter((c) => c !== 'lstat'); // lstat only where there is no O_NOFOLLOW

suite('compare/fileRead: the reading rules (stand-in file system)', () => {
	const hashOf = (content: Buffer, statSize?: number, failRead?: boolean) =>
		runOnStandIn(
			withRegularFile('/x', (file) => hashOpenFile(file)),
			content,
			statSize,
			failRead,
		);

	test('a small file in one read of size + 1 bytes: the short read at the fstat size is the end', () => {
		const r = hashOf(Buffer.from('hello'));
		assert.deepEqual(r.value, { sha256: sha('hello'), size: 5 });
		assert.deepEqual(opened(r.calls), ['open', 'fstat', 'read 0+6', 'close']);
		const empty = hashOf(Buffer.alloc(0));
		assert.deepEqual(empty.value, { sha256: sha(''), size: 0 });
		assert.deepEqual(opened(empty.calls), ['open', 'fstat', 'read 0+1', 'close']);
	});

	test('a larger file in chunks of 256 KiB; a read that fills its chunk at the size asks once more', () => {
		const k = 256 * 1024;
		const larger = Buffer.alloc(k + 10, 1);
		const r = hashOf(larger);
		assert.deepEqual(r.value, { sha256: sha(larger), size: k + 10 });
		assert.deepEqual(opened(r.calls), ['open', 'fstat', `read 0+${k}`, `read ${k}+${k}`, 'close']);
		const exact = Buffer.alloc(k, 2);
		assert.deepEqual(opened(hashOf(exact).calls), ['open', 'fstat', `read 0+${k}`, `read ${k}+${k}`, 'close']);
	});

	test('a file that grew after its fstat is read to its end; one that shrank, to its new end', () => {
		const grown = hashOf(Buffer.from('hello world'), 5);
		assert.deepEqual(grown.value, { sha256: sha('hello world'), size: 11 });
		const shrunk = hashOf(Buffer.from('hello'), 10);
		assert.deepEqual(shrunk.value, { sha256: sha('hello'), size: 5 });
		assert.deepEqual(opened(shrunk.calls), ['open', 'fstat', 'read 0+11', 'read 5+11', 'close']);
	});

	test("the descriptor is closed when a read fails, and the error is the read's", () => {
		const r = hashOf(Buffer.from('hello'), 5, true);
		assert.equal((r.error as { code?: string }).code, 'EIO');
		assert.deepEqual(opened(r.calls), ['open', 'fstat', 'read 0+6', 'close']);
	});
});

suite('compare/fileRead: local files (both drivers)', () => {
	let dir: string;
	let root: string;

	suiteSetup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-compare-fileread-'));
		root = join(dir, 'root');
		await mkdir(join(root, 'sub'), { recursive: true });
		await mkdir(join(dir, 'outside'), { recursive: true });
		await writeFile(join(root, 'sub', 'f.txt'), 'hello');
		await writeFile(join(dir, 'outside', 'secret.txt'), 'secret');
		await symlink(join(dir, 'outside', 'secret.txt'), join(root, 'sub', 'link.txt'), 'file');
	});
	suiteTeardown(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test('hashLocalFile hashes a regular file; a symbolic link is not followed; a folder is not a regular file', async () => {
		const h = await hashLocalFile(join(root, 'sub', 'f.txt'));
		assert.deepEqual(h, { sha256: sha('hello'), size: 5 });
		await assert.rejects(
			hashLocalFile(join(root, 'sub', 'link.txt')),
			(err: unknown) => err instanceof NotRegularFileError && err.kind === 'symlink',
		);
		await assert.rejects(
			hashLocalFile(join(root, 'sub')),
			(err: unknown) => err instanceof UnsafePathError && (err as NotRegularFileError).kind === 'other',
		);
	});

	test('hashLocalFile: an empty file, files around the one-read sizes and a larger one hash as their bytes', async () => {
		for (const size of [0, 64 * 1024, 64 * 1024 + 1, 256 * 1024, 700 * 1024]) {
			const bytes = Buffer.alloc(size, size % 251);
			const file = join(root, `size-${size}.bin`);
			await writeFile(file, bytes);
			assert.deepEqual(await hashLocalFile(file), { sha256: sha(bytes), size }, `${size} bytes`);
		}
	});

	test('hashLocalFile and readSmallTextFile refuse a named pipe at once (never wait for a writer)', async function () {
		if (process.platform === 'win32') {
			this.skip();
		}
		const fifo = join(root, 'pipe');
		execFileSync('mkfifo', [fifo]);
		const t0 = Date.now();
		await assert.rejects(hashLocalFile(fifo), UnsafePathError);
		assert.equal(readSmallTextFile(fifo, 100), undefined);
		assert.ok(Date.now() - t0 < 2_000);
	});

	test('hashLocalFile: an aborted signal throws the AbortError', async () => {
		const ac = new AbortController();
		ac.abort();
		await assert.rejects(hashLocalFile(join(root, 'sub', 'f.txt'), ac.signal), { name: 'AbortError' });
	});

	test('readSmallTextFile: the text of a regular file within the bound; nothing for a larger one, a link, a folder, a missing path', () => {
		assert.equal(readSmallTextFile(join(root, 'sub', 'f.txt'), 5), 'hello');
		assert.equal(readSmallTextFile(join(root, 'sub', 'f.txt'), 4), undefined);
		assert.equal(readSmallTextFile(join(root, 'sub', 'link.txt'), 100), undefined);
		assert.equal(readSmallTextFile(join(root, 'sub'), 100), undefined);
		assert.equal(readSmallTextFile(join(root, 'nope'), 100), undefined);
	});
});
