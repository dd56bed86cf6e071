/**
 * The caching layer between VS Code's file-system calls and the workspace endpoints. It answers
 * `stat` from folder listings where it can (including "not found" for names a fresh listing lacks),
 * shares concurrent requests, reads big files in 1 MiB chunks, keeps virtual empty folders (the
 * service has no mkdir) and is invalidated by its own writes and deletes and by the agent's runs.
 *
 * No `vscode` import: the unit tests and the bench drive it in plain Node against the emulator;
 * `workspaceFs.ts` adapts it to `vscode.FileSystemProvider` and maps errors in `errors.ts`.
 */
import { ApiError, LIMITS } from '../api';
import type { CloudAgentsClient, WorkspaceEntry } from '../api';
import { baseName, isSameOrBelow, joinPath, normalizeWorkspacePath, parentPath } from './paths';

/** The client methods this layer uses (a real `CloudAgentsClient` fits). */
export type WorkspaceApi = Pick<CloudAgentsClient, 'listWorkspaceAll' | 'statWorkspace' | 'readWorkspaceFile' | 'readWorkspaceFileRest' | 'writeWorkspaceFile' | 'deleteWorkspacePath'>;

/** Kind of a workspace entry. */
export type EntryType = 'file' | 'directory';

/** What `stat` answers: the service's type, size and modification time (ms since the epoch). */
export interface EntryStat {
	type: EntryType;
	size: number;
	mtime: number;
}

/** The failures this layer decides itself (`errors.ts` turns them into `FileSystemError`s). */
export type WorkspaceFsErrorCode = 'FileNotFound' | 'FileExists' | 'FileNotADirectory' | 'FileIsADirectory' | 'NoPermissions' | 'Unavailable' | 'TooLarge';

/** A failure decided without (or after) asking the service, with a message fit for users. */
export class WorkspaceFsError extends Error {
	override readonly name = 'WorkspaceFsError';
	constructor(
		readonly code: WorkspaceFsErrorCode,
		/** The workspace path concerned. */
		readonly path: string,
		message?: string,
	) {
		super(message ?? `${code}: ${path || '/'}`);
	}
}

/** A change to notify (VS Code: `onDidChangeFile`). */
export interface WorkspaceChange {
	type: 'created' | 'changed' | 'deleted';
	agentId: string;
	path: string;
}

/** A file read refused because it is over the large-file threshold and was not approved. */
export interface LargeFileRefusal {
	agentId: string;
	path: string;
	size: number;
	limit: number;
}

/** Bounds and hooks of `WorkspaceCache.walkFiles`. */
export interface WalkOptions {
	/** Stop after this many files (default 20,000). */
	maxFiles?: number;
	/** Do not list folders deeper than this many levels below the root (default 32). */
	maxDepth?: number;
	/** Folders listed at once (default 4). */
	concurrency?: number;
	/** Aborts the walk: it rejects with an `AbortError` and lists nothing more. */
	signal?: AbortSignal;
	/** Called with the files of each folder as soon as its listing arrives. */
	onFiles?: (paths: string[]) => void;
}

/** What `WorkspaceCache.walkFiles` found. */
export interface WalkResult {
	/** Workspace paths of the files, in breadth-first order of their folders. */
	files: string[];
	/** True when a bound (files or depth) left part of the workspace out. */
	truncated: boolean;
}

/** Defaults of `walkFiles`. */
export const WALK_LIMITS = { maxFiles: 20_000, maxDepth: 32, concurrency: 4 } as const;

/** Tuning of the cache; the defaults keep VS Code's call patterns at the request floors. */
export interface WorkspaceCacheOptions {
	/** A listing answers `stat` of folders and "not found" for missing names this long (default 30 s). */
	listTtlMs?: number;
	/** `readDirectory` reuses a listing this recent instead of asking again (default 2 s). */
	listReuseMs?: number;
	/**
	 * A file's size and mtime learned from a listing, read, stat or write answer its `stat` this
	 * long (default 1 s); after that `stat` asks the service, so a save sees the agent's changes.
	 */
	fileFreshMs?: number;
	/** A `stat` that must ask waits this long for a `readFile` of the same file to start, and shares it (default 25 ms). */
	coalesceMs?: number;
	/** Bytes per read request (1 to 1,048,576; default the maximum). */
	chunkLength?: number;
	/** Files larger than this many bytes are read only once approved (default 16 MiB). */
	largeFileBytes?: () => number;
	/** Clock (tests). */
	now?: () => number;
}

interface Known {
	stat: EntryStat;
	/** When the service last confirmed it. */
	at: number;
}

interface Listing {
	names: Set<string>;
	at: number;
}

interface ReadResult {
	content: Uint8Array;
	stat: EntryStat;
}

/** Per-agent state. */
class AgentCache {
	readonly known = new Map<string, Known>();
	readonly listings = new Map<string, Listing>();
	/** Folders created in VS Code that hold no file yet (path → creation time). */
	readonly virtualDirs = new Map<string, number>();
	readonly listing = new Map<string, Promise<Array<[string, EntryType]>>>();
	readonly reads = new Map<string, Promise<ReadResult>>();
	readonly approvedLarge = new Set<string>();
	rootMtime = 0;

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

const DEFAULTS = {
	listTtlMs: 30_000,
	listReuseMs: 2_000,
	fileFreshMs: 1_000,
	coalesceMs: 25,
	chunkLength: LIMITS.workspaceReadLength.max,
};

function entryType(e: WorkspaceEntry): EntryType {
	return e.type === 'directory' ? 'directory' : 'file';
}

function statOf(e: { type?: unknown; size?: unknown; mtime_unix_ms?: unknown }, fallbackMtime: number): EntryStat {
	return {
		type: e.type === 'directory' ? 'directory' : 'file',
		size: typeof e.size === 'number' ? e.size : 0,
		mtime: typeof e.mtime_unix_ms === 'number' ? e.mtime_unix_ms : fallbackMtime,
	};
}

function isStatus(err: unknown, status: number): boolean {
	return err instanceof ApiError && err.status === status;
}

/** `promise`, or a rejection with the signal's `AbortError` as soon as it aborts. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
	if (!signal) {
		return promise;
	}
	signal.throwIfAborted();
	return new Promise<T>((resolve, reject) => {
		const onAbort = (): void => reject(signal.reason instanceof Error ? signal.reason : Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' }));
		signal.addEventListener('abort', onAbort, { once: true });
		promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
	});
}

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * File-system semantics over the workspace endpoints of one service, for every agent. Methods take
 * the agent id and a raw path (the URI path); paths are normalised and escapes refused before any
 * request. Errors: `WorkspaceFsError`, `WorkspacePathError`, `ValidationError` or the client's
 * `ApiError` (404 for missing paths), all mapped by `toFileSystemError`.
 */
export class WorkspaceCache {
	private readonly agents = new Map<string, AgentCache>();
	private readonly changeListeners = new Set<(changes: WorkspaceChange[]) => void>();
	private readonly refusalListeners = new Set<(refusal: LargeFileRefusal) => void>();
	private readonly opts: Required<Omit<WorkspaceCacheOptions, 'largeFileBytes'>> & { largeFileBytes: () => number };

	constructor(
		private readonly getApi: () => WorkspaceApi,
		options: WorkspaceCacheOptions = {},
	) {
		this.opts = {
			listTtlMs: options.listTtlMs ?? DEFAULTS.listTtlMs,
			listReuseMs: options.listReuseMs ?? DEFAULTS.listReuseMs,
			fileFreshMs: options.fileFreshMs ?? DEFAULTS.fileFreshMs,
			coalesceMs: options.coalesceMs ?? DEFAULTS.coalesceMs,
			chunkLength: options.chunkLength ?? DEFAULTS.chunkLength,
			largeFileBytes: options.largeFileBytes ?? ((): number => 16 * 1024 * 1024),
			now: options.now ?? Date.now,
		};
	}

	/** Listens for created, changed and deleted paths (our own writes and the agent's). */
	onDidChange(listener: (changes: WorkspaceChange[]) => void): { dispose(): void } {
		this.changeListeners.add(listener);
		return { dispose: () => this.changeListeners.delete(listener) };
	}

	/** Listens for reads refused as too large, so a UI layer can ask the user and retry. */
	onDidRefuseLargeFile(listener: (refusal: LargeFileRefusal) => void): { dispose(): void } {
		this.refusalListeners.add(listener);
		return { dispose: () => this.refusalListeners.delete(listener) };
	}

	/** Allows reading one large file (after the user confirmed). */
	approveLargeFile(agentId: string, rawPath: string): void {
		this.agent(agentId).approvedLarge.add(normalizeWorkspacePath(rawPath));
	}

	/** Forgets everything (sign-out, another API URL). */
	clear(): void {
		this.agents.clear();
	}

	/**
	 * Forgets what is cached about `path` (and below) and notifies listeners: called for the
	 * agent's `file.changed` run events. `change` is the event's `created`/`modified`/`deleted`.
	 */
	invalidate(agentId: string, rawPath: string, change?: string): void {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		a.forgetBelow(path);
		a.listings.delete(parentPath(path));
		if (change !== 'deleted') {
			// The folders above a created or modified file exist now, whatever the listings say.
			const now = this.opts.now();
			for (let p = parentPath(path); p !== ''; p = parentPath(p)) {
				a.virtualDirs.delete(p);
				if (a.known.get(p)?.stat.type !== 'directory') {
					a.known.set(p, { stat: { type: 'directory', size: 0, mtime: now }, at: now });
				}
				a.listings.get(parentPath(p))?.names.add(baseName(p));
			}
		}
		const type = change === 'deleted' ? 'deleted' : change === 'created' ? 'created' : 'changed';
		this.fire([{ type, agentId, path }]);
	}

	// ------------------------------------------------------------------ stat

	/** Type, size and mtime of a path; throws FileNotFound (WorkspaceFsError or ApiError 404) when missing. */
	async stat(agentId: string, rawPath: string): Promise<EntryStat> {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		const cached = this.cachedStat(a, path);
		if (cached) {
			return cached;
		}
		if (this.knownMissing(a, path)) {
			throw new WorkspaceFsError('FileNotFound', path);
		}
		// VS Code stats a file and reads it at (almost) the same time when it opens it: give the
		// read a moment to start and take size and mtime from its answer instead of asking twice.
		if (this.opts.coalesceMs > 0 && !a.reads.has(path)) {
			await delay(this.opts.coalesceMs);
		}
		const reading = a.reads.get(path);
		if (reading) {
			return (await reading).stat;
		}
		// A read that started and finished meanwhile left a fresh answer.
		const meanwhile = this.cachedStat(a, path);
		if (meanwhile) {
			return meanwhile;
		}
		const started = this.opts.now();
		try {
			const entry = await this.getApi().statWorkspace(agentId, path);
			const stat = statOf(entry, started);
			this.learn(a, path, stat, started);
			return stat;
		} catch (err) {
			if (isStatus(err, 404)) {
				this.forgetMissing(a, path);
			}
			throw err;
		}
	}

	/** Like `stat`, but `undefined` when the path does not exist. */
	async tryStat(agentId: string, rawPath: string): Promise<EntryStat | undefined> {
		try {
			return await this.stat(agentId, rawPath);
		} catch (err) {
			if (isStatus(err, 404) || (err instanceof WorkspaceFsError && err.code === 'FileNotFound')) {
				return undefined;
			}
			throw err;
		}
	}

	private cachedStat(a: AgentCache, path: string): EntryStat | undefined {
		if (path === '') {
			return { type: 'directory', size: 0, mtime: a.rootMtime };
		}
		const virtual = a.virtualDirs.get(path);
		if (virtual !== undefined) {
			return { type: 'directory', size: 0, mtime: virtual };
		}
		const k = a.known.get(path);
		if (!k) {
			return undefined;
		}
		const age = this.opts.now() - k.at;
		const ttl = k.stat.type === 'directory' ? this.opts.listTtlMs : this.opts.fileFreshMs;
		return age <= ttl ? k.stat : undefined;
	}

	/** True when a fresh listing of an ancestor shows that `path` cannot exist. */
	private knownMissing(a: AgentCache, path: string): boolean {
		if (path === '') {
			return false;
		}
		const now = this.opts.now();
		const parts = path.split('/');
		let dir = '';
		for (const name of parts) {
			const child = joinPath(dir, name);
			if (a.virtualDirs.has(child)) {
				dir = child;
				continue;
			}
			const listing = a.listings.get(dir);
			if (listing && now - listing.at <= this.opts.listTtlMs) {
				if (!listing.names.has(name)) {
					return true;
				}
				if (child !== path && a.known.get(child)?.stat.type === 'file') {
					return true;
				}
			} else if (!a.known.has(child) || a.known.get(child)?.stat.type !== 'directory') {
				// Nothing fresh to judge from below this point.
				return false;
			}
			dir = child;
		}
		return false;
	}

	// ------------------------------------------------------------------ readDirectory

	/** Names and types of a folder's children (virtual folders included). One request per fresh listing. */
	async readDirectory(agentId: string, rawPath: string): Promise<Array<[string, EntryType]>> {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		const k = a.known.get(path);
		if (k?.stat.type === 'file' && this.opts.now() - k.at <= this.opts.listTtlMs) {
			throw new WorkspaceFsError('FileNotADirectory', path);
		}
		if (a.virtualDirs.has(path)) {
			return this.virtualChildren(a, path, new Set());
		}
		if (this.knownMissing(a, path)) {
			throw new WorkspaceFsError('FileNotFound', path);
		}
		const listing = a.listings.get(path);
		if (listing && this.opts.now() - listing.at <= this.opts.listReuseMs) {
			return this.childrenFromCache(a, path, listing);
		}
		let pending = a.listing.get(path);
		if (!pending) {
			pending = this.fetchListing(a, agentId, path).finally(() => a.listing.delete(path));
			a.listing.set(path, pending);
		}
		return pending;
	}

	private async fetchListing(a: AgentCache, agentId: string, path: string): Promise<Array<[string, EntryType]>> {
		const started = this.opts.now();
		let entries: WorkspaceEntry[];
		try {
			entries = await this.getApi().listWorkspaceAll(agentId, path);
		} catch (err) {
			if (isStatus(err, 404)) {
				this.forgetMissing(a, path);
			}
			throw err;
		}
		const names = new Set<string>();
		const out: Array<[string, EntryType]> = [];
		// Forget children the listing no longer has.
		for (const key of [...a.known.keys()]) {
			if (key !== '' && parentPath(key) === path) {
				a.known.delete(key);
			}
		}
		for (const e of entries) {
			const child = joinPath(path, e.name);
			names.add(e.name);
			a.known.set(child, { stat: statOf(e, started), at: started });
			out.push([e.name, entryType(e)]);
			if (entryType(e) === 'directory') {
				a.virtualDirs.delete(child);
			}
		}
		a.listings.set(path, { names, at: started });
		if (path !== '' && !a.known.has(path)) {
			a.known.set(path, { stat: { type: 'directory', size: 0, mtime: started }, at: started });
		}
		return [...out, ...this.virtualChildren(a, path, names)];
	}

	private childrenFromCache(a: AgentCache, path: string, listing: Listing): Array<[string, EntryType]> {
		const out: Array<[string, EntryType]> = [];
		for (const name of listing.names) {
			out.push([name, a.known.get(joinPath(path, name))?.stat.type ?? 'file']);
		}
		return [...out, ...this.virtualChildren(a, path, listing.names)];
	}

	private virtualChildren(a: AgentCache, path: string, exclude: Set<string>): Array<[string, EntryType]> {
		const out: Array<[string, EntryType]> = [];
		for (const dir of a.virtualDirs.keys()) {
			if (parentPath(dir) === path && !exclude.has(baseName(dir))) {
				out.push([baseName(dir), 'directory']);
			}
		}
		return out;
	}

	// ------------------------------------------------------------------ readFile

	/** A whole file, read in chunks; concurrent reads of one file share the requests. */
	async readFile(agentId: string, rawPath: string): Promise<Uint8Array> {
		const path = normalizeWorkspacePath(rawPath);
		return (await this.read(agentId, path, true)).content;
	}

	private read(agentId: string, path: string, checkSize: boolean): Promise<ReadResult> {
		const a = this.agent(agentId);
		if (path === '' || a.virtualDirs.has(path) || a.known.get(path)?.stat.type === 'directory') {
			return Promise.reject(new WorkspaceFsError('FileIsADirectory', path));
		}
		if (this.knownMissing(a, path)) {
			return Promise.reject(new WorkspaceFsError('FileNotFound', path));
		}
		const knownSize = a.known.get(path)?.stat.size;
		if (checkSize && knownSize !== undefined) {
			this.checkLarge(a, agentId, path, knownSize);
		}
		let pending = a.reads.get(path);
		if (!pending) {
			pending = this.fetchFile(a, agentId, path, checkSize).finally(() => a.reads.delete(path));
			a.reads.set(path, pending);
		}
		return pending;
	}

	private checkLarge(a: AgentCache, agentId: string, path: string, size: number): void {
		const limit = this.opts.largeFileBytes();
		if (size > limit && !a.approvedLarge.has(path)) {
			for (const listener of this.refusalListeners) {
				listener({ agentId, path, size, limit });
			}
			const mb = (n: number): string => (n / (1024 * 1024)).toFixed(1);
			throw new WorkspaceFsError('TooLarge', path, `${baseName(path)} is ${mb(size)} MB, more than the ${mb(limit)} MB set in cloudAgents.workspace.largeFileWarningMb; confirm to open it.`);
		}
	}

	private async fetchFile(a: AgentCache, agentId: string, path: string, checkSize: boolean): Promise<ReadResult> {
		const api = this.getApi();
		const length = this.opts.chunkLength;
		try {
			for (let attempt = 0; ; attempt++) {
				const started = this.opts.now();
				const first = await api.readWorkspaceFile(agentId, path, { length });
				const stat: EntryStat = { type: 'file', size: first.size, mtime: first.mtime_unix_ms ?? started };
				this.learn(a, path, stat, started);
				if (first.eof) {
					return { content: first.content, stat: { ...stat, size: first.content.byteLength } };
				}
				if (checkSize) {
					this.checkLarge(a, agentId, path, first.size);
				}
				const content = await api.readWorkspaceFileRest(agentId, path, first, { chunkLength: length });
				if (content) {
					return { content, stat };
				}
				if (attempt >= 2) {
					throw new WorkspaceFsError('Unavailable', path, `${path} kept changing while it was read; try again.`);
				}
			}
		} catch (err) {
			if (isStatus(err, 404)) {
				this.forgetMissing(a, path);
			}
			throw err;
		}
	}

	// ------------------------------------------------------------------ writeFile

	/**
	 * Writes a whole file with PUT …/workspace/files, honouring `create` and `overwrite` exactly.
	 * Over 32 MiB is refused before sending. Parent folders are created by the service.
	 */
	async writeFile(agentId: string, rawPath: string, content: Uint8Array, flags: { create: boolean; overwrite: boolean }): Promise<EntryStat> {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		if (path === '' || a.virtualDirs.has(path)) {
			throw new WorkspaceFsError('FileIsADirectory', path);
		}
		if (content.byteLength > LIMITS.writeBytes) {
			const mib = (content.byteLength / (1024 * 1024)).toFixed(1);
			throw new WorkspaceFsError('TooLarge', path, `${baseName(path)} is ${mib} MiB; the service accepts files of at most 32 MiB. Nothing was written.`);
		}
		const cached = a.known.get(path)?.stat;
		if (cached?.type === 'directory') {
			throw new WorkspaceFsError('FileIsADirectory', path);
		}
		let existed = cached !== undefined;
		if (!flags.create || !flags.overwrite) {
			const current = await this.tryStat(agentId, path);
			existed = current !== undefined;
			if (current?.type === 'directory') {
				throw new WorkspaceFsError('FileIsADirectory', path);
			}
			if (!current && !flags.create) {
				throw new WorkspaceFsError('FileNotFound', path);
			}
			if (current && !flags.overwrite) {
				throw new WorkspaceFsError('FileExists', path);
			}
		}
		for (let p = parentPath(path); p !== ''; p = parentPath(p)) {
			if (a.known.get(p)?.stat.type === 'file') {
				throw new WorkspaceFsError('FileNotADirectory', p);
			}
		}
		const started = this.opts.now();
		const result = await this.getApi().writeWorkspaceFile(agentId, path, content);
		const previous = cached?.mtime ?? 0;
		const stat: EntryStat = {
			type: 'file',
			size: typeof result.size === 'number' ? result.size : content.byteLength,
			mtime: typeof result.mtime_unix_ms === 'number' ? result.mtime_unix_ms : Math.max(started, previous + 1),
		};
		this.learn(a, path, stat, this.opts.now());
		this.fire([{ type: existed ? 'changed' : 'created', agentId, path }]);
		return stat;
	}

	// ------------------------------------------------------------------ delete

	/** Deletes a file or folder (folders with content only when `recursive`). */
	async delete(agentId: string, rawPath: string, options: { recursive: boolean }): Promise<void> {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		if (path === '') {
			throw new WorkspaceFsError('NoPermissions', path, 'The root of the agent workspace cannot be deleted.');
		}
		if (a.virtualDirs.has(path)) {
			const hasChildren = [...a.virtualDirs.keys()].some((d) => d !== path && isSameOrBelow(d, path));
			if (hasChildren && !options.recursive) {
				throw new WorkspaceFsError('NoPermissions', path, `${path} is not empty.`);
			}
			a.forgetBelow(path);
			this.fire([{ type: 'deleted', agentId, path }]);
			return;
		}
		try {
			await this.getApi().deleteWorkspacePath(agentId, path, { recursive: options.recursive });
		} catch (err) {
			if (isStatus(err, 404)) {
				this.forgetMissing(a, path);
			}
			throw err;
		}
		this.forgetMissing(a, path);
		this.fire([{ type: 'deleted', agentId, path }]);
	}

	// ------------------------------------------------------------------ createDirectory

	/**
	 * Creates an empty folder. The service has no mkdir (a write creates parent folders), so the
	 * folder is virtual: listed and stat-able in this window until a file is written into it, when
	 * it becomes real on the service. Lost when the window closes.
	 */
	async createDirectory(agentId: string, rawPath: string): Promise<void> {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		if (await this.tryStat(agentId, path)) {
			throw new WorkspaceFsError('FileExists', path);
		}
		const parent = await this.tryStat(agentId, parentPath(path));
		if (!parent) {
			throw new WorkspaceFsError('FileNotFound', parentPath(path));
		}
		if (parent.type !== 'directory') {
			throw new WorkspaceFsError('FileNotADirectory', parentPath(path));
		}
		a.virtualDirs.set(path, this.opts.now());
		this.fire([{ type: 'created', agentId, path }]);
	}

	// ------------------------------------------------------------------ rename and copy

	/** Copies a file or folder: writes every target file and verifies it; the source stays. */
	async copy(agentId: string, rawFrom: string, rawTo: string, options: { overwrite: boolean }): Promise<void> {
		await this.transfer(agentId, rawFrom, rawTo, options, false);
	}

	/**
	 * Moves a file or folder without losing data: writes every target file, verifies it (size
	 * and type from a fresh stat), and only then deletes the source.
	 */
	async rename(agentId: string, rawFrom: string, rawTo: string, options: { overwrite: boolean }): Promise<void> {
		await this.transfer(agentId, rawFrom, rawTo, options, true);
	}

	private async transfer(agentId: string, rawFrom: string, rawTo: string, options: { overwrite: boolean }, move: boolean): Promise<void> {
		const from = normalizeWorkspacePath(rawFrom);
		const to = normalizeWorkspacePath(rawTo);
		const a = this.agent(agentId);
		if (from === '' || to === '') {
			throw new WorkspaceFsError('NoPermissions', from === '' ? from : to, 'The root of the agent workspace cannot be moved or replaced.');
		}
		if (from === to) {
			return;
		}
		if (isSameOrBelow(to, from)) {
			throw new WorkspaceFsError('NoPermissions', to, `Cannot ${move ? 'move' : 'copy'} ${from} into itself.`);
		}
		const source = await this.stat(agentId, from);
		const target = await this.tryStat(agentId, to);
		if (target && !options.overwrite) {
			throw new WorkspaceFsError('FileExists', to);
		}
		if (target && (target.type === 'directory' || source.type === 'directory')) {
			await this.delete(agentId, to, { recursive: true });
		}
		if (source.type === 'file') {
			await this.copyFileVerified(agentId, from, to);
		} else {
			const { files, emptyDirs } = await this.collectTree(agentId, from);
			for (const file of files) {
				await this.copyFileVerified(agentId, file, to + file.slice(from.length));
			}
			for (const dir of emptyDirs) {
				a.virtualDirs.set(to + dir.slice(from.length), this.opts.now());
			}
			if (files.length === 0) {
				a.virtualDirs.set(to, this.opts.now());
			}
			this.fire([{ type: 'created', agentId, path: to }]);
		}
		if (move) {
			await this.delete(agentId, from, { recursive: true });
		}
	}

	private async copyFileVerified(agentId: string, from: string, to: string): Promise<void> {
		const { content } = await this.read(agentId, from, false);
		await this.writeFile(agentId, to, content, { create: true, overwrite: true });
		const a = this.agent(agentId);
		// Verify from the service, not from what the write answered.
		const check = await this.getApi().statWorkspace(agentId, to);
		this.learn(a, to, statOf(check, this.opts.now()), this.opts.now());
		if (entryType(check) !== 'file' || check.size !== content.byteLength) {
			throw new WorkspaceFsError('Unavailable', to, `The copy at ${to} could not be verified (${check.size ?? '?'} of ${content.byteLength} bytes); ${from} was kept.`);
		}
	}

	/** Every file (and empty folder) below a folder, from the service plus virtual folders. */
	private async collectTree(agentId: string, root: string): Promise<{ files: string[]; emptyDirs: string[] }> {
		const a = this.agent(agentId);
		const files: string[] = [];
		const emptyDirs: string[] = [];
		const queue = [root];
		while (queue.length > 0) {
			const dir = queue.shift() as string;
			const children = a.virtualDirs.has(dir) ? this.virtualChildren(a, dir, new Set()) : await this.readDirectory(agentId, dir);
			if (children.length === 0 && dir !== root) {
				emptyDirs.push(dir);
			}
			for (const [name, type] of children) {
				const child = joinPath(dir, name);
				if (type === 'directory') {
					queue.push(child);
				} else {
					files.push(child);
				}
			}
		}
		return { files, emptyDirs };
	}

	// ------------------------------------------------------------------ walk

	/**
	 * Every file of an agent's workspace, by a breadth-first walk of folder listings through this
	 * cache (so later `stat` and `readDirectory` calls are answered from what it learned). Bounded by
	 * `maxFiles` and `maxDepth`; folders that vanish meanwhile are skipped; other failures reject.
	 */
	async walkFiles(agentId: string, options: WalkOptions = {}): Promise<WalkResult> {
		const maxFiles = Math.max(0, options.maxFiles ?? WALK_LIMITS.maxFiles);
		const maxDepth = Math.max(0, options.maxDepth ?? WALK_LIMITS.maxDepth);
		const concurrency = Math.max(1, options.concurrency ?? WALK_LIMITS.concurrency);
		const { signal, onFiles } = options;
		const files: string[] = [];
		let truncated = false;
		const queue: Array<{ path: string; depth: number }> = [{ path: '', depth: 0 }];
		const full = (): boolean => files.length >= maxFiles;

		const listOne = async (dir: { path: string; depth: number }): Promise<void> => {
			let children: Array<[string, EntryType]>;
			try {
				children = await abortable(this.readDirectory(agentId, dir.path), signal);
			} catch (err) {
				const gone = dir.path !== '' && (isStatus(err, 404) || (err instanceof WorkspaceFsError && (err.code === 'FileNotFound' || err.code === 'FileNotADirectory')));
				if (gone) {
					return;
				}
				throw err;
			}
			const batch: string[] = [];
			for (const [name, type] of children) {
				const child = joinPath(dir.path, name);
				if (type === 'directory') {
					if (dir.depth + 1 > maxDepth) {
						truncated = true;
					} else {
						queue.push({ path: child, depth: dir.depth + 1 });
					}
				} else if (full()) {
					truncated = true;
				} else {
					files.push(child);
					batch.push(child);
				}
			}
			if (batch.length > 0) {
				onFiles?.(batch);
			}
		};

		const inFlight = new Set<Promise<void>>();
		let failure: { err: unknown } | undefined;
		while ((queue.length > 0 || inFlight.size > 0) && !failure) {
			signal?.throwIfAborted();
			if (full() && queue.length > 0) {
				// Folders left unlisted may hold more files.
				truncated = true;
				queue.length = 0;
			}
			while (queue.length > 0 && inFlight.size < concurrency) {
				const dir = queue.shift() as { path: string; depth: number };
				const task: Promise<void> = listOne(dir).catch((err: unknown) => {
					failure ??= { err };
				}).finally(() => inFlight.delete(task));
				inFlight.add(task);
			}
			if (inFlight.size > 0) {
				await Promise.race(inFlight);
			}
		}
		if (failure) {
			throw failure.err;
		}
		signal?.throwIfAborted();
		return { files, truncated };
	}

	// ------------------------------------------------------------------ bookkeeping

	private agent(agentId: string): AgentCache {
		let a = this.agents.get(agentId);
		if (!a) {
			a = new AgentCache();
			this.agents.set(agentId, a);
		}
		return a;
	}

	/** Records what the service said about an existing path (and that its ancestors are real folders). */
	private learn(a: AgentCache, path: string, stat: EntryStat, at: number): void {
		a.known.set(path, { stat, at });
		a.virtualDirs.delete(path);
		a.listings.get(parentPath(path))?.names.add(baseName(path));
		for (let p = parentPath(path); p !== ''; p = parentPath(p)) {
			a.virtualDirs.delete(p);
			if (a.known.get(p)?.stat.type !== 'directory') {
				a.known.set(p, { stat: { type: 'directory', size: 0, mtime: stat.mtime }, at });
			}
			a.listings.get(parentPath(p))?.names.add(baseName(p));
		}
	}

	/** Records that a path no longer exists. */
	private forgetMissing(a: AgentCache, path: string): void {
		a.forgetBelow(path);
		a.listings.get(parentPath(path))?.names.delete(baseName(path));
	}

	private fire(changes: WorkspaceChange[]): void {
		for (const listener of this.changeListeners) {
			listener(changes);
		}
	}
}
