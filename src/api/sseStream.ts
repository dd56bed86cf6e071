/**
 * The raw event stream: one HTTP connection read as server-sent events, with nothing above it (no
 * reconnects, no meaning given to the frames). UTF-8 decoding keeps characters split across chunks
 * intact, eventsource-parser splits the lines, and reading is bounded: an event longer than
 * `MAX_EVENT_CHARS` ends the stream, so memory stays one network chunk plus the parser's buffer
 * however long the stream runs.
 *
 * `streamSse` hands out raw messages (diagnostics, conformance tests); `SseConnection` is the one
 * connection of a run-event stream, feeding the decoder (`runEventDecoder.ts`) under the reconnect
 * layer (`runEventStream.ts`). The iterator is hand-written rather than an async generator: events
 * parsed from one chunk are handed out from a small array with already-resolved promises, which
 * keeps the per-event cost close to the parser's own.
 */
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import { abortError, isAbortError } from '../base/async';
import { ApiError } from './errors';
import { type Transport, discardBody, toNetworkError } from './http';
import { SAFETY } from '../base/limits';
import type { Utf8Decoder, WireResponse } from './wire';

/** How much of a chunk's end is kept to find a token split across two chunks. */
const TAIL_CHARS = 64;

/** Text that ends with a blank line: no event is left incomplete after it. */
const EVENT_BOUNDARY_AT_END = /(\r\n|\r|\n)(\r\n|\r|\n)$/;

/** One dispatched SSE message, with the spec's sticky last event id. */
export interface SseMessage {
	/** Event type; `message` when the stream named none (or an empty one). */
	event: string;
	data: string;
	/** The last event ID in effect at dispatch (sticky across messages; `''` when none). */
	lastEventId: string;
	/** The reconnection time (ms) last announced by `retry:`, if any. */
	retry: number | undefined;
}

/** Largest event (in characters) the parser buffers before giving up on the stream. */
export const MAX_EVENT_CHARS = SAFETY.sseEventMaxChars;

/**
 * Incremental UTF-8 decoding that keeps characters split across chunks intact and strips one
 * leading BOM, as the SSE spec's decode step does. The decoder is the platform's (Transport.utf8: in
 * Node, StringDecoder, several times faster than TextDecoder in streaming mode).
 */
export class Utf8Stream {
	private first = true;
	constructor(private readonly decoder: Utf8Decoder) {}
	decode(chunk: Uint8Array): string {
		let text = this.decoder.write(chunk);
		if (this.first && text.length > 0) {
			this.first = false;
			if (text.charCodeAt(0) === 0xfeff) {
				text = text.slice(1);
			}
		}
		return text;
	}
}

/** Destroys a response body without an unhandled 'error' event (undici emits one when nobody reads). */
export function discard(res: WireResponse | undefined): void {
	if (res) {
		discardBody(res.body);
	}
}

const MEDIA_TYPE = /^\s*text\/event-stream\s*(;|$)/i;

/**
 * Throws unless the response is an event stream (a missing Content-Type is tolerated). The error's
 * request id is the response's X-Request-Id as `transport` checks it (plausible, no token).
 */
export function checkEventStreamResponse(res: WireResponse, transport: Pick<Transport, 'requestIdOf' | 'scrub'>): void {
	const value = res.headers['content-type'];
	const type = Array.isArray(value) ? value[0] : value;
	if (type !== undefined && !MEDIA_TYPE.test(type)) {
		discard(res);
		throw new ApiError(
			res.statusCode,
			'invalid_content_type',
			transport.scrub(`Expected an event stream, got Content-Type ${type.slice(0, 100)}`),
			transport.requestIdOf(res),
		);
	}
}

/** Options of the raw SSE stream. */
export interface SseStreamOptions {
	signal?: AbortSignal;
	query?: Record<string, string | number | undefined>;
}

/**
 * A single-connection SSE stream at `path` below the base URL, as raw messages. Ends at the end
 * of the response; no reconnection (runEventStream.ts reconnects run-event streams).
 */
export function streamSse(transport: Transport, path: string, options: SseStreamOptions = {}): AsyncIterableIterator<SseMessage> {
	return new SseMessageStream(transport, path, options);
}

class SseMessageStream implements AsyncIterableIterator<SseMessage> {
	private readonly queue: SseMessage[] = [];
	private index = 0;
	private body: AsyncIterator<Uint8Array> | undefined;
	private res: WireResponse | undefined;
	private finished = false;
	private lastEventId = '';
	private retry: number | undefined;
	private readonly decoder: Utf8Stream;
	private readonly parser: EventSourceParser;
	private parseError: Error | undefined;
	private endsWithCr = false;

	constructor(
		private readonly transport: Transport,
		private readonly path: string,
		private readonly options: SseStreamOptions,
	) {
		this.decoder = new Utf8Stream(transport.utf8());
		this.parser = createParser({
			maxBufferSize: MAX_EVENT_CHARS,
			onEvent: (msg: EventSourceMessage) => {
				if (msg.id !== undefined) {
					this.lastEventId = msg.id;
				}
				this.queue.push({ event: msg.event || 'message', data: msg.data, lastEventId: this.lastEventId, retry: this.retry });
			},
			onRetry: (ms: number) => {
				this.retry = ms;
			},
			onError: (err: Error & { type?: string }) => {
				if (err.type === 'max-buffer-size-exceeded') {
					this.parseError = new ApiError(200, 'event_too_large', `An event exceeded ${MAX_EVENT_CHARS} characters`, undefined);
				}
			},
		});
	}

	[Symbol.asyncIterator](): AsyncIterableIterator<SseMessage> {
		return this;
	}

	next(): Promise<IteratorResult<SseMessage>> {
		if (this.index < this.queue.length) {
			return Promise.resolve({ value: this.queue[this.index++] as SseMessage, done: false });
		}
		return this.pull();
	}

	private async pull(): Promise<IteratorResult<SseMessage>> {
		this.queue.length = 0;
		this.index = 0;
		try {
			if (!this.body && !this.finished) {
				const res = await this.transport.openStream({
					method: 'GET',
					path: this.path,
					query: this.options.query,
					signal: this.options.signal,
				});
				checkEventStreamResponse(res, this.transport);
				this.res = res;
				this.body = res.body[Symbol.asyncIterator]();
			}
			while (!this.finished && this.body) {
				const r = await this.body.next();
				if (r.done) {
					// A CR at the very end still ends its line (the parser waits for a possible LF);
					// an incomplete event is discarded (the parser keeps it buffered).
					if (this.endsWithCr) {
						this.parser.feed('\n');
					}
					this.close();
					if (this.queue.length > 0) {
						return { value: this.queue[this.index++] as SseMessage, done: false };
					}
					break;
				}
				const text = this.decoder.decode(r.value);
				if (text.length > 0) {
					this.endsWithCr = text.charCodeAt(text.length - 1) === 13;
				}
				this.parser.feed(text);
				if (this.parseError) {
					throw this.parseError;
				}
				if (this.queue.length > 0) {
					return { value: this.queue[this.index++] as SseMessage, done: false };
				}
			}
		} catch (err) {
			this.close();
			if (this.options.signal?.aborted) {
				throw abortError(this.options.signal);
			}
			throw err instanceof ApiError || isAbortError(err) ? err : toNetworkError(err);
		}
		return { value: undefined, done: true };
	}

	return(): Promise<IteratorResult<SseMessage>> {
		this.close();
		return Promise.resolve({ value: undefined, done: true });
	}

	private close(): void {
		this.finished = true;
		discard(this.res);
		this.res = undefined;
		this.body = undefined;
	}
}

/** Where an SseConnection delivers what it parsed. */
export interface SseSink {
	/** One message; type and data are free of any token this transport sent (see Transport.redactTokens). */
	message(id: string | undefined, type: string | undefined, data: string): void;
	/** The reconnection time (ms) the server announced with `retry:`. */
	retry(ms: number): void;
}

/** What SseConnection.read found in the next network chunk. */
export type SseReadResult = 'chunk' | 'end';

/**
 * One connection of an event stream, opened with `SseConnection.open`. Each `read` takes one
 * network chunk through UTF-8 decoding and the parser into the sink: the messages, their type and
 * data redacted when the chunk (with the previous one's tail, for a token split across two) holds a
 * token this transport sent. One token search per chunk, not per message.
 */
export class SseConnection {
	private readonly body: AsyncIterator<Uint8Array>;
	private readonly decoder: Utf8Stream;
	private readonly parser: EventSourceParser;
	/**
	 * The current chunk (with the previous tail) holds a token this transport sent, or an earlier one
	 * did and the event it was in had not ended by that chunk's end (an event dispatched by a later
	 * chunk is redacted too).
	 */
	private tokenSeen = false;
	/** A token arrived in an event that is still incomplete at the end of the last chunk. */
	private tokenPending = false;
	/** The end of the previous chunk's text. */
	private tail = '';
	private messages = 0;
	/** When this connection last delivered a whole event or a keep-alive comment. */
	private lastActivity = Date.now();
	/** A bound of the raw stream was hit (an event over MAX_EVENT_CHARS): the stream cannot go on. */
	error: Error | undefined;

	/**
	 * Opens `GET path` as an event stream. Throws the ApiError of a non-200 answer or of another
	 * Content-Type, a NetworkError when the connection fails, an AbortError when `signal` aborts.
	 */
	static async open(
		transport: Transport,
		request: { path: string; query?: Record<string, string | number | undefined>; route?: string; signal: AbortSignal | undefined },
		sink: SseSink,
	): Promise<SseConnection> {
		const res = await transport.openStream({
			method: 'GET',
			path: request.path,
			query: request.query,
			signal: request.signal,
			route: request.route,
		});
		checkEventStreamResponse(res, transport);
		return new SseConnection(transport, res, sink);
	}

	private constructor(
		private readonly transport: Transport,
		private readonly res: WireResponse,
		private readonly sink: SseSink,
	) {
		this.body = res.body[Symbol.asyncIterator]();
		this.decoder = new Utf8Stream(transport.utf8());
		this.parser = createParser({
			maxBufferSize: MAX_EVENT_CHARS,
			onEvent: (msg: EventSourceMessage) => {
				this.messages++;
				// A token the server echoes is redacted, per message only when the chunk held one.
				const type = msg.event !== undefined && this.tokenSeen ? transport.redactTokens(msg.event) : msg.event;
				sink.message(msg.id, type, this.tokenSeen ? transport.redactTokens(msg.data) : msg.data);
			},
			onComment: () => (this.lastActivity = Date.now()),
			onRetry: (ms: number) => sink.retry(ms),
			onError: (err: Error & { type?: string }) => {
				if (err.type === 'max-buffer-size-exceeded') {
					this.error = new ApiError(200, 'event_too_large', `An event exceeded ${MAX_EVENT_CHARS} characters`, undefined);
				}
			},
		});
	}

	/** The response's X-Request-Id, when plausible and free of any token the transport sent (Transport.requestIdOf). */
	requestId(): string | undefined {
		return this.transport.requestIdOf(this.res);
	}

	/**
	 * Reads the next network chunk into the sink: `end` at the clean end of the response, else
	 * `chunk`. Rejects when the connection drops (or the signal aborts); an incomplete event at the
	 * end is discarded.
	 */
	async read(): Promise<SseReadResult> {
		const r = await this.body.next();
		if (r.done) {
			return 'end';
		}
		const text = this.decoder.decode(r.value);
		// One search per chunk, and one over the seam with the previous chunk's tail (a token split
		// across two): the same matches as a search of tail + text, without copying the chunk into a
		// joined string first.
		this.tokenSeen =
			this.tokenPending ||
			this.transport.containsToken(text) ||
			(this.tail !== '' && this.transport.containsToken(this.tail + text.slice(0, this.transport.longestTokenChars)));
		// Sticky until a chunk ends at an event boundary: the event holding the token may end later.
		this.tokenPending = this.tokenSeen && !EVENT_BOUNDARY_AT_END.test(text);
		// As long as the longest token: a token cut anywhere across the seam is found whole.
		this.tail = text.slice(-Math.max(TAIL_CHARS, this.transport.longestTokenChars));
		const before = this.messages;
		this.parser.feed(text);
		if (this.messages !== before) {
			this.lastActivity = Date.now();
		}
		return 'chunk';
	}

	/** True when no whole event or keep-alive arrived for longer than the transport's `streamIdleMs`. */
	stalled(): boolean {
		return Date.now() - this.lastActivity > this.transport.timeouts.streamIdleMs;
	}

	/** Closes the connection (idempotent). */
	close(): void {
		discard(this.res);
	}
}
