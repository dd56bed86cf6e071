/**
 * The local side of a comparison, in a worker thread (started by localSide.ts): for each job, what
 * the local path is (missing, a symbolic link, not a regular file, or a file with its size and
 * mtime) and, for a file of the agent-side size within the byte budget, its SHA-256.
 *
 * Why a thread: done with Node's asynchronous calls, each of a file's four or five system calls is a
 * trip through the thread pool, and on a virtual machine waking a pool thread costs more than the
 * call (measured: 5,000 files of 256 bytes, about 1 s of CPU against about 0.1 s here). Here the
 * calls are synchronous, in a thread of their own: the extension host's thread never waits on them.
 *
 * The paths come resolved and checked (localPathOf in nodeLocalFiles.ts); each file is opened and read by
 * the rules of fileRead.ts (no symbolic link followed, the checks made on the open descriptor, so
 * the file hashed is the file whose facts are reported), with its synchronous driver. Plain Node.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { type FileSteps, NotRegularFileError, hashOpenFile, runSync, withRegularFile } from './fileRead';
import type { LocalAnswer, LocalJob } from '../../compare/localFiles';

/** One local path to look at: a job of the comparison (localFiles.ts) with its path made absolute. */
export interface WorkerJob extends Omit<LocalJob, 'rel'> {
	/** Absolute, inside the local folder (checked by nodeLocalFiles.ts). */
	abs: string;
}

/** The first message: the byte budget of the whole comparison. */
export interface LocalStart {
	maxBytes: number;
}

/** A batch of jobs; the answer is a LocalBatchAnswer. */
export interface LocalBatch {
	id: number;
	jobs: WorkerJob[];
}

/** One answer per job, in order, and the worker's V8 heap in use after the batch (for the comparison's stats). */
export interface LocalBatchAnswer {
	id: number;
	answers: LocalAnswer[];
	heapUsed: number;
}

function codeOf(err: unknown): string | undefined {
	const code = (err as { code?: unknown } | null)?.code;
	return typeof code === 'string' ? code : undefined;
}

/** Looks at one path; `budget` is what is left of the byte budget (hashing takes from it). */
export function examine(job: WorkerJob, budget: { left: number }): LocalAnswer {
	try {
		return runSync(
			withRegularFile(job.abs, function* (file): FileSteps<LocalAnswer> {
				const facts = { kind: 'file' as const, size: file.size, mtime: file.mtime };
				if (file.size !== job.size) {
					return facts;
				}
				if (job.cost > budget.left) {
					return { ...facts, overBytes: true };
				}
				budget.left -= job.cost;
				const { sha256 } = yield* hashOpenFile(file);
				return { ...facts, sha256 };
			}),
		);
	} catch (err) {
		if (err instanceof NotRegularFileError) {
			return { kind: err.kind };
		}
		const code = codeOf(err);
		if (code === 'ENOENT' || code === 'ENOTDIR') {
			return { kind: 'missing' };
		}
		return { kind: 'error', code, message: err instanceof Error ? err.message : String(err) };
	}
}

/** What localSide.ts passes as `workerData`: this module listens only in the thread it starts. */
export const WORKER_MARK = 'cloud-agents-compare';

if (parentPort && workerData === WORKER_MARK) {
	const port = parentPort;
	const budget = { left: 0 };
	port.on('message', (msg: LocalStart | LocalBatch) => {
		if ('maxBytes' in msg) {
			budget.left = msg.maxBytes;
			return;
		}
		const answers = msg.jobs.map((job) => examine(job, budget));
		port.postMessage({ id: msg.id, answers, heapUsed: getHeapStatistics().used_heap_size } satisfies LocalBatchAnswer);
	});
}
