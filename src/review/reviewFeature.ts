/**
 * Review comments on what an agent changed (issue 46): a comment controller whose commenting ranges
 * are offered on every `cloud-agent:` file — the agent's side of a Source Control diff
 * (src/changes/linkSource.ts `agentUriOf`) and an agent's file opened from its workspace. A person
 * adds comments on lines or ranges, replies, edits and deletes them with VS Code's comment UI (the
 * Comments panel lists them), as in a pull-request review; they are kept per agent in globalState
 * (src/review/reviewStore.ts), so a reload keeps them. "Send Feedback to Agent"
 * (src/review/reviewActions.ts) sends an agent's open threads as one prompt; once the run they went
 * in ends, each thread whose lines the agent changed since reads "Outdated" (resolved), the others
 * stay open. Nothing is deleted but by the person.
 *
 * This file keeps the threads (the store and what VS Code shows); the commands are actions of the
 * one registry (src/views/actionRegistry.ts), written in reviewActions.ts.
 */
import * as vscode from 'vscode';
import type { CloudAgentsClient, Run } from '../api';
import { type eventFileChange, eventStatus, isTerminalRunStatus } from '../api';
import { FS_SCHEME } from '../ids';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import type { ResourceActions } from '../views/actions';
import { isStatus } from '../views/ui';
import { parseWorkspaceUri, workspaceUri } from '../workspace/fs/workspaceFs';
import { reviewActions } from './reviewActions';
import {
	DRAFTS_KEY,
	THREADS_KEY,
	type StoredComment,
	type StoredThread,
	type ThreadState,
	boundProblem,
	digestOf,
	linesOf,
	newId,
	readDrafts,
	readThreads,
	storedQuote,
	withDraft,
	writeThreads,
} from './reviewStore';

/** The comment controller's id (`commentController == cloudAgents.review` in package.json's menus). */
export const REVIEW_CONTROLLER_ID = 'cloudAgents.review';

/** Largest agent file read to tell whether a sent thread's lines changed. */
const MAX_CHECK_BYTES = 16 * 1024 * 1024;
/** At most this many ended runs remembered (a send marked after its run ended). */
const MAX_ENDED_RUNS = 200;
/** At most this many runs looked up when the window starts with threads still marked sent. */
const MAX_RECHECK_RUNS = 20;

/** What the feature needs from the extension (handed by src/shell/featureEntry.ts). */
export interface ReviewDeps {
	session: { readonly client: CloudAgentsClient; readonly signedIn: boolean };
	log: vscode.LogOutputChannel;
	globalState: vscode.Memento;
	/** Events of followed runs (RunFollower.onDidReceiveEvent): a run's end settles its threads. */
	runEvents: vscode.Event<{ agentId: string; runId: string; event: Parameters<typeof eventFileChange>[0] }>;
	/**
	 * Sends a prompt to the agent as Send Prompt does — a follow-up of its active run, else a new
	 * run — and follows the run; resolves with the run, undefined when it was not sent; throws
	 * when sending failed.
	 */
	sendPrompt(this: void, agentId: string, prompt: string): Promise<Run | undefined>;
	/** The agent whose link a Source Control argument (its source control or group) is, if any. */
	agentOfControl(this: void, arg: unknown): string | undefined;
	/** An agent's name, where one is known (its link, the Agents view); undefined otherwise. */
	agentName(this: void, agentId: string): string | undefined;
}

/** A comment as VS Code shows it. */
export class ReviewComment implements vscode.Comment {
	mode = vscode.CommentMode.Preview;
	readonly author: vscode.CommentAuthorInformation = { name: vscode.l10n.t('You') };
	readonly contextValue = 'reviewComment';
	readonly timestamp: Date | undefined;
	constructor(
		readonly id: string,
		public body: string | vscode.MarkdownString,
		created: number,
		readonly threadId: string,
	) {
		this.timestamp = created > 0 ? new Date(created) : undefined;
	}
}

interface Entry {
	stored: StoredThread;
	thread: vscode.CommentThread;
	comments: Map<string, ReviewComment>;
}

/** The threads, their store, and what VS Code shows of them; the commands are `actions`. */
export class ReviewFeature extends Disposable {
	readonly controller: vscode.CommentController;
	private readonly entries = new Map<string, Entry>();
	private readonly ids = new WeakMap<vscode.CommentThread, string>();
	/** The commands, registered by the action registry. */
	readonly actions: ResourceActions;
	/** Sent runs being checked (so a run's end and a re-check do not race). */
	private readonly checking = new Set<string>();
	/** Runs seen to end (their events), most recent last: a send marked after its run's end settles at once. */
	private readonly ended = new Set<string>();

	constructor(readonly deps: ReviewDeps) {
		super();
		this.controller = this.register(
			vscode.comments.createCommentController(REVIEW_CONTROLLER_ID, vscode.l10n.t('Review for Cloud Agents')),
		);
		this.controller.options = {
			prompt: vscode.l10n.t('Comment for the agent'),
			placeHolder: vscode.l10n.t('What should the agent change here? "Send Feedback to Agent" sends the comments.'),
		};
		// The range provider is set only while an editor shows an agent's file: with one set, VS Code asks it
		// about every document the workbench opens (settings.json when a setting is written too), and
		// that request can race the document's own arrival in the extension host (the workbench then
		// logs "document … already exists"). Agent files are the only ones it offers ranges on.
		this.watchAgentDocuments();
		for (const stored of readThreads(deps.globalState.get(THREADS_KEY))) {
			this.show(stored, this.controller.createCommentThread(workspaceUri(stored.agentId, stored.path), rangeOf(stored), []));
		}
		this.register({ dispose: () => this.entries.clear() });
		this.register(
			deps.runEvents(({ agentId, runId, event }) => {
				if (event.type === 'run.completed' || isTerminalRunStatus(eventStatus(event))) {
					this.noteEnded(agentId, runId);
					void this.settle(agentId, runId);
				}
			}),
		);
		this.actions = reviewActions(this);
		// Threads left marked sent by an earlier window: their runs may have ended meanwhile.
		const timer = setTimeout(() => void this.recheckSent(), 2_000);
		this.register({ dispose: () => clearTimeout(timer) });
	}

	get log(): vscode.LogOutputChannel {
		return this.deps.log;
	}

	private readonly rangeProvider: vscode.CommentingRangeProvider = {
		provideCommentingRanges: (document) =>
			document.uri.scheme === FS_SCHEME && isAgentFile(document.uri)
				? [new vscode.Range(0, 0, Math.max(0, document.lineCount - 1), 0)]
				: undefined,
	};

	/** Sets the range provider while an editor shows a `cloud-agent:` document, takes it away when none does. */
	private watchAgentDocuments(): void {
		const update = (): void => {
			const shown = vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === FS_SCHEME);
			if (shown && this.controller.commentingRangeProvider === undefined) {
				this.controller.commentingRangeProvider = this.rangeProvider;
			} else if (!shown && this.controller.commentingRangeProvider !== undefined) {
				this.controller.commentingRangeProvider = undefined;
			}
		};
		this.register(vscode.window.onDidChangeVisibleTextEditors(update));
		update();
	}

	/** Every thread kept, in the order they were made. */
	all(): StoredThread[] {
		return [...this.entries.values()].map((e) => e.stored);
	}

	/** The threads of an agent. */
	threadsOf(agentId: string): StoredThread[] {
		return this.all().filter((t) => t.agentId === agentId);
	}

	/** The id of a thread VS Code hands a command (undefined: not one of ours, or not kept yet). */
	idOf(thread: vscode.CommentThread): string | undefined {
		return this.ids.get(thread);
	}

	entryOf(id: string): Entry | undefined {
		return this.entries.get(id);
	}

	/** A new thread on `uri` (an agent's file) over lines `startLine`…`endLine` (0-based), with its first comment; kept before it is shown. */
	async startThread(
		uri: vscode.Uri,
		startLine: number,
		endLine: number,
		body: string,
		thread?: vscode.CommentThread,
	): Promise<StoredThread> {
		const { agentId, path } = agentFileOf(uri);
		const document =
			vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()) ??
			(await vscode.workspace.openTextDocument(uri));
		// A range past the file's end takes the lines the file has.
		const last = Math.max(startLine, Math.min(endLine, document.lineCount - 1));
		const lines = linesOf(document.getText(), startLine, last) ?? [];
		const stored: StoredThread = {
			id: newId(),
			agentId,
			path: path.replace(/^\/+/, ''),
			startLine,
			endLine: last,
			quote: storedQuote(lines),
			digest: digestOf(lines),
			comments: [newComment(body)],
			state: 'open',
		};
		await this.save([...this.all(), stored]);
		const shown = thread ?? this.controller.createCommentThread(uri, rangeOf(stored), []);
		shown.range = rangeOf(stored);
		this.show(stored, shown);
		return stored;
	}

	/** A reply in a thread. */
	async reply(id: string, body: string): Promise<void> {
		await this.change(id, (t) => ({ ...t, comments: [...t.comments, newComment(body)] }));
	}

	/** A comment's new text. */
	async edit(id: string, commentId: string, body: string): Promise<void> {
		await this.change(id, (t) => ({ ...t, comments: t.comments.map((c) => (c.id === commentId ? { ...c, body } : c)) }));
	}

	/** Deletes a comment; the thread goes with its last one. */
	async deleteComment(id: string, commentId: string): Promise<void> {
		const entry = this.entries.get(id);
		if (!entry) {
			return;
		}
		const comments = entry.stored.comments.filter((c) => c.id !== commentId);
		if (comments.length > 0) {
			await this.change(id, (t) => ({ ...t, comments }));
			return;
		}
		await this.deleteThread(id);
	}

	/** Deletes a whole thread (automation's delete). */
	async deleteThread(id: string): Promise<void> {
		const entry = this.entries.get(id);
		if (!entry) {
			return;
		}
		await this.save(this.all().filter((t) => t.id !== id));
		this.entries.delete(id);
		entry.thread.dispose();
	}

	/** Sets the state of threads (sent in `runId`, settled after it). */
	async setState(ids: readonly string[], state: ThreadState, runId?: string): Promise<void> {
		const set = new Set(ids);
		const next = this.all().map((t) => (set.has(t.id) ? { ...t, state, ...(runId !== undefined ? { sentRunId: runId } : {}) } : t));
		await this.save(next);
		for (const t of next) {
			if (set.has(t.id)) {
				const entry = this.entries.get(t.id);
				if (entry) {
					this.show(t, entry.thread);
				}
			}
		}
	}

	/**
	 * Marks threads sent in `runId`. The run may have ended already (its events can arrive before the
	 * send returns): then they are settled at once.
	 */
	async markSent(ids: readonly string[], agentId: string, runId: string): Promise<void> {
		await this.setState(ids, 'sent', runId);
		if (this.ended.has(`${agentId}\n${runId}`)) {
			await this.settle(agentId, runId);
		}
	}

	private noteEnded(agentId: string, runId: string): void {
		const key = `${agentId}\n${runId}`;
		this.ended.delete(key);
		this.ended.add(key);
		for (const oldest of this.ended) {
			if (this.ended.size <= MAX_ENDED_RUNS) {
				break;
			}
			this.ended.delete(oldest);
		}
	}

	/** The prompt of a failed send, kept for the agent (undefined: none). */
	draftOf(agentId: string): string | undefined {
		return readDrafts(this.deps.globalState.get(DRAFTS_KEY)).get(agentId);
	}

	/** Keeps (or, undefined, forgets) the agent's unsent prompt. */
	async keepDraft(agentId: string, text: string | undefined): Promise<void> {
		await this.deps.globalState.update(DRAFTS_KEY, withDraft(readDrafts(this.deps.globalState.get(DRAFTS_KEY)), agentId, text));
	}

	/**
	 * A run ended: each thread sent in it reads outdated when the agent's file at its range no longer
	 * holds the lines it was about (or is gone), open otherwise. A file that cannot be read now
	 * leaves its threads as they are (checked again at the next start or send).
	 */
	async settle(agentId: string, runId: string): Promise<void> {
		const sent = this.threadsOf(agentId).filter((t) => t.state === 'sent' && t.sentRunId === runId);
		const key = `${agentId}\n${runId}`;
		if (sent.length === 0 || this.checking.has(key)) {
			return;
		}
		this.checking.add(key);
		try {
			const byPath = new Map<string, StoredThread[]>();
			for (const t of sent) {
				byPath.set(t.path, [...(byPath.get(t.path) ?? []), t]);
			}
			const outdated: string[] = [];
			const open: string[] = [];
			for (const [path, threads] of byPath) {
				const text = await this.readAgentFile(agentId, path);
				if (text === 'unreadable') {
					continue;
				}
				for (const t of threads) {
					const lines = text === undefined ? undefined : linesOf(text.text, t.startLine, t.endLine);
					(lines !== undefined && digestOf(lines) === t.digest ? open : outdated).push(t.id);
				}
			}
			// Only those still sent in that run (a delete or a new send meanwhile wins).
			const still = (ids: string[]): string[] =>
				ids.filter((id) => this.entries.get(id)?.stored.state === 'sent' && this.entries.get(id)?.stored.sentRunId === runId);
			await this.setState(still(outdated), 'outdated');
			await this.setState(still(open), 'open');
		} finally {
			this.checking.delete(key);
		}
	}

	/** Threads still marked sent: those whose run has ended are settled (bounded). */
	async recheckSent(): Promise<void> {
		if (!this.deps.session.signedIn) {
			return;
		}
		const runs = new Map<string, { agentId: string; runId: string }>();
		for (const t of this.all()) {
			if (t.state === 'sent' && t.sentRunId !== undefined) {
				runs.set(`${t.agentId}\n${t.sentRunId}`, { agentId: t.agentId, runId: t.sentRunId });
			}
		}
		for (const { agentId, runId } of [...runs.values()].slice(0, MAX_RECHECK_RUNS)) {
			try {
				const run = await this.deps.session.client.getRun(agentId, runId);
				if (isTerminalRunStatus(run.status)) {
					await this.settle(agentId, runId);
				}
			} catch (err) {
				this.deps.log.warn(
					`Checking run ${runId} of sent review comments failed: ${err instanceof Error ? err.message : String(err)}`,
				);
			}
		}
	}

	/** The agent's file as text (`text`); undefined when it is gone; `unreadable` when it cannot be read now. */
	private async readAgentFile(agentId: string, path: string): Promise<{ text: string } | undefined | 'unreadable'> {
		try {
			const client = this.deps.session.client;
			const stat = await client.statWorkspace(agentId, path);
			if (stat.size > MAX_CHECK_BYTES) {
				return 'unreadable';
			}
			const file = await client.readWorkspaceFileAll(agentId, path);
			return { text: new TextDecoder('utf-8').decode(file.content) };
		} catch (err) {
			if (isStatus(err, 404)) {
				return undefined;
			}
			this.deps.log.warn(
				`Reading ${singleLine(path)} of agent ${agentId} for its review comments failed: ${err instanceof Error ? err.message : String(err)}`,
			);
			return 'unreadable';
		}
	}

	/** Shows a comment's editor (Edit). */
	setMode(comment: ReviewComment, mode: vscode.CommentMode): void {
		const entry = this.entries.get(comment.threadId);
		if (!entry) {
			return;
		}
		const shown = entry.comments.get(comment.id);
		if (shown) {
			shown.mode = mode;
			if (mode === vscode.CommentMode.Preview) {
				shown.body = entry.stored.comments.find((c) => c.id === comment.id)?.body ?? shown.body;
			}
		}
		entry.thread.comments = [...entry.comments.values()];
	}

	private async change(id: string, update: (t: StoredThread) => StoredThread): Promise<void> {
		const next = this.all().map((t) => (t.id === id ? update(t) : t));
		await this.save(next);
		const stored = next.find((t) => t.id === id);
		const entry = this.entries.get(id);
		if (stored && entry) {
			this.show(stored, entry.thread);
		}
	}

	/** Keeps `threads` (refused, with the reason, when it would pass a bound: nothing is dropped to make room). */
	private async save(threads: readonly StoredThread[]): Promise<void> {
		const problem = boundProblem(threads);
		if (problem) {
			throw new Error(boundText(problem));
		}
		await this.deps.globalState.update(THREADS_KEY, writeThreads(threads));
		// The order of the store is the order of the entries (a new thread goes last).
		for (const t of threads) {
			const entry = this.entries.get(t.id);
			if (entry) {
				entry.stored = t;
			}
		}
	}

	/** Shows a kept thread in `thread`: its comments (an edited one keeps its editor), label, state and context value. */
	private show(stored: StoredThread, thread: vscode.CommentThread): void {
		const old = this.entries.get(stored.id);
		const comments = new Map<string, ReviewComment>();
		for (const c of stored.comments) {
			const before = old?.comments.get(c.id);
			const shown = before ?? new ReviewComment(c.id, c.body, c.created, stored.id);
			if (!before || before.mode === vscode.CommentMode.Preview) {
				shown.body = c.body;
			}
			comments.set(c.id, shown);
		}
		this.entries.set(stored.id, { stored, thread, comments });
		this.ids.set(thread, stored.id);
		thread.comments = [...comments.values()];
		thread.canReply = true;
		thread.contextValue = `review:${stored.state}`;
		thread.label = threadLabel(stored);
		thread.state = stored.state === 'outdated' ? vscode.CommentThreadState.Resolved : vscode.CommentThreadState.Unresolved;
		// Expanded, outdated ones too: their header says why they are resolved (nothing is hidden away).
		thread.collapsibleState = vscode.CommentThreadCollapsibleState.Expanded;
	}
}

/** What a thread's header says. */
function threadLabel(t: StoredThread): string {
	switch (t.state) {
		case 'sent':
			return vscode.l10n.t('Sent to the agent (run {0}): waiting for the run to end', t.sentRunId ?? '');
		case 'outdated':
			return vscode.l10n.t('Outdated: the agent changed these lines since the feedback was sent');
		default:
			return t.sentRunId
				? vscode.l10n.t('Open: sent in run {0}; these lines did not change', t.sentRunId)
				: vscode.l10n.t('Comment for the agent (not sent yet)');
	}
}

function boundText(problem: NonNullable<ReturnType<typeof boundProblem>>): string {
	switch (problem.kind) {
		case 'threads':
			return vscode.l10n.t('Not kept: at most {0} comment threads are kept. Delete some first.', problem.max);
		case 'comments':
			return vscode.l10n.t('Not kept: at most {0} comments in one thread.', problem.max);
		case 'commentChars':
			return vscode.l10n.t('Not kept: a comment is at most {0} characters.', problem.max);
		default:
			return vscode.l10n.t('Not kept: at most {0} characters of comments are kept. Delete some first.', problem.max);
	}
}

function newComment(body: string): StoredComment {
	return { id: newId(), body, created: Date.now() };
}

function rangeOf(t: StoredThread): vscode.Range {
	return new vscode.Range(t.startLine, 0, t.endLine, 0);
}

function isAgentFile(uri: vscode.Uri): boolean {
	try {
		const { path } = parseWorkspaceUri(uri);
		return path.replace(/^\/+/, '') !== '';
	} catch {
		return false;
	}
}

/** The agent and path of an agent's file (`cloud-agent:`); throws for any other URI. */
export function agentFileOf(uri: vscode.Uri): { agentId: string; path: string } {
	if (uri.scheme !== FS_SCHEME || !isAgentFile(uri)) {
		throw new Error(
			vscode.l10n.t("Comments for an agent go on the agent's files (its side of a Source Control diff, or a file of its workspace)."),
		);
	}
	const { agentId, path } = parseWorkspaceUri(uri);
	return { agentId, path: path.replace(/^\/+/, '') };
}
