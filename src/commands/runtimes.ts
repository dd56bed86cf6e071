import * as vscode from 'vscode';
import type { Runtime } from '../api';
import { runtimesList } from '../views';
import { resolveTarget } from './targets';
import { notificationText } from '../util/text';
import { joinParts } from '../views/format';
import type { CommandLogger } from './registry';
import { commandRegistrar } from './registry';
import type { FeatureDeps } from './support';
import { displayName, isAutomation, isStatus, pickItem, showInfo, showWarning } from './support';

/** Finds a runtime by id, page by page (the service has no single-runtime read). */
export async function findRuntime(deps: FeatureDeps, runtimeId: string): Promise<Runtime | undefined> {
	for await (const runtime of deps.session.client.iterateRuntimes({ limit: 100 })) {
		if (runtime.id === runtimeId) {
			return runtime;
		}
	}
	return undefined;
}

const resumable = (r: Runtime): boolean => r.status === 'paused' || r.status === 'suspended';

/**
 * Registers the runtime commands: refresh, load more, resume (with `expected_revision`, offering a
 * retry with the fresh revision after a 409) and VNC credentials (Show Details is an action of the
 * Runtimes list: src/views/lists/runtimes.ts).
 *
 * Automation may pass `{runtimeId}` instead of a tree node; resume also takes `expectedRevision`
 * (default: the revision read) and `onConflict: 'retry' | 'cancel'` (skips the question after a 409).
 */
export function registerRuntimeCommands(deps: FeatureDeps): vscode.Disposable[] {
	const log: CommandLogger = deps.log;
	const registerCommand = commandRegistrar(log, { onUnauthorized: deps.onUnauthorized });
	const { views } = deps;
	return [
		registerCommand('cloudAgents.runtimes.resume', async (arg?: unknown) => {
			let runtime = (await resolveTarget(deps, runtimesList, arg, { title: vscode.l10n.t('Resume Runtime'), filter: resumable }))
				?.runtime;
			if (!runtime) {
				return undefined;
			}
			const automation = isAutomation(arg) ? arg : undefined;
			let expected = typeof automation?.expectedRevision === 'number' ? automation.expectedRevision : runtime.revision;
			const onConflict =
				automation?.onConflict === 'retry' || automation?.onConflict === 'cancel' ? automation.onConflict : undefined;
			for (;;) {
				try {
					const target = runtime;
					const resumed = await vscode.window.withProgress(
						{
							location: vscode.ProgressLocation.Notification,
							title: notificationText(vscode.l10n.t('Resuming runtime {0}…', displayName(target.display_name, target.id))),
						},
						() => deps.session.client.resumeRuntime(target.id, { expectedRevision: expected }),
					);
					await views.runtimes.refresh();
					// Visible feedback (a status-bar flash was easy to miss); the row keeps refreshing while it moves.
					void showInfo(
						vscode.l10n.t(
							'The runtime {0} is resuming. Its row in the Runtimes view shows when it is running.',
							displayName(resumed.display_name || target.display_name, target.id),
						),
					);
					return resumed;
				} catch (err) {
					if (!isStatus(err, 409)) {
						throw err;
					}
					// Someone changed the runtime (or it is no longer paused): re-read and offer again.
					const fresh = await findRuntime(deps, runtime.id);
					await views.runtimes.refresh();
					if (!fresh) {
						void showWarning(vscode.l10n.t('The runtime {0} no longer exists.', runtime.display_name));
						return undefined;
					}
					if (!resumable(fresh)) {
						void showInfo(
							vscode.l10n.t('The runtime {0} is {1} now; there is nothing to resume.', fresh.display_name, fresh.status),
						);
						return undefined;
					}
					let retry = onConflict === 'retry';
					if (onConflict === undefined) {
						const again = vscode.l10n.t('Resume Revision {0}', fresh.revision ?? '?');
						const choice = await showWarning(
							vscode.l10n.t(
								'The runtime {0} changed since it was shown (revision {1}, now {2}). Resume it as it is now?',
								fresh.display_name,
								expected ?? '?',
								fresh.revision ?? '?',
							),
							again,
						);
						retry = choice === again;
					}
					if (!retry || fresh.revision === expected) {
						return undefined;
					}
					runtime = fresh;
					expected = fresh.revision;
				}
			}
		}),
		registerCommand('cloudAgents.runtimes.listVncCredentials', async (arg?: unknown) => {
			const runtime = (
				await resolveTarget(deps, runtimesList, arg, {
					title: vscode.l10n.t('List VNC Credentials'),
					filter: (r) => r.vnc_enabled === true,
				})
			)?.runtime;
			if (!runtime) {
				return undefined;
			}
			const credentials = await deps.session.client.listVncCredentials(runtime.id);
			if (isAutomation(arg) && arg.quiet === true) {
				return credentials;
			}
			if (credentials.length === 0) {
				void showInfo(vscode.l10n.t('The runtime {0} has no VNC credentials.', runtime.display_name));
				return credentials;
			}
			const pick = await vscode.window.showQuickPick(
				credentials.map((c) =>
					pickItem(
						{
							label: c.display_name || c.id,
							description: joinParts(
								c.revoked_at ? vscode.l10n.t('revoked') : vscode.l10n.t('active'),
								c.last_used_at ? vscode.l10n.t('last used {0}', c.last_used_at) : undefined,
							),
							detail: c.locator,
						},
						{ credential: c },
					),
				),
				{
					title: vscode.l10n.t('VNC credentials of {0}', displayName(runtime.display_name, runtime.id)),
					placeHolder: vscode.l10n.t('Pick one to copy its locator'),
				},
			);
			if (pick?.credential.locator) {
				await vscode.env.clipboard.writeText(pick.credential.locator);
				vscode.window.setStatusBarMessage(vscode.l10n.t('Copied the VNC locator of {0}', pick.label), 3000);
			}
			return credentials;
		}),
	];
}
