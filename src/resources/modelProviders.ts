import * as vscode from 'vscode';
import { ApiError, SAFETY, SECRET_MASK, isJsonObject, isUnreachable, providerConfiguration, readProvider, redactSecrets } from '../api';
import type { FieldError, ProviderInfo } from '../api';
import { describeError, requestIdOf } from '../messages/errors';
import { PROVIDER_SCHEME } from '../ids';
import { jsonSyntaxError, lineColumn, locate, parseFieldPath } from '../util/jsonFields';
import { contextToken, iconSafe, notificationText, plainText, singleLine } from '../util/text';
import type { ActionKit, RecordAction, ResourceAction } from '../views/actions';
import type { ListContext, ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip, relativeTime, statusIcon } from '../views/format';
import { argString, showWarning } from '../views/ui';

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

/** The file name of a provider's document: its name (or id), one safe path segment, `.json`. */
function providerFileName(provider: Pick<ProviderInfo, 'id' | 'name'>): string {
	const name = singleLine(provider.name || provider.id, SAFETY.labelMaxChars).replace(/[/\\]/g, '_');
	return `${name === '' || /^\.+$/.test(name) ? 'provider' : name}.json`;
}

/**
 * The URI of a provider's document: `cloud-agents-provider:/<name>.json`. The path is only the
 * provider's name (the tab, the breadcrumbs and VS Code's "Unable to write file '…'" say
 * "OpenAI Production.json", never a folder of the extension's storage or an id, issue 42 item 13);
 * only when another of `others` has the same file name does the query hold the id, so the two stay apart.
 */
export function providerUri(
	provider: Pick<ProviderInfo, 'id' | 'name'>,
	others: readonly Pick<ProviderInfo, 'id' | 'name'>[] = [],
): vscode.Uri {
	const file = providerFileName(provider);
	const shared = others.some((o) => o.id !== provider.id && providerFileName(o) === file);
	return vscode.Uri.from({ scheme: PROVIDER_SCHEME, path: `/${file}`, query: shared ? provider.id : '' });
}

/** The provider a document is about: the id in its query, else the one provider of `providers` whose file name is its path. */
export function providerOfUri(uri: vscode.Uri, providers: readonly ProviderInfo[]): ProviderInfo | undefined {
	if (uri.query !== '') {
		return providers.find((p) => p.id === uri.query);
	}
	const named = providers.filter((p) => `/${providerFileName(p)}` === uri.path);
	return named.length === 1 ? named[0] : undefined;
}

/** What "Save Model Provider to the Service" returns: saved, or not sent / refused with the problems shown as diagnostics. */
export interface ProviderSaveResult {
	saved: boolean;
	/** The provider as the service answered the PATCH. */
	provider?: ProviderInfo;
	/** How many problems (found before sending, or the service's field errors) became diagnostics. */
	diagnostics?: number;
	/** Whether the PATCH was sent. */
	sent?: boolean;
	/** Why it was not saved, for the user. */
	message?: string;
	requestId?: string;
}

/** A problem of the document: the member it is about (undefined: the whole document, or `at` its offset) and why. */
interface DocumentProblem {
	field?: string;
	at?: number;
	message: string;
}

/** The JSON type of a value in words. */
function jsonType(v: unknown): string {
	return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;
}

/** Members whose value is a URL, in any of the spellings the service uses. */
const URL_MEMBER = /^(endpoint|base_url|url|api_base)$|_url$/i;
/** Members that name the provider. */
const NAME_MEMBER = /^(display_name|name)$/;

/**
 * Every problem of a provider configuration the service would refuse, found before anything is
 * sent: a configuration field missing (the service requires all of them), a value of another JSON
 * type than the service's, a URL that is not an absolute http(s) URL or carries credentials, an
 * empty name, an enabled provider without a model.
 */
export function checkProviderConfig(config: Record<string, unknown>, current: Record<string, unknown>): DocumentProblem[] {
	const problems: DocumentProblem[] = [];
	for (const [key, was] of Object.entries(current)) {
		if (!(key in config)) {
			problems.push({ message: vscode.l10n.t('"{0}" is missing: the service requires every configuration field.', key) });
		} else if (was !== null && config[key] !== SECRET_MASK && jsonType(config[key]) !== jsonType(was)) {
			problems.push({ field: key, message: vscode.l10n.t('"{0}" must be a {1}, like the service\'s value.', key, jsonType(was)) });
		}
	}
	for (const [key, value] of Object.entries(config)) {
		if (typeof value !== 'string') {
			continue;
		}
		if (URL_MEMBER.test(key) && value !== SECRET_MASK) {
			let url: URL | undefined;
			try {
				url = new URL(value);
			} catch {
				url = undefined;
			}
			if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
				problems.push({ field: key, message: vscode.l10n.t('"{0}" must be an absolute https URL.', key) });
			} else if (url.username !== '' || url.password !== '') {
				problems.push({ field: key, message: vscode.l10n.t('"{0}" must not contain credentials.', key) });
			}
		}
		if (NAME_MEMBER.test(key) && value.trim() === '') {
			problems.push({ field: key, message: vscode.l10n.t('"{0}" must not be empty.', key) });
		}
	}
	const enabled = config.enabled ?? config.is_enabled;
	for (const key of ['model', 'default_model']) {
		if (enabled === true && typeof config[key] === 'string' && config[key].trim() === '') {
			problems.push({ field: key, message: vscode.l10n.t('"{0}" is required for an enabled provider.', key) });
		}
	}
	return problems;
}

/** What the provider documents keep of the kit of the action that made them: services only (they outlive it). */
export type DocumentServices = Pick<ActionKit, 'client' | 'list' | 'log' | 'context'>;

/**
 * How long a save that VS Code declined at once waits for the write of the other save of the
 * document that made it decline: VS Code gives each extension host's `onWillSaveTextDocument` 1.75 s
 * of that save's participants (code-server has two hosts), and formatters on save their time.
 */
const OTHER_SAVE_MS = 10_000;

/**
 * The model provider documents being edited: a file system of our own (`cloud-agents-provider:`,
 * held in memory, read from the service when a document is opened or restored). Saving a document
 * is the PATCH: VS Code's save writes the file, and the write is refused (the document stays dirty,
 * VS Code says why) when the JSON or any field is not valid — every problem found at once, as
 * diagnostics, before anything is sent — or when the service refuses it (its field errors become
 * diagnostics on the members they name). A save the service took says so in the status bar. One per
 * extension context, made when the features load (`modelProviderDocuments`). The scheme itself is
 * registered at activation, as a stand-in that hands every call here (src/extension.ts): VS Code
 * restores a provider's tab after a reload before any command of ours has run.
 */
class ProviderDocuments implements vscode.FileSystemProvider, vscode.Disposable {
	private readonly diagnostics: vscode.DiagnosticCollection;
	/** The text of each document as last read from the service or saved to it. */
	private readonly files = new Map<string, { data: Uint8Array; mtime: number }>();
	/** The provider id of each document opened here (by URI): a rename saved from the document keeps it. */
	private readonly ids = new Map<string, string>();
	/** The outcome of each document's last write (for the save command), numbered in the order the writes ended. */
	private readonly results = new Map<string, { result: ProviderSaveResult; ended: number }>();
	/** How many writes have ended (the numbers of `results`). */
	private writesEnded = 0;
	/** How many writes of each document have started and ended, and the last one. */
	private readonly writes = new Map<string, { started: number; ended: number; last?: Promise<void> }>();
	private readonly writeStarted = new vscode.EventEmitter<string>();
	/** Documents whose next write is the service's text shown again (no PATCH). */
	private readonly reloads = new Set<string>();
	private readonly changed = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
	readonly onDidChangeFile = this.changed.event;
	private readonly subscriptions: vscode.Disposable[];
	private disposed = false;

	constructor(private readonly services: DocumentServices) {
		this.diagnostics = vscode.languages.createDiagnosticCollection('cloudAgents.modelProviders');
		this.subscriptions = [
			this.diagnostics,
			this.changed,
			this.writeStarted,
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

	/** True for a model provider document. */
	isProviderDoc(doc: vscode.TextDocument): boolean {
		return doc.uri.scheme === PROVIDER_SCHEME;
	}

	/** The text of a provider's configuration fields (every member but the read-only ones, under the server's names, secrets masked). */
	private static text(provider: ProviderInfo): string {
		return `${JSON.stringify(redactSecrets(providerConfiguration(provider.raw)), null, '\t')}\n`;
	}

	/**
	 * Shows the provider's configuration as the service has it now; an unsaved edit of an open
	 * document is replaced (without a PATCH).
	 */
	async open(provider: ProviderInfo, others: readonly ProviderInfo[] = []): Promise<vscode.TextDocument> {
		const uri = providerUri(provider, others);
		const key = uri.toString();
		this.ids.set(key, provider.id);
		const text = ProviderDocuments.text(provider);
		this.files.set(key, { data: new TextEncoder().encode(text), mtime: Date.now() });
		this.diagnostics.delete(uri);
		const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
		if (open && open.getText() !== text) {
			const edit = new vscode.WorkspaceEdit();
			edit.replace(uri, new vscode.Range(open.positionAt(0), open.positionAt(open.getText().length)), text);
			await vscode.workspace.applyEdit(edit);
			this.reloads.add(key);
			try {
				await this.saveInVsCode(open);
			} finally {
				this.reloads.delete(key);
			}
		}
		const doc = open ?? (await vscode.workspace.openTextDocument(uri));
		await vscode.window.showTextDocument(doc, { preview: false });
		return doc;
	}

	/**
	 * Saves the document (VS Code's save: the write sends it) and returns the outcome: of the write
	 * that saved it or failed, ours or that of another save of the document VS Code was making (see
	 * saveInVsCode); when VS Code wrote nothing, a message that says so. A document without unsaved
	 * changes is sent as it is.
	 */
	async save(doc: vscode.TextDocument, quiet: boolean): Promise<ProviderSaveResult> {
		const key = doc.uri.toString();
		let result: ProviderSaveResult;
		if (doc.isDirty) {
			const since = this.writesEnded;
			const answer = await this.saveInVsCode(doc);
			// The outcome of the write that saved the document or failed: ours, or the other save's
			// that ours joined or waited for.
			const written = this.results.get(key);
			if (written && written.ended > since) {
				return written.result;
			}
			if (answer.saved) {
				return { saved: true };
			}
			// VS Code saved nothing and said nothing: say why nothing was sent, never a bare refusal.
			const name = doc.uri.path.slice(1);
			result = {
				saved: false,
				sent: false,
				message:
					answer.error !== undefined
						? vscode.l10n.t(
								'VS Code did not save "{0}", so nothing was sent to the service: {1}',
								name,
								describeError(answer.error),
							)
						: vscode.l10n.t(
								'VS Code did not save "{0}", so nothing was sent to the service. Save it again; "Edit Model Provider" shows what the service has.',
								name,
							),
			};
			this.services.log.warn(`model provider save: ${result.message ?? ''}`);
		} else {
			result = await this.send(doc.uri, doc.getText());
		}
		if (!result.saved && !quiet && result.message !== undefined) {
			void showWarning(result.message);
		}
		return result;
	}

	/**
	 * VS Code's save of a document (its write is `writeFile`). While another save of the document
	 * runs its save participants, VS Code declines a save at once and writes nothing
	 * (TextFileEditorModel.doSave: "refusing to save() recursively from save participant"): VS Code
	 * for the Web auto-saves a second after an edit by default, and its participants wait for every
	 * extension host's `onWillSaveTextDocument`, up to 1.75 s each when a host is busy. That other
	 * save writes the document as it is then, so a declined save waits for its write (the save
	 * command answers with its outcome) instead of failing, or saving and sending it a second time.
	 */
	private async saveInVsCode(doc: vscode.TextDocument): Promise<{ saved: boolean; error?: unknown }> {
		const key = doc.uri.toString();
		const { started = 0, ended = 0 } = this.writes.get(key) ?? {};
		const answer = await doc.save().then(
			(saved) => ({ saved, error: undefined as unknown }),
			(error: unknown) => ({ saved: false, error }),
		);
		const now = this.writes.get(key);
		const wroteNothing = (now?.started ?? 0) === started && (now?.ended ?? 0) === ended;
		if (answer.saved || answer.error !== undefined || !doc.isDirty || !wroteNothing) {
			return answer;
		}
		return { saved: await this.otherWrite(key, started) };
	}

	/**
	 * Waits for a write of the document after the `started`th (the one being made, or the next if it
	 * starts within OTHER_SAVE_MS); resolves whether one ended without failing.
	 */
	private otherWrite(key: string, started: number): Promise<boolean> {
		const succeeded = (write: Promise<void>): Promise<boolean> =>
			write.then(
				() => true,
				() => false,
			);
		const current = (): Promise<void> | undefined => {
			const w = this.writes.get(key);
			return w && w.started > started ? w.last : undefined;
		};
		const now = current();
		if (now) {
			return succeeded(now);
		}
		return new Promise<boolean>((resolve) => {
			const done = (write: Promise<void> | undefined): void => {
				clearTimeout(timer);
				subscription.dispose();
				resolve(write ? succeeded(write) : false);
			};
			const timer = setTimeout(() => done(undefined), OTHER_SAVE_MS);
			const subscription = this.writeStarted.event((k) => {
				if (k === key) {
					done(current());
				}
			});
		});
	}

	/** The provider of a document: the one it was opened for here, else as its URI names it (a document restored with the window). */
	private providerOf(uri: vscode.Uri, providers: readonly ProviderInfo[]): ProviderInfo | undefined {
		const id = this.ids.get(uri.toString());
		return id === undefined ? providerOfUri(uri, providers) : providers.find((p) => p.id === id);
	}

	/** The document's entry: held, or read from the service (a document restored with the window). */
	private async entry(uri: vscode.Uri): Promise<{ data: Uint8Array; mtime: number }> {
		const held = this.files.get(uri.toString());
		if (held) {
			return held;
		}
		const provider = this.providerOf(uri, await readProviders(this.services));
		if (!provider) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		const entry = { data: new TextEncoder().encode(ProviderDocuments.text(provider)), mtime: Date.now() };
		this.files.set(uri.toString(), entry);
		return entry;
	}

	watch(): vscode.Disposable {
		return new vscode.Disposable(() => undefined);
	}

	async stat(uri: vscode.Uri): Promise<vscode.FileStat> {
		if (uri.path === '/') {
			return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
		}
		const e = await this.entry(uri);
		return { type: vscode.FileType.File, ctime: e.mtime, mtime: e.mtime, size: e.data.byteLength };
	}

	readDirectory(): [string, vscode.FileType][] {
		return [...this.files.keys()].map((k) => [vscode.Uri.parse(k).path.slice(1), vscode.FileType.File]);
	}

	async readFile(uri: vscode.Uri): Promise<Uint8Array> {
		return (await this.entry(uri)).data;
	}

	/**
	 * VS Code's save: sends the document; a refusal fails the write, so the document stays dirty.
	 * Each write is counted and kept, for a save that VS Code declined to wait for (saveInVsCode).
	 */
	writeFile(uri: vscode.Uri, content: Uint8Array): Promise<void> {
		const key = uri.toString();
		const count = this.writes.get(key) ?? { started: 0, ended: 0 };
		this.writes.set(key, count);
		count.started++;
		const write = this.write(uri, content).finally(() => {
			count.ended++;
		});
		count.last = write;
		this.writeStarted.fire(key);
		return write;
	}

	/** The write itself: the PATCH (or the service's text shown again), its outcome kept for the save command. */
	private async write(uri: vscode.Uri, content: Uint8Array): Promise<void> {
		const key = uri.toString();
		if (!this.reloads.has(key)) {
			let result: ProviderSaveResult;
			try {
				result = await this.send(uri, new TextDecoder().decode(content));
			} catch (err) {
				this.services.log.warn(`model provider save: ${describeError(err)}`);
				const message = mayWorkLater(err)
					? vscode.l10n.t('The service could not be reached; the model provider was not saved: {0}', describeError(err))
					: vscode.l10n.t('The service did not save the model provider: {0}', describeError(err));
				this.results.set(key, { result: { saved: false, message, requestId: requestIdOf(err) }, ended: ++this.writesEnded });
				throw refusedWrite(err, message);
			}
			this.results.set(key, { result, ended: ++this.writesEnded });
			if (!result.saved) {
				throw refusedWrite(undefined, result.message ?? '');
			}
		}
		this.files.set(key, { data: content, mtime: Date.now() });
		this.changed.fire([{ type: vscode.FileChangeType.Changed, uri }]);
	}

	createDirectory(): void {
		throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Model providers are edited one at a time with "Edit Model Provider".'));
	}

	delete(): void {
		throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('The service has no operation to delete a model provider.'));
	}

	rename(): void {
		throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('The service has no operation to delete a model provider.'));
	}

	/**
	 * Checks a document's text (JSON, then every field against the service's current record: all
	 * problems at once, as diagnostics) and sends it as the PATCH when it has none; the service's
	 * field errors become diagnostics too.
	 */
	private async send(uri: vscode.Uri, text: string): Promise<ProviderSaveResult> {
		let config: unknown;
		try {
			config = JSON.parse(text);
		} catch (err) {
			const { reason, offset } = jsonSyntaxError(err, text.length, text);
			const at = offset === undefined ? undefined : lineColumn(text, offset);
			const message = at
				? vscode.l10n.t(
						'Not sent: the provider configuration is not valid JSON: {0} (line {1}, column {2}).',
						reason,
						at.line,
						at.column,
					)
				: vscode.l10n.t('Not sent: the provider configuration is not valid JSON: {0}.', reason);
			this.diagnostics.set(uri, [problemDiagnostic(text, { at: offset ?? 0, message: reason })]);
			return { saved: false, sent: false, diagnostics: 1, message };
		}
		if (!isJsonObject(config)) {
			this.diagnostics.set(uri, [
				problemDiagnostic(text, { message: vscode.l10n.t('The provider configuration must be a JSON object.') }),
			]);
			return {
				saved: false,
				sent: false,
				diagnostics: 1,
				message: vscode.l10n.t('Not sent: the provider configuration must be a JSON object.'),
			};
		}
		const current = this.providerOf(uri, await readProviders(this.services));
		if (!current) {
			throw new Error(vscode.l10n.t('The model provider {0} was not found.', uri.path.slice(1)));
		}
		const providerId = current.id;
		const problems = checkProviderConfig(config, providerConfiguration(current.raw));
		if (problems.length > 0) {
			this.diagnostics.set(
				uri,
				problems.map((p) => problemDiagnostic(text, p)),
			);
			const message =
				problems.length === 1
					? vscode.l10n.t('Not sent: 1 field of the provider is not valid; see the Problems panel.')
					: vscode.l10n.t('Not sent: {0} fields of the provider are not valid; see the Problems panel.', problems.length);
			return { saved: false, sent: false, diagnostics: problems.length, message };
		}
		// Secret values were shown masked: a member still masked keeps the service's value, read
		// again now (never kept in the document or in memory between saves).
		for (const [k, v] of Object.entries(config)) {
			if (v === SECRET_MASK) {
				config[k] = current.raw[k];
			}
		}
		try {
			const raw = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Saving model provider…') },
				() => this.services.client().updateModelProvider(providerId, config),
			);
			this.diagnostics.delete(uri);
			await this.services.list(modelProvidersList).refresh();
			const provider = readProvider(raw);
			vscode.window.setStatusBarMessage(
				`$(check) ${iconSafe(vscode.l10n.t('Saved the model provider "{0}" to the service.', provider?.name ?? current.name ?? providerId))}`,
				5000,
			);
			return { saved: true, sent: true, provider };
		} catch (err) {
			if (err instanceof ApiError && err.fieldErrors.length > 0) {
				const items = err.fieldErrors.map((f) => fieldDiagnostic(text, f));
				this.diagnostics.set(uri, items);
				const message =
					items.length === 1
						? vscode.l10n.t('The service refused 1 field of the provider; see the Problems panel. {0}', describeError(err))
						: vscode.l10n.t(
								'The service refused {0} fields of the provider; see the Problems panel. {1}',
								items.length,
								describeError(err),
							);
				return { saved: false, sent: true, diagnostics: items.length, requestId: err.requestId, message };
			}
			throw err;
		}
	}

	/** Drops the diagnostics and the documents' text, and stops serving them. */
	dispose(): void {
		this.disposed = true;
		this.files.clear();
		this.ids.clear();
		for (const d of this.subscriptions.splice(0)) {
			d.dispose();
		}
	}
}

/**
 * The error a refused save gives VS Code. For an extension reading it (`workspace.fs.writeFile`) its
 * code says what happened — Unavailable when the service could not be reached or asked to come back
 * later, NoPermissions when it (or the check before sending) refused the document — never
 * "Unknown"; the message names the reason and the request id. VS Code words a failed save "Unable
 * to write file '…' (<the error as text>)", and an error's text is "<name>: <message>": the name a
 * FileSystemError carries ("NoPermissions (FileSystemError)") is emptied, so a person reads our
 * reason alone, not a code that says "permissions" for an invalid field (issue 42, item 13).
 */
function refusedWrite(err: unknown, message: string): vscode.FileSystemError {
	const text = notificationText(message);
	const error = mayWorkLater(err) ? vscode.FileSystemError.Unavailable(text) : vscode.FileSystemError.NoPermissions(text);
	error.name = '';
	return error;
}

/** True when the service gave no answer or asked to come back later (unreachable, 502–504, 429): trying again may work. */
function mayWorkLater(err: unknown): boolean {
	return isUnreachable(err) || (err instanceof ApiError && err.isRetryable);
}

/** The range of `length` characters at `offset` of `text`. */
function rangeAt(text: string, offset: number, length: number): vscode.Range {
	const start = lineColumn(text, offset);
	const end = lineColumn(text, offset + length);
	return new vscode.Range(start.line - 1, start.column - 1, end.line - 1, end.column - 1);
}

/** A problem found before sending, as a diagnostic on its member (the document's start when it has none). */
function problemDiagnostic(text: string, p: DocumentProblem): vscode.Diagnostic {
	const found = p.field !== undefined ? locate(text, [p.field]) : undefined;
	const range = found ? rangeAt(text, found.span.offset, found.span.length) : rangeAt(text, p.at ?? 0, p.at !== undefined ? 1 : 0);
	const d = new vscode.Diagnostic(range, p.message, vscode.DiagnosticSeverity.Error);
	d.source = 'Cloud Agents';
	if (p.field !== undefined) {
		d.code = singleLine(p.field, SAFETY.labelMaxChars);
	}
	return d;
}

/** A field error of the service as a diagnostic on the member it names (the document's start when none matches). */
function fieldDiagnostic(text: string, f: FieldError): vscode.Diagnostic {
	const path = parseFieldPath(f.field);
	const found = path ? locate(text, path) : undefined;
	const range = rangeAt(text, found?.span.offset ?? 0, found?.span.length ?? 0);
	const message =
		found?.exact === false || !found
			? vscode.l10n.t('{0}: {1}', singleLine(f.field, SAFETY.labelMaxChars), plainText(f.message, SAFETY.notificationMaxChars))
			: plainText(f.message, SAFETY.notificationMaxChars);
	const d = new vscode.Diagnostic(range, message, vscode.DiagnosticSeverity.Error);
	d.source = 'Cloud Agents';
	d.code = singleLine(f.field, SAFETY.labelMaxChars);
	return d;
}

/** The window's provider documents: made on first use, owned by the extension context. */
let documents: ProviderDocuments | undefined;

/**
 * The window's model provider documents (the `cloud-agents-provider:` file system behind
 * activation's stand-in), made on the first call and owned by the extension context.
 */
export function modelProviderDocuments(services: DocumentServices): vscode.FileSystemProvider {
	return providerDocuments(services);
}

function providerDocuments(services: DocumentServices): ProviderDocuments {
	if (!documents || documents.isDisposed) {
		const { client, list, log, context } = services;
		documents = new ProviderDocuments({ client, list, log, context });
		context.subscriptions.push(documents);
	}
	return documents;
}

/** Reads the provider again and opens its configuration as a document to edit. */
async function editProvider(provider: ProviderInfo, kit: ActionKit): Promise<vscode.TextDocument> {
	const all = await readProviders(kit);
	const fresh = all.find((p) => p.id === provider.id) ?? provider;
	const doc = await providerDocuments(kit).open(fresh, all);
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
	return documents.save(doc, kit.automation);
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
