import * as vscode from 'vscode';
import { SAFETY } from '../api';
import type { Runtime, SshKey } from '../api';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip, relativeTime } from '../views/format';
import { runtimesList } from './runtimes';

/**
 * The SSH keys a runtime record lists as attached (`ssh_keys`, an assumed member: the contract has
 * no read of a runtime's keys; docs/contract-choices.md). Items without a string id are dropped,
 * at most SAFETY.pageMaxItems kept; undefined when the record does not carry the member.
 */
export function attachedSshKeys(runtime: Runtime): SshKey[] | undefined {
	const keys = (runtime as Record<string, unknown>).ssh_keys;
	if (!Array.isArray(keys)) {
		return undefined;
	}
	return keys
		.filter(
			(k): k is SshKey =>
				k !== null &&
				typeof k === 'object' &&
				typeof (k as Record<string, unknown>).id === 'string' &&
				((k as Record<string, unknown>).id as string).length <= SAFETY.idMaxChars,
		)
		.slice(0, SAFETY.pageMaxItems);
}

/** What an SSH key command receives: the key and the id of the runtime it hangs under. */
export interface SshKeyTarget {
	sshKey: SshKey;
	runtimeId: string | undefined;
}

const str = (k: SshKey, name: string): string | undefined => {
	const v = (k as Record<string, unknown>)[name];
	return typeof v === 'string' ? v : undefined;
};

/**
 * The SSH keys attached to a runtime, under its row in the Runtimes view (from the runtime record).
 * Rows `sshKey:attached`; a click shows the key's record; "Detach SSH Key…" sends the runtime's
 * revision as `expected_revision`; "Delete SSH Key…" deletes one of the user's keys everywhere.
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
		label: str(key, 'display_name') || key.id,
		description: joinParts(str(key, 'fingerprint'), relativeTime(str(key, 'created_at'))),
		icon: new vscode.ThemeIcon('key'),
		contextValue: 'sshKey:attached',
		tooltip: plainTooltip(str(key, 'display_name'), [
			[vscode.l10n.t('Fingerprint'), str(key, 'fingerprint')],
			[vscode.l10n.t('Runtime'), ctx.parent.display_name],
			[vscode.l10n.t('User'), str(key, 'user_id')],
			[vscode.l10n.t('Added'), str(key, 'created_at')],
			[vscode.l10n.t('ID'), key.id],
		]),
		command: { command: 'cloudAgents.sshKeys.showDetails', title: vscode.l10n.t('Show SSH Key Details') },
	}),
	empty: () => ({
		label: vscode.l10n.t('No SSH keys attached'),
		tooltip: vscode.l10n.t('No SSH key is attached to this runtime, or the server does not say which are.'),
	}),
};
