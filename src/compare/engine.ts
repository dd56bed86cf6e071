/**
 * The comparison engine (issue 21): an agent's workspace folder against a local folder, at bounded
 * cost. Candidates come from the agent-side listing (path, size, mtime); a size difference already
 * means modified; a file is read only when it is a candidate and the sizes are equal, streamed and
 * hashed (never both trees in memory: the result holds paths and facts only). The local folder is
 * reached through its seam (localFiles.ts: Node's worker thread, or VS Code's file system in the
 * browser). No `vscode`, no Node.
 */
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
import { throwIfAborted } from '../base/async';
import { forEachLimited } from '../util/concurrency';
import type { IgnoreRules } from './ignore';
import type { LocalAnswer, LocalFiles } from './localFiles';
import { MAX_WHOLE_READ } from './fileSystemLocalFiles';
import { UnsafePathError, agentPathOf, checkRelativePath } from '../util/paths';
import { hashAgentFile } from './agentHash';
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
	/** The local folder (src/compare/localFiles.ts: the platform's). */
	local: LocalFiles;
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

/** Local jobs handed to the local side at once. */
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

/** What one comparison carries from step to step: its options, limits, counters and notes. */
interface Comparison {
	o: CompareOptions;
	limits: CompareLimits;
	stats: CompareResult['stats'];
	/** Sentences for `incomplete`, in the order the steps add them. */
	notes: string[];
	progress(message: string, done: number, total?: number): void;
	/** The previous baseline, except at a link (which starts afresh). */
	baseline: Baseline | undefined;
}

/** The agent-side listing: its files, and how far it got. */
interface AgentListing {
	files: Map<string, AgentFile>;
	/** Folders listed to the end (absence there means the agent has no such file). */
	complete: Set<string>;
	unsafeNames: number;
	fileCapHit: boolean;
	foldersLeft: number;
}

/** A file to compare and the group its difference goes to. */
interface WorkItem {
	file: AgentFile;
	group: ChangeGroup;
}

/** Compares the agent's folder with the local folder (see CompareMode for what each mode does): list → hash → diff → report. */
export async function compareFolders(o: CompareOptions): Promise<CompareResult> {
	const c: Comparison = {
		o,
		limits: { ...DEFAULT_COMPARE_LIMITS, ...o.limits },
		stats: { foldersListed: 0, runListsRead: 0, runEventsRead: 0, filesRead: 0, bytesRead: 0, localFilesHashed: 0, workerHeapPeak: 0 },
		notes: [],
		progress: (message, done, total) => o.onProgress?.({ message, done, total }),
		baseline: o.mode === 'link' ? undefined : o.baseline,
	};
	throwIfAborted(o.signal);
	if (o.agentFolder !== '') {
		checkRelativePath(o.agentFolder);
	}
	const { since, deletedHints } = await changedSince(c);
	const listing = await listAgentSide(c);
	const listedFolderOf = noteListing(c, listing);
	const work = candidates(c, listing.files, since);
	const compared = await hashAndDiff(c, work, listing.files);
	const deleted = await agentDeletions(c, listing.files, deletedHints, listedFolderOf, compared.differences);
	if (o.mode === 'everything') {
		const local = await walkLocal(o, c.limits, listing.files, listedFolderOf, new Set(deleted), compared.differences);
		compared.localSymlinks += local.symlinks;
		c.notes.push(...local.notes);
	}
	return report(c, work.length, compared, since, deleted);
}

/** Since when a file counts as changed by the agent: the baseline's word, else its runs' (with the deletions they name). */
async function changedSince(c: Comparison): Promise<{ since: number | undefined; deletedHints: Set<string> }> {
	if (c.baseline) {
		return { since: c.baseline.since, deletedHints: new Set() };
	}
	c.progress('Reading the agent’s runs…', 0);
	const runs = await readRuns(c.o.client, c.o.agentId, c.o.agentFolder, c.o.signal);
	c.stats.runListsRead = 1;
	c.stats.runEventsRead = runs.eventReads;
	return { since: runs.since, deletedHints: runs.deletedHints };
}

/** 1. The agent-side listing, breadth first, bounded. */
async function listAgentSide(c: Comparison): Promise<AgentListing> {
	const { o, limits, stats } = c;
	const { client, agentId, signal } = o;
	const listing: AgentListing = { files: new Map(), complete: new Set(), unsafeNames: 0, fileCapHit: false, foldersLeft: 0 };
	const queue: string[] = [''];
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
				listing.foldersLeft = queue.length;
				break;
			}
			const folder = queue.shift()!;
			c.progress(`Listing ${folder === '' ? 'the agent’s folder' : folder}…`, listing.files.size);
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
			const pages = paginate((cursor) =>
				cursor === undefined
					? first
					: client.listWorkspace(agentId, path, { limit: LIMITS.workspaceListLimit.max, signal, cursor }),
			);
			if (!(await takeFolder(c, listing, folder, pages, queue))) {
				listing.foldersLeft = queue.length;
				break;
			}
			listing.complete.add(folder);
		}
	} finally {
		signal?.removeEventListener('abort', onAbort);
		ahead.abort(); // first pages asked for ahead and not read: the listing stopped at a limit or failed
	}
	return listing;
}

/** Takes one folder's entries into the listing (subfolders onto `queue`); false when the file limit stopped it. */
async function takeFolder(
	c: Comparison,
	listing: AgentListing,
	folder: string,
	pages: AsyncIterable<WorkspaceEntry>,
	queue: string[],
): Promise<boolean> {
	const seen = new Set<string>();
	await c.o.ignore.prepare(folder);
	for await (const entry of pages) {
		const name = entry.name;
		let rel: string;
		try {
			if (name.includes('/')) {
				throw new UnsafePathError(name, 'a name with a slash');
			}
			rel = checkRelativePath(joinRel(folder, checkRelativePath(name)));
			agentPathOf(c.o.agentFolder, rel);
		} catch (err) {
			if (!(err instanceof UnsafePathError) && !(err instanceof Error && err.name === 'ValidationError')) {
				throw err;
			}
			listing.unsafeNames++;
			continue;
		}
		if (seen.has(name)) {
			listing.unsafeNames++; // a name listed twice: the first one stands
			continue;
		}
		seen.add(name);
		if (entry.type === 'directory') {
			if (!c.o.ignore.ignores(rel, true)) {
				queue.push(rel);
			}
		} else if (entry.type === 'file') {
			if (c.o.ignore.ignores(rel, false)) {
				continue;
			}
			if (listing.files.size >= c.limits.maxFiles) {
				listing.fileCapHit = true;
				return false;
			}
			listing.files.set(rel, { path: rel, size: entry.size, mtime: entry.mtime_unix_ms });
		}
		// symbolic links and other kinds are not compared
	}
	return true;
}

/** Notes what the listing left out; returns whether a path's folder was listed to the end (so its absence there is real). */
function noteListing(c: Comparison, listing: AgentListing): (rel: string) => boolean {
	const { limits, notes } = c;
	const listingComplete = !listing.fileCapHit && listing.foldersLeft === 0;
	if (listing.fileCapHit) {
		notes.push(
			`Listing stopped at ${plural(limits.maxFiles, 'agent-side file')} (the limit): files listed after those were not compared, and files missing from the listing were not reported as deleted.`,
		);
	} else if (listing.foldersLeft > 0) {
		notes.push(
			`Listing stopped after ${plural(limits.maxFolders, 'agent-side folder')} (the limit): the files of ${plural(listing.foldersLeft, 'folder')} not listed (and their subfolders) were not compared.`,
		);
	}
	if (listing.unsafeNames > 0) {
		notes.push(
			`${plural(listing.unsafeNames, 'agent-side name')} could not be used as a local path (unsafe or repeated) and ${listing.unsafeNames === 1 ? 'was' : 'were'} skipped.`,
		);
	}
	return (rel: string): boolean => {
		for (let d = parentOf(rel); ; d = parentOf(d)) {
			if (listing.complete.has(d)) {
				return d === parentOf(rel) || listingComplete;
			}
			if (d === '') {
				return false;
			}
		}
	};
}

/** 2. The files to compare: the candidates (changed since `since` or the baseline), and in `everything` the rest; by path. */
function candidates(c: Comparison, files: Map<string, AgentFile>, since: number | undefined): WorkItem[] {
	const { baseline } = c;
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
	const work: WorkItem[] = [];
	for (const f of files.values()) {
		if (isCandidate(f)) {
			work.push({ file: f, group: 'agent' });
		} else if (c.o.mode === 'everything') {
			work.push({ file: f, group: 'other' });
		}
	}
	return work.sort((a, b) => byPath(a.file, b.file));
}

/** What hashing and comparing the work found. */
interface Compared {
	differences: Difference[];
	/** The next baseline's entries: every listed file, with its hash where one was read or kept. */
	entries: Record<string, BaselineEntry>;
	overBytes: number;
	/** Files of equal size the local side does not read (larger than it reads whole: the browser's). */
	tooLarge: number;
	localSymlinks: number;
	localOther: number;
}

/**
 * 3. Hash and diff, in two passes: the local side of every file first (in a worker thread:
 * localSide.ts), then the agent-side reads of those still equal in size, batch by batch as the
 * worker answers. Alternating a local file's four or five asynchronous file-system calls with an
 * HTTP request per file, 5,000 files of 256 bytes took 3.8–4.7 s on the bench's machine (see bench
 * "compare"). Hashes of files not compared this time are kept from the baseline when unchanged.
 */
async function hashAndDiff(c: Comparison, work: WorkItem[], files: Map<string, AgentFile>): Promise<Compared> {
	const { o, limits, stats, baseline } = c;
	const { client, agentId, signal } = o;
	// No prototype: an agent-side file named "__proto__" is a key like any other.
	const entries = Object.create(null) as Record<string, BaselineEntry>;
	for (const f of files.values()) {
		entries[f.path] = { size: f.size, mtime: f.mtime };
	}
	const compared: Compared = { differences: [], entries, overBytes: 0, tooLarge: 0, localSymlinks: 0, localOther: 0 };
	const { differences } = compared;
	let done = 0;
	const finished = (): void => {
		done++;
		if (done % 50 === 0 || done === work.length) {
			c.progress(`Comparing ${plural(work.length, 'file')}…`, done, work.length);
		}
	};
	c.progress(`Comparing ${plural(work.length, 'file')}…`, 0, work.length);
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
	const localSide = o.local.examiner(limits.maxBytes, signal);
	try {
		const batches: { items: WorkItem[]; answers: Promise<LocalAnswer[]> }[] = [];
		for (let i = 0; i < work.length; i += LOCAL_BATCH) {
			const items = work.slice(i, i + LOCAL_BATCH);
			const jobs = items.map(({ file }) => {
				const reuse = reusableHash(baseline, file) !== undefined;
				return { rel: file.path, size: file.size, cost: (reuse ? 0 : file.size) + file.size };
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
					compared.localSymlinks++;
				} else if (local.kind === 'other') {
					compared.localOther++;
				} else if (local.size !== file.size) {
					differences.push({ path: file.path, kind: 'modified', group, agent, local: { size: local.size, mtime: local.mtime } });
				} else if (local.tooLarge) {
					compared.tooLarge++;
				} else if (local.overBytes || local.sha256 === undefined) {
					compared.overBytes++;
				} else {
					stats.localFilesHashed++;
					const reuse = reusableHash(baseline, file);
					reads.push({ file, group, agent, local: { size: local.size, mtime: local.mtime }, localSha: local.sha256, reuse });
					return; // finished once read
				}
				finished();
			});
			await forEachLimited(reads, limits.concurrency, compareRead);
		}
	} finally {
		await localSide.close();
		stats.workerHeapPeak = localSide.heapPeak;
	}
	for (const f of files.values()) {
		const kept = reusableHash(baseline, f);
		if (entries[f.path]!.sha256 === undefined && kept !== undefined) {
			entries[f.path]!.sha256 = kept;
		}
	}
	return compared;
}

/** The baseline's hash of `file` when its size and mtime are unchanged since. */
function reusableHash(baseline: Baseline | undefined, file: AgentFile): string | undefined {
	const before = baseline?.entries[file.path];
	return before?.sha256 !== undefined && before.size === file.size && before.mtime === file.mtime ? before.sha256 : undefined;
}

/**
 * 4. Deleted by the agent: in the baseline (at a link: named deleted by its runs' events), gone
 * from a fully listed folder, still a local file. Adds them to `differences`; returns their paths.
 */
async function agentDeletions(
	c: Comparison,
	files: Map<string, AgentFile>,
	deletedHints: Set<string>,
	listedFolderOf: (rel: string) => boolean,
	differences: Difference[],
): Promise<string[]> {
	const { o, baseline } = c;
	const deleted: string[] = [];
	const gone = new Set<string>(baseline ? [...Object.keys(baseline.entries), ...baseline.deleted] : deletedHints);
	for (const rel of [...gone].sort()) {
		throwIfAborted(o.signal);
		try {
			checkRelativePath(rel);
		} catch {
			continue; // a tampered baseline: never used as a path
		}
		if (files.has(rel) || !listedFolderOf(rel)) {
			continue;
		}
		await o.ignore.prepare(parentOf(rel));
		if (o.ignore.ignores(rel, false)) {
			continue;
		}
		const local = await o.local.stat(rel);
		if (local.kind === 'file') {
			deleted.push(rel);
			differences.push({ path: rel, kind: 'deleted', group: 'agent', local: { size: local.size, mtime: local.mtime } });
		}
	}
	return deleted;
}

/** 5. The result: the notes on what was left out, the agent's changes marked in the next baseline, the differences by path. */
function report(c: Comparison, workCount: number, compared: Compared, since: number | undefined, deleted: string[]): CompareResult {
	const { limits, notes } = c;
	const { differences, entries, overBytes, tooLarge, localSymlinks, localOther } = compared;
	if (overBytes > 0) {
		notes.push(
			`${plural(overBytes, 'file')} of equal size on both sides ${overBytes === 1 ? 'was' : 'were'} not compared: reading ${overBytes === 1 ? 'it' : 'them'} would pass the limit of ${mib(limits.maxBytes)} read.`,
		);
	}
	if (tooLarge > 0) {
		notes.push(
			`${plural(tooLarge, 'file')} of equal size on both sides ${tooLarge === 1 ? 'was' : 'were'} not compared: VS Code for the Web reads a local file whole, and ${tooLarge === 1 ? 'it is' : 'they are'} larger than ${mib(MAX_WHOLE_READ)}.`,
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
	c.progress('Compared', workCount, workCount);
	return {
		differences,
		baseline: { version: 1, since, taken: (c.o.now ?? Date.now)(), entries, deleted },
		incomplete:
			notes.length > 0 ? `Compared ${plural(workCount - overBytes - tooLarge, 'agent-side file')}. ${notes.join(' ')}` : undefined,
		stats: c.stats,
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
		const dir = await o.local.list(folder);
		if (dir === undefined) {
			continue;
		}
		await o.ignore.prepare(folder);
		for await (const d of dir) {
			let rel: string;
			try {
				rel = checkRelativePath(joinRel(folder, checkRelativePath(d.name)));
			} catch {
				unusable++;
				continue;
			}
			if (d.kind === 'symlink') {
				// (one the agent side lists was counted when its file was compared)
				if (!agentFiles.has(rel) && !o.ignore.ignores(rel, false)) {
					symlinks++;
				}
			} else if (d.kind === 'directory') {
				if (!o.ignore.ignores(rel, true)) {
					queue.push(rel);
				}
			} else if (d.kind === 'file') {
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
				const st = await o.local.stat(rel).catch(() => undefined);
				if (st?.kind === 'file') {
					differences.push({ path: rel, kind: 'deleted', group: 'other', local: { size: st.size, mtime: st.mtime } });
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
