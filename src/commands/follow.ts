import * as vscode from 'vscode';
import type { Session } from '../auth/session';
import { toRunRef } from '../logs';
import type { FollowedRunAction, RunFollower, RunNameHint } from '../logs';
import { runTitle } from '../logs/format';
import { commandRegistrar } from './registry';
import type { CommandLogger } from './registry';
import type { UnauthorizedHandler } from '../util/errors';
import { displayName, pickItem } from './support';
import { resolveTarget } from '../views/targets';
import type { TargetDeps } from '../views/targets';
import { runsList } from '../resources';

/** What the run-following commands need. */
export interface FollowCommandDeps {
	session: Session;
	follower: RunFollower;
	log: CommandLogger;
	/** The session's 401 handler (its single "sign in again" prompt), for failed commands. */
	onUnauthorized?: UnauthorizedHandler;
	/** What the command-target resolver needs (the views exist after these commands are registered). */
	targets: () => TargetDeps;
}

/** What the argument of a follow command tells about the run's name (a runs-tree node has the prompt). */
function nameHint(arg: unknown): RunNameHint {
	if (arg === null || typeof arg !== 'object') {
		return {};
	}
	const a = arg as { agentName?: unknown; prompt?: unknown; run?: { prompt?: unknown } };
	const prompt = typeof a.prompt === 'string' ? a.prompt : typeof a.run?.prompt === 'string' ? a.run.prompt : undefined;
	return { agentName: typeof a.agentName === 'string' ? a.agentName : undefined, prompt };
}

/** The status bar's menu: the followed run's actions, as quick-pick items. */
async function pickFollowedRunAction(follower: RunFollower): Promise<FollowedRunAction | undefined> {
	const info = follower.statusRunInfo;
	if (!info) {
		return undefined;
	}
	const items: Record<FollowedRunAction, string> = {
		showOutput: vscode.l10n.t('$(output) Show Output'),
		openResult: vscode.l10n.t('$(preview) Open Result'),
		cancel: vscode.l10n.t('$(debug-stop) Cancel Run…'),
		stopFollowing: vscode.l10n.t('$(eye-closed) Stop Following'),
		dismiss: vscode.l10n.t('$(close) Hide from Status Bar'),
	};
	const pick = await vscode.window.showQuickPick(
		info.actions.map((action) => ({ label: items[action], action })),
		// The title is server text: one line, `$(` shown as typed (displayName).
		{
			title: displayName(info.title),
			placeHolder: vscode.l10n.t('Run {0}: {1}', info.runId, info.status ?? vscode.l10n.t('connecting')),
		},
	);
	return pick?.action;
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
			// A run row or `{agentId, runId}` (toRunRef reads both), else the resolver's pick.
			let ref = toRunRef(arg);
			if (!ref) {
				const target = await resolveTarget(deps.targets(), runsList, arg, { title: vscode.l10n.t('Follow a Run') });
				ref = target && { agentId: target.agentId, runId: target.run.id };
			}
			if (ref) {
				await deps.follower.follow(ref.agentId, ref.runId, toRunRef(arg) ? nameHint(arg) : {});
			}
		}),
		// The status bar's click: the followed run's actions. Automation may pass `{action}`.
		registerCommand('cloudAgents.runs.followedRunActions', async (arg?: unknown) => {
			const info = deps.follower.statusRunInfo;
			if (!info) {
				void vscode.window.showInformationMessage(vscode.l10n.t('No run is being followed.'));
				return undefined;
			}
			const given = arg !== null && typeof arg === 'object' ? (arg as { action?: unknown }).action : undefined;
			const action = typeof given === 'string' ? info.actions.find((a) => a === given) : await pickFollowedRunAction(deps.follower);
			const ref = { agentId: info.agentId, runId: info.runId };
			switch (action) {
				case 'showOutput':
					if (!deps.follower.show(ref.agentId, ref.runId)) {
						await deps.follower.follow(ref.agentId, ref.runId, { preserveFocus: false });
					}
					break;
				case 'openResult':
					await vscode.commands.executeCommand('cloudAgents.runs.openResult', ref);
					break;
				case 'cancel':
					// Asks first, like the Runs view's Cancel Run (`confirm`).
					await vscode.commands.executeCommand('cloudAgents.runs.cancel', { ...ref, confirm: true });
					break;
				case 'stopFollowing':
					deps.follower.stop(ref.agentId, ref.runId);
					break;
				case 'dismiss':
					deps.follower.dismissStatus();
					break;
				default:
					break;
			}
			return action;
		}),
		registerCommand('cloudAgents.runs.stopFollowing', async (arg?: unknown) => {
			let ref = toRunRef(arg);
			if (!ref) {
				const following = deps.follower.following;
				if (following.length === 0) {
					void vscode.window.showInformationMessage(vscode.l10n.t('No run is being followed.'));
					return;
				}
				ref =
					following.length === 1
						? following[0]
						: await vscode.window.showQuickPick(
								following.map((f) =>
									pickItem(
										{
											label: deps.follower.titleOf(f.agentId, f.runId) ?? runTitle(undefined, undefined, f.runId),
											description: f.status,
											detail: f.runId,
										},
										{ agentId: f.agentId, runId: f.runId },
									),
								),
								{ title: vscode.l10n.t('Stop Following'), placeHolder: vscode.l10n.t('Which run?') },
							);
			}
			if (ref) {
				deps.follower.stop(ref.agentId, ref.runId);
			}
		}),
	];
}
