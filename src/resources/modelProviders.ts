import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { ApiError, SAFETY, SECRET_MASK, providerConfiguration, readProvider, redactSecrets } from '../api';
import type { FieldError, ProviderInfo } from '../api';
import { describeError } from '../util/errors';
import { locate, parseFieldPath } from '../util/jsonLocate';
import { contextToken, iconSafe, notificationText, plainText, singleLine } from '../util/text';
import type { ActionKit, RecordAction, ResourceAction } from '../views/actions';
import type { ListContext, ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip, relativeTime, statusIcon } from '../views/format';
import { argString, isJsonObject, showWarning } from '../views/ui';

/** What a model provider command receives: `{provider}` (a row, the resolver). */
export interface ModelProviderTarget {
	provider: ProviderInfo;
}

/** Every model provider of the organisation (one request: the listing has no paging). */
export async function readProviders(ctx: Pick<ListContext, 'client'>, signal?: AbortSignal): Promise<ProviderInfo[]> {
	const list = await ctx.client().listModelProviders({ signal });
	return list.model_providers.map(readProvider).filter((p): p is ProviderInfo => p !== undefined);
}

/**
 * Model providers (a group of the Account view): the organisation's providers; the service has
 * no create or delete. A click opens one as an editable JSON document ("Edit Model Provider"):
 * saving it sends the PATCH. `contextValue` is `modelProvider:<kind>:enabled|disabled`.
 */
export const modelProvidersList: ListDescriptor<ProviderInfo, ModelProviderTarget> = {
	key: 'modelProviders',
	kind: 'modelProvider',
	title: () => vscode.l10n.t('Model providers'),
	commands: { refresh: 'cloudAgents.modelProviders.refresh' },
	source: {
		async list(ctx, { signal }) {
			return { items: await readProviders(ctx, signal), more: false };
		},
	},
	keyOf: (p) => p.id,
	name: (p) => p.name,
	fields: (provider) => ({ provider }),
	empty: () => ({ label: vscode.l10n.t('No model providers') }),
	row(p) {
		return {
			label: p.name ?? p.id,
			contextValue: `modelProvider:${contextToken(p.kind ?? 'unknown')}:${p.enabled === false ? 'disabled' : 'enabled'}`,
			icon: p.enabled === false ? statusIcon('stopped') : new vscode.ThemeIcon('hubot'),
			description: joinParts(p.model, p.enabled === false && vscode.l10n.t('disabled'), p.kind),
			tooltip: plainTooltip(p.name, [
				[vscode.l10n.t('ID'), p.id],
				[vscode.l10n.t('Kind'), p.kind],
				[vscode.l10n.t('Endpoint'), p.endpoint],
				[vscode.l10n.t('Model'), p.model],
				[vscode.l10n.t('Enabled'), p.enabled],
				[vscode.l10n.t('Updated'), relativeTime(p.updatedAt)],
			]),
			command: { command: 'cloudAgents.modelProviders.edit', title: vscode.l10n.t('Edit Model Provider') },
		};
	},
	target: {
		idField: 'providerId',
		get: async (ctx, id) => (await readProviders(ctx)).find((p) => p.id === id),
		choices: (ctx) => readProviders(ctx),
		pickText: (p) => ({ label: p.name ?? p.id, description: joinParts(p.model, p.kind), detail: p.id }),
		placeholder: () => vscode.l10n.t('Pick a model provider'),
		notFound: (id) => vscode.l10n.t('The model provider {0} was not found.', id),
	},
};

/** The folder (global storage) of the model provider documents being edited. */
const PROVIDER_FOLDER = 'model-provider-edits';

/** A local file name for a provider id: letters, digits, `-`, `_` and `.` only, never `.`/`..`. */
function providerFileName(id: string): string {
	const safe = id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 100);
	return `${safe === '' || /^\.+$/.test(safe) ? 'provider' : safe}-${createHash('sha256').update(id).digest('hex').slice(0, 8)}.json`;
}

/** The first line of a document that says which provider it edits (never sent). */
const PROVIDER_HEADER = /^\/\/ cloud-agents model provider: (\S+)\n/;

/** What "Save Model Provider to the Service" returns: saved, or refused with the field errors shown as diagnostics. */
export interface ProviderSaveResult {
	saved: boolean;
	/** The provider as the service answered the PATCH. */
	provider?: ProviderInfo;
	/** How many of the service's field errors became diagnostics. */
	diagnostics?: number;
	requestId?: string;
}

/** A provider document as "Edit Model Provider" writes it: the header naming the provider, then its configuration. */
interface ProviderDocument {
	providerId: string;
	/** The text after the header (the configuration as typed) and where it starts in the document. */
	body: string;
	offset: number;
	config: Record<string, unknown>;
}

/** Reads a provider document; throws a message for the user when its header or JSON is broken. */
function parseProviderDocument(text: string): ProviderDocument {
	const header = PROVIDER_HEADER.exec(text);
	const providerId = header?.[1];
	if (!header || !providerId) {
		throw new Error(vscode.l10n.t('This document does not name a model provider (its first line was changed).'));
	}
	const body = text.slice(header[0].length);
	let config: unknown;
	try {
		config = JSON.parse(body);
	} catch (err) {
		throw new Error(
			vscode.l10n.t('The provider configuration is not valid JSON: {0}', err instanceof Error ? err.message : String(err)),
			{ cause: err },
		);
	}
	if (!isJsonObject(config)) {
		throw new Error(vscode.l10n.t('The provider configuration must be a JSON object.'));
	}
	return { providerId, body, offset: header[0].length, config };
}

/** What the provider documents keep of the kit of the action that made them: services only (they outlive it). */
type DocumentServices = Pick<ActionKit, 'client' | 'list' | 'log' | 'context'>;

/**
 * The model provider documents being edited (JSON files in global storage, one per provider):
 * saving one sends its configuration as the PATCH, and the service's field errors become
 * diagnostics on the members they name. One per extension context, made on the first edit or save
 * (`providerDocuments`); from then on it listens to saves and closes of these documents.
 */
class ProviderDocuments implements vscode.Disposable {
	/** Where the documents are written. */
	readonly folder: vscode.Uri;
	private readonly diagnostics: vscode.DiagnosticCollection;
	/** Documents the save command saves itself (its own PATCH follows; the save event does not send another). */
	private readonly pendingSaves = new Set<string>();
	private readonly subscriptions: vscode.Disposable[];
	private disposed = false;

	constructor(private readonly services: DocumentServices) {
		this.folder = vscode.Uri.joinPath(services.context.globalStorageUri, PROVIDER_FOLDER);
		this.diagnostics = vscode.languages.createDiagnosticCollection('cloudAgents.modelProviders');
		this.subscriptions = [
			this.diagnostics,
			vscode.workspace.onDidSaveTextDocument((doc) => {
				if (!this.isProviderDoc(doc) || this.pendingSaves.delete(doc.uri.toString())) {
					return;
				}
				void this.send(doc).catch((err: unknown) => {
					services.log.warn(`model provider save: ${describeError(err)}`);
					void vscode.window.showErrorMessage(
						notificationText(vscode.l10n.t('Could not save the model provider: {0}', describeError(err))),
					);
				});
			}),
			vscode.workspace.onDidCloseTextDocument((doc) => {
				if (this.isProviderDoc(doc)) {
					this.diagnostics.delete(doc.uri);
				}
			}),
		];
	}

	/** Whether `dispose()` has run (the extension context that owned it is gone). */
	get isDisposed(): boolean {
		return this.disposed;
	}

	/** True for a document of this folder. */
	isProviderDoc(doc: vscode.TextDocument): boolean {
		return doc.uri.scheme === this.folder.scheme && doc.uri.path.startsWith(`${this.folder.path}/`);
	}

	/**
	 * Writes the provider's configuration fields (every member but the read-only ones, under the
	 * server's names, secrets masked) to its document and opens it; an unsaved edit of an open one
	 * is replaced, so the document shows what the service has now.
	 */
	async open(provider: ProviderInfo): Promise<vscode.TextDocument> {
		const uri = vscode.Uri.joinPath(this.folder, providerFileName(provider.id));
		await vscode.workspace.fs.createDirectory(this.folder);
		const config = redactSecrets(providerConfiguration(provider.raw));
		const content = `// cloud-agents model provider: ${provider.id}\n${JSON.stringify(config, null, '\t')}\n`;
		const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
		if (open) {
			const edit = new vscode.WorkspaceEdit();
			edit.replace(uri, new vscode.Range(open.positionAt(0), open.positionAt(open.getText().length)), content);
			await vscode.workspace.applyEdit(edit);
			await open.save();
		} else {
			await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(content));
		}
		this.diagnostics.delete(uri);
		const doc = await vscode.workspace.openTextDocument(uri);
		await vscode.languages.setTextDocumentLanguage(doc, 'jsonc');
		await vscode.window.showTextDocument(doc, { preview: false });
		return doc;
	}

	/** Saves the document (a dirty one is written first, without a second PATCH from the save event) and sends it. */
	async save(doc: vscode.TextDocument): Promise<ProviderSaveResult> {
		if (doc.isDirty) {
			this.pendingSaves.add(doc.uri.toString());
			await doc.save();
		}
		return this.send(doc);
	}

	/** Sends a provider document's configuration as the PATCH; field errors become diagnostics. */
	private async send(doc: vscode.TextDocument): Promise<ProviderSaveResult> {
		const { providerId, body, offset, config } = parseProviderDocument(doc.getText());
		// Secret values were shown masked: a member still masked keeps the service's value, read
		// again now (never kept in the document or in memory between saves).
		const masked = Object.entries(config)
			.filter(([, v]) => v === SECRET_MASK)
			.map(([k]) => k);
		if (masked.length > 0) {
			const current = (await readProviders(this.services)).find((p) => p.id === providerId);
			for (const k of masked) {
				config[k] = current?.raw[k];
			}
		}
		try {
			const raw = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Saving model provider…') },
				() => this.services.client().updateModelProvider(providerId, config),
			);
			this.diagnostics.delete(doc.uri);
			await this.services.list(modelProvidersList).refresh();
			return { saved: true, provider: readProvider(raw) };
		} catch (err) {
			if (err instanceof ApiError && err.fieldErrors.length > 0) {
				const items = err.fieldErrors.map((f) => fieldDiagnostic(doc, body, offset, f));
				this.diagnostics.set(doc.uri, items);
				void showWarning(
					items.length === 1
						? vscode.l10n.t('The service refused 1 field of the provider; see the Problems panel. {0}', describeError(err))
						: vscode.l10n.t(
								'The service refused {0} fields of the provider; see the Problems panel. {1}',
								items.length,
								describeError(err),
							),
				);
				return { saved: false, diagnostics: items.length, requestId: err.requestId };
			}
			throw err;
		}
	}

	/** Drops the diagnostics and stops listening. */
	dispose(): void {
		this.disposed = true;
		for (const d of this.subscriptions.splice(0)) {
			d.dispose();
		}
	}
}

/** A field error of the service as a diagnostic on the member it names (the document's start when none matches). */
function fieldDiagnostic(doc: vscode.TextDocument, body: string, offset: number, f: FieldError): vscode.Diagnostic {
	const path = parseFieldPath(f.field);
	const found = path ? locate(body, path) : undefined;
	const start = doc.positionAt(offset + (found?.span.offset ?? 0));
	const end = doc.positionAt(offset + (found ? found.span.offset + found.span.length : 0));
	const message =
		found?.exact === false || !found
			? vscode.l10n.t('{0}: {1}', singleLine(f.field, SAFETY.labelMaxChars), plainText(f.message, SAFETY.notificationMaxChars))
			: plainText(f.message, SAFETY.notificationMaxChars);
	const d = new vscode.Diagnostic(new vscode.Range(start, end), message, vscode.DiagnosticSeverity.Error);
	d.source = 'Cloud Agents';
	d.code = singleLine(f.field, SAFETY.labelMaxChars);
	return d;
}

/** The window's provider documents: made on first use, owned by the extension context. */
let documents: ProviderDocuments | undefined;

function providerDocuments(kit: ActionKit): ProviderDocuments {
	if (!documents || documents.isDisposed) {
		const { client, list, log, context } = kit;
		documents = new ProviderDocuments({ client, list, log, context });
		kit.context.subscriptions.push(documents);
	}
	return documents;
}

/** Reads the provider again and opens its configuration as a document to edit. */
async function editProvider(provider: ProviderInfo, kit: ActionKit): Promise<vscode.TextDocument> {
	const fresh = (await readProviders(kit)).find((p) => p.id === provider.id) ?? provider;
	const doc = await providerDocuments(kit).open(fresh);
	if (!kit.automation) {
		kit.info(
			vscode.l10n.t(
				'Editing the model provider "{0}": save the document to send every configuration field to the service.',
				iconSafe(fresh.name ?? fresh.id),
			),
		);
	}
	return doc;
}

/** Saves the provider document the command names (`{uri}`, a URI from the editor title) or the active one. */
async function saveProvider(kit: ActionKit): Promise<ProviderSaveResult> {
	const { arg } = kit;
	const uriText = argString(arg, 'uri');
	const doc = uriText
		? vscode.workspace.textDocuments.find((d) => d.uri.toString() === uriText)
		: arg instanceof vscode.Uri
			? vscode.workspace.textDocuments.find((d) => d.uri.toString() === arg.toString())
			: vscode.window.activeTextEditor?.document;
	const documents = providerDocuments(kit);
	if (!doc || !documents.isProviderDoc(doc)) {
		throw new Error(vscode.l10n.t('Open a model provider with "Edit Model Provider" first.'));
	}
	return documents.save(doc);
}

/**
 * What a user can do with model providers: edit one as a JSON document, whose save sends the
 * PATCH (the service has no create or delete). Automation may pass `{providerId}` instead of a row.
 */
export const modelProviderActions = {
	/**
	 * "Edit Model Provider": the provider's configuration fields (every member but the read-only
	 * ones, under the server's names) as a JSON document; saving it sends the PATCH. Automation:
	 * `{providerId}` returns the document.
	 */
	edit: {
		on: modelProvidersList,
		command: 'cloudAgents.modelProviders.edit',
		run: ({ provider }, kit) => editProvider(provider, kit),
	} satisfies RecordAction<ProviderInfo, ModelProviderTarget>,
	/** "Save Model Provider to the Service": saves the document (which sends the PATCH). Automation: `{uri}` returns the outcome. */
	save: { command: 'cloudAgents.modelProviders.save', run: (kit) => saveProvider(kit) } satisfies ResourceAction,
};
