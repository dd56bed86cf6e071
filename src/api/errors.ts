/**
 * Error types of the API client. Every failure a caller sees is one of: ApiError (the service or
 * the transport answered badly), ValidationError (refused before sending), OutcomeUnknownError
 * (a create may or may not have happened), or an AbortError (the caller cancelled).
 */
import { SAFETY } from '../base/limits';
import { scrub } from '../base/logger';

/** Error codes the service documents; others may appear and are kept as-is. */
export type ApiErrorCode =
	| 'already_exists'
	| 'command_failed'
	| 'deadline_exceeded'
	| 'failed_precondition'
	| 'internal'
	| 'invalid_argument'
	| 'not_found'
	| 'permission_denied'
	| 'rate_limited'
	| 'unauthenticated'
	| 'unavailable'
	| 'unimplemented'
	| (string & {});

/**
 * A non-success answer, or a transport failure (status 0, code `network_error`, `timeout`, ...).
 * Carries what support needs: the HTTP status, the service's error code and the request id.
 */
export class ApiError extends Error {
	override readonly name = 'ApiError';
	/** Service error code, or `http_<status>` when the body carried none (`invalid_code` when it was not a plausible code). */
	readonly code: ApiErrorCode;
	/** From the body's request_id, else the X-Request-Id header; undefined when absent or not plausible. */
	readonly requestId: string | undefined;
	/** The server sent a request id that was not plausible (too long, odd characters, a secret): it is not shown raw. */
	readonly requestIdRejected: boolean;
	constructor(
		/** HTTP status; 0 when no response arrived (network failure, time-out). */
		readonly status: number,
		code: ApiErrorCode,
		message: string,
		requestId: string | undefined,
		/** Seconds the server asked to wait (Retry-After), when it said. */
		readonly retryAfter?: number,
		options?: { cause?: unknown },
		/** Secrets (the token) scrubbed from every field, cause included. */
		secrets: ReadonlyArray<string | undefined> = [],
	) {
		super(cleanMessage(message, secrets), options?.cause === undefined ? undefined : { cause: cleanCause(options.cause, secrets) });
		const c = scrub(String(code), secrets);
		this.code = c.length <= SAFETY.errorCodeMaxChars && /^[A-Za-z0-9_.-]+$/.test(c) ? c : 'invalid_code';
		this.requestId = plausibleRequestId(requestId, secrets);
		this.requestIdRejected = requestId !== undefined && requestId !== '' && this.requestId === undefined;
	}
	/**
	 * The request's fields the service refused (`error.details: [{field, message}]`, or
	 * `error.field_violations: [{field_path, description}]`), at most SAFETY.fieldErrorsMax; empty
	 * when the error is not about fields. Set by the transport when it reads the error body.
	 */
	fieldErrors: readonly FieldError[] = [];
	/** 401: the token is missing, malformed or rejected: sign in again. */
	get isAuthFailure(): boolean {
		return this.status === 401;
	}
	/** 429, 503, 504 or a network failure: trying later may succeed. */
	get isRetryable(): boolean {
		return this.status === 0 || this.status === 429 || this.status === 503 || this.status === 504;
	}
}

/** One field of a request the service refused: its path in the request body (`endpoint`, `repositories[2].branch`) and why. */
export interface FieldError {
	readonly field: string;
	readonly message: string;
}

/**
 * The field-level problems of an error body's `error` object, in either spelling, secrets
 * scrubbed, paths and messages cut: at most SAFETY.fieldErrorsMax.
 */
export function readFieldErrors(error: Record<string, unknown>, secrets: ReadonlyArray<string | undefined> = []): FieldError[] {
	const list = Array.isArray(error.details)
		? error.details
		: Array.isArray(error.field_violations)
			? error.field_violations
			: Array.isArray(error.errors)
				? error.errors
				: [];
	const out: FieldError[] = [];
	for (const item of list.slice(0, SAFETY.fieldErrorsMax)) {
		if (!item || typeof item !== 'object') {
			continue;
		}
		const d = item as Record<string, unknown>;
		const field = [d.field, d.field_path, d.path, d.pointer].find((v): v is string => typeof v === 'string' && v !== '');
		const message = [d.message, d.description, d.reason].find((v): v is string => typeof v === 'string' && v !== '');
		if (field !== undefined && field.length <= SAFETY.idMaxChars) {
			out.push({ field: scrub(field, secrets), message: cleanMessage(message ?? '', secrets) });
		}
	}
	return out;
}

/**
 * The server's workspace operation interface differs from ours (its body and result shape are not
 * shown in the description): it rejected or misread our operation. Shown once on the folder; the
 * file system stops probing.
 */
export class WorkspaceInterfaceError extends ApiError {
	constructor(detail: string, requestId: string | undefined, cause?: unknown) {
		super(
			200,
			'workspace_interface_differs',
			`This server's workspace interface differs: ${detail}`,
			requestId,
			undefined,
			cause === undefined ? undefined : { cause },
		);
	}
}

/** True when `err` is an ApiError with status 401 (the one auth-failure check every layer uses). */
export function isAuthFailure(err: unknown): err is ApiError {
	if (err instanceof ApiError) {
		return err.isAuthFailure;
	}
	// An ApiError from another bundle (a test runner, another copy of the client) counts too.
	const e = err as { name?: unknown; status?: unknown } | undefined;
	return e?.name === 'ApiError' && e.status === 401;
}

/**
 * The codes of a transport failure (NetworkError) that mean the service is out of reach: refused,
 * unknown host or DNS not answering (ENOTFOUND, EAI_AGAIN: `network_error`), reset or cut,
 * connect and answer time-outs (a proxy that refuses the connection is `connection_refused` too).
 * Not `tls_error`: a certificate does not come right by waiting.
 */
const NO_ANSWER_CODES: ReadonlySet<string> = new Set(['network_error', 'timeout', 'connect_timeout', 'connection_refused']);

/** Answers from a gateway, load balancer or proxy (or the service) saying the service is not there now. */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/** undici's failure to tunnel through a proxy (an AbortError by class, yet no one cancelled): "Proxy response (502) !== 200 when HTTP Tunneling". */
const PROXY_TUNNEL_FAILURE = /^Proxy response \((\d{3})\) !== 200 when HTTP Tunneling/;

/**
 * True when the service is out of reach rather than answering: no answer at all (refused, unknown
 * host, DNS failure, reset, connect or answer time-out: a NetworkError, status 0, but not a TLS
 * failure), a 502, 503 or 504 (a gateway or proxy in front of it, or the service, saying it is not
 * there now), or a proxy that could not be reached or could not reach it. Also for an ApiError from
 * another bundle. False for every other answer (401, 403, any other 4xx, 500, a malformed answer),
 * an abort, and a mutation whose outcome is unknown (OutcomeUnknownError). What waiting (a followed
 * run keeps trying), "Retry" and "Configure API URL" help with.
 */
export function isUnreachable(err: unknown): boolean {
	const e = err as { name?: unknown; status?: unknown; code?: unknown; message?: unknown } | undefined;
	if (err instanceof ApiError || e?.name === 'ApiError') {
		if (e?.status === 0) {
			return typeof e.code === 'string' && NO_ANSWER_CODES.has(e.code);
		}
		return typeof e?.status === 'number' && GATEWAY_STATUSES.has(e.status);
	}
	if (e?.code === 'UND_ERR_ABORTED' && typeof e.message === 'string') {
		const m = PROXY_TUNNEL_FAILURE.exec(e.message);
		return m !== null && GATEWAY_STATUSES.has(Number(m[1]));
	}
	return false;
}

/**
 * The request id when it is plausible (SAFETY.requestIdPattern) and carries no secret; otherwise
 * undefined, so an odd or echoed value is never shown or copied raw.
 */
export function plausibleRequestId(value: unknown, secrets: ReadonlyArray<string | undefined> = []): string | undefined {
	if (typeof value !== 'string' || !SAFETY.requestIdPattern.test(value)) {
		return undefined;
	}
	// The pattern admits no space, so no "Bearer …" string: only a known secret can be in it.
	for (const secret of secrets) {
		if (secret && secret.length >= 4 && value.includes(secret)) {
			return undefined;
		}
	}
	return value;
}

/** Scrubs secrets and bearer strings from a message and cuts it to SAFETY.errorMessageMaxChars. */
function cleanMessage(message: string, secrets: ReadonlyArray<string | undefined>): string {
	const m = scrub(String(message), secrets);
	return m.length > SAFETY.errorMessageMaxChars ? `${m.slice(0, SAFETY.errorMessageMaxChars - 1)}…` : m;
}

/** A cause without secrets: an Error's message scrubbed (name and code kept), anything else as scrubbed text. */
function cleanCause(cause: unknown, secrets: ReadonlyArray<string | undefined>): unknown {
	if (cause instanceof ApiError) {
		return cause; // Already clean.
	}
	if (cause instanceof Error) {
		const copy = new Error(cleanMessage(cause.message, secrets));
		copy.name = cause.name;
		const code = (cause as { code?: unknown }).code;
		if (typeof code === 'string') {
			(copy as Error & { code?: string }).code = code;
		}
		return copy;
	}
	return cause === undefined
		? undefined
		: cleanMessage(typeof cause === 'string' ? cause : (JSON.stringify(cause) ?? typeof cause), secrets);
}

/** Raised before anything is sent when an input breaks a documented limit. */
export class ValidationError extends Error {
	override readonly name = 'ValidationError';
	readonly code = 'validation_failed';
	constructor(
		/** The request field at fault, e.g. `prompt`, `images[2]`, `limit`. */
		readonly field: string,
		/** The limit broken, human-readable, e.g. `at most 65536 UTF-8 bytes after trimming`. */
		readonly limit: string,
		message?: string,
	) {
		super(message ?? `${field}: ${limit}`);
	}
}

/**
 * A create (agent, run, artifact) failed ambiguously — the request was sent but no answer came —
 * and reconciliation could not find the resource. It may or may not exist: the caller should
 * re-read state before trying again. The client never re-sends the create itself.
 */
export class OutcomeUnknownError extends Error {
	override readonly name = 'OutcomeUnknownError';
	readonly code = 'outcome_unknown';
	constructor(
		/** What was being created: `agent`, `run`, `artifact`. */
		readonly resource: string,
		message: string,
		/** Candidates found by reconciliation when more than one matched. */
		readonly candidates: readonly unknown[] = [],
		options?: { cause?: unknown },
	) {
		super(message, options);
	}
}

export { abortError, isAbortError } from '../base/async';

/** HTTP status for each documented error code (docs/contract-choices.md), for SSE `error` events. */
export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
	invalid_argument: 422,
	command_failed: 422,
	unauthenticated: 401,
	permission_denied: 403,
	not_found: 404,
	already_exists: 409,
	failed_precondition: 409,
	rate_limited: 429,
	unimplemented: 501,
	internal: 500,
	unavailable: 503,
	deadline_exceeded: 504,
};

/** A transport failure: no (complete) answer arrived. */
export class NetworkError extends ApiError {
	constructor(
		code: 'network_error' | 'timeout' | 'connect_timeout' | 'connection_refused' | 'tls_error',
		message: string,
		/** False only when the request provably never reached the server (refused, DNS, connect time-out). */
		readonly requestSent: boolean,
		options?: { cause?: unknown; secrets?: ReadonlyArray<string | undefined> },
	) {
		super(
			0,
			code,
			message,
			undefined,
			undefined,
			options?.cause === undefined ? undefined : { cause: options.cause },
			options?.secrets,
		);
	}
}

/**
 * A proxy refused the request: its 407 (credentials missing or refused), or another refusal of the
 * tunnel that is not a 5xx (403 by its policy, …). The status is the proxy's; not retried (the settings must change).
 */
export class ProxyError extends ApiError {
	constructor(
		status: number,
		code: 'proxy_auth_required' | 'proxy_refused',
		message: string,
		/** The proxy as `host:port` (never its credentials). */
		readonly proxy: string,
	) {
		super(status, code, message, undefined);
	}
}
