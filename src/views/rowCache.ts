/**
 * The rows of a list as last loaded, kept in globalState so a view shows them at once when it opens,
 * marked as not yet refreshed, until the service answers (issue 23). Only what was loaded with the
 * same API URL and the same token is shown: an entry names the URL and a fingerprint of the token
 * (session.ts `CacheScope`: a truncated SHA-256, never the token), and is dropped as soon as the
 * sign-in state says otherwise (signed out, another token, another URL). One entry per list, the
 * first page at most (`MAX_ROWS`), each record stored as its descriptor's `cache.store` makes it and
 * read back through its strict `cache.restore` (globalState is outside our control too).
 */
import type * as vscode from 'vscode';
import { isJsonObject } from '../api';
import type { CacheScope } from '../auth/session';

export type { CacheScope };

/** The globalState key of every list's entry. */
export const ROW_CACHE_KEY = 'cloudAgents.rowCache';
/** At most this many rows per list are kept (the largest page size). */
export const MAX_ROWS = 100;
/** A list whose rows did not change is written again at most this often (its "last loaded" time). */
const REWRITE_MS = 60_000;

/** One list's rows as stored. */
interface Entry {
	v: 1;
	apiUrl: string;
	account: string;
	savedAt: number;
	items: unknown[];
}

/** Rows read back: the stored values (each still to pass the descriptor's `restore`) and when they were loaded. */
export interface CachedRows {
	readonly savedAt: number;
	readonly items: readonly unknown[];
}

/** What the cache reads the sign-in state from (the session). */
export interface CacheScopeSource {
	readonly cacheScope: CacheScope | undefined;
	readonly onDidChange: vscode.Event<void>;
}

function isEntry(value: unknown): value is Entry {
	if (!isJsonObject(value)) {
		return false;
	}
	const e = value as Partial<Entry>;
	return (
		e.v === 1 &&
		typeof e.apiUrl === 'string' &&
		typeof e.account === 'string' &&
		typeof e.savedAt === 'number' &&
		Number.isFinite(e.savedAt) &&
		Array.isArray(e.items) &&
		e.items.length <= MAX_ROWS
	);
}

/** The rows of every list as last loaded (see the module comment). */
export class RowCache {
	/** What was written last per list (its items as JSON) and when: the same rows are not written on every poll. */
	private readonly written = new Map<string, { json: string; at: number }>();
	private readonly subscription: vscode.Disposable;

	constructor(
		private readonly memento: vscode.Memento,
		private readonly scope: CacheScopeSource,
		private readonly onError: (err: unknown) => void = () => undefined,
	) {
		// Every change of the sign-in state drops the entries it no longer allows (all of them once signed out).
		this.subscription = scope.onDidChange(() => this.prune());
	}

	/** The rows of a list as last loaded with the current URL and token, or undefined. Synchronous (a globalState read). */
	read(listKey: string): CachedRows | undefined {
		const scope = this.scope.cacheScope;
		const entry = this.entries()[listKey];
		if (!scope || !isEntry(entry) || entry.apiUrl !== scope.apiUrl || entry.account !== scope.account) {
			return undefined;
		}
		return { savedAt: Math.min(entry.savedAt, Date.now()), items: entry.items };
	}

	/**
	 * Keeps the first rows of a list loaded by a read that started at `startedAt`: only when the sign-in
	 * state is known and did not change since the read started (else the read may have used another token).
	 */
	write(listKey: string, items: readonly unknown[], startedAt: number | undefined): void {
		const scope = this.scope.cacheScope;
		if (!scope || startedAt === undefined || startedAt <= scope.since) {
			return;
		}
		const kept = items.slice(0, MAX_ROWS);
		const json = JSON.stringify(kept);
		const last = this.written.get(listKey);
		const now = Date.now();
		if (last && last.json === json && now - last.at < REWRITE_MS) {
			return;
		}
		this.written.set(listKey, { json, at: now });
		const entry: Entry = { v: 1, apiUrl: scope.apiUrl, account: scope.account, savedAt: now, items: JSON.parse(json) as unknown[] };
		this.update({ ...this.entries(), [listKey]: entry });
	}

	/** Forgets every list's rows. */
	clear(): void {
		this.written.clear();
		if (this.memento.get(ROW_CACHE_KEY) !== undefined) {
			this.update(undefined);
		}
	}

	/** Drops the entries of another URL or token (every entry while signed out). */
	prune(): void {
		const scope = this.scope.cacheScope;
		if (!scope) {
			this.clear();
			return;
		}
		const entries = this.entries();
		const kept = Object.fromEntries(
			Object.entries(entries).filter(([, e]) => isEntry(e) && e.apiUrl === scope.apiUrl && e.account === scope.account),
		);
		if (Object.keys(kept).length !== Object.keys(entries).length) {
			this.written.clear();
			this.update(Object.keys(kept).length > 0 ? kept : undefined);
		}
	}

	dispose(): void {
		this.subscription.dispose();
	}

	private entries(): Record<string, unknown> {
		const value = this.memento.get<unknown>(ROW_CACHE_KEY);
		return isJsonObject(value) ? value : {};
	}

	private update(value: unknown): void {
		void Promise.resolve(this.memento.update(ROW_CACHE_KEY, value)).catch(this.onError);
	}
}
