import * as vscode from 'vscode';
import { ApiError, SAFETY } from '../api';
import type { CloudAgentsClient, Runtime, Secret, SecretStub } from '../api';
import { describeError } from '../util/errors';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip } from '../views/format';
import { runtimesList } from './runtimes';

/** How a secret stub injects its secret, read from its `stub_config_json`. */
export interface StubShape {
	kind: 'header' | 'query' | 'file' | 'other' | 'unreadable';
	headerName?: string;
	paramName?: string;
	filePath?: string;
	/** The value template (never a secret value: `${credential}` or `{value}` stand for it). */
	template?: string;
}

/** Reads a stub's configuration (bounded: SAFETY.stubConfigMaxChars); never throws. */
export function stubShape(stub: SecretStub): StubShape {
	const json = (stub as Record<string, unknown>).stub_config_json;
	if (typeof json !== 'string' || json.length > SAFETY.stubConfigMaxChars) {
		return { kind: 'unreadable' };
	}
	let config: unknown;
	try {
		config = JSON.parse(json);
	} catch {
		return { kind: 'unreadable' };
	}
	if (config === null || typeof config !== 'object' || Array.isArray(config)) {
		return { kind: 'unreadable' };
	}
	const c = config as Record<string, unknown>;
	const str = (name: string): string | undefined => (typeof c[name] === 'string' ? c[name] : undefined);
	const filePath = str('filePath');
	if (str('headerName') !== undefined) {
		return { kind: 'header', headerName: str('headerName'), filePath, template: str('valueFormat') ?? str('value') };
	}
	if (str('paramName') !== undefined) {
		return { kind: 'query', paramName: str('paramName'), filePath, template: str('paramFormat') ?? str('value') };
	}
	if (filePath !== undefined) {
		return { kind: 'file', filePath };
	}
	return { kind: 'other' };
}

/** A stub's shape in a few words: "header Authorization", "query ?key", "file /home/…". */
export function stubShapeText(shape: StubShape): string {
	switch (shape.kind) {
		case 'header':
			return joinParts(
				vscode.l10n.t('header {0}', shape.headerName ?? ''),
				shape.filePath !== undefined && vscode.l10n.t('file {0}', shape.filePath),
			);
		case 'query':
			return joinParts(
				vscode.l10n.t('query ?{0}', shape.paramName ?? ''),
				shape.filePath !== undefined && vscode.l10n.t('file {0}', shape.filePath),
			);
		case 'file':
			return vscode.l10n.t('file {0}', shape.filePath ?? '');
		case 'other':
			return vscode.l10n.t('other shape');
		case 'unreadable':
			return vscode.l10n.t('configuration unreadable');
	}
}

const text = (stub: SecretStub, name: string): string | undefined => {
	const v = (stub as Record<string, unknown>)[name];
	return typeof v === 'string' ? v : undefined;
};

/** What a secret stub command receives: the stub, and the runtime when the row hangs under one. */
export interface SecretStubTarget {
	stub: SecretStub;
	/** The runtime's id (runtime-scoped rows: the runtime route deletes it); undefined in the Account view. */
	runtimeId?: string;
}

/** The row of a stub: host and path patterns; the secret and the shape in the description. */
function stubRow(stub: SecretStub, scope: 'runtime' | 'global'): ReturnType<ListDescriptor<SecretStub, SecretStubTarget, unknown>['row']> {
	const shape = stubShape(stub);
	const host = text(stub, 'host_pattern') ?? '';
	const path = text(stub, 'path_pattern');
	const secret = text(stub, 'stub_value_display_name');
	const runtime = text(stub, 'runtime_display_name');
	return {
		label: path && path !== '*' ? `${host} ${path}` : host || stub.id,
		description: joinParts(secret, stubShapeText(shape), scope === 'global' && runtime),
		icon: new vscode.ThemeIcon('key'),
		contextValue: `secretStub:${scope}`,
		tooltip: plainTooltip(vscode.l10n.t('Secret stub'), [
			[vscode.l10n.t('Host pattern'), host],
			[vscode.l10n.t('Path pattern'), path],
			[vscode.l10n.t('Injects'), stubShapeText(shape)],
			[vscode.l10n.t('Value template'), shape.template],
			[vscode.l10n.t('Secret'), secret],
			[vscode.l10n.t('Runtime'), runtime],
			[vscode.l10n.t('ID'), stub.id],
		]),
		command: { command: 'cloudAgents.secretStubs.showDetails', title: vscode.l10n.t('Show Secret Stub Details') },
	};
}

/** The stubs of one runtime: the service lists every stub with its runtime's name (no runtime id). */
export function stubsOfRuntime(stubs: readonly SecretStub[], runtime: Pick<Runtime, 'display_name'>): SecretStub[] {
	return stubs.filter((s) => text(s, 'runtime_display_name') === runtime.display_name);
}

/**
 * The secret stubs of a runtime, under its row in the Runtimes view (GET /v1/secret-stubs, the ones
 * naming the runtime). Rows `secretStub:runtime`; a click shows the stub's record; "Delete Secret
 * Stub…" uses the runtime route.
 */
export const runtimeSecretStubsList: ListDescriptor<SecretStub, SecretStubTarget, Runtime> = {
	key: 'runtimeSecretStubs',
	kind: 'secretStub',
	parent: { as: 'children', of: runtimesList },
	title: () => vscode.l10n.t('Secret Stubs'),
	source: {
		list: async (ctx, request, runtime) => ({
			items: stubsOfRuntime(await ctx.client().listSecretStubs({ signal: request.signal }), runtime),
			more: false,
		}),
	},
	keyOf: (stub) => stub.id,
	fields: (stub, parentKey) => ({ stub, runtimeId: parentKey }),
	row: (stub) => stubRow(stub, 'runtime'),
	empty: () => ({
		label: vscode.l10n.t('No secret stubs'),
		tooltip: vscode.l10n.t(
			'Secret stubs inject a secret into matching egress requests of this runtime. Use "Add Secret Stub…" on the runtime.',
		),
		command: { command: 'cloudAgents.secretStubs.create', title: vscode.l10n.t('Add Secret Stub…') },
	}),
};

/**
 * Every secret stub of the organization (the Account view's "Secret Stubs" group, GET
 * /v1/secret-stubs): rows `secretStub:global`, deleted through the global route.
 */
export const secretStubsList: ListDescriptor<SecretStub, SecretStubTarget, unknown> = {
	key: 'secretStubs',
	kind: 'secretStub',
	title: () => vscode.l10n.t('Secret Stubs'),
	commands: { refresh: 'cloudAgents.secretStubs.refresh' },
	source: { list: async (ctx, request) => ({ items: await ctx.client().listSecretStubs({ signal: request.signal }), more: false }) },
	keyOf: (stub) => stub.id,
	fields: (stub) => ({ stub }),
	row: (stub) => stubRow(stub, 'global'),
	empty: () => ({
		label: vscode.l10n.t('No secret stubs'),
		tooltip: vscode.l10n.t(
			'Secret stubs inject a secret into matching egress requests of a runtime. Add one with "Add Secret Stub…" on a runtime.',
		),
		command: { command: 'cloudAgents.secretStubs.create', title: vscode.l10n.t('Add Secret Stub…') },
	}),
};

/** A secret that stubs refer to, with its metadata when it could be read. */
export interface SecretRef {
	/** The name stubs use (`stub_value_display_name`). */
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
		const name = text(stub, 'stub_value_display_name');
		if (!name) {
			continue;
		}
		const ref = byName.get(name) ?? { name, stubs: 0, runtimes: [] };
		ref.stubs++;
		const runtime = text(stub, 'runtime_display_name');
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

/** A cache TTL in short words (300 → "5 min"). */
export function ttlText(secs: unknown): string | undefined {
	if (typeof secs !== 'number' || !Number.isFinite(secs)) {
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

/** The row of a secret that stubs refer to: name, masked preview and TTL; never a value. */
export function secretRefRow(ref: SecretRef): ReturnType<ListDescriptor<SecretRef, object, unknown>['row']> {
	const s = ref.secret as Record<string, unknown> | undefined;
	const preview = typeof s?.value_preview === 'string' ? s.value_preview : undefined;
	const ttl = ttlText(s?.cache_ttl_secs);
	return {
		label: ref.name,
		description:
			ref.problem !== undefined
				? ref.problem
				: joinParts(preview, ttl && vscode.l10n.t('cache {0}', ttl), vscode.l10n.t('{0} stub(s)', ref.stubs)),
		icon:
			ref.problem !== undefined
				? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
				: new vscode.ThemeIcon('lock'),
		contextValue: ref.secret ? 'secret:read' : 'secret:unread',
		tooltip: plainTooltip(ref.name, [
			[vscode.l10n.t('Preview (masked by the service)'), preview],
			[vscode.l10n.t('Cache TTL'), ttl],
			[vscode.l10n.t('Used by'), vscode.l10n.t('{0} secret stub(s) on {1}', ref.stubs, ref.runtimes.join(', ') || '—')],
			[vscode.l10n.t('ID'), typeof s?.id === 'string' ? s.id : undefined],
			[vscode.l10n.t('Problem'), ref.problem],
		]),
		command: {
			command: 'cloudAgents.secrets.open',
			title: vscode.l10n.t('Open Secret'),
			arguments: [{ secret: typeof s?.id === 'string' ? s.id : ref.name }],
		},
	};
}

/** What a secret command receives from a row: `{secret}` (the UUID when read, else the name stubs use). */
export interface SecretRefTarget {
	secret: string;
	ref: SecretRef;
}

/**
 * The secrets secret stubs refer to (the Account view's "Secrets" group; the service has no list of
 * secrets): masked preview and cache TTL from GET /v2/secrets/{name}; a click opens the metadata
 * record (`cloudAgents.secrets.open`), "Delete Secret…" asks first. Rows `secret:read` or `secret:unread`.
 */
export const secretsList: ListDescriptor<SecretRef, SecretRefTarget, unknown> = {
	key: 'secrets',
	kind: 'secret',
	title: () => vscode.l10n.t('Secrets'),
	commands: { refresh: 'cloudAgents.secrets.refresh' },
	source: { list: async (ctx, request) => ({ items: await secretsFromStubs(ctx.client(), request.signal), more: false }) },
	keyOf: (ref) => ref.name,
	fields: (ref) => {
		const id = (ref.secret as Record<string, unknown> | undefined)?.id;
		return { secret: typeof id === 'string' ? id : ref.name, ref };
	},
	row: secretRefRow,
	empty: () => ({
		label: vscode.l10n.t('No secrets in use'),
		tooltip: vscode.l10n.t('No secret stub refers to a secret. Use "Open Secret by Name or ID…" to read any secret.'),
		command: { command: 'cloudAgents.secrets.open', title: vscode.l10n.t('Open Secret by Name or ID…') },
	}),
};
