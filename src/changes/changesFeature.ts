/**
 * What an agent changed, in Source Control (issue 21): "Compare with Local Folder…" links an
 * agent's workspace folder to a local folder; each link is a source control (src/changes/linkSource.ts)
 * whose files open as diffs (local ↔ agent) and can be applied to the local folder (a WorkspaceEdit:
 * Undo works, open editors follow) or sent to the agent (refused when the agent's copy changed since
 * it was listed). Links refresh when a followed run of their agent ends or names a changed file, when
 * one of the agent's files is saved through `cloud-agent:`, and on demand. Nothing is written locally
 * without the user's action, and every local write is checked to stay inside the linked folder.
 */
import * as vscode from 'vscode';
import type { Agent, CloudAgentsClient } from '../api';
import { eventFileChange, eventStatus, isTerminalRunStatus } from '../api';
import { DEFAULT_COMPARE_LIMITS } from '../compare/engine';
import { agentPathOf, assertSafeLocalWrite, localPathOf } from '../compare/paths';
import { AgentChangedError, sendToAgent } from '../compare/send';
import type { CompareResult, Difference } from '../compare/types';
import { agentIdOf, parseWorkspaceUri } from '../fs/workspaceFs';
import { FS_SCHEME } from '../ids';
import { Disposable } from '../util/lifecycle';
import { notificationText, singleLine } from '../util/text';
import { argString, argValue, isAutomation, pickItem, pickWhenLoaded, showInfo, showModalWarning, showWarning } from '../views/ui';
import { commandRegistrar, type CommandLogger } from '../views/registry';
import type { UnauthorizedHandler } from '../util/errors';
import { type AgentLink, LinkStore } from './linkStore';
import { type ChangeState, EMPTY_SCHEME, LinkSource, SCM_ID } from './linkSource';

/** What the feature needs from the extension. */
export interface ChangesDeps {
	session: { readonly client: CloudAgentsClient; readonly signedIn: boolean; readonly onDidChange: vscode.Event<void> };
	log: vscode.LogOutputChannel & CommandLogger;
	context: vscode.ExtensionContext;
	/** Events of followed runs (RunFollower.onDidReceiveEvent). */
	runEvents: vscode.Event<{ agentId: string; runId: string; event: Parameters<typeof eventFileChange>[0] }>;
	/** Tells the `cloud-agent:` file system that the agent's copy of a file changed (a send). */
	agentFileChanged(this: void, agentId: string, path: string, change: 'created' | 'modified' | 'deleted'): void;
	onUnauthorized?: UnauthorizedHandler;
}

/** What a comparison command returns (for automation and tests). */
export interface ComparisonAnswer {
	link: string;
	differences: Difference[];
	stats: CompareResult['stats'] | undefined;
	incomplete: string | undefined;
	/** Why the comparison failed (automation callers only: a person sees the error). */
	error?: string;
}

/** A difference together with the link it belongs to. */
interface Item {
	source: LinkSource;
	d: Difference;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The links, their source controls, decorations and commands. */
export class ChangesFeature extends Disposable {
	private readonly store: LinkStore;
	private readonly sources = new Map<string, LinkSource>();
	private readonly _onDidChangeFileDecorations = this.register(new vscode.EventEmitter<vscode.Uri[]>());

	constructor(private readonly deps: ChangesDeps) {
		super();
		this.store = this.register(
			new LinkStore(
				deps.context.globalState,
				vscode.Uri.joinPath(deps.context.globalStorageUri, 'links'),
				DEFAULT_COMPARE_LIMITS.maxFiles,
			),
		);
		this.register(vscode.workspace.registerTextDocumentContentProvider(EMPTY_SCHEME, { provideTextDocumentContent: () => '' }));
		this.register(
			vscode.window.registerFileDecorationProvider({
				onDidChangeFileDecorations: this._onDidChangeFileDecorations.event,
				provideFileDecoration: (uri) => {
					for (const s of this.sources.values()) {
						const d = s.decorationOf(uri);
						if (d) {
							return d;
						}
					}
					return undefined;
				},
			}),
		);
		// Links kept from an earlier window compare again once signed in (the groups are not stored).
		for (const link of this.store.all()) {
			const source = this.open(link);
			if (deps.session.signedIn) {
				source.refreshSoon(1_000);
			}
		}
		let signedIn = deps.session.signedIn;
		this.register(
			deps.session.onDidChange(() => {
				if (deps.session.signedIn && !signedIn) {
					for (const s of this.sources.values()) {
						s.refreshSoon(1_000);
					}
				}
				signedIn = deps.session.signedIn;
			}),
		);
		this.register(deps.runEvents((e) => this.onRunEvent(e.agentId, e.event)));
		this.register(
			vscode.workspace.onDidSaveTextDocument((doc) => {
				if (doc.uri.scheme !== FS_SCHEME) {
					return;
				}
				const agentId = agentIdOf(doc.uri);
				for (const s of this.sources.values()) {
					if (s.link.agentId === agentId && isBelow(parseWorkspaceUri(doc.uri).path, s.link.agentFolder)) {
						s.refreshSoon(500);
					}
				}
			}),
		);
		const command = commandRegistrar(deps.log, { onUnauthorized: deps.onUnauthorized });
		this.register(
			command('cloudAgents.changes.compareWithLocal', (arg?: unknown) => this.answered(arg, () => this.compareWithLocal(arg))),
		);
		this.register(command('cloudAgents.changes.unlink', (arg?: unknown) => this.unlink(arg)));
		this.register(command('cloudAgents.changes.refresh', (arg?: unknown) => this.answered(arg, () => this.refresh(arg, 'refresh'))));
		this.register(
			command('cloudAgents.changes.compareEverything', (arg?: unknown) => this.answered(arg, () => this.refresh(arg, 'everything'))),
		);
		this.register(command('cloudAgents.changes.openAllChanges', (arg?: unknown) => this.openAll(arg)));
		this.register(command('cloudAgents.changes.applyToLocal', (...args: unknown[]) => this.apply(this.itemsOf(args), args[0])));
		this.register(command('cloudAgents.changes.applyAllToLocal', (arg?: unknown) => this.apply(this.allItemsOf(arg), arg)));
		this.register(command('cloudAgents.changes.sendToAgent', (...args: unknown[]) => this.send(this.itemsOf(args), args[0])));
		this.register(command('cloudAgents.changes.sendAllToAgent', (arg?: unknown) => this.send(this.allItemsOf(arg), arg)));
		this.register(command('cloudAgents.changes.openChanges', (...args: unknown[]) => this.openChanges(this.itemsOf(args))));
		this.register(command('cloudAgents.changes.openAgentVersion', (...args: unknown[]) => this.openSide(this.itemsOf(args), 'agent')));
		this.register(command('cloudAgents.changes.openLocalFile', (...args: unknown[]) => this.openSide(this.itemsOf(args), 'local')));
		this.register({ dispose: () => [...this.sources.values()].forEach((s) => s.dispose()) });
	}

	/**
	 * A comparison for an automation caller answers its failure as `error` (and logs it) instead of
	 * rejecting; a person's failure is shown by the command registry, with the request id.
	 */
	private async answered(arg: unknown, work: () => Promise<ComparisonAnswer | undefined>): Promise<ComparisonAnswer | undefined> {
		try {
			return await work();
		} catch (err) {
			if (!isAutomation(arg) || isAgentRow(arg) || (err instanceof Error && err.name === 'AbortError')) {
				throw err;
			}
			const error = notificationText(err instanceof Error ? err.message : String(err));
			this.deps.log.warn(`Comparison failed: ${error}`);
			return { link: argString(arg, 'link') ?? '', differences: [], stats: undefined, incomplete: undefined, error };
		}
	}

	/** The link sources (tests). */
	links(): LinkSource[] {
		return [...this.sources.values()];
	}

	private open(link: AgentLink): LinkSource {
		this.sources.get(link.id)?.dispose();
		const source = new LinkSource(link, {
			client: () => this.deps.session.client,
			store: this.store,
			log: this.deps.log,
			decorationsChanged: (uris) => this._onDidChangeFileDecorations.fire(uris),
			exclude: (folder) => excludeGlobs(folder),
			agentFileChanged: this.deps.agentFileChanged,
		});
		this.sources.set(link.id, source);
		return source;
	}

	private onRunEvent(agentId: string, event: Parameters<typeof eventFileChange>[0]): void {
		const change = eventFileChange(event);
		const status = eventStatus(event);
		const ended = (status !== undefined && isTerminalRunStatus(status)) || event.type === 'run.completed';
		if (!change && !ended) {
			return;
		}
		for (const s of this.sources.values()) {
			if (s.link.agentId === agentId && (ended || (change && isBelow(change.path, s.link.agentFolder)))) {
				// A file event is a hint to look sooner; the comparison decides what changed.
				s.refreshSoon(ended ? 300 : 2_000);
			}
		}
	}

	// ------------------------------------------------------------------ link

	/**
	 * "Compare with Local Folder…": the agent (a row, a `cloud-agent:` folder, `{agentId}`, or a pick),
	 * its folder (the folder given, or the root or a top-level folder picked), the local folder (the
	 * workspace folder whose name matches, else the first, else a dialog; automation: `localFolder`).
	 */
	private async compareWithLocal(arg: unknown): Promise<ComparisonAnswer | undefined> {
		let agentId: string | undefined;
		let agentName: string | undefined;
		let agentFolder: string | undefined;
		if (arg instanceof vscode.Uri && arg.scheme === FS_SCHEME) {
			const parsed = parseWorkspaceUri(arg);
			agentId = parsed.agentId;
			agentFolder = parsed.path;
			agentName = (vscode.workspace.workspaceFolders ?? []).find((f) => agentIdOf(f.uri) === agentId)?.name;
		} else if (isAgentRow(arg)) {
			agentId = arg.agent.id;
			agentName = arg.agent.name;
		} else if (isAutomation(arg)) {
			agentId = argString(arg, 'agentId');
			agentName = argString(arg, 'agentName');
			agentFolder = argString(arg, 'agentFolder');
		}
		const automation = isAutomation(arg) && !isAgentRow(arg);
		if (agentId === undefined) {
			const agent = await this.pickAgent();
			if (!agent) {
				return undefined;
			}
			agentId = agent.id;
			agentName = agent.name;
		}
		agentName ??= agentId;
		if (agentFolder === undefined) {
			agentFolder = automation ? '' : await this.pickAgentFolder(agentId, agentName);
			if (agentFolder === undefined) {
				return undefined;
			}
		}
		agentFolder = agentFolder.replace(/^\/+|\/+$/g, '');
		const localArg = argString(arg, 'localFolder');
		const local = localArg !== undefined ? vscode.Uri.file(localArg) : await this.pickLocalFolder(agentFolder || agentName);
		if (!local) {
			return undefined;
		}
		const existed = this.store
			.all()
			.some((l) => l.agentId === agentId && l.agentFolder === agentFolder && l.localFolder === local.toString());
		const link = await this.store.add({ agentId, agentName, agentFolder, localFolder: local.toString() });
		const source = this.open(link);
		let result: CompareResult | undefined;
		try {
			result = automation
				? await source.refresh('link')
				: await progress(vscode.l10n.t('Comparing {0}…', source.label()), (signal, report) =>
						source.refresh('link', { signal, report }),
					);
		} catch (err) {
			// A new link whose first comparison failed (or was cancelled) is not kept: nothing half-compared.
			if (!existed) {
				this.sources.delete(link.id);
				source.dispose();
				await this.store.remove(link.id);
			}
			throw err;
		}
		if (!automation) {
			void vscode.commands.executeCommand('workbench.view.scm');
		}
		return answer(source, result);
	}

	private async pickAgent(): Promise<Pick<Agent, 'id' | 'name'> | undefined> {
		const client = this.deps.session.client;
		const items = async (): Promise<Array<vscode.QuickPickItem & { agent: Agent }>> => {
			const out: Array<vscode.QuickPickItem & { agent: Agent }> = [];
			for await (const agent of client.iterateAgents({ limit: 100 })) {
				out.push(pickItem({ label: agent.name, description: agent.status, detail: agent.id }, { agent }));
			}
			return out;
		};
		const picked = await pickWhenLoaded(items, {
			title: vscode.l10n.t('Compare with Local Folder'),
			placeHolder: vscode.l10n.t('Which agent?'),
		});
		return picked?.agent;
	}

	/** The agent-side folder: the workspace root or one of its top-level folders. */
	private async pickAgentFolder(agentId: string, agentName: string): Promise<string | undefined> {
		const client = this.deps.session.client;
		const root: vscode.QuickPickItem & { folder: string } = {
			label: vscode.l10n.t('$(root-folder) Workspace root'),
			description: singleLine(agentName, 80),
			folder: '',
		};
		const items = async (): Promise<Array<vscode.QuickPickItem & { folder: string }>> => {
			const out = [root];
			let n = 0;
			for await (const entry of client.iterateWorkspace(agentId, '', { limit: 500 })) {
				if (++n > 2_000) {
					break;
				}
				if (entry.type === 'directory' && /^[^/\\\0]+$/.test(entry.name) && entry.name !== '.' && entry.name !== '..') {
					out.push(pickItem({ label: entry.name, description: vscode.l10n.t('folder') }, { folder: entry.name }));
				}
			}
			return out;
		};
		const picked = await pickWhenLoaded(items, {
			title: vscode.l10n.t('Compare with Local Folder'),
			placeHolder: vscode.l10n.t('Which folder of the agent workspace?'),
		});
		return picked?.folder;
	}

	/** The local folder: a workspace folder (the one whose name matches first) or one chosen in a dialog. */
	private async pickLocalFolder(name: string): Promise<vscode.Uri | undefined> {
		const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
		const wanted = name.split('/').pop()?.toLowerCase() ?? '';
		const sorted = [...folders].sort((a, b) => Number(b.name.toLowerCase() === wanted) - Number(a.name.toLowerCase() === wanted));
		const browse: vscode.QuickPickItem & { uri?: vscode.Uri } = { label: vscode.l10n.t('$(folder-opened) Choose a Folder…') };
		let chosen: vscode.Uri | undefined;
		if (sorted.length > 0) {
			const picked = await vscode.window.showQuickPick(
				[
					...sorted.map((f): vscode.QuickPickItem & { uri?: vscode.Uri } => ({
						label: f.name,
						description: f.uri.fsPath,
						uri: f.uri,
					})),
					browse,
				],
				{ title: vscode.l10n.t('Compare with Local Folder'), placeHolder: vscode.l10n.t('Which local folder?') },
			);
			if (!picked) {
				return undefined;
			}
			chosen = picked.uri;
		}
		if (!chosen) {
			const uris = await vscode.window.showOpenDialog({
				canSelectFiles: false,
				canSelectFolders: true,
				canSelectMany: false,
				openLabel: vscode.l10n.t('Compare'),
			});
			chosen = uris?.[0];
		}
		return chosen;
	}

	// ------------------------------------------------------------------ link commands

	/** The link a command acts on: its source control (scm/title), `{link}`, a resource of it, or a pick. */
	private async sourceOf(arg: unknown, placeHolder: string): Promise<LinkSource | undefined> {
		const byScm = [...this.sources.values()].find((s) => s.scm === arg || s.agentGroup === arg || s.otherGroup === arg);
		if (byScm) {
			return byScm;
		}
		const id = argString(arg, 'link');
		if (id !== undefined) {
			const s = this.sources.get(id);
			if (!s) {
				throw new Error(vscode.l10n.t('No link {0}.', id));
			}
			return s;
		}
		const first = this.itemsOf([arg])[0];
		if (first) {
			return first.source;
		}
		const all = [...this.sources.values()];
		if (all.length <= 1) {
			if (all.length === 0) {
				void showInfo(vscode.l10n.t('No agent is linked to a local folder. Use "Compare with Local Folder…" on an agent.'));
			}
			return all[0];
		}
		const picked = await vscode.window.showQuickPick(
			all.map((s) => ({ label: s.label(), description: s.localRoot.fsPath, source: s })),
			{ placeHolder },
		);
		return picked?.source;
	}

	private async unlink(arg: unknown): Promise<boolean> {
		const source = await this.sourceOf(arg, vscode.l10n.t('Unlink which folder?'));
		if (!source) {
			return false;
		}
		this.sources.delete(source.link.id);
		source.dispose();
		await this.store.remove(source.link.id);
		return true;
	}

	private async refresh(arg: unknown, mode: 'refresh' | 'everything'): Promise<ComparisonAnswer | undefined> {
		const source = await this.sourceOf(arg, vscode.l10n.t('Compare which link?'));
		if (!source) {
			return undefined;
		}
		const result =
			isAutomation(arg) || mode === 'refresh'
				? await source.refresh(mode)
				: await progress(vscode.l10n.t('Comparing everything in {0}…', source.label()), (signal, report) =>
						source.refresh(mode, { signal, report }),
					);
		if (source.incomplete && !isAutomation(arg)) {
			void showWarning(source.incomplete);
		}
		return answer(source, result);
	}

	private async openAll(arg: unknown): Promise<void> {
		const source = await this.sourceOf(arg, vscode.l10n.t('Open the changes of which link?'));
		if (!source) {
			return;
		}
		const all = source.all();
		if (all.length === 0) {
			void showInfo(vscode.l10n.t('{0}: no differences.', source.label()));
			return;
		}
		const resources = all.map((d) => {
			const diff = source.diffOf(d);
			return [source.localUriOf(d.path), diff.left, diff.right];
		});
		await vscode.commands.executeCommand('vscode.changes', vscode.l10n.t('Changes: {0}', source.label()), resources);
	}

	// ------------------------------------------------------------------ resources

	/** The differences of command arguments: resource states (clicked, selection), a group, `{link, paths}`. */
	private itemsOf(args: readonly unknown[]): Item[] {
		const out: Item[] = [];
		const seen = new Set<string>();
		const add = (source: LinkSource, d: Difference): void => {
			const key = `${source.link.id}\n${d.path}`;
			if (!seen.has(key)) {
				seen.add(key);
				out.push({ source, d });
			}
		};
		const visit = (arg: unknown, depth: number): void => {
			if (Array.isArray(arg) && depth === 0) {
				arg.slice(0, 10_000).forEach((a) => visit(a, 1));
				return;
			}
			for (const s of this.sources.values()) {
				if (arg === s.agentGroup || arg === s.otherGroup) {
					for (const st of (arg as vscode.SourceControlResourceGroup).resourceStates) {
						const d = s.differenceOf(st.resourceUri);
						if (d) {
							add(s, d);
						}
					}
					return;
				}
			}
			const uri =
				arg instanceof vscode.Uri
					? arg
					: arg !== null && typeof arg === 'object' && (arg as ChangeState).resourceUri instanceof vscode.Uri
						? (arg as ChangeState).resourceUri
						: undefined;
			if (uri) {
				for (const s of this.sources.values()) {
					const d = s.differenceOf(uri);
					if (d) {
						add(s, d);
					}
				}
				return;
			}
			const linkId = argString(arg, 'link');
			const paths = argValue(arg, 'paths');
			const source = linkId === undefined ? undefined : this.sources.get(linkId);
			if (source && Array.isArray(paths)) {
				const byPath = new Map(source.all().map((d) => [d.path, d]));
				for (const p of paths) {
					const d = typeof p === 'string' ? byPath.get(p) : undefined;
					if (d) {
						add(source, d);
					}
				}
			}
		};
		for (const a of args) {
			visit(a, 0);
		}
		return out;
	}

	/** Every difference of a link (its source control, `{link}`, or a pick). */
	private async allItemsOf(arg: unknown): Promise<Item[]> {
		const source = await this.sourceOf(arg, vscode.l10n.t('Which link?'));
		return source ? source.all().map((d) => ({ source, d })) : [];
	}

	/** "Open Changes" (a click on a file): the diff local ↔ agent, titled "‹file› (local ↔ ‹agent›)". */
	private async openChanges(items: Item[]): Promise<void> {
		for (const { source, d } of items.slice(0, 20)) {
			const diff = source.diffOf(d);
			await vscode.commands.executeCommand('vscode.diff', diff.left, diff.right, diff.title);
		}
	}

	private async openSide(items: Item[], side: 'agent' | 'local'): Promise<void> {
		for (const { source, d } of items.slice(0, 20)) {
			if (side === 'agent' ? d.kind === 'deleted' : d.kind === 'added') {
				void showInfo(
					side === 'agent'
						? vscode.l10n.t('{0} is not in the agent workspace.', d.path)
						: vscode.l10n.t('{0} is not in the local folder.', d.path),
				);
				continue;
			}
			await vscode.commands.executeCommand('vscode.open', side === 'agent' ? source.agentUriOf(d.path) : source.localUriOf(d.path));
		}
	}

	// ------------------------------------------------------------------ apply

	/**
	 * "Apply to Local": the agent's version into the local folder, one WorkspaceEdit per file (text
	 * files as an edit of their document, so Undo in its editor restores it; other files and new
	 * ones as file operations); a file the agent deleted is deleted locally. Asks first when a local
	 * file would be deleted or has unsaved changes (automation: `{confirm: false}`). Returns the
	 * paths applied.
	 */
	private async apply(itemsOrPromise: Item[] | Promise<Item[]>, arg: unknown): Promise<string[]> {
		const items = await itemsOrPromise;
		if (items.length === 0) {
			void showInfo(vscode.l10n.t('Nothing to apply: select files in a linked folder of Source Control.'));
			return [];
		}
		const deletions = items.filter((i) => i.d.kind === 'deleted');
		const dirty = items.filter((i) => openDocument(i.source.localUriOf(i.d.path))?.isDirty);
		if ((deletions.length > 0 || dirty.length > 0) && argValue(arg, 'confirm') !== false) {
			const lines = [
				deletions.length > 0
					? vscode.l10n.t('Deletes {0} in the local folder (the agent deleted them).', listOf(deletions.map((i) => i.d.path)))
					: undefined,
				dirty.length > 0 ? vscode.l10n.t('Replaces the unsaved changes of {0}.', listOf(dirty.map((i) => i.d.path))) : undefined,
			].filter((l): l is string => l !== undefined);
			const action = vscode.l10n.t('Apply to Local');
			const ok = await showModalWarning(
				vscode.l10n.t("Apply the agent's version of {0}?", countFiles(items.length)),
				lines.join('\n'),
				action,
			);
			if (ok !== action) {
				return [];
			}
		}
		const applied: string[] = [];
		const failures: string[] = [];
		await progress(vscode.l10n.t("Applying the agent's changes…"), async (signal, report) => {
			const bySource = new Map<LinkSource, { paths: string[] }>();
			for (const [n, { source, d }] of items.entries()) {
				signal.throwIfAborted();
				report(`${n + 1}/${items.length} ${d.path}`);
				try {
					await this.applyOne(source, d, signal);
					const entry = bySource.get(source) ?? { paths: [] as string[] };
					entry.paths.push(d.path);
					bySource.set(source, entry);
					applied.push(d.path);
				} catch (err) {
					if (signal.aborted) {
						throw err;
					}
					this.deps.log.warn(`Applying ${d.path} failed:`, err instanceof Error ? err : String(err));
					failures.push(`${d.path}: ${err instanceof Error ? err.message : String(err)}`);
				}
			}
			for (const [source, { paths }] of bySource) {
				source.settled(paths);
			}
		});
		if (failures.length > 0) {
			const message = vscode.l10n.t('{0} could not be applied: {1}', countFiles(failures.length), failures.slice(0, 5).join('; '));
			if (isAutomation(arg)) {
				this.deps.log.warn(message);
			} else {
				void showWarning(message);
			}
		}
		return applied;
	}

	private async applyOne(source: LinkSource, d: Difference, signal: AbortSignal): Promise<void> {
		const uri = vscode.Uri.file(await assertSafeLocalWrite(source.localRoot.fsPath, d.path));
		const edit = new vscode.WorkspaceEdit();
		const metadata = { label: vscode.l10n.t("Apply the agent's {0}", d.path), needsConfirmation: false };
		if (d.kind === 'deleted') {
			edit.deleteFile(uri, { ignoreIfNotExists: true }, metadata);
			await applyEdit(edit, d.path);
			return;
		}
		const file = await this.deps.session.client.readWorkspaceFileAll(
			source.link.agentId,
			agentPathOf(source.link.agentFolder, d.path),
			{ signal },
		);
		const bytes = file.content;
		const text = asText(bytes);
		const open = openDocument(uri);
		if (text !== undefined && (open !== undefined || d.kind === 'modified')) {
			const doc = open ?? (await vscode.workspace.openTextDocument(uri));
			const full = new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length));
			const eol = text.eol ?? doc.eol;
			edit.set(uri, [
				[vscode.TextEdit.replace(full, text.text), metadata],
				[vscode.TextEdit.setEndOfLine(eol), metadata],
			]);
			await applyEdit(edit, d.path);
			if (!(await doc.save())) {
				throw new Error(vscode.l10n.t('{0} could not be saved.', d.path));
			}
			if (await sameBytes(uri, bytes)) {
				return;
			}
			// A save participant (format on save, trimmed whitespace) changed it: the agent's bytes as they are.
		}
		const overwrite = new vscode.WorkspaceEdit();
		overwrite.createFile(uri, { overwrite: true, contents: bytes }, metadata);
		await applyEdit(overwrite, d.path);
	}

	// ------------------------------------------------------------------ send

	/**
	 * "Send to Agent": the local version into the agent's workspace (a file only the agent has is
	 * deleted there, after a question). Refused per file when the agent's copy changed since it was
	 * listed (a conflict, reported; nothing written for it). Returns what was sent and what conflicted.
	 */
	private async send(itemsOrPromise: Item[] | Promise<Item[]>, arg: unknown): Promise<{ sent: string[]; conflicts: string[] }> {
		const items = await itemsOrPromise;
		if (items.length === 0) {
			void showInfo(vscode.l10n.t('Nothing to send: select files in a linked folder of Source Control.'));
			return { sent: [], conflicts: [] };
		}
		const removals = items.filter((i) => i.d.kind === 'added');
		const dirty = items.filter((i) => openDocument(i.source.localUriOf(i.d.path))?.isDirty);
		if ((removals.length > 0 || dirty.length > 0) && argValue(arg, 'confirm') !== false) {
			const lines = [
				removals.length > 0
					? vscode.l10n.t(
							'Deletes {0} in the agent workspace (the local folder does not have them).',
							listOf(removals.map((i) => i.d.path)),
						)
					: undefined,
				dirty.length > 0
					? vscode.l10n.t('Sends the saved version of {0} (its unsaved changes stay here).', listOf(dirty.map((i) => i.d.path)))
					: undefined,
			].filter((l): l is string => l !== undefined);
			const action = vscode.l10n.t('Send to Agent');
			const ok = await showModalWarning(
				vscode.l10n.t('Send the local version of {0} to the agent?', countFiles(items.length)),
				lines.join('\n'),
				action,
			);
			if (ok !== action) {
				return { sent: [], conflicts: [] };
			}
		}
		const sent: string[] = [];
		const conflicts: string[] = [];
		const fs = await import('node:fs/promises');
		const { createHash } = await import('node:crypto');
		await progress(vscode.l10n.t('Sending to the agent…'), async (signal, report) => {
			type Facts = { size: number; mtime: number; sha256?: string } | undefined;
			const bySource = new Map<LinkSource, { paths: string[]; facts: Map<string, Facts> }>();
			for (const [n, { source, d }] of items.entries()) {
				signal.throwIfAborted();
				report(`${n + 1}/${items.length} ${d.path}`);
				const agentPath = agentPathOf(source.link.agentFolder, d.path);
				let content: Uint8Array | undefined;
				if (d.kind !== 'added') {
					const abs = localPathOf(source.localRoot.fsPath, d.path);
					const st = await fs.lstat(abs);
					if (!st.isFile()) {
						throw new Error(vscode.l10n.t('{0} is not a regular file here.', d.path));
					}
					content = new Uint8Array(await fs.readFile(abs));
				}
				try {
					const facts = await sendToAgent(this.deps.session.client, source.link.agentId, agentPath, content, d.agent, signal);
					const entry = bySource.get(source) ?? { paths: [] as string[], facts: new Map<string, Facts>() };
					entry.paths.push(d.path);
					entry.facts.set(
						d.path,
						facts && content ? { ...facts, sha256: createHash('sha256').update(content).digest('hex') } : facts,
					);
					bySource.set(source, entry);
					sent.push(d.path);
					this.deps.agentFileChanged(
						source.link.agentId,
						agentPath,
						content === undefined ? 'deleted' : d.agent ? 'modified' : 'created',
					);
				} catch (err) {
					if (err instanceof AgentChangedError) {
						conflicts.push(d.path);
						continue;
					}
					throw err;
				}
			}
			for (const [source, { paths, facts }] of bySource) {
				source.settled(paths, facts);
			}
		});
		if (conflicts.length > 0) {
			const message = vscode.l10n.t(
				'{0} changed in the agent workspace since it was listed, so nothing was sent for it: {1}. Open the diff again to see its version, then send again to overwrite it.',
				countFiles(conflicts.length),
				listOf(conflicts),
			);
			if (!isAutomation(arg)) {
				void showWarning(message);
			}
			for (const s of new Set(items.filter((i) => conflicts.includes(i.d.path)).map((i) => i.source))) {
				s.refreshSoon(0);
			}
		}
		return { sent, conflicts };
	}
}

// ---------------------------------------------------------------------- helpers

function isAgentRow(arg: unknown): arg is { agent: Pick<Agent, 'id' | 'name'> } {
	if (arg === null || typeof arg !== 'object' || !('agent' in arg)) {
		return false;
	}
	const agent = arg.agent;
	return agent !== null && typeof agent === 'object' && typeof (agent as { id?: unknown }).id === 'string';
}

function isBelow(path: string, folder: string): boolean {
	const p = path.replace(/^\/+/, '');
	return folder === '' || p === folder || p.startsWith(`${folder}/`);
}

/** `files.exclude` globs set to true for a folder. */
function excludeGlobs(folder: vscode.Uri): string[] {
	const exclude = vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude') ?? {};
	return Object.entries(exclude)
		.filter(([, v]) => v === true)
		.map(([k]) => k)
		.slice(0, 500);
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
	const key = uri.toString();
	return vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === key);
}

/** UTF-8 text without a BOM whose line ends are all of one kind (else undefined: applied as bytes). */
function asText(bytes: Uint8Array): { text: string; eol: vscode.EndOfLine | undefined } | undefined {
	if (bytes.length > 8 * 1024 * 1024 || (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) || bytes.includes(0)) {
		return undefined;
	}
	let text: string;
	try {
		text = utf8.decode(bytes);
	} catch {
		return undefined;
	}
	const crlf = (text.match(/\r\n/g) ?? []).length;
	const cr = (text.match(/\r/g) ?? []).length;
	const lf = (text.match(/\n/g) ?? []).length;
	if (cr !== crlf || (crlf > 0 && crlf !== lf)) {
		return undefined;
	}
	return { text, eol: crlf > 0 ? vscode.EndOfLine.CRLF : lf > 0 ? vscode.EndOfLine.LF : undefined };
}

async function sameBytes(uri: vscode.Uri, bytes: Uint8Array): Promise<boolean> {
	const disk = await vscode.workspace.fs.readFile(uri);
	return disk.byteLength === bytes.byteLength && Buffer.from(disk).equals(Buffer.from(bytes));
}

async function applyEdit(edit: vscode.WorkspaceEdit, path: string): Promise<void> {
	if (!(await vscode.workspace.applyEdit(edit))) {
		throw new Error(vscode.l10n.t('VS Code did not apply the change to {0}.', path));
	}
}

function countFiles(n: number): string {
	return n === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', n);
}

function listOf(paths: readonly string[]): string {
	const shown = paths.slice(0, 5).join(', ');
	return paths.length > 5 ? vscode.l10n.t('{0} and {1} more', shown, paths.length - 5) : shown;
}

function answer(source: LinkSource, result: CompareResult | undefined): ComparisonAnswer {
	return { link: source.link.id, differences: source.all(), stats: result?.stats ?? source.lastStats, incomplete: source.incomplete };
}

/** Work under a cancellable progress notification, with an AbortSignal. */
async function progress<R>(title: string, work: (signal: AbortSignal, report: (message: string) => void) => Promise<R>): Promise<R> {
	return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (p, token) => {
		const controller = new AbortController();
		const sub = token.onCancellationRequested(() => controller.abort());
		try {
			return await work(controller.signal, (message) => p.report({ message: notificationText(message, 200) }));
		} finally {
			sub.dispose();
		}
	});
}

export { SCM_ID };
