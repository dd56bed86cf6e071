/**
 * The review commands (issue 46) as actions of the one registry (src/views/actionRegistry.ts): the
 * comment UI's own (add or reply, edit, save, cancel, delete: package.json's `comments/…` menus
 * hand them a CommentReply or a comment) and "Send Feedback to Agent".
 *
 * Send Feedback to Agent gathers the agent's open threads (the agent of the thread, of the Source
 * Control link, of the feedback document, `{agentId}`, or picked among those with comments), builds
 * the prompt (src/review/feedbackPrompt.ts) and opens it in an untitled Markdown document: the
 * person reads and edits it there, then sends it with the same command (the document's title bar).
 * It goes as Send Prompt sends — a follow-up of the agent's active run, else a new run — and the run
 * is followed. A prompt over the service's limit is said (by how much) and not sent. A failed send
 * keeps the comments and the edited prompt: the next Send Feedback offers it again.
 *
 * Automation (`{automation: true, …}`): `addComment` takes `{uri, startLine, endLine, text}`
 * (0-based lines, a `cloud-agent:` URI); `sendFeedback` takes `{agentId}` and sends the built
 * prompt (or `prompt`), or with `dryRun: true` returns it with the agent's threads, sending nothing.
 */
import * as vscode from 'vscode';
import type { Run } from '../api';
import { LIMITS } from '../base/limits';
import { utf8Length } from '../base/bytes';
import { describeError } from '../messages/errors';
import type { ActionKit, ResourceAction, ResourceActions } from '../views/actions';
import { argBoolean, argString, closeSentDocument, displayName, openUntitledDraft, pickItem, showInfo, showWarning } from '../views/ui';
import { buildFeedbackPrompt, type FeedbackPrompt } from './feedbackPrompt';
import type { ReviewComment, ReviewFeature } from './reviewFeature';
import type { StoredThread } from './reviewStore';

/** Untitled feedback documents are named `agent-feedback-N.md` (package.json's editor/title `when`). */
const DRAFT_NAME = /^agent-feedback-\d+\.md$/;

/** A feedback document being edited: whose, and which threads it was built from. */
interface Draft {
	agentId: string;
	threadIds: string[];
}

/** What `sendFeedback` with `dryRun` answers (automation). */
export interface FeedbackPreview extends FeedbackPrompt {
	agentId: string;
	threads: Array<Pick<StoredThread, 'id' | 'path' | 'startLine' | 'endLine' | 'state' | 'sentRunId'>>;
}

/** The review commands; `feature` keeps the threads. */
export function reviewActions(feature: ReviewFeature): ResourceActions {
	const drafts = new Map<string, Draft>();
	const action = (command: ResourceAction['command'], run: (kit: ActionKit) => Promise<unknown>): ResourceAction => ({ command, run });
	return {
		addComment: action('cloudAgents.review.addComment', (kit) => addComment(feature, kit)),
		editComment: action('cloudAgents.review.editComment', async (kit) => {
			const comment = commentOf(feature, kit.arg);
			if (comment) {
				feature.setMode(comment, vscode.CommentMode.Editing);
			}
		}),
		saveComment: action('cloudAgents.review.saveComment', async (kit) => {
			const comment = commentOf(feature, kit.arg);
			if (!comment) {
				return;
			}
			const body = (typeof comment.body === 'string' ? comment.body : comment.body.value).trim();
			if (body === '') {
				kit.warn(vscode.l10n.t('A comment cannot be empty: delete it instead.'));
				return;
			}
			await feature.edit(comment.threadId, comment.id, body);
			feature.setMode(comment, vscode.CommentMode.Preview);
		}),
		cancelEdit: action('cloudAgents.review.cancelEdit', async (kit) => {
			const comment = commentOf(feature, kit.arg);
			if (comment) {
				feature.setMode(comment, vscode.CommentMode.Preview);
			}
		}),
		deleteComment: action('cloudAgents.review.deleteComment', async (kit) => {
			// Automation: `{threadId}` deletes the whole thread.
			const threadId = kit.automation ? argString(kit.arg, 'threadId') : undefined;
			if (threadId !== undefined) {
				await feature.deleteThread(threadId);
				return;
			}
			const comment = commentOf(feature, kit.arg);
			if (comment) {
				await feature.deleteComment(comment.threadId, comment.id);
			}
		}),
		sendFeedback: action('cloudAgents.review.sendFeedback', (kit) => sendFeedback(feature, drafts, kit)),
	};
}

/** A comment of ours handed by the comment UI (a comment's title or context menu). */
function commentOf(feature: ReviewFeature, arg: unknown): ReviewComment | undefined {
	if (typeof arg !== 'object' || arg === null) {
		return undefined;
	}
	const c = arg as Partial<ReviewComment>;
	const entry = typeof c.threadId === 'string' ? feature.entryOf(c.threadId) : undefined;
	return entry && typeof c.id === 'string' && entry.comments.get(c.id) === arg ? (arg as ReviewComment) : undefined;
}

function isCommentReply(arg: unknown): arg is vscode.CommentReply {
	return typeof arg === 'object' && arg !== null && 'thread' in arg && typeof (arg as { text?: unknown }).text === 'string';
}

/** A line number of automation (0-based), or undefined. */
function argLine(arg: unknown, key: string): number | undefined {
	const v: unknown = arg !== null && typeof arg === 'object' ? Reflect.get(arg, key) : undefined;
	return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/**
 * Add Comment (a new thread's button, or a reply): the text typed goes into the thread, kept at
 * once. Automation: `{uri, startLine, endLine, text}` starts a thread; returns its id.
 */
async function addComment(feature: ReviewFeature, kit: ActionKit): Promise<string | undefined> {
	if (kit.automation) {
		const uri = argString(kit.arg, 'uri');
		const text = argString(kit.arg, 'text')?.trim();
		const start = argLine(kit.arg, 'startLine');
		const end = argLine(kit.arg, 'endLine') ?? start;
		if (uri === undefined || !text || start === undefined || end === undefined || end < start) {
			throw new Error('addComment takes {uri, startLine, endLine, text}: a cloud-agent: URI, 0-based lines, some text');
		}
		const stored = await feature.startThread(vscode.Uri.parse(uri, true), start, end, text);
		return stored.id;
	}
	if (!isCommentReply(kit.arg)) {
		return undefined;
	}
	const { thread, text } = kit.arg;
	const body = text.trim();
	if (body === '') {
		return undefined;
	}
	const id = feature.idOf(thread);
	if (id !== undefined) {
		await feature.reply(id, body);
		return id;
	}
	const range = thread.range ?? new vscode.Range(0, 0, 0, 0);
	// A range that ends at the start of a line (whole lines selected) does not take that line.
	const end = range.end.line > range.start.line && range.end.character === 0 ? range.end.line - 1 : range.end.line;
	return (await feature.startThread(thread.uri, range.start.line, end, body, thread)).id;
}

/** The agent a command's argument names: a thread (or a reply in one), a Source Control link, `{agentId}`. */
function agentOfArg(feature: ReviewFeature, arg: unknown): string | undefined {
	const thread = isCommentReply(arg) ? arg.thread : arg;
	if (typeof thread === 'object' && thread !== null) {
		const id = feature.idOf(thread as vscode.CommentThread);
		if (id !== undefined) {
			return feature.entryOf(id)?.stored.agentId;
		}
	}
	return feature.deps.agentOfControl(arg) ?? argString(arg, 'agentId');
}

/** The feedback document a command's argument or the active editor is, if any. */
function draftDocument(arg: unknown): vscode.TextDocument | undefined {
	const isDraft = (d: vscode.TextDocument | undefined): d is vscode.TextDocument =>
		d !== undefined && d.uri.scheme === 'untitled' && DRAFT_NAME.test(d.uri.path.split('/').pop() ?? '');
	if (arg instanceof vscode.Uri) {
		const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === arg.toString());
		return isDraft(doc) ? doc : undefined;
	}
	if (arg !== undefined) {
		return undefined;
	}
	const active = vscode.window.activeTextEditor?.document;
	return isDraft(active) ? active : undefined;
}

/** An agent as people read it: its name where known, else its id. */
function agentLabel(feature: ReviewFeature, agentId: string): string {
	return displayName(feature.deps.agentName(agentId), agentId);
}

/** The agent's threads that go in the next feedback. */
function openThreads(feature: ReviewFeature, agentId: string): StoredThread[] {
	return feature.threadsOf(agentId).filter((t) => t.state === 'open');
}

/** Builds the prompt of threads (their comments joined: a reply follows what it answers). */
function promptOf(threads: readonly StoredThread[]): FeedbackPrompt {
	return buildFeedbackPrompt(
		threads.map((t) => ({
			path: t.path,
			startLine: t.startLine + 1,
			endLine: t.endLine + 1,
			lines: t.quote,
			totalLines: t.endLine - t.startLine + 1,
			comment: t.comments.map((c) => c.body).join('\n\n'),
		})),
	);
}

async function sendFeedback(feature: ReviewFeature, drafts: Map<string, Draft>, kit: ActionKit): Promise<unknown> {
	if (kit.automation) {
		return sendFeedbackAutomation(feature, kit);
	}
	const doc = draftDocument(kit.arg);
	if (doc) {
		return sendDraft(feature, drafts, doc, kit);
	}
	// A reply typed but not yet added goes in first (the thread's own Send Feedback button).
	if (isCommentReply(kit.arg) && kit.arg.text.trim() !== '') {
		await addComment(feature, kit);
	}
	await feature.recheckSent();
	const agentId = agentOfArg(feature, kit.arg) ?? (await pickAgent(feature, kit));
	if (agentId === undefined) {
		return undefined;
	}
	const threads = openThreads(feature, agentId);
	const kept = feature.draftOf(agentId);
	if (threads.length === 0 && kept === undefined) {
		kit.info(
			vscode.l10n.t(
				"{0} has no open comments to send. Add comments on the agent's side of a Source Control diff, or on a file of its workspace.",
				agentLabel(feature, agentId),
			),
		);
		return undefined;
	}
	const built = promptOf(threads);
	const opened = await openUntitledDraft('agent-feedback', 'md', 'markdown', kept ?? built.prompt, false);
	drafts.set(opened.uri.toString(), { agentId, threadIds: threads.map((t) => t.id) });
	tellDraft(feature, agentId, kept !== undefined, built, opened, threads.length);
	return opened;
}

/** Says what to do with the feedback document: edit, then send; too long: by how much. */
function tellDraft(
	feature: ReviewFeature,
	agentId: string,
	kept: boolean,
	built: FeedbackPrompt,
	doc: vscode.TextDocument,
	count: number,
): void {
	const name = agentLabel(feature, agentId);
	if (kept) {
		const rebuild = vscode.l10n.t('Build Again from the Comments');
		void showInfo(
			vscode.l10n.t(
				'The feedback for {0} that was not sent last time is open again: edit it if you like, then press "Send Feedback to Agent" in the editor\'s title bar.',
				name,
			),
			rebuild,
		).then(async (choice) => {
			if (choice === rebuild && !doc.isClosed) {
				const edit = new vscode.WorkspaceEdit();
				edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), built.prompt);
				await vscode.workspace.applyEdit(edit);
				await feature.keepDraft(agentId, undefined);
			}
		});
		return;
	}
	if (!built.fits) {
		void showWarning(
			vscode.l10n.t(
				"The feedback for {0} ({1} comments) is {2} bytes over the service's limit of {3} bytes: shorten it in the editor (or delete comments) before sending. Nothing is cut without you.",
				name,
				count,
				built.overBy,
				built.limit,
			),
		);
		return;
	}
	void showInfo(
		vscode.l10n.t(
			'The feedback for {0} ({1} comments) is open: edit it if you like, then press "Send Feedback to Agent" in the editor\'s title bar.',
			name,
			count,
		),
	);
}

/** Sends the feedback document's text (as edited). */
async function sendDraft(
	feature: ReviewFeature,
	drafts: Map<string, Draft>,
	doc: vscode.TextDocument,
	kit: ActionKit,
): Promise<Run | undefined> {
	let draft = drafts.get(doc.uri.toString());
	if (!draft) {
		// A document from an earlier window (VS Code restored it): its agent is asked.
		const agentId = await pickAgent(feature, kit);
		if (agentId === undefined) {
			return undefined;
		}
		draft = { agentId, threadIds: openThreads(feature, agentId).map((t) => t.id) };
	}
	const { agentId } = draft;
	const name = agentLabel(feature, agentId);
	const prompt = doc.getText();
	const bytes = utf8Length(prompt.trim());
	if (bytes === 0 || bytes > LIMITS.promptBytes) {
		kit.warn(
			bytes === 0
				? vscode.l10n.t('Not sent: the feedback is empty.')
				: vscode.l10n.t(
						"Not sent: the feedback is {0} bytes, {1} over the service's limit of {2} bytes (UTF-8, after trimming). Shorten it, then send again.",
						bytes,
						bytes - LIMITS.promptBytes,
						LIMITS.promptBytes,
					),
		);
		return undefined;
	}
	let run: Run | undefined;
	try {
		run = await kit.pending(vscode.l10n.t('Sending the feedback to {0}…', name), () => feature.deps.sendPrompt(agentId, prompt));
	} catch (err) {
		await feature.keepDraft(agentId, prompt);
		feature.log.warn(`Send Feedback to ${agentId} failed: ${describeError(err)}`);
		void showWarning(
			vscode.l10n.t(
				'The feedback was not sent to {0}: {1} Your comments and the prompt are kept: Send Feedback to Agent offers it again.',
				name,
				describeError(err),
			),
		);
		return undefined;
	}
	if (!run) {
		await feature.keepDraft(agentId, prompt);
		return undefined;
	}
	await feature.keepDraft(agentId, undefined);
	await feature.markSent(
		draft.threadIds.filter((id) => feature.entryOf(id)?.stored.state === 'open'),
		agentId,
		run.id,
	);
	drafts.delete(doc.uri.toString());
	if (!doc.isClosed && doc.getText() === prompt) {
		await closeSentDocument(doc);
	}
	return run;
}

/** The agent whose comments to send: the only one with open comments, else picked. */
async function pickAgent(feature: ReviewFeature, kit: ActionKit): Promise<string | undefined> {
	const counts = new Map<string, number>();
	for (const t of feature.all()) {
		if (t.state === 'open') {
			counts.set(t.agentId, (counts.get(t.agentId) ?? 0) + 1);
		}
	}
	if (counts.size === 0) {
		kit.info(
			vscode.l10n.t(
				"No open review comments. Add comments on the agent's side of a Source Control diff, or on a file of an agent's workspace.",
			),
		);
		return undefined;
	}
	if (counts.size === 1) {
		return [...counts.keys()][0];
	}
	const pick = await vscode.window.showQuickPick(
		[...counts.entries()].map(([agentId, n]) =>
			pickItem(
				{ label: agentLabel(feature, agentId), description: vscode.l10n.t('{0} open comments', n), detail: agentId },
				{ agentId },
			),
		),
		{ title: kit.title, placeHolder: vscode.l10n.t('Send the comments on which agent?') },
	);
	return pick?.agentId;
}

/** Automation: `{agentId, dryRun?, prompt?}`. */
async function sendFeedbackAutomation(feature: ReviewFeature, kit: ActionKit): Promise<FeedbackPreview | Run | undefined> {
	const agentId = argString(kit.arg, 'agentId');
	if (agentId === undefined) {
		throw new Error('sendFeedback takes {agentId}');
	}
	const threads = openThreads(feature, agentId);
	const built = promptOf(threads);
	if (argBoolean(kit.arg, 'dryRun') === true) {
		return {
			...built,
			agentId,
			threads: feature
				.threadsOf(agentId)
				.map(({ id, path, startLine, endLine, state, sentRunId }) => ({ id, path, startLine, endLine, state, sentRunId })),
		};
	}
	const prompt = argString(kit.arg, 'prompt') ?? built.prompt;
	const bytes = utf8Length(prompt.trim());
	if (threads.length === 0 && argString(kit.arg, 'prompt') === undefined) {
		throw new Error(`agent ${agentId} has no open comments`);
	}
	if (bytes > LIMITS.promptBytes) {
		throw new Error(`the feedback is ${bytes} bytes, ${bytes - LIMITS.promptBytes} over the limit of ${LIMITS.promptBytes}`);
	}
	const run = await feature.deps.sendPrompt(agentId, prompt);
	if (run) {
		await feature.markSent(
			threads.map((t) => t.id),
			agentId,
			run.id,
		);
	}
	return run;
}
