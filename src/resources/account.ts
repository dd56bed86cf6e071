import * as vscode from 'vscode';
import type { AnyListDescriptor, ListDescriptor } from '../views/descriptor';
import { checkpointsList } from './checkpoints';
import { imageBuildsList } from './imageBuilds';
import { imagesList } from './images';
import { githubRequestsList } from './github';
import { modelProvidersList } from './modelProviders';
import { secretsList } from './secrets';
import { secretStubsList } from './secretStubs';

/** One group row of the Account view: a list of its own (no parent, no view) and the row's codicon. */
export interface AccountGroup {
	readonly list: AnyListDescriptor;
	readonly icon: string;
}

/**
 * The Account view's groups, top to bottom: account-wide resources that belong to no runtime.
 * A new group is one line here (its list registered in src/resources/index.ts).
 */
export const ACCOUNT_GROUPS: readonly AccountGroup[] = [
	{ list: imagesList, icon: 'package' },
	{ list: imageBuildsList, icon: 'tools' },
	{ list: checkpointsList, icon: 'history' },
	{ list: modelProvidersList, icon: 'hubot' },
	{ list: secretStubsList, icon: 'key' },
	{ list: secretsList, icon: 'lock' },
	{ list: githubRequestsList, icon: 'github' },
];

/**
 * The Account view (`cloudAgents.account`): one collapsed group row per ACCOUNT_GROUPS entry,
 * each list's rows under it (src/views/groupTree.ts). A group row's `contextValue` is `group:<kind>`.
 */
export const accountList: ListDescriptor<AccountGroup, { group: AccountGroup }> = {
	key: 'account',
	kind: 'account',
	viewId: 'cloudAgents.account',
	groups: ACCOUNT_GROUPS.map((g) => g.list),
	source: { list: () => Promise.resolve({ items: [...ACCOUNT_GROUPS], more: false }) },
	keyOf: (group) => group.list.key,
	fields: (group) => ({ group }),
	row: (group) => ({
		label: group.list.title?.() ?? group.list.key,
		icon: new vscode.ThemeIcon(group.icon),
		contextValue: `group:${group.list.kind}`,
	}),
};
