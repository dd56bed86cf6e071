import * as vscode from 'vscode';
import { isAuthFailure, isLoopbackUrl, SAFETY } from '../api';
import type { DeviceAuthorization, Me, ApiError } from '../api';
import { describeError, requestIdOf, showApiError } from '../messages/errors';
import type { ErrorLogger } from '../messages/errors';
import { notificationText, outputLine, singleLine } from '../util/text';
import { CONFIG } from '../ids';
import { accountLabel } from './accountLabel';
import type { DeploymentSession, DeploymentSessions } from './deploymentSessions';
import { DEPLOYMENT_NAME_MAX_CHARS, deploymentId, deploymentName, nameProblem, normaliseApiUrl, parseDeployments } from './deployments';
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
	/** With several deployments: the one to sign in to (its name or id), without asking; `apiKey` without it is for the default one. */
	deployment?: string;
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
	/** With several deployments signed in: the one to sign out of (its name or id), without asking. */
	deployment?: string;
}

/** Arguments of `cloudAgents.addDeployment` for automation: what is given is not asked; then signing in as {@link SignInArgs} says. */
export interface AddDeploymentArgs extends Omit<SignInArgs, 'deployment'> {
	name?: string;
	apiUrl?: string;
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
	/** The default deployment's session (the only one when no other deployment is configured). */
	session: Session;
	log: AuthLogger;
	/** Every configured deployment's session; undefined where only the default one is meant (the Accounts menu, a session's own "sign in again"). */
	deployments?: () => DeploymentSessions;
	/** The deployment's name, for the messages, when several are configured (undefined: the messages are as with one). */
	named?: string;
}

/** The name of the deployment of `session` when several are configured (messages name it then only), else `given`. */
function nameWhenSeveral(deps: SignInDeps, session: Session): string | undefined {
	const all = deps.deployments?.().all ?? [];
	return deps.named ?? (all.length > 1 ? all.find((d) => d.session === session)?.deployment.name : undefined);
}

/**
 * The session a sign-in or sign-out is for, when no one needs asking: the deployment `wanted`
 * names (undefined, said, when none has that name or id); with one candidate or none, that one or
 * the default (so with one deployment the flows run at once, as before deployments). `'ask'` when
 * there are several candidates to pick from (`pickDeployment`).
 */
function deploymentWithoutAsking(
	deps: SignInDeps,
	candidates: readonly DeploymentSession[],
	wanted: string | undefined,
): Session | undefined | 'ask' {
	if (wanted !== undefined) {
		const found = deps.deployments?.().find(wanted);
		if (found === undefined) {
			void vscode.window.showErrorMessage(
				notificationText(
					vscode.l10n.t(
						'No deployment named "{0}" is configured (settings {1} and {2}).',
						wanted,
						'cloudAgents.apiUrl',
						'cloudAgents.deployments',
					),
				),
			);
		}
		return found?.session;
	}
	return candidates.length <= 1 ? (candidates[0]?.session ?? deps.session) : 'ask';
}

/** The person picks one of `candidates`; for a sign-in (`forSignIn`) adding a deployment is offered too. Undefined when dismissed. */
async function pickDeployment(
	deps: SignInDeps,
	candidates: readonly DeploymentSession[],
	title: string,
	forSignIn: boolean,
): Promise<Session | undefined> {
	const items: (vscode.QuickPickItem & { session?: Session })[] = candidates.map(({ deployment, session }) => ({
		label: singleLine(deployment.name),
		description: singleLine(deployment.apiUrl),
		detail: session.signedIn ? vscode.l10n.t('Signed in') : undefined,
		session,
	}));
	if (forSignIn) {
		items.push({
			label: vscode.l10n.t('$(add) Add Deployment…'),
			description: vscode.l10n.t('A name and the API URL of another service'),
		});
	}
	const picked = await vscode.window.showQuickPick(items, {
		title,
		placeHolder: vscode.l10n.t('Which deployment?'),
		ignoreFocusOut: true,
	});
	if (picked === undefined) {
		return undefined;
	}
	return picked.session ?? (await askNewDeployment(deps, {}))?.session;
}

/**
 * Adds a deployment to `cloudAgents.deployments` (user settings): the name and API URL asked for
 * (or given), each checked in its box as the setting's entries are (src/auth/deployments.ts: the
 * URL as the client checks it, no second entry for a listed service), nothing written until both
 * are good. Resolves to the added deployment's session, undefined when dismissed.
 */
async function askNewDeployment(deps: SignInDeps, args: AddDeploymentArgs): Promise<DeploymentSession | undefined> {
	const sessions = deps.deployments?.();
	if (sessions === undefined) {
		return undefined;
	}
	const config = vscode.workspace.getConfiguration(CONFIG.section);
	const held = config.inspect<unknown>(CONFIG.deployments)?.globalValue;
	const entries: unknown[] = Array.isArray(held) ? [...(held as unknown[])] : [];
	const apiUrlSetting = config.get<string>(CONFIG.apiUrl, '');
	/** Why the entry would be refused, or undefined when the setting would take it. */
	const problemOf = (entry: { name: string; apiUrl: string }): string | undefined => {
		const before = parseDeployments(apiUrlSetting, entries);
		const after = parseDeployments(apiUrlSetting, [...entries, entry]);
		return after.deployments.length > before.deployments.length ? undefined : after.problems[after.problems.length - 1];
	};
	const title = vscode.l10n.t('Add a Cloud Agents deployment');
	const name =
		args.name ??
		(await vscode.window.showInputBox({
			title,
			prompt: vscode.l10n.t('A name for the service, as the views and messages will call it (for example Staging).'),
			ignoreFocusOut: true,
			validateInput: (value) => {
				switch (
					nameProblem(
						deploymentName(value),
						sessions.all.map((d) => d.deployment),
					)
				) {
					case 'length':
						return value.trim() === '' ? undefined : vscode.l10n.t('A name of 1 to {0} characters.', DEPLOYMENT_NAME_MAX_CHARS);
					case 'taken':
						return vscode.l10n.t('Another deployment has this name.');
					case undefined:
						return undefined;
				}
			},
		}));
	if (name === undefined || name.trim() === '') {
		return undefined;
	}
	const apiUrl =
		args.apiUrl ??
		(await vscode.window.showInputBox({
			title,
			prompt: vscode.l10n.t('The API URL of "{0}" (https:, or http: on this computer only).', singleLine(name)),
			ignoreFocusOut: true,
			validateInput: (value) => (value.trim() === '' ? undefined : problemOf({ name, apiUrl: value })),
		}));
	if (apiUrl === undefined || apiUrl.trim() === '') {
		return undefined;
	}
	const entry = { name: name.trim(), apiUrl: apiUrl.trim() };
	const problem = problemOf(entry);
	if (problem !== undefined) {
		void vscode.window.showErrorMessage(notificationText(problem));
		return undefined;
	}
	const normalisedUrl = normaliseApiUrl(entry.apiUrl);
	await config.update(CONFIG.deployments, [...entries, { name: entry.name, apiUrl: normalisedUrl }], vscode.ConfigurationTarget.Global);
	sessions.reload();
	deps.log.info(outputLine(`Added the deployment ${entry.name} (${normalisedUrl}) to ${CONFIG.section}.${CONFIG.deployments}.`));
	return sessions.find(deploymentId(normalisedUrl));
}

/**
 * `cloudAgents.addDeployment`: adds a deployment (asking for its name and API URL unless given),
 * then signs in to it. Resolves to true when a token is stored for it.
 */
export async function addDeployment(deps: SignInDeps, args?: AddDeploymentArgs): Promise<boolean> {
	const added = await askNewDeployment(deps, args ?? {});
	// The deployment is chosen: signing in asks only how (the list of deployments is left out).
	return added === undefined ? false : signIn({ session: added.session, log: deps.log, named: added.deployment.name }, args);
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
 * Signs in, to the deployment `args.deployment` names or the person picks when several are
 * configured (with one, at once, as before deployments). Resolves to true when a token is stored
 * for the chosen deployment's API URL. Errors are shown here (with the request id), so the command
 * wrapper only sees cancellations.
 */
export async function signIn(given: SignInDeps, args?: SignInArgs): Promise<boolean> {
	// A key given without a deployment is automation's for the default one (as before deployments): nobody to ask.
	const candidates = args?.apiKey !== undefined && args.deployment === undefined ? [] : (given.deployments?.().all ?? []);
	const chosen = deploymentWithoutAsking(given, candidates, args?.deployment);
	// Not awaited when there is nothing to ask: the method's pick or the key's box opens in this turn, as before deployments.
	const session = chosen === 'ask' ? await pickDeployment(given, candidates, vscode.l10n.t('Sign in to Cloud Agents'), true) : chosen;
	if (session === undefined) {
		return false;
	}
	const deps: SignInDeps = { session, log: given.log, named: nameWhenSeveral(given, session) };
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
function askApiKey(deps: SignInDeps): Promise<boolean> {
	const { session, log } = deps;
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
					await signedInWith(deps, key, me);
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
async function signedInWith({ session, log, named }: SignInDeps, key: string, me: Me): Promise<void> {
	await session.storeToken(key);
	log.info(`Signed in to ${session.apiUrl} with an API key.`);
	const who = singleLine(accountLabel(me, session.apiUrl));
	void vscode.window.showInformationMessage(
		notificationText(
			named === undefined
				? vscode.l10n.t('Signed in to Cloud Agents as {0}.', who)
				: vscode.l10n.t('Signed in to {0} as {1}.', named, who),
		),
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

async function signInWithDeviceCode({ session, log, named }: SignInDeps, openBrowser: boolean): Promise<boolean> {
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
							void vscode.window.showInformationMessage(
								notificationText(
									named === undefined
										? vscode.l10n.t('Signed in to Cloud Agents.')
										: vscode.l10n.t('Signed in to {0}.', named),
								),
							);
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
 * when the user cancelled or the server could not revoke it. With several deployments signed in,
 * the one `args.deployment` names or the person picks; the others stay signed in.
 */
export async function signOut(deps: SignInDeps, args?: SignOutArgs): Promise<boolean> {
	const candidates = deps.deployments?.().signedIn ?? [];
	const chosen = deploymentWithoutAsking(deps, candidates, args?.deployment);
	const session = chosen === 'ask' ? await pickDeployment(deps, candidates, vscode.l10n.t('Sign out of Cloud Agents'), false) : chosen;
	if (session === undefined) {
		return false;
	}
	const { log } = deps;
	const named = nameWhenSeveral(deps, session);
	if ((await session.getToken()) === undefined) {
		await session.refreshSignedIn();
		void vscode.window.showInformationMessage(
			notificationText(
				named === undefined
					? vscode.l10n.t('You are not signed in to Cloud Agents.')
					: vscode.l10n.t('You are not signed in to {0}.', named),
			),
		);
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
		void vscode.window.showInformationMessage(
			notificationText(
				named === undefined ? vscode.l10n.t('Signed out of Cloud Agents.') : vscode.l10n.t('Signed out of {0}.', named),
			),
		);
		return true;
	}
	log.warn(`Signed out of ${apiUrl} locally; revoking the token failed: ${describeError(failure)}`);
	const text =
		named === undefined
			? vscode.l10n.t('Signed out on this computer, but the service could not revoke the token: {0}', describeError(failure))
			: vscode.l10n.t(
					'Signed out of {0} on this computer, but the service could not revoke the token: {1}',
					named,
					describeError(failure),
				);
	const requestId = requestIdOf(failure);
	const copy = vscode.l10n.t('Copy Request ID');
	void vscode.window.showWarningMessage(notificationText(text), ...(requestId ? [copy] : [])).then(async (choice) => {
		if (choice === copy && requestId) {
			await vscode.env.clipboard.writeText(requestId);
		}
	});
	return false;
}
