import * as vscode from 'vscode';
import { isAuthFailure, isLoopbackUrl, SAFETY } from '../api';
import type { DeviceAuthorization, Me, ApiError } from '../api';
import { describeError, requestIdOf, showApiError } from '../messages/errors';
import type { ErrorLogger } from '../messages/errors';
import { notificationText, outputLine, singleLine } from '../util/text';
import { accountLabel } from './accountLabel';
import { isSafeExternalUrl } from './session';
import type { Session } from './session';

/** The OAuth client id the extension presents in the device flow. */
export const DEVICE_CLIENT_ID = 'cloud-agents-vscode';

/** Where sign-in writes what it did; `vscode.LogOutputChannel` satisfies it. */
export interface AuthLogger extends ErrorLogger {
	info(message: string, ...args: unknown[]): void;
	warn(message: string, ...args: unknown[]): void;
}

/**
 * Arguments of `cloudAgents.signIn` for automation (tests, `npm start`). Without them the command
 * asks with a QuickPick.
 */
export interface SignInArgs {
	/** Sign in with this API key without asking (it is still checked with GET /v2/me). */
	apiKey?: string;
	/** Skip the QuickPick and use this method. */
	method?: 'apiKey' | 'device';
	/** Device flow: false skips the "copy code / open browser" prompt (tests approve through the emulator). */
	openBrowser?: boolean;
}

/** Arguments of `cloudAgents.signOut` for automation (tests). */
export interface SignOutArgs {
	/** false signs out without the confirmation (the Accounts menu asks itself). */
	confirm?: boolean;
}

/** The setting that turns the Sign Out confirmation off ("Don't Ask Again" sets it to false). */
export const CONFIRM_SIGN_OUT_SETTING = 'confirmSignOut';

/**
 * Asks before signing out, as VS Code asks before deleting a file: a modal with "Sign Out" and
 * "Sign Out and Don't Ask Again" (which sets `cloudAgents.confirmSignOut` to false, like the
 * explorer's `explorer.confirmDelete`). Resolves to true when the user chose to sign out.
 */
async function confirmSignOut(apiUrl: string): Promise<boolean> {
	if (!vscode.workspace.getConfiguration('cloudAgents').get<boolean>(CONFIRM_SIGN_OUT_SETTING, true)) {
		return true;
	}
	const signOutItem = vscode.l10n.t('Sign Out');
	const always = vscode.l10n.t("Sign Out and Don't Ask Again");
	const choice = await vscode.window.showWarningMessage(
		notificationText(vscode.l10n.t('Sign out of Cloud Agents at {0}?', new URL(apiUrl).host)),
		{
			modal: true,
			detail: vscode.l10n.t(
				'The API key is revoked on the service and deleted from this computer; runs you follow stop until you sign in again. To sign in again you need a new key or the device code.',
			),
		},
		signOutItem,
		always,
	);
	if (choice === always) {
		await vscode.workspace.getConfiguration('cloudAgents').update(CONFIRM_SIGN_OUT_SETTING, false, vscode.ConfigurationTarget.Global);
	}
	return choice === signOutItem || choice === always;
}

/** What the sign-in UI needs. */
export interface SignInDeps {
	session: Session;
	log: AuthLogger;
}

/**
 * Checks a token with GET /v2/me using a short-lived client that holds only this token, so a
 * rejected key is never stored.
 */
async function checkToken(apiUrl: string, token: string, session: Pick<Session, 'clientWith'>, signal?: AbortSignal): Promise<Me> {
	const client = session.clientWith(apiUrl, token);
	try {
		return await client.getMe({ signal });
	} finally {
		client.close();
	}
}

function cancellationSignal(token: vscode.CancellationToken): { signal: AbortSignal; dispose(): void } {
	const controller = new AbortController();
	const sub = token.onCancellationRequested(() => {
		controller.abort();
	});
	return {
		signal: controller.signal,
		dispose: () => {
			sub.dispose();
		},
	};
}

/**
 * Signs in. Resolves to true when a token is stored for the current API URL. Errors are shown here
 * (with the request id), so the command wrapper only sees cancellations.
 */
export async function signIn(deps: SignInDeps, args?: SignInArgs): Promise<boolean> {
	const apiKey = typeof args?.apiKey === 'string' ? args.apiKey : undefined;
	if (apiKey !== undefined) {
		return signInWithApiKey(deps, apiKey);
	}
	let method = args?.method;
	if (method === undefined) {
		const items: (vscode.QuickPickItem & { method: 'apiKey' | 'device' })[] = [
			{
				label: vscode.l10n.t('$(key) API key'),
				description: vscode.l10n.t('Paste a key from your account settings'),
				method: 'apiKey',
			},
			{
				label: vscode.l10n.t('$(device-mobile) Device code'),
				description: vscode.l10n.t('Approve this editor in your browser'),
				method: 'device',
			},
		];
		const picked = await vscode.window.showQuickPick(items, {
			title: vscode.l10n.t('Sign in to Cloud Agents ({0})', deps.session.apiUrl),
			placeHolder: vscode.l10n.t('How do you want to sign in?'),
			// As the key's input box after it: a person may look up the account in a browser first, and
			// a panel that takes the focus back (a webview) must not close the sign-in unseen.
			ignoreFocusOut: true,
		});
		if (!picked) {
			return false;
		}
		method = picked.method;
	}
	if (method === 'device') {
		return signInWithDeviceCode(deps, args?.openBrowser !== false);
	}
	return askApiKey(deps);
}

/**
 * The API key's input box. Enter checks the key with the box still open (busy); a key the service
 * refuses, or a check that fails, is said in the box under what was pasted, which stays for another
 * try (issue 42, item 7: the box used to close and the key was gone). Escape cancels, also a check
 * under way. Resolves to true once a key is stored.
 */
function askApiKey({ session, log }: SignInDeps): Promise<boolean> {
	const apiUrl = session.apiUrl;
	const box = vscode.window.createInputBox();
	box.title = vscode.l10n.t('Sign in to Cloud Agents');
	box.prompt = vscode.l10n.t('API key for {0}. It is kept in the secret storage, never in settings.', apiUrl);
	box.password = true;
	box.ignoreFocusOut = true;
	return new Promise<boolean>((resolve) => {
		// Hiding the box (Escape, or once signed in) cancels a check under way; disposing it drops the listeners.
		const hidden = new AbortController();
		let signedIn = false;
		box.onDidChangeValue(() => (box.validationMessage = undefined));
		box.onDidHide(() => {
			hidden.abort();
			box.dispose();
			resolve(signedIn);
		});
		box.onDidAccept(async () => {
			const key = box.value.trim();
			if (key === '') {
				box.validationMessage = vscode.l10n.t('The API key is empty.');
				return;
			}
			box.busy = true;
			box.enabled = false;
			try {
				const me = await checkToken(apiUrl, key, session, hidden.signal);
				if (!hidden.signal.aborted) {
					await signedInWith({ session, log }, key, me);
					signedIn = true;
					box.hide();
				}
			} catch (err) {
				if (!hidden.signal.aborted) {
					box.validationMessage = keyProblem(err, apiUrl, log);
				}
			} finally {
				box.busy = false;
				box.enabled = true;
			}
		});
		box.show();
	});
}

/** Stores a key the service took (GET /v2/me answered `me`) and says who is signed in. */
async function signedInWith({ session, log }: SignInDeps, key: string, me: Me): Promise<void> {
	await session.storeToken(key);
	log.info(`Signed in to ${session.apiUrl} with an API key.`);
	void vscode.window.showInformationMessage(
		notificationText(vscode.l10n.t('Signed in to Cloud Agents as {0}.', singleLine(accountLabel(me, session.apiUrl)))),
	);
}

/** Why a key was not taken, for the input box (one line, with the request id), logged as the toast's would be. */
function keyProblem(err: unknown, apiUrl: string, log: AuthLogger): string {
	const refused = isAuthFailure(err);
	log.warn(outputLine(`The API key was ${refused ? 'rejected by' : 'not checked at'} ${apiUrl}: ${describeError(err)}`));
	if (!refused) {
		return notificationText(vscode.l10n.t('Could not check the key: {0}', describeError(err)));
	}
	const requestId = requestIdOf(err);
	const text = rejectedText(err, apiUrl);
	return notificationText(requestId === undefined ? text : vscode.l10n.t('{0} (request {1})', text, requestId));
}

/** Automation's `{apiKey}`: checks and stores the key without asking; a refusal is an error notification. */
async function signInWithApiKey(deps: SignInDeps, rawKey: string): Promise<boolean> {
	const key = rawKey.trim();
	if (key === '') {
		void vscode.window.showErrorMessage(vscode.l10n.t('The API key is empty.'));
		return false;
	}
	try {
		await signedInWith(deps, key, await checkToken(deps.session.apiUrl, key, deps.session));
		return true;
	} catch (err) {
		void vscode.window.showErrorMessage(keyProblem(err, deps.session.apiUrl, deps.log));
		return false;
	}
}

/**
 * "The API key was not accepted", with the server's reason when it gave one (server text: one line,
 * cut) and, for a loopback API URL (the demo's emulator), how to get a fresh key.
 */
export function rejectedText(err: ApiError, apiUrl: string): string {
	const reason = singleLine(err.message, SAFETY.descriptionMaxChars);
	let text =
		reason === ''
			? vscode.l10n.t('The API key was not accepted.')
			: vscode.l10n.t('The API key was not accepted: {0}.', reason.replace(/[.\s]+$/, ''));
	if (isLoopbackUrl(apiUrl)) {
		// Plain text: a notification or an input box shows backticks as they are.
		text += ' ' + vscode.l10n.t('In the demo, "npm run demo:key" prints a fresh key.');
	}
	return text;
}

/**
 * The verification page's address as the user's browser reaches it. A loopback `http:` page (the
 * local emulator) goes through `vscode.env.asExternalUri`, which maps it to what the browser can
 * open: code-server's port proxy (`/proxy/<port>/…`) or a forwarded port in a remote window; other
 * addresses are used as the service sent them. `undefined` when the address may not be opened
 * (not `https:` and not loopback `http:`).
 */
export async function browserVerificationUrl(url: string): Promise<string | undefined> {
	if (!isSafeExternalUrl(url)) {
		return undefined;
	}
	if (!url.startsWith('https:') && isLoopbackUrl(url)) {
		try {
			return (await vscode.env.asExternalUri(vscode.Uri.parse(url, true))).toString(true);
		} catch {
			return url;
		}
	}
	return url;
}

/** Offers to copy the user code and open the verification page (never blocks polling). */
async function offerVerificationPage(authorization: DeviceAuthorization): Promise<void> {
	const url = authorization.verification_uri_complete || authorization.verification_uri;
	// Shown as the browser reaches it; opened as sent (openExternal maps a loopback address itself).
	const shownUrl = isSafeExternalUrl(url)
		? ((await browserVerificationUrl(authorization.verification_uri)) ?? (await browserVerificationUrl(url)))
		: undefined;
	const copyAndOpen = vscode.l10n.t('Copy Code and Open Browser');
	const copy = vscode.l10n.t('Copy Code');
	const actions = shownUrl !== undefined ? [copyAndOpen, copy] : [copy];
	const text =
		shownUrl !== undefined
			? vscode.l10n.t('To sign in, enter the code {0} at {1}.', authorization.user_code, shownUrl)
			: vscode.l10n.t(
					'To sign in, enter the code {0} at the verification page of your Cloud Agents service. (The service sent a verification address that is not https:, so it is not opened.)',
					authorization.user_code,
				);
	const choice = await vscode.window.showInformationMessage(notificationText(text), ...actions);
	if (choice === copy || choice === copyAndOpen) {
		await vscode.env.clipboard.writeText(authorization.user_code);
	}
	if (choice === copyAndOpen && shownUrl !== undefined) {
		await vscode.env.openExternal(vscode.Uri.parse(url, true));
	}
}

async function signInWithDeviceCode({ session, log }: SignInDeps, openBrowser: boolean): Promise<boolean> {
	const apiUrl = session.apiUrl;
	// A client without a token: the device endpoints are anonymous, and a stale stored token must not matter.
	const client = session.clientWith(apiUrl, undefined);
	try {
		return await vscode.window.withProgress(
			{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing in to Cloud Agents'), cancellable: true },
			async (progress, token) => {
				const cancel = cancellationSignal(token);
				try {
					progress.report({ message: vscode.l10n.t('requesting a code…') });
					const authorization = await client.startDeviceAuthorization({ client_id: DEVICE_CLIENT_ID }, { signal: cancel.signal });
					log.info(`Device sign-in started at ${apiUrl}; waiting for approval.`);
					progress.report({ message: vscode.l10n.t('waiting for approval of code {0}…', authorization.user_code) });
					if (openBrowser) {
						void offerVerificationPage(authorization).catch((err: unknown) => {
							log.warn(`Could not offer the verification page: ${describeError(err)}`);
						});
					}
					const result = await client.waitForDeviceToken(authorization, { signal: cancel.signal });
					switch (result.status) {
						case 'success': {
							const accessToken = result.token.access_token;
							await session.storeToken(accessToken);
							log.info(`Signed in to ${apiUrl} with the device flow.`);
							void vscode.window.showInformationMessage(vscode.l10n.t('Signed in to Cloud Agents.'));
							return true;
						}
						case 'expired':
							log.warn('Device sign-in: the code expired.');
							void vscode.window.showErrorMessage(vscode.l10n.t('The sign-in code expired. Start signing in again.'));
							return false;
						case 'denied':
							log.warn('Device sign-in: access was denied.');
							void vscode.window.showErrorMessage(vscode.l10n.t('Sign-in was denied.'));
							return false;
					}
				} finally {
					cancel.dispose();
				}
			},
		);
	} catch (err) {
		void showApiError(err, log, vscode.l10n.t('Could not sign in'));
		return false;
	} finally {
		client.close();
	}
}

/**
 * Signs out: revokes the token on the server (DELETE /v2/auth/token), then deletes it locally —
 * also when the server cannot be reached, in which case a warning says the token may still be valid.
 * Asks first (modal) unless `args.confirm` is false or `cloudAgents.confirmSignOut` is off.
 * Resolves to true when the server confirmed the revocation (or already rejected the token); false
 * when the user cancelled or the server could not revoke it.
 */
export async function signOut({ session, log }: SignInDeps, args?: SignOutArgs): Promise<boolean> {
	if ((await session.getToken()) === undefined) {
		await session.refreshSignedIn();
		void vscode.window.showInformationMessage(vscode.l10n.t('You are not signed in to Cloud Agents.'));
		return true;
	}
	const apiUrl = session.apiUrl;
	if (args?.confirm !== false && !(await confirmSignOut(apiUrl))) {
		return false;
	}
	let failure: unknown;
	await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Signing out of Cloud Agents…') },
		async () => {
			try {
				await session.client.revokeToken({ signal: AbortSignal.timeout(15_000) });
			} catch (err) {
				// 401: the server already rejects this token, which is what revoking wants.
				if (!isAuthFailure(err)) {
					failure = err;
				}
			}
			await session.deleteToken();
		},
	);
	if (failure === undefined) {
		log.info(`Signed out of ${apiUrl}; the token was revoked.`);
		void vscode.window.showInformationMessage(vscode.l10n.t('Signed out of Cloud Agents.'));
		return true;
	}
	log.warn(`Signed out of ${apiUrl} locally; revoking the token failed: ${describeError(failure)}`);
	const text = vscode.l10n.t('Signed out on this computer, but the service could not revoke the token: {0}', describeError(failure));
	const requestId = requestIdOf(failure);
	const copy = vscode.l10n.t('Copy Request ID');
	void vscode.window.showWarningMessage(notificationText(text), ...(requestId ? [copy] : [])).then(async (choice) => {
		if (choice === copy && requestId) {
			await vscode.env.clipboard.writeText(requestId);
		}
	});
	return false;
}
