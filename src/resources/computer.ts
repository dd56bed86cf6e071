/**
 * "Open Computer": mints a computer session for an agent (with progress while the service readies
 * the desktop) and shows it in the agent's computer panel, one panel per agent. Also restores the
 * panels VS Code brings back after a reload. The command is an action of the agents resource
 * (src/resources/agents.ts), which finds the agent, remembers it and calls `openComputer`.
 */
import * as vscode from 'vscode';
import type { Agent, CloudAgentsClient, ComputerSession } from '../api';
import type { ActionSession } from '../views/actions';
import { notRunningAdvice, runtimeOfAgent } from './runtimes';
import { describeError, requestIdNote } from '../messages/errors';
import { onSignedOut } from '../util/lifecycle';
import { displayName, isStatus, showWarning, toAbortSignal } from '../views/ui';
import type { ComputerAgent, ComputerPanelHost } from '../webviews/computer/computerPanel';
import { ComputerPanel } from '../webviews/computer/computerPanel';
import { parseComputerPageState } from '../webviews/computer/protocol';
import { type PanelFeature, PanelManager } from '../webviews/panel';

/** What the computer panels need: the extension's context and log, and the shared client. */
export interface ComputerDeps {
	readonly context: vscode.ExtensionContext;
	readonly log: vscode.LogOutputChannel;
	/** The client of the agent's deployment (read per call: it follows the session). */
	client(this: void): CloudAgentsClient;
	/** Its session: signing out closes its computer panels (issue 42, item 5: they stayed open, showing the account's computers). */
	readonly session?: Pick<ActionSession, 'signedIn' | 'onDidChange'>;
	/**
	 * The deployment of the agent (an action's kit: `ActionKit.deployment`): its id when it is not
	 * the default one, and its name when two or more are configured (the panel's title says it).
	 */
	readonly deployment?: { readonly id: string | undefined; readonly shownName: string | undefined };
	/** The client, session and shown name of another configured deployment, by id: a panel of it VS Code restores mints through it. */
	deploymentOf?(this: void, id: string): Pick<ComputerDeps, 'client' | 'session' | 'deployment'> | undefined;
}

/** The panels' key of an agent: its id, after its deployment's for another deployment than the default one. */
function panelKey(agent: Pick<ComputerAgent, 'id' | 'deployment'>): string {
	return agent.deployment === undefined ? agent.id : `${agent.deployment}/${agent.id}`;
}

/** Mints a session with a cancellable progress notification; a 409 is explained, not thrown. */
async function mintSession(client: CloudAgentsClient, agent: ComputerAgent): Promise<ComputerSession | undefined> {
	const name = displayName(agent.name, agent.id);
	try {
		return await vscode.window.withProgress(
			{
				location: vscode.ProgressLocation.Notification,
				title: vscode.l10n.t('Opening the computer of {0}', name),
				cancellable: true,
			},
			async (progress, token) => {
				progress.report({ message: vscode.l10n.t('the service is readying the desktop…') });
				const abort = toAbortSignal(token);
				try {
					return await client.createComputerSession(agent.id, { signal: abort.signal });
				} finally {
					abort.dispose();
				}
			},
		);
	} catch (err) {
		if (isStatus(err, 409)) {
			// The runtime's state says what helps; the service's own words only when it cannot be read
			// (they may advise what does not apply, e.g. to resume a runtime in error).
			const runtime = await runtimeOfAgent(client, agent);
			void showWarning(
				vscode.l10n
					.t(
						'The computer of {0} cannot open now: {1} {2}',
						name,
						notRunningAdvice(runtime),
						runtime ? requestIdNote(err) : describeError(err),
					)
					.trimEnd(),
			);
			return undefined;
		}
		throw err;
	}
}

/**
 * The open computer panels, one per agent (of each deployment: issue 47), and the host each
 * deployment's share (clipboard, log, minting sessions through that deployment's client).
 */
class ComputerPanels implements vscode.Disposable {
	private readonly panels = new PanelManager<ComputerPanel>();
	private readonly host: ComputerPanelHost;
	private readonly signOut: vscode.Disposable | undefined;

	constructor(
		private readonly deps: ComputerDeps,
		private readonly onDispose: () => void,
	) {
		const session = deps.session;
		if (session) {
			// The default deployment's: another deployment's panels close with its own session (`watchSignOut`).
			this.signOut = onSignedOut(session, () => {
				for (const panel of this.panels.all().filter((p) => p.agent.deployment === undefined)) {
					panel.dispose();
				}
			});
		}
		this.host = this.hostFor(deps);
	}

	/** The panels' host minting through `deps`' client. */
	private hostFor(deps: Pick<ComputerDeps, 'client'>): ComputerPanelHost {
		return {
			extensionUri: this.deps.context.extensionUri,
			log: this.deps.log,
			readClipboard: () => vscode.env.clipboard.readText(),
			mint: async (agent) => {
				const session = await mintSession(deps.client(), agent);
				if (!session) {
					throw new Error(vscode.l10n.t('the runtime is not running'));
				}
				return session;
			},
		};
	}

	/**
	 * Reveals the agent's panel, or mints a session and opens one: through `deps`' client (the
	 * action's kit: the row's deployment), titled with its deployment's name when several are configured.
	 */
	async open(agent: Agent, deps: Pick<ComputerDeps, 'client' | 'session' | 'deployment'> = this.deps): Promise<void> {
		const target: ComputerAgent = {
			id: agent.id,
			name: agent.name || agent.id,
			runtimeId: agent.runtime_id || undefined,
			deployment: deps.deployment?.id,
			deploymentName: deps.deployment?.shownName,
		};
		const open = this.panels.get(panelKey(target));
		if (open) {
			open.reveal();
			return;
		}
		const session = await mintSession(deps.client(), target);
		if (!session) {
			return;
		}
		// Another invocation may have opened the panel while this one waited for the service.
		const host = target.deployment === undefined ? this.host : this.hostFor(deps);
		this.watchSignOut(
			this.panels.show(panelKey(target), () => ComputerPanel.create(host, target, session)),
			deps,
		);
	}

	/** Restores a panel VS Code brings back after a reload (src/shell/lazy.ts registers the serializer). */
	restore(panel: vscode.WebviewPanel, raw: unknown): void {
		const state = parseComputerPageState(raw);
		// Another deployment's panel comes back on that deployment; one no longer configured cannot.
		const deps = state?.deployment === undefined ? this.deps : this.deps.deploymentOf?.(state.deployment);
		if (!state || !deps) {
			// Nothing to show without an agent; a panel we cannot restore is closed.
			panel.dispose();
			return;
		}
		const agent: ComputerAgent = {
			id: state.agentId,
			name: state.agentName,
			deployment: state.deployment,
			deploymentName: deps.deployment?.shownName,
		};
		const host = agent.deployment === undefined ? this.host : this.hostFor(deps);
		this.watchSignOut(this.panels.add(panelKey(agent), ComputerPanel.restore(panel, host, agent)), deps);
	}

	/** A panel of another deployment than the default one closes when that deployment's session signs out. */
	private watchSignOut(panel: ComputerPanel, deps: Pick<ComputerDeps, 'session'>): void {
		if (panel.agent.deployment === undefined || !deps.session) {
			return;
		}
		const signOut = onSignedOut(deps.session, () => {
			panel.dispose();
		});
		panel.onDidDispose(() => {
			signOut.dispose();
		});
	}

	dispose(): void {
		this.onDispose();
		this.signOut?.dispose();
		this.panels.dispose();
	}
}

/** The computer panels of each extension context (one while the features are loaded); filled on first use. */
let panelsByContext: WeakMap<vscode.ExtensionContext, ComputerPanels> | undefined;

/** The computer panels of the extension (created on first use; disposed with the features). */
function computerPanels(deps: ComputerDeps): ComputerPanels {
	panelsByContext ??= new WeakMap();
	let panels = panelsByContext.get(deps.context);
	if (!panels) {
		const created = new ComputerPanels(deps, () => {
			if (panelsByContext?.get(deps.context) === created) {
				panelsByContext.delete(deps.context);
			}
		});
		panelsByContext.set(deps.context, created);
		panels = created;
	}
	return panels;
}

/** Opens the computer panel of an agent (the "Open Computer" action): reveals it when open, else mints a session. */
export async function openComputer(agent: Agent, deps: ComputerDeps): Promise<undefined> {
	await computerPanels(deps).open(agent, deps);
	return undefined;
}

/**
 * The computer panels as a feature: how to restore a panel VS Code brings back after a reload, and
 * the panels to dispose with the features; the caller owns the disposables.
 */
export function computerPanelFeature(deps: ComputerDeps): PanelFeature {
	const panels = computerPanels(deps);
	return {
		restorePanel: async (panel, raw) => panels.restore(panel, raw),
		disposables: [panels],
	};
}
