/**
 * Service-wide commands that act on no record: "Check Connection" (health and identity) and the SSH
 * gateway host key (show, copy, add to known_hosts). (Secrets by name or id: src/resources/secrets.ts.)
 *
 * Every command also takes a plain automation object (see each handler's TSDoc); automation that
 * passes `confirm: false` skips the modal question, `quiet: true` the notifications.
 */
import * as vscode from 'vscode';
import { ApiError, isAuthFailure, SAFETY } from '../api';
import type { GatewayHostKey } from '../api';
import { isKnownHostsHost } from '../base/hosts';
import { accountLabel } from '../auth/accountLabel';
import { CONFIG } from '../ids';
import { describeError, showUnreachable } from '../messages/errors';
import { knownHostsLine } from '../util/knownHosts';
import { plainText } from '../util/text';
import { titledRecordUri } from '../views/recordDocuments';
import type { FlowCommand } from '../views/registry';
import { hostOf, setReachability } from './welcomeProbe';
import type { Services } from '../views/actions';
import { argString, displayName, isAutomation, showInfo, showModalWarning, showWarning } from '../views/ui';

/** The setting that overrides where "Add Gateway Host Key to known_hosts…" writes (default ~/.ssh/known_hosts). */
export const KNOWN_HOSTS_SETTING = 'ssh.knownHostsFile';

/** What "Check Connection" found; also its result for automation. */
export interface ConnectionReport {
	apiUrl: string;
	reachable: boolean;
	/** Round trip of HEAD /healthz in ms (when it answered). */
	healthMs?: number;
	/** Round trip of GET /v2/me in ms (signed in, and it answered). */
	meMs?: number;
	signedIn: boolean;
	/** Who is signed in (the Accounts label), when /v2/me answered. */
	account?: string;
	/** Why the server was not reachable, or /v2/me failed (with the request id when there is one). */
	error?: string;
	/** True when the server rejected the stored token (401). */
	tokenRejected?: boolean;
}

const roundTrip = (ms: number): string => vscode.l10n.t('{0} ms', Math.max(0, Math.round(ms)));

/**
 * HEAD /healthz, then (signed in) GET /v2/me, each timed and bounded by
 * SAFETY.connectionCheckTimeoutMs. Never throws for an unreachable server: the report says so.
 */
export async function probeConnection(deps: Pick<Services, 'session'>, signal?: AbortSignal): Promise<ConnectionReport> {
	const apiUrl = deps.session.apiUrl;
	const report: ConnectionReport = { apiUrl, reachable: false, signedIn: deps.session.signedIn };
	const bounded = (): AbortSignal =>
		signal
			? AbortSignal.any([signal, AbortSignal.timeout(SAFETY.connectionCheckTimeoutMs)])
			: AbortSignal.timeout(SAFETY.connectionCheckTimeoutMs);
	let t0 = performance.now();
	try {
		try {
			await deps.session.client.healthHead({ signal: bounded() });
		} catch (err) {
			// A server (or proxy) that does not allow HEAD: ask with GET, as the description also offers.
			if (!(err instanceof ApiError && (err.status === 405 || err.status === 501))) {
				throw err;
			}
			t0 = performance.now();
			await deps.session.client.health({ signal: bounded() });
		}
		report.healthMs = performance.now() - t0;
		report.reachable = true;
	} catch (err) {
		if (signal?.aborted) {
			throw err;
		}
		report.error = describeError(err);
		return report;
	}
	if (!report.signedIn) {
		return report;
	}
	t0 = performance.now();
	try {
		const me = await deps.session.client.getMe({ signal: bounded() });
		report.meMs = performance.now() - t0;
		report.account = accountLabel(me, apiUrl);
	} catch (err) {
		if (signal?.aborted) {
			throw err;
		}
		report.tokenRejected = isAuthFailure(err);
		report.error = describeError(err);
	}
	return report;
}

/** What "Add Gateway Host Key to known_hosts…" did (for automation): `file` is undefined where no known_hosts file can be written. */
export interface KnownHostsReport {
	file: string | undefined;
	line: string;
	/** `unavailable`: the extension host cannot write known_hosts (VS Code for the Web); `copied`: the line went to the clipboard instead. */
	result: 'added' | 'present' | 'unavailable' | 'copied';
}

/** The host key as a JSON record document: what it is, where it is for, and the line known_hosts gets. */
function hostKeyDocument(key: GatewayHostKey): string {
	const doc: Record<string, unknown> = {
		host: key.host ?? null,
		port: key.port ?? null,
		key_type: key.keyType,
		fingerprint_sha256: key.fingerprintSha256,
		public_key: `${key.keyType} ${key.keyBase64}`,
	};
	if (key.host !== undefined) {
		doc.known_hosts_line = knownHostsLine(key, key.host, key.port);
	}
	return `${plainText(JSON.stringify(doc, null, 2), SAFETY.documentMaxChars)}\n`;
}

/**
 * "Check Connection": the probe under a cancellable progress notification, the welcome's
 * reachability updated, then one message saying what was found (with Retry, Configure API URL or
 * Sign In as fits). Automation: `{quiet: true}` shows nothing. Returns the report.
 */
async function checkConnection(deps: Services, arg: unknown): Promise<ConnectionReport> {
	const quiet = isAutomation(arg) && arg.quiet === true;
	const host = hostOf(deps.session.apiUrl);
	const report = quiet
		? await probeConnection(deps)
		: await vscode.window.withProgress<ConnectionReport>(
				{
					location: vscode.ProgressLocation.Notification,
					title: vscode.l10n.t('Checking the connection to {0}…', host),
					cancellable: true,
				},
				(_progress, token) => {
					const abort = new AbortController();
					const sub = token.onCancellationRequested(() => abort.abort());
					return probeConnection(deps, abort.signal).finally(() => {
						sub.dispose();
					});
				},
			);
	await setReachability(report.reachable);
	if (quiet) {
		return report;
	}
	const signIn = vscode.l10n.t('Sign In');
	if (!report.reachable) {
		await showUnreachable(vscode.l10n.t('Cannot reach the Cloud Agents service at {0}: {1}', host, report.error ?? ''), () =>
			checkConnection(deps, undefined),
		);
		return report;
	}
	const health = vscode.l10n.t('{0} answers (health check {1}).', host, roundTrip(report.healthMs ?? 0));
	if (!report.signedIn) {
		if ((await showInfo(`${health} ${vscode.l10n.t('You are not signed in.')}`, signIn)) === signIn) {
			await deps.signIn();
		}
	} else if (report.account !== undefined) {
		void showInfo(`${health} ${vscode.l10n.t('Signed in as {0} (/v2/me {1}).', report.account, roundTrip(report.meMs ?? 0))}`);
	} else if (report.tokenRejected) {
		if (
			(await showWarning(`${health} ${vscode.l10n.t('The service rejected the stored token: {0}', report.error ?? '')}`, signIn)) ===
			signIn
		) {
			await deps.signIn();
		}
	} else {
		void showWarning(`${health} ${vscode.l10n.t('Reading who is signed in failed: {0}', report.error ?? '')}`);
	}
	return report;
}

/** The host the gateway's key is for: the argument's, the service's, else asked (prefilled with the API URL's host); undefined when dismissed. */
async function gatewayHost(deps: Pick<Services, 'session'>, key: GatewayHostKey, arg: unknown): Promise<string | undefined> {
	const host = argString(arg, 'host') ?? key.host;
	if (host !== undefined) {
		return host;
	}
	const fallback = hostOf(deps.session.apiUrl).replace(/:\d+$/, '');
	const entered = await vscode.window.showInputBox({
		title: vscode.l10n.t('Add Gateway Host Key to known_hosts'),
		prompt: vscode.l10n.t('The service did not say which host its SSH gateway is. Enter the host name you connect to with ssh.'),
		value: fallback,
		validateInput: (v) => (isKnownHostsHost(v.trim()) ? undefined : vscode.l10n.t('Enter a host name or IP address')),
	});
	return entered?.trim();
}

/**
 * Where the extension host cannot write known_hosts (VS Code for the Web: a browser reaches no
 * ~/.ssh): says so in one message and offers to copy the line (checked server data, one line) to
 * the clipboard instead. Automation with `quiet: true` shows nothing and copies nothing.
 */
async function offerKnownHostsLine(line: string, arg: unknown): Promise<KnownHostsReport> {
	const quiet = isAutomation(arg) && arg.quiet === true;
	if (quiet) {
		return { file: undefined, line, result: 'unavailable' };
	}
	const copy = vscode.l10n.t('Copy Line');
	const choice = await showWarning(
		vscode.l10n.t(
			'VS Code for the Web cannot write ~/.ssh/known_hosts. Copy the line for {0} and add it to the known_hosts file of the computer you run ssh on.',
			line.split(' ')[0]!,
		),
		copy,
	);
	if (choice !== copy) {
		return { file: undefined, line, result: 'unavailable' };
	}
	await vscode.env.clipboard.writeText(line);
	vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the known_hosts line for {0}', line.split(' ')[0]!), 4000);
	return { file: undefined, line, result: 'copied' };
}

/**
 * "Add Gateway Host Key to known_hosts…": after a modal question showing host and fingerprint,
 * adds `<host> <type> <base64>` (`[host]:port` off port 22) to the platform's known_hosts file
 * (`cloudAgents.ssh.knownHostsFile`, default ~/.ssh/known_hosts; created 0600 when missing), never
 * twice. Where the platform has no known_hosts file (VS Code for the Web), says so and offers to
 * copy the line. Automation: `{confirm: false, quiet?: true, host?: string}`.
 */
export async function addGatewayHostKeyToKnownHosts(
	deps: Pick<Services, 'session' | 'userFiles'>,
	arg: unknown,
): Promise<KnownHostsReport | undefined> {
	const quiet = isAutomation(arg) && arg.quiet === true;
	const key = await deps.session.client.getGatewayHostKey();
	const host = await gatewayHost(deps, key, arg);
	if (host === undefined) {
		return undefined;
	}
	const line = knownHostsLine(key, host, host === key.host ? key.port : undefined);
	const knownHosts = deps.userFiles.knownHosts;
	if (knownHosts === undefined) {
		return offerKnownHostsLine(line, arg);
	}
	const file = knownHosts.path(vscode.workspace.getConfiguration(CONFIG.section).get<string>(KNOWN_HOSTS_SETTING, ''));
	if (await knownHosts.has(file, line)) {
		if (!quiet) {
			void showInfo(vscode.l10n.t('{0} already trusts this host key for {1}.', file, line.split(' ')[0]!));
		}
		return { file, line, result: 'present' };
	}
	if (!(isAutomation(arg) && arg.confirm === false) && !(await confirmTrust(key, line, file))) {
		return undefined;
	}
	const result = await knownHosts.add(file, line);
	if (!quiet) {
		const open = vscode.l10n.t('Open File');
		const message =
			result === 'added'
				? vscode.l10n.t('Added the SSH gateway host key for {0} to {1}.', line.split(' ')[0]!, file)
				: vscode.l10n.t('{0} already trusts this host key.', file);
		if ((await showInfo(message, open)) === open) {
			await vscode.window.showTextDocument(vscode.Uri.file(file));
		}
	}
	return { file, line, result };
}

/** The modal question before a host key is trusted: host, key type, fingerprint and the line; true when the user adds it. */
async function confirmTrust(key: GatewayHostKey, line: string, file: string): Promise<boolean> {
	const add = vscode.l10n.t('Add to known_hosts');
	const detail = [
		vscode.l10n.t('Host: {0}', line.split(' ')[0]!),
		vscode.l10n.t('Key type: {0}', key.keyType),
		vscode.l10n.t('Fingerprint: {0}', key.fingerprintSha256),
		'',
		vscode.l10n.t('Compare the fingerprint with the one your administrator published before you trust it. This line is added:'),
		line,
	].join('\n');
	return (await showModalWarning(vscode.l10n.t('Trust the SSH gateway host key in {0}?', file), detail, add)) === add;
}

/** The platform commands (health, SSH gateway host key), for `registerFlows`. */
export function platformCommands(deps: Services): FlowCommand[] {
	// An automation caller that asks for it gets the failure back.
	const rethrow = (arg: unknown): boolean => isAutomation(arg) && arg.rethrow === true;
	return [
		/**
		 * "Cloud Agents: Check Connection": HEAD /healthz, then GET /v2/me when signed in, with round
		 * trips. Automation: `{quiet: true}` shows nothing and returns the ConnectionReport.
		 */
		{ id: 'cloudAgents.checkConnection', rethrow, run: (arg?: unknown) => checkConnection(deps, arg) },

		/** "Show Gateway Host Key": the key, its fingerprint and its known_hosts line as a read-only JSON document. */
		{
			id: 'cloudAgents.ssh.showGatewayHostKey',
			rethrow,
			run: async () => {
				const key = await deps.session.client.getGatewayHostKey();
				const title = key.host
					? vscode.l10n.t('SSH Gateway Host Key — {0}', displayName(key.host))
					: vscode.l10n.t('SSH Gateway Host Key');
				return deps.records.show(titledRecordUri(title, 'ssh-host-key'), hostKeyDocument(key), 'json', { forceLanguage: true });
			},
		},

		/**
		 * "Copy Gateway Host Key": the public key (`<type> <base64>`) to the clipboard. Automation:
		 * `{what: 'publicKey' | 'knownHostsLine' | 'fingerprint'}` copies that instead; returns the text.
		 */
		{
			id: 'cloudAgents.ssh.copyGatewayHostKey',
			rethrow,
			run: async (arg?: unknown) => {
				const key = await deps.session.client.getGatewayHostKey();
				const what = argString(arg, 'what');
				let text = `${key.keyType} ${key.keyBase64}`;
				if (what === 'fingerprint') {
					text = key.fingerprintSha256;
				} else if (what === 'knownHostsLine') {
					if (key.host === undefined) {
						throw new Error(
							vscode.l10n.t('The service did not name the gateway host, so there is no known_hosts line to copy.'),
						);
					}
					text = knownHostsLine(key, key.host, key.port);
				}
				await vscode.env.clipboard.writeText(text);
				vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the SSH gateway host key ({0})', key.fingerprintSha256), 4000);
				return text;
			},
		},

		/**
		 * "Add Gateway Host Key to known_hosts…": see `addGatewayHostKeyToKnownHosts`. Automation:
		 * `{confirm: false, host?: string}`; returns a KnownHostsReport, or undefined when dismissed.
		 */
		{ id: 'cloudAgents.ssh.addGatewayHostKeyToKnownHosts', rethrow, run: (arg?: unknown) => addGatewayHostKeyToKnownHosts(deps, arg) },
	];
}
