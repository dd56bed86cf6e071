/**
 * Transport: requests over the platform's wire (src/api/wire.ts: undici in Node, fetch in the
 * browser), no redirects, connect/header/body time-outs, the retry policy and budget, error decoding
 * and redacted debug logging. Knows nothing about individual endpoints.
 */
import { abortError, isAbortError } from '../base/async';
import { concatBytes } from '../base/bytes';
import { ApiError, NetworkError, ProxyError, ValidationError, plausibleRequestId, readFieldErrors } from './errors';
import type { FieldError } from './errors';
import { SAFETY } from '../base/limits';
import { type Logger, scrub } from '../base/logger';
import { isLoopbackHost } from './loopback';
import { toNetworkError } from './netErrors';
import type { Connect, Connection, NetworkSettings, WireBody, WireResponse, WireRoute } from './wire';
import {
	type ResolvedRetryOptions,
	type RetryOptions,
	OverallDeadline,
	RetryBudget,
	formatSeconds,
	parseRetryAfter,
	resolveRetryOptions,
	retryDelay,
	sleep,
} from './retry';
import { isJsonObject } from './validation';

/** Time-outs in milliseconds. */
export interface Timeouts {
	/** TCP/TLS connect (default 10000). */
	connectMs?: number;
	/** Waiting for response headers (default 30000). */
	headersMs?: number;
	/** Longest silence between two body chunks of an ordinary response (default 30000). */
	bodyMs?: number;
	/** Longest silence on an event stream before it is treated as dropped (default 45000; the server sends a keep-alive every 15 s). */
	streamIdleMs?: number;
	/** Overall deadline of an ordinary request, headers to last body byte (default SAFETY.requestDeadlineMs). */
	deadlineMs?: number;
	/** Overall deadline of a request that moves file content (default SAFETY.transferDeadlineMs). */
	transferDeadlineMs?: number;
}

export type ResolvedTimeouts = Required<Timeouts>;

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | undefined | null;

/** One request, described independently of the endpoint. */
export interface RequestSpec {
	method: HttpMethod;
	/** Path below the base URL, segments already encoded, starting with `/`. */
	path: string;
	query?: Record<string, QueryValue>;
	/** JSON body (serialised once, reused by retries). */
	body?: unknown;
	/** Sends the bearer token (default true). */
	auth?: boolean;
	/** The operation is idempotent: retried on 429/503/504 and network errors. */
	idempotent: boolean;
	headers?: Record<string, string>;
	signal?: AbortSignal;
	/** Non-2xx statuses returned as results instead of thrown (the device flow's 400). */
	acceptStatuses?: readonly number[];
	/** Largest body read (default SAFETY.jsonBodyMaxBytes); a larger one is a `response_too_large` ApiError. */
	maxBodyBytes?: number;
	/** Route template for logs, e.g. `GET /v2/agents/{agent_id}`. */
	route?: string;
	/** The request moves file content (uploads or chunked reads): the longer transfer deadline applies. */
	transfer?: boolean;
}

export interface HttpResult<T = unknown> {
	status: number;
	body: T;
	requestId: string | undefined;
}

/** How the transport reaches one base URL. */
export interface TransportOptions {
	/** API base URL; https:, or http: for loopback hosts only. */
	baseUrl: string | URL;
	/** Called for every request; the token is never logged nor put in an error. */
	getToken: () => Promise<string | undefined> | string | undefined;
	userAgent?: string;
	/** Debug log sink (VS Code's LogOutputChannel fits). Authorization is redacted. */
	logger?: Logger;
	/**
	 * How requests reach the network, chosen by the extension's entry point: network.ts `nodeConnect`
	 * (undici, VS Code's proxy and certificate settings) or fetchWire.ts `fetchConnect` (the browser's).
	 */
	connect: Connect;
	/**
	 * Proxies and certificates (Node: src/platform/node/network.ts): the settings, or a function returning the
	 * current ones (read before every request: when it returns another object, the next request uses a
	 * dispatcher made for it). Default: networkSettingsFromEnvironment() (HTTPS_PROXY/HTTP_PROXY/NO_PROXY,
	 * Node's certificate store). The browser's connection does not read them.
	 */
	network?: NetworkSettings | (() => NetworkSettings);
	timeouts?: Timeouts;
	retry?: RetryOptions;
}

export { NetworkError, ProxyError, isLoopbackHost, toNetworkError };

/** Parses and checks a base URL: https anywhere, http only on loopback, no credentials in it. */
export function checkBaseUrl(baseUrl: string | URL): URL {
	let url: URL;
	try {
		url = new URL(String(baseUrl));
	} catch {
		throw new ValidationError('baseUrl', 'an absolute http(s) URL', 'baseUrl: not a valid URL');
	}
	if (url.protocol !== 'https:' && url.protocol !== 'http:') {
		throw new ValidationError(
			'baseUrl',
			'https: (http: only for loopback hosts)',
			`baseUrl: protocol ${url.protocol} is not supported`,
		);
	}
	if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
		throw new ValidationError(
			'baseUrl',
			'https: (http: only for loopback hosts)',
			`baseUrl: http: is refused for the non-loopback host ${url.hostname}; use https:`,
		);
	}
	if (url.username || url.password) {
		throw new ValidationError('baseUrl', 'no credentials in the URL', 'baseUrl: must not carry credentials');
	}
	url.search = '';
	url.hash = '';
	return url;
}

type ResponseData = WireResponse;

function header(res: ResponseData, name: string): string | undefined {
	const value = res.headers[name];
	return Array.isArray(value) ? value[0] : value;
}

/** Reads a non-2xx response into an ApiError. Tolerates HTML and empty bodies; reads at most SAFETY.errorBodyMaxBytes. */
export async function toApiError(res: ResponseData, secrets: ReadonlyArray<string | undefined> = []): Promise<ApiError> {
	let text = '';
	try {
		text = await readBounded(res, SAFETY.errorBodyMaxBytes, false);
	} catch {
		// A body that fails mid-way still leaves the status to report.
	}
	return errorFromBody(res.statusCode, text, header(res, 'x-request-id'), parseRetryAfter(res.headers['retry-after']), secrets);
}

/** Thrown by readBounded when a body is larger than allowed. */
export class BodyTooLargeError extends Error {
	constructor(readonly limit: number) {
		super(`The server sent a response larger than ${limit} bytes`);
	}
}

/**
 * Reads a response body as UTF-8 text, up to `max` bytes. A larger body (by Content-Length or by what
 * arrives) is destroyed; with `strict` that is a BodyTooLargeError, otherwise the first `max` bytes are kept.
 */
export async function readBounded(res: ResponseData, max: number, strict: boolean): Promise<string> {
	const declared = Number(header(res, 'content-length'));
	if (strict && Number.isFinite(declared) && declared > max) {
		discardBody(res.body);
		throw new BodyTooLargeError(max);
	}
	if (Number.isSafeInteger(declared) && declared >= 0 && declared <= max) {
		// HTTP framing bounds a body with a Content-Length to that many bytes: the wire's own reader
		// (much cheaper than iterating the stream) cannot read more than was declared.
		return res.body.text();
	}
	const chunks: Uint8Array[] = [];
	let total = 0;
	for await (const chunk of res.body) {
		if (total + chunk.byteLength > max) {
			chunks.push(chunk.subarray(0, max - total));
			total = max;
			discardBody(res.body);
			if (strict) {
				throw new BodyTooLargeError(max);
			}
			break;
		}
		chunks.push(chunk);
		total += chunk.byteLength;
	}
	return new TextDecoder().decode(concatBytes(chunks, total));
}

/** Stops reading a body, without an unhandled 'error' event (undici emits one when nobody reads). */
export function discardBody(body: WireBody, error?: Error): void {
	if (!body.destroyed) {
		body.on('error', () => undefined);
		body.destroy(error);
	}
}

/** Builds an ApiError from a status and raw body text (JSON envelope, device-flow body or anything else). */
export function errorFromBody(
	status: number,
	text: string,
	headerRequestId: string | undefined,
	retryAfter: number | undefined,
	secrets: ReadonlyArray<string | undefined> = [],
): ApiError {
	let code: string | undefined;
	let message: string | undefined;
	let requestId = headerRequestId;
	let fieldErrors: FieldError[] = [];
	const trimmed = text.trim();
	if (trimmed.startsWith('{')) {
		try {
			const body = JSON.parse(trimmed) as Record<string, unknown>;
			const error = body.error;
			if (isJsonObject(error)) {
				const e = error;
				code = typeof e.code === 'string' ? e.code : undefined;
				message = typeof e.message === 'string' ? e.message : undefined;
				fieldErrors = readFieldErrors(e, secrets);
			} else if (typeof error === 'string') {
				code = error;
				message = typeof body.error_description === 'string' ? body.error_description : undefined;
			}
			if (typeof body.request_id === 'string') {
				requestId = body.request_id;
			}
		} catch {
			// Not JSON after all: fall through to the generic message.
		}
	}
	if (status >= 300 && status < 400) {
		code ??= 'redirect_not_followed';
		message ??= `The server answered with a redirect (HTTP ${status}); redirects are not followed`;
	}
	if (!message) {
		const snippet = trimmed.startsWith('<') ? '' : trimmed.replace(/\s+/g, ' ').slice(0, 200);
		message = `HTTP ${status}${snippet ? `: ${snippet}` : ' (no error details in the response)'}`;
	}
	const err = new ApiError(status, code ?? `http_${status}`, message, requestId, retryAfter, undefined, secrets);
	err.fieldErrors = fieldErrors;
	return err;
}

const RETRY_STATUSES = new Set([429, 503, 504]);

const DEADLINE_PASSED = 'The request passed its overall deadline';

/**
 * One request's overall deadline as the transport uses it (see Transport.deadline), and its entry
 * in the sweep: one object per request, no closures.
 */
class RequestDeadline {
	readonly at: number;
	/** The body of the attempt's response, destroyed when the deadline passes. */
	private body: WireBody | undefined;
	/** Aborts the attempt in flight, when it needed one (OverallDeadline.needsAbort). */
	private abort: AbortController | undefined;
	/** The deadline has passed (set by the sweep). */
	passed = false;

	constructor(
		private readonly overall: OverallDeadline,
		private readonly timeouts: Pick<ResolvedTimeouts, 'connectMs' | 'headersMs'>,
	) {
		this.at = overall.at;
	}

	/** Its length in ms. */
	get ms(): number {
		return this.overall.ms;
	}

	/** The signal for the next attempt: the caller's, or one the deadline also aborts (when connect and headers could outlast it). */
	attemptSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
		if (!this.overall.needsAbort(this.timeouts.connectMs, this.timeouts.headersMs)) {
			return signal;
		}
		this.abort = new AbortController();
		return signal ? AbortSignal.any([signal, this.abort.signal]) : this.abort.signal;
	}

	/** The body of the attempt's response, destroyed when the deadline passes (at once if it has). */
	watch(body: WireBody): void {
		this.body = body;
		if (this.passed) {
			discardBody(body, new Error(DEADLINE_PASSED));
		}
	}

	/** Whether a retry after waiting `delayMs` may start (OverallDeadline.allowsRetryAfter). */
	allowsRetryAfter(delayMs: number): boolean {
		return this.overall.allowsRetryAfter(delayMs);
	}

	/** The attempt is over: its body and abort are forgotten. */
	endAttempt(): void {
		this.body = undefined;
		this.abort = undefined;
	}

	/** The sweep found the deadline passed: aborts the attempt in flight and destroys the body being read. */
	expire(): void {
		this.passed = true;
		this.abort?.abort(new Error(DEADLINE_PASSED));
		if (this.body) {
			discardBody(this.body, new Error(DEADLINE_PASSED));
		}
	}
}

/** Requests in flight with their deadlines; one sweep timer serves them all (no timer per request). */
const deadlines = new Set<RequestDeadline>();
let sweep: ReturnType<typeof setInterval> | undefined;
/** How often the deadline sweep runs: deadlines are met to within this. */
const DEADLINE_SWEEP_MS = 250;

function startDeadlineSweep(): void {
	if (sweep !== undefined) {
		return;
	}
	sweep = setInterval(() => {
		const now = Date.now();
		for (const deadline of deadlines) {
			if (deadline.at <= now) {
				deadlines.delete(deadline);
				deadline.expire();
			}
		}
		if (deadlines.size === 0) {
			clearInterval(sweep);
			sweep = undefined;
		}
	}, DEADLINE_SWEEP_MS);
	sweep.unref?.();
}

/** The HTTP layer of one client. */
export class Transport {
	readonly base: URL;
	private readonly basePath: string;
	/** How requests reach the base URL (TransportOptions.connect). */
	readonly connection: Connection;
	/** The route of the latest request (its proxy's credentials are scrubbed from messages). */
	private current: WireRoute | undefined;
	readonly timeouts: ResolvedTimeouts;
	readonly retry: ResolvedRetryOptions;
	readonly budget: RetryBudget;
	private readonly logger: Logger | undefined;
	private readonly userAgent: string;
	/** Tokens seen by this transport, scrubbed from any message it produces. */
	private readonly seenTokens: string[] = [];

	constructor(private readonly options: TransportOptions) {
		this.base = checkBaseUrl(options.baseUrl);
		this.basePath = this.base.pathname.replace(/\/+$/, '');
		this.timeouts = {
			connectMs: options.timeouts?.connectMs ?? 10_000,
			headersMs: options.timeouts?.headersMs ?? 30_000,
			bodyMs: options.timeouts?.bodyMs ?? 30_000,
			streamIdleMs: options.timeouts?.streamIdleMs ?? SAFETY.streamIdleMs,
			deadlineMs: options.timeouts?.deadlineMs ?? SAFETY.requestDeadlineMs,
			transferDeadlineMs: options.timeouts?.transferDeadlineMs ?? SAFETY.transferDeadlineMs,
		};
		this.retry = resolveRetryOptions(options.retry);
		this.budget = new RetryBudget(this.retry.budget, this.retry.budgetRefill);
		this.logger = options.logger;
		this.userAgent = options.userAgent ?? 'cloud-agents-vscode';
		this.connection = options.connect(this.base, { connectMs: this.timeouts.connectMs, logger: this.logger, network: options.network });
	}

	/** Releases the connection (a shared dispatcher closes, once its requests are done, when no other client uses it). */
	close(): void {
		this.connection.close();
	}

	/** The route of the next request (Connection.route: throws a ProxyConfigError for an unusable proxy setting). */
	private route(): WireRoute {
		this.current = this.connection.route();
		return this.current;
	}

	/** A decoder for one streamed body (Connection.utf8). */
	utf8(): ReturnType<Connection['utf8']> {
		return this.connection.utf8();
	}

	/** The tokens this transport sent and the proxy's credentials: kept out of every message and log line. */
	private secrets(): string[] {
		const proxy = this.current?.secrets ?? [];
		return proxy.length === 0 ? this.seenTokens : [...this.seenTokens, ...proxy];
	}

	/**
	 * Path and query under the base URL's, sent with the origin: segments are fixed names or encoded
	 * ids (core.ts `e`), query members encoded; no URL is parsed per request (bench/sections/api.ts).
	 */
	target(path: string, query?: Record<string, QueryValue>): string {
		let url = `${this.basePath}${path}`;
		if (query) {
			let sep = '?';
			for (const [name, value] of Object.entries(query)) {
				if (value === undefined || value === null) {
					continue;
				}
				url += `${sep}${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`;
				sep = '&';
			}
		}
		return url;
	}

	/** Scrubs known tokens (and the proxy's credentials) and bearer strings from text. */
	scrub(text: string): string {
		return scrub(text, this.secrets());
	}

	/**
	 * True when server text (a body, a chunk of events) holds a token this transport has sent: a
	 * server that echoes the token back must not get it into a record, a view, a copied value or a
	 * document, so such text is redacted (redactTokens). One substring search per token.
	 */
	containsToken(text: string): boolean {
		for (const token of this.seenTokens) {
			if (token.length >= 4 && text.includes(token)) {
				return true;
			}
		}
		return false;
	}

	/** The length of the longest token this transport has sent (0 before the first). */
	get longestTokenChars(): number {
		let longest = 0;
		for (const token of this.seenTokens) {
			longest = Math.max(longest, token.length);
		}
		return longest;
	}

	/** Replaces every token this transport has sent with `<redacted>` (see containsToken). */
	redactTokens(text: string): string {
		for (const token of this.seenTokens) {
			if (token.length >= 4 && text.includes(token)) {
				text = text.split(token).join('<redacted>');
			}
		}
		return text;
	}

	debug(message: string): void {
		this.logger?.debug(this.scrub(message));
	}

	async headers(spec: Pick<RequestSpec, 'auth' | 'headers'>, accept: string, hasBody: boolean): Promise<Record<string, string>> {
		const headers: Record<string, string> = { accept, 'user-agent': this.userAgent };
		if (hasBody) {
			headers['content-type'] = 'application/json';
		}
		if (spec.auth !== false) {
			const token = await this.options.getToken();
			if (token) {
				if (!this.seenTokens.includes(token)) {
					this.seenTokens.push(token);
				}
				headers.authorization = `Bearer ${token}`;
			}
		}
		if (spec.headers) {
			Object.assign(headers, spec.headers);
		}
		return headers;
	}

	/**
	 * Sends a request with the retry policy: idempotent requests are retried on 429/503/504 and
	 * network errors with full-jitter backoff (Retry-After honoured up to a cap) while the budget
	 * lasts; others are sent once. One overall deadline (Timeouts.deadlineMs, from the first
	 * attempt's start) covers every attempt and the waits between them: a retry that would not have
	 * RETRY_MIN_ATTEMPT_MS left after its wait is not started. Resolves with the decoded JSON body
	 * (undefined when empty).
	 */
	async send<T = unknown>(spec: RequestSpec): Promise<HttpResult<T>> {
		const path = this.target(spec.path, spec.query);
		const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
		const route = spec.route ?? `${spec.method} ${spec.path}`;
		const deadline = this.deadline(spec);
		try {
			for (let attempt = 1; ; attempt++) {
				if (spec.signal?.aborted) {
					throw abortError(spec.signal);
				}
				const started = this.logger ? Date.now() : 0;
				let error: ApiError;
				const headers = await this.headers(spec, 'application/json', payload !== undefined);
				const net = this.route();
				try {
					const res = await net.wire.request({
						origin: this.base.origin,
						path,
						method: spec.method,
						headers,
						body: payload,
						signal: deadline.attemptSignal(spec.signal),
						headersTimeout: this.timeouts.headersMs,
						bodyTimeout: this.timeouts.bodyMs,
					});
					deadline.watch(res.body);
					const status = res.statusCode;
					if ((status >= 200 && status < 300) || spec.acceptStatuses?.includes(status)) {
						const body = await this.readJson<T>(res, spec.method, spec.maxBodyBytes ?? SAFETY.jsonBodyMaxBytes);
						this.budget.onSuccess();
						const requestId = this.requestIdOf(res);
						if (this.logger) {
							this.debug(
								`${route} → ${status} in ${Date.now() - started} ms (request ${requestId ?? '-'}, attempt ${attempt})`,
							);
						}
						return { status, body, requestId };
					}
					error = await toApiError(res, this.secrets());
					if (this.logger) {
						this.debug(
							`${route} → ${status} ${error.code} in ${Date.now() - started} ms (request ${error.requestId ?? '-'}, attempt ${attempt})`,
						);
					}
					if (!spec.idempotent || !RETRY_STATUSES.has(status)) {
						throw error;
					}
				} catch (caught) {
					let err = caught;
					if (!(err instanceof ApiError) && !spec.signal?.aborted) {
						// A proxy's refusal (its 407 is an undici AbortError) or a proxy that is down, named as such.
						err = this.connection.failure(err, net, this.base.host) ?? err;
						if (err instanceof ProxyError) {
							this.debug(
								`${route} → ${err.code} (HTTP ${err.status} from the proxy ${err.proxy}) after ${Date.now() - started} ms`,
							);
						}
					}
					if (err instanceof ApiError && !(err instanceof NetworkError) && err.status !== 0) {
						throw err;
					}
					if (spec.signal?.aborted) {
						throw abortError(spec.signal);
					}
					if (deadline.passed) {
						err = new NetworkError(
							'timeout',
							`No complete answer within ${formatSeconds(deadline.ms)} (the request's overall deadline, retries included; ${attempt} ${attempt === 1 ? 'attempt' : 'attempts'})`,
							true,
							{ cause: err },
						);
					} else if (isAbortError(err)) {
						throw err;
					}
					if (err instanceof ValidationError) {
						throw err;
					}
					error = err instanceof NetworkError ? err : toNetworkError(err, this.base.host, this.secrets());
					if (this.logger) {
						this.debug(`${route} → ${error.code} after ${Date.now() - started} ms: ${error.message} (attempt ${attempt})`);
					}
					// A certificate does not change by itself: a TLS failure is not retried.
					if (!spec.idempotent || error.code === 'tls_error') {
						throw error;
					}
				} finally {
					deadline.endAttempt();
				}
				// Retryable failure of an idempotent request.
				if (attempt >= this.retry.maxAttempts) {
					throw error;
				}
				const delay = retryDelay(attempt, error.retryAfter, this.retry);
				if (delay === undefined) {
					throw error; // Longer than we are willing to wait: surface it with retryAfter.
				}
				if (!deadline.allowsRetryAfter(delay)) {
					this.debug(
						`${route}: not retrying: a retry in ${delay} ms could not answer before the overall deadline (${formatSeconds(deadline.ms)})`,
					);
					throw error;
				}
				if (!this.budget.tryAcquire()) {
					this.debug(`${route}: retry budget exhausted, not retrying`);
					throw error;
				}
				this.debug(`${route}: retrying in ${delay} ms`);
				await sleep(delay, spec.signal);
			}
		} finally {
			deadlines.delete(deadline);
		}
	}

	/** The request id of a response (its X-Request-Id), when plausible and free of any token this transport sent. */
	requestIdOf(res: ResponseData): string | undefined {
		return this.checkRequestId(header(res, 'x-request-id'));
	}

	/**
	 * A request id the server named (a header, an error body or event), when plausible and free of any
	 * token this transport sent (plausibleRequestId); otherwise undefined. Every request id from the
	 * server goes through this (or through ApiError with this transport's tokens) before an error or a
	 * log line carries it.
	 */
	checkRequestId(value: unknown): string | undefined {
		return plausibleRequestId(value, this.seenTokens);
	}

	/**
	 * The overall deadline of one request, retries included: when it passes, the response body being
	 * read is destroyed, so a server that trickles its answer ends in a time-out. An attempt whose
	 * connect and header time-outs could outlast what is left (a short deadline, a late retry) gets
	 * an AbortController the sweep aborts; the common attempt gets none (the caller's signal, when
	 * there is one, goes to undici as it is).
	 */
	private deadline(spec: Pick<RequestSpec, 'transfer'>): RequestDeadline {
		const ms = spec.transfer ? this.timeouts.transferDeadlineMs : this.timeouts.deadlineMs;
		const deadline = new RequestDeadline(new OverallDeadline(ms), this.timeouts);
		deadlines.add(deadline);
		startDeadlineSweep();
		return deadline;
	}

	private async readJson<T>(res: ResponseData, method: HttpMethod, maxBytes: number): Promise<T> {
		if (method === 'HEAD' || res.statusCode === 204 || res.statusCode === 205) {
			await res.body.dump();
			return undefined as T;
		}
		let text: string;
		try {
			// A declared length within the cap is read with the wire's text reader (the common, fast case).
			text = await readBounded(res, maxBytes, true);
		} catch (err) {
			if (err instanceof BodyTooLargeError) {
				throw new ApiError(
					res.statusCode,
					'response_too_large',
					`The server's answer is larger than ${maxBytes} bytes; it was not read`,
					this.requestIdOf(res),
					undefined,
					undefined,
					this.seenTokens,
				);
			}
			throw err;
		}
		if (text.length === 0) {
			return undefined as T;
		}
		try {
			return JSON.parse(this.redactTokens(text)) as T;
		} catch (err) {
			throw new ApiError(
				res.statusCode,
				'invalid_response',
				'The server sent a response that is not valid JSON',
				this.requestIdOf(res),
				undefined,
				{ cause: err },
			);
		}
	}

	/**
	 * Opens an event stream (no retries here: the stream iterator owns reconnection). Resolves with
	 * the 200 response whose body the caller must consume or destroy; throws ApiError otherwise.
	 */
	async openStream(spec: Omit<RequestSpec, 'idempotent' | 'body'>): Promise<ResponseData> {
		const path = this.target(spec.path, spec.query);
		const headers = await this.headers(spec, 'text/event-stream', false);
		headers['cache-control'] = 'no-cache';
		let res: ResponseData;
		const net = this.route();
		try {
			res = await net.wire.request({
				origin: this.base.origin,
				path,
				method: 'GET',
				headers,
				signal: spec.signal,
				headersTimeout: this.timeouts.headersMs,
				bodyTimeout: this.timeouts.streamIdleMs,
			});
		} catch (err) {
			if (spec.signal?.aborted) {
				throw abortError(spec.signal);
			}
			// Before the abort check: a proxy's 407 is an undici AbortError.
			const failure = this.connection.failure(err, net, this.base.host);
			if (failure) {
				throw failure;
			}
			if (isAbortError(err)) {
				throw err;
			}
			throw toNetworkError(err, this.base.host, this.secrets());
		}
		if (res.statusCode !== 200) {
			throw await toApiError(res, this.secrets());
		}
		return res;
	}
}
