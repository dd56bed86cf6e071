/**
 * The comparison engine (issue 21): an agent's workspace folder against a local folder, at bounded
 * cost. Candidates come from the agent-side listing (path, size, mtime); a size difference already
 * means modified; a file is read only when it is a candidate and the sizes are equal, streamed and
 * hashed (never both trees in memory: the result holds paths and facts only). Plain Node, no `vscode`.
 */
import { type Dirent, lstat as lstatCallback } from 'node:fs';
import { lstat, opendir } from 'node:fs/promises';
import { promisify } from 'node:util';
import {
	type CloudAgentsClient,
	LIMITS,
	type Page,
	type WorkspaceEntry,
	eventFileChange,
	isTerminalRunStatus,
	paginate,
	readTimeMember,
} from '../api';
import { throwIfAborted } from '../api/async';
import type { IgnoreRules } from './ignore';
import type { LocalAnswer } from './compareWorker';
import { LocalSide } from './localSide';
import { UnsafePathError, agentPathOf, checkRelativePath, hashAgentFile, localPathOf } from './paths';
import type {
	Baseline,
	BaselineEntry,
	ChangeGroup,
	CompareLimits,
	CompareMode,
	CompareProgress,
	CompareResult,
	Difference,
	FileFacts,
} from './types';

const lstatCb = promisify(lstatCallback);

export const DEFAULT_COMPARE_LIMITS: CompareLimits = {
	maxFiles: 20_000,
	maxFolders: 5_000,
	maxBytes: 512 * 1024 * 1024,
	concurrency: 8,
};

export interface CompareOptions {
	client: CloudAgentsClient;
	agentId: string;
	/** The agent-side folder ('' = the workspace root). */
	agentFolder: string;
	/** The local folder (absolute). */
	localRoot: string;
	mode: CompareMode;
	/** The previous comparison's baseline (none for a first link). */
	baseline?: Baseline;
	ignore: IgnoreRules;
	limits?: Partial<CompareLimits>;
	signal?: AbortSignal;
	onProgress?(p: CompareProgress): void;
	/** The clock of `baseline.taken` (default Date.now). */
	now?(): number;
}

interface AgentFile {
	path: string;
	size: number;
	mtime: number;
}

/** A file equal in size on both sides, hashed locally, whose agent-side hash is to be read (or reused). */
interface ReadItem {
	file: AgentFile;
	group: ChangeGroup;
	agent: FileFacts;
	local: FileFacts;
	localSha: string;
	reuse?: string;
}

type LocalState = { kind: 'missing' } | { kind: 'file'; facts: FileFacts } | { kind: 'symlink' } | { kind: 'other' };

function parentOf(rel: string): string {
	const slash = rel.lastIndexOf('/');
	return slash < 0 ? '' : rel.slice(0, slash);
}

function joinRel(folder: string, name: string): string {
	return folder === '' ? name : `${folder}/${name}`;
}

function byPath(a: { path: string }, b: { path: string }): number {
	return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function plural(n: number, one: string, many = `${one}s`): string {
	return `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
}

function mib(bytes: number): string {
	return `${Math.round(bytes / (1024 * 1024)).toLocaleString('en-US')} MiB`;
}

async function localState(localRoot: string, rel: string): Promise<LocalState> {
	try {
		// The callback lstat: for thousands of files about half the CPU of fs/promises' (see paths.ts).
		const st = await lstatCb(localPathOf(localRoot, rel));
		if (st.isSymbolicLink()) {
			return { kind: 'symlink' };
		}
		return st.isFile() ? { kind: 'file', facts: { size: st.size, mtime: st.mtimeMs } } : { kind: 'other' };
	} catch (err) {
		const code = (err as { code?: unknown } | null)?.code;
		if (code === 'ENOENT' || code === 'ENOTDIR') {
			return { kind: 'missing' };
		}
		throw err;
	}
}

/** Runs `work` over `items` with at most `limit` at once; stops at the first error. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
	let next = 0;
	let failed = false;
	const worker = async (): Promise<void> => {
		while (!failed && next < items.length) {
			const item = items[next++]!;
			try {
				await work(item);
			} catch (err) {
				failed = true;
				throw err;
			}
		}
	};
	await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
}

/** Local jobs posted to the comparison's worker at once. */
const LOCAL_BATCH = 250;

/** Folders whose listing is asked for at once (the one read and those next in the queue). */
const LIST_AHEAD = 4;

/** At most this many ended runs have their events read for deletions at a link (the newest). */
export const MAX_RUNS_READ = 20;
/** Events read per run at most, and how long one run's events may take. */
const MAX_EVENTS_PER_RUN = 10_000;
const RUN_EVENTS_DEADLINE_MS = 10_000;

/** What the agent's runs tell a first comparison. */
interface RunsRead {
	/** Start of the agent's first run (ms): the earliest `started_at`, else `created_at`, of its runs. */
	since: number | undefined;
	/**
	 * Paths (relative to the agent folder) the runs' events say were deleted last: hints only, a
	 * path counts as deleted only when the listing lacks it and the local folder has it.
	 */
	deletedHints: Set<string>;
	/** Runs whose events were read. */
	eventReads: number;
}

/**
 * Reads the agent's runs (one request) and the events of its ended runs (one request each, the
 * newest MAX_RUNS_READ, oldest first, each bounded in count and time): a deletion leaves no trace
 * in a listing, so without a baseline the runs' own word is the only hint of one. Any envelope
 * `eventFileChange` understands counts; a run whose events cannot be read gives no hints.
 */
async function readRuns(
	client: CloudAgentsClient,
	agentId: string,
	agentFolder: string,
	signal: AbortSignal | undefined,
): Promise<RunsRead> {
	const runs = await client.listRuns(agentId, { limit: LIMITS.runListLimit.max, signal });
	let since: number | undefined;
	for (const run of runs) {
		const t = readTimeMember(run.started_at) ?? readTimeMember(run.created_at);
		if (t !== undefined && (since === undefined || t < since)) {
			since = t;
		}
	}
	const deletedHints = new Set<string>();
	const ended = runs
		.filter((r) => isTerminalRunStatus(r.status))
		.slice(0, MAX_RUNS_READ)
		.reverse();
	let eventReads = 0;
	const prefix = agentFolder === '' ? '' : `${agentFolder}/`;
	for (const run of ended) {
		throwIfAborted(signal);
		const deadline = new AbortController();
		const timer = setTimeout(() => deadline.abort(), RUN_EVENTS_DEADLINE_MS);
		const onAbort = (): void => deadline.abort();
		signal?.addEventListener('abort', onAbort, { once: true });
		eventReads++;
		try {
			let n = 0;
			for await (const event of client.streamRunEvents(agentId, run.id, { signal: deadline.signal })) {
				if (++n > MAX_EVENTS_PER_RUN) {
					break;
				}
				const change = eventFileChange(event);
				const path = change?.path.replace(/^\/+/, '');
				if (!change || path === undefined || !path.startsWith(prefix)) {
					continue;
				}
				const rel = path.slice(prefix.length);
				if (change.change === 'deleted') {
					deletedHints.add(rel);
				} else {
					deletedHints.delete(rel);
				}
			}
		} catch (err) {
			throwIfAborted(signal);
			void err; // hints only: a run whose events cannot be read gives none
		} finally {
			clearTimeout(timer);
			signal?.removeEventListener('abort', onAbort);
		}
	}
	return { since, deletedHints, eventReads };
}

/** Compares the agent's folder with the local folder (see CompareMode for what each mode does). */
export async function compareFolders(o: CompareOptions): Promise<CompareResult> {
	const limits: CompareLimits = { ...DEFAULT_COMPARE_LIMITS, ...o.limits };
	const { client, agentId, signal } = o;
	const stats = {
		foldersListed: 0,
		runListsRead: 0,
		runEventsRead: 0,
		filesRead: 0,
		bytesRead: 0,
		localFilesHashed: 0,
		workerHeapPeak: 0,
	};
	const notes: string[] = [];
	const progress = (message: string, done: number, total?: number): void => o.onProgress?.({ message, done, total });
	throwIfAborted(signal);
	if (o.agentFolder !== '') {
		checkRelativePath(o.agentFolder);
	}
	const baseline = o.mode === 'link' ? undefined : o.baseline;

	// Since when a file counts as changed by the agent.
	let since: number | undefined;
	let deletedHints = new Set<string>();
	if (baseline) {
		since = baseline.since;
	} else {
		progress('Reading the agent’s runs…', 0);
		const runs = await readRuns(client, agentId, o.agentFolder, signal);
		since = runs.since;
		deletedHints = runs.deletedHints;
		stats.runListsRead = 1;
		stats.runEventsRead = runs.eventReads;
	}

	// 1. The agent-side listing, breadth first, bounded.
	const agentFiles = new Map<string, AgentFile>();
	/** Folders listed to the end (absence there means the agent has no such file). */
	const complete = new Set<string>();
	const queue: string[] = [''];
	let unsafeNames = 0;
	let fileCapHit = false;
	let foldersLeft = 0;
	// The first page of the next folders in the queue is asked for while one is read (LIST_AHEAD at
	// once, never more than the folder limit): one folder at a time, the listing of 112 folders took
	// about as long as reading 1,500 files.
	const ahead = new AbortController();
	const onAbort = (): void => ahead.abort();
	signal?.addEventListener('abort', onAbort, { once: true });
	const firstPages = new Map<string, Promise<Page<WorkspaceEntry>>>();
	let listingsStarted = 0;
	const pathOf = (folder: string): string => (folder === '' ? o.agentFolder : agentPathOf(o.agentFolder, folder));
	const firstPageOf = (folder: string): Promise<Page<WorkspaceEntry>> => {
		let page = firstPages.get(folder);
		if (page === undefined) {
			listingsStarted++;
			page = client.listWorkspace(agentId, pathOf(folder), { limit: LIMITS.workspaceListLimit.max, signal: ahead.signal });
			page.catch(() => undefined); // awaited when its folder's turn comes (or dropped when the listing stops)
			firstPages.set(folder, page);
		}
		return page;
	};
	try {
		while (queue.length > 0) {
			throwIfAborted(signal);
			if (stats.foldersListed >= limits.maxFolders) {
				foldersLeft = queue.length;
				break;
			}
			const folder = queue.shift()!;
			progress(`Listing ${folder === '' ? 'the agent’s folder' : folder}…`, agentFiles.size);
			stats.foldersListed++;
			const path = pathOf(folder);
			const first = firstPageOf(folder);
			firstPages.delete(folder);
			for (const next of queue) {
				if (firstPages.size >= LIST_AHEAD - 1 || listingsStarted >= limits.maxFolders) {
					break;
				}
				void firstPageOf(next);
			}
			const seen = new Set<string>();
			let stopped = false;
			const pages = paginate((cursor) =>
				cursor === undefined
					? first
					: client.listWorkspace(agentId, path, { limit: LIMITS.workspaceListLimit.max, signal, cursor }),
			);
			for await (const entry of pages) {
				const name = entry.name;
				let rel: string;
				try {
					if (name.includes('/')) {
						throw new UnsafePathError(name, 'a name with a slash');
					}
					rel = checkRelativePath(joinRel(folder, checkRelativePath(name)));
					agentPathOf(o.agentFolder, rel);
				} catch (err) {
					if (!(err instanceof UnsafePathError) && !(err instanceof Error && err.name === 'ValidationError')) {
						throw err;
					}
					unsafeNames++;
					continue;
				}
				if (seen.has(name)) {
					unsafeNames++; // a name listed twice: the first one stands
					continue;
				}
				seen.add(name);
				if (entry.type === 'directory') {
					if (!o.ignore.ignores(rel, true)) {
						queue.push(rel);
					}
				} else if (entry.type === 'file') {
					if (o.ignore.ignores(rel, false)) {
						continue;
					}
					if (agentFiles.size >= limits.maxFiles) {
						fileCapHit = true;
						stopped = true;
						break;
					}
					agentFiles.set(rel, { path: rel, size: entry.size, mtime: entry.mtime_unix_ms });
				}
				// symbolic links and other kinds are not compared
			}
			if (stopped) {
				foldersLeft = queue.length;
				break;
			}
			complete.add(folder);
		}
	} finally {
		signal?.removeEventListener('abort', onAbort);
		ahead.abort(); // first pages asked for ahead and not read: the listing stopped at a limit or failed
	}
	const listingComplete = !fileCapHit && foldersLeft === 0;
	if (fileCapHit) {
		notes.push(
			`Listing stopped at ${plural(limits.maxFiles, 'agent-side file')} (the limit): files listed after those were not compared, and files missing from the listing were not reported as deleted.`,
		);
	} else if (foldersLeft > 0) {
		notes.push(
			`Listing stopped after ${plural(limits.maxFolders, 'agent-side folder')} (the limit): the files of ${plural(foldersLeft, 'folder')} not listed (and their subfolders) were not compared.`,
		);
	}
	if (unsafeNames > 0) {
		notes.push(
			`${plural(unsafeNames, 'agent-side name')} could not be used as a local path (unsafe or repeated) and ${unsafeNames === 1 ? 'was' : 'were'} skipped.`,
		);
	}
	/** True when the listing saw the folder of `rel` to the end (so its absence there is real). */
	const listedFolderOf = (rel: string): boolean => {
		for (let d = parentOf(rel); ; d = parentOf(d)) {
			if (complete.has(d)) {
				return d === parentOf(rel) || listingComplete;
			}
			if (d === '') {
				return false;
			}
		}
	};

	// 2. Candidates and, in `everything`, the rest.
	const isCandidate = (f: AgentFile): boolean => {
		if (since !== undefined && f.mtime >= since) {
			return true;
		}
		if (baseline) {
			const b = baseline.entries[f.path];
			return b === undefined || b.size !== f.size || b.mtime !== f.mtime || b.agentChanged === true;
		}
		return false;
	};
	const work: { file: AgentFile; group: ChangeGroup }[] = [];
	for (const f of agentFiles.values()) {
		if (isCandidate(f)) {
			work.push({ file: f, group: 'agent' });
		} else if (o.mode === 'everything') {
			work.push({ file: f, group: 'other' });
		}
	}
	work.sort((a, b) => byPath(a.file, b.file));

	const differences: Difference[] = [];
	// No prototype: an agent-side file named "__proto__" is a key like any other.
	const entries = Object.create(null) as Record<string, BaselineEntry>;
	for (const f of agentFiles.values()) {
		entries[f.path] = { size: f.size, mtime: f.mtime };
	}
	let overBytes = 0;
	let localSymlinks = 0;
	let localOther = 0;
	let done = 0;
	const finished = (): void => {
		done++;
		if (done % 50 === 0 || done === work.length) {
			progress(`Comparing ${plural(work.length, 'file')}…`, done, work.length);
		}
	};
	progress(`Comparing ${plural(work.length, 'file')}…`, 0, work.length);
	// Two passes: the local side of every file first (in a worker thread: localSide.ts), then the
	// agent-side reads of those still equal in size, batch by batch as the worker answers. Alternating
	// a local file's four or five asynchronous file-system calls with an HTTP request per file, 5,000
	// files of 256 bytes took 3.8–4.7 s on the bench's machine (see bench "compare").
	const compareRead = async ({ file, group, agent, local, localSha, reuse }: ReadItem): Promise<void> => {
		throwIfAborted(signal);
		let agentSha = reuse;
		if (agentSha === undefined) {
			const read = await hashAgentFile(client, agentId, agentPathOf(o.agentFolder, file.path), signal, agent);
			stats.filesRead++;
			stats.bytesRead += read.size;
			agentSha = read.sha256;
			if (read.size === file.size && read.mtime === file.mtime) {
				entries[file.path] = { size: file.size, mtime: file.mtime, sha256: read.sha256 };
			}
		} else {
			entries[file.path] = { size: file.size, mtime: file.mtime, sha256: reuse };
		}
		if (localSha !== agentSha) {
			differences.push({ path: file.path, kind: 'modified', group, agent, local });
		}
		finished();
	};
	const localSide = new LocalSide(limits.maxBytes, signal);
	try {
		const batches: { items: typeof work; answers: Promise<LocalAnswer[]> }[] = [];
		for (let i = 0; i < work.length; i += LOCAL_BATCH) {
			const items = work.slice(i, i + LOCAL_BATCH);
			const jobs = items.map(({ file }) => {
				const before = baseline?.entries[file.path];
				const reuse = before?.sha256 !== undefined && before.size === file.size && before.mtime === file.mtime;
				return { abs: localPathOf(o.localRoot, file.path), size: file.size, cost: (reuse ? 0 : file.size) + file.size };
			});
			batches.push({ items, answers: localSide.examine(jobs) });
		}
		for (const batch of batches) {
			const answers = await batch.answers;
			throwIfAborted(signal);
			const reads: ReadItem[] = [];
			batch.items.forEach(({ file, group }, i) => {
				const local = answers[i]!;
				const agent: FileFacts = { size: file.size, mtime: file.mtime };
				if (local.kind === 'error') {
					throw Object.assign(new Error(local.message), { code: local.code });
				} else if (local.kind === 'missing') {
					differences.push({ path: file.path, kind: 'added', group, agent });
				} else if (local.kind === 'symlink') {
					localSymlinks++;
				} else if (local.kind === 'other') {
					localOther++;
				} else if (local.size !== file.size) {
					differences.push({ path: file.path, kind: 'modified', group, agent, local: { size: local.size, mtime: local.mtime } });
				} else if (local.overBytes || local.sha256 === undefined) {
					overBytes++;
				} else {
					stats.localFilesHashed++;
					const before = baseline?.entries[file.path];
					const reuse =
						before?.sha256 !== undefined && before.size === file.size && before.mtime === file.mtime
							? before.sha256
							: undefined;
					reads.push({ file, group, agent, local: { size: local.size, mtime: local.mtime }, localSha: local.sha256, reuse });
					return; // finished once read
				}
				finished();
			});
			await pool(reads, limits.concurrency, compareRead);
		}
	} finally {
		await localSide.close();
		stats.workerHeapPeak = localSide.heapPeak;
	}
	// Hashes kept from the baseline for files not compared this time, when unchanged.
	for (const f of agentFiles.values()) {
		const before = baseline?.entries[f.path];
		if (entries[f.path]!.sha256 === undefined && before?.sha256 !== undefined && before.size === f.size && before.mtime === f.mtime) {
			entries[f.path]!.sha256 = before.sha256;
		}
	}

	// 3. Deleted by the agent: in the baseline (at a link: named deleted by its runs' events), gone
	// from a fully listed folder, still a local file.
	const deleted: string[] = [];
	const deletedSet = new Set<string>();
	{
		const gone = new Set<string>(baseline ? [...Object.keys(baseline.entries), ...baseline.deleted] : deletedHints);
		for (const rel of [...gone].sort()) {
			throwIfAborted(signal);
			try {
				checkRelativePath(rel);
			} catch {
				continue; // a tampered baseline: never used as a path
			}
			if (agentFiles.has(rel) || !listedFolderOf(rel) || o.ignore.ignores(rel, false)) {
				continue;
			}
			const local = await localState(o.localRoot, rel);
			if (local.kind === 'file') {
				deleted.push(rel);
				deletedSet.add(rel);
				differences.push({ path: rel, kind: 'deleted', group: 'agent', local: local.facts });
			}
		}
	}

	// 4. `everything`: local files the agent side lacks.
	if (o.mode === 'everything') {
		const local = await walkLocal(o, limits, agentFiles, listedFolderOf, deletedSet, differences);
		localSymlinks += local.symlinks;
		notes.push(...local.notes);
	}

	if (overBytes > 0) {
		notes.push(
			`${plural(overBytes, 'file')} of equal size on both sides ${overBytes === 1 ? 'was' : 'were'} not compared: reading ${overBytes === 1 ? 'it' : 'them'} would pass the limit of ${mib(limits.maxBytes)} read.`,
		);
	}
	if (localSymlinks > 0) {
		notes.push(
			`${plural(localSymlinks, 'local symbolic link')} ${localSymlinks === 1 ? 'was' : 'were'} not followed and not compared.`,
		);
	}
	if (localOther > 0) {
		notes.push(
			`${plural(localOther, 'local path')} that ${localOther === 1 ? 'is' : 'are'} not a regular file ${localOther === 1 ? 'was' : 'were'} not compared.`,
		);
	}
	for (const d of differences) {
		const entry = d.group === 'agent' ? entries[d.path] : undefined;
		if (entry) {
			entry.agentChanged = true;
		}
	}
	differences.sort(byPath);
	progress('Compared', work.length, work.length);
	return {
		differences,
		baseline: { version: 1, since, taken: (o.now ?? Date.now)(), entries, deleted },
		incomplete: notes.length > 0 ? `Compared ${plural(work.length - overBytes, 'agent-side file')}. ${notes.join(' ')}` : undefined,
		stats,
	};
}

/** Walks the local folder (no symbolic link followed, ignore rules, bounded) for files the agent side lacks. */
async function walkLocal(
	o: CompareOptions,
	limits: CompareLimits,
	agentFiles: ReadonlyMap<string, AgentFile>,
	listedFolderOf: (rel: string) => boolean,
	deleted: ReadonlySet<string>,
	differences: Difference[],
): Promise<{ symlinks: number; notes: string[] }> {
	const notes: string[] = [];
	let symlinks = 0;
	let folders = 0;
	let files = 0;
	let unusable = 0;
	let stoppedAt: 'folders' | 'files' | undefined;
	const queue: string[] = [''];
	walk: while (queue.length > 0) {
		throwIfAborted(o.signal);
		if (folders >= limits.maxFolders) {
			stoppedAt = 'folders';
			break;
		}
		const folder = queue.shift()!;
		folders++;
		o.onProgress?.({ message: `Listing local ${folder === '' ? 'folder' : folder}…`, done: files });
		let dir;
		try {
			dir = await opendir(folder === '' ? o.localRoot : localPathOf(o.localRoot, folder));
		} catch (err) {
			const code = (err as { code?: unknown } | null)?.code;
			if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EACCES') {
				continue;
			}
			throw err;
		}
		for await (const d of dir as AsyncIterable<Dirent>) {
			let rel: string;
			try {
				rel = checkRelativePath(joinRel(folder, checkRelativePath(d.name)));
			} catch {
				unusable++;
				continue;
			}
			if (d.isSymbolicLink()) {
				// (one the agent side lists was counted when its file was compared)
				if (!agentFiles.has(rel) && !o.ignore.ignores(rel, false)) {
					symlinks++;
				}
			} else if (d.isDirectory()) {
				if (!o.ignore.ignores(rel, true)) {
					queue.push(rel);
				}
			} else if (d.isFile()) {
				if (o.ignore.ignores(rel, false)) {
					continue;
				}
				if (++files > limits.maxFiles) {
					stoppedAt = 'files';
					break walk; // leaving the loop closes the folder
				}
				if (agentFiles.has(rel) || deleted.has(rel) || !listedFolderOf(rel)) {
					continue;
				}
				const st = await lstat(localPathOf(o.localRoot, rel)).catch(() => undefined);
				if (st?.isFile()) {
					differences.push({ path: rel, kind: 'deleted', group: 'other', local: { size: st.size, mtime: st.mtimeMs } });
				}
			}
		}
	}
	if (stoppedAt === 'folders') {
		notes.push(
			`The local walk stopped after ${plural(limits.maxFolders, 'folder')} (the limit): local files in folders not walked were not compared.`,
		);
	} else if (stoppedAt === 'files') {
		notes.push(`The local walk stopped at ${plural(limits.maxFiles, 'file')} (the limit): local files past those were not compared.`);
	}
	if (unusable > 0) {
		notes.push(
			`${plural(unusable, 'local name')} that cannot be a relative path here (a backslash or a control character) ${unusable === 1 ? 'was' : 'were'} skipped.`,
		);
	}
	return { symlinks, notes };
}
