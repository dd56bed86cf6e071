/**
 * The one keyed sync of the deployments' holders (issue 47): things kept by key, each made for what
 * it is wanted for and disposed when that changes or it is no longer wanted. PerDeployment
 * (perDeployment.ts) keeps a thing per deployment with it, DeploymentSessions the sessions, and
 * Activity (src/activity/activity.ts) a watching per signed-in account; apart from PerDeployment so
 * that Activity, loaded from the start, takes only this.
 */
import type * as vscode from 'vscode';

/** What a per-deployment thing may do beside being disposed. */
export interface PerDeploymentItem extends vscode.Disposable {
	/**
	 * Its deployment went (signed out, removed, renamed): called just before `dispose`, and not when
	 * the holder itself is disposed (the window closing keeps what a sign-out would clear).
	 */
	gone?(): void;
}

/**
 * Things kept by key, each made from what it is wanted for and disposed when that changes (`same`
 * says it did not) or it is no longer wanted: the one keyed sync of the deployments' holders.
 */
export class KeyedHolder<W, T extends PerDeploymentItem> implements vscode.Disposable {
	private readonly held = new Map<string, { readonly wanted: W; readonly item: T }>();
	private disposed = false;
	/** Keys whose things are being disposed (a sync their disposal causes leaves them to it). */
	private readonly dropping = new Set<string>();

	constructor(
		private readonly make: (wanted: W) => T,
		private readonly same: (held: W, now: W) => boolean,
	) {}

	/** The thing held for `key`, if any. */
	get(key: string): T | undefined {
		return this.held.get(key)?.item;
	}

	/** Whether a thing is held for `key`. */
	has(key: string): boolean {
		return this.held.has(key);
	}

	/** The things held, with their keys and what each was made for, in the order they were made. */
	*entries(): IterableIterator<[string, T, W]> {
		for (const [key, { item, wanted }] of this.held) {
			yield [key, item, wanted];
		}
	}

	get size(): number {
		return this.held.size;
	}

	/**
	 * Drops (gone, then disposed) what is no longer wanted or is wanted otherwise, then makes what
	 * is wanted and not held, in `wanted`'s order; true when anything was dropped or made.
	 */
	sync(wanted: ReadonlyMap<string, W>): boolean {
		if (this.disposed) {
			return false;
		}
		let changed = false;
		for (const [key, held] of [...this.held]) {
			const now = wanted.get(key);
			if (now === undefined || !this.same(held.wanted, now)) {
				this.drop(key, true);
				changed = true;
			}
		}
		for (const [key, now] of wanted) {
			if (!this.held.has(key)) {
				this.held.set(key, { wanted: now, item: this.make(now) });
				changed = true;
			}
		}
		return changed;
	}

	/** Disposes every thing held (none is told it is gone) and makes nothing more. */
	dispose(): void {
		this.disposed = true;
		for (const key of [...this.held.keys()]) {
			this.drop(key, false);
		}
	}

	/** Tells the thing of `key` it is gone (unless the holder goes), disposes it, then lets go of it: it is found until it is disposed. */
	private drop(key: string, gone: boolean): void {
		const held = this.held.get(key);
		if (!held || this.dropping.has(key)) {
			return;
		}
		this.dropping.add(key);
		try {
			if (gone) {
				held.item.gone?.();
			}
			held.item.dispose();
		} finally {
			this.held.delete(key);
			this.dropping.delete(key);
		}
	}
}
