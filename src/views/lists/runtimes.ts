import * as vscode from 'vscode';
import type { Runtime } from '../../api';
import { contextToken, iconSafe } from '../../util/text';
import type { ListDescriptor } from '../descriptor';
import { formatMemoryMib, joinParts, plainTooltip, relativeTime, runtimeStatusIcon } from '../format';

/** True when the runtime is on its way somewhere: creating, deleting, or status ≠ desired status. */
export function runtimeInTransition(runtime: Runtime): boolean {
	if (runtime.status === 'creating' || runtime.status === 'deleting') {
		return true;
	}
	return (
		runtime.desired_status !== undefined &&
		runtime.desired_status !== runtime.status &&
		!['error', 'crashed', 'unavailable'].includes(runtime.status)
	);
}

/** What a runtime command receives: `{runtime}` (a row, the resolver). */
export interface RuntimeTarget {
	runtime: Runtime;
}

/** Walks the runtimes for one id (the service has no single-runtime read); bounded by the client's walk. */
async function findRuntime(
	client: { iterateRuntimes(o: { limit: number }): AsyncIterable<Runtime> },
	runtimeId: string,
): Promise<Runtime | undefined> {
	for await (const runtime of client.iterateRuntimes({ limit: 100 })) {
		if (runtime.id === runtimeId) {
			return runtime;
		}
	}
	return undefined;
}

/**
 * The Runtimes view: every runtime, a page (`cloudAgents.pageSize`) at a time through the service's
 * cursors; it refreshes itself while a runtime is in transition. A row's `contextValue` is
 * `runtime:<status>` plus `:degraded`, `:transition` and `:vnc` (VNC enabled); a click shows the
 * runtime's details.
 */
export const runtimesList: ListDescriptor<Runtime, RuntimeTarget> = {
	key: 'runtimes',
	kind: 'runtime',
	viewId: 'cloudAgents.runtimes',
	commands: { refresh: 'cloudAgents.runtimes.refresh', loadMore: 'cloudAgents.runtimes.loadMore' },
	source: { page: (ctx, request) => ctx.client().listRuntimes(request) },
	keyOf: (runtime) => runtime.id,
	name: (runtime) => runtime.display_name || undefined,
	fields: (runtime) => ({ runtime }),
	isActive: runtimeInTransition,
	signature: (r) => [r.id, r.status, r.desired_status, r.revision, r.degraded],
	row(runtime) {
		const degraded = runtime.degraded === true;
		const transition = runtimeInTransition(runtime);
		const statusText =
			transition && runtime.desired_status && runtime.desired_status !== runtime.status
				? `${runtime.status} → ${runtime.desired_status}`
				: runtime.status;
		return {
			label: runtime.display_name || runtime.id,
			contextValue: [
				`runtime:${contextToken(runtime.status)}`,
				degraded && 'degraded',
				transition && 'transition',
				runtime.vnc_enabled && 'vnc',
			]
				.filter((p): p is string => typeof p === 'string')
				.join(':'),
			icon: runtimeStatusIcon(runtime.status, degraded, transition),
			description: joinParts(statusText, degraded && vscode.l10n.t('degraded'), relativeTime(runtime.updated_at)),
			tooltip: plainTooltip(runtime.display_name, [
				[vscode.l10n.t('Status'), runtime.status],
				[vscode.l10n.t('Desired status'), runtime.desired_status],
				[
					vscode.l10n.t('Degraded'),
					degraded ? vscode.l10n.t('yes: the runtime is running but its heartbeat has stalled') : undefined,
				],
				[vscode.l10n.t('Error'), runtime.error_code ?? undefined],
				[vscode.l10n.t('ID'), runtime.id],
				[vscode.l10n.t('Revision'), runtime.revision],
				[vscode.l10n.t('Image'), runtime.image_id],
				[vscode.l10n.t('Memory'), formatMemoryMib(runtime.resources?.requests?.memory_mib)],
				[vscode.l10n.t('vCPUs'), runtime.resources?.requests?.vcpus],
				[vscode.l10n.t('SSH'), runtime.ssh_enabled],
				[
					vscode.l10n.t('VNC'),
					runtime.vnc_enabled ? (runtime.vnc_ready ? vscode.l10n.t('ready') : vscode.l10n.t('not ready')) : undefined,
				],
				[vscode.l10n.t('Can manage'), runtime.can_manage],
				[vscode.l10n.t('Created'), runtime.created_at ? new Date(runtime.created_at).toLocaleString() : undefined],
			]),
			// Clicking a row shows the runtime's details.
			command: { command: 'cloudAgents.runtimes.showDetails', title: vscode.l10n.t('Show Runtime Details') },
		};
	},
	target: {
		idField: 'runtimeId',
		get: (ctx, id) => findRuntime(ctx.client(), id),
		choices: async (ctx) => {
			const out: Runtime[] = [];
			for await (const runtime of ctx.client().iterateRuntimes({ limit: 100 })) {
				out.push(runtime);
			}
			return out;
		},
		pickText: (runtime) => ({
			label: runtime.display_name || runtime.id,
			description: joinParts(runtime.status, runtime.degraded === true && vscode.l10n.t('degraded')),
			detail: runtime.id,
		}),
		placeholder: () => vscode.l10n.t('Pick a runtime'),
		notFound: (id) => vscode.l10n.t('The runtime {0} was not found.', id),
	},
	actions: {
		'cloudAgents.runtimes.showDetails': {
			title: () => vscode.l10n.t('Show Runtime Details'),
			// The whole record, read again, as read-only JSON in a tab titled by the runtime's name.
			run: async ({ runtime }, kit) => {
				const fresh = (await findRuntime(kit.client(), runtime.id)) ?? runtime;
				return kit.showJson(vscode.l10n.t('Runtime {0}', iconSafe(fresh.display_name || fresh.id)), ['runtimes', fresh.id], fresh);
			},
		},
	},
};
