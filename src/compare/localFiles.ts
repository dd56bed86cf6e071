/**
 * The seam between the comparison and the local folder (issue 34): what the engine, the ignore rules
 * and Source Control's Send, Apply and re-checks need from the folder, by paths relative to it
 * (`/`-separated, checked by `checkRelativePath`; `''` is the folder itself). Two implementations,
 * chosen by the platform (src/platform/types.ts `localFiles`): Node's (nodeLocalFiles.ts: a worker
 * thread and `node:fs`, symbolic links refused by the open itself) and one over a file system of
 * VS Code's shape (fileSystemLocalFiles.ts: `vscode.workspace.fs` in the browser's extension host,
 * on its own thread, in batches). Neither follows a symbolic link. No `vscode`, no Node.
 */
import { UnsafePathError } from '../util/paths';

/** A local path that is not a regular file: a symbolic link (never followed) or anything else. */
export class NotRegularFileError extends UnsafePathError {
	constructor(
		path: string,
		/** What the path is instead. */
		readonly kind: 'symlink' | 'other',
	) {
		super(path, kind === 'symlink' ? 'a symbolic link (not followed)' : 'not a regular file');
	}
}

/** What a local path is, never following a symbolic link. */
export type LocalStat =
	{ kind: 'missing' } | { kind: 'symlink' } | { kind: 'directory' } | { kind: 'other' } | { kind: 'file'; size: number; mtime: number };

/** One entry of a local folder: its name and what it is (a symbolic link is never followed). */
export interface LocalEntry {
	name: string;
	kind: 'file' | 'directory' | 'symlink' | 'other';
}

/** One local path to look at in a comparison. */
export interface LocalJob {
	/** Relative to the local folder (checked). */
	rel: string;
	/** The agent-side size: the file is hashed only when its local size is the same. */
	size: number;
	/** Bytes a hash counts against the budget (the local read, plus the agent-side read unless a hash is reused). */
	cost: number;
}

/**
 * What a local path is and, for a file of the agent-side size within the byte budget, its SHA-256.
 * `overBytes`: the hash would pass the comparison's byte budget. `tooLarge`: the implementation reads
 * a file whole and this one is larger than it reads (the browser's: see fileSystemLocalFiles.ts).
 */
export type LocalAnswer =
	| { kind: 'missing' }
	| { kind: 'symlink' }
	| { kind: 'other' }
	| { kind: 'file'; size: number; mtime: number; sha256?: string; overBytes?: true; tooLarge?: true }
	| { kind: 'error'; code?: string; message: string };

/** The local side of one comparison: batches of jobs, answered in order, within one byte budget. */
export interface LocalExaminer {
	/** One answer per job, in order. Batches are answered in the order they were given. */
	examine(jobs: LocalJob[]): Promise<LocalAnswer[]>;
	/** Ends the local side (a batch not answered yet is rejected). */
	close(): Promise<void>;
	/** The peak V8 heap of a worker thread that read the local side (bytes; 0 when none ran). */
	readonly heapPeak: number;
}

/** A local folder, as the comparison and Source Control use it. */
export interface LocalFiles {
	/** The local side of one comparison, with its byte budget; cancelled by `signal`. */
	examiner(maxBytes: number, signal?: AbortSignal): LocalExaminer;
	/** What `rel` is (`missing` also when a folder on the way is missing or a file). */
	stat(rel: string): Promise<LocalStat>;
	/** The entries of the folder `rel`; undefined when it is missing, not a folder or not readable. */
	list(rel: string): Promise<AsyncIterable<LocalEntry> | undefined>;
	/** SHA-256 and size of the regular file `rel`; a symbolic link or anything else is a NotRegularFileError. */
	hash(rel: string, signal?: AbortSignal): Promise<{ sha256: string; size: number }>;
	/**
	 * The bytes of the regular file `rel` (Send to Agent); a symbolic link or anything else is a
	 * NotRegularFileError, and a symbolic link on the way (a folder that leads out) an UnsafePathError.
	 */
	read(rel: string): Promise<Uint8Array>;
	/** The UTF-8 text of the regular file `rel` when it has at most `max` bytes, else undefined (also when unreadable). */
	readSmallText(rel: string, max: number): Promise<string | undefined>;
	/**
	 * Throws UnsafePathError unless `rel` is safe to write or delete: no existing component between
	 * the folder and the target (the target included) a symbolic link, every folder on the way a
	 * folder, and (where the platform can tell) its real path inside the folder's. Call it before
	 * every local write or delete.
	 */
	checkWrite(rel: string): Promise<void>;
}
