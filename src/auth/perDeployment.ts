/**
 * One thing per deployment (issue 47): what a feature keeps for each deployment other than the
 * default one — its lists, its agent workspaces, its run follower, what its sign-out takes with it —
 * made when the deployment is signed in (or configured), disposed when it goes: signed out, removed
 * from the settings, or renamed (its session is then another). The default deployment has none: its
 * things are the extension's own, made at activation, and outlive these.
 */
import * as vscode from 'vscode';
import type { Deployment } from './deployments';
import { KeyedHolder, type PerDeploymentItem } from './keyedHolder';

export type { PerDeploymentItem } from './keyedHolder';

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
