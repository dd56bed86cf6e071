/**
 * The engine's handle on the comparison worker (compareWorker.ts): batches of local jobs posted at
 * once, answered in order, the worker stopped when the comparison ends or is cancelled. Plain Node,
 * no `vscode`.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { abortError } from '../../base/async';
import { type LocalBatch, type LocalBatchAnswer, type LocalStart, WORKER_MARK, type WorkerJob } from './compareWorker';
import type { LocalAnswer } from '../../compare/localFiles';

/** The worker's file: next to this module's own (out/src/compare/ under tsc, dist/ in the bundles); read on use, never at load (the web build has no __dirname). */
const workerFile = (): string => join(__dirname, 'compareWorker.js');

export class LocalSide {
	private readonly worker: Worker;
	private readonly pending = new Map<number, { resolve(a: LocalAnswer[]): void; reject(err: Error): void }>();
	private nextId = 0;
	private failure: Error | undefined;
	/** The largest V8 heap in use the worker reported after a batch (bytes). */
	heapPeak = 0;
	private readonly onAbort = (): void => this.fail(abortError(this.signal));

	/** Starts the worker with the comparison's byte budget. */
	constructor(
		maxBytes: number,
		private readonly signal?: AbortSignal,
	) {
		this.worker = new Worker(workerFile(), { workerData: WORKER_MARK });
		this.worker.on('message', (msg: LocalBatchAnswer) => {
			this.heapPeak = Math.max(this.heapPeak, msg.heapUsed);
			const p = this.pending.get(msg.id);
			this.pending.delete(msg.id);
			p?.resolve(msg.answers);
		});
		this.worker.on('error', (err) => this.fail(err));
		this.worker.on('exit', (code) => this.fail(new Error(`the comparison's worker stopped (exit code ${code})`)));
		this.worker.postMessage({ maxBytes } satisfies LocalStart);
		if (signal?.aborted) {
			// An abort event fires once: a signal already aborted never calls the listener.
			this.onAbort();
		} else {
			signal?.addEventListener('abort', this.onAbort, { once: true });
		}
	}

	/** Posts a batch; resolves with one answer per job, in order. Batches are answered in the order posted. */
	examine(jobs: WorkerJob[]): Promise<LocalAnswer[]> {
		if (this.failure) {
			return Promise.reject(this.failure);
		}
		const id = this.nextId++;
		const answer = new Promise<LocalAnswer[]>((resolve, reject) => this.pending.set(id, { resolve, reject }));
		answer.catch(() => undefined); // a batch the caller no longer waits for (it stopped at an error) is not an unhandled rejection
		this.worker.postMessage({ id, jobs } satisfies LocalBatch);
		return answer;
	}

	/** Stops the worker; batches not answered yet are rejected. */
	async close(): Promise<void> {
		this.signal?.removeEventListener('abort', this.onAbort);
		this.fail(new Error('the comparison ended'));
		await this.worker.terminate();
	}

	private fail(err: Error): void {
		this.failure ??= err;
		for (const p of this.pending.values()) {
			p.reject(this.failure);
		}
		this.pending.clear();
		if (this.signal?.aborted) {
			void this.worker.terminate();
		}
	}
}
