/**
 * The one place where failures of the workspace file system become `vscode.FileSystemError`s.
 * VS Code shows these itself (Explorer, editor, save), so the provider never shows pop-ups.
 */
import * as vscode from 'vscode';
import { ApiError, ValidationError, WorkspaceInterfaceError } from '../../api';
import { WorkspacePathError } from '../../util/paths';
import { WorkspaceFsError } from './workspaceCache';

/** What the provider was doing; decides what a 409 Conflict means. */
export type FsOperation = 'stat' | 'readDirectory' | 'readFile' | 'writeFile' | 'delete' | 'rename' | 'copy' | 'createDirectory';

function withRequest(err: ApiError): string {
	return vscode.l10n.t('{0} [{1}, request {2}]', err.message, err.code, err.requestId ?? vscode.l10n.t('unknown'));
}

/**
 * Maps any failure to a FileSystemError: 404 → FileNotFound; 401/403 → NoPermissions; 409 →
 * FileExists, or FileIsADirectory / FileNotADirectory where that is what the service meant;
 * 429/503/504 and network failures (after the client's retries) → Unavailable; refused inputs
 * (too large, too long, escaping the root) → NoPermissions with the reason as the message; a
 * WorkspaceInterfaceError (the server reads another workspace operation shape) → Unavailable with
 * its message and request id.
 */
export function toFileSystemError(err: unknown, uri: vscode.Uri, op: FsOperation): Error {
	if (err instanceof vscode.FileSystemError) {
		return err;
	}
	if (err instanceof WorkspaceFsError) {
		const message = err.message.startsWith(`${err.code}:`) ? uri : err.message;
		switch (err.code) {
			case 'FileNotFound':
				return vscode.FileSystemError.FileNotFound(message);
			case 'FileExists':
				return vscode.FileSystemError.FileExists(message);
			case 'FileIsADirectory':
				return vscode.FileSystemError.FileIsADirectory(message);
			case 'FileNotADirectory':
				return vscode.FileSystemError.FileNotADirectory(message);
			case 'Unavailable':
				return vscode.FileSystemError.Unavailable(message);
			case 'Conflict':
				// Not FileExists: for a save that would read as "file exists" instead of the reason.
				return new vscode.FileSystemError(message);
			case 'NoPermissions':
			case 'TooLarge':
				return vscode.FileSystemError.NoPermissions(message);
		}
	}
	if (err instanceof WorkspacePathError) {
		return vscode.FileSystemError.NoPermissions(err.message);
	}
	if (err instanceof ValidationError) {
		return vscode.FileSystemError.NoPermissions(vscode.l10n.t('Refused before sending: {0}', err.message));
	}
	if (err instanceof WorkspaceInterfaceError) {
		// "This server's workspace interface differs: …" with the request id: shown on the folder.
		return vscode.FileSystemError.Unavailable(withRequest(err));
	}
	if (err instanceof ApiError) {
		switch (err.status) {
			case 401:
			case 403:
				return vscode.FileSystemError.NoPermissions(withRequest(err));
			case 404:
				return vscode.FileSystemError.FileNotFound(uri);
			case 409:
				if (op === 'writeFile' || op === 'readFile') {
					return vscode.FileSystemError.FileIsADirectory(withRequest(err));
				}
				if (op === 'readDirectory') {
					return vscode.FileSystemError.FileNotADirectory(withRequest(err));
				}
				if (op === 'delete') {
					return new vscode.FileSystemError(withRequest(err));
				}
				return vscode.FileSystemError.FileExists(uri);
			default:
				return err.isRetryable || err.status >= 500
					? vscode.FileSystemError.Unavailable(withRequest(err))
					: new vscode.FileSystemError(withRequest(err));
		}
	}
	const code = (err as { code?: unknown } | undefined)?.code;
	if (typeof code === 'string' && code.startsWith('UND_ERR')) {
		return vscode.FileSystemError.Unavailable(uri);
	}
	return err instanceof Error ? err : new Error(String(err));
}
