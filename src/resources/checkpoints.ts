import * as vscode from 'vscode';
import type { RecordAction } from '../views/actions';
import { readCheckpoint, redactSecrets } from '../api';
import type { CheckpointInfo } from '../api';
import { contextToken, iconSafe } from '../util/text';
import type { ListContext, ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip, relativeTime, statusIcon } from '../views/format';
import { runtimesList } from './runtimes';

/** What a checkpoint command receives: `{checkpoint}` (a row, the resolver). */
export interface CheckpointTarget {
	checkpoint: CheckpointInfo;
}

/** Checkpoint states (any case) that still change on their own. */
const MOVING_STATES = new Set(['creating', 'pending', 'in_progress', 'deleting', 'restoring']);
const FAILED_STATES = new Set(['failed', 'error', 'errored']);

function stateOf(c: CheckpointInfo): string {
	return (c.state ?? '').toLowerCase();
}

/**
 * The source runtime as shown: its current name (from the Runtimes view), else the name captured
 * when the checkpoint was made; "deleted" when the service says the runtime is gone (null id).
 */
export function sourceRuntimeText(c: CheckpointInfo, ctx?: Pick<ListContext, 'lookup'>): string {
	if (c.sourceRuntimeId === undefined) {
		return c.sourceRuntimeName ? vscode.l10n.t('{0} (deleted)', c.sourceRuntimeName) : vscode.l10n.t('deleted');
	}
	const current = ctx?.lookup(runtimesList, c.sourceRuntimeId)?.display_name;
	return current || c.sourceRuntimeName || c.sourceRuntimeId;
}

/**
 * Checkpoints (a group of the Account view): user-created checkpoints, newest first, a page at a
 * time (the cursor parameter's name is not shown: the client's paging discovery finds it). A row
 * shows the lifecycle state, the failure reason and the source runtime (or "deleted"); the list
 * refreshes itself while one is being created. `contextValue` is `checkpoint:<state>`.
 */
export const checkpointsList: ListDescriptor<CheckpointInfo, CheckpointTarget> = {
	key: 'checkpoints',
	kind: 'checkpoint',
	title: () => vscode.l10n.t('Checkpoints'),
	commands: { refresh: 'cloudAgents.checkpoints.refresh', loadMore: 'cloudAgents.checkpoints.loadMore' },
	source: {
		async page(ctx, { cursor, limit, signal }) {
			const page = await ctx.client().listCheckpoints({ cursor, limit, signal });
			return {
				items: page.items.map(readCheckpoint).filter((c): c is CheckpointInfo => c !== undefined),
				nextCursor: page.nextCursor,
			};
		},
	},
	keyOf: (c) => c.id,
	name: (c) => c.name,
	fields: (checkpoint) => ({ checkpoint }),
	isActive: (c) => MOVING_STATES.has(stateOf(c)),
	signature: (c) => [c.id, c.state, c.failureReason, c.sourceRuntimeId],
	empty: () => ({ label: vscode.l10n.t('No checkpoints') }),
	row(c, ctx) {
		const state = stateOf(c);
		const source = sourceRuntimeText(c, ctx);
		return {
			label: c.name ?? c.id,
			contextValue: `checkpoint:${contextToken(state || 'unknown')}`,
			icon: FAILED_STATES.has(state) ? statusIcon('failed') : MOVING_STATES.has(state) ? statusIcon('active') : statusIcon('ok'),
			description: joinParts(c.state, c.failureReason, vscode.l10n.t('from {0}', source), relativeTime(c.createdAt)),
			tooltip: plainTooltip(c.name, [
				[vscode.l10n.t('State'), c.state],
				[vscode.l10n.t('Failure reason'), c.failureReason],
				[vscode.l10n.t('Source runtime'), source],
				[vscode.l10n.t('Kind'), c.kind],
				[vscode.l10n.t('ID'), c.id],
				[vscode.l10n.t('Created'), c.createdAt === undefined ? undefined : new Date(c.createdAt).toLocaleString()],
			]),
			command: { command: 'cloudAgents.checkpoints.showDetails', title: vscode.l10n.t('Show Checkpoint Details') },
		};
	},
	target: {
		idField: 'checkpointId',
		get: async (ctx, id) => {
			for await (const raw of ctx.client().iterateCheckpoints({ limit: 100 })) {
				const c = readCheckpoint(raw);
				if (c?.id === id) {
					return c;
				}
			}
			return undefined;
		},
		choices: async (ctx) =>
			(await ctx.client().listCheckpoints({ limit: 100 })).items
				.map(readCheckpoint)
				.filter((c): c is CheckpointInfo => c !== undefined),
		pickText: (c) => ({ label: c.name ?? c.id, description: joinParts(c.state, relativeTime(c.createdAt)), detail: c.id }),
		placeholder: () => vscode.l10n.t('Pick a checkpoint'),
		notFound: (id) => vscode.l10n.t('The checkpoint {0} was not found.', id),
		preferLoaded: true,
	},
};

/** What a user can do with checkpoints. */
export const checkpointActions = {
	showDetails: {
		on: checkpointsList,
		command: 'cloudAgents.checkpoints.showDetails',
		// A summary first (state, failure reason, source runtime or "deleted"), then the record as sent.
		run: ({ checkpoint: c }, kit) =>
			kit.showJson(vscode.l10n.t('Checkpoint {0}', iconSafe(c.name ?? c.id)), ['checkpoints', c.id], {
				name: c.name ?? null,
				state: c.state ?? null,
				failure_reason: c.failureReason ?? null,
				source_runtime: c.sourceRuntimeId === undefined ? 'deleted' : sourceRuntimeText(c),
				source_runtime_id: c.sourceRuntimeId ?? null,
				record: redactSecrets(c.raw),
			}),
	} satisfies RecordAction<CheckpointInfo, CheckpointTarget>,
};
