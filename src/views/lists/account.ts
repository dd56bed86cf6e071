import * as vscode from 'vscode';
import type { ListDescriptor } from '../descriptor';

/** A group row of the Account view: its key (the `parent.only` of the list under it), title and icon. */
export interface AccountGroup {
	readonly key: string;
	title(this: void): string;
	readonly icon: string;
	/** What the group holds, in a sentence (the row's tooltip). */
	tooltip?(this: void): string;
}

/**
 * The Account view's groups, in display order: one line per group. A group's records are a list
 * descriptor of its own (in its module) declaring `parent: {as: 'children', of: accountList, only: '<key>'}`.
 */
export const ACCOUNT_GROUPS: readonly AccountGroup[] = [
	{ key: 'secretStubs', title: () => vscode.l10n.t('Secret Stubs'), icon: 'key', tooltip: () => vscode.l10n.t('Every secret stub of the organization: which host and path get which secret, and how.') },
	{ key: 'secrets', title: () => vscode.l10n.t('Secrets'), icon: 'lock', tooltip: () => vscode.l10n.t('The secrets secret stubs refer to (the service has no list of secrets): masked previews and cache TTLs, never a value.') },
	{ key: 'githubRequests', title: () => vscode.l10n.t('GitHub Requests'), icon: 'github', tooltip: () => vscode.l10n.t('Pending GitHub authorization requests of agents: who asked, why, and how long is left.') },
];

/** What an Account group command receives. */
export interface AccountGroupTarget {
	group: AccountGroup;
}

/**
 * The Account view (`cloudAgents.account`): resources of the organization and the user that belong
 * to no runtime, one collapsed group row per entry of ACCOUNT_GROUPS (`contextValue`
 * `accountGroup:<key>`), each with its list under it (paged where the service pages).
 */
export const accountList: ListDescriptor<AccountGroup, AccountGroupTarget> = {
	key: 'account',
	kind: 'accountGroup',
	viewId: 'cloudAgents.account',
	commands: { refresh: 'cloudAgents.account.refresh', loadMore: 'cloudAgents.account.loadMore' },
	source: { list: async () => ({ items: [...ACCOUNT_GROUPS], more: false }) },
	keyOf: (group) => group.key,
	fields: (group) => ({ group }),
	row: (group) => ({
		label: group.title(),
		icon: new vscode.ThemeIcon(group.icon),
		tooltip: group.tooltip?.(),
		contextValue: `accountGroup:${group.key}`,
	}),
};
