/**
 * The vocabulary the workspace modules share: what a stat answers, the failures they decide
 * themselves, and the changes they report. No `vscode` import (`errors.ts` maps the failures to
 * `FileSystemError`s).
 */
import { ApiError, WorkspaceInterfaceError } from '../../api';

/** Kind of a workspace entry. */
export type EntryType = 'file' | 'directory';

/** What `stat` answers: the service's type, size and modification time (ms since the epoch). */
export interface EntryStat {
	type: EntryType;
	size: number;
	mtime: number;
}

/** The failures this layer decides itself (`errors.ts` turns them into `FileSystemError`s). */
export type WorkspaceFsErrorCode =
	'FileNotFound' | 'FileExists' | 'FileNotADirectory' | 'FileIsADirectory' | 'NoPermissions' | 'Unavailable' | 'TooLarge' | 'Conflict';

/** A failure decided without (or after) asking the service, with a message fit for users. */
export class WorkspaceFsError extends Error {
	override readonly name = 'WorkspaceFsError';
	constructor(
		readonly code: WorkspaceFsErrorCode,
		/** The workspace path concerned. */
		readonly path: string,
		message?: string,
	) {
		super(message ?? `${code}: ${path || '/'}`);
	}
}

/** Why an agent's workspace cannot be used now: signed out, the sign-in refused (401), no answer from the service, or the service failing (5xx, 429). */
export type UnavailableReason = 'signedOut' | 'unauthenticated' | 'unreachable' | 'failing';

/**
 * `Unavailable` because of the session or the service rather than the path: the message says why
 * and what to do. The folder's root fails with it until the service answers again.
 */
export class WorkspaceUnavailableError extends WorkspaceFsError {
	constructor(
		readonly reason: UnavailableReason,
		path: string,
		message: string,
		options?: { cause?: unknown },
	) {
		super('Unavailable', path, message);
		if (options?.cause !== undefined) {
			this.cause = options.cause;
		}
	}
}

/** A change to notify (VS Code: `onDidChangeFile`). */
export interface WorkspaceChange {
	type: 'created' | 'changed' | 'deleted';
	agentId: string;
	path: string;
}

/** An agent's workspace became unavailable (`error` says why) or is back (`error` undefined). */
export interface AvailabilityChange {
	agentId: string;
	error: WorkspaceUnavailableError | undefined;
}

/** The server rejected or misread our workspace operation for an agent (fired once until `retryInterface`). */
export interface InterfaceDiffers {
	agentId: string;
	error: WorkspaceInterfaceError;
}

/** A file read refused because it is over the large-file threshold and was not approved. */
export interface LargeFileRefusal {
	agentId: string;
	path: string;
	size: number;
	limit: number;
}

/**
 * An `Unavailable` error saying why, for a failure that means the service (at `host`) cannot be
 * used now; else undefined.
 */
export function unavailableFrom(err: unknown, path: string, host: string): WorkspaceUnavailableError | undefined {
	if (!(err instanceof ApiError) || err instanceof WorkspaceInterfaceError) {
		return undefined;
	}
	const detail = `${err.message} [${err.code}${err.requestId ? `, request ${err.requestId}` : ''}]`;
	const cause = { cause: err };
	if (err.status === 0) {
		return new WorkspaceUnavailableError(
			'unreachable',
			path,
			`The Cloud Agents service cannot be reached at ${host} (${err.message}). The folder comes back by itself once the service answers; check the cloudAgents.apiUrl setting and your connection.`,
			cause,
		);
	}
	if (err.status === 401) {
		return new WorkspaceUnavailableError(
			'unauthenticated',
			path,
			`Cloud Agents at ${host} did not accept the sign-in (${detail}): sign in again to see this agent's files.`,
			cause,
		);
	}
	if (err.isRetryable || err.status >= 500) {
		return new WorkspaceUnavailableError(
			'failing',
			path,
			`The Cloud Agents service at ${host} is unavailable (${detail}). The folder comes back by itself once the service answers.`,
			cause,
		);
	}
	return undefined;
}
