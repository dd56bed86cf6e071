/**
 * A local folder through Node (the seam of localFiles.ts, Node's extension host): the comparison's
 * local side in a worker thread (localSide.ts, compareWorker.ts), everything else through
 * `node:fs`'s callback API, each file read by the rules of fileRead.ts (no symbolic link followed,
 * the checks made on the open descriptor). Reached only through the features' entry (src/shell/featureEntry.ts,
 * from which src/extension.ts hands it to nodePlatform.ts): the web build leaves its room out. Plain Node, no `vscode`.
 */
import { type Dirent, type Stats, lstat as lstatCallback } from 'node:fs';
import { lstat, opendir, realpath } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { promisify } from 'node:util';
import { isMissingFileError } from '../../util/fileErrors';
import { UnsafePathError, checkRelativePath } from '../../util/paths';
import { type FileSteps, hashLocalFile, readChunks, runAsync, withRegularFile, readSmallTextFile } from './fileRead';
import type { LocalEntry, LocalExaminer, LocalFiles, LocalJob, LocalStat } from '../../compare/localFiles';
import { LocalSide } from './localSide';
import { concatBytes } from '../../base/bytes';

/** lstat in its callback form, made on first use: for thousands of files about half the CPU of fs/promises'. */
let lstatCb: ((path: string) => Promise<Stats>) | undefined;
const lstatLocal = (path: string): Promise<Stats> => (lstatCb ??= promisify(lstatCallback) as (path: string) => Promise<Stats>)(path);

/** True when `child` is strictly inside `parent` (both absolute, resolved). */
function strictlyInside(parent: string, child: string): boolean {
	const r = nodePath.relative(parent, child);
	return r !== '' && !r.startsWith('..') && !nodePath.isAbsolute(r);
}

/** The absolute local path of `rel`, asserted strictly inside `localRoot` (else UnsafePathError). */
export function localPathOf(localRoot: string, rel: string): string {
	checkRelativePath(rel);
	const root = nodePath.resolve(localRoot);
	const abs = nodePath.resolve(root, ...rel.split('/'));
	if (!strictlyInside(root, abs)) {
		throw new UnsafePathError(rel, 'leaves the local folder');
	}
	return abs;
}

function codeOf(err: unknown): unknown {
	return (err as { code?: unknown } | null)?.code;
}

/**
 * The absolute local path of `rel`, safe to write or delete: inside `localRoot`, no existing
 * component between the root and the target (the target included) a symbolic link, and the real
 * path of the deepest existing ancestor inside the real path of the root. Call it before every
 * local write or delete. With `target` false, the same for the folders on the way only (before a
 * read whose bytes leave the machine: fileRead.ts refuses a link as the target itself).
 */
export async function assertSafeLocalWrite(localRoot: string, rel: string, target = true): Promise<string> {
	const abs = localPathOf(localRoot, rel);
	const root = nodePath.resolve(localRoot);
	const segments = rel.split('/');
	let deepest = root;
	let current = root;
	for (let i = 0; i < segments.length - (target ? 0 : 1); i++) {
		current = nodePath.join(current, segments[i]!);
		let st;
		try {
			st = await lstat(current);
		} catch (err) {
			if (isMissingFileError(err)) {
				break;
			}
			throw err;
		}
		if (st.isSymbolicLink()) {
			throw new UnsafePathError(
				rel,
				i === segments.length - 1 ? 'the target is a symbolic link' : 'a folder on the way is a symbolic link',
			);
		}
		if (i < segments.length - 1 && !st.isDirectory()) {
			throw new UnsafePathError(rel, 'a component on the way is not a folder');
		}
		if (i < segments.length - 1) {
			deepest = current;
		}
	}
	const realRoot = await realpath(root);
	const realDeepest = await realpath(deepest);
	if (realDeepest !== realRoot && !strictlyInside(realRoot, realDeepest)) {
		throw new UnsafePathError(rel, 'resolves outside the local folder');
	}
	return abs;
}

function kindOf(d: Dirent): LocalEntry['kind'] {
	return d.isSymbolicLink() ? 'symlink' : d.isDirectory() ? 'directory' : d.isFile() ? 'file' : 'other';
}

async function* entriesOf(dir: AsyncIterable<Dirent>): AsyncIterable<LocalEntry> {
	// Leaving the loop early closes the folder (opendir's iterator).
	for await (const d of dir) {
		yield { name: d.name, kind: kindOf(d) };
	}
}

/** The local folder at `root` (an absolute path of this machine). */
export class NodeLocalFiles implements LocalFiles {
	constructor(readonly root: string) {}

	/** The comparison's local side in a worker thread of its own (see compareWorker.ts for why). */
	examiner(maxBytes: number, signal?: AbortSignal): LocalExaminer {
		const side = new LocalSide(maxBytes, signal);
		const root = this.root;
		return {
			examine: (jobs: LocalJob[]) => side.examine(jobs.map(({ rel, size, cost }) => ({ abs: localPathOf(root, rel), size, cost }))),
			close: () => side.close(),
			get heapPeak() {
				return side.heapPeak;
			},
		};
	}

	async stat(rel: string): Promise<LocalStat> {
		try {
			// The callback lstat: for thousands of files about half the CPU of fs/promises'.
			const st = await lstatLocal(localPathOf(this.root, rel));
			if (st.isSymbolicLink()) {
				return { kind: 'symlink' };
			}
			return st.isFile()
				? { kind: 'file', size: st.size, mtime: st.mtimeMs }
				: st.isDirectory()
					? { kind: 'directory' }
					: { kind: 'other' };
		} catch (err) {
			if (isMissingFileError(err)) {
				return { kind: 'missing' };
			}
			throw err;
		}
	}

	async list(rel: string): Promise<AsyncIterable<LocalEntry> | undefined> {
		if (rel !== '') {
			// A hostile path is refused (localPathOf throws) before the disk is asked; opendir follows
			// links, so a folder that is one or is reached through one (outside the folder: the write
			// check's rule) is not listed, as FileSystemLocalFiles lists none.
			localPathOf(this.root, rel);
			const outside = await assertSafeLocalWrite(this.root, rel).then(
				() => false,
				(err: unknown) => {
					if (err instanceof UnsafePathError) {
						return true;
					}
					throw err;
				},
			);
			if (outside) {
				return undefined;
			}
		}
		try {
			return entriesOf(await opendir(rel === '' ? this.root : localPathOf(this.root, rel)));
		} catch (err) {
			const code = codeOf(err);
			if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') {
				return undefined;
			}
			throw err;
		}
	}

	hash(rel: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }> {
		return hashLocalFile(localPathOf(this.root, rel), signal);
	}

	async read(rel: string): Promise<Uint8Array> {
		// What is read here leaves the machine (Send to Agent): no folder on the way may be a link
		// out of the folder (fileRead.ts only refuses a link as the last component).
		await assertSafeLocalWrite(this.root, rel, false);
		return runAsync(
			withRegularFile(localPathOf(this.root, rel), function* (file): FileSteps<Uint8Array> {
				const chunks: Uint8Array[] = [];
				const size = yield* readChunks(file, (bytes) => chunks.push(Uint8Array.prototype.slice.call(bytes)));
				return concatBytes(chunks, size);
			}),
		);
	}

	readSmallText(rel: string, max: number): Promise<string | undefined> {
		return Promise.resolve(readSmallTextFile(localPathOf(this.root, rel), max));
	}

	async checkWrite(rel: string): Promise<void> {
		await assertSafeLocalWrite(this.root, rel);
	}
}
