import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EventRecord } from '../api';

/**
 * Run events on disk, one JSON record per line: `<root>/<agentId>/<runId>.jsonl`. Reopening a run
 * shows its history from here and resumes the stream after the last stored seq. Appends are
 * serialised per file; a torn last line (a crash mid-write) is skipped on read.
 */
export class RunEventStore {
	private readonly queues = new Map<string, Promise<void>>();

	/** @param root a folder under the extension's global storage (a local file path). */
	constructor(private readonly root: string) {}

	/** The file of one run. Ids are validated by the API client; path separators are escaped anyway. */
	fileOf(agentId: string, runId: string): string {
		const safe = (s: string): string => encodeURIComponent(s).replace(/\./g, '%2E');
		return join(this.root, safe(agentId), `${safe(runId)}.jsonl`);
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
