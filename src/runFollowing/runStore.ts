import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventRecord } from '../api';
import { sha256HexSync } from '../api/random';
import { SAFETY } from '../api';
import { hasInvisibleCharacters, resolveInside, safeFileName } from '../util/paths';

/** Room kept for the `.jsonl` suffix within `SAFETY.localNameMaxChars`. */
const SUFFIX_ROOM = '.jsonl'.length;

/**
 * The local name of an agent or run id: the id percent-encoded as before (so existing histories are
 * found again; `.` becomes `%2E`, so no name is `.`, `..` or hidden), when that is already a safe
 * file name of a sensible length; otherwise a safe, shortened form of it plus a hash of the whole
 * id, so distinct ids never share a file and no id can name a device, a separator or a long path.
 */
export function localIdName(id: string): string {
	let encoded: string | undefined;
	try {
		encoded = hasInvisibleCharacters(id) ? undefined : encodeURIComponent(id).replace(/\./g, '%2E');
	} catch {
		encoded = undefined; // a lone surrogate
	}
	const max = SAFETY.localNameMaxChars - SUFFIX_ROOM;
	if (encoded !== undefined && encoded.length <= max && /^[A-Za-z0-9%_-]+$/.test(encoded) && safeFileName(encoded, '') === encoded) {
		return encoded;
	}
	const hash = sha256HexSync(id).slice(0, 16);
	const stem = safeFileName(id, 'id')
		.replace(/[^A-Za-z0-9_-]/g, '_')
		.slice(0, max - hash.length - 1);
	return `${stem}~${hash}`;
}

/**
 * Run events on disk, one JSON record per line: `<root>/<agentId>/<runId>.jsonl`. Reopening a run
 * shows its history from here and resumes the stream after the last stored seq. Appends are
 * serialised per file; a torn last line (a crash mid-write) is skipped on read.
 */
export class RunEventStore {
	private readonly queues = new Map<string, Promise<void>>();

	/** @param root a folder under the extension's global storage (a local file path). */
	constructor(private readonly root: string) {}

	/**
	 * The file of one run: `<root>/<agent>/<run>.jsonl` with both ids made safe by `localIdName`, and
	 * checked to lie inside the root (throws a LocalPathEscapeError otherwise).
	 */
	fileOf(agentId: string, runId: string): string {
		return resolveInside(this.root, localIdName(agentId), `${localIdName(runId)}.jsonl`);
	}

	/** The stored events of a run, in seq order without duplicates; empty when none are stored. */
	async read(agentId: string, runId: string): Promise<EventRecord[]> {
		await this.queues.get(this.fileOf(agentId, runId));
		let text: string;
		try {
			text = await readFile(this.fileOf(agentId, runId), 'utf8');
		} catch {
			return [];
		}
		const events: EventRecord[] = [];
		let last = -Infinity;
		for (const line of text.split('\n')) {
			if (line.trim() === '') {
				continue;
			}
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

	/** Appends events (already de-duplicated by the caller) to the run's file. */
	append(agentId: string, runId: string, events: readonly EventRecord[]): Promise<void> {
		if (events.length === 0) {
			return Promise.resolve();
		}
		const file = this.fileOf(agentId, runId);
		const text = events.map((e) => JSON.stringify(e)).join('\n') + '\n';
		const previous = this.queues.get(file) ?? Promise.resolve();
		const next = previous.then(async () => {
			await mkdir(dirname(file), { recursive: true });
			await appendFile(file, text, 'utf8');
		});
		const settled = next.catch(() => undefined);
		this.queues.set(file, settled);
		void settled.then(() => {
			if (this.queues.get(file) === settled) {
				this.queues.delete(file);
			}
		});
		return next;
	}

	/** Resolves when every pending append has been written. */
	async flushed(): Promise<void> {
		await Promise.all([...this.queues.values()]);
	}
}
