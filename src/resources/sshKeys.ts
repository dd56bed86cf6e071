import * as vscode from 'vscode';
import { ApiError, fromRfc3339 } from '../api';
import type { CloudAgentsClient, Runtime, SshKey } from '../api';
import type { ActionKit, RecordAction } from '../views/actions';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip, relativeTime } from '../views/format';
import { argFlag, argValue, confirmUnlessTold, displayName, showWarning } from '../views/ui';
import { findRuntime, rereadAfterConflict, runtimesList } from './runtimes';

/**
 * The SSH keys a runtime record lists as attached (`ssh_keys`, an assumed member: the contract has
 * no read of a runtime's keys; docs/contract-choices.md), decoded with the runtime (src/api/decode.ts:
 * items without a safe id dropped, at most SAFETY.pageMaxItems); undefined when the record does not
 * carry the member.
 */
export function attachedSshKeys(runtime: Runtime): SshKey[] | undefined {
	return runtime.ssh_keys;
}

/** What an SSH key command receives: the key and the id of the runtime it hangs under. */
export interface SshKeyTarget {
	sshKey: SshKey;
	runtimeId: string | undefined;
}

/** A key's name for picks, questions and messages. */
const keyName = (k: SshKey): string => k.display_name || k.id;

/** Reads a runtime again for the keys it lists; its absence is an error naming it. */
async function runtimeWithKeys(client: CloudAgentsClient, runtimeId: string): Promise<Runtime> {
	const runtime = await findRuntime(client, runtimeId);
	if (!runtime) {
		throw new Error(vscode.l10n.t('The runtime {0} was not found.', runtimeId));
	}
	return runtime;
}

/**
 * The SSH keys attached to a runtime, under its row in the Runtimes view (from the runtime record).
 * Rows `sshKey:attached`; a click shows the key's record; "Detach SSH Key…" sends the runtime's
 * revision as `expected_revision`; "Delete SSH Key…" deletes one of the user's keys everywhere.
 * The palette picks a runtime with keys, then one of its keys; automation names `{runtimeId, sshKeyId}`.
 */
export const runtimeSshKeysList: ListDescriptor<SshKey, SshKeyTarget, Runtime> = {
	key: 'runtimeSshKeys',
	kind: 'sshKey',
	parent: { as: 'children', of: runtimesList },
	title: () => vscode.l10n.t('SSH Keys'),
	source: { list: async (_ctx, _request, runtime) => ({ items: attachedSshKeys(runtime) ?? [], more: false }) },
	keyOf: (key) => key.id,
	fields: (sshKey, runtimeId) => ({ sshKey, runtimeId }),
	row: (key, ctx) => ({
		label: key.display_name || key.id,
		description: joinParts(key.fingerprint, relativeTime(fromRfc3339(key.created_at))),
		icon: new vscode.ThemeIcon('key'),
		contextValue: 'sshKey:attached',
		tooltip: plainTooltip(key.display_name, [
			[vscode.l10n.t('Fingerprint'), key.fingerprint],
			[vscode.l10n.t('Runtime'), ctx.parent.display_name],
			[vscode.l10n.t('User'), key.user_id],
			[vscode.l10n.t('Added'), key.created_at],
			[vscode.l10n.t('ID'), key.id],
		]),
		command: { command: 'cloudAgents.sshKeys.showDetails', title: vscode.l10n.t('Show SSH Key Details') },
	}),
	empty: () => ({
		label: vscode.l10n.t('No SSH keys attached'),
		tooltip: vscode.l10n.t('No SSH key is attached to this runtime, or the server does not say which are.'),
	}),
	target: {
		idField: 'sshKeyId',
		// The service has no read of a runtime's keys: the runtime is read again (a bounded walk).
		get: async (ctx, id, runtimeId) => {
			const runtime = await runtimeWithKeys(ctx.client(), runtimeId ?? '');
			const key = attachedSshKeys(runtime)?.find((k) => k.id === id);
			if (!key) {
				throw new Error(vscode.l10n.t('No SSH key {0} is attached to the runtime {1}.', id, runtime.display_name));
			}
			return key;
		},
		choices: async (ctx, runtimeId) => attachedSshKeys(await runtimeWithKeys(ctx.client(), runtimeId ?? '')) ?? [],
		pickText: (k) => ({ label: keyName(k), description: k.fingerprint, detail: k.id }),
		placeholder: (runtime) => vscode.l10n.t('Pick an SSH key of {0}', displayName(runtime?.display_name, runtime?.id)),
		matchOnDetail: false,
		parentFilter: (runtime) => (attachedSshKeys(runtime)?.length ?? 0) > 0,
	},
};

/**
 * The runtime a key hangs under, for its name and revision: for a person, the record the Runtimes
 * view shows (its revision is the one the user saw: a change since is a 409); for automation, read
 * again.
 */
async function runtimeOf(target: SshKeyTarget, kit: ActionKit): Promise<Runtime> {
	const runtimeId = target.runtimeId ?? '';
	return (kit.automation ? undefined : kit.list(runtimesList).find(runtimeId)) ?? runtimeWithKeys(kit.client(), runtimeId);
}

/**
 * "Detach SSH Key…": asks (modal), then detaches with the runtime's revision as
 * `expected_revision`; a 409 re-reads the runtime and offers again, as Resume Runtime does.
 * Automation may pass `expectedRevision` and `onConflict: 'retry' | 'cancel'` (skips the question
 * after a 409). Returns the detached key.
 */
async function detachKey(target: SshKeyTarget, kit: ActionKit): Promise<unknown> {
	const { sshKey } = target;
	let runtime = await runtimeOf(target, kit);
	const given = { onConflict: argValue(kit.arg, 'onConflict'), expectedRevision: argValue(kit.arg, 'expectedRevision') };
	const onConflict = given.onConflict === 'retry' || given.onConflict === 'cancel' ? given.onConflict : undefined;
	let expected = typeof given.expectedRevision === 'number' ? given.expectedRevision : runtime.revision;
	if (
		!(await confirmUnlessTold(
			kit.arg,
			vscode.l10n.t('Detach the SSH key "{0}" from the runtime {1}?', keyName(sshKey), runtime.display_name),
			vscode.l10n.t(
				'Its holder can no longer connect to this runtime with it. The key itself is kept.\n\nFingerprint: {0}',
				sshKey.fingerprint ?? '',
			),
			vscode.l10n.t('Detach'),
		))
	) {
		return undefined;
	}
	const runtimes = kit.list(runtimesList);
	for (;;) {
		try {
			const current = runtime;
			const detached = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Detaching the SSH key {0}…', keyName(sshKey)) },
				() => kit.client().detachRuntimeSshKey(current.id, sshKey.id, { expectedRevision: expected }),
			);
			await runtimes.refresh();
			if (!argFlag(kit.arg, 'quiet')) {
				kit.info(vscode.l10n.t('Detached the SSH key "{0}" from the runtime {1}.', keyName(sshKey), runtime.display_name));
			}
			return detached;
		} catch (err) {
			// Someone changed the runtime since it was shown: re-read and offer again.
			const fresh = await rereadAfterConflict(err, runtime, kit);
			if (!fresh) {
				return undefined;
			}
			const keys = attachedSshKeys(fresh);
			if (keys !== undefined && !keys.some((k) => k.id === sshKey.id)) {
				kit.info(vscode.l10n.t('The SSH key "{0}" is no longer attached to {1}.', keyName(sshKey), fresh.display_name));
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
}

/** "Delete SSH Key…": asks (modal), then deletes one of the user's keys everywhere; a 404 is explained. Returns the deleted key. */
async function deleteKey({ sshKey }: SshKeyTarget, kit: ActionKit): Promise<unknown> {
	if (
		!(await confirmUnlessTold(
			kit.arg,
			vscode.l10n.t('Delete your SSH key "{0}"?', keyName(sshKey)),
			vscode.l10n.t(
				'It is removed from every runtime it is attached to. This cannot be undone.\n\nFingerprint: {0}',
				sshKey.fingerprint ?? '',
			),
			vscode.l10n.t('Delete SSH Key'),
		))
	) {
		return undefined;
	}
	let deleted: SshKey;
	try {
		deleted = await vscode.window.withProgress(
			{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Deleting the SSH key {0}…', keyName(sshKey)) },
			() => kit.client().deleteSshKey(sshKey.id),
		);
	} catch (err) {
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
	}
	await kit.list(runtimesList).refresh();
	if (!argFlag(kit.arg, 'quiet')) {
		kit.info(vscode.l10n.t('Deleted the SSH key "{0}".', keyName(sshKey)));
	}
	return deleted;
}

/**
 * What a user can do with an SSH key attached to a runtime (a key row, `{runtimeId, sshKeyId}`
 * from automation, or picks: a runtime with keys, then one of its keys): detach it from the
 * runtime, delete it everywhere, show its record.
 *
 * Automation: `{runtimeId, sshKeyId, confirm?: false, expectedRevision?, onConflict?: 'retry'|'cancel', quiet?}`.
 */
export const sshKeyActions = {
	detach: { on: runtimeSshKeysList, command: 'cloudAgents.sshKeys.detach', run: detachKey } satisfies RecordAction<SshKey, SshKeyTarget>,
	delete: { on: runtimeSshKeysList, command: 'cloudAgents.sshKeys.delete', run: deleteKey } satisfies RecordAction<SshKey, SshKeyTarget>,
	showDetails: {
		on: runtimeSshKeysList,
		command: 'cloudAgents.sshKeys.showDetails',
		run: ({ sshKey }, kit) => kit.showJson(vscode.l10n.t('SSH Key {0}', displayName(keyName(sshKey))), ['ssh-keys', sshKey.id], sshKey),
	} satisfies RecordAction<SshKey, SshKeyTarget>,
};
