import * as vscode from 'vscode';
import { isAuthFailure, isUnreachable } from '../api';
import { isAbortError } from '../base/async';
import { SAFETY } from '../base/limits';
import { CONFIG } from '../ids';
import { notificationText, singleLine } from '../util/text';

/** Where failures are written; `vscode.LogOutputChannel` satisfies it. */
export interface ErrorLogger {
	error(message: string | Error, ...args: unknown[]): void;
}

/**
 * Routes an error before it is shown (the session's `reportError`, which turns a 401 into one
 * "sign in again" prompt); returns true when it handled the error, so nothing else is shown.
 */
export type UnauthorizedHandler = (err: unknown) => boolean;

/** True for a 401 (token missing, malformed or rejected), also for an ApiError from another bundle: the client's one check. */
export { isAuthFailure, isUnreachable };

/** What an error says about its request id: none, one that can be shown and copied, or an implausible one. */
export type RequestIdInfo = { kind: 'none' } | { kind: 'plausible'; id: string } | { kind: 'implausible' };

/** Classifies the request id an error carries against `SAFETY.requestIdPattern`. */
export function requestIdInfo(err: unknown): RequestIdInfo {
	const requestId = (err as { requestId?: unknown } | undefined)?.requestId;
	if (requestId === undefined || requestId === null || requestId === '') {
		return { kind: 'none' };
	}
	return typeof requestId === 'string' && SAFETY.requestIdPattern.test(requestId)
		? { kind: 'plausible', id: requestId }
		: { kind: 'implausible' };
}

/** The service's request id carried by an error (ApiError.requestId), only when it is plausible (safe to show and copy). */
export function requestIdOf(err: unknown): string | undefined {
	const info = requestIdInfo(err);
	return info.kind === 'plausible' ? info.id : undefined;
}

/**
 * "(request <id>)" for an error whose request id is plausible, else empty: the note that goes with
 * our own words for a refusal (errors shown to users name the request).
 */
export function requestIdNote(err: unknown): string {
	const id = requestIdOf(err);
	return id === undefined ? '' : vscode.l10n.t('(request {0})', id);
}

/** True for cancellations (AbortSignal, undici aborts, `vscode.CancellationError`). */
export function isCancellation(err: unknown): boolean {
	return err instanceof vscode.CancellationError || isAbortError(err);
}

/**
 * The text shown to the user for an error: the message (server text, neutralised and on one line)
 * plus the request id when it is plausible, or a note that an implausible one was not shown.
 */
export function describeError(err: unknown): string {
	const message = singleLine(err instanceof Error ? err.message : String(err), SAFETY.errorMessageMaxChars);
	const info = requestIdInfo(err);
	switch (info.kind) {
		case 'plausible':
			return vscode.l10n.t('{0} (request {1})', message, info.id);
		case 'implausible':
			return vscode.l10n.t('{0} (request id not shown: implausible value)', message);
		case 'none':
			return message;
	}
}

/** Opens the Settings editor at `cloudAgents.apiUrl` (VS Code's command, not one of ours). */
export function openApiUrlSetting(): Thenable<unknown> {
	return vscode.commands.executeCommand('workbench.action.openSettings', `${CONFIG.section}.${CONFIG.apiUrl}`);
}

/**
 * Shows that the service cannot be reached (`message`, made safe) with what helps: "Retry" (when
 * `retry` is given: runs it, which shows its own outcome) and "Configure API URL". Check Connection
 * and every command a person ran that got no answer from the service show it. Resolves when the
 * message is dismissed or the chosen action has run.
 */
export async function showUnreachable(message: string, retry?: () => unknown): Promise<void> {
	const retryTitle = vscode.l10n.t('Retry');
	const configure = vscode.l10n.t('Configure API URL');
	const choice = await vscode.window.showErrorMessage(notificationText(message), ...(retry ? [retryTitle] : []), configure);
	if (choice === retryTitle) {
		await retry?.();
	} else if (choice === configure) {
		await openApiUrlSetting();
	}
}

/**
 * Logs an error and shows it once as an error message: `<prefix: >message (request <id>)`, with a
 * "Copy Request ID" action when the service sent a plausible request id (copied exactly). The
 * message is server text made safe for a notification (no clickable links, no control or bidi
 * characters, cut). Cancellations are ignored; a 401 goes to `onUnauthorized` (the session's single
 * "sign in again" prompt) when given, else it is shown with a "Sign In" action.
 * Resolves when the message is dismissed (callers usually `void` it).
 *
 * @param err the failure (ApiError, ValidationError, any Error or value)
 * @param log where to write the failure; pass `undefined` to skip logging
 * @param prefix optional context such as "Could not load agents"
 * @param onUnauthorized the session's 401 handler; true when it handled the error
 * @param signIn the sign-in flow, offered as "Sign In" for a 401 no handler took
 * @param retry runs what failed again (the command with the same arguments), offered as "Retry"
 *   with "Configure API URL" when the service gave no answer at all (`isUnreachable`)
 */
export async function showApiError(
	err: unknown,
	log: ErrorLogger | undefined,
	prefix?: string,
	onUnauthorized?: UnauthorizedHandler,
	signIn?: () => Promise<unknown>,
	retry?: () => unknown,
): Promise<void> {
	if (isCancellation(err)) {
		return;
	}
	log?.error(prefix ?? 'Cloud Agents error:', err instanceof Error ? err : String(err));
	if (isAuthFailure(err) && onUnauthorized?.(err) === true) {
		return;
	}
	if (isUnreachable(err)) {
		const reason = vscode.l10n.t('Cannot reach the Cloud Agents service: {0}', describeError(err));
		return showUnreachable(prefix ? `${prefix}: ${reason}` : reason, retry);
	}
	const text = notificationText(prefix ? `${prefix}: ${describeError(err)}` : describeError(err));
	const actions: string[] = [];
	const requestId = requestIdOf(err);
	const copy = vscode.l10n.t('Copy Request ID');
	if (requestId !== undefined) {
		actions.push(copy);
	}
	const signInTitle = vscode.l10n.t('Sign In');
	if (isAuthFailure(err) && onUnauthorized === undefined && signIn !== undefined) {
		actions.push(signInTitle);
	}
	const choice = await vscode.window.showErrorMessage(text, ...actions);
	if (choice === copy && requestId !== undefined) {
		await vscode.env.clipboard.writeText(requestId);
	} else if (choice === signInTitle) {
		await signIn?.();
	}
}
