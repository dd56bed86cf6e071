import * as vscode from 'vscode';

/** Where failures are written; `vscode.LogOutputChannel` satisfies it. */
export interface ErrorLogger {
	error(message: string | Error, ...args: unknown[]): void;
}

let unauthorizedHandler: ((err: unknown) => boolean) | undefined;

/**
 * Routes errors through `handler` before showing them (the session's `reportError`, which turns a
 * 401 into one "sign in again" prompt). When the handler returns true, `showApiError` shows nothing.
 * Returns a disposable that removes the handler.
 */
export function setUnauthorizedHandler(handler: (err: unknown) => boolean): vscode.Disposable {
	unauthorizedHandler = handler;
	return new vscode.Disposable(() => {
		if (unauthorizedHandler === handler) {
			unauthorizedHandler = undefined;
		}
	});
}

/** The service's request id carried by an error (ApiError.requestId), when it has one. */
export function requestIdOf(err: unknown): string | undefined {
	const requestId = (err as { requestId?: unknown } | undefined)?.requestId;
	return typeof requestId === 'string' && requestId !== '' ? requestId : undefined;
}

/** True for cancellations (AbortSignal, undici aborts, `vscode.CancellationError`). */
export function isCancellation(err: unknown): boolean {
	if (err instanceof vscode.CancellationError) {
		return true;
	}
	const e = err as { name?: unknown; code?: unknown } | undefined;
	return e?.name === 'AbortError' || e?.code === 'ABORT_ERR' || e?.code === 'UND_ERR_ABORTED';
}

/** The text shown to the user for an error: the service's message plus the request id when there is one. */
export function describeError(err: unknown): string {
	const message = err instanceof Error ? err.message : String(err);
	const requestId = requestIdOf(err);
	return requestId !== undefined ? vscode.l10n.t('{0} (request {1})', message, requestId) : message;
}

/**
 * Logs an error and shows it once as an error message: `<prefix: >message (request <id>)`, with a
 * "Copy Request ID" action when the service sent a request id. Cancellations are ignored; a 401
 * goes to the session's single "sign in again" prompt instead (see `setUnauthorizedHandler`).
 * Resolves when the message is dismissed (callers usually `void` it).
 *
 * @param err the failure (ApiError, ValidationError, any Error or value)
 * @param log where to write the failure; pass `undefined` to skip logging
 * @param prefix optional context such as "Could not load agents"
 */
export async function showApiError(err: unknown, log: ErrorLogger | undefined, prefix?: string): Promise<void> {
	if (isCancellation(err)) {
		return;
	}
	log?.error(prefix ?? 'Cloud Agents error:', err instanceof Error ? err : String(err));
	if (unauthorizedHandler?.(err) === true) {
		return;
	}
	const text = prefix ? `${prefix}: ${describeError(err)}` : describeError(err);
	const requestId = requestIdOf(err);
	if (requestId === undefined) {
		await vscode.window.showErrorMessage(text);
		return;
	}
	const copy = vscode.l10n.t('Copy Request ID');
	const choice = await vscode.window.showErrorMessage(text, copy);
	if (choice === copy) {
		await vscode.env.clipboard.writeText(requestId);
	}
}
