/**
 * Service-wide commands that need no list view: "Check Connection" (health and identity), the SSH
 * gateway host key (show, copy, add to known_hosts) and secrets by name or id (open, delete).
 *
 * Every command also takes a plain automation object (see each handler's TSDoc); automation that
 * passes `confirm: false` skips the modal question, `quiet: true` the notifications.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { ApiError, isAuthFailure, SAFETY } from '../api';
import type { GatewayHostKey, Secret } from '../api';
import { isKnownHostsHost } from '../api/decode';
import { accountLabel } from '../auth/accountLabel';
import { CONFIG } from '../ids';
import { describeError } from '../util/errors';
import { addKnownHost, hasKnownHost, knownHostsLine } from '../util/knownHosts';
import { plainText } from '../util/text';
import { titledRecordUri } from '../views/recordDocuments';
import { commandRegistrar } from './registry';
import { hostOf, setReachability } from './welcomeProbe';
import type { FeatureDeps } from './support';
import { argString, displayName, isAutomation, pickItem, showInfo, showModalWarning, showWarning } from './support';

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
export async function probeConnection(deps: Pick<FeatureDeps, 'session'>, signal?: AbortSignal): Promise<ConnectionReport> {
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

/** A secret's cache TTL in words ("5 minutes", "1 day"), for the metadata document. */
function ttlWords(secs: number | undefined): string | undefined {
	if (secs === undefined) {
		return undefined;
	}
	const units: Array<[number, string, string]> = [
		[86_400, 'day', 'days'],
		[3600, 'hour', 'hours'],
		[60, 'minute', 'minutes'],
	];
	for (const [size, one, many] of units) {
		if (secs >= size && secs % size === 0) {
			const n = secs / size;
			return `${n} ${n === 1 ? one : many}`;
		}
	}
	return `${secs} ${secs === 1 ? 'second' : 'seconds'}`;
}

/** The secret's metadata as a JSON record document: never a value, only the server's masked preview. */
function secretDocument(secret: Secret): string {
	const s = secret as Record<string, unknown>;
	const ttl = typeof s.cache_ttl_secs === 'number' ? s.cache_ttl_secs : undefined;
	const doc = {
		display_name: s.display_name ?? null,
		id: s.id,
		cache_ttl_secs: ttl ?? null,
		cache_ttl: ttlWords(ttl) ?? null,
		value_preview: typeof s.value_preview === 'string' ? s.value_preview : null,
	};
	return `${plainText(JSON.stringify(doc, null, 2), SAFETY.documentMaxChars)}\n`;
}

interface SecretRefItem extends vscode.QuickPickItem {
	ref: string;
}

/**
 * Asks for a secret: the names that secret stubs refer to (loaded in the background), or whatever
 * name or UUID the user types. Undefined when dismissed.
 */
async function askSecret(deps: FeatureDeps, title: string): Promise<string | undefined> {
	const qp = vscode.window.createQuickPick<SecretRefItem>();
	qp.title = title;
	qp.placeholder = vscode.l10n.t("Type a secret's name or UUID, or pick one a secret stub uses");
	qp.matchOnDescription = true;
	qp.busy = true;
	let referenced: SecretRefItem[] = [];
	const typed = (value: string): SecretRefItem =>
		pickItem({ label: value, description: vscode.l10n.t('the name or UUID you typed') }, { ref: value, alwaysShow: true });
	const refill = (): void => {
		const v = qp.value.trim();
		qp.items = v !== '' && !referenced.some((r) => r.ref === v) ? [typed(v), ...referenced] : referenced;
	};
	qp.onDidChangeValue(refill);
	deps.session.client
		.listSecretStubs()
		.then(
			(stubs) => {
				const uses = new Map<string, string[]>();
				for (const stub of stubs) {
					const name = typeof stub.stub_value_display_name === 'string' ? stub.stub_value_display_name : undefined;
					if (name) {
						uses.set(name, [
							...(uses.get(name) ?? []),
							`${String(stub.runtime_display_name ?? '')} ${String(stub.host_pattern ?? '')}`.trim(),
						]);
					}
				}
				referenced = [...uses]
					.sort(([a], [b]) => a.localeCompare(b))
					.map(([name, where]) =>
						pickItem(
							{
								label: name,
								description: vscode.l10n.t('used by {0} secret stub(s): {1}', where.length, where.join(', ')),
							},
							{ ref: name },
						),
					);
			},
			(err: unknown) => {
				deps.log.warn(`Listing secret stubs for the secret picker failed: ${describeError(err)}`);
				qp.placeholder = vscode.l10n.t("Type a secret's name or UUID (the secret stubs could not be listed)");
			},
		)
		.finally(() => {
			qp.busy = false;
			refill();
		});
	try {
		return await new Promise<string | undefined>((resolve) => {
			qp.onDidAccept(() => resolve(qp.selectedItems[0]?.ref ?? (qp.value.trim() || undefined)));
			qp.onDidHide(() => resolve(undefined));
			qp.show();
		});
	} finally {
		qp.dispose();
	}
}

/** The secret a command acts on: a string argument, `{secret}` / `{secretId}` from automation, or one the user picks or types. */
async function resolveSecretRef(deps: FeatureDeps, arg: unknown, title: string): Promise<string | undefined> {
	if (typeof arg === 'string' && arg.trim() !== '') {
		return arg.trim();
	}
	const fromArg = argString(arg, 'secret') ?? argString(arg, 'secretId');
	if (fromArg !== undefined && fromArg.trim() !== '') {
		return fromArg.trim();
	}
	return askSecret(deps, title);
}

/** A 404 for a secret, explained (the service addresses secrets by UUID or display name). */
function secretNotFound(err: unknown, ref: string): Error {
	if (err instanceof ApiError && err.status === 404) {
		return new ApiError(
			404,
			err.code,
			vscode.l10n.t('No secret is called "{0}" or has that UUID. Secrets are found by their exact display name or UUID.', ref),
			err.requestId,
		);
	}
	return err as Error;
}

/** Registers the platform commands (health, SSH gateway host key, secrets). */
export function registerPlatformCommands(deps: FeatureDeps): vscode.Disposable[] {
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
		registerCommand('cloudAgents.checkConnection', async (arg?: unknown) => {
			const host = hostOf(deps.session.apiUrl);
			const report = quiet(arg)
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
			if (quiet(arg)) {
				return report;
			}
			const signIn = vscode.l10n.t('Sign In');
			if (!report.reachable) {
				const configure = vscode.l10n.t('Configure API URL');
				const retry = vscode.l10n.t('Retry');
				const choice = await vscode.window.showErrorMessage(
					plainText(
						vscode.l10n.t('Cannot reach the Cloud Agents service at {0}: {1}', host, report.error ?? ''),
						SAFETY.notificationMaxChars,
					),
					retry,
					configure,
				);
				if (choice === retry) {
					await vscode.commands.executeCommand('cloudAgents.checkConnection');
				} else if (choice === configure) {
					await vscode.commands.executeCommand('workbench.action.openSettings', `${CONFIG.section}.${CONFIG.apiUrl}`);
				}
				return report;
			}
			const health = vscode.l10n.t('{0} answers (health check {1}).', host, roundTrip(report.healthMs ?? 0));
			if (!report.signedIn) {
				if ((await showInfo(`${health} ${vscode.l10n.t('You are not signed in.')}`, signIn)) === signIn) {
					await vscode.commands.executeCommand('cloudAgents.signIn');
				}
			} else if (report.account !== undefined) {
				void showInfo(`${health} ${vscode.l10n.t('Signed in as {0} (/v2/me {1}).', report.account, roundTrip(report.meMs ?? 0))}`);
			} else if (report.tokenRejected) {
				if (
					(await showWarning(
						`${health} ${vscode.l10n.t('The service rejected the stored token: {0}', report.error ?? '')}`,
						signIn,
					)) === signIn
				) {
					await vscode.commands.executeCommand('cloudAgents.signIn');
				}
			} else {
				void showWarning(`${health} ${vscode.l10n.t('Reading who is signed in failed: {0}', report.error ?? '')}`);
			}
			return report;
		}),

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

		/**
		 * "Open Secret by Name or ID…": the secret's metadata (masked preview, cache TTL) as a read-only
		 * JSON document. Automation: a string or `{secret}` / `{secretId}`; `{quiet: true}` returns the
		 * metadata without opening a document.
		 */
		registerCommand('cloudAgents.secrets.open', async (arg?: unknown) => {
			const ref = await resolveSecretRef(deps, arg, vscode.l10n.t('Open Secret by Name or ID'));
			if (ref === undefined) {
				return undefined;
			}
			const secret = await deps.session.client.getSecret(ref).catch((err: unknown) => {
				throw secretNotFound(err, ref);
			});
			if (quiet(arg)) {
				return secret;
			}
			const title = vscode.l10n.t(
				'Secret {0}',
				displayName(typeof secret.display_name === 'string' ? secret.display_name : undefined, secret.id),
			);
			await deps.records.show(titledRecordUri(title, 'secrets', secret.id), secretDocument(secret), 'json', { forceLanguage: true });
			return secret;
		}),

		/**
		 * "Delete Secret…": reads the secret (so the question names it), asks (modal), deletes it.
		 * Automation: a string or `{secret}` / `{secretId}`, `{confirm: false}`; returns the deleted
		 * secret's metadata, or undefined when not confirmed.
		 */
		registerCommand('cloudAgents.secrets.delete', async (arg?: unknown) => {
			const ref = await resolveSecretRef(deps, arg, vscode.l10n.t('Delete Secret'));
			if (ref === undefined) {
				return undefined;
			}
			const secret = await deps.session.client.getSecret(ref).catch((err: unknown) => {
				throw secretNotFound(err, ref);
			});
			const name = typeof secret.display_name === 'string' && secret.display_name !== '' ? secret.display_name : secret.id;
			if (!(isAutomation(arg) && arg.confirm === false)) {
				const del = vscode.l10n.t('Delete Secret');
				const detail = vscode.l10n.t(
					'Runtimes and secret stubs that use it can no longer inject it. This cannot be undone.\n\nUUID: {0}',
					secret.id,
				);
				if ((await showModalWarning(vscode.l10n.t('Delete the secret "{0}"?', name), detail, del)) !== del) {
					return undefined;
				}
			}
			await deps.session.client.deleteSecret(secret.id);
			if (!quiet(arg)) {
				void showInfo(vscode.l10n.t('Deleted the secret "{0}".', name));
			}
			return secret;
		}),
	);
	return disposables;
}
