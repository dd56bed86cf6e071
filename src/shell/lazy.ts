/**
 * Commands whose code loads on first use. Activation registers, for each of their ids, a stand-in
 * that loads the real code (dist/features.js in the bundle, see esbuild.mjs), which disposes every
 * stand-in, registers the real commands under the same ids, and runs the invoked command again with
 * the same arguments (`executeCommand` hands a command registered in this extension host its
 * arguments as they are: a tree row stays the same object). Webview panels VS Code restores after a
 * reload are handed to the loaded code too (activation's serializers, src/shell/standIns.ts, call
 * `restorePanel`), and so is the `cloud-agent:` file system (src/workspace/fs/lazyProvider.ts: its
 * first call loads the features).
 */
import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import { describeError } from '../messages/errors';
import { notificationText } from '../util/text';
import type { WorkspaceFeature } from '../workspace/workspaceFeature';
import type { ToolHandlers } from '../chat/lazyTools';
import type { AuthFlows } from '../auth/authProvider';
import type { DeploymentSessions } from '../auth/deploymentSessions';

/** What loading the features gives back: their registrations, and how to restore a panel of a type. */
export interface LoadedFeatures {
	disposables: vscode.Disposable[];
	/** The sign-in and sign-out flows (src/auth/signIn.ts: its code is here rather than at activation). */
	auth: AuthFlows;
	/** Every configured deployment's session, the default one first (here, not at activation: with one deployment nothing of it is needed). */
	deployments: DeploymentSessions;
	/** Restores a webview panel VS Code brings back after a reload (by its view type). */
	restorePanel: (viewType: string, panel: vscode.WebviewPanel, state: unknown) => Promise<void>;
	/** Opens a run's result (the run follower's "Open Result"), as the Runs view's action does. */
	openRunResult: (agentId: string, runId: string) => Promise<void>;
	/**
	 * The agent workspace: the `cloud-agent:` file system provider (activation's stand-in hands it
	 * every call: src/workspace/fs/lazyProvider.ts), its cache and the interface check.
	 */
	workspace: WorkspaceFeature;
	/** The language-model tools' code (activation's stand-ins hand it every call: src/chat/lazyTools.ts). */
	chatTools: ToolHandlers;
	/** The model provider documents' file system (`cloud-agents-provider:`; activation's stand-in hands it every call). */
	modelProviders: vscode.FileSystemProvider;
}

/** Where `LazyFeatures` writes why loading failed. */
export interface LazyLogger {
	info(message: string): void;
	error(message: string | Error, ...args: unknown[]): void;
}

/**
 * The stand-ins for lazily loaded commands and panel serializers; loads the features at most once
 * (on the first command or restored panel, or `load()`), and owns what they register.
 */
export class LazyFeatures extends Disposable {
	private loaded: LoadedFeatures | undefined;
	private readonly stubs: vscode.Disposable[] = [];

	/**
	 * @param ids the command ids the features register (each gets a stand-in now)
	 * @param loadCode loads and runs the features' registration (synchronously: a `require`)
	 * @param report tells the user that loading failed (an error notification unless given)
	 */
	constructor(
		private readonly ids: readonly string[],
		private readonly loadCode: () => LoadedFeatures,
		private readonly log: LazyLogger,
		private readonly report: (message: string) => void = (message) => void vscode.window.showErrorMessage(notificationText(message)),
	) {
		super();
		this.installStubs();
		this.register({ dispose: () => this.disposeStubs() });
	}

	/** Whether the features' code has been loaded. */
	get isLoaded(): boolean {
		return this.loaded !== undefined;
	}

	/** The loaded features, or undefined before they load (reading this loads nothing). */
	get current(): LoadedFeatures | undefined {
		return this.loaded;
	}

	/** Loads the features (once): the stand-ins give way to the real commands. */
	load(): LoadedFeatures {
		if (this.loaded) {
			return this.loaded;
		}
		const started = performance.now();
		// The stand-ins go first: the real commands take the same ids.
		this.disposeStubs();
		let loaded: LoadedFeatures;
		try {
			loaded = this.loadCode();
		} catch (err) {
			this.installStubs();
			throw err;
		}
		this.loaded = loaded;
		for (const d of loaded.disposables) {
			this.register(d);
		}
		this.log.info(`Loaded the commands' code in ${(performance.now() - started).toFixed(1)} ms`);
		return loaded;
	}

	private async runLoaded(id: string, args: unknown[]): Promise<unknown> {
		try {
			this.load();
		} catch (err) {
			// Without its code no command can run: say so once per attempt, keep the extension up.
			this.log.error("Loading the commands' code failed:", err instanceof Error ? err : String(err));
			this.report(vscode.l10n.t('Cloud Agents could not load its commands: {0}', describeError(err)));
			return undefined;
		}
		return vscode.commands.executeCommand(id, ...args);
	}

	private installStubs(): void {
		for (const id of this.ids) {
			try {
				this.stubs.push(vscode.commands.registerCommand(id, (...args: unknown[]) => this.runLoaded(id, args)));
			} catch {
				// Already registered (a failed load got that far): the real command answers.
			}
		}
	}

	private disposeStubs(): void {
		for (const stub of this.stubs.splice(0)) {
			stub.dispose();
		}
	}
}
