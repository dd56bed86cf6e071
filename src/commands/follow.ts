import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import { toRunRef } from '../logs';
import type { RunFollower } from '../logs';
import { shortRunId } from '../logs/format';
import { commandRegistrar } from './registry';
import type { CommandLogger } from './registry';
import type { UnauthorizedHandler } from '../util/errors';
import { displayName, pickItem } from './support';

/** What the run-following commands need. */
export interface FollowCommandDeps {
	session: Session;
	follower: RunFollower;
	log: CommandLogger;
	/** The session's 401 handler (its single "sign in again" prompt), for failed commands. */
	onUnauthorized?: UnauthorizedHandler;
}

/** Asks for an agent, then one of its runs (newest first). */
async function pickRun(session: Session): Promise<{ agentId: string; runId: string } | undefined> {
	const agents = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Loading agents…') },
		() => session.client.listAgents({ limit: 100 }),
	);
	const agent = await vscode.window.showQuickPick(
		agents.items.map((a) => pickItem({ label: a.name || a.id, description: a.status, detail: a.id }, { agentId: a.id, name: displayName(a.name, a.id) })),
		{ title: vscode.l10n.t('Follow a Run'), placeHolder: vscode.l10n.t('Choose an agent') },
	);
	if (!agent) {
		return undefined;
	}
	const runs = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Loading runs…') },
		() => session.client.listRuns(agent.agentId, { limit: 50 }),
	);
	const run = await vscode.window.showQuickPick(
		runs.map((r) => pickItem({ label: (r.prompt || r.id).split('\n')[0] || r.id, description: r.status, detail: r.id }, { runId: r.id })),
		{ title: vscode.l10n.t('Follow a Run'), placeHolder: vscode.l10n.t('Choose a run of {0}', agent.name) },
	);
	return run ? { agentId: agent.agentId, runId: run.runId } : undefined;
}

/**
 * Registers `cloudAgents.runs.follow` (argument `{agentId, runId}` or a runs-tree node with
 * `agentId` and `run.id`; without one it asks) and `cloudAgents.runs.stopFollowing` (same
 * arguments; without one it stops the only followed run or asks which).
 */
export function registerFollowCommands(deps: FollowCommandDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, { onUnauthorized: deps.onUnauthorized });
	return [
		registerCommand('cloudAgents.runs.follow', async (arg?: unknown) => {
			const ref = toRunRef(arg) ?? (await pickRun(deps.session));
			if (ref) {
				await deps.follower.follow(ref.agentId, ref.runId);
			}
		}),
		registerCommand('cloudAgents.runs.stopFollowing', async (arg?: unknown) => {
			let ref = toRunRef(arg);
			if (!ref) {
				const following = deps.follower.following;
				if (following.length === 0) {
					void vscode.window.showInformationMessage(vscode.l10n.t('No run is being followed.'));
					return;
				}
				ref = following.length === 1
					? following[0]
					: await vscode.window.showQuickPick(
						following.map((f) => pickItem({ label: vscode.l10n.t('Run {0}', shortRunId(f.runId)), description: f.status, detail: f.runId }, { agentId: f.agentId, runId: f.runId })),
						{ title: vscode.l10n.t('Stop Following'), placeHolder: vscode.l10n.t('Which run?') },
					);
			}
			if (ref) {
				deps.follower.stop(ref.agentId, ref.runId);
			}
		}),
	];
}
