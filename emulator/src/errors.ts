/** Error envelope and the code → HTTP status mapping (docs/contract-choices.md, "General"). */

export type ErrorCode =
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
	| 'unimplemented';

export const STATUS_BY_CODE: Record<ErrorCode, number> = {
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

export function codeForStatus(status: number): ErrorCode {
	switch (status) {
		case 400:
		case 413:
		case 415:
		case 422:
			return 'invalid_argument';
		case 401:
			return 'unauthenticated';
		case 403:
			return 'permission_denied';
		case 404:
		case 405:
			return 'not_found';
		case 409:
			return 'failed_precondition';
		case 429:
			return 'rate_limited';
		case 501:
			return 'unimplemented';
		case 503:
			return 'unavailable';
		case 504:
			return 'deadline_exceeded';
		default:
			return 'internal';
	}
}

/** One field-level problem of a request (`error.details[]`, an assumed member of the envelope). */
export interface FieldDetail {
	/** The member's path in the request, e.g. `endpoint` or `repositories[2].branch`. */
	field: string;
	message: string;
}

/** An error that the error handler turns into the documented envelope. */
export class ApiError extends Error {
	readonly status: number;
	readonly code: ErrorCode;
	readonly headers: Record<string, string>;
	/** Field-level problems, sent as `error.details` (docs/contract-choices.md, "General"). */
	readonly details: FieldDetail[] | undefined;
	constructor(
		code: ErrorCode,
		message: string,
		opts: { status?: number; headers?: Record<string, string>; details?: FieldDetail[] } = {},
	) {
		super(message);
		this.code = code;
		this.status = opts.status ?? STATUS_BY_CODE[code];
		this.headers = opts.headers ?? {};
		this.details = opts.details;
	}
}

/** A 422 invalid_argument naming every field that failed (message: the problems joined by "; "). */
export const invalidFields = (details: FieldDetail[]): ApiError =>
	new ApiError('invalid_argument', details.map((d) => `${d.field}: ${d.message}`).join('; '), { details });

export const notFound = (what: string, id: string): ApiError => new ApiError('not_found', `${what} ${JSON.stringify(id)} not found`);
export const invalid = (message: string): ApiError => new ApiError('invalid_argument', message);
export const conflict = (message: string): ApiError => new ApiError('failed_precondition', message);
export const forbidden = (message: string): ApiError => new ApiError('permission_denied', message);

export interface Envelope {
	error: { code: string; message: string; details?: FieldDetail[] };
	request_id?: string;
}

/** /v1 error bodies carry no request_id (the header is always sent); `details` only when there are field problems. */
export function envelope(code: string, message: string, requestId: string, url: string, details?: FieldDetail[]): Envelope {
	const body: Envelope = { error: { code, message } };
	if (details && details.length > 0) body.error.details = details.map((d) => ({ ...d }));
	if (!url.startsWith('/v1/')) body.request_id = requestId;
	return body;
}
