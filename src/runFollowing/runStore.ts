import * as vscode from 'vscode';
import type { EventRecord } from '../api';
import { isMissingFileError } from '../util/fileErrors';
import { newestWholeLines, wholeLines } from '../util/lines';
import { localIdName } from '../util/paths';

/**
 * Largest segment file of a run: its events go on in the next segment (`<run>.jsonl.1`, `.2`, …).
 * Each append rewrites the run's last segment (VS Code's file system has no append), so this bounds
 * what one append writes.
 */
export const SEGMENT_MAX_BYTES = 256 * 1024;
/** Most segments of one run read or written: 1 GiB of events. */
const SEGMENTS_MAX = 4096;
/**
 * Runs whose last segment is kept in memory (at most SEGMENT_MAX_BYTES each): the runs being
 * followed (five at most) and a few besides. A run's next append then writes once, instead of
 * finding its last segment again (a stat per segment and a read).
 */
const TAILS_KEPT = 8;

/**
 * Most bytes of failed appends kept for a run's next append (its events are not lost from the history
 * while the file system fails for a while): 1 MiB; past it the oldest are dropped and the history
 * has a gap, which a reload fills from the service (the stream resumes after the last stored seq).
 */
const UNWRITTEN_MAX_BYTES = 1024 * 1024;

/** Reads of a history segment that failed otherwise than missing, in all; and the wait before the second (then twice it). */
const READ_TRIES = 3;
const READ_RETRY_MS = 250;

/** A run's last segment: its index and its bytes as written. */
interface Tail {
	index: number;
	bytes: Uint8Array;
}

/**
 * Run events under the extension's global storage, one JSON record per line, in segment files
 * `<root>/<agentId>/<runId>.jsonl`, `.jsonl.1`, … (a history written by earlier versions is the
 * first segment, whatever its size). Reopening a run shows its history from here and resumes the
 * stream after the last stored seq. Written through `vscode.workspace.fs`, so the same store serves
 * Node's extension host (the disk) and a browser's (VS Code for the Web's storage). Appends are
 * serialised per run, each written beside its segment and moved over it, so a record is whole or
 * absent; a torn line (in a history an earlier version wrote) is skipped on read.
 */
export class RunEventStore {
	private readonly queues = new Map<string, Promise<void>>();
	/** Per run appended to lately (TAILS_KEPT, least recent out first): its last segment as written. */
	private readonly tails = new Map<string, Tail>();
	/** Per run, the bytes of appends whose write failed, written first by its next append. */
	private readonly unwritten = new Map<string, Uint8Array>();

	/** @param root a folder under the extension's global storage. */
	constructor(
		private readonly root: vscode.Uri,
		private readonly fs: vscode.FileSystem = vscode.workspace.fs,
	) {}

	/**
	 * The first segment of one run: `<root>/<agent>/<run>.jsonl`, both ids made safe single names
	 * by `localIdName` (no separator, never `.` or `..`: the file lies inside the root).
	 */
	fileOf(agentId: string, runId: string): vscode.Uri {
		return vscode.Uri.joinPath(this.root, localIdName(agentId), `${localIdName(runId)}.jsonl`);
	}

	/** The stored events of a run, in seq order without duplicates; empty when none are stored. */
	async read(agentId: string, runId: string): Promise<EventRecord[]> {
		const events: EventRecord[] = [];
		let last = -Infinity;
		for await (const line of this.lines(agentId, runId)) {
			try {
				const record = JSON.parse(line) as EventRecord;
				if (typeof record.seq === 'number' && record.seq > last) {
					events.push(record);
					last = record.seq;
				}
			} catch {
				// A torn line from an interrupted write: skipped (the stream resumes after the last good seq).
			}
		}
		return events;
	}

	/** The stored lines of a run that are not blank, in order, one segment in memory at a time (after pending appends). */
	async *lines(agentId: string, runId: string): AsyncGenerator<string> {
		const file = this.fileOf(agentId, runId);
		await this.queues.get(file.toString());
		const decoder = new TextDecoder();
		for (let index = 0; index < SEGMENTS_MAX; index++) {
			const bytes = await this.readSegmentPatiently(file, index);
			if (bytes === undefined) {
				return;
			}
			for (const line of decoder.decode(bytes).split('\n')) {
				if (line.trim() !== '') {
					yield line;
				}
			}
		}
	}

	/** Where a run's history is, as a person reads it: the first segment's path on disk, else its URI. */
	placeOf(agentId: string, runId: string): string {
		const file = this.fileOf(agentId, runId);
		return file.scheme === 'file' ? file.fsPath : file.toString();
	}

	/** Appends events (already de-duplicated by the caller) to the run's last segment. */
	append(agentId: string, runId: string, events: readonly EventRecord[]): Promise<void> {
		if (events.length === 0) {
			return Promise.resolve();
		}
		const file = this.fileOf(agentId, runId);
		const key = file.toString();
		const data = new TextEncoder().encode(events.map((e) => JSON.stringify(e)).join('\n') + '\n');
		const previous = this.queues.get(key) ?? Promise.resolve();
		const next = previous.then(async () => {
			const earlier = this.unwritten.get(key);
			const bytes = earlier ? concat(earlier, data) : data;
			this.unwritten.delete(key);
			try {
				await this.write(file, bytes);
			} catch (err) {
				// A failed write leaves the segment as it was: read it again next time, and write these
				// events then, before the next ones (bounded: the newest whole records in UNWRITTEN_MAX_BYTES).
				this.tails.delete(key);
				this.unwritten.set(key, newestWholeLines(bytes, UNWRITTEN_MAX_BYTES));
				throw err;
			}
		});
		const settled = next.catch(() => undefined);
		this.queues.set(key, settled);
		void settled.then(() => {
			if (this.queues.get(key) === settled) {
				this.queues.delete(key);
			}
		});
		return next;
	}

	/** Resolves when every pending append has been written. */
	async flushed(): Promise<void> {
		await Promise.all([...this.queues.values()]);
	}

	/** Writes `data` at the end of the run's last segment, or starts the next one when it would grow past SEGMENT_MAX_BYTES. */
	private async write(file: vscode.Uri, data: Uint8Array): Promise<void> {
		const key = file.toString();
		let tail = this.tails.get(key) ?? (await this.lastSegment(file));
		if (tail.bytes.byteLength > 0 && tail.bytes.byteLength + data.byteLength > SEGMENT_MAX_BYTES) {
			if (tail.index + 1 >= SEGMENTS_MAX) {
				throw new Error(`run history full: ${SEGMENTS_MAX} segments of ${SEGMENT_MAX_BYTES} bytes`);
			}
			tail = { index: tail.index + 1, bytes: new Uint8Array(0) };
		}
		if (tail.index === 0 && tail.bytes.byteLength === 0) {
			await this.fs.createDirectory(vscode.Uri.joinPath(file, '..'));
		}
		const bytes = concat(tail.bytes, data);
		// Written beside the segment, then moved over it: a reader (a window after a reload) or an
		// interrupted write never finds the segment cut: each record is whole or absent. VS Code's
		// rename over a file deletes it first, then moves: between the two (or for good, when the
		// window closes there) the segment is missing and its `.tmp` holds it all, which readers take.
		const segment = segmentUri(file, tail.index);
		const temp = tempOf(segment);
		await this.fs.writeFile(temp, bytes);
		await this.fs.rename(temp, segment, { overwrite: true });
		this.tails.delete(key);
		this.tails.set(key, { index: tail.index, bytes });
		for (const oldest of this.tails.keys()) {
			if (this.tails.size <= TAILS_KEPT) {
				break;
			}
			this.tails.delete(oldest);
		}
	}

	/**
	 * The run's last segment as stored (index 0 and no bytes when there is none): a stat per segment,
	 * one read. Only a missing file ends the history here: a stat or read that fails otherwise (the
	 * file system unavailable for a moment) fails the append, which would else write the run's
	 * history over from its first segment.
	 */
	private async lastSegment(file: vscode.Uri): Promise<Tail> {
		let last = -1;
		while (last + 1 < SEGMENTS_MAX && (await this.segmentExists(segmentUri(file, last + 1)))) {
			last++;
		}
		if (last < 0) {
			return { index: 0, bytes: new Uint8Array(0) };
		}
		const bytes = await this.readSegment(file, last);
		if (bytes === undefined) {
			throw new Error(`segment ${last} of ${file.toString()} went away while it was read`);
		}
		// Its whole lines: a `.tmp` cut while written (a new segment's, a window closing) ends in a
		// torn record, which the next record must not continue.
		return { index: last, bytes: wholeLines(bytes) };
	}

	private async exists(uri: vscode.Uri): Promise<boolean> {
		try {
			await this.fs.stat(uri);
			return true;
		} catch (err) {
			if (isMissingFileError(err)) {
				return false;
			}
			throw err;
		}
	}

	/**
	 * Segment `index` for reading a history: a failure other than a missing file (a window's file
	 * system just after a reload, still connecting) is tried again, READ_TRIES times in all, before the
	 * history is read as ending there.
	 */
	private async readSegmentPatiently(file: vscode.Uri, index: number): Promise<Uint8Array | undefined> {
		for (let attempt = 1; ; attempt++) {
			try {
				return await this.readSegment(file, index);
			} catch {
				if (attempt >= READ_TRIES) {
					return undefined;
				}
				await new Promise((resolve) => setTimeout(resolve, READ_RETRY_MS * attempt));
			}
		}
	}

	/**
	 * The bytes of segment `index`, or undefined when there is none (a history ends there); another
	 * failure is thrown. A segment missing while its `.tmp` is there is being moved (or a window closed
	 * while moving it: VS Code's rename over a file deletes it first): the `.tmp` is read, and when
	 * it has just been moved, the segment again.
	 */
	private async readSegment(file: vscode.Uri, index: number): Promise<Uint8Array | undefined> {
		const segment = segmentUri(file, index);
		const read = (uri: vscode.Uri): Promise<Uint8Array | undefined> =>
			Promise.resolve(this.fs.readFile(uri)).then(undefined, (err: unknown) => {
				if (isMissingFileError(err)) {
					return undefined;
				}
				throw err;
			});
		return (await read(segment)) ?? (await read(tempOf(segment))) ?? (await read(segment));
	}

	/** Whether segment `uri` is stored: the file, or its `.tmp` alone (a move cut between its delete and its rename). */
	private async segmentExists(uri: vscode.Uri): Promise<boolean> {
		return (await this.exists(uri)) || (await this.exists(tempOf(uri)));
	}
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
	const bytes = new Uint8Array(a.byteLength + b.byteLength);
	bytes.set(a, 0);
	bytes.set(b, a.byteLength);
	return bytes;
}

/** Where a segment is written before it is moved over the segment. */
function tempOf(segment: vscode.Uri): vscode.Uri {
	return segment.with({ path: `${segment.path}.tmp` });
}

/** Segment `index` of a run's file: the file itself, then `<file>.1`, `<file>.2`, … */
function segmentUri(file: vscode.Uri, index: number): vscode.Uri {
	return index === 0 ? file : file.with({ path: `${file.path}.${index}` });
}
