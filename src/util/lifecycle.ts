import type * as vscode from 'vscode';

/**
 * Base class for objects that own other disposables. Whoever creates a resource registers it here,
 * so disposing the owner disposes everything it created, newest first.
 */
export abstract class Disposable implements vscode.Disposable {
	private readonly children: vscode.Disposable[] = [];
	private disposed = false;

	/** Takes ownership of `child` and returns it; disposes it at once when this owner is already disposed. */
	protected register<T extends vscode.Disposable>(child: T): T {
		if (this.disposed) {
			child.dispose();
		} else {
			this.children.push(child);
		}
		return child;
	}

	/** Whether `dispose()` has run. */
	protected get isDisposed(): boolean {
		return this.disposed;
	}

	/** Disposes every registered child in reverse order; later calls do nothing. */
	dispose(): void {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		for (const child of this.children.splice(0).reverse()) {
			child.dispose();
		}
	}
}

/** Wraps a function as a disposable that runs it once. */
export function toDisposable(fn: () => void): vscode.Disposable {
	let done = false;
	return {
		dispose: () => {
			if (!done) {
				done = true;
				fn();
			}
		},
	};
}

/** Something that reads its state once at start-up and says so (the session: `initialized` after the first `onDidChange`). */
export interface ReadOnce {
	readonly initialized: boolean;
	onDidChange(listener: () => void): vscode.Disposable;
}

/** Resolves once `source` has read its state, or after `maxMs` (then as it stands). */
export function whenRead(source: ReadOnce, maxMs: number): Promise<void> {
	if (source.initialized) {
		return Promise.resolve();
	}
	return new Promise<void>((resolve) => {
		const done = (): void => {
			clearTimeout(timer);
			subscription.dispose();
			resolve();
		};
		const subscription = source.onDidChange(done);
		const timer = setTimeout(done, maxMs);
		if (source.initialized) {
			done();
		}
	});
}

/** A session as `onSignedOut` reads it: whether it is signed in, and when that may have changed. */
export interface SignedInState {
	readonly signedIn: boolean;
	onDidChange(listener: () => void): vscode.Disposable;
}

/** Calls `listener` each time `session` goes from signed in to signed out (not on other changes). */
export function onSignedOut(session: SignedInState, listener: () => void): vscode.Disposable {
	let signedIn = session.signedIn;
	return session.onDidChange(() => {
		const was = signedIn;
		signedIn = session.signedIn;
		if (was && !signedIn) {
			listener();
		}
	});
}
