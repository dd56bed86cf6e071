/**
 * One thing per deployment (issue 47): what a feature keeps for each deployment other than the
 * default one — its lists, its agent workspaces, its run follower, what its sign-out takes with it —
 * made when the deployment is signed in (or configured), disposed when it goes: signed out, removed
 * from the settings, or renamed (its session is then another). The default deployment has none: its
 * things are the extension's own, made at activation, and outlive these.
 */
import * as vscode from 'vscode';
import type { Deployment } from './deployments';

/** What a per-deployment thing may do beside being disposed. */
export interface PerDeploymentItem extends vscode.Disposable {
	/**
	 * Its deployment went (signed out, removed, renamed): called just before `dispose`, and not when
	 * the holder itself is disposed (the window closing keeps what a sign-out would clear).
	 */
	gone?(): void;
}

/** A deployment and its session, as a holder reads them (DeploymentSessions' `all`). */
export interface HeldDeployment<S> {
	readonly deployment: Deployment;
	readonly session: S;
}

/** The deployments a holder follows: DeploymentSessions, or anything shaped like it. */
export interface PerDeploymentSource<S extends { readonly signedIn: boolean }> {
	/** Every configured deployment with its session, the default one first. */
	readonly all: readonly HeldDeployment<S>[];
	/** Fires when a deployment is added or removed, and when a session's sign-in state changes. */
	readonly onDidChange: vscode.Event<void>;
}

/** Which deployments get a thing: those signed in, or every configured one. */
export type PerDeploymentWhich = 'signedIn' | 'configured';

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

/**
 * A thing for each deployment of `source` other than the default one that is signed in
 * (`which: 'signedIn'`) or configured (`'configured'`), by deployment id: made by `make` when the
 * deployment comes (or when the holder is made), told it is gone and disposed when it goes (signed
 * out, removed, or its session replaced: a renamed deployment gets a new one). Disposing the holder
 * disposes them all.
 */
export class PerDeployment<S extends { readonly signedIn: boolean }, T extends PerDeploymentItem> implements vscode.Disposable {
	private readonly held: KeyedHolder<HeldDeployment<S>, T>;
	private readonly _onDidChange = new vscode.EventEmitter<void>();
	/** Fires after the holder followed a change of `source` (things made or disposed, or the list otherwise changed). */
	readonly onDidChange = this._onDidChange.event;
	private readonly listener: vscode.Disposable;

	constructor(
		private readonly source: PerDeploymentSource<S>,
		make: (deployment: HeldDeployment<S>) => T,
		private readonly which: PerDeploymentWhich,
	) {
		this.held = new KeyedHolder(make, (held, now) => held.session === now.session && held.deployment.name === now.deployment.name);
		this.listener = source.onDidChange(() => {
			this.sync();
			this._onDidChange.fire();
		});
		this.sync();
	}

	/** The thing of the deployment of this id; undefined for the default deployment and any not held. */
	get(deploymentId: string): T | undefined {
		return this.held.get(deploymentId);
	}

	/** The deployments held and their things, in the order they were made. */
	*[Symbol.iterator](): IterableIterator<[HeldDeployment<S>, T]> {
		for (const [, item, wanted] of this.held.entries()) {
			yield [wanted, item];
		}
	}

	/** The things held, in the order they were made. */
	values(): T[] {
		return [...this].map(([, item]) => item);
	}

	get size(): number {
		return this.held.size;
	}

	dispose(): void {
		this.listener.dispose();
		this.held.dispose();
		this._onDidChange.dispose();
	}

	private sync(): void {
		const wanted = new Map<string, HeldDeployment<S>>();
		for (const d of this.source.all) {
			if (!d.deployment.isDefault && (this.which === 'configured' || d.session.signedIn)) {
				// As it is now (a source may hand the same object, changed, next time).
				wanted.set(d.deployment.id, { deployment: d.deployment, session: d.session });
			}
		}
		this.held.sync(wanted);
	}
}

/** What makes holders of things per deployment: DeploymentSessions (`perDeployment`), or `holdersOf` any source of deployments. */
export interface PerDeploymentHolders<S extends { readonly signedIn: boolean }> {
	perDeployment<T extends PerDeploymentItem>(make: (deployment: HeldDeployment<S>) => T, which: PerDeploymentWhich): PerDeployment<S, T>;
}

/** Holders of things per deployment of `source` (what DeploymentSessions.perDeployment makes of its own). */
export function holdersOf<S extends { readonly signedIn: boolean }>(source: PerDeploymentSource<S>): PerDeploymentHolders<S> {
	return { perDeployment: (make, which) => new PerDeployment(source, make, which) };
}
