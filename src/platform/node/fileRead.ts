/**
 * Reading a local file's bytes: the one set of rules for every reader (the comparison's worker
 * thread, the hash of one linked file, the .gitignore reader), with a synchronous and an
 * asynchronous driver.
 *
 * The rules: open without following a symbolic link (O_NOFOLLOW: the open itself refuses a link, no
 * lstat first; where the platform has no O_NOFOLLOW, Windows, an lstat comes first) and without
 * blocking on a FIFO (O_NONBLOCK); check on the open descriptor that it is a regular file, so the
 * file read is the file whose facts are reported; read from the start in chunks of at most 256 KiB
 * (one read of size + 1 bytes for a smaller file); stop at a read of 0 bytes, or at a read shorter
 * than asked that reaches the size fstat gave (the end: no second call only to be told 0 bytes); a
 * file that grew since its fstat is read on to its end. The descriptor is closed whatever happens.
 *
 * The rules are written once, as steps that name the system call each needs (FileCall) and are
 * resumed with its result. `runSync` makes the calls synchronously: in the worker thread, where a
 * trip through the thread pool per call would cost more than the call (see compareWorker.ts).
 * `runAsync` makes them through Node's callback API: on the extension host's thread. Plain Node.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { throwIfAborted } from '../../base/async';
import { NotRegularFileError } from '../../compare/localFiles';

export { NotRegularFileError };

/** One system call a reading step needs; the step is resumed with its result. */
export type FileCall =
	| { call: 'lstat'; path: string }
	| { call: 'open'; path: string; flags: number }
	| { call: 'fstat'; fd: number }
	| { call: 'read'; fd: number; buffer: Buffer; length: number; position: number }
	| { call: 'close'; fd: number };

/** Reading steps that end with a T: run them with `runSync` or `runAsync`. */
export type FileSteps<T> = Generator<FileCall, T, unknown>;

/** A regular file opened by `withRegularFile`: its descriptor, and its size and mtime from fstat. */
export interface OpenFile {
	fd: number;
	size: number;
	mtime: number;
}

/** The most bytes one read asks for. */
const CHUNK = 256 * 1024;

function codeOf(err: unknown): string | undefined {
	const code = (err as { code?: unknown } | null)?.code;
	return typeof code === 'string' ? code : undefined;
}

/**
 * Opens `abs` as a regular file, runs `use` on it and closes it (whatever happens). Throws a
 * NotRegularFileError for a symbolic link or anything but a regular file, else what the open
 * threw (ENOENT, ENOTDIR, EACCES…).
 */
export function* withRegularFile<T>(abs: string, use: (file: OpenFile) => FileSteps<T>): FileSteps<T> {
	const noFollow = fs.constants.O_NOFOLLOW;
	if (noFollow === undefined) {
		const st = (yield { call: 'lstat', path: abs }) as fs.Stats;
		if (!st.isFile()) {
			throw new NotRegularFileError(abs, st.isSymbolicLink() ? 'symlink' : 'other');
		}
	}
	let fd: number;
	try {
		fd = (yield { call: 'open', path: abs, flags: fs.constants.O_RDONLY | (noFollow ?? 0) | (fs.constants.O_NONBLOCK ?? 0) }) as number;
	} catch (err) {
		if (codeOf(err) === 'ELOOP') {
			throw new NotRegularFileError(abs, 'symlink');
		}
		throw err;
	}
	try {
		const st = (yield { call: 'fstat', fd }) as fs.Stats;
		if (!st.isFile()) {
			throw new NotRegularFileError(abs, 'other');
		}
		return yield* use({ fd, size: st.size, mtime: st.mtimeMs });
	} finally {
		yield { call: 'close', fd };
	}
}

/**
 * Reads `file` from its start to its end (see the rules above), or `limit` bytes, handing each
 * chunk to `onChunk` (a view of a reused buffer: consume or copy it at once). `check` runs before
 * each read (an abort). Returns the number of bytes read.
 */
export function* readChunks(
	file: OpenFile,
	onChunk: (bytes: Buffer) => void,
	options: { limit?: number; check?: () => void } = {},
): FileSteps<number> {
	const limit = options.limit ?? Number.POSITIVE_INFINITY;
	const buffer = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, file.size + 1, limit)));
	let position = 0;
	while (position < limit) {
		options.check?.();
		const length = Math.min(buffer.byteLength, limit - position);
		const n = (yield { call: 'read', fd: file.fd, buffer, length, position }) as number;
		if (n === 0) {
			break;
		}
		onChunk(buffer.subarray(0, n));
		position += n;
		if (position === file.size && n < length) {
			break;
		}
	}
	return position;
}

/** SHA-256 of `file`'s bytes and how many were read. */
export function* hashOpenFile(file: OpenFile, check?: () => void): FileSteps<{ sha256: string; size: number }> {
	const hash = createHash('sha256');
	const size = yield* readChunks(file, (bytes) => hash.update(bytes), { check });
	check?.();
	return { sha256: hash.digest('hex'), size };
}

function callSync(c: FileCall): unknown {
	switch (c.call) {
		case 'lstat':
			return fs.lstatSync(c.path);
		case 'open':
			return fs.openSync(c.path, c.flags);
		case 'fstat':
			return fs.fstatSync(c.fd);
		case 'read':
			return fs.readSync(c.fd, c.buffer, 0, c.length, c.position);
		case 'close':
			return fs.closeSync(c.fd);
	}
}

// The callback forms of open/fstat/read/close: for thousands of small files they cost about half the
// CPU of fs/promises' FileHandle (measured: 5,000 files of 256 bytes, 8 at once, 0.4 s against 0.8 s).
// Made on first use, never at load: the web build has no Node file system.
let callbacks:
	| {
			lstat: (path: string) => Promise<fs.Stats>;
			open: (path: string, flags: number) => Promise<number>;
			fstat: (fd: number) => Promise<fs.Stats>;
			close: (fd: number) => Promise<void>;
	  }
	| undefined;
const promisified = (): NonNullable<typeof callbacks> =>
	(callbacks ??= { lstat: promisify(fs.lstat), open: promisify(fs.open), fstat: promisify(fs.fstat), close: promisify(fs.close) });
const lstatAsync = (path: string): Promise<fs.Stats> => promisified().lstat(path);
const openAsync = (path: string, flags: number): Promise<number> => promisified().open(path, flags);
const fstatAsync = (fd: number): Promise<fs.Stats> => promisified().fstat(fd);
const closeAsync = (fd: number): Promise<void> => promisified().close(fd);
const readAsync = (fd: number, buffer: Buffer, length: number, position: number): Promise<number> =>
	new Promise((resolve, reject) => fs.read(fd, buffer, 0, length, position, (err, n) => (err ? reject(err) : resolve(n))));

function callAsync(c: FileCall): Promise<unknown> {
	switch (c.call) {
		case 'lstat':
			return lstatAsync(c.path);
		case 'open':
			return openAsync(c.path, c.flags);
		case 'fstat':
			return fstatAsync(c.fd);
		case 'read':
			return readAsync(c.fd, c.buffer, c.length, c.position);
		case 'close':
			return closeAsync(c.fd);
	}
}

/** Runs reading steps with synchronous system calls. */
export function runSync<T>(steps: FileSteps<T>): T {
	let next = steps.next();
	while (!next.done) {
		let result: unknown;
		try {
			result = callSync(next.value);
		} catch (err) {
			next = steps.throw(err);
			continue;
		}
		next = steps.next(result);
	}
	return next.value;
}

/** Runs reading steps with asynchronous system calls (Node's thread pool). */
export async function runAsync<T>(steps: FileSteps<T>): Promise<T> {
	let next = steps.next();
	while (!next.done) {
		let result: unknown;
		try {
			result = await callAsync(next.value);
		} catch (err) {
			next = steps.throw(err);
			continue;
		}
		next = steps.next(result);
	}
	return next.value;
}

/** SHA-256 and size of a local regular file (asynchronous); a symbolic link or anything but a regular file is a NotRegularFileError. */
export async function hashLocalFile(abs: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }> {
	throwIfAborted(signal);
	return runAsync(withRegularFile(abs, (file) => hashOpenFile(file, () => throwIfAborted(signal))));
}

/** The text (UTF-8) of a regular file of at most `max` bytes (synchronous), else undefined: too large, not a regular file, unreadable. */
export function readSmallTextFile(abs: string, max: number): string | undefined {
	try {
		return runSync(
			withRegularFile(abs, function* (file): FileSteps<string | undefined> {
				if (file.size > max) {
					return undefined;
				}
				const chunks: Buffer[] = [];
				yield* readChunks(file, (bytes) => chunks.push(Buffer.from(bytes)), { limit: file.size });
				return Buffer.concat(chunks).toString('utf8');
			}),
		);
	} catch {
		return undefined;
	}
}
