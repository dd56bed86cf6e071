/**
 * What the workspace cache (workspaceCache.ts) knows of one agent's workspace: the entries and
 * listings the service confirmed, the folders made in VS Code, the requests in flight and what
 * `stat` last showed; and how an entry of the service's listing becomes one of them (its type,
 * size and mtime checked, its name refused when unusable). No `vscode` import.
 */
import { SAFETY } from '../../api';
import type { WorkspaceEntry, WorkspaceInterfaceError } from '../../api';
import { hasInvisibleCharacters, isSameOrBelow } from '../../util/paths';
import type { EntryStat, EntryType } from './workspaceModel';

export interface Known {
	stat: EntryStat;
	/** When the service last confirmed it. */
	at: number;
}

export interface Listing {
	names: Set<string>;
	at: number;
}

/** What `stat` last answered for a file: the service's size and mtime, and the mtime shown for them. */
export interface Shown {
	size: number;
	/** The service's mtime, or undefined when it sent none. */
	serviceMtime: number | undefined;
	/** The mtime `stat` reported (never lower than any reported before for this path). */
	mtime: number;
	/** The version (reported mtime and size) VS Code last read or wrote: what an editor holds. */
	opened?: { mtime: number; size: number };
}

export interface ReadResult {
	content: Uint8Array;
	stat: EntryStat;
}

/** Per-agent state. */
export class AgentCache {
	readonly known = new Map<string, Known>();
	readonly listings = new Map<string, Listing>();
	/** Folders created in VS Code that hold no file yet (path → creation time). */
	readonly virtualDirs = new Map<string, number>();
	readonly listing = new Map<string, Promise<Array<[string, EntryType]>>>();
	readonly reads = new Map<string, Promise<ReadResult>>();
	readonly approvedLarge = new Set<string>();
	/** Folders whose listings had entries dropped, already logged. */
	readonly reportedFolders = new Set<string>();
	rootMtime = 0;
	/** Set when the server rejected or misread a workspace operation: no list, stat or read is sent until `retryInterface`. */
	interfaceError: WorkspaceInterfaceError | undefined;

	constructor(
		/**
		 * Per file: what `stat` last reported. Outlives this cache (`clear`) and forgetting the file,
		 * so the mtime reported for a path only grows while VS Code may hold it in an editor.
		 */
		readonly shown: Map<string, Shown>,
	) {}
	/** Drops everything at or below `path`. */
	forgetBelow(path: string): void {
		for (const map of [this.known, this.listings, this.virtualDirs] as Array<Map<string, unknown>>) {
			for (const key of [...map.keys()]) {
				if (key !== '' && isSameOrBelow(key, path)) {
					map.delete(key);
				}
			}
		}
		if (path === '') {
			this.listings.delete('');
		}
	}
}

export function entryType(e: WorkspaceEntry): EntryType {
	return e.type === 'directory' ? 'directory' : 'file';
}

/** A non-negative safe integer from the server, else undefined. */
export function count(value: unknown): number | undefined {
	return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** What the service said about an entry, its numbers checked (`mtime` undefined when it sent none usable). */
export interface ServiceStat {
	type: EntryType;
	size: number;
	mtime: number | undefined;
}

export function statOf(e: { type?: unknown; size?: unknown; mtime_unix_ms?: unknown }): ServiceStat {
	return {
		type: e.type === 'directory' ? 'directory' : 'file',
		size: count(e.size) ?? 0,
		mtime: count(e.mtime_unix_ms),
	};
}

/** Why a listing entry is dropped, or undefined for a usable name. */
export function entryNameProblem(name: unknown, seen: ReadonlySet<string>): string | undefined {
	if (typeof name !== 'string' || name === '') {
		return 'empty';
	}
	if (name === '.' || name === '..') {
		return `"${name}"`;
	}
	if (name.includes('/') || name.includes('\\')) {
		return 'a path separator';
	}
	if (name.length > SAFETY.entryNameMaxChars) {
		return `longer than ${SAFETY.entryNameMaxChars} characters`;
	}
	if (hasInvisibleCharacters(name)) {
		return 'control or invisible characters';
	}
	if (seen.has(name)) {
		return 'a duplicate';
	}
	return undefined;
}
