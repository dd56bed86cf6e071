/**
 * Service-wide commands that act on no record: "Check Connection" (health and identity) and the SSH
 * gateway host key (show, copy, add to known_hosts). (Secrets by name or id: src/resources/secrets.ts.)
 *
 * Every command also takes a plain automation object (see each handler's TSDoc); automation that
 * passes `confirm: false` skips the modal question, `quiet: true` the notifications.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ApiError, isAuthFailure, SAFETY } from '../api';
import type { GatewayHostKey } from '../api';
import { isKnownHostsHost } from '../api/decode';
import { accountLabel } from '../auth/accountLabel';
import { CONFIG } from '../ids';
import { describeError, showUnreachable } from '../util/errors';
import { addKnownHost, hasKnownHost, knownHostsLine } from '../util/knownHosts';
import { plainText } from '../util/text';
import { titledRecordUri } from '../views/recordDocuments';
import { commandRegistrar } from '../views/registry';
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

/** Where the known_hosts line goes: the setting (with `~` expanded), else ~/.ssh/known_hosts. */
export function knownHostsFile(): string {
	const configured = vscode.workspace.getConfiguration(CONFIG.section).get<string>(KNOWN_HOSTS_SETTING, '').trim();
	if (configured === '') {
		return path.join(os.homedir(), '.ssh', 'known_hosts');
	}
	const expanded = configured === '~' || configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(1)) : configured;
	return path.resolve(expanded);
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

/** Registers the platform commands (health, SSH gateway host key). */
export function registerPlatformCommands(deps: Services): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, {
		onUnauthorized: deps.onUnauthorized,
		rethrow: (arg) => isAutomation(arg) && arg.rethrow === true,
	});
	const quiet = (arg: unknown): boolean => isAutomation(arg) && arg.quiet === true;
	const disposables: vscode.Disposable[] = [];

	disposables.push(
		/**
		 * "Cloud Agents: Check Connection": HEAD /healthz, then GET /v2/me when signed in, with round
		 * trips. Automation: `{quiet: true}` shows nothing and returns the ConnectionReport.
		 */
		registerCommand('cloudAgents.checkConnection', (arg?: unknown) => checkConnection(deps, arg)),

		/** "Show Gateway Host Key": the key, its fingerprint and its known_hosts line as a read-only JSON document. */
		registerCommand('cloudAgents.ssh.showGatewayHostKey', async () => {
			const key = await deps.session.client.getGatewayHostKey();
			const title = key.host
				? vscode.l10n.t('SSH Gateway Host Key — {0}', displayName(key.host))
				: vscode.l10n.t('SSH Gateway Host Key');
			return deps.records.show(titledRecordUri(title, 'ssh-host-key'), hostKeyDocument(key), 'json', { forceLanguage: true });
		}),

		/**
		 * "Copy Gateway Host Key": the public key (`<type> <base64>`) to the clipboard. Automation:
		 * `{what: 'publicKey' | 'knownHostsLine' | 'fingerprint'}` copies that instead; returns the text.
		 */
		registerCommand('cloudAgents.ssh.copyGatewayHostKey', async (arg?: unknown) => {
			const key = await deps.session.client.getGatewayHostKey();
			const what = argString(arg, 'what');
			let text = `${key.keyType} ${key.keyBase64}`;
			if (what === 'fingerprint') {
				text = key.fingerprintSha256;
			} else if (what === 'knownHostsLine') {
				if (key.host === undefined) {
					throw new Error(vscode.l10n.t('The service did not name the gateway host, so there is no known_hosts line to copy.'));
				}
				text = knownHostsLine(key, key.host, key.port);
			}
			await vscode.env.clipboard.writeText(text);
			vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the SSH gateway host key ({0})', key.fingerprintSha256), 4000);
			return text;
		}),

		/**
		 * "Add Gateway Host Key to known_hosts…": after a modal question showing host and fingerprint,
		 * adds `<host> <type> <base64>` (`[host]:port` off port 22) to the known_hosts file
		 * (`cloudAgents.ssh.knownHostsFile`, default ~/.ssh/known_hosts; created 0600 when missing), never
		 * twice. Automation: `{confirm: false, host?: string}`; returns `{file, line, result}` or undefined.
		 */
		registerCommand('cloudAgents.ssh.addGatewayHostKeyToKnownHosts', async (arg?: unknown) => {
			const key = await deps.session.client.getGatewayHostKey();
			let host = argString(arg, 'host') ?? key.host;
			if (host === undefined) {
				const fallback = hostOf(deps.session.apiUrl).replace(/:\d+$/, '');
				host = await vscode.window.showInputBox({
					title: vscode.l10n.t('Add Gateway Host Key to known_hosts'),
					prompt: vscode.l10n.t(
						'The service did not say which host its SSH gateway is. Enter the host name you connect to with ssh.',
					),
					value: fallback,
					validateInput: (v) => (isKnownHostsHost(v.trim()) ? undefined : vscode.l10n.t('Enter a host name or IP address')),
				});
				if (host === undefined) {
					return undefined;
				}
				host = host.trim();
			}
			const line = knownHostsLine(key, host, host === key.host ? key.port : undefined);
			const file = knownHostsFile();
			// A file that cannot be read (missing) has no line yet; addKnownHost reads it again before writing.
			const existing = await vscode.workspace.fs.readFile(vscode.Uri.file(file)).then(
				(b) => new TextDecoder().decode(b),
				() => '',
			);
			if (hasKnownHost(existing, line)) {
				if (!quiet(arg)) {
					void showInfo(vscode.l10n.t('{0} already trusts this host key for {1}.', file, line.split(' ')[0]!));
				}
				return { file, line, result: 'present' as const };
			}
			if (!(isAutomation(arg) && arg.confirm === false)) {
				const add = vscode.l10n.t('Add to known_hosts');
				const detail = [
					vscode.l10n.t('Host: {0}', line.split(' ')[0]!),
					vscode.l10n.t('Key type: {0}', key.keyType),
					vscode.l10n.t('Fingerprint: {0}', key.fingerprintSha256),
					'',
					vscode.l10n.t(
						'Compare the fingerprint with the one your administrator published before you trust it. This line is added:',
					),
					line,
				].join('\n');
				if ((await showModalWarning(vscode.l10n.t('Trust the SSH gateway host key in {0}?', file), detail, add)) !== add) {
					return undefined;
				}
			}
			const result = await addKnownHost(file, line);
			if (!quiet(arg)) {
				const open = vscode.l10n.t('Open File');
				if (
					(await showInfo(
						result === 'added'
							? vscode.l10n.t('Added the SSH gateway host key for {0} to {1}.', line.split(' ')[0]!, file)
							: vscode.l10n.t('{0} already trusts this host key.', file),
						open,
					)) === open
				) {
					await vscode.window.showTextDocument(vscode.Uri.file(file));
				}
			}
			return { file, line, result };
		}),
	);
	return disposables;
}
