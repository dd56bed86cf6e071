/**
 * The Activity history (issue 45): the newest HISTORY_MAX_ENTRIES events of one account at one API
 * URL, newest first, each read or unread, kept in a vscode.Memento (globalState) so it survives a
 * reload and a restart. Its key names the API URL and the account only through a fingerprint
 * (`historyKey`: a truncated SHA-256 of the URL and the session's account fingerprint; never the
 * token), as the rows as last loaded do (src/views/rowCache.ts).
 *
 * globalState is shared by the windows of a profile: every change reads what is stored first and
 * merges (an event is one entry by its key; read wins over unread), so two windows adding the same
 * event or marking different ones read end with one entry each. Each window's globalState is a copy
 * that hears of the others' writes a moment later, so a window adding an event may write the entries
 * back over a read mark it has not heard of yet: what was read is therefore kept under a key of its
 * own (READ_KEY_PREFIX), written only when a person reads something, and an entry is read when either key
 * says so. What is stored is read back as
 * strictly as anything from the server (`restoreEvent`): the memory it takes is bounded by the
 * entry count and the text bounds of events.ts, and does not grow with time.
 */
import * as vscode from 'vscode';
import { isJsonObject, isSafeId } from '../api/validation';
import { sha256HexSync } from '../base/random';
import { singleLine } from '../util/text';
import {
	ACTIVITY_REASON_MAX_CHARS,
	ACTIVITY_TEXT_MAX_CHARS,
	type ActivityEvent,
	type ActivityEventKind,
	type ActivityOutcome,
	eventText,
	httpsUrl,
} from './events';

/** Entries kept per account and API URL: the newest; older ones are dropped as new ones come. */
export const HISTORY_MAX_ENTRIES = 200;
/** Prefix of the globalState key of a history (the rest is `historyKey`'s fingerprint). */
export const HISTORY_KEY_PREFIX = 'cloudAgents.activity.';
/** Prefix of the globalState key of a history's read marks (the rest is the history's fingerprint). */
const READ_KEY_PREFIX = 'cloudAgents.activityRead.';
/** Longest event key read back (keys name a kind and up to two ids). */
const KEY_MAX_CHARS = 600;

/** Whose history: the API URL and the session's account fingerprint (src/auth/session.ts `CacheScope`). */
export interface ActivityScope {
	readonly apiUrl: string;
	/** A fingerprint of the account (never the token itself). */
	readonly account: string;
}

/** The globalState key of the history of `scope`: a fingerprint of its URL and account, nothing readable. */
export function historyKey(scope: ActivityScope): string {
	return `${HISTORY_KEY_PREFIX}${sha256HexSync(`${scope.apiUrl}\n${scope.account}`).slice(0, 32)}`;
}

/** One entry of the history. */
export interface HistoryEntry {
	readonly event: ActivityEvent;
	readonly read: boolean;
}

interface Stored {
	v: 1;
	entries: Array<{ event: ActivityEvent; read: boolean }>;
}

/** The keys of the entries read (at most HISTORY_MAX_ENTRIES: those of entries kept). */
interface StoredReads {
	v: 1;
	keys: string[];
}

const KINDS: ReadonlySet<ActivityEventKind> = new Set([
	'runEnded',
	'runWaiting',
	'agentWaiting',
	'githubAuthorization',
	'runtimeFailed',
	'buildEnded',
]);
const OUTCOMES: ReadonlySet<ActivityOutcome> = new Set(['succeeded', 'failed', 'cancelled', 'ended']);
const ID_MEMBERS = ['agentId', 'runId', 'runtimeId', 'buildId', 'requestId'] as const;
const TEXT_MEMBERS = ['status', 'agentName', 'runtimeName', 'buildName', 'requestedBy'] as const;

/** An event read back from storage: checked member by member (bounded text, safe ids, an https link); undefined when it is not one. */
export function restoreEvent(value: unknown): ActivityEvent | undefined {
	if (!isJsonObject(value)) {
		return undefined;
	}
	const v = value;
	if (
		typeof v.key !== 'string' ||
		v.key === '' ||
		v.key.length > KEY_MAX_CHARS ||
		!KINDS.has(v.kind as ActivityEventKind) ||
		typeof v.at !== 'number' ||
		!Number.isFinite(v.at)
	) {
		return undefined;
	}
	const event: Record<string, unknown> = { key: v.key, kind: v.kind, at: v.at };
	for (const name of ID_MEMBERS) {
		if (isSafeId(v[name])) {
			event[name] = v[name];
		}
	}
	for (const name of TEXT_MEMBERS) {
		const text = eventText(v[name], ACTIVITY_TEXT_MAX_CHARS);
		if (text !== undefined) {
			event[name] = text;
		}
	}
	for (const name of ['reason', 'detail'] as const) {
		const text = eventText(v[name], ACTIVITY_REASON_MAX_CHARS);
		if (text !== undefined) {
			event[name] = text;
		}
	}
	if (OUTCOMES.has(v.outcome as ActivityOutcome)) {
		event.outcome = v.outcome;
	}
	const url = httpsUrl(v.authorizationUrl);
	if (url !== undefined) {
		event.authorizationUrl = url;
	}
	return event as unknown as ActivityEvent;
}

/** Newest first: by the event's time, then by key (a stable order for equal times). */
export function newestFirst(a: HistoryEntry, b: HistoryEntry): number {
	return b.event.at - a.event.at || (a.event.key < b.event.key ? -1 : a.event.key > b.event.key ? 1 : 0);
}

/** The bounded, persisted history of one account (see the module comment). */
export class ActivityHistory implements vscode.Disposable {
	private readonly _onDidChange = new vscode.EventEmitter<void>();
	/** Entries were added, or read state changed. */
	readonly onDidChange: vscode.Event<void> = this._onDidChange.event;
	private readonly key: string;
	private readonly readsKey: string;
	private list: HistoryEntry[];

	constructor(
		private readonly memento: Pick<vscode.Memento, 'get' | 'update'>,
		scope: ActivityScope,
		private readonly onError: (err: unknown) => void = () => undefined,
	) {
		this.key = historyKey(scope);
		this.readsKey = READ_KEY_PREFIX + this.key.slice(HISTORY_KEY_PREFIX.length);
		this.list = this.readStored();
	}

	/** Every entry, newest first (at most HISTORY_MAX_ENTRIES). */
	entries(): readonly HistoryEntry[] {
		return this.list;
	}

	/** Entries not yet read (the badge). */
	get unreadCount(): number {
		return this.list.reduce((n, e) => n + (e.read ? 0 : 1), 0);
	}

	/** The time of the newest event, if any: the watcher's `since` after a reload (catch-up). */
	get newestAt(): number | undefined {
		return this.list[0]?.event.at;
	}

	/** The entry of an event key, if kept. */
	get(key: string): HistoryEntry | undefined {
		return this.list.find((e) => e.event.key === key);
	}

	/**
	 * Adds events not kept yet (by key) as unread and stores the history; returns the entries it
	 * added. Events older than the oldest kept entry of a full history are not added.
	 */
	add(events: readonly ActivityEvent[]): HistoryEntry[] {
		const merged = this.merged();
		const keys = new Set(merged.map((e) => e.event.key));
		const added: HistoryEntry[] = [];
		for (const event of events) {
			if (keys.has(event.key)) {
				continue;
			}
			const restored = restoreEvent(event);
			if (!restored) {
				continue;
			}
			keys.add(event.key);
			const entry = { event: restored, read: false };
			merged.push(entry);
			added.push(entry);
		}
		const kept = this.bounded(merged);
		const keptKeys = new Set(kept.map((e) => e.event.key));
		const really = added.filter((e) => keptKeys.has(e.event.key));
		this.commit(kept, really.length > 0 || kept.length !== this.list.length);
		return really;
	}

	/** Marks one entry read; false when no entry has that key. */
	markRead(key: string): boolean {
		const merged = this.merged();
		const entry = merged.find((e) => e.event.key === key);
		if (!entry) {
			return false;
		}
		this.commit(
			merged.map((e) => (e === entry ? { event: e.event, read: true } : e)),
			!entry.read,
			true,
		);
		return true;
	}

	/** Marks every entry read. */
	markAllRead(): void {
		const merged = this.merged();
		this.commit(
			merged.map((e) => (e.read ? e : { event: e.event, read: true })),
			merged.some((e) => !e.read),
			true,
		);
	}

	/**
	 * Reads the stored history again (another window of the profile changed it), merged with what
	 * this window holds: what another window wrote over before it heard of it is stored again.
	 */
	reload(): void {
		const stored = this.readStored();
		const merged = this.bounded(this.merged(stored));
		const text = JSON.stringify(merged);
		const changed = text !== JSON.stringify(this.list);
		if (text !== JSON.stringify(stored)) {
			// Another window wrote over what this one holds before it heard of it: stored again.
			const read = new Set(stored.filter((e) => e.read).map((e) => e.event.key));
			this.commit(
				merged,
				changed,
				merged.some((e) => e.read && !read.has(e.event.key)),
			);
		} else {
			this.list = merged;
			if (changed) {
				this._onDidChange.fire();
			}
		}
	}

	dispose(): void {
		this._onDidChange.dispose();
	}

	/** What is stored merged with what this window holds: one entry per key, read if either says so. */
	private merged(stored: HistoryEntry[] = this.readStored()): HistoryEntry[] {
		const byKey = new Map<string, HistoryEntry>();
		for (const entry of [...stored, ...this.list]) {
			const had = byKey.get(entry.event.key);
			byKey.set(entry.event.key, had ? { event: had.event, read: had.read || entry.read } : entry);
		}
		return [...byKey.values()];
	}

	private bounded(entries: HistoryEntry[]): HistoryEntry[] {
		return entries.sort(newestFirst).slice(0, HISTORY_MAX_ENTRIES);
	}

	/** Stores `entries` (the read marks too when `reads`: a person read something) and holds them. */
	private commit(entries: HistoryEntry[], changed: boolean, reads = false): void {
		this.list = this.bounded(entries);
		const stored: Stored = { v: 1, entries: this.list.map((e) => ({ event: e.event, read: e.read })) };
		this.memento.update(this.key, stored).then(undefined, (err: unknown) => this.onError(err));
		if (reads) {
			const marks: StoredReads = { v: 1, keys: this.list.filter((e) => e.read).map((e) => e.event.key) };
			this.memento.update(this.readsKey, marks).then(undefined, (err: unknown) => this.onError(err));
		}
		if (changed) {
			this._onDidChange.fire();
		}
	}

	private readStored(): HistoryEntry[] {
		const raw = this.memento.get<unknown>(this.key);
		if (!isJsonObject(raw) || raw.v !== 1) {
			return [];
		}
		const list = raw.entries;
		if (!Array.isArray(list)) {
			return [];
		}
		const reads = this.readMarks();
		const out: HistoryEntry[] = [];
		const keys = new Set<string>();
		for (const item of list.slice(0, HISTORY_MAX_ENTRIES)) {
			const entry = isJsonObject(item) ? item : {};
			const event = restoreEvent(entry.event);
			if (event && !keys.has(event.key)) {
				keys.add(event.key);
				out.push({ event, read: entry.read === true || reads.has(event.key) });
			}
		}
		return out.sort(newestFirst);
	}

	/** The keys stored as read (bounded; anything else is ignored). */
	private readMarks(): Set<string> {
		const raw = this.memento.get<unknown>(this.readsKey);
		const keys = isJsonObject(raw) && raw.v === 1 && Array.isArray(raw.keys) ? raw.keys.slice(0, HISTORY_MAX_ENTRIES) : [];
		return new Set(keys.filter((k) => typeof k === 'string'));
	}
}

/**
 * One line that says what an event is, for a row or a notification: the parts from the server
 * neutralised and cut (src/util/text.ts `singleLine`). A notification passes the whole through
 * `notificationText` too.
 */
export function describeEvent(event: ActivityEvent): string {
	const what = describeWhat(event);
	// With two or more deployments configured, each entry names its own (issue 47).
	return event.deployment === undefined ? what : vscode.l10n.t('{0} · {1}', what, singleLine(event.deployment));
}

function describeWhat(event: ActivityEvent): string {
	const t = (value: string | undefined): string => singleLine(value ?? '');
	const agent = t(event.agentName) || t(event.agentId) || vscode.l10n.t('An agent');
	switch (event.kind) {
		case 'runEnded':
			switch (event.outcome) {
				case 'succeeded':
					return vscode.l10n.t('{0}: run succeeded', agent);
				case 'failed':
					return vscode.l10n.t('{0}: run failed ({1})', agent, t(event.status));
				case 'cancelled':
					return vscode.l10n.t('{0}: run cancelled', agent);
				default:
					return vscode.l10n.t('{0}: run ended ({1})', agent, t(event.status));
			}
		case 'runWaiting':
			return vscode.l10n.t('{0}: run waits for you ({1})', agent, t(event.status));
		case 'agentWaiting':
			return vscode.l10n.t('{0} waits for you ({1})', agent, t(event.status));
		case 'githubAuthorization': {
			const who = t(event.requestedBy) || vscode.l10n.t('An agent');
			return event.reason
				? vscode.l10n.t('{0} asks for GitHub access: {1}', who, singleLine(event.reason, ACTIVITY_REASON_MAX_CHARS))
				: vscode.l10n.t('{0} asks for GitHub access', who);
		}
		case 'runtimeFailed':
			return vscode.l10n.t('Runtime {0} is {1}', t(event.runtimeName) || t(event.runtimeId), t(event.status));
		case 'buildEnded':
			return event.outcome === 'succeeded'
				? vscode.l10n.t('Image build {0} succeeded', t(event.buildName) || t(event.buildId))
				: vscode.l10n.t('Image build {0} ended ({1})', t(event.buildName) || t(event.buildId), t(event.status));
	}
}
