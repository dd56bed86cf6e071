/**
 * "Open Computer": mints a computer session for an agent (with progress while the service readies
 * the desktop) and shows it in the agent's computer panel, one panel per agent. Also restores the
 * panels VS Code brings back after a reload.
 */
import * as vscode from 'vscode';
import type { ComputerSession } from '../api';
import { describeError } from '../util/errors';
import type { ComputerAgent, ComputerPanelHost } from '../webviews/computer/computerPanel';
import { ComputerPanel } from '../webviews/computer/computerPanel';
import { parseComputerPageState } from '../webviews/computer/protocol';
import { PanelManager } from '../webviews/panel';
import type { PanelFeature } from './lazy';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { displayName, isStatus, rememberAgent, showWarning, toAbortSignal } from './support';
import { resolveTarget } from '../views/targets';
import { agentsList } from '../resources';

/** Mints a session with a cancellable progress notification; a 409 is explained, not thrown. */
async function mintSession(deps: FeatureDeps, agent: ComputerAgent): Promise<ComputerSession | undefined> {
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
					return await deps.session.client.createComputerSession(agent.id, { signal: abort.signal });
				} finally {
					abort.dispose();
				}
			},
		);
	} catch (err) {
		if (isStatus(err, 409)) {
			void showWarning(
				vscode.l10n.t(
					'The computer of {0} cannot open now: its runtime is not running or is still starting. Resume the runtime (Runtimes view) or wait until the agent is idle, then try again. {1}',
					name,
					describeError(err),
				),
			);
			return undefined;
		}
		throw err;
	}
}

/** Registers "Open Computer" and says how to restore a computer panel; the caller owns the disposables. */
export function registerComputerCommands(deps: FeatureDeps): PanelFeature {
	const registerCommand = commandRegistrar(deps.log, { onUnauthorized: deps.onUnauthorized });
	const panels = new PanelManager<ComputerPanel>();
	const host: ComputerPanelHost = {
		extensionUri: deps.context.extensionUri,
		log: deps.log,
		readClipboard: () => vscode.env.clipboard.readText(),
		mint: async (agent) => {
			const session = await mintSession(deps, agent);
			if (!session) {
				throw new Error(vscode.l10n.t('the runtime is not running'));
			}
			return session;
		},
	};
	/** Restores a panel VS Code brings back after a reload (src/commands/lazy.ts registers the serializer). */
	const restore = async (panel: vscode.WebviewPanel, raw: unknown): Promise<void> => {
		const state = parseComputerPageState(raw);
		if (!state) {
			// Nothing to show without an agent; a panel we cannot restore is closed.
			panel.dispose();
			return;
		}
		panels.add(state.agentId, ComputerPanel.restore(panel, host, { id: state.agentId, name: state.agentName }));
	};
	return {
		restorePanel: restore,
		disposables: [
			panels,
			registerCommand('cloudAgents.agents.openComputer', async (arg?: unknown) => {
				const agent = (await resolveTarget(deps, agentsList, arg, { title: vscode.l10n.t('Open Computer') }))?.agent;
				if (!agent) {
					return undefined;
				}
				void rememberAgent(deps.context, agent.id);
				const open = panels.get(agent.id);
				if (open) {
					open.reveal();
					return undefined;
				}
				const target: ComputerAgent = { id: agent.id, name: agent.name || agent.id };
				const session = await mintSession(deps, target);
				if (!session) {
					return undefined;
				}
				// Another invocation may have opened the panel while this one waited for the service.
				panels.show(agent.id, () => ComputerPanel.create(host, target, session));
				return undefined;
			}),
		],
	};
}
