/**
 * Review comments on the agents' changes (issue 46), kept per agent in `globalState` so a reload
 * keeps them: a thread is a range of one of an agent's files, the lines it was about when it was
 * written (a bounded quote for the prompt, and the digest of the whole range to tell later whether
 * those lines changed), its comments and its state. Bounded (threads, comments per thread, text per
 * comment, characters in all); a change that would pass a bound is refused, never made room for by
 * dropping a comment. What is read back is checked: a damaged record is dropped, never trusted. The
 * prompt of a failed Send Feedback is kept too (per agent), so the next one offers it again.
 *
 * No `vscode` import: the unit tests check it in plain Node.
 */
import { isJsonObject } from '../api/validation';
import { randomHex, sha256HexSync } from '../base/random';
import { utf8Length } from '../base/bytes';
import { LIMITS } from '../base/limits';
import { QUOTE_MAX_CHARS, QUOTE_MAX_LINES } from './feedbackPrompt';

/** The `globalState` key of the threads. */
export const THREADS_KEY = 'cloudAgents.review.threads';
/** The `globalState` key of the prompts not sent (per agent). */
export const DRAFTS_KEY = 'cloudAgents.review.drafts';

/** At most this many threads in all (every agent's). */
export const MAX_THREADS = 300;
/** At most this many comments in one thread. */
export const MAX_COMMENTS_PER_THREAD = 20;
/** Longest comment, in characters. */
export const MAX_COMMENT_CHARS = 8_000;
/** At most this many characters of comments and quotes in all (what `globalState` holds stays small). */
export const MAX_TOTAL_CHARS = 2_000_000;
/** At most this many agents' unsent prompts (the oldest goes: a prompt is a copy, its comments stay). */
export const MAX_DRAFTS = 20;

/**
 * A thread's state: `open` (not sent, or sent and its lines unchanged since the run ended), `sent`
 * (in a run that has not been seen to end), `outdated` (its lines changed after it was sent: shown
 * resolved, kept until the person deletes it).
 */
export type ThreadState = 'open' | 'sent' | 'outdated';

export interface StoredComment {
	id: string;
	body: string;
	/** Epoch ms. */
	created: number;
}

export interface StoredThread {
	id: string;
	agentId: string;
	/** The file's path in the agent's workspace (relative, `/`-separated). */
	path: string;
	/** First line of the range, 0-based. */
	startLine: number;
	/** Last line of the range, 0-based, inclusive. */
	endLine: number;
	/** The range's lines when the thread was started, cut to the prompt's quote bound. */
	quote: string[];
	/** The SHA-256 (hex) of the whole range's lines when the thread was started (joined with `\n`). */
	digest: string;
	comments: StoredComment[];
	state: ThreadState;
	/** The run the comments went in (state `sent`, and after). */
	sentRunId?: string;
}

const ID = /^[a-z0-9]{1,40}$/;
const HEX64 = /^[0-9a-f]{64}$/;
const STATES: ReadonlySet<string> = new Set(['open', 'sent', 'outdated']);
const MAX_LINE = 10_000_000;

/** A fresh id for a thread or comment. */
export function newId(): string {
	return randomHex(8);
}

/** The digest of a range's lines (what tells later whether they changed). */
export function digestOf(lines: readonly string[]): string {
	return sha256HexSync(lines.join('\n'));
}

/** The lines of a range as the store keeps them for the prompt: at most the quote's bound (the prompt cuts and says so). */
export function storedQuote(lines: readonly string[]): string[] {
	const out: string[] = [];
	let chars = 0;
	for (const line of lines.slice(0, QUOTE_MAX_LINES + 1)) {
		out.push(line.slice(0, QUOTE_MAX_CHARS + 1));
		chars += line.length;
		if (chars > QUOTE_MAX_CHARS) {
			break;
		}
	}
	return out;
}

/** Lines `startLine`…`endLine` (0-based, inclusive) of `text`, line breaks of any convention; undefined when the text has fewer lines. */
export function linesOf(text: string, startLine: number, endLine: number): string[] | undefined {
	const lines = text.split(/\r\n|\r|\n/);
	if (endLine >= lines.length) {
		return undefined;
	}
	return lines.slice(startLine, endLine + 1);
}

/**
 * A path in an agent's workspace as a thread keeps it: relative, no empty, `.` or `..` segment, within
 * the service's path limit. Any other character is allowed (the agent's file names are its own: a
 * name may hold a newline); the path reaches the service only through the client, which checks it.
 */
export function isAgentPath(path: unknown): path is string {
	return (
		typeof path === 'string' &&
		path !== '' &&
		utf8Length(path) <= LIMITS.workspacePathBytes &&
		path.split('/').every((s) => s !== '' && s !== '.' && s !== '..')
	);
}

function isLine(n: unknown): n is number {
	return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0 && n <= MAX_LINE;
}

function checkComment(value: unknown): StoredComment | undefined {
	if (!isJsonObject(value)) {
		return undefined;
	}
	const { id, body, created } = value;
	if (typeof id !== 'string' || !ID.test(id) || typeof body !== 'string' || body.length > MAX_COMMENT_CHARS) {
		return undefined;
	}
	return { id, body, created: typeof created === 'number' && Number.isFinite(created) ? created : 0 };
}

/** One thread read back, checked; undefined when anything in it is damaged. */
export function checkThread(value: unknown): StoredThread | undefined {
	if (!isJsonObject(value)) {
		return undefined;
	}
	const v = value;
	if (
		typeof v.id !== 'string' ||
		!ID.test(v.id) ||
		typeof v.agentId !== 'string' ||
		v.agentId === '' ||
		v.agentId.length > LIMITS.identifierLength.max ||
		typeof v.path !== 'string' ||
		!isLine(v.startLine) ||
		!isLine(v.endLine) ||
		v.endLine < v.startLine ||
		!Array.isArray(v.quote) ||
		v.quote.length > QUOTE_MAX_LINES + 1 ||
		!v.quote.every((l) => typeof l === 'string' && l.length <= QUOTE_MAX_CHARS + 1) ||
		typeof v.digest !== 'string' ||
		!HEX64.test(v.digest) ||
		!Array.isArray(v.comments) ||
		v.comments.length === 0 ||
		v.comments.length > MAX_COMMENTS_PER_THREAD ||
		typeof v.state !== 'string' ||
		!STATES.has(v.state) ||
		(v.sentRunId !== undefined && (typeof v.sentRunId !== 'string' || v.sentRunId.length > LIMITS.identifierLength.max))
	) {
		return undefined;
	}
	if (!isAgentPath(v.path)) {
		return undefined;
	}
	const comments = v.comments.map(checkComment);
	if (comments.some((c) => c === undefined)) {
		return undefined;
	}
	return {
		id: v.id,
		agentId: v.agentId,
		path: v.path,
		startLine: v.startLine,
		endLine: v.endLine,
		quote: v.quote as string[],
		digest: v.digest,
		comments: comments as StoredComment[],
		state: v.state as ThreadState,
		...(typeof v.sentRunId === 'string' ? { sentRunId: v.sentRunId } : {}),
	};
}

/** The threads kept under THREADS_KEY, checked: damaged ones and repeated ids are dropped; at most MAX_THREADS. */
export function readThreads(value: unknown): StoredThread[] {
	if (!isJsonObject(value) || value.v !== 1 || !Array.isArray(value.threads)) {
		return [];
	}
	const out: StoredThread[] = [];
	const ids = new Set<string>();
	for (const item of value.threads.slice(0, MAX_THREADS)) {
		const t = checkThread(item);
		if (t && !ids.has(t.id)) {
			ids.add(t.id);
			out.push(t);
		}
	}
	return out;
}

/** The threads as stored. */
export function writeThreads(threads: readonly StoredThread[]): { v: 1; threads: readonly StoredThread[] } {
	return { v: 1, threads };
}

/** Characters of comments and quotes in `threads`. */
export function totalChars(threads: readonly StoredThread[]): number {
	let n = 0;
	for (const t of threads) {
		n += t.path.length;
		for (const l of t.quote) {
			n += l.length;
		}
		for (const c of t.comments) {
			n += c.body.length;
		}
	}
	return n;
}

/** A bound `threads` would pass, or undefined (the caller says it in the person's words). */
export function boundProblem(
	threads: readonly StoredThread[],
): { kind: 'threads' | 'comments' | 'commentChars' | 'totalChars'; max: number } | undefined {
	if (threads.length > MAX_THREADS) {
		return { kind: 'threads', max: MAX_THREADS };
	}
	if (threads.some((t) => t.comments.length > MAX_COMMENTS_PER_THREAD)) {
		return { kind: 'comments', max: MAX_COMMENTS_PER_THREAD };
	}
	if (threads.some((t) => t.comments.some((c) => c.body.length > MAX_COMMENT_CHARS))) {
		return { kind: 'commentChars', max: MAX_COMMENT_CHARS };
	}
	if (totalChars(threads) > MAX_TOTAL_CHARS) {
		return { kind: 'totalChars', max: MAX_TOTAL_CHARS };
	}
	return undefined;
}

/** The unsent prompts kept under DRAFTS_KEY, checked (by agent id; at most MAX_DRAFTS, each within twice the prompt limit). */
export function readDrafts(value: unknown): Map<string, string> {
	const out = new Map<string, string>();
	if (!isJsonObject(value)) {
		return out;
	}
	for (const [agentId, text] of Object.entries(value).slice(0, MAX_DRAFTS)) {
		if (
			agentId !== '' &&
			agentId.length <= LIMITS.identifierLength.max &&
			typeof text === 'string' &&
			text.length <= 2 * LIMITS.promptBytes
		) {
			out.set(agentId, text);
		}
	}
	return out;
}

/** `drafts` with `agentId`'s set to `text` (undefined or blank: forgotten), the oldest going past MAX_DRAFTS. */
export function withDraft(drafts: ReadonlyMap<string, string>, agentId: string, text: string | undefined): Record<string, string> {
	const next = new Map(drafts);
	next.delete(agentId);
	if (text !== undefined && text.trim() !== '') {
		next.set(agentId, text.slice(0, 2 * LIMITS.promptBytes));
	}
	const entries = [...next.entries()];
	return Object.fromEntries(entries.slice(Math.max(0, entries.length - MAX_DRAFTS)));
}
