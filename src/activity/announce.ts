/**
 * One announcement per event, whichever windows of a profile are open (issue 45): before a window
 * shows a notification for an event it claims the event, and only the window whose claim succeeds
 * announces it.
 *
 * Why a claim in a shared store and not a mark in globalState: globalState is shared by the
 * windows of a profile but has no compare-and-set; two windows that poll at the same moment both
 * read "not announced", both write "announced" and both notify. A claim needs an operation that
 * succeeds for exactly one caller. The most reliable one every host has is creating a file that
 * must not exist yet, in a folder the windows share: the extension's `globalStorageUri` (one per
 * profile, shared by its windows, local or remote):
 * - Node's extension host (desktop, remote, code-server): `open(path, 'wx')` (O_CREAT | O_EXCL),
 *   atomic on local file systems and on NFSv3 and later: src/platform/node/claimFiles.ts;
 * - the browser's (VS Code for the Web): `vscode.workspace.fs` has no exclusive create, so the
 *   check and the write run under a Web Lock (`navigator.locks`, exclusive across the tabs and
 *   workers of one origin, which is what the windows of one browser profile share); where the
 *   Web Locks API is missing, a check-then-write that leaves a window of a few milliseconds, so two
 *   windows could both announce in that case only: src/platform/web/claimStore.ts.
 * Each platform's store is a factory in its room (`nodeClaimStore(folder)`, `webClaimStore(folder)`);
 * the entry that wires Activity hands the one of its host down (the Platform type gains the member
 * then: adding it now would put the Node store into activation's bundle, over its bound).
 * A claim's name is a fingerprint of the API URL, the account and the event key (`claimName`): no
 * server id reaches a local path. Claims older than CLAIM_TTL_MS are pruned (at most
 * CLAIM_PRUNE_MAX a time), so the folder does not grow with time. If the store fails, the window
 * announces anyway (logged): a notification shown twice is better than one never shown.
 */
import { sha256HexSync } from '../base/random';
import type { Clock } from '../base/clock';
import { systemClock } from '../base/clock';
import type { ActivityEvent } from './events';
import type { ActivityScope } from './history';

/** How long a claim is kept: an event older than this is never announced again anyway (the watcher's keys and the history). */
export const CLAIM_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** Most claims one prune removes. */
export const CLAIM_PRUNE_MAX = 500;
/** How often an Announcer prunes (at most). */
export const CLAIM_PRUNE_EVERY_MS = 60 * 60 * 1000;
/** The shape of a claim name: lower-case hex, the only thing that becomes a file name. */
export const CLAIM_NAME = /^[0-9a-f]{40}$/;

/** Claims shared by the windows of a profile; each platform fills it (see the module comment). */
export interface ClaimStore {
	/**
	 * Claims `name` (matching CLAIM_NAME): resolves true for exactly one caller across the windows
	 * that share the store, false for every other. Rejects when the store cannot be used.
	 */
	claim(name: string): Promise<boolean>;
	/** Removes claims made before `before` (ms since the epoch), at most `max` of them. Never rejects. */
	prune(before: number, max: number): Promise<void>;
}

/** The claim name of an event of `scope`: a fingerprint, so neither the URL, the account nor a server id becomes a path. */
export function claimName(scope: ActivityScope, eventKey: string): string {
	return sha256HexSync(`${scope.apiUrl}\n${scope.account}\n${eventKey}`).slice(0, 40);
}

/** Decides, for this window, whether to announce an event (see the module comment). */
export class Announcer {
	private lastPrune = Number.NEGATIVE_INFINITY;
	private readonly clock: Clock;

	constructor(
		private readonly store: ClaimStore,
		private readonly scope: ActivityScope,
		private readonly options: { clock?: Clock; log?: (message: string) => void } = {},
	) {
		this.clock = options.clock ?? systemClock;
	}

	/**
	 * True when this window should announce `event`: it claimed it first. Every later call for the
	 * same event (this window or another) is false. A window that announced an event by other means
	 * (the run it follows) calls this too, so no other window repeats it.
	 */
	async shouldAnnounce(event: Pick<ActivityEvent, 'key'>): Promise<boolean> {
		this.pruneSometimes();
		try {
			return await this.store.claim(claimName(this.scope, event.key));
		} catch (err) {
			this.options.log?.(`activity: the claim store failed (${err instanceof Error ? err.message : String(err)}); announcing here`);
			return true;
		}
	}

	/**
	 * Notes that this window follows the run whose end `key` names, when following it starts: every
	 * other window then leaves that end to this one's run follower (`followedElsewhere`), so it is
	 * announced where the person watches it. Never rejects.
	 */
	async noteFollowing(key: string): Promise<void> {
		await this.followingClaim(key).catch(() => undefined);
	}

	/**
	 * True when a window noted that it follows the run whose end `key` names (its follower announces
	 * it). Asking leaves the note when there was none: a follow that starts after the end announces
	 * nothing new, its end claim being taken. False when the store fails (this window announces).
	 */
	async followedElsewhere(key: string): Promise<boolean> {
		return !(await this.followingClaim(key).catch(() => true));
	}

	/** The claim that a window follows the run whose end `key` names: true for the first to claim it. */
	private followingClaim(key: string): Promise<boolean> {
		return this.store.claim(claimName(this.scope, `following:${key}`));
	}

	private pruneSometimes(): void {
		const now = this.clock.now();
		if (now - this.lastPrune < CLAIM_PRUNE_EVERY_MS) {
			return;
		}
		this.lastPrune = now;
		void this.store.prune(now - CLAIM_TTL_MS, CLAIM_PRUNE_MAX).catch(() => undefined);
	}
}
