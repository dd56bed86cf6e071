/**
 * Decoding of run-event frames: SSE messages (id, event type, data) in, checked event records out.
 * The one place that decides what a frame of `GET …/runs/{run_id}/events` means: its id must be a
 * run-local sequence number, replays at or below the last delivered sequence are dropped, nothing
 * after `run.completed` is delivered, and an `error` event either asks for a reconnect (a retryable
 * code) or ends the stream with an ApiError.
 *
 * No I/O: the raw stream (`sseStream.ts`) pushes the messages of one network chunk, the reconnect
 * layer (`runEventStream.ts`) flushes them after the chunk and decides what to do next.
 */
import { InvalidResponseError } from './decode';
import { ApiError, STATUS_BY_CODE } from './errors';
import type { EventRecord } from './types';
import { isJsonObject } from './validation';

/**
 * The run-local sequence number an SSE `id:` stands for: plain decimal (1 to 16 digits, leading
 * zeros allowed) and a safe integer; -1 for any other id. A digit loop rather than a regular
 * expression and Number(): it runs once per event on the stream's hot path.
 */
function plainSequence(id: string): number {
	const length = id.length;
	if (length === 0 || length > 16) {
		return -1;
	}
	let value = 0;
	for (let i = 0; i < length; i++) {
		const digit = id.charCodeAt(i) - 48;
		if (digit < 0 || digit > 9) {
			return -1;
		}
		value = value * 10 + digit;
	}
	// Exact up to 2^53 (every partial value is below the final one); a larger id rounds to 2^53 or more.
	return Number.isSafeInteger(value) ? value : -1;
}

/** Codes of `error` events that mean "reconnect and resume", not "stop". */
const RETRYABLE_STREAM_CODES = new Set(['unavailable', 'internal', 'deadline_exceeded', 'rate_limited']);

/** What the decoder needs from the connection the frames came from. */
export interface FrameSource {
	/** The X-Request-Id of the response the frames arrived on, for the errors it reports: plausible and free of any token, or undefined. */
	requestId(): string | undefined;
	/** A request id an `error` event names, when plausible and free of any token (plausibleRequestId); otherwise undefined. */
	checkRequestId(value: unknown): string | undefined;
	/** Removes credentials from server text before it becomes an error message. */
	scrub(text: string): string;
}

/**
 * Turns the SSE messages of a run-event stream into event records, chunk by chunk. `push` collects
 * the messages of one network chunk; `flush` decodes them into the caller's array. State that
 * outlives a connection (the last delivered sequence, the end of the run) stays here across
 * reconnects; `reset` drops only the frames of a connection that went away.
 */
export class RunEventDecoder {
	private readonly pendingIds: Array<string | undefined> = [];
	private readonly pendingTypes: Array<string | undefined> = [];
	private readonly pendingData: string[] = [];
	/** An `error` event is among the pending messages (they are then decoded frame by frame). */
	private pendingError = false;
	private lastSeq: number;
	/** `run.completed` was delivered: nothing after it is. */
	ended = false;
	/** A frame broke the contract, or the server reported an error that retrying will not fix. */
	error: Error | undefined;
	/** The server sent a retryable `error` event: the caller should drop the connection and reconnect. */
	reconnectRequested = false;

	/** `after`: the sequence the stream starts after (records at or below it are replays). */
	constructor(
		after: number,
		private readonly source: FrameSource,
	) {
		this.lastSeq = after;
	}

	/** The last sequence id delivered (the `after` to resume from). */
	get last(): number {
		return this.lastSeq;
	}

	/** Messages pushed since the last flush. */
	get pending(): number {
		return this.pendingData.length;
	}

	/** Collects one parsed SSE message (type and data already free of echoed tokens). */
	push(id: string | undefined, type: string | undefined, data: string): void {
		this.pendingIds.push(id);
		this.pendingTypes.push(type);
		this.pendingData.push(data);
		if (type === 'error') {
			this.pendingError = true;
		}
	}

	/** Forgets frames not flushed yet (their connection is gone; a reconnect resumes after `last`). */
	reset(): void {
		this.pendingIds.length = 0;
		this.pendingTypes.length = 0;
		this.pendingData.length = 0;
		this.pendingError = false;
	}

	/**
	 * Decodes the pending messages into `out`. The JSON payloads are parsed with one JSON.parse over
	 * `[d1,d2,…]` (cheaper than one call per small record, and the parse runs apart from the line
	 * parser's allocations) and frame by frame whenever that batch does not parse into exactly one
	 * record per frame whose `seq` matches the frame's id (a malformed frame). Error events are
	 * handled in order; nothing after `run.completed` is delivered. Returns how many records were
	 * added.
	 */
	flush(out: EventRecord[]): number {
		const datas = this.pendingData;
		const n = datas.length;
		if (n === 0) {
			return 0;
		}
		const before = out.length;
		const ids = this.pendingIds;
		const types = this.pendingTypes;
		let batch: unknown[] | undefined;
		if (n > 1 && !this.pendingError) {
			// The brackets go onto the first and last payloads, so the one join yields the flat
			// array text JSON.parse wants (no second copy of the batch to flatten `[` + … + `]`).
			const first = datas[0] as string;
			const lastData = datas[n - 1] as string;
			datas[0] = `[${first}`;
			datas[n - 1] = `${lastData}]`;
			try {
				const parsed: unknown = JSON.parse(datas.join(','));
				if (Array.isArray(parsed) && parsed.length === n) {
					batch = parsed;
				}
			} catch {
				// A malformed frame: decode one by one below.
			}
			datas[0] = first;
			datas[n - 1] = lastData;
		}
		for (let i = 0; i < n && !this.ended; i++) {
			const type = types[i];
			const data = datas[i] as string;
			if (type === 'error') {
				this.onErrorEvent(data);
				continue;
			}
			const id = ids[i];
			let seq = id === undefined || id === '' ? NaN : plainSequence(id);
			if (seq === -1) {
				this.error = new InvalidResponseError(
					'event id',
					`a plain decimal sequence number (got ${this.source.scrub(JSON.stringify((id as string).slice(0, 40)))})`,
					this.source.requestId(),
				);
				break;
			}
			let value: unknown = batch?.[i];
			if (batch === undefined || (Number.isSafeInteger(seq) && (value as { seq?: unknown } | null)?.seq !== seq)) {
				try {
					value = JSON.parse(data);
				} catch {
					value = undefined;
				}
			}
			const record: EventRecord = isJsonObject(value)
				? (value as EventRecord)
				: { seq, type: type ?? 'message', data: value === undefined ? { raw: data } : { value } };
			if (!Number.isSafeInteger(seq) && record.seq !== undefined) {
				if (typeof record.seq !== 'number' || !Number.isSafeInteger(record.seq) || record.seq < 0) {
					this.error = new InvalidResponseError('event seq', 'a non-negative safe integer', this.source.requestId());
					break;
				}
				seq = record.seq;
			}
			if (Number.isSafeInteger(seq)) {
				if (seq <= this.lastSeq) {
					continue; // Replayed after a reconnect: already delivered.
				}
				this.lastSeq = seq;
				if (record.seq === undefined) {
					record.seq = seq;
				}
			}
			if (record.type === undefined) {
				record.type = type ?? 'message';
			}
			out.push(record);
			if (record.type === 'run.completed') {
				this.ended = true;
			}
		}
		this.reset();
		return out.length - before;
	}

	/**
	 * An `error` event: a retryable code asks for a reconnect, any other ends the stream. Its payload
	 * is the error envelope (`{error: {code, message}, request_id}`); as with an error body, the
	 * request id it names wins over the response's X-Request-Id, and only a plausible one without a
	 * token is kept.
	 */
	private onErrorEvent(data: string): void {
		let code = 'internal';
		let message = 'The event stream reported an error';
		let named: unknown;
		try {
			const body = JSON.parse(data) as { error?: { code?: unknown; message?: unknown }; request_id?: unknown };
			if (typeof body.error?.code === 'string') {
				code = body.error.code;
			}
			if (typeof body.error?.message === 'string') {
				message = body.error.message;
			}
			named = body.request_id;
		} catch {
			// Keep the defaults.
		}
		if (RETRYABLE_STREAM_CODES.has(code)) {
			this.reconnectRequested = true;
		} else {
			const requestId = typeof named === 'string' ? this.source.checkRequestId(named) : this.source.requestId();
			this.error = new ApiError(STATUS_BY_CODE[code] ?? 500, this.source.scrub(code), this.source.scrub(message), requestId);
		}
	}
}
