import * as vscode from 'vscode';
import { readProvider } from '../api';
import type { ProviderInfo } from '../api';
import { contextToken } from '../util/text';
import type { ListContext, ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip, relativeTime, statusIcon } from '../views/format';

/** What a model provider command receives: `{provider}` (a row, the resolver). */
export interface ModelProviderTarget {
	provider: ProviderInfo;
}

/** Every model provider of the organisation (one request: the listing has no paging). */
export async function readProviders(ctx: Pick<ListContext, 'client'>, signal?: AbortSignal): Promise<ProviderInfo[]> {
	const list = await ctx.client().listModelProviders({ signal });
	return list.model_providers.map(readProvider).filter((p): p is ProviderInfo => p !== undefined);
}

/**
 * Model providers (a group of the Account view): the organisation's providers; the service has
 * no create or delete. A click opens one as an editable JSON document ("Edit Model Provider"):
 * saving it sends the PATCH. `contextValue` is `modelProvider:<kind>:enabled|disabled`.
 */
export const modelProvidersList: ListDescriptor<ProviderInfo, ModelProviderTarget> = {
	key: 'modelProviders',
	kind: 'modelProvider',
	title: () => vscode.l10n.t('Model providers'),
	commands: { refresh: 'cloudAgents.modelProviders.refresh' },
	source: {
		async list(ctx, { signal }) {
			return { items: await readProviders(ctx, signal), more: false };
		},
	},
	keyOf: (p) => p.id,
	name: (p) => p.name,
	fields: (provider) => ({ provider }),
	empty: () => ({ label: vscode.l10n.t('No model providers') }),
	row(p) {
		return {
			label: p.name ?? p.id,
			contextValue: `modelProvider:${contextToken(p.kind ?? 'unknown')}:${p.enabled === false ? 'disabled' : 'enabled'}`,
			icon: p.enabled === false ? statusIcon('stopped') : new vscode.ThemeIcon('hubot'),
			description: joinParts(p.model, p.enabled === false && vscode.l10n.t('disabled'), p.kind),
			tooltip: plainTooltip(p.name, [
				[vscode.l10n.t('ID'), p.id],
				[vscode.l10n.t('Kind'), p.kind],
				[vscode.l10n.t('Endpoint'), p.endpoint],
				[vscode.l10n.t('Model'), p.model],
				[vscode.l10n.t('Enabled'), p.enabled],
				[vscode.l10n.t('Updated'), relativeTime(p.updatedAt)],
			]),
			command: { command: 'cloudAgents.modelProviders.edit', title: vscode.l10n.t('Edit Model Provider') },
		};
	},
	target: {
		idField: 'providerId',
		get: async (ctx, id) => (await readProviders(ctx)).find((p) => p.id === id),
		choices: (ctx) => readProviders(ctx),
		pickText: (p) => ({ label: p.name ?? p.id, description: joinParts(p.model, p.kind), detail: p.id }),
		placeholder: () => vscode.l10n.t('Pick a model provider'),
		notFound: (id) => vscode.l10n.t('The model provider {0} was not found.', id),
	},
};
