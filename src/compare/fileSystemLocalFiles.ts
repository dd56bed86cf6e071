/**
 * A local folder through a file system of VS Code's shape (the seam of localFiles.ts where there is
 * no Node file system and no worker thread: VS Code for the Web, whose extension host is a web
 * worker that cannot start workers of its own when its extension is served by a VS Code server).
 * src/platform/web/workspaceLocalFiles.ts hands it `vscode.workspace.fs` on the folder's URI.
 *
 * The comparison's local side runs on the extension host's thread, a batch at a time: the stats of
 * a batch (at most FS_CONCURRENCY at once), the byte budget taken in job order (as the worker does),
 * then the reads. A file is read whole (such a file system has no ranged read), so a file larger
 * than MAX_WHOLE_READ is not hashed (`tooLarge`). Symbolic links: the file system's stat follows
 * them but marks them (FS_TYPE.symbolicLink), so a link is reported as one and never read; between
 * the stat and the read a path could be swapped for a link (no open without following one here).
 * No `vscode`, no Node.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { abortError, throwIfAborted } from '../base/async';
import { UnsafePathError, checkRelativePath } from '../util/paths';
import { forEachLimited } from '../util/concurrency';
import {
	type LocalAnswer,
	type LocalEntry,
	type LocalExaminer,
	type LocalFiles,
	type LocalJob,
	type LocalStat,
	NotRegularFileError,
} from './localFiles';

/** VS Code's `FileType` bits (a symbolic link is `symbolicLink` with the type of its target). */
export const FS_TYPE = { file: 1, directory: 2, symbolicLink: 64 } as const;

/** What the implementation needs of the file system, by path relative to the folder (`''` = the folder). */
export interface FolderFileSystem {
	/** `type` (FS_TYPE bits), `size` and `mtime` (ms) of `rel`, following a link but marking it. */
	stat(rel: string): Promise<{ type: number; size: number; mtime: number }>;
	/** The entries of the folder `rel`: name and FS_TYPE bits. */
	readDirectory(rel: string): Promise<Array<[string, number]>>;
	/** The bytes of the file `rel`, whole. */
	readFile(rel: string): Promise<Uint8Array>;
	/** True when `err` (thrown by one of the above) says the path, or a folder on its way, does not exist. */
	isMissing(err: unknown): boolean;
}

/** File-system calls of the comparison's local side at once. */
export const FS_CONCURRENCY = 8;
/** The largest file this implementation reads (whole, into memory) to hash it. */
export const MAX_WHOLE_READ = 64 * 1024 * 1024;

function kindOfType(type: number): LocalEntry['kind'] {
	if (type & FS_TYPE.symbolicLink) {
		return 'symlink';
	}
	return type & FS_TYPE.directory ? 'directory' : type & FS_TYPE.file ? 'file' : 'other';
}

function hexOf(bytes: Uint8Array): string {
	return bytesToHex(sha256.create().update(bytes).digest());
}

function errorAnswer(err: unknown): LocalAnswer {
	const code = (err as { code?: unknown } | null)?.code;
	return { kind: 'error', code: typeof code === 'string' ? code : undefined, message: err instanceof Error ? err.message : String(err) };
}

async function* entriesOf(entries: Array<[string, number]>): AsyncIterable<LocalEntry> {
	for (const [name, type] of entries) {
		yield { name, kind: kindOfType(type) };
	}
	await Promise.resolve();
}

/** The local folder behind `fs`. */
export class FileSystemLocalFiles implements LocalFiles {
	constructor(private readonly fs: FolderFileSystem) {}

	/** The comparison's local side on this thread, in batches (see above). */
	examiner(maxBytes: number, signal?: AbortSignal): LocalExaminer {
		const budget = { left: maxBytes };
		let closed = false;
		// Batches are answered in the order given: each waits for the one before it.
		let last: Promise<unknown> = Promise.resolve();
		const examine = (jobs: LocalJob[]): Promise<LocalAnswer[]> => {
			const answer = last.then(
				() => this.examineBatch(jobs, budget, signal, () => closed),
				() => this.examineBatch(jobs, budget, signal, () => closed),
			);
			last = answer.catch(() => undefined);
			answer.catch(() => undefined); // a batch the caller no longer waits for is not an unhandled rejection
			return answer;
		};
		return {
			examine,
			close: () => {
				closed = true;
				return Promise.resolve();
			},
			heapPeak: 0,
		};
	}

	private async examineBatch(
		jobs: LocalJob[],
		budget: { left: number },
		signal: AbortSignal | undefined,
		closed: () => boolean,
	): Promise<LocalAnswer[]> {
		const check = (): void => {
			throwIfAborted(signal);
			if (closed()) {
				throw new Error('the comparison ended');
			}
		};
		check();
		const answers: LocalAnswer[] = new Array<LocalAnswer>(jobs.length);
		await forEachLimited(
			jobs.map((job, i) => ({ job, i })),
			FS_CONCURRENCY,
			async ({ job, i }) => {
				check();
				answers[i] = await this.answerOf(job.rel);
			},
		);
		// The budget in job order, as the worker takes it; then the reads.
		const reads: Array<{ i: number; job: LocalJob }> = [];
		jobs.forEach((job, i) => {
			const a = answers[i]!;
			if (a.kind !== 'file' || a.size !== job.size) {
				return;
			}
			if (a.size > MAX_WHOLE_READ) {
				answers[i] = { ...a, tooLarge: true };
			} else if (job.cost > budget.left) {
				answers[i] = { ...a, overBytes: true };
			} else {
				budget.left -= job.cost;
				reads.push({ i, job });
			}
		});
		await forEachLimited(reads, FS_CONCURRENCY, async ({ i, job }) => {
			check();
			try {
				const bytes = await this.fs.readFile(job.rel);
				const a = answers[i] as Extract<LocalAnswer, { kind: 'file' }>;
				// A file that changed size since its stat: its facts are what was read.
				answers[i] = { ...a, size: bytes.byteLength, sha256: hexOf(bytes) };
			} catch (err) {
				answers[i] = this.fs.isMissing(err) ? { kind: 'missing' } : errorAnswer(err);
			}
		});
		check();
		return answers;
	}

	private async answerOf(rel: string): Promise<LocalAnswer> {
		try {
			const st = await this.stat(rel);
			return st.kind === 'directory' ? { kind: 'other' } : st;
		} catch (err) {
			return errorAnswer(err);
		}
	}

	async stat(rel: string): Promise<LocalStat> {
		checkRelativePath(rel);
		let st;
		try {
			st = await this.fs.stat(rel);
		} catch (err) {
			if (this.fs.isMissing(err)) {
				return { kind: 'missing' };
			}
			throw err;
		}
		const kind = kindOfType(st.type);
		return kind === 'file' ? { kind, size: st.size, mtime: st.mtime } : { kind };
	}

	async list(rel: string): Promise<AsyncIterable<LocalEntry> | undefined> {
		if (rel !== '') {
			checkRelativePath(rel);
			// A symbolic link to a folder is not walked into.
			if ((await this.stat(rel)).kind !== 'directory') {
				return undefined;
			}
		}
		try {
			return entriesOf(await this.fs.readDirectory(rel));
		} catch (err) {
			if (this.fs.isMissing(err)) {
				return undefined;
			}
			throw err;
		}
	}

	async hash(rel: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }> {
		throwIfAborted(signal);
		const bytes = await this.read(rel);
		if (signal?.aborted) {
			throw abortError(signal);
		}
		return { sha256: hexOf(bytes), size: bytes.byteLength };
	}

	async read(rel: string): Promise<Uint8Array> {
		// What is read here leaves the machine (Send to Agent): no folder on the way may be a link
		// out of the folder (stat alone follows a link in the middle of the path).
		await this.checkWay(rel, false);
		const st = await this.stat(rel);
		if (st.kind === 'symlink' || st.kind === 'directory' || st.kind === 'other') {
			throw new NotRegularFileError(rel, st.kind === 'symlink' ? 'symlink' : 'other');
		}
		if (st.kind === 'missing') {
			throw Object.assign(new Error(`${rel}: no such file`), { code: 'ENOENT' });
		}
		if (st.size > MAX_WHOLE_READ) {
			throw new UnsafePathError(
				rel,
				`larger than ${MAX_WHOLE_READ / (1024 * 1024)} MiB, which VS Code for the Web does not read here`,
			);
		}
		return this.fs.readFile(rel);
	}

	async readSmallText(rel: string, max: number): Promise<string | undefined> {
		try {
			const st = await this.stat(rel);
			if (st.kind !== 'file' || st.size > max) {
				return undefined;
			}
			const bytes = await this.fs.readFile(rel);
			return bytes.byteLength > max ? undefined : new TextDecoder().decode(bytes);
		} catch {
			return undefined;
		}
	}

	/** No existing component on the way (the target included) a symbolic link, every folder on the way a folder. */
	checkWrite(rel: string): Promise<void> {
		return this.checkWay(rel, true);
	}

	/** `checkWrite`'s rule; with `target` false, for the folders on the way only. */
	private async checkWay(rel: string, target: boolean): Promise<void> {
		const segments = checkRelativePath(rel).split('/');
		for (let i = 0; i < segments.length - (target ? 0 : 1); i++) {
			const st = await this.stat(segments.slice(0, i + 1).join('/'));
			if (st.kind === 'missing') {
				return;
			}
			if (st.kind === 'symlink') {
				throw new UnsafePathError(
					rel,
					i === segments.length - 1 ? 'the target is a symbolic link' : 'a folder on the way is a symbolic link',
				);
			}
			if (i < segments.length - 1 && st.kind !== 'directory') {
				throw new UnsafePathError(rel, 'a component on the way is not a folder');
			}
		}
	}
}
