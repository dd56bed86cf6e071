/**
 * Walks of an agent workspace's folder tree: the bounded breadth-first walk behind "Go to File"
 * (`walkFiles`) and the collection of a folder's tree before a copy or move (`collectTree`). Both
 * are capped by `SAFETY.walkMaxDepth` and `SAFETY.walkMaxEntries`, so a hostile or broken server
 * (a folder 1,000 levels deep, a million entries) costs a bounded number of requests.
 *
 * No `vscode` import and no state: the cache passes its `readDirectory` in as `list`
 * (through `skippingVanished` for the walk).
 */
import { ApiError, SAFETY } from '../../api';
import { drain } from '../../util/concurrency';
import { joinPath } from '../../util/paths';
import { WorkspaceFsError } from './workspaceModel';
import type { EntryType } from './workspaceModel';

export type { EntryType } from './workspaceModel';

/**
 * Lists one folder: its children's names and types, or `undefined` when the folder vanished
 * meanwhile (the walk skips it). Other failures reject the walk.
 */
export type ListChildren = (path: string) => Promise<Array<[string, EntryType]> | undefined>;

/** True for the failure of listing a folder that vanished meanwhile (404, not found, now a file). */
function isGone(err: unknown): boolean {
	return (
		(err instanceof ApiError && err.status === 404) ||
		(err instanceof WorkspaceFsError && (err.code === 'FileNotFound' || err.code === 'FileNotADirectory'))
	);
}

/**
 * A `ListChildren` over a folder reader that throws for missing folders: a folder below the root
 * that vanished meanwhile is skipped; the root's failure, and any other, rejects the walk.
 */
export function skippingVanished(readDirectory: (path: string) => Promise<Array<[string, EntryType]>>): ListChildren {
	return async (dir) => {
		try {
			return await readDirectory(dir);
		} catch (err) {
			if (dir !== '' && isGone(err)) {
				return undefined;
			}
			throw err;
		}
	};
}

/** Bounds and hooks of `walkFiles`. */
export interface WalkOptions {
	/** Stop after this many files (default `SAFETY.walkMaxEntries`). */
	maxFiles?: number;
	/** Stop after visiting this many entries, files and folders (default `SAFETY.walkMaxEntries`). */
	maxEntries?: number;
	/** Do not list folders deeper than this many levels below the root (default `SAFETY.walkMaxDepth`). */
	maxDepth?: number;
	/** Folders listed at once (default 4). */
	concurrency?: number;
	/** Aborts the walk: it rejects with an `AbortError` and lists nothing more. */
	signal?: AbortSignal;
	/** Called with the files of each folder as soon as its listing arrives. */
	onFiles?: (paths: string[]) => void;
}

/** What `walkFiles` found. */
export interface WalkResult {
	/** Workspace paths of the files, in breadth-first order of their folders. */
	files: string[];
	/** True when a bound (files, entries or depth) left part of the workspace out. */
	truncated: boolean;
}

/** Defaults of the walks (the SAFETY bounds). */
export const WALK_LIMITS = {
	maxFiles: SAFETY.walkMaxEntries,
	maxEntries: SAFETY.walkMaxEntries,
	maxDepth: SAFETY.walkMaxDepth,
	concurrency: 4,
} as const;

/** `promise`, or a rejection with the signal's `AbortError` as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
	if (!signal) {
		return promise;
	}
	signal.throwIfAborted();
	return new Promise<T>((resolve, reject) => {
		const onAbort = (): void =>
			reject(
				signal.reason instanceof Error
					? signal.reason
					: Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' }),
			);
		signal.addEventListener('abort', onAbort, { once: true });
		promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
	});
}

/**
 * Every file below the root (`""`), by a breadth-first walk of folder listings. Bounded by
 * `maxFiles`, `maxEntries` and `maxDepth`: hitting one stops listing and sets `truncated`.
 */
export async function walkFiles(list: ListChildren, options: WalkOptions = {}): Promise<WalkResult> {
	const maxFiles = Math.max(0, options.maxFiles ?? WALK_LIMITS.maxFiles);
	const maxEntries = Math.max(0, options.maxEntries ?? WALK_LIMITS.maxEntries);
	const maxDepth = Math.max(0, options.maxDepth ?? WALK_LIMITS.maxDepth);
	const concurrency = Math.max(1, options.concurrency ?? WALK_LIMITS.concurrency);
	const { signal, onFiles } = options;
	const files: string[] = [];
	let entries = 0;
	let truncated = false;
	const queue: Array<{ path: string; depth: number }> = [{ path: '', depth: 0 }];
	const full = (): boolean => files.length >= maxFiles || entries >= maxEntries;

	const listOne = async (dir: { path: string; depth: number }): Promise<void> => {
		const children = await abortable(list(dir.path), signal);
		if (!children) {
			return;
		}
		const batch: string[] = [];
		for (const [name, type] of children) {
			if (full()) {
				truncated = true;
				break;
			}
			entries++;
			const child = joinPath(dir.path, name);
			if (type === 'directory') {
				if (dir.depth + 1 > maxDepth) {
					truncated = true;
				} else {
					queue.push({ path: child, depth: dir.depth + 1 });
				}
			} else {
				files.push(child);
				batch.push(child);
			}
		}
		if (batch.length > 0) {
			onFiles?.(batch);
		}
	};

	const nextFolder = (): { path: string; depth: number } | undefined => {
		signal?.throwIfAborted();
		if (full() && queue.length > 0) {
			// Folders left unlisted may hold more files.
			truncated = true;
			queue.length = 0;
		}
		return queue.shift();
	};
	await drain(nextFolder, concurrency, listOne);
	signal?.throwIfAborted();
	return { files, truncated };
}

/** A tree too deep or too big to walk; nothing was listed beyond the bound. */
export class WalkLimitError extends Error {
	override readonly name = 'WalkLimitError';
	constructor(
		/** Which bound was hit. */
		readonly bound: 'depth' | 'entries',
		/** The bound's value. */
		readonly limit: number,
		/** The folder the walk started from. */
		readonly root: string,
	) {
		super(
			bound === 'depth'
				? `${root || '/'} is more than ${limit} folder levels deep (the walk limit)`
				: `${root || '/'} holds more than ${limit} entries (the walk limit)`,
		);
	}
}

/** Every file and empty folder below a folder, as `collectTree` found them. */
export interface TreeContents {
	files: string[];
	emptyDirs: string[];
}

/**
 * Every file (and empty folder) below `root`, listed breadth-first one folder at a time. Throws a
 * WalkLimitError as soon as the tree is deeper than `maxDepth` levels or holds more than
 * `maxEntries` entries (files and folders), so a caller that collects before it changes anything
 * changes nothing. A folder that vanished meanwhile counts as empty.
 */
export async function collectTree(
	list: ListChildren,
	root: string,
	limits: { maxDepth?: number; maxEntries?: number } = {},
): Promise<TreeContents> {
	const maxDepth = Math.max(0, limits.maxDepth ?? WALK_LIMITS.maxDepth);
	const maxEntries = Math.max(0, limits.maxEntries ?? WALK_LIMITS.maxEntries);
	const files: string[] = [];
	const emptyDirs: string[] = [];
	let entries = 0;
	const queue: Array<{ path: string; depth: number }> = [{ path: root, depth: 0 }];
	for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
		const children = (await list(next.path)) ?? [];
		if (children.length === 0 && next.path !== root) {
			emptyDirs.push(next.path);
		}
		entries += children.length;
		if (entries > maxEntries) {
			throw new WalkLimitError('entries', maxEntries, root);
		}
		for (const [name, type] of children) {
			const child = joinPath(next.path, name);
			if (type === 'directory') {
				if (next.depth + 1 > maxDepth) {
					throw new WalkLimitError('depth', maxDepth, root);
				}
				queue.push({ path: child, depth: next.depth + 1 });
			} else {
				files.push(child);
			}
		}
	}
	return { files, emptyDirs };
}
