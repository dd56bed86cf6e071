import * as vscode from 'vscode';
import { ApiError, SAFETY } from '../api';
import type { Runtime, SshKey } from '../api';
import { plainText } from '../util/text';
import { RecordNode } from '../views';
import { runtimesList } from '../resources';
import { attachedSshKeys, runtimeSshKeysList } from '../resources';
import { titledRecordUri } from '../views/recordDocuments';
import { commandRegistrar } from './registry';
import { findRuntime } from '../resources/runtimes';
import { resolveTarget } from '../views/targets';
import type { FeatureDeps } from './support';
import { argString, displayName, isAutomation, isStatus, pickItem, showInfo, showModalWarning, showWarning } from './support';

const str = (k: SshKey, name: string): string => {
	const v = (k as Record<string, unknown>)[name];
	return typeof v === 'string' ? v : '';
};

/** A key's name for questions and messages. */
const keyName = (k: SshKey): string => str(k, 'display_name') || k.id;

/**
 * The key and runtime a command acts on: a key row (its runtime from the row), `{runtimeId,
 * sshKeyId}` from automation, or picks (a runtime, then one of its keys).
 */
async function resolveKey(deps: FeatureDeps, arg: unknown, title: string): Promise<{ runtime: Runtime; sshKey: SshKey } | undefined> {
	if (arg instanceof RecordNode && arg.descriptor === runtimeSshKeysList) {
		return { runtime: arg.parentRecord as Runtime, sshKey: arg.record as SshKey };
	}
	const runtime = (await resolveTarget(deps, runtimesList, arg, { title, filter: (r) => (attachedSshKeys(r)?.length ?? 0) > 0 }))
		?.runtime;
	if (!runtime) {
		return undefined;
	}
	const keys = attachedSshKeys((await findRuntime(deps.session.client, runtime.id)) ?? runtime) ?? [];
	const keyId = argString(arg, 'sshKeyId');
	if (keyId !== undefined) {
		const sshKey = keys.find((k) => k.id === keyId);
		if (!sshKey) {
			throw new Error(vscode.l10n.t('No SSH key {0} is attached to the runtime {1}.', keyId, runtime.display_name));
		}
		return { runtime, sshKey };
	}
	if (keys.length === 0) {
		void showInfo(vscode.l10n.t('No SSH key is attached to the runtime {0}.', runtime.display_name));
		return undefined;
	}
	const pick = await vscode.window.showQuickPick(
		keys.map((k) => pickItem({ label: keyName(k), description: str(k, 'fingerprint'), detail: k.id }, { sshKey: k })),
		{ title, placeHolder: vscode.l10n.t('Pick an SSH key of {0}', displayName(runtime.display_name, runtime.id)) },
	);
	return pick ? { runtime, sshKey: pick.sshKey } : undefined;
}

/**
 * Registers the SSH key commands: "Detach SSH Key…" (from a runtime, with the runtime's revision
 * as `expected_revision`; a 409 re-reads the runtime and offers again, as Resume Runtime does),
 * "Delete SSH Key…" (one of the user's keys, everywhere) and "Show SSH Key Details".
 *
 * Automation: `{runtimeId, sshKeyId, confirm?: false, expectedRevision?, onConflict?: 'retry'|'cancel', quiet?}`.
 */
export function registerSshKeyCommands(deps: FeatureDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, {
		onUnauthorized: deps.onUnauthorized,
		rethrow: (arg) => isAutomation(arg) && arg.rethrow === true,
	});
	const confirmed = async (arg: unknown, message: string, detail: string, action: string): Promise<boolean> =>
		(isAutomation(arg) && arg.confirm === false) || (await showModalWarning(message, detail, action)) === action;
	return [
		registerCommand('cloudAgents.sshKeys.detach', async (arg?: unknown) => {
			const found = await resolveKey(deps, arg, vscode.l10n.t('Detach SSH Key'));
			if (!found) {
				return undefined;
			}
			let { runtime } = found;
			const { sshKey } = found;
			const automation = isAutomation(arg) ? arg : undefined;
			const onConflict =
				automation?.onConflict === 'retry' || automation?.onConflict === 'cancel' ? automation.onConflict : undefined;
			let expected = typeof automation?.expectedRevision === 'number' ? automation.expectedRevision : runtime.revision;
			const action = vscode.l10n.t('Detach');
			if (
				!(await confirmed(
					arg,
					vscode.l10n.t('Detach the SSH key "{0}" from the runtime {1}?', keyName(sshKey), runtime.display_name),
					vscode.l10n.t(
						'Its holder can no longer connect to this runtime with it. The key itself is kept.\n\nFingerprint: {0}',
						str(sshKey, 'fingerprint'),
					),
					action,
				))
			) {
				return undefined;
			}
			for (;;) {
				try {
					const target = runtime;
					const detached = await vscode.window.withProgress(
						{
							location: vscode.ProgressLocation.Notification,
							title: vscode.l10n.t('Detaching the SSH key {0}…', keyName(sshKey)),
						},
						() => deps.session.client.detachRuntimeSshKey(target.id, sshKey.id, { expectedRevision: expected }),
					);
					await deps.views.providerOf(runtimesList).refresh();
					if (!automation?.quiet) {
						void showInfo(
							vscode.l10n.t('Detached the SSH key "{0}" from the runtime {1}.', keyName(sshKey), runtime.display_name),
						);
					}
					return detached;
				} catch (err) {
					if (!isStatus(err, 409)) {
						throw err;
					}
					// Someone changed the runtime since it was shown: re-read and offer again.
					const fresh = await findRuntime(deps.session.client, runtime.id);
					await deps.views.providerOf(runtimesList).refresh();
					if (!fresh) {
						void showWarning(vscode.l10n.t('The runtime {0} no longer exists.', runtime.display_name));
						return undefined;
					}
					const keys = attachedSshKeys(fresh);
					if (keys !== undefined && !keys.some((k) => k.id === sshKey.id)) {
						void showInfo(
							vscode.l10n.t('The SSH key "{0}" is no longer attached to {1}.', keyName(sshKey), fresh.display_name),
						);
						return undefined;
					}
					let retry = onConflict === 'retry';
					if (onConflict === undefined) {
						const again = vscode.l10n.t('Detach at Revision {0}', fresh.revision ?? '?');
						retry =
							(await showWarning(
								vscode.l10n.t(
									'The runtime {0} changed since it was shown (revision {1}, now {2}). Detach the key from it as it is now?',
									fresh.display_name,
									expected ?? '?',
									fresh.revision ?? '?',
								),
								again,
							)) === again;
					}
					if (!retry || fresh.revision === expected) {
						return undefined;
					}
					runtime = fresh;
					expected = fresh.revision;
				}
			}
		}),
		registerCommand('cloudAgents.sshKeys.delete', async (arg?: unknown) => {
			const found = await resolveKey(deps, arg, vscode.l10n.t('Delete SSH Key'));
			if (!found) {
				return undefined;
			}
			const { sshKey } = found;
			const action = vscode.l10n.t('Delete SSH Key');
			if (
				!(await confirmed(
					arg,
					vscode.l10n.t('Delete your SSH key "{0}"?', keyName(sshKey)),
					vscode.l10n.t(
						'It is removed from every runtime it is attached to. This cannot be undone.\n\nFingerprint: {0}',
						str(sshKey, 'fingerprint'),
					),
					action,
				))
			) {
				return undefined;
			}
			const deleted = await Promise.resolve(
				vscode.window.withProgress(
					{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Deleting the SSH key {0}…', keyName(sshKey)) },
					() => deps.session.client.deleteSshKey(sshKey.id),
				),
			).catch((err: unknown) => {
				if (err instanceof ApiError && err.status === 404) {
					throw new ApiError(
						404,
						err.code,
						vscode.l10n.t(
							'The SSH key "{0}" is not one of your keys (only its owner can delete it), or it was already deleted.',
							keyName(sshKey),
						),
						err.requestId,
					);
				}
				throw err;
			});
			await deps.views.providerOf(runtimesList).refresh();
			if (!(isAutomation(arg) && arg.quiet === true)) {
				void showInfo(vscode.l10n.t('Deleted the SSH key "{0}".', keyName(sshKey)));
			}
			return deleted;
		}),
		registerCommand('cloudAgents.sshKeys.showDetails', async (arg?: unknown) => {
			const found = await resolveKey(deps, arg, vscode.l10n.t('Show SSH Key Details'));
			if (!found) {
				return undefined;
			}
			const title = vscode.l10n.t('SSH Key {0}', displayName(keyName(found.sshKey)));
			return deps.records.show(
				titledRecordUri(title, 'ssh-keys', found.sshKey.id),
				`${plainText(JSON.stringify(found.sshKey, null, 2), SAFETY.documentMaxChars)}\n`,
				'json',
				{ forceLanguage: true },
			);
		}),
	];
}
