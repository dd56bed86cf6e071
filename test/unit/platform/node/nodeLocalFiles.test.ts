/**
 * A local folder through Node (src/platform/node/nodeLocalFiles.ts), each test on a fresh temporary
 * folder of this machine: what each path is (never following a link at the end of it), listings with
 * the names as they are on disk, reads and hashes of regular files only, the small-text read, the
 * write check (no link as target or on the way), hostile names refused before the disk is touched,
 * and the comparison's side in its worker thread. `localPathOf` and `assertSafeLocalWrite` on their
 * own: util/localPaths.test.ts.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalAnswer, type LocalEntry, NotRegularFileError } from '../../../../src/compare/localFiles';
import { NodeLocalFiles } from '../../../../src/platform/node/nodeLocalFiles';
import { UnsafePathError } from '../../../../src/util/paths';

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** Names no relative path of a comparison may be. */
const HOSTILE = ['', '.', '..', '../x', 'a/../../x', 'a/./b', '/etc/passwd', 'a//b', 'a/', 'a\\b', 'a\u0000b', 'a\nb', 'a\u001bb', 'C:x'];

/** What `work` did, thrown synchronously or rejected alike: the value, or the error. */
async function outcome<T>(work: () => T | Promise<T>): Promise<{ value?: T; error?: unknown }> {
	try {
		return { value: await work() };
	} catch (error) {
		return { error };
	}
}

async function entries(list: AsyncIterable<LocalEntry> | undefined): Promise<LocalEntry[] | undefined> {
	if (!list) {
		return undefined;
	}
	const out: LocalEntry[] = [];
	for await (const e of list) {
		out.push(e);
	}
	return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

suite('platform/node/nodeLocalFiles', () => {
	let dir: string;
	let root: string;
	let files: NodeLocalFiles;
	const big = Buffer.alloc(3 * 256 * 1024 + 17);
	for (let i = 0; i < big.length; i++) {
		big[i] = (i * 7) & 0xff;
	}

	setup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-nodelocal-'));
		root = join(dir, 'root');
		await mkdir(join(root, 'sub', 'deeper'), { recursive: true });
		await writeFile(join(root, 'a.txt'), 'hello');
		await writeFile(join(root, 'empty.txt'), '');
		await writeFile(join(root, 'big.bin'), big);
		await writeFile(join(root, 'sub', 'b.ts'), 'export {};\n');
		await writeFile(join(dir, 'outside.txt'), 'secret');
		await symlink(join(dir, 'outside.txt'), join(root, 'out-link.txt'));
		await symlink(join(root, 'a.txt'), join(root, 'in-link.txt'));
		await symlink(join(dir, 'nowhere'), join(root, 'dangling'));
		await symlink(dir, join(root, 'up'), 'dir');
		files = new NodeLocalFiles(root);
	});
	teardown(async () => {
		await rm(dir, { recursive: true, force: true });
	});

	test('stat: a file’s size and mtime; a folder; every link as a link (never followed); missing, also under a file', async () => {
		const st = await files.stat('a.txt');
		assert.equal(st.kind, 'file');
		assert.equal((st as { size: number }).size, 5);
		assert.ok(Math.abs((st as { mtime: number }).mtime - Date.now()) < 10 * 60_000, 'an mtime in ms');
		assert.deepEqual(await files.stat('sub'), { kind: 'directory' });
		assert.deepEqual(await files.stat('sub/deeper'), { kind: 'directory' });
		for (const rel of ['out-link.txt', 'in-link.txt', 'dangling', 'up']) {
			assert.deepEqual(await files.stat(rel), { kind: 'symlink' }, rel);
		}
		assert.deepEqual(await files.stat('nope.txt'), { kind: 'missing' });
		assert.deepEqual(await files.stat('nope/deeper.txt'), { kind: 'missing' });
		assert.deepEqual(await files.stat('a.txt/under-a-file'), { kind: 'missing' });
	});

	test('stat and read: a named pipe is other, and is never waited on', async function () {
		if (process.platform === 'win32') {
			this.skip();
		}
		execFileSync('mkfifo', [join(root, 'pipe')]);
		assert.deepEqual(await files.stat('pipe'), { kind: 'other' });
		await assert.rejects(files.read('pipe'), (err: unknown) => err instanceof NotRegularFileError && err.kind === 'other');
		assert.equal(await files.readSmallText('pipe', 100), undefined);
	});

	test('every operation refuses a hostile relative path (UnsafePathError), reading nothing', async () => {
		for (const rel of HOSTILE) {
			const label = JSON.stringify(rel);
			const operations: Array<[string, () => Promise<unknown>]> = [
				['stat', () => files.stat(rel)],
				['read', () => files.read(rel)],
				['hash', () => files.hash(rel)],
				['checkWrite', () => files.checkWrite(rel)],
			];
			for (const [name, work] of operations) {
				const { error } = await outcome(work);
				assert.ok(error instanceof UnsafePathError, `${name} ${label}: ${String(error)}`);
			}
			const small = await outcome(() => files.readSmallText(rel, 100));
			assert.ok(
				small.error instanceof UnsafePathError || (small.error === undefined && small.value === undefined),
				`readSmallText ${label}`,
			);
			if (rel !== '') {
				assert.ok((await outcome(() => files.list(rel))).error instanceof UnsafePathError, `list ${label}`);
			}
		}
	});

	test('list: the entries of the folder and of a sub-folder, kinds as on disk, links marked', async () => {
		assert.deepEqual(await entries(await files.list('')), [
			{ name: 'a.txt', kind: 'file' },
			{ name: 'big.bin', kind: 'file' },
			{ name: 'dangling', kind: 'symlink' },
			{ name: 'empty.txt', kind: 'file' },
			{ name: 'in-link.txt', kind: 'symlink' },
			{ name: 'out-link.txt', kind: 'symlink' },
			{ name: 'sub', kind: 'directory' },
			{ name: 'up', kind: 'symlink' },
		]);
		assert.deepEqual(await entries(await files.list('sub')), [
			{ name: 'b.ts', kind: 'file' },
			{ name: 'deeper', kind: 'directory' },
		]);
		assert.deepEqual(await entries(await files.list('sub/deeper')), []);
	});

	test('list: names on disk come back as they are (spaces, a newline, non-ASCII, a long name), for the caller to check', async function () {
		if (process.platform === 'win32') {
			this.skip();
		}
		const names = [' spaced ', 'new\nline.txt', 'ünïcode ファイル.md', '-dash', `${'l'.repeat(250)}.txt`];
		for (const name of names) {
			await writeFile(join(root, 'sub', 'deeper', name), 'x');
		}
		const listed = await entries(await files.list('sub/deeper'));
		assert.deepEqual(listed?.map((e) => e.name).sort(), [...names].sort());
		assert.ok(listed?.every((e) => e.kind === 'file'));
	});

	test('list: a missing folder, a file, a path under a file, a link to a folder or a path through one: undefined', async () => {
		await mkdir(join(dir, 'beyond'), { recursive: true });
		await writeFile(join(dir, 'beyond', 'x.txt'), 'outside');
		for (const rel of ['nope', 'a.txt', 'a.txt/x', 'nope/deeper', 'up', 'up/beyond']) {
			assert.equal(await files.list(rel), undefined, rel);
		}
	});

	test('list: leaving a listing early is fine, and the folder can be listed again', async () => {
		const list = await files.list('');
		assert.ok(list);
		for await (const e of list) {
			assert.ok(e.name);
			break;
		}
		assert.equal((await entries(await files.list('')))?.length, 8);
	});

	test('read: the bytes of a regular file, empty, small and over several chunks', async () => {
		assert.equal(Buffer.from(await files.read('a.txt')).toString(), 'hello');
		assert.equal((await files.read('empty.txt')).byteLength, 0);
		const bytes = await files.read('big.bin');
		assert.equal(bytes.byteLength, big.byteLength);
		assert.ok(Buffer.from(bytes).equals(big));
	});

	test('read and hash: a link (to outside, inside, nowhere, a folder) or a folder is a NotRegularFileError; missing is ENOENT', async () => {
		for (const [rel, kind] of [
			['out-link.txt', 'symlink'],
			['in-link.txt', 'symlink'],
			['dangling', 'symlink'],
			['up', 'symlink'],
			['sub', 'other'],
		] as const) {
			const isIt = (err: unknown) => err instanceof NotRegularFileError && err instanceof UnsafePathError && err.kind === kind;
			await assert.rejects(files.read(rel), isIt, rel);
			await assert.rejects(files.hash(rel), isIt, rel);
		}
		await assert.rejects(files.read('nope.txt'), { code: 'ENOENT' });
		// Through a link on the way (`up` leads out of the folder): refused, not read (Send to Agent
		// would upload a file from outside the folder).
		await assert.rejects(
			files.read('up/outside.txt'),
			(err: unknown) => err instanceof UnsafePathError && /on the way is a symbolic link/.test(err.message),
		);
		await assert.rejects(files.hash('nope.txt'), { code: 'ENOENT' });
	});

	test('hash: the SHA-256 and size of the file; an aborted signal is an AbortError', async () => {
		assert.deepEqual(await files.hash('a.txt'), { sha256: sha('hello'), size: 5 });
		assert.deepEqual(await files.hash('empty.txt'), { sha256: sha(''), size: 0 });
		assert.deepEqual(await files.hash('big.bin'), { sha256: sha(big), size: big.byteLength });
		const ac = new AbortController();
		ac.abort();
		await assert.rejects(files.hash('big.bin', ac.signal), { name: 'AbortError' });
	});

	test('readSmallText: the UTF-8 text of a file of at most max bytes; larger, a link, a folder, missing: undefined', async () => {
		await writeFile(join(root, 'utf8.txt'), 'ünï ✓');
		assert.equal(await files.readSmallText('a.txt', 5), 'hello');
		assert.equal(await files.readSmallText('empty.txt', 0), '');
		assert.equal(await files.readSmallText('utf8.txt', 100), 'ünï ✓');
		assert.equal(await files.readSmallText('a.txt', 4), undefined);
		for (const rel of ['out-link.txt', 'in-link.txt', 'dangling', 'sub', 'nope.txt', 'a.txt/x']) {
			assert.equal(await files.readSmallText(rel, 1000), undefined, rel);
		}
	});

	test('a name longer than the file system takes is refused by the disk, never taken for a file', async () => {
		const long = 'n'.repeat(5000);
		assert.equal(await files.readSmallText(long, 100), undefined);
		await assert.rejects(files.read(long), (err: unknown) => typeof (err as { code?: unknown }).code === 'string');
		await assert.rejects(files.checkWrite(`${long}/x`));
	});

	test('checkWrite: new and existing paths under real folders pass; a link as target or on the way, a file on the way, refused', async () => {
		for (const rel of ['a.txt', 'sub/b.ts', 'new.txt', 'sub/new/deeper/c.txt', 'nope/x']) {
			await files.checkWrite(rel);
		}
		for (const [rel, why] of [
			['out-link.txt', /the target is a symbolic link/],
			['dangling', /the target is a symbolic link/],
			['up', /the target is a symbolic link/],
			['up/outside.txt', /a folder on the way is a symbolic link/],
			['up/root/a.txt', /a folder on the way is a symbolic link/],
			['a.txt/x', /not a folder/],
		] as const) {
			await assert.rejects(files.checkWrite(rel), (err: unknown) => err instanceof UnsafePathError && why.test(err.message), rel);
		}
		assert.equal(await readFile(join(dir, 'outside.txt'), 'utf8'), 'secret');
	});

	test('the comparison’s side: answers in its worker thread, by path relative to the folder, within the byte budget', async () => {
		const side = files.examiner(12);
		try {
			const answers = await side.examine([
				{ rel: 'a.txt', size: 5, cost: 10 },
				{ rel: 'a.txt', size: 5, cost: 10 },
				{ rel: 'sub/b.ts', size: 1, cost: 1 },
				{ rel: 'out-link.txt', size: 6, cost: 1 },
				{ rel: 'nope.txt', size: 1, cost: 1 },
				{ rel: 'sub', size: 1, cost: 1 },
			]);
			const file = (a: LocalAnswer | undefined) => a as Extract<LocalAnswer, { kind: 'file' }>;
			assert.equal(file(answers[0]).sha256, sha('hello'));
			assert.equal(file(answers[1]).overBytes, true);
			assert.equal(file(answers[2]).size, 11);
			assert.equal(file(answers[2]).sha256, undefined, 'another size: not hashed');
			assert.deepEqual(answers.slice(3), [{ kind: 'symlink' }, { kind: 'missing' }, { kind: 'other' }]);
			assert.ok(side.heapPeak > 0, 'the worker reported its heap');
		} finally {
			await side.close();
		}
		await assert.rejects(side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]), /ended/);
	});

	test('the comparison’s side refuses a hostile path before anything is posted to the worker', async () => {
		const side = files.examiner(1 << 30);
		try {
			for (const rel of ['../outside.txt', '/etc/passwd', 'a\u0000b']) {
				const { error } = await outcome(() => side.examine([{ rel, size: 6, cost: 1 }]));
				assert.ok(error instanceof UnsafePathError, JSON.stringify(rel));
			}
			const answers = await side.examine([{ rel: 'a.txt', size: 5, cost: 1 }]);
			assert.equal((answers[0] as { sha256?: string }).sha256, sha('hello'), 'the side still works');
		} finally {
			await side.close();
		}
	});
});
