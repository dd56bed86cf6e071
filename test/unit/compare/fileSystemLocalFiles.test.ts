/**
 * A local folder through a file system of VS Code's shape (src/compare/fileSystemLocalFiles.ts),
 * over an in-memory stand-in for `vscode.workspace.fs` (its rules: a stat follows a symbolic link
 * and marks it, a file is read whole) whose sizes, errors and timing each test sets, and once over a
 * temporary folder of this machine (test/unit/support/localFolders.ts): what each path is, links
 * never read or walked into, hostile names refused before the file system is asked, the write
 * check, and the comparison's side (byte budget in job order, whole reads bounded, batches in order,
 * close and cancel).
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
	FS_CONCURRENCY,
	FS_TYPE,
	FileSystemLocalFiles,
	type FolderFileSystem,
	MAX_WHOLE_READ,
} from '../../../src/compare/fileSystemLocalFiles';
import { type LocalAnswer, type LocalEntry, NotRegularFileError } from '../../../src/compare/localFiles';
import { UnsafePathError } from '../../../src/util/paths';
import { diskFolderFileSystem } from '../support/localFolders';

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');
const MTIME = 1_760_000_000_000;

/** One node of the in-memory folder. */
type Node =
	| { dir: true }
	| { file: Buffer; mtime?: number; statSize?: number }
	| { link: 'file' | 'directory' | 'dangling' }
	| { other: true }
	| { error: string };

/** Names no relative path of a comparison may be: each is refused before the file system is asked. */
const HOSTILE = ['', '.', '..', '../x', 'a/../../x', 'a/./b', '/etc/passwd', 'a//b', 'a/', 'a\\b', 'a\u0000b', 'a\nb', 'a\u007fb', 'C:x'];

/**
 * `vscode.workspace.fs` in memory over `tree` (relative path → node; the root always a folder).
 * `calls` counts every call by kind; `gate` (when set) holds a read of a path until its promise settles.
 */
function memoryFs(tree: Record<string, Node>) {
	const calls = { stat: 0, readDirectory: 0, readFile: 0 };
	const gates = new Map<string, Promise<void>>();
	let inFlight = 0;
	let maxInFlight = 0;
	const fail = (code: string, rel: string): never => {
		throw Object.assign(new Error(`${code}: ${rel}`), { code });
	};
	const nodeOf = (rel: string): Node => {
		if (rel === '') {
			return { dir: true };
		}
		const node = tree[rel];
		if (!node) {
			return fail('ENOENT', rel);
		}
		if ('error' in node) {
			return fail(node.error, rel);
		}
		return node;
	};
	const typeOf = (node: Node): number => {
		if ('link' in node) {
			return FS_TYPE.symbolicLink | (node.link === 'file' ? FS_TYPE.file : node.link === 'directory' ? FS_TYPE.directory : 0);
		}
		return 'dir' in node ? FS_TYPE.directory : 'file' in node ? FS_TYPE.file : 0;
	};
	const track = async <T>(work: () => T | Promise<T>): Promise<T> => {
		inFlight++;
		maxInFlight = Math.max(maxInFlight, inFlight);
		try {
			await Promise.resolve();
			return await work();
		} finally {
			inFlight--;
		}
	};
	const fs: FolderFileSystem = {
		stat: (rel) =>
			track(() => {
				calls.stat++;
				const node = nodeOf(rel);
				const size = 'file' in node ? (node.statSize ?? node.file.byteLength) : 0;
				return { type: typeOf(node), size, mtime: 'file' in node ? (node.mtime ?? MTIME) : MTIME };
			}),
		readDirectory: (rel) =>
			track(() => {
				calls.readDirectory++;
				if (!('dir' in nodeOf(rel))) {
					fail('ENOTDIR', rel);
				}
				const prefix = rel === '' ? '' : `${rel}/`;
				return Object.keys(tree)
					.filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
					.map((p): [string, number] => [p.slice(prefix.length), 'error' in tree[p]! ? 0 : typeOf(tree[p]!)]);
			}),
		readFile: (rel) =>
			track(async () => {
				calls.readFile++;
				await gates.get(rel);
				const node = nodeOf(rel);
				if ('link' in node) {
					throw new Error(`the test's file system was asked to read the link ${rel}`);
				}
				if (!('file' in node)) {
					return fail('EISDIR', rel);
				}
				return new Uint8Array(node.file);
			}),
		isMissing: (err) => ['ENOENT', 'ENOTDIR'].includes(String((err as { code?: unknown } | null)?.code)),
	};
	return { fs, calls, gates, maxInFlight: () => maxInFlight };
}

async function entries(list: AsyncIterable<LocalEntry> | undefined): Promise<LocalEntry[] | undefined> {
	if (!list) {
		return undefined;
	}
	const out: LocalEntry[] = [];
	for await (const e of list) {
		out.push(e);
	}
	return out.sort((a, b) => a.name.localeCompare(b.name));
}

const fileAnswer = (a: LocalAnswer | undefined): Extract<LocalAnswer, { kind: 'file' }> => {
	assert.equal(a?.kind, 'file', JSON.stringify(a));
	return a;
};

const TREE: Record<string, Node> = {
	'a.txt': { file: Buffer.from('hello'), mtime: MTIME + 5 },
	src: { dir: true },
	'src/b.ts': { file: Buffer.from('export {};\n') },
	'src/deep': { dir: true },
	'link.txt': { link: 'file' },
	linkdir: { link: 'directory' },
	dangling: { link: 'dangling' },
	fifo: { other: true },
	'locked.txt': { error: 'EACCES' },
};

suite('compare/fileSystemLocalFiles: paths', () => {
	test('stat: a file’s size and mtime; a folder; a link (to a file, a folder or nothing) as a link; anything else; missing', async () => {
		const files = new FileSystemLocalFiles(memoryFs(TREE).fs);
		assert.deepEqual(await files.stat('a.txt'), { kind: 'file', size: 5, mtime: MTIME + 5 });
		assert.deepEqual(await files.stat('src'), { kind: 'directory' });
		for (const rel of ['link.txt', 'linkdir', 'dangling']) {
			assert.deepEqual(await files.stat(rel), { kind: 'symlink' }, rel);
		}
		assert.deepEqual(await files.stat('fifo'), { kind: 'other' });
		assert.deepEqual(await files.stat('nope.txt'), { kind: 'missing' });
		assert.deepEqual(await files.stat('a.txt/under-a-file'), { kind: 'missing' });
	});

	test('stat: a failure that is not "missing" is passed on', async () => {
		const files = new FileSystemLocalFiles(memoryFs(TREE).fs);
		await assert.rejects(files.stat('locked.txt'), { code: 'EACCES' });
	});

	test('every operation refuses a hostile relative path before the file system is asked', async () => {
		const m = memoryFs(TREE);
		const files = new FileSystemLocalFiles(m.fs);
		for (const rel of HOSTILE) {
			const label = JSON.stringify(rel);
			await assert.rejects(files.stat(rel), UnsafePathError, label);
			await assert.rejects(files.read(rel), UnsafePathError, label);
			await assert.rejects(files.hash(rel), UnsafePathError, label);
			await assert.rejects(files.checkWrite(rel), UnsafePathError, label);
			assert.equal(await files.readSmallText(rel, 100), undefined, label);
			if (rel !== '') {
				await assert.rejects(files.list(rel), UnsafePathError, label);
			}
		}
		assert.deepEqual(m.calls, { stat: 0, readDirectory: 0, readFile: 0 });
	});

	test('a very long name is passed to the file system as it is (its own limits apply), not cut or refused here', async () => {
		const long = 'n'.repeat(10_000);
		const files = new FileSystemLocalFiles(memoryFs({ [long]: { file: Buffer.from('x') } }).fs);
		assert.equal((await files.stat(long)).kind, 'file');
		assert.equal(await files.readSmallText(long, 10), 'x');
	});

	test('list: the folder’s entries with their kinds (links marked, never followed); the root is ""', async () => {
		const files = new FileSystemLocalFiles(memoryFs(TREE).fs);
		assert.deepEqual(await entries(await files.list('')), [
			{ name: 'a.txt', kind: 'file' },
			{ name: 'dangling', kind: 'symlink' },
			{ name: 'fifo', kind: 'other' },
			{ name: 'link.txt', kind: 'symlink' },
			{ name: 'linkdir', kind: 'symlink' },
			{ name: 'locked.txt', kind: 'other' },
			{ name: 'src', kind: 'directory' },
		]);
		assert.deepEqual(await entries(await files.list('src')), [
			{ name: 'b.ts', kind: 'file' },
			{ name: 'deep', kind: 'directory' },
		]);
	});

	test('list: a link to a folder is not walked into; a file, a missing folder: undefined', async () => {
		const m = memoryFs(TREE);
		const files = new FileSystemLocalFiles(m.fs);
		for (const rel of ['linkdir', 'a.txt', 'nope', 'fifo', 'a.txt/x']) {
			assert.equal(await files.list(rel), undefined, rel);
		}
		assert.equal(m.calls.readDirectory, 0, 'none of them listed');
		await assert.rejects(files.list('locked.txt'), { code: 'EACCES' });
	});

	test('read: a file’s bytes; a link or anything else is a NotRegularFileError, never read; missing is ENOENT', async () => {
		const m = memoryFs(TREE);
		const files = new FileSystemLocalFiles(m.fs);
		assert.equal(Buffer.from(await files.read('src/b.ts')).toString(), 'export {};\n');
		for (const [rel, kind] of [
			['link.txt', 'symlink'],
			['linkdir', 'symlink'],
			['dangling', 'symlink'],
			['src', 'other'],
			['fifo', 'other'],
		] as const) {
			await assert.rejects(
				files.read(rel),
				(err: unknown) =>
					err instanceof NotRegularFileError && err instanceof UnsafePathError && err.kind === kind && err.path === rel,
				rel,
			);
			await assert.rejects(files.hash(rel), NotRegularFileError, rel);
		}
		await assert.rejects(
			files.read('nope.txt'),
			(err: unknown) => (err as { code?: string }).code === 'ENOENT' && /nope\.txt/.test(String(err)),
		);
		assert.equal(m.calls.readFile, 1, 'only the regular file was read');
	});

	test(`read and hash: a file larger than ${MAX_WHOLE_READ / 2 ** 20} MiB is refused, not read whole; one at the limit is read`, async () => {
		const m = memoryFs({
			'huge.bin': { file: Buffer.from('x'), statSize: MAX_WHOLE_READ + 1 },
			'edge.bin': { file: Buffer.from('y'), statSize: MAX_WHOLE_READ },
		});
		const files = new FileSystemLocalFiles(m.fs);
		await assert.rejects(files.read('huge.bin'), (err: unknown) => err instanceof UnsafePathError && /64 MiB/.test(err.message));
		await assert.rejects(files.hash('huge.bin'), UnsafePathError);
		assert.equal(m.calls.readFile, 0);
		assert.equal((await files.read('edge.bin')).byteLength, 1);
	});

	test('hash: the SHA-256 and size of the bytes read; an aborted signal, before or during the read, is an AbortError', async () => {
		const m = memoryFs(TREE);
		const files = new FileSystemLocalFiles(m.fs);
		assert.deepEqual(await files.hash('a.txt'), { sha256: sha('hello'), size: 5 });
		const before = new AbortController();
		before.abort();
		const calls = m.calls.stat;
		await assert.rejects(files.hash('a.txt', before.signal), { name: 'AbortError' });
		assert.equal(m.calls.stat, calls, 'nothing asked');
		const during = new AbortController();
		let release!: () => void;
		m.gates.set('a.txt', new Promise<void>((r) => (release = r)));
		const pending = files.hash('a.txt', during.signal);
		during.abort();
		release();
		await assert.rejects(pending, { name: 'AbortError' });
	});

	test('readSmallText: the text of a file of at most max bytes; otherwise, or when unreadable, undefined', async () => {
		const m = memoryFs({
			...TREE,
			'utf8.txt': { file: Buffer.from('ünï ✓') },
			'grew.txt': { file: Buffer.from('0123456789'), statSize: 3 },
		});
		const files = new FileSystemLocalFiles(m.fs);
		assert.equal(await files.readSmallText('a.txt', 5), 'hello');
		assert.equal(await files.readSmallText('utf8.txt', 100), 'ünï ✓');
		const reads = m.calls.readFile;
		assert.equal(await files.readSmallText('a.txt', 4), undefined);
		assert.equal(m.calls.readFile, reads, 'too large by its stat: not read');
		assert.equal(await files.readSmallText('grew.txt', 5), undefined, 'larger when read than its stat said');
		for (const rel of ['link.txt', 'src', 'nope.txt', 'fifo', 'locked.txt']) {
			assert.equal(await files.readSmallText(rel, 1000), undefined, rel);
		}
	});

	test('checkWrite: a new or existing path under real folders passes; a link as target or on the way, a file on the way, refused', async () => {
		const files = new FileSystemLocalFiles(
			memoryFs({ ...TREE, 'linkdir/x.txt': { file: Buffer.from('through the link') }, 'src/deep/c.txt': { file: Buffer.from('c') } })
				.fs,
		);
		for (const rel of ['a.txt', 'src/b.ts', 'src/deep/c.txt', 'new.txt', 'src/new/deeper/d.txt', 'missing/x']) {
			await files.checkWrite(rel);
		}
		const refusals: Array<[string, RegExp]> = [
			['link.txt', /the target is a symbolic link/],
			['dangling', /the target is a symbolic link/],
			['linkdir', /the target is a symbolic link/],
			['linkdir/x.txt', /a folder on the way is a symbolic link/],
			['linkdir/new/y.txt', /a folder on the way is a symbolic link/],
			['a.txt/x', /not a folder/],
			['fifo/x', /not a folder/],
		];
		for (const [rel, why] of refusals) {
			await assert.rejects(files.checkWrite(rel), (err: unknown) => err instanceof UnsafePathError && why.test(err.message), rel);
		}
		await assert.rejects(files.checkWrite('locked.txt/x'), { code: 'EACCES' });
	});
});

suite('compare/fileSystemLocalFiles: the comparison’s side', () => {
	test('each job: a file of the agent-side size hashed; another size only its facts; a folder is other; a link never read', async () => {
		const m = memoryFs(TREE);
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30);
		const answers = await side.examine([
			{ rel: 'a.txt', size: 5, cost: 10 },
			{ rel: 'src/b.ts', size: 999, cost: 10 },
			{ rel: 'src', size: 1, cost: 1 },
			{ rel: 'link.txt', size: 0, cost: 1 },
			{ rel: 'nope.txt', size: 1, cost: 1 },
			{ rel: 'fifo', size: 0, cost: 1 },
		]);
		assert.deepEqual(answers, [
			{ kind: 'file', size: 5, mtime: MTIME + 5, sha256: sha('hello') },
			{ kind: 'file', size: 11, mtime: MTIME },
			{ kind: 'other' },
			{ kind: 'symlink' },
			{ kind: 'missing' },
			{ kind: 'other' },
		]);
		assert.equal(m.calls.readFile, 1);
		assert.equal(side.heapPeak, 0, 'no worker thread');
		await side.close();
	});

	test('a job with a hostile path or an unreadable file is an error answer (with its code); the others are still answered', async () => {
		const side = new FileSystemLocalFiles(memoryFs(TREE).fs).examiner(1 << 30);
		const answers = await side.examine([
			{ rel: '../escape', size: 1, cost: 1 },
			{ rel: 'locked.txt', size: 1, cost: 1 },
			{ rel: 'a.txt', size: 5, cost: 1 },
		]);
		assert.equal(answers[0]?.kind, 'error');
		assert.match((answers[0] as { message: string }).message, /Unsafe path/);
		assert.deepEqual(answers[1], { kind: 'error', code: 'EACCES', message: 'EACCES: locked.txt' });
		assert.equal(fileAnswer(answers[2]).sha256, sha('hello'));
	});

	test('a file gone between its stat and its read is missing; one that failed is an error; one that grew is what was read', async () => {
		const tree: Record<string, Node> = {
			'goes.txt': { file: Buffer.from('a') },
			'fails.txt': { file: Buffer.from('b') },
			'grows.txt': { file: Buffer.from('cc'), statSize: 1 },
		};
		const m = memoryFs(tree);
		let release!: () => void;
		const gate = new Promise<void>((r) => (release = r));
		m.gates.set('goes.txt', gate);
		m.gates.set('fails.txt', gate);
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30);
		const pending = side.examine([
			{ rel: 'goes.txt', size: 1, cost: 1 },
			{ rel: 'fails.txt', size: 1, cost: 1 },
			{ rel: 'grows.txt', size: 1, cost: 1 },
		]);
		while (m.calls.readFile < 2) {
			await new Promise((r) => setImmediate(r));
		}
		delete tree['goes.txt'];
		tree['fails.txt'] = { error: 'EIO' };
		release();
		const answers = await pending;
		assert.deepEqual(answers[0], { kind: 'missing' });
		assert.equal(answers[1]?.kind, 'error');
		assert.equal((answers[1] as { code?: string }).code, 'EIO');
		assert.deepEqual(fileAnswer(answers[2]).size, 2);
		assert.equal(fileAnswer(answers[2]).sha256, sha('cc'));
	});

	test('the byte budget is taken in job order across batches: a hash that would pass it is overBytes, and takes nothing', async () => {
		const m = memoryFs({ 'a.txt': { file: Buffer.from('hello') }, 'b.txt': { file: Buffer.from('world') } });
		const side = new FileSystemLocalFiles(m.fs).examiner(25);
		const first = await side.examine([
			{ rel: 'a.txt', size: 5, cost: 10 },
			{ rel: 'b.txt', size: 5, cost: 20 },
			{ rel: 'b.txt', size: 5, cost: 10 },
		]);
		assert.equal(fileAnswer(first[0]).sha256, sha('hello'));
		assert.equal(fileAnswer(first[1]).overBytes, true);
		assert.equal(fileAnswer(first[1]).sha256, undefined);
		assert.equal(fileAnswer(first[2]).sha256, sha('world'), 'the job after an overBytes one still fits');
		const second = await side.examine([
			{ rel: 'a.txt', size: 5, cost: 6 },
			{ rel: 'a.txt', size: 5, cost: 5 },
			{ rel: 'a.txt', size: 5, cost: 0 },
		]);
		assert.equal(fileAnswer(second[0]).overBytes, true);
		assert.equal(fileAnswer(second[1]).sha256, sha('hello'), 'exactly the 5 bytes left');
		assert.equal(fileAnswer(second[2]).sha256, sha('hello'), 'a hash of no cost (reused) is always made');
		assert.equal(m.calls.readFile, 4);
	});

	test(`a file over ${MAX_WHOLE_READ / 2 ** 20} MiB is tooLarge, not read, and takes nothing from the budget`, async () => {
		const m = memoryFs({
			'huge.bin': { file: Buffer.from('x'), statSize: MAX_WHOLE_READ + 1 },
			'a.txt': { file: Buffer.from('hello') },
		});
		const side = new FileSystemLocalFiles(m.fs).examiner(10);
		const answers = await side.examine([
			{ rel: 'huge.bin', size: MAX_WHOLE_READ + 1, cost: 10 },
			{ rel: 'a.txt', size: 5, cost: 10 },
		]);
		assert.equal(fileAnswer(answers[0]).tooLarge, true);
		assert.equal(fileAnswer(answers[0]).sha256, undefined);
		assert.equal(fileAnswer(answers[1]).sha256, sha('hello'));
		assert.equal(m.calls.readFile, 1);
	});

	test(`at most ${FS_CONCURRENCY} file-system calls at once, however large the batch`, async () => {
		const tree: Record<string, Node> = {};
		for (let i = 0; i < 100; i++) {
			tree[`f${i}.txt`] = { file: Buffer.from(String(i)) };
		}
		const m = memoryFs(tree);
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30);
		const answers = await side.examine(Object.keys(tree).map((rel, i) => ({ rel, size: String(i).length, cost: 1 })));
		assert.equal(answers.length, 100);
		answers.forEach((a, i) => assert.equal(fileAnswer(a).sha256, sha(String(i))));
		assert.ok(m.maxInFlight() <= FS_CONCURRENCY, `${m.maxInFlight()} at once`);
		assert.ok(m.maxInFlight() > 1, 'the calls of a batch overlap');
	});

	test('batches are answered in the order given, a later one waiting for an earlier one held up', async () => {
		const m = memoryFs({ 'slow.txt': { file: Buffer.from('slow') }, 'fast.txt': { file: Buffer.from('fast') } });
		let release!: () => void;
		m.gates.set('slow.txt', new Promise<void>((r) => (release = r)));
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30);
		const order: string[] = [];
		const first = side.examine([{ rel: 'slow.txt', size: 4, cost: 1 }]).then((a) => (order.push('first'), a));
		const second = side.examine([{ rel: 'fast.txt', size: 4, cost: 1 }]).then((a) => (order.push('second'), a));
		while (m.calls.readFile < 1) {
			await new Promise((r) => setImmediate(r));
		}
		assert.equal(m.calls.stat, 1, 'the second batch has not started');
		release();
		const [a, b] = await Promise.all([first, second]);
		assert.deepEqual(order, ['first', 'second']);
		assert.equal(fileAnswer(a[0]).sha256, sha('slow'));
		assert.equal(fileAnswer(b[0]).sha256, sha('fast'));
	});

	test('cancelled while a batch is read: that batch and every later one are rejected with the AbortError', async () => {
		const m = memoryFs({ 'a.txt': { file: Buffer.from('hello') } });
		const ac = new AbortController();
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30, ac.signal);
		let release!: () => void;
		m.gates.set('a.txt', new Promise<void>((r) => (release = r)));
		const first = side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]);
		while (m.calls.readFile < 1) {
			await new Promise((r) => setImmediate(r));
		}
		ac.abort();
		release();
		await assert.rejects(first, { name: 'AbortError' });
		await assert.rejects(side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]), { name: 'AbortError' }, 'cancelled for good');
		assert.equal(m.calls.readFile, 1);
	});

	test('close: a batch not answered yet and every later one are rejected', async () => {
		const m = memoryFs({ 'a.txt': { file: Buffer.from('hello') } });
		let release!: () => void;
		m.gates.set('a.txt', new Promise<void>((r) => (release = r)));
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30);
		const pending = side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]);
		while (m.calls.readFile < 1) {
			await new Promise((r) => setImmediate(r));
		}
		await side.close();
		release();
		await assert.rejects(pending, /the comparison ended/);
		const reads = m.calls.stat;
		await assert.rejects(side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]), /the comparison ended/);
		assert.equal(m.calls.stat, reads, 'nothing asked after close');
	});

	test('an already aborted signal: the first batch is rejected with the AbortError before the file system is asked', async () => {
		const m = memoryFs({ 'a.txt': { file: Buffer.from('hello') } });
		const ac = new AbortController();
		ac.abort(new Error('user cancelled'));
		const side = new FileSystemLocalFiles(m.fs).examiner(1 << 30, ac.signal);
		await assert.rejects(side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]), { name: 'AbortError' });
		assert.deepEqual(m.calls, { stat: 0, readDirectory: 0, readFile: 0 });
	});
});

suite('compare/fileSystemLocalFiles: a folder of this machine', () => {
	let dir: string;
	setup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-fslocal-'));
		await mkdir(join(dir, 'root', 'sub'), { recursive: true });
		await writeFile(join(dir, 'outside.txt'), 'secret');
		await writeFile(join(dir, 'root', 'sub', 'f.txt'), 'inside');
		await symlink(join(dir, 'outside.txt'), join(dir, 'root', 'out-link.txt'));
		await symlink(dir, join(dir, 'root', 'up'), 'dir');
	});
	teardown(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test('links out of the folder are reported as links: never read, hashed, listed into or written through', async () => {
		const fs = diskFolderFileSystem(join(dir, 'root'));
		const files = new FileSystemLocalFiles(fs);
		assert.deepEqual(await entries(await files.list('')), [
			{ name: 'out-link.txt', kind: 'symlink' },
			{ name: 'sub', kind: 'directory' },
			{ name: 'up', kind: 'symlink' },
		]);
		assert.equal(await files.list('up'), undefined);
		await assert.rejects(files.read('out-link.txt'), NotRegularFileError);
		// A file reached through a link on the way is outside the folder: its bytes would leave the
		// machine with Send to Agent.
		await assert.rejects(files.read('up/outside.txt'), /a folder on the way is a symbolic link/);
		assert.equal(await files.readSmallText('out-link.txt', 100), undefined);
		await assert.rejects(files.checkWrite('up/outside.txt'), /a folder on the way is a symbolic link/);
		await assert.rejects(files.checkWrite('out-link.txt'), /the target is a symbolic link/);
		const side = files.examiner(1 << 30);
		const answers = await side.examine([
			{ rel: 'out-link.txt', size: 6, cost: 1 },
			{ rel: 'sub/f.txt', size: 6, cost: 1 },
		]);
		assert.deepEqual(answers[0], { kind: 'symlink' });
		assert.equal(fileAnswer(answers[1]).sha256, sha('inside'));
	});
});
