import * as vscode from 'vscode';
import { SAFETY, sleepUntilAborted } from '../api';
import type { Run } from '../api';
import { deploymentOfPart, isDeploymentIdShape, removedDeploymentMessage, shownNameOfPart, withDeploymentName } from '../auth/deployments';
import { RECORD_SCHEME } from '../ids';
import { type Registrations, directRegistrations } from '../util/registrations';
import { singleLine } from '../util/text';
import { Disposable } from '../util/lifecycle';

/** How long `showRecord` waits for an open document to take new content before showing it anyway. */
const CHANGE_TIMEOUT_MS = 3000;

/**
 * Read-only documents for server records (run results, runtime details, text artifacts) under the
 * `cloud-agents-record:` scheme. VS Code makes documents of a content provider read-only and never
 * asks to save them, unlike untitled documents.
 *
 * The content lives in memory, keyed by URI, only while its document is open: the entry goes when
 * VS Code closes the document (`onDidCloseTextDocument`). Showing a URI again with new content
 * fires `onDidChange`, so an open document shows the fresh record. Callers make server text safe
 * before showing it (src/util/text.ts: `plainText`, or `markdownText` for Markdown records, whose
 * link syntax is escaped so the preview shows no links at all).
 *
 * A record of a deployment other than the default one carries that deployment's part
 * (src/auth/deployments.ts `addressPart`) as its URI authority (`withDeploymentPart`), so the same run or
 * artifact id on two deployments is two documents; the default deployment's record URIs have no
 * authority, as before deployments existed. A record of a deployment no longer configured says so.
 * With two or more deployments configured, a record's tab names its deployment, the default one's
 * included (`namedRecordUri`: "Runtime web (Staging)", "notes (Staging).md"); with one, as before.
 *
 * One instance lives for the extension's lifetime; extension.ts creates it and hands it to the
 * commands that show records (`Services.records`).
 */
export class RecordDocuments extends Disposable implements vscode.TextDocumentContentProvider {
	private readonly contents = new Map<string, string>();
	private readonly changed = this.register(new vscode.EventEmitter<vscode.Uri>());
	readonly onDidChange = this.changed.event;

	/** @param registrations where the scheme is served from (the activation's stand-in in the extension) */
	constructor(registrations: Registrations = directRegistrations) {
		super();
		this.register(registrations.textDocuments(RECORD_SCHEME, this));
		this.register(
			vscode.workspace.onDidCloseTextDocument((doc) => {
				// A language change also "closes" and reopens the document; it stays in textDocuments then.
				if (doc.uri.scheme === RECORD_SCHEME && !isOpen(doc.uri)) {
					this.contents.delete(doc.uri.toString());
				}
			}),
		);
		this.register({ dispose: () => this.contents.clear() });
	}

	/**
	 * Signed out (issue 42, item 5: results and artifacts stayed on screen): every record of that
	 * deployment held goes (`deploymentPart`: undefined for the default deployment's); an open
	 * document then reads "no longer available", and its record tabs and the Markdown previews of
	 * its records close (none is ever dirty: the documents are read-only). Other deployments' stay.
	 */
	async forgetAll(deploymentPart?: string): Promise<void> {
		const ofDeployment = (uri: vscode.Uri): boolean => uri.authority === (deploymentPart ?? '');
		const held = [...this.contents.keys()].map((key) => vscode.Uri.parse(key, true)).filter(ofDeployment);
		for (const uri of held) {
			this.contents.delete(uri.toString());
		}
		for (const uri of held) {
			this.changed.fire(uri);
		}
		// The locked Markdown previews of records (results, Markdown artifacts): a webview tab named after its record.
		const names = new Set(held.map((uri) => uri.path.slice(uri.path.lastIndexOf('/') + 1)));
		const previews = vscode.window.tabGroups.all
			.flatMap((group) => group.tabs)
			.filter(
				(tab) =>
					tab.input instanceof vscode.TabInputWebview &&
					tab.input.viewType.includes('markdown.preview') &&
					[...names].some((name) => name !== '' && tab.label.endsWith(name)),
			);
		if (previews.length > 0) {
			await vscode.window.tabGroups.close(previews, true);
		}
		await closeTabsOf(RECORD_SCHEME, ofDeployment);
	}

	provideTextDocumentContent(uri: vscode.Uri): string {
		const held = this.contents.get(uri.toString());
		if (held !== undefined) {
			return held;
		}
		const part = deploymentPartOfRecord(uri);
		const named = part === undefined ? undefined : deploymentOfPart(part);
		return named !== undefined && 'removed' in named
			? removedDeploymentMessage(named.removed, 'record')
			: vscode.l10n.t('This record is no longer available. Run the command that opened it again to read it from the service.');
	}

	/**
	 * Holds `content` for `uri`, opens it as a read-only document and shows it in a preview editor.
	 * `language` applies when the URI's file extension gives none (VS Code detects plain text), or
	 * always with `options.forceLanguage` (a title such as "Result — bot: fix a.ts" has an
	 * "extension" by accident). `options.markdownPreview` shows a Markdown record rendered (the
	 * built-in Markdown preview) instead of as source, in a tab of its own that nothing else takes
	 * over (see `showMarkdownPreview`); the source stays one click away.
	 */
	async show(
		uri: vscode.Uri,
		content: string,
		language?: string,
		options: { forceLanguage?: boolean; markdownPreview?: boolean } = {},
	): Promise<vscode.TextDocument> {
		// Its tab says which deployment it is of when there are several (the title is the path's last segment).
		uri = namedRecordUri(uri, shownNameOfPart(deploymentPartOfRecord(uri)), !options.forceLanguage);
		const key = uri.toString();
		const previous = this.contents.get(key);
		this.contents.set(key, content);
		try {
			const open = findOpen(uri);
			if (open && previous !== content) {
				const updated = nextChange(uri, CHANGE_TIMEOUT_MS);
				this.changed.fire(uri);
				await updated;
			}
			let doc = await vscode.workspace.openTextDocument(uri);
			if (language && language !== doc.languageId && (doc.languageId === 'plaintext' || options.forceLanguage)) {
				doc = await vscode.languages.setTextDocumentLanguage(doc, language).then(
					(d) => d,
					() => doc,
				);
			}
			if (options.markdownPreview && doc.languageId === 'markdown' && (await showMarkdownPreview(uri))) {
				return doc;
			}
			// A record meant to be read rendered keeps its own tab as source too: the next record
			// opened in preview mode would otherwise replace it.
			await vscode.window.showTextDocument(doc, { preview: !options.markdownPreview });
			return doc;
		} catch (err) {
			if (!isOpen(uri)) {
				this.contents.delete(key);
			}
			throw err;
		}
	}
}

/**
 * Shows the built-in Markdown preview of `uri` (running the command activates that extension);
 * false when it is not there (disabled), so the caller shows the source instead.
 *
 * The preview is a locked one (`markdown.showPreview`'s third argument, what "Toggle Preview
 * Locking" sets): an unlocked preview follows the active Markdown editor, and the built-in
 * extension hands any further preview in the same column to it, so opening a Markdown artifact
 * after a run's result turned the result's tab into the artifact's and the result was gone. A
 * locked preview shows its record only; showing the same record again reveals its tab.
 */
async function showMarkdownPreview(uri: vscode.Uri): Promise<boolean> {
	const shown = nextPreviewTab(CHANGE_TIMEOUT_MS);
	try {
		await vscode.commands.executeCommand('markdown.showPreview', uri, undefined, { locked: true });
	} catch {
		shown.cancel();
		return false;
	}
	// The command may settle before the preview's tab exists: wait for it, so callers find it active.
	if (shown.isPreview()) {
		shown.cancel();
	}
	await shown.done;
	return true;
}

/** Settles when a Markdown preview tab is active, or after `timeoutMs`; `cancel` stops waiting. */
function nextPreviewTab(timeoutMs: number): { done: Promise<void>; cancel: () => void; isPreview: () => boolean } {
	const seen = new AbortController();
	const isPreview = (): boolean => {
		const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
		return input instanceof vscode.TabInputWebview && input.viewType.includes('markdown.preview');
	};
	const listener = vscode.window.tabGroups.onDidChangeTabs(() => {
		if (isPreview()) {
			seen.abort();
		}
	});
	const done = sleepUntilAborted(timeoutMs, seen.signal).finally(() => {
		listener.dispose();
	});
	return { done, cancel: () => seen.abort(), isPreview };
}

function findOpen(uri: vscode.Uri): vscode.TextDocument | undefined {
	const key = uri.toString();
	return vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
}

function isOpen(uri: vscode.Uri): boolean {
	return findOpen(uri) !== undefined;
}

/** Settles on the next content change of the open document `uri`, or after `timeoutMs`. */
function nextChange(uri: vscode.Uri, timeoutMs: number): Promise<void> {
	const key = uri.toString();
	const changed = new AbortController();
	const listener = vscode.workspace.onDidChangeTextDocument((e) => {
		if (e.document.uri.toString() === key && e.contentChanges.length > 0) {
			changed.abort();
		}
	});
	return sleepUntilAborted(timeoutMs, changed.signal).finally(() => {
		listener.dispose();
	});
}

/** A path segment that cannot leave its place in the URI path ("/", "\", "." and ".." replaced). */
function segment(part: string): string {
	// Server text (an artifact's name) becomes the editor's title: one line, neutralised, cut.
	const cleaned = singleLine(part, SAFETY.idMaxChars).replace(/[/\\]/g, '_');
	return cleaned === '' || cleaned === '.' || cleaned === '..' ? '_' : cleaned;
}

/** `cloud-agents-record:/<seg>/<seg>/…`; the last segment's file extension picks the language. */
export function recordUri(...parts: string[]): vscode.Uri {
	return vscode.Uri.from({ scheme: RECORD_SCHEME, path: `/${parts.map(segment).join('/')}` });
}

/**
 * A record URI whose editor tab names the thing: the path is only `title` (one segment, so the tab
 * and breadcrumbs show the title, not ids), and the query holds the record's identity (`key` parts),
 * so two records with the same title stay two documents. Server text in the title is neutralised and
 * cut like any segment; `/` and `\` cannot split it.
 */
export function titledRecordUri(title: string, ...key: string[]): vscode.Uri {
	return vscode.Uri.from({ scheme: RECORD_SCHEME, path: `/${segment(title)}`, query: key.map(segment).join('/') });
}

/**
 * The record URI `uri` as a record of the deployment whose addresses carry `deploymentPart`
 * (src/auth/deployments.ts `addressPart`): the part as its authority; `uri` itself for the default
 * deployment (undefined), so its records are what they were.
 */
export function withDeploymentPart(uri: vscode.Uri, deploymentPart: string | undefined): vscode.Uri {
	return deploymentPart === undefined ? uri : uri.with({ authority: deploymentPart });
}

/**
 * The record URI `uri` whose tab (its path's last segment) names the deployment `name` (undefined:
 * `uri` itself, with one deployment): "Runtime web (Staging)". With `keepExtension`, a last segment
 * that ends with a file extension keeps it last, so it still picks the language (an artifact
 * "notes.md" is "notes (Staging).md"); without it (a title whose "extension" is an accident, shown
 * with `forceLanguage`) the name goes at the end.
 */
export function namedRecordUri(uri: vscode.Uri, name: string | undefined, keepExtension = true): vscode.Uri {
	if (name === undefined) {
		return uri;
	}
	const at = uri.path.lastIndexOf('/') + 1;
	const last = uri.path.slice(at);
	const shown = name.replace(/[/\\]/g, '_');
	const ext = keepExtension ? /^(.+?)(\.[A-Za-z0-9_+-]{1,16})$/.exec(last) : null;
	const named = ext ? `${withDeploymentName(ext[1]!, shown)}${ext[2]!}` : withDeploymentName(last, shown);
	return uri.with({ path: `${uri.path.slice(0, at)}${named}` });
}

/** What an action shows records with: `show` (an action of another deployment's row gets `recordsIn`). */
export type RecordShower = Pick<RecordDocuments, 'show'>;

/**
 * The record documents as an action on a row of the deployment whose addresses carry
 * `deploymentPart` shows them: every URI it shows is put in that deployment (`withDeploymentPart`), so
 * the same run or artifact id of two deployments is two documents; the documents themselves for
 * the default deployment (undefined).
 */
export function recordsIn(records: RecordDocuments, deploymentPart: string | undefined): RecordShower {
	return deploymentPart === undefined
		? records
		: { show: (uri, ...rest) => records.show(withDeploymentPart(uri, deploymentPart), ...rest) };
}

/** The deployment part of a record URI (as VS Code spells it: lower case): undefined for the default deployment's (no authority). */
export function deploymentPartOfRecord(uri: vscode.Uri): string | undefined {
	return uri.scheme === RECORD_SCHEME && isDeploymentIdShape(uri.authority) ? uri.authority.toLowerCase() : undefined;
}

/** How much of the prompt a result's title shows. */
const RESULT_TITLE_PROMPT_CHARS = 40;

/** "Result — <agent>: <prompt…>": the title of a run's result (agent name, else id; prompt cut). */
export function runResultTitle(agentName: string | undefined, run: Pick<Run, 'id' | 'agent_id' | 'prompt'>): string {
	const agent = singleLine(agentName || run.agent_id || '', SAFETY.labelMaxChars / 2);
	const prompt = singleLine(run.prompt, RESULT_TITLE_PROMPT_CHARS) || run.id;
	return agent ? vscode.l10n.t('Result — {0}: {1}', agent, prompt) : vscode.l10n.t('Result — {0}', prompt);
}

/** The URI of a run's result record, titled by `runResultTitle`, of the deployment whose addresses carry `deploymentPart` (undefined: the default). */
export function runResultUri(
	agentId: string,
	agentName: string | undefined,
	run: Pick<Run, 'id' | 'agent_id' | 'prompt'>,
	deploymentPart?: string,
): vscode.Uri {
	return withDeploymentPart(titledRecordUri(runResultTitle(agentName, run), 'runs', agentId, run.id), deploymentPart);
}

/**
 * Closes every editor tab showing a document of `scheme` (a text or custom editor tab, a side of a
 * diff) that `which` takes (default: all), unless it has unsaved changes.
 */
export async function closeTabsOf(scheme: string, which: (uri: vscode.Uri) => boolean = () => true): Promise<void> {
	const uriOf = (input: unknown): vscode.Uri | undefined =>
		input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom
			? input.uri
			: input instanceof vscode.TabInputTextDiff
				? input.modified.scheme === scheme
					? input.modified
					: input.original
				: undefined;
	const tabs = vscode.window.tabGroups.all
		.flatMap((group) => group.tabs)
		.filter((tab) => {
			const uri = uriOf(tab.input);
			return !tab.isDirty && uri?.scheme === scheme && which(uri);
		});
	if (tabs.length > 0) {
		await vscode.window.tabGroups.close(tabs, true);
	}
}
