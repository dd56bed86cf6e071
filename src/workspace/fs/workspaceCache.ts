/**
 * The caching layer between VS Code's file-system calls and the workspace endpoints. It answers
 * `stat` from folder listings where it can (including "not found" for names a fresh listing lacks),
 * shares concurrent requests, reads big files in 1 MiB chunks, keeps virtual empty folders (the
 * service has no mkdir) and is invalidated by its own writes and deletes and by the agent's runs.
 * While no one is signed in, or the service cannot be reached, it fails with `Unavailable` errors
 * that say why (never an empty listing), makes the folder's root fail with them too, and announces
 * the root as changed when the agent's workspace becomes unavailable and again when it is back.
 *
 * No `vscode` import: the unit tests and the bench drive it in plain Node against the emulator;
 * `workspaceFs.ts` adapts it to `vscode.FileSystemProvider` and maps errors in `errors.ts`.
 */
import { ApiError, LIMITS, WorkspaceInterfaceError, sleep } from '../../api';
import type { WorkspaceEntry } from '../../api';
import { baseName, isSameOrBelow, joinPath, normalizeWorkspacePath, parentPath } from '../../util/paths';
import { DEFAULTS, type WorkspaceApi, type WorkspaceCacheOptions } from './cacheOptions';
import {
	AgentCache,
	type Listing,
	type ReadResult,
	type ServiceStat,
	type Shown,
	count,
	entryNameProblem,
	entryType,
	statOf,
} from './agentCache';
import {
	type AvailabilityChange,
	type EntryStat,
	type InterfaceDiffers,
	type LargeFileRefusal,
	type WorkspaceChange,
	WorkspaceFsError,
	WorkspaceUnavailableError,
	unavailableFrom,
} from './workspaceModel';
import { type TransferHost, transfer } from './workspaceTransfer';
import { type EntryType, type WalkOptions, type WalkResult, skippingVanished, walkFiles } from './workspaceWalk';

export type {
	AvailabilityChange,
	EntryStat,
	InterfaceDiffers,
	LargeFileRefusal,
	UnavailableReason,
	WorkspaceChange,
	WorkspaceFsErrorCode,
} from './workspaceModel';
export { WorkspaceFsError, WorkspaceUnavailableError } from './workspaceModel';
export type { EntryType, WalkOptions, WalkResult } from './workspaceWalk';
export { WALK_LIMITS, WalkLimitError } from './workspaceWalk';
export type { WorkspaceApi, WorkspaceCacheOptions } from './cacheOptions';

/**
 * True for the paths VS Code and its extensions probe in every folder it opens: dot-folders and
 * below (`.vscode` settings, tasks, launch; `.github` agents, prompts and instructions; `.git`,
 * `.devcontainer`). While an agent's workspace interface differs they are answered "not found"
 * without a request; the folder's root carries the message.
 */
export function isConfigProbe(path: string): boolean {
	const first = path.replace(/^\/+/, '').split('/')[0] ?? '';
	return first.length > 1 && first.startsWith('.') && first !== '..';
}

function isStatus(err: unknown, status: number): boolean {
	return err instanceof ApiError && err.status === status;
}

/**
 * File-system semantics over the workspace endpoints of one service, for every agent. Methods take
 * the agent id and a raw path (the URI path); paths are normalised and escapes refused before any
 * request. Errors: `WorkspaceFsError`, `WorkspacePathError`, `ValidationError` or the client's
 * `ApiError` (404 for missing paths), all mapped by `toFileSystemError`.
 */
export class WorkspaceCache {
	private readonly agents = new Map<string, AgentCache>();
	/** What `stat` reported per agent and file; kept by `clear` (see `present`). */
	private readonly shown = new Map<string, Map<string, Shown>>();
	private readonly changeListeners = new Set<(changes: WorkspaceChange[]) => void>();
	private readonly refusalListeners = new Set<(refusal: LargeFileRefusal) => void>();
	private readonly interfaceListeners = new Set<(e: InterfaceDiffers) => void>();
	private readonly availabilityListeners = new Set<(e: AvailabilityChange) => void>();
	/**
	 * Per agent, why its workspace cannot be used now: set by a failed listing, stat or read (or
	 * `markSignedOut`), cleared by the next answer from the service or `clear`. While set, the root's
	 * `stat` fails with it.
	 */
	private readonly unavailable = new Map<string, WorkspaceUnavailableError>();
	private readonly opts: Required<Omit<WorkspaceCacheOptions, 'largeFileBytes' | 'log' | 'signedIn' | 'sessionKnown' | 'serviceHost'>> & {
		largeFileBytes: () => number;
	};
	private readonly log: WorkspaceCacheOptions['log'];
	private readonly signedIn: () => boolean;
	private readonly sessionKnown: () => Promise<void>;
	private readonly serviceHost: () => string;

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
		this.log = options.log;
		this.signedIn = options.signedIn ?? ((): boolean => true);
		this.sessionKnown = options.sessionKnown ?? ((): Promise<void> => Promise.resolve());
		this.serviceHost = options.serviceHost ?? ((): string => 'the configured API URL');
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

	/**
	 * Listens for an agent whose workspace operations the server rejected or misread (a
	 * `WorkspaceInterfaceError`): fired once, when the agent enters that state; from then on its
	 * lists, stats and reads fail fast with the same error (`.vscode/*` probes: not found) and send
	 * nothing, until `retryInterface` or `clear`.
	 */
	onDidDetectInterfaceDiffers(listener: (e: InterfaceDiffers) => void): { dispose(): void } {
		this.interfaceListeners.add(listener);
		return { dispose: () => this.interfaceListeners.delete(listener) };
	}

	/**
	 * Listens for agents whose workspace became unavailable (signed out, the service unreachable or
	 * failing) and for those that are back: fired once per change, with the root announced as
	 * changed at the same time (see `onDidChange`).
	 */
	onDidChangeAvailability(listener: (e: AvailabilityChange) => void): { dispose(): void } {
		this.availabilityListeners.add(listener);
		return { dispose: () => this.availabilityListeners.delete(listener) };
	}

	/** Why an agent's workspace cannot be reached now, or undefined when nothing says so. */
	unavailableError(agentId: string): WorkspaceUnavailableError | undefined {
		return this.unavailable.get(agentId);
	}

	/**
	 * While signed out: marks these agents' workspaces unavailable ("Signed out…") and announces
	 * their roots, so folders that show them fail with the reason at once (the sign-out). Does
	 * nothing while signed in.
	 */
	markSignedOut(agentIds: Iterable<string>): void {
		for (const agentId of agentIds) {
			const error = this.signedOutError('');
			if (error) {
				this.setUnavailable(agentId, this.agent(agentId), error);
			}
		}
	}

	/**
	 * Asks the service for the root listing of an agent whose workspace is unavailable (the
	 * feature's retry while the service cannot be reached); true when it answered, which brings the
	 * folder back. Sends nothing while signed out.
	 */
	async probe(agentId: string): Promise<boolean> {
		if (this.signedOutError('')) {
			return false;
		}
		this.agent(agentId).listings.delete('');
		try {
			await this.readDirectory(agentId, '');
			return true;
		} catch {
			return !this.unavailable.has(agentId);
		}
	}

	/** The error that stopped an agent's workspace operations, if any. */
	interfaceError(agentId: string): WorkspaceInterfaceError | undefined {
		return this.agents.get(agentId)?.interfaceError;
	}

	/** Lets the next operation of an agent ask the server again (the user retried); true when it was stopped. */
	retryInterface(agentId: string): boolean {
		const a = this.agents.get(agentId);
		const was = a?.interfaceError !== undefined;
		if (a) {
			a.interfaceError = undefined;
		}
		return was;
	}

	/**
	 * Sends one workspace operation (list, stat, read) for `path` unless the agent's interface is
	 * known to differ; records a WorkspaceInterfaceError (and tells listeners the first time).
	 * `.vscode/*` probes get "not found" instead of that error.
	 */
	private async operation<R>(a: AgentCache, agentId: string, path: string, fn: (api: WorkspaceApi) => Promise<R>): Promise<R> {
		if (a.interfaceError) {
			throw isConfigProbe(path) ? new WorkspaceFsError('FileNotFound', path) : a.interfaceError;
		}
		try {
			return await this.send(a, agentId, path, fn);
		} catch (err) {
			if (err instanceof WorkspaceUnavailableError) {
				// VS Code's probes of `.vscode/*` and the like: "not found", and the folder keeps showing.
				if (isConfigProbe(path)) {
					throw new WorkspaceFsError('FileNotFound', path);
				}
				this.setUnavailable(agentId, a, err);
				throw err;
			}
			if (!(err instanceof WorkspaceInterfaceError)) {
				throw err;
			}
			if (!a.interfaceError && this.agents.get(agentId) === a) {
				a.interfaceError = err;
				for (const listener of this.interfaceListeners) {
					listener({ agentId, error: err });
				}
				this.fire([{ type: 'changed', agentId, path: '' }]);
			}
			throw isConfigProbe(path) ? new WorkspaceFsError('FileNotFound', path) : err;
		}
	}

	/**
	 * Sends one request for `path`: refused with `Unavailable` ("Signed out…") without sending
	 * while signed out; a failure that means the service cannot be reached or used now (no answer,
	 * 5xx, 429, 401) becomes a WorkspaceUnavailableError that says why and what to do. Any answer
	 * from the service brings an unavailable agent back.
	 */
	private async send<R>(a: AgentCache, agentId: string, path: string, fn: (api: WorkspaceApi) => Promise<R>): Promise<R> {
		await this.sessionKnown();
		const signedOut = this.signedOutError(path);
		if (signedOut) {
			throw signedOut;
		}
		let result: R;
		try {
			result = await fn(this.getApi());
		} catch (err) {
			const unavailable = unavailableFrom(err, path, this.serviceHost());
			if (unavailable) {
				throw unavailable;
			}
			if (err instanceof ApiError && err.status > 0) {
				this.setAvailable(agentId, a);
			}
			throw err;
		}
		this.setAvailable(agentId, a);
		return result;
	}

	/** The "signed out" error while no one is signed in, else undefined. */
	private signedOutError(path: string): WorkspaceUnavailableError | undefined {
		return this.signedIn()
			? undefined
			: new WorkspaceUnavailableError('signedOut', path, "Signed out of Cloud Agents: sign in to see this agent's files.");
	}

	/**
	 * Records why an agent's workspace is unavailable (only for the cache of the current session: a
	 * request that outlived `clear` says nothing about the new one); the first time, tells listeners
	 * and announces the root as changed, so a folder showing it reads it again and fails with the reason.
	 */
	private setUnavailable(agentId: string, a: AgentCache, error: WorkspaceUnavailableError): void {
		if (this.agents.get(agentId) !== a) {
			return;
		}
		const was = this.unavailable.get(agentId);
		this.unavailable.set(agentId, error);
		if (!was) {
			this.announceAvailability(agentId, error);
		}
	}

	/** Clears an agent's unavailability after an answer from the service; tells listeners and announces the root. */
	private setAvailable(agentId: string, a: AgentCache): void {
		if (this.agents.get(agentId) !== a || !this.unavailable.delete(agentId)) {
			return;
		}
		this.announceAvailability(agentId, undefined);
	}

	private announceAvailability(agentId: string, error: WorkspaceUnavailableError | undefined): void {
		for (const listener of this.availabilityListeners) {
			listener({ agentId, error });
		}
		this.fire([{ type: 'changed', agentId, path: '' }]);
	}

	/** Allows reading one large file (after the user confirmed). */
	approveLargeFile(agentId: string, rawPath: string): void {
		this.agent(agentId).approvedLarge.add(normalizeWorkspacePath(rawPath));
	}

	/**
	 * Forgets everything (sign-in, sign-out, another API URL), also why workspaces were unavailable.
	 * Signed in: the agents that were unavailable are announced as back (their roots changed), so
	 * folders and editors showing an error read them again. Signed out: nothing is back; every
	 * unavailable workspace now waits for the sign-in ("Signed out", announced back then), unannounced:
	 * a read now would only fail again (VS Code re-read an agent file it still held from a closed
	 * editor, and logged the failure, when a sign-out announced its agent back).
	 */
	clear(): void {
		const signedOut = this.signedOutError('');
		const were = [...this.unavailable.keys()];
		this.agents.clear();
		this.unavailable.clear();
		for (const agentId of were) {
			if (signedOut) {
				this.unavailable.set(agentId, signedOut);
			} else {
				this.announceAvailability(agentId, undefined);
			}
		}
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
		if (path === '') {
			return this.statRoot(agentId, a);
		}
		const cached = this.cachedStat(a, path);
		if (cached) {
			return cached;
		}
		if (this.knownMissing(a, path)) {
			throw new WorkspaceFsError('FileNotFound', path);
		}
		// A listing of a folder above is on its way (VS Code lists the root while it probes
		// `.vscode/*`): its answer (or its failure) decides, without a request of our own.
		const listing = this.pendingListingAbove(a, path);
		if (listing) {
			await listing.catch(() => undefined);
			const listed = this.cachedStat(a, path);
			if (listed) {
				return listed;
			}
			if (this.knownMissing(a, path)) {
				throw new WorkspaceFsError('FileNotFound', path);
			}
		}
		// VS Code stats a file and reads it at (almost) the same time when it opens it: give the
		// read a moment to start and take size and mtime from its answer instead of asking twice.
		if (this.opts.coalesceMs > 0 && !a.reads.has(path)) {
			await sleep(this.opts.coalesceMs);
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
			const entry = await this.operation(a, agentId, path, (api) => api.statWorkspace(agentId, path));
			return this.learn(a, agentId, path, statOf(entry), started);
		} catch (err) {
			if (isStatus(err, 404)) {
				this.forgetMissing(a, path);
			}
			throw err;
		}
	}

	/** The pending listing of the nearest folder above `path` that is being listed, if any. */
	private pendingListingAbove(a: AgentCache, path: string): Promise<unknown> | undefined {
		for (let p = path; p !== '';) {
			p = parentPath(p);
			const pending = a.listing.get(p);
			if (pending) {
				return pending;
			}
		}
		return undefined;
	}

	/**
	 * The root is a folder without asking (VS Code stats it when a window opens and answers a
	 * failure with "Workspace does not exist", dropping the folder), except once the agent's
	 * interface is known to differ: VS Code shows a failed root *listing* as an empty folder without
	 * a word, but a failed root *stat* as an error on the folder, so the root then fails with the
	 * error (a `changed` event for the root, fired when the state is entered, makes VS Code look again).
	 * The same holds while the agent's workspace is unavailable (signed out, the service unreachable):
	 * the root fails with the reason until the service answers again.
	 */
	private async statRoot(agentId: string, a: AgentCache): Promise<EntryStat> {
		if (a.interfaceError) {
			throw a.interfaceError;
		}
		const unavailable = this.unavailable.get(agentId);
		if (unavailable) {
			throw unavailable;
		}
		return { type: 'directory', size: 0, mtime: a.rootMtime };
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
			entries = await this.operation(a, agentId, path, (api) => api.listWorkspaceAll(agentId, path));
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
		const dropped = new Map<string, number>();
		for (const e of entries) {
			const problem = entryNameProblem((e as { name?: unknown } | null)?.name, names);
			if (problem !== undefined) {
				dropped.set(problem, (dropped.get(problem) ?? 0) + 1);
				continue;
			}
			const child = joinPath(path, e.name);
			names.add(e.name);
			const stat = statOf(e);
			a.known.set(child, {
				stat:
					stat.type === 'file' ? this.present(a, agentId, child, stat, started, true) : { ...stat, mtime: stat.mtime ?? started },
				at: started,
			});
			out.push([e.name, stat.type]);
			if (stat.type === 'directory') {
				a.virtualDirs.delete(child);
			}
		}
		if (dropped.size > 0) {
			this.reportDropped(a, agentId, path, dropped);
		}
		a.listings.set(path, { names, at: started });
		if (path !== '' && !a.known.has(path)) {
			a.known.set(path, { stat: { type: 'directory', size: 0, mtime: started }, at: started });
		}
		return [...out, ...this.virtualChildren(a, path, names)];
	}

	/** Logs, once per folder, that a listing had unusable entries (never handed to VS Code). */
	private reportDropped(a: AgentCache, agentId: string, path: string, dropped: Map<string, number>): void {
		if (a.reportedFolders.has(path)) {
			return;
		}
		a.reportedFolders.add(path);
		const total = [...dropped.values()].reduce((sum, n) => sum + n, 0);
		const why = [...dropped].map(([problem, n]) => `${n} ${problem}`).join(', ');
		this.log?.warn(
			`Workspace listing of /${path} (agent ${agentId}): ignored ${total} ${total === 1 ? 'entry' : 'entries'} with unusable names (${why}).`,
		);
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
		const { content, stat } = await this.read(agentId, path, true);
		this.markOpened(this.agent(agentId), path, stat);
		return content;
	}

	/** Remembers the version of a file VS Code now holds (see `writeFile`). */
	private markOpened(a: AgentCache, path: string, stat: EntryStat): void {
		const shown = a.shown.get(path);
		if (shown && stat.type === 'file') {
			shown.opened = { mtime: stat.mtime, size: stat.size };
		}
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
			throw new WorkspaceFsError(
				'TooLarge',
				path,
				`${baseName(path)} is ${mb(size)} MB, more than the ${mb(limit)} MB set in cloudAgents.workspace.largeFileWarningMb; confirm to open it.`,
			);
		}
	}

	private async fetchFile(a: AgentCache, agentId: string, path: string, checkSize: boolean): Promise<ReadResult> {
		const length = this.opts.chunkLength;
		try {
			for (let attempt = 0; ; attempt++) {
				const started = this.opts.now();
				const first = await this.operation(a, agentId, path, (api) => api.readWorkspaceFile(agentId, path, { length }));
				if (first.eof) {
					const whole = this.learn(
						a,
						agentId,
						path,
						{ type: 'file', size: first.content.byteLength, mtime: count(first.mtime_unix_ms) },
						started,
					);
					return { content: first.content, stat: whole };
				}
				const stat = this.learn(
					a,
					agentId,
					path,
					{ type: 'file', size: count(first.size) ?? 0, mtime: count(first.mtime_unix_ms) },
					started,
				);
				if (checkSize) {
					this.checkLarge(a, agentId, path, first.size);
				}
				const content = await this.operation(a, agentId, path, (api) =>
					api.readWorkspaceFileRest(agentId, path, first, { chunkLength: length }),
				);
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
	async writeFile(
		agentId: string,
		rawPath: string,
		content: Uint8Array,
		flags: { create: boolean; overwrite: boolean },
	): Promise<EntryStat> {
		const path = normalizeWorkspacePath(rawPath);
		const a = this.agent(agentId);
		if (path === '' || a.virtualDirs.has(path)) {
			throw new WorkspaceFsError('FileIsADirectory', path);
		}
		if (content.byteLength > LIMITS.writeBytes) {
			const mib = (content.byteLength / (1024 * 1024)).toFixed(1);
			throw new WorkspaceFsError(
				'TooLarge',
				path,
				`${baseName(path)} is ${mib} MiB; the service accepts files of at most 32 MiB. Nothing was written.`,
			);
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
		this.checkNotChangedSinceRead(a, path);
		const started = this.opts.now();
		const result = await this.send(a, agentId, path, (api) => api.writeWorkspaceFile(agentId, path, content));
		const stat = this.learn(
			a,
			agentId,
			path,
			{
				type: 'file',
				size: count(result.size) ?? content.byteLength,
				mtime: count(result.mtime_unix_ms) ?? started,
			},
			this.opts.now(),
			false,
		);
		this.markOpened(a, path, stat);
		this.fire([{ type: existed ? 'changed' : 'created', agentId, path }]);
		return stat;
	}

	/**
	 * Refuses (once) to overwrite a file whose service version changed since VS Code last read or
	 * wrote it while its size stayed the same. VS Code's own save check ("the file is newer") needs
	 * a newer mtime and another size; the reported mtime grows on any change (see `present`), so a
	 * change with another size reaches VS Code's conflict dialog, and a write after it is the user's
	 * "Overwrite". A same-size change (an mtime gone backwards, an edit of equal length) would slip
	 * through, so it is refused here; the next save goes ahead (the user was told).
	 */
	private checkNotChangedSinceRead(a: AgentCache, path: string): void {
		const current = a.known.get(path)?.stat;
		const shown = a.shown.get(path);
		const opened = shown?.opened;
		if (!current || current.type !== 'file' || !shown || !opened) {
			return;
		}
		if (current.mtime > opened.mtime && current.size === opened.size) {
			shown.opened = { mtime: current.mtime, size: current.size };
			throw new WorkspaceFsError(
				'Conflict',
				path,
				`${baseName(path)} changed in the agent workspace since it was opened here (its modification time or content changed). Nothing was written. Save again to overwrite the agent's version, or revert the file to load it.`,
			);
		}
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
			await this.send(a, agentId, path, (api) => api.deleteWorkspacePath(agentId, path, { recursive: options.recursive }));
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

	/** Copies a file or folder: writes every target file and verifies it; the source stays (see workspaceTransfer.ts). */
	async copy(agentId: string, rawFrom: string, rawTo: string, options: { overwrite: boolean }): Promise<void> {
		await transfer(this.transferHost(agentId), normalizeWorkspacePath(rawFrom), normalizeWorkspacePath(rawTo), {
			...options,
			move: false,
		});
	}

	/**
	 * Moves a file or folder without losing data: writes every target file, verifies it (size
	 * and type from a fresh stat), and only then deletes the source (see workspaceTransfer.ts).
	 */
	async rename(agentId: string, rawFrom: string, rawTo: string, options: { overwrite: boolean }): Promise<void> {
		await transfer(this.transferHost(agentId), normalizeWorkspacePath(rawFrom), normalizeWorkspacePath(rawTo), {
			...options,
			move: true,
		});
	}

	/** One agent's workspace as a copy or move sees it: through this cache, so what it learns stays. */
	private transferHost(agentId: string): TransferHost {
		return {
			stat: (path) => this.stat(agentId, path),
			tryStat: (path) => this.tryStat(agentId, path),
			readDirectory: (path) => this.readDirectory(agentId, path),
			readFile: async (path) => (await this.read(agentId, path, false)).content,
			writeFile: (path, content) => this.writeFile(agentId, path, content, { create: true, overwrite: true }),
			statAtService: async (path) => {
				const a = this.agent(agentId);
				const check = await this.operation(a, agentId, path, (api) => api.statWorkspace(agentId, path));
				this.learn(a, agentId, path, statOf(check), this.opts.now(), false);
				return { type: entryType(check), size: check.size };
			},
			delete: (path) => this.delete(agentId, path, { recursive: true }),
			addVirtualDir: (path) => this.agent(agentId).virtualDirs.set(path, this.opts.now()),
			created: (path) => this.fire([{ type: 'created', agentId, path }]),
		};
	}

	// ------------------------------------------------------------------ walk

	/**
	 * Every file of an agent's workspace, by a breadth-first walk of folder listings through this
	 * cache (so later `stat` and `readDirectory` calls are answered from what it learned). Bounded by
	 * `maxFiles`, `maxEntries` and `maxDepth` (default the SAFETY walk limits; `truncated` tells);
	 * folders that vanish meanwhile are skipped; other failures reject.
	 */
	walkFiles(agentId: string, options: WalkOptions = {}): Promise<WalkResult> {
		return walkFiles(
			skippingVanished((dir) => this.readDirectory(agentId, dir)),
			options,
		);
	}

	// ------------------------------------------------------------------ bookkeeping

	private agent(agentId: string): AgentCache {
		let a = this.agents.get(agentId);
		if (!a) {
			let shown = this.shown.get(agentId);
			if (!shown) {
				shown = new Map();
				this.shown.set(agentId, shown);
			}
			a = new AgentCache(shown);
			this.agents.set(agentId, a);
		}
		return a;
	}

	/**
	 * Records what the service said about an existing path (and that its ancestors are real
	 * folders); returns the stat to report (see `present`). `notify` false: the caller changed the
	 * file itself and reports that.
	 */
	private learn(a: AgentCache, agentId: string, path: string, service: ServiceStat, at: number, notify = true): EntryStat {
		const stat: EntryStat =
			service.type === 'file' ? this.present(a, agentId, path, service, at, notify) : { ...service, mtime: service.mtime ?? at };
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
		return stat;
	}

	/**
	 * The stat VS Code gets for a file. VS Code decides "changed since you opened it" (the save
	 * conflict) only when the mtime it holds is lower than the current one, so an mtime that goes
	 * backwards, or a new size under the same mtime, would pass as unchanged and a save would
	 * silently overwrite. Here any change of the service's size or mtime for a path makes the
	 * reported mtime grow (the service's mtime when that is higher, else one more than the last
	 * reported), and a change seen for a file reported before is announced as `changed` (unless
	 * `notify` is false). Unchanged answers keep the reported mtime, so nothing loops.
	 */
	private present(a: AgentCache, agentId: string, path: string, service: ServiceStat, at: number, notify: boolean): EntryStat {
		const last = a.shown.get(path);
		if (last && last.size === service.size && (service.mtime === undefined || last.serviceMtime === service.mtime)) {
			return { type: 'file', size: service.size, mtime: last.mtime };
		}
		let mtime = service.mtime ?? at;
		if (last && mtime <= last.mtime) {
			mtime = last.mtime + 1;
		}
		a.shown.set(path, { size: service.size, serviceMtime: service.mtime ?? last?.serviceMtime, mtime, opened: last?.opened });
		if (last && notify) {
			this.fire([{ type: 'changed', agentId, path }]);
		}
		return { type: 'file', size: service.size, mtime };
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
