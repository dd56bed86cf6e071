import * as vscode from 'vscode';
import { ApiError, SAFETY } from '../api';
import type { CloudAgentsClient, Secret } from '../api';
import { describeError } from '../messages/errors';
import type { ActionKit, RecordAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip } from '../views/format';
import { argFlag, argString, confirmUnlessTold, displayName, pickItem } from '../views/ui';

/** A secret that stubs refer to, with its metadata when it could be read. */
export interface SecretRef {
	/** The name stubs use (`stub_value_display_name`), or the name or UUID a command was given. */
	name: string;
	/** How many stubs use it, and on which runtimes. */
	stubs: number;
	runtimes: string[];
	/** The metadata (masked preview, TTL), when read. */
	secret?: Secret;
	/** Why it could not be read ("not found": the stubs refer to a deleted secret). */
	problem?: string;
}

/**
 * The secrets stubs refer to (there is no list endpoint): the distinct `stub_value_display_name`s,
 * each read by name (GET /v2/secrets/{name}, SAFETY.secretReadConcurrency at once, at most
 * SAFETY.secretsFromStubsMax read; the rest listed unread).
 */
export async function secretsFromStubs(client: CloudAgentsClient, signal: AbortSignal): Promise<SecretRef[]> {
	const stubs = await client.listSecretStubs({ signal });
	const byName = new Map<string, SecretRef>();
	for (const stub of stubs) {
		const name = stub.stub_value_display_name;
		if (!name) {
			continue;
		}
		const ref = byName.get(name) ?? { name, stubs: 0, runtimes: [] };
		ref.stubs++;
		const runtime = stub.runtime_display_name;
		if (runtime && !ref.runtimes.includes(runtime)) {
			ref.runtimes.push(runtime);
		}
		byName.set(name, ref);
	}
	const refs = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
	const toRead = refs.slice(0, SAFETY.secretsFromStubsMax);
	let next = 0;
	const worker = async (): Promise<void> => {
		while (next < toRead.length && !signal.aborted) {
			const ref = toRead[next++]!;
			try {
				ref.secret = await client.getSecret(ref.name, { signal });
			} catch (err) {
				if (signal.aborted) {
					throw err;
				}
				ref.problem =
					err instanceof ApiError && err.status === 404
						? vscode.l10n.t('not found: the stubs refer to a secret that no longer exists')
						: describeError(err);
			}
		}
	};
	await Promise.all(Array.from({ length: Math.min(SAFETY.secretReadConcurrency, toRead.length) }, worker));
	for (const ref of refs.slice(SAFETY.secretsFromStubsMax)) {
		ref.problem = vscode.l10n.t('not read (only the first {0} secrets are read)', SAFETY.secretsFromStubsMax);
	}
	return refs;
}

/** "used by 1 secret stub", "used by 3 secret stubs". */
export function usedByStubs(n: number): string {
	return n === 1 ? vscode.l10n.t('used by 1 secret stub') : vscode.l10n.t('used by {0} secret stubs', n);
}

/** A cache TTL in short words (300 → "5 min"). */
export function ttlText(secs: number | undefined): string | undefined {
	if (secs === undefined || !Number.isFinite(secs)) {
		return undefined;
	}
	if (secs >= 3600 && secs % 3600 === 0) {
		return vscode.l10n.t('{0} h', secs / 3600);
	}
	if (secs >= 60 && secs % 60 === 0) {
		return vscode.l10n.t('{0} min', secs / 60);
	}
	return vscode.l10n.t('{0} s', secs);
}

/** The row of a secret that stubs refer to: name, masked preview and TTL; never a value. A click opens its metadata. */
export function secretRefRow(ref: SecretRef): ReturnType<ListDescriptor<SecretRef, object, unknown>['row']> {
	const preview = ref.secret?.value_preview;
	const ttl = ttlText(ref.secret?.cache_ttl_secs);
	return {
		label: ref.name,
		description:
			ref.problem !== undefined
				? ref.problem
				: joinParts(
						preview,
						ttl && vscode.l10n.t('cache {0}', ttl),
						ref.stubs === 1 ? vscode.l10n.t('1 stub') : vscode.l10n.t('{0} stubs', ref.stubs),
					),
		icon:
			ref.problem !== undefined
				? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
				: new vscode.ThemeIcon('lock'),
		contextValue: ref.secret ? 'secret:read' : 'secret:unread',
		tooltip: plainTooltip(ref.name, [
			[vscode.l10n.t('Preview (masked by the service)'), preview],
			[vscode.l10n.t('Cache TTL'), ttl],
			[
				vscode.l10n.t('Used by'),
				ref.stubs === 1
					? vscode.l10n.t('1 secret stub on {0}', ref.runtimes.join(', ') || '—')
					: vscode.l10n.t('{0} secret stubs on {1}', ref.stubs, ref.runtimes.join(', ') || '—'),
			],
			[vscode.l10n.t('ID'), ref.secret?.id],
			[vscode.l10n.t('Problem'), ref.problem],
		]),
		command: { command: 'cloudAgents.secrets.open', title: vscode.l10n.t('Open Secret') },
	};
}

/** What a secret command receives: `{secret}` (the UUID when read, else the name stubs use or the one given). */
export interface SecretRefTarget {
	secret: string;
	ref: SecretRef;
}

/**
 * The secrets secret stubs refer to (the Account view's "Secrets" group; the service has no list of
 * secrets): masked preview and cache TTL from GET /v2/secrets/{name}; a click opens the metadata
 * record (`cloudAgents.secrets.open`), "Delete Secret…" asks first. Rows `secret:read` or
 * `secret:unread`. Commands also take any secret by name or UUID (`{secret}`, `{secretId}`, a string).
 */
export const secretsList: ListDescriptor<SecretRef, SecretRefTarget, unknown> = {
	key: 'secrets',
	kind: 'secret',
	title: () => vscode.l10n.t('Secrets'),
	commands: { refresh: 'cloudAgents.secrets.refresh' },
	source: { list: async (ctx, request) => ({ items: await secretsFromStubs(ctx.client(), request.signal), more: false }) },
	keyOf: (ref) => ref.name,
	fields: (ref) => ({ secret: ref.secret?.id ?? ref.name, ref }),
	row: secretRefRow,
	empty: () => ({
		label: vscode.l10n.t('No secrets in use'),
		tooltip: vscode.l10n.t('No secret stub refers to a secret. Use "Open Secret by Name or ID…" to read any secret.'),
		command: { command: 'cloudAgents.secrets.open', title: vscode.l10n.t('Open Secret by Name or ID…') },
	}),
	target: {
		idField: 'secret',
		// Secrets are read by name or UUID, used by a stub or not: the reference is what was given
		// (the read itself says when no secret has that name or UUID).
		get: (_ctx, name) => Promise.resolve({ name, stubs: 0, runtimes: [] }),
		choices: (ctx) => secretsFromStubs(ctx.client(), new AbortController().signal),
		pickText: (ref) => ({ label: ref.name, description: usedByStubs(ref.stubs) }),
		placeholder: () => vscode.l10n.t("Type a secret's name or UUID, or pick one a secret stub uses"),
	},
};

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

/** The secret's metadata as a record document: never a value, only the server's masked preview. */
function secretDocument(secret: Secret): Record<string, unknown> {
	return {
		display_name: secret.display_name ?? null,
		id: secret.id,
		cache_ttl_secs: secret.cache_ttl_secs ?? null,
		cache_ttl: ttlWords(secret.cache_ttl_secs) ?? null,
		value_preview: secret.value_preview ?? null,
	};
}

interface SecretRefItem extends vscode.QuickPickItem {
	ref: string;
}

/**
 * Asks for a secret: the names that secret stubs refer to (loaded in the background), or whatever
 * name or UUID the user types. Undefined when dismissed.
 */
async function askSecret(kit: ActionKit): Promise<SecretRef | undefined> {
	const qp = vscode.window.createQuickPick<SecretRefItem>();
	qp.title = kit.title;
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
	kit.client()
		.listSecretStubs()
		.then(
			(stubs) => {
				const uses = new Map<string, string[]>();
				for (const stub of stubs) {
					const name = stub.stub_value_display_name;
					if (name) {
						uses.set(name, [...(uses.get(name) ?? []), `${stub.runtime_display_name ?? ''} ${stub.host_pattern ?? ''}`.trim()]);
					}
				}
				referenced = [...uses]
					.sort(([a], [b]) => a.localeCompare(b))
					.map(([name, where]) =>
						pickItem(
							{
								label: name,
								description:
									where.length === 1
										? vscode.l10n.t('used by 1 secret stub: {0}', where.join(', '))
										: vscode.l10n.t('used by {0} secret stubs: {1}', where.length, where.join(', ')),
							},
							{ ref: name },
						),
					);
			},
			(err: unknown) => {
				kit.log.warn(`Listing secret stubs for the secret picker failed: ${describeError(err)}`);
				qp.placeholder = vscode.l10n.t("Type a secret's name or UUID (the secret stubs could not be listed)");
			},
		)
		.finally(() => {
			qp.busy = false;
			refill();
		});
	try {
		const name = await new Promise<string | undefined>((resolve) => {
			qp.onDidAccept(() => resolve(qp.selectedItems[0]?.ref ?? (qp.value.trim() || undefined)));
			qp.onDidHide(() => resolve(undefined));
			qp.show();
		});
		return name === undefined ? undefined : { name, stubs: 0, runtimes: [] };
	} finally {
		qp.dispose();
	}
}

/**
 * The secret a command names: a row as it is; a string, or `{secret}` / `{secretId}` from
 * automation, trimmed; nothing (undefined: the user picks or types one) when none is given.
 */
function secretArg(arg: unknown): unknown {
	if (arg instanceof vscode.TreeItem) {
		return arg;
	}
	const given = typeof arg === 'string' ? arg : (argString(arg, 'secret') ?? argString(arg, 'secretId'));
	return given?.trim() || undefined;
}

/** Reads a secret's metadata; a 404 is explained (the service finds secrets by exact display name or UUID). */
async function readSecret(kit: ActionKit, ref: string): Promise<Secret> {
	try {
		return await kit.client().getSecret(ref);
	} catch (err) {
		if (err instanceof ApiError && err.status === 404) {
			throw new ApiError(
				404,
				err.code,
				vscode.l10n.t('No secret is called "{0}" or has that UUID. Secrets are found by their exact display name or UUID.', ref),
				err.requestId,
			);
		}
		throw err;
	}
}

/** "Open Secret by Name or ID…": the metadata as a read-only JSON document (`{quiet: true}`: only returned). */
async function openSecret({ secret: ref }: SecretRefTarget, kit: ActionKit): Promise<Secret> {
	const secret = await readSecret(kit, ref);
	if (!argFlag(kit.arg, 'quiet')) {
		await kit.showJson(
			vscode.l10n.t('Secret {0}', displayName(secret.display_name, secret.id)),
			['secrets', secret.id],
			secretDocument(secret),
		);
	}
	return secret;
}

/** "Delete Secret…": reads the secret (so the question names it), asks (modal), deletes it; returns the deleted metadata. */
async function deleteSecret({ secret: ref }: SecretRefTarget, kit: ActionKit): Promise<Secret | undefined> {
	const secret = await readSecret(kit, ref);
	const name = secret.display_name || secret.id;
	const del = vscode.l10n.t('Delete Secret');
	const detail = vscode.l10n.t(
		'Runtimes and secret stubs that use it can no longer inject it. This cannot be undone.\n\nUUID: {0}',
		secret.id,
	);
	if (!(await confirmUnlessTold(kit.arg, vscode.l10n.t('Delete the secret "{0}"?', name), detail, del))) {
		return undefined;
	}
	await kit.client().deleteSecret(secret.id);
	if (!argFlag(kit.arg, 'quiet')) {
		kit.info(vscode.l10n.t('Deleted the secret "{0}".', name));
	}
	return secret;
}

/**
 * What a user can do with a secret (a row of the Secrets group, any secret by name or UUID as a
 * string or `{secret}` / `{secretId}`, or one picked or typed): open its metadata, delete it.
 * Automation: `{quiet: true}` shows nothing (open returns the metadata without a document);
 * delete takes `{confirm: false}` and returns the deleted secret's metadata, or undefined when not
 * confirmed.
 */
export const secretActions = {
	open: { on: secretsList, command: 'cloudAgents.secrets.open', targetArg: secretArg, pick: askSecret, run: openSecret },
	delete: { on: secretsList, command: 'cloudAgents.secrets.delete', targetArg: secretArg, pick: askSecret, run: deleteSecret },
} satisfies Record<string, RecordAction<SecretRef, SecretRefTarget>>;
