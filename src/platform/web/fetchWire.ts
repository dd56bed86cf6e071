/**
 * The browser's connection (VS Code for the Web's extension host, a web worker): requests through
 * `fetch`, adapted to the wire the transport uses (src/api/wire.ts). What the transport adds stays
 * the same on both platforms: the overall deadlines, the body caps, the retry policy, the error
 * decoding. Here:
 * - redirects are never followed (`redirect: 'manual'`), so the token never reaches another URL;
 *   the browser hides a redirect's status and target (an opaque redirect), which reads as a 3xx;
 * - no cookies or other credentials of the page go with a request (`credentials: 'omit'`), nor a
 *   referrer; the browser's HTTP cache is bypassed (`cache: 'no-store'`);
 * - `User-Agent` and `Cache-Control` request headers are left to the browser (they are not ours to
 *   set there, and a service would have to allow them in its CORS preflight);
 * - the header time-out and the silence between body chunks are timers that abort the fetch;
 * - a request the browser refuses (the service is down, or does not allow this page's origin:
 *   CORS) is a NetworkError that says which, told apart by a request the page may make without
 *   CORS (FetchWire.failed). A fetch that fails with a socket error code (Node's fetch, in the
 *   tests) reads as the Node wire's would.
 * Proxies and certificates are the browser's: the network settings are not read.
 */
import { type ApiError, NetworkError } from '../../api/errors';
import { toNetworkError } from '../../api/netErrors';
import type { Connect, Connection, Utf8Decoder, Wire, WireBody, WireRequest, WireResponse, WireRoute } from '../../api/wire';

/** Request headers the browser sets itself. */
const BROWSER_HEADERS = new Set(['user-agent', 'cache-control']);

/** The browser's connection to `base` (TransportOptions.connect in VS Code for the Web). */
export const fetchConnect: Connect = (base) => new FetchConnection(base);

class FetchConnection implements Connection {
	private readonly current: WireRoute;

	constructor(base: URL) {
		this.current = {
			wire: new FetchWire(base.host),
			proxy: undefined,
			secrets: [],
			insecure: false,
			description: `${base.host}: the browser's fetch (its proxy and certificates)`,
		};
	}

	route(): WireRoute {
		return this.current;
	}

	utf8(): Utf8Decoder {
		// The BOM is kept: the event-stream reader strips exactly one, as the SSE spec says.
		const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
		return { write: (chunk) => decoder.decode(chunk, { stream: true }) };
	}

	failure(): ApiError | undefined {
		return undefined;
	}

	close(): void {
		// Nothing is held: the browser owns the connections.
	}
}

/** An error with the code undici gives the same time-out (netErrors.ts reads it). */
function timeoutError(code: 'UND_ERR_HEADERS_TIMEOUT' | 'UND_ERR_BODY_TIMEOUT', ms: number): Error {
	const what = code === 'UND_ERR_HEADERS_TIMEOUT' ? 'Headers' : 'Body';
	return Object.assign(new Error(`${what} Timeout Error (${ms} ms)`), { code });
}

/** The origin of the page this code runs in (a web worker's), when there is one. */
function pageOrigin(): string | undefined {
	const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
	return typeof origin === 'string' && origin !== 'null' ? origin : undefined;
}

/** `fetch` as a wire. */
export class FetchWire implements Wire {
	/** `host` names the service in messages. */
	constructor(private readonly host: string) {}

	async request(req: WireRequest): Promise<WireResponse> {
		const abort = new AbortController();
		const signal = req.signal;
		if (signal?.aborted) {
			throw signal.reason;
		}
		const onAbort = (): void => abort.abort(signal?.reason);
		signal?.addEventListener('abort', onAbort, { once: true });
		const headersTimer = setTimeout(() => abort.abort(timeoutError('UND_ERR_HEADERS_TIMEOUT', req.headersTimeout)), req.headersTimeout);
		const headers: Record<string, string> = {};
		for (const [name, value] of Object.entries(req.headers)) {
			if (!BROWSER_HEADERS.has(name.toLowerCase())) {
				headers[name] = value;
			}
		}
		let res: Response;
		try {
			// `cache` is the browser's (Node's typings lack it; Node's fetch accepts it).
			const init: RequestInit & { cache: 'no-store' } = {
				method: req.method,
				headers,
				body: req.body,
				signal: abort.signal,
				redirect: 'manual',
				credentials: 'omit',
				cache: 'no-store',
				referrerPolicy: 'no-referrer',
			};
			res = await fetch(req.origin + req.path, init);
		} catch (err) {
			clearTimeout(headersTimer);
			signal?.removeEventListener('abort', onAbort);
			throw await this.failed(err, abort.signal, req.origin);
		} finally {
			clearTimeout(headersTimer);
		}
		const done = (): void => signal?.removeEventListener('abort', onAbort);
		if (res.type === 'opaqueredirect') {
			// The browser hides the status and the target: a redirect, not followed.
			void res.body?.cancel().catch(() => undefined);
			done();
			return {
				statusCode: 300,
				headers: {},
				body: new FetchBody(undefined, abort, req.bodyTimeout, done),
			};
		}
		const resHeaders: Record<string, string> = {};
		res.headers.forEach((value, name) => {
			resHeaders[name] = value;
		});
		return { statusCode: res.status, headers: resHeaders, body: new FetchBody(res.body ?? undefined, abort, req.bodyTimeout, done) };
	}

	/**
	 * What a rejected fetch stands for: the abort's reason, a socket error (Node's fetch), or the
	 * browser's refusal. The browser says only "Failed to fetch" whether the service is down or does
	 * not allow this page's origin (CORS): a request the page may make without CORS (`no-cors`: no
	 * credentials, no headers of ours, an opaque answer) tells them apart — an answer means the
	 * service is there and refused the origin; a failure, that it could not be reached (issue 42,
	 * item 12: people chased CORS when the service was down). When that probe says nothing in time,
	 * both are said, the likelier first.
	 */
	private async failed(err: unknown, signal: AbortSignal, origin: string): Promise<unknown> {
		if (signal.aborted) {
			return signal.reason;
		}
		const cause = (err as { cause?: unknown } | undefined)?.cause;
		if (cause !== null && typeof cause === 'object' && typeof (cause as { code?: unknown }).code === 'string') {
			return toNetworkError(cause, this.host);
		}
		const page = pageOrigin() ?? 'this page';
		const detail = err instanceof Error ? err.message : String(err);
		const answers = await answersWithoutCors(origin);
		const text =
			answers === true
				? `${this.host} answers but does not allow requests from ${page} (CORS: the service must allow this origin) (${detail})`
				: answers === false
					? `${this.host} could not be reached from this browser: is the service running, and is the API URL right? (${detail})`
					: `${this.host} could not be reached from this browser, or it does not allow requests from ${page} (CORS: the service must allow this origin) (${detail})`;
		return new NetworkError('network_error', text, true, { cause: err });
	}
}

/** How long the probe of answersWithoutCors may take. */
export const CORS_PROBE_MS = 3_000;

/**
 * Whether `origin` answers a request the browser makes without CORS (an opaque answer): true when
 * it answers, false when the browser could not reach it, undefined when it did not say in time.
 */
async function answersWithoutCors(origin: string): Promise<boolean | undefined> {
	const init: RequestInit & { cache: 'no-store' } = {
		method: 'GET',
		// A no-cors request must follow redirects (the browser refuses it otherwise): it carries no
		// credential and none of our headers, and its answer is opaque.
		mode: 'no-cors',
		credentials: 'omit',
		cache: 'no-store',
		referrerPolicy: 'no-referrer',
		signal: AbortSignal.timeout(CORS_PROBE_MS),
	};
	try {
		const res = await fetch(`${origin}/`, init);
		void res.body?.cancel().catch(() => undefined);
		return true;
	} catch (err) {
		return (err as { name?: unknown } | null)?.name === 'TimeoutError' ? undefined : false;
	}
}

/**
 * How much of a body is read ahead of its consumer: reading stops above this until the consumer
 * has taken chunks (the body caps of the transport still bound the whole).
 */
export const READ_AHEAD_BYTES = 1024 * 1024;

/**
 * A fetch response body as a wire body. It is read as the bytes arrive, ahead of its consumer (at
 * most READ_AHEAD_BYTES), not when the consumer asks: a browser discards the chunks still queued in
 * a body stream when the connection then fails, so an event stream that dropped right after a burst
 * of events lost them all (each reconnect brought the same events and lost them again). The silence
 * between chunks from the network is bounded by the body time-out; chunks already read are handed
 * over before the failure that followed them.
 */
class FetchBody implements WireBody {
	private reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
	private readonly queue: Uint8Array[] = [];
	private queuedBytes = 0;
	/** The stream's failure, handed over once the queue is empty. */
	private failure: unknown;
	private failed = false;
	private streamEnded = false;
	private pumping = false;
	private wake: (() => void) | undefined;
	private error: Error | undefined;
	private ended = false;
	destroyed = false;

	constructor(
		private readonly stream: ReadableStream<Uint8Array> | undefined,
		private readonly abort: AbortController,
		private readonly idleMs: number,
		private readonly done: () => void,
	) {
		if (!stream) {
			this.finish();
		} else {
			this.pump();
		}
	}

	[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
		return {
			next: () => this.read(),
			return: () => {
				this.destroy();
				return Promise.resolve({ value: undefined, done: true });
			},
		};
	}

	/** The next chunk; rejects with the reason of a destroy (a time-out, a deadline) or, once the chunks read before it are taken, the stream's error. */
	async read(): Promise<IteratorResult<Uint8Array>> {
		for (;;) {
			if (this.error) {
				throw this.error;
			}
			if (this.ended || this.destroyed || !this.stream) {
				return { value: undefined, done: true };
			}
			const chunk = this.queue.shift();
			if (chunk) {
				this.queuedBytes -= chunk.byteLength;
				this.pump();
				return { value: chunk, done: false };
			}
			if (this.failed) {
				throw this.failure;
			}
			if (this.streamEnded) {
				this.finish();
				return { value: undefined, done: true };
			}
			await new Promise<void>((resolve) => (this.wake = resolve));
		}
	}

	/** Reads from the stream until it ends or fails, or READ_AHEAD_BYTES wait for the consumer. */
	private pump(): void {
		if (this.pumping || this.failed || this.streamEnded || this.destroyed || !this.stream) {
			return;
		}
		this.pumping = true;
		const reader = (this.reader ??= this.stream.getReader());
		void (async () => {
			try {
				while (!this.destroyed && this.queuedBytes < READ_AHEAD_BYTES) {
					const timer = setTimeout(() => this.destroy(timeoutError('UND_ERR_BODY_TIMEOUT', this.idleMs)), this.idleMs);
					let r: Awaited<ReturnType<ReadableStreamDefaultReader<Uint8Array>['read']>>;
					try {
						r = await reader.read();
					} finally {
						clearTimeout(timer);
					}
					if (r.done) {
						this.streamEnded = true;
						break;
					}
					this.queue.push(r.value);
					this.queuedBytes += r.value.byteLength;
					this.notify();
				}
			} catch (err) {
				this.failure = this.error ?? err;
				this.failed = true;
			} finally {
				this.pumping = false;
				this.notify();
			}
		})();
	}

	private notify(): void {
		const wake = this.wake;
		this.wake = undefined;
		wake?.();
	}

	async text(): Promise<string> {
		const decoder = new TextDecoder();
		let text = '';
		for (let r = await this.read(); !r.done; r = await this.read()) {
			text += decoder.decode(r.value, { stream: true });
		}
		return text + decoder.decode();
	}

	dump(): Promise<void> {
		this.destroy();
		return Promise.resolve();
	}

	destroy(error?: Error): this {
		if (this.destroyed) {
			return this;
		}
		this.destroyed = true;
		this.error = error;
		this.abort.abort(error);
		void this.reader?.cancel(error).catch(() => undefined);
		this.queue.length = 0;
		this.queuedBytes = 0;
		this.notify();
		this.done();
		return this;
	}

	on(): this {
		// A fetch body reports its errors to the reader: there are no 'error' events to listen to.
		return this;
	}

	private finish(): void {
		this.ended = true;
		this.done();
	}
}
