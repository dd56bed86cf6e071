/**
 * The vocabulary the workspace modules share: what a stat answers, the failures they decide
 * themselves, and the changes they report. No `vscode` import (`errors.ts` maps the failures to
 * `FileSystemError`s).
 */

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
