/**
 * One link in Source Control: a `SourceControl` labelled "‹agent› ↔ ‹local folder›" with the groups
 * "Changed by the agent" and "Other differences", kept by comparisons (src/compare/engine.ts) that
 * never run two at once, and re-checked file by file when a local file in a group changes.
 */
import * as vscode from 'vscode';
import { type CloudAgentsClient, SAFETY } from '../api';
import { compareFolders } from '../compare/engine';
import { IgnoreRules } from '../compare/ignore';
import { hashAgentFile } from '../compare/agentHash';
import type { LocalFiles } from '../compare/localFiles';
import { agentPathOf, checkRelativePath } from '../util/paths';
import type { Baseline, CompareMode, CompareResult, Difference } from '../compare/types';
import { workspaceUri } from '../workspace/fs/workspaceFs';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import type { Connectivity, Participant } from '../views/connectivity';
import type { AgentLink, LinkStore } from './linkStore';
import { EMPTY_SCHEME } from '../ids';

/**
 * What every link's source control id starts with (menus match `scmProvider =~ /^cloudAgents\.changes\./`).
 * Each link has its own id: VS Code registers a command per source control id for its quick diff.
 */
export const SCM_ID = 'cloudAgents.changes';

/** A row of ours (a resource state): a file that differs, named by its local URI. */
export type ChangeState = vscode.SourceControlResourceState;

/** What a link's source control needs from the feature. */
export interface LinkSourceDeps {
	/** The client of the link's deployment; throws, saying why, when that deployment is no longer configured. */
	client(this: void): CloudAgentsClient;
	/**
	 * Why the link cannot be compared without asking anything (its deployment is no longer
	 * configured), or undefined. Absent: it always can.
	 */
	unavailable?(this: void): string | undefined;
	/** The name of the link's deployment when two or more are configured (its label names it), else undefined. */
	deploymentName?(this: void): string | undefined;
	store: LinkStore;
	log: vscode.LogOutputChannel;
	/** Tells the decorations that these local files changed state. */
	decorationsChanged(this: void, uris: vscode.Uri[]): void;
	/** The local folder as this extension host reaches it (the platform's: src/platform/types.ts); undefined: it cannot. */
	localFiles: LocalFiles | undefined;
	/** The `files.exclude` globs (value true) for the local folder. */
	exclude(this: void, folder: vscode.Uri): string[];
	/** Tells the `cloud-agent:` file system that the agent's copy of a file changed (what a comparison found). */
	agentFileChanged(this: void, agentId: string, path: string, change: 'created' | 'modified' | 'deleted', deploymentPart?: string): void;
	/**
	 * The views' shared connectivity: a comparison that failed because the service was out of reach
	 * waits with the offline lists and compares again when the service answers.
	 */
	connectivity?: Pick<Connectivity, 'report'>;
}

function kindLetter(d: Difference): string {
	return d.kind === 'added' ? 'A' : d.kind === 'deleted' ? 'D' : 'M';
}

/** Words for a difference (tooltips, the decoration's tooltip). */
export function describeDifference(d: Difference): string {
	const who = d.group === 'agent' ? vscode.l10n.t('Changed by the agent') : vscode.l10n.t('Other difference');
	const what =
		d.kind === 'added'
			? vscode.l10n.t('only in the agent workspace')
			: d.kind === 'deleted'
				? d.group === 'agent'
					? vscode.l10n.t('deleted in the agent workspace')
					: vscode.l10n.t('only in the local folder')
				: vscode.l10n.t('contents differ');
	return `${who}: ${what}`;
}

/** The source control of one link. */
export class LinkSource extends Disposable {
	readonly scm: vscode.SourceControl;
	readonly agentGroup: vscode.SourceControlResourceGroup;
	readonly otherGroup: vscode.SourceControlResourceGroup;
	readonly localRoot: vscode.Uri;
	/** Differences by local URI string. */
	private readonly differences = new Map<string, Difference>();
	private baseline: Baseline | undefined;
	private running: Promise<CompareResult | undefined> | undefined;
	private queued:
		{ mode: CompareMode; promise: Promise<CompareResult | undefined>; resolve: (r: CompareResult | undefined) => void } | undefined;
	private timer: ReturnType<typeof setTimeout> | undefined;
	private recheckTimer: ReturnType<typeof setTimeout> | undefined;
	private readonly recheckPaths = new Set<string>();
	/**
	 * The differences Apply or Send settled in this window (by local URI string), the agent's side as
	 * it is since: a file changed back afterwards (Undo, then saved) is checked against it and
	 * rejoins the list. A comparison that lists the file again takes over.
	 */
	private readonly settledFiles = new Map<string, Difference>();
	/** What the last comparison left out (a cap), if anything. */
	incomplete: string | undefined;
	/** Why the last comparison failed (shown in the source control's status bar), if it did. */
	failure: string | undefined;
	/** The label the source control was made with (VS Code's cannot change: the feature makes it again when this one is out of date). */
	readonly shownLabel: string;
	/** The last comparison's statistics (tests and the log). */
	lastStats: CompareResult['stats'] | undefined;
	/** A comparison succeeded in this window: the groups hold what one found (until then they hold nothing true). */
	private compared = false;
	/** A comparison is under way. */
	private comparing = false;
	/** Compares again when the service answers after a comparison found it out of reach. */
	private readonly participant: Participant = {
		retry: () =>
			this.refresh('refresh').then(
				() => undefined,
				() => undefined,
			),
	};

	constructor(
		readonly link: AgentLink,
		private readonly deps: LinkSourceDeps,
	) {
		super();
		this.localRoot = vscode.Uri.parse(link.localFolder, true);
		this.shownLabel = this.label();
		this.scm = this.register(vscode.scm.createSourceControl(`${SCM_ID}.${link.id}`, this.shownLabel, this.localRoot));
		this.scm.inputBox.visible = false;
		this.agentGroup = this.register(this.scm.createResourceGroup('agent', vscode.l10n.t('Changed by the agent')));
		this.otherGroup = this.register(this.scm.createResourceGroup('other', vscode.l10n.t('Other differences')));
		this.otherGroup.hideWhenEmpty = true;
		this.scm.quickDiffProvider = { provideOriginalResource: (uri) => this.originalOf(uri) };
		this.scm.count = 0;
		this.render();
		const watcher = this.register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.localRoot, '**/*')));
		const changed = (uri: vscode.Uri): void => this.localFileChanged(uri);
		this.register(watcher.onDidChange(changed));
		this.register(watcher.onDidCreate(changed));
		this.register(watcher.onDidDelete(changed));
		this.register({ dispose: () => [this.timer, this.recheckTimer].forEach((t) => t && clearTimeout(t)) });
	}

	/**
	 * "‹agent› ↔ ‹local folder›" (plus the agent-side folder when it is not the root), and the
	 * agent's deployment when two or more are configured.
	 */
	label(): string {
		const agent = singleLine(this.link.agentName || this.link.agentId, 80);
		const side = this.link.agentFolder ? `${agent}/${singleLine(this.link.agentFolder, 80)}` : agent;
		const local = this.localRoot.path.split('/').filter(Boolean).pop() ?? this.localRoot.fsPath;
		const deployment = this.deps.deploymentName?.();
		return deployment === undefined
			? `${side} ↔ ${local}`
			: vscode.l10n.t('{0} ↔ {1} · {2}', side, local, singleLine(deployment, SAFETY.labelMaxChars));
	}

	/** The client of the link's deployment (Apply and Send to Agent read and write through it). */
	client(): CloudAgentsClient {
		return this.deps.client();
	}

	/** Every difference now shown, in path order. */
	all(): Difference[] {
		return [...this.differences.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	}

	/** The difference shown for a local file, if any. */
	differenceOf(uri: vscode.Uri): Difference | undefined {
		return this.differences.get(uri.toString());
	}

	/** The local file of a relative path (checked: no `..`, so it stays inside the folder). */
	localUriOf(path: string): vscode.Uri {
		return vscode.Uri.joinPath(this.localRoot, ...checkRelativePath(path).split('/'));
	}

	/** The local folder's files (src/compare/localFiles.ts); throws, saying why, when this extension host cannot reach them. */
	files(): LocalFiles {
		const files = this.deps.localFiles;
		if (!files) {
			throw new Error(cannotCompareWith(this.localRoot));
		}
		return files;
	}

	/** The agent's copy of a relative path, as a `cloud-agent:` URI (of the link's deployment). */
	agentUriOf(path: string): vscode.Uri {
		return workspaceUri(this.link.agentId, agentPathOf(this.link.agentFolder, path), this.link.deployment);
	}

	/** The empty side of a diff, named after the file. */
	emptyUriOf(path: string): vscode.Uri {
		return vscode.Uri.from({ scheme: EMPTY_SCHEME, path: `/${path}` });
	}

	/** Left (local) and right (agent) of a difference's diff, and its title. */
	diffOf(d: Difference): { left: vscode.Uri; right: vscode.Uri; title: string } {
		const name = d.path.split('/').pop() ?? d.path;
		return {
			left: d.kind === 'added' ? this.emptyUriOf(d.path) : this.localUriOf(d.path),
			right: d.kind === 'deleted' ? this.emptyUriOf(d.path) : this.agentUriOf(d.path),
			title: vscode.l10n.t('{0} (local ↔ {1})', name, singleLine(this.link.agentName || this.link.agentId, 80)),
		};
	}

	/** The file decoration of a local URI in one of the groups. */
	decorationOf(uri: vscode.Uri): vscode.FileDecoration | undefined {
		const d = this.differences.get(uri.toString());
		if (!d) {
			return undefined;
		}
		const color =
			d.kind === 'added'
				? 'gitDecoration.addedResourceForeground'
				: d.kind === 'deleted'
					? 'gitDecoration.deletedResourceForeground'
					: 'gitDecoration.modifiedResourceForeground';
		return new vscode.FileDecoration(kindLetter(d), describeDifference(d), new vscode.ThemeColor(color));
	}

	/**
	 * Compares again (`link`: the first comparison; `refresh`: what changed since the baseline;
	 * `everything`: the full comparison). Never two at once: a call while one runs waits for one
	 * more after it (the widest mode asked for), which every such call shares.
	 */
	refresh(
		mode: CompareMode,
		options: { signal?: AbortSignal; report?: (message: string) => void } = {},
	): Promise<CompareResult | undefined> {
		if (this.running) {
			if (this.queued) {
				if (mode === 'everything' || mode === 'link') {
					this.queued.mode = mode;
				}
				return this.queued.promise;
			}
			let resolve: (r: CompareResult | undefined) => void = () => undefined;
			const promise = new Promise<CompareResult | undefined>((r) => (resolve = r));
			this.queued = { mode, promise, resolve };
			return promise;
		}
		const run = this.compare(mode, options);
		this.running = run;
		const next = (): void => {
			this.running = undefined;
			const q = this.queued;
			this.queued = undefined;
			if (q && !this.isDisposed) {
				this.refresh(q.mode).then(q.resolve, (err: unknown) => {
					this.deps.log.warn(`Comparing ${this.label()} failed:`, err instanceof Error ? err : String(err));
					q.resolve(undefined);
				});
			}
		};
		run.then(next, next);
		return run;
	}

	/** A refresh soon (hints: a run's file events, a save through `cloud-agent:`); several hints make one. */
	refreshSoon(delayMs: number): void {
		if (this.timer) {
			clearTimeout(this.timer);
		}
		this.timer = setTimeout(() => {
			this.timer = undefined;
			this.refresh('refresh').catch((err: unknown) =>
				this.deps.log.warn(`Refreshing ${this.label()} failed:`, err instanceof Error ? err : String(err)),
			);
		}, delayMs);
	}

	private async compare(
		mode: CompareMode,
		options: { signal?: AbortSignal; report?: (message: string) => void },
	): Promise<CompareResult | undefined> {
		const unavailable = this.deps.unavailable?.();
		if (unavailable !== undefined) {
			// Nothing to ask (its deployment was removed): the link says so; the groups keep what they showed.
			this.failure = unavailable;
			this.render();
			return undefined;
		}
		this.baseline ??= await this.deps.store.baseline(this.link.id);
		const effective: CompareMode = mode === 'refresh' && !this.baseline ? 'link' : mode;
		const files = this.files();
		const ignore = await IgnoreRules.load(files, { exclude: this.deps.exclude(this.localRoot) });
		const startedAt = Date.now();
		this.comparing = true;
		this.render();
		const result = await vscode.window
			.withProgress({ location: vscode.ProgressLocation.SourceControl }, () =>
				compareFolders({
					client: this.deps.client(),
					agentId: this.link.agentId,
					agentFolder: this.link.agentFolder,
					local: files,
					mode: effective,
					baseline: effective === 'link' ? undefined : this.baseline,
					ignore,
					signal: options.signal,
					onProgress: (p) => options.report?.(p.message),
				}),
			)
			.then(undefined, (err: unknown) => {
				// The groups keep what the last comparison found; their label and the status bar say this one
				// failed, and one that found the service out of reach runs again when it answers.
				this.comparing = false;
				this.failure = singleLine(err instanceof Error ? err.message : String(err), 500);
				this.render();
				this.deps.connectivity?.report(err, { participant: this.participant, startedAt });
				throw err;
			});
		this.comparing = false;
		if (this.isDisposed) {
			return undefined;
		}
		this.failure = undefined;
		this.compared = true;
		this.baseline = result.baseline;
		this.incomplete = result.incomplete;
		this.lastStats = result.stats;
		await this.deps.store.setBaseline(this.link.id, result.baseline);
		// A refresh finds the agent's changes; the other differences of the last full comparison
		// stay until the next one, except those the agent's changes now cover.
		const keepOther = effective === 'refresh' ? [...this.differences.values()].filter((d) => d.group === 'other') : [];
		const next = new Map<string, Difference>();
		for (const d of result.differences) {
			next.set(this.localUriOf(d.path).toString(), d);
			this.settledFiles.delete(this.localUriOf(d.path).toString());
		}
		for (const d of keepOther) {
			const key = this.localUriOf(d.path).toString();
			if (!next.has(key)) {
				next.set(key, d);
			}
		}
		// The comparison listed the agent's side afresh: a `cloud-agent:` view of it cached earlier in
		// this window (a folder listed before the agent wrote a file) must not answer "no such file"
		// when the diff opens the agent's copy. Only what is new or changed since the last comparison.
		for (const d of result.differences) {
			if (!d.agent) {
				continue;
			}
			const before = this.differences.get(this.localUriOf(d.path).toString())?.agent;
			if (!before || before.size !== d.agent.size || before.mtime !== d.agent.mtime) {
				this.deps.agentFileChanged(
					this.link.agentId,
					agentPathOf(this.link.agentFolder, d.path),
					before ? 'modified' : 'created',
					this.link.deployment,
				);
			}
		}
		this.show(next);
		return result;
	}

	/** Replaces what the groups show. */
	private show(next: Map<string, Difference>): void {
		const touched = new Set<string>([...this.differences.keys(), ...next.keys()]);
		this.differences.clear();
		for (const [k, v] of next) {
			this.differences.set(k, v);
		}
		this.render();
		this.deps.decorationsChanged([...touched].map((k) => vscode.Uri.parse(k, true)));
	}

	private render(): void {
		const agent: ChangeState[] = [];
		const other: ChangeState[] = [];
		for (const d of this.all()) {
			(d.group === 'agent' ? agent : other).push(this.stateOf(d));
		}
		this.agentGroup.resourceStates = agent;
		this.otherGroup.resourceStates = other;
		this.agentGroup.label = this.agentGroupLabel();
		// Until a comparison succeeded the groups hold nothing true, and VS Code shows a group's count
		// beside its label ("comparing… 0", "failed 0" read as "nothing changed", issue 42, item 4): the
		// agent group hides, and the source control's input box, read-only, says where it stands.
		this.agentGroup.hideWhenEmpty = !this.compared;
		this.scm.inputBox.visible = !this.compared;
		if (!this.compared) {
			this.scm.inputBox.enabled = false;
			this.scm.inputBox.placeholder = this.notComparedText();
		}
		this.scm.count = agent.length;
		const problem = this.failure
			? { title: `$(error) ${vscode.l10n.t('Comparison failed')}`, tooltip: this.failure }
			: this.incomplete
				? { title: `$(warning) ${vscode.l10n.t('Partly compared')}`, tooltip: this.incomplete }
				: undefined;
		this.scm.statusBarCommands = problem ? [{ command: 'cloudAgents.changes.refresh', ...problem, arguments: [this.scm] }] : undefined;
	}

	/** Where a link that was never compared in this window stands (the input box's placeholder). */
	private notComparedText(): string {
		if (this.failure) {
			return vscode.l10n.t('Not compared, Refresh to try again. The comparison failed: {0}', this.failure);
		}
		return this.comparing
			? vscode.l10n.t("Comparing with the agent's folder…")
			: vscode.l10n.t('Not compared yet: Refresh to compare.');
	}

	/**
	 * The agent group's label (shown once a comparison succeeded: notComparedText until then): after a
	 * comparison that failed, the count beside it is the last one's, and the label says so.
	 */
	private agentGroupLabel(): string {
		const name = vscode.l10n.t('Changed by the agent');
		return this.compared && this.failure ? vscode.l10n.t('{0} — as last compared; comparing again failed', name) : name;
	}

	/**
	 * A row. Its command names the file by its URI only: VS Code keeps a row (and the handle the
	 * workbench holds for it) across an update of the group only when it compares equal, and it
	 * compares command arguments that are not URIs by identity. With `{link, paths}` every update
	 * (a recheck after a local save, a refresh) replaced every row, and a click on any row that
	 * reached the extension host in between arrived as `undefined`: Send to Agent said "Nothing to
	 * send" and Apply did nothing.
	 */
	private stateOf(d: Difference): ChangeState {
		const resourceUri = this.localUriOf(d.path);
		return {
			resourceUri,
			command: {
				title: vscode.l10n.t('Open Changes'),
				command: 'cloudAgents.changes.openChanges',
				arguments: [resourceUri],
			},
			decorations: { strikeThrough: d.kind === 'deleted', faded: d.group === 'other', tooltip: describeDifference(d) },
			contextValue: `${d.group}:${d.kind}`,
		};
	}

	/** Forgets the differences of these paths (applied or sent): the two sides are now equal. */
	settled(
		paths: readonly string[],
		agentFacts?: ReadonlyMap<string, { size: number; mtime: number; sha256?: string } | undefined>,
	): void {
		const next = new Map(this.differences);
		for (const p of paths) {
			const key = this.localUriOf(p).toString();
			const d = next.get(key);
			if (d) {
				const agent = agentFacts?.has(p) ? agentFacts.get(p) : d.agent;
				this.rememberSettled(key, { ...d, agent: agent && { size: agent.size, mtime: agent.mtime } });
			}
			next.delete(key);
		}
		if (agentFacts && this.baseline) {
			for (const [p, facts] of agentFacts) {
				if (facts) {
					this.baseline.entries[p] = facts;
				} else {
					delete this.baseline.entries[p];
				}
				this.baseline.deleted = this.baseline.deleted.filter((x) => x !== p);
			}
			void this.deps.store.setBaseline(this.link.id, this.baseline);
		}
		this.show(next);
	}

	/** QuickDiff: the agent's version of a local file the agent changed. */
	private originalOf(uri: vscode.Uri): vscode.Uri | undefined {
		const d = this.differences.get(uri.toString());
		return d && d.kind === 'modified' ? this.agentUriOf(d.path) : undefined;
	}

	private rememberSettled(key: string, d: Difference): void {
		this.settledFiles.delete(key);
		this.settledFiles.set(key, d);
		// Bounded: the oldest go first (a Map keeps insertion order).
		for (const old of this.settledFiles.keys()) {
			if (this.settledFiles.size <= SETTLED_MAX) {
				break;
			}
			this.settledFiles.delete(old);
		}
	}

	/**
	 * A local file changed (the folder's watcher, a save in VS Code): a file shown in a group, or one
	 * Apply or Send settled, is checked again (after a short pause): it leaves the list when it now
	 * equals the agent's copy, and rejoins it when it differs again.
	 */
	localFileChanged(uri: vscode.Uri): void {
		const key = uri.toString();
		const d = this.differences.get(key) ?? this.settledFiles.get(key);
		if (!d) {
			return;
		}
		this.recheckPaths.add(d.path);
		if (this.recheckTimer) {
			clearTimeout(this.recheckTimer);
		}
		this.recheckTimer = setTimeout(() => {
			this.recheckTimer = undefined;
			const paths = [...this.recheckPaths];
			this.recheckPaths.clear();
			this.recheck(paths).catch((err: unknown) =>
				this.deps.log.warn(`Checking local changes of ${this.label()} failed:`, err instanceof Error ? err : String(err)),
			);
		}, 300);
	}

	/**
	 * Checks files again against the agent's copy as listed (its hash read once when needed): those
	 * shown, and those Apply or Send settled. Each leaves the list or (re)joins it.
	 */
	async recheck(paths: readonly string[]): Promise<void> {
		const updates = new Map<string, Difference | undefined>();
		for (const path of paths) {
			const key = this.localUriOf(path).toString();
			const d = this.differences.get(key) ?? this.settledFiles.get(key);
			if (d) {
				updates.set(key, await this.recheckOne(path, d));
			}
		}
		// Applied to the groups as they are now (a comparison may have ended meanwhile).
		const next = new Map(this.differences);
		for (const [key, d] of updates) {
			if (d) {
				next.set(key, d);
			} else {
				next.delete(key);
			}
		}
		this.show(next);
	}

	/** What a file's difference is now (undefined: none): its local copy against the agent's as listed. */
	private async recheckOne(path: string, d: Difference): Promise<Difference | undefined> {
		const local = await localFacts(this.files(), path);
		if (!d.agent) {
			return local ? { ...d, kind: 'deleted', local } : undefined;
		}
		if (!local) {
			return { ...d, kind: 'added', local: undefined };
		}
		if (local.size !== d.agent.size) {
			return { ...d, kind: 'modified', local };
		}
		const entry = this.baseline?.entries[path];
		let agentSha = entry && entry.size === d.agent.size && entry.mtime === d.agent.mtime ? entry.sha256 : undefined;
		if (!agentSha) {
			agentSha = (
				await hashAgentFile(this.deps.client(), this.link.agentId, agentPathOf(this.link.agentFolder, path), undefined, d.agent)
			).sha256;
			if (entry && this.baseline) {
				this.baseline.entries[path] = { ...entry, sha256: agentSha };
			}
		}
		const localSha = (await this.files().hash(path)).sha256;
		return localSha === agentSha ? undefined : { ...d, kind: 'modified', local };
	}
}

/** The most settled files a link remembers (the oldest go first). */
const SETTLED_MAX = 10_000;

/** Size and mtime of a local regular file (never through a symlink), or undefined. */
async function localFacts(files: LocalFiles, path: string): Promise<{ size: number; mtime: number } | undefined> {
	try {
		const st = await files.stat(path);
		return st.kind === 'file' ? { size: st.size, mtime: Math.floor(st.mtime) } : undefined;
	} catch {
		return undefined;
	}
}

/** Why a folder cannot be compared with in this extension host (one a person reads). */
export function cannotCompareWith(folder: vscode.Uri): string {
	return vscode.l10n.t(
		'Cloud Agents cannot read the folder {0} from this window, so Source Control cannot compare it with an agent: choose a folder on this computer (in VS Code for the Web: a folder open in this window).',
		folder.toString(true),
	);
}
