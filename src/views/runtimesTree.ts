import * as vscode from 'vscode';
import type { CloudAgentsClient, Page, Runtime } from '../api';
import { formatMemoryMib, joinParts, plainTooltip, relativeTime, runtimeStatusIcon } from './format';
import { CursorListTreeProvider } from './listTree';
import { contextToken } from '../util/text';
import type { ListHost, PageRequest } from './listTree';

/** True when the runtime is on its way somewhere: creating, deleting, or status ≠ desired status. */
export function runtimeInTransition(runtime: Runtime): boolean {
	if (runtime.status === 'creating' || runtime.status === 'deleting') {
		return true;
	}
	return runtime.desired_status !== undefined && runtime.desired_status !== runtime.status
		&& !['error', 'crashed', 'unavailable'].includes(runtime.status);
}

/**
 * A row of the Runtimes view. `contextValue` is `runtime:<status>` plus `:degraded` and
 * `:transition` flags and `:vnc` when VNC is enabled.
 */
export class RuntimeNode extends vscode.TreeItem {
	constructor(readonly runtime: Runtime) {
		super(runtime.display_name || runtime.id, vscode.TreeItemCollapsibleState.None);
		const degraded = runtime.degraded === true;
		const transition = runtimeInTransition(runtime);
		this.id = `runtime/${runtime.id}`;
		this.contextValue = [`runtime:${contextToken(runtime.status)}`, degraded && 'degraded', transition && 'transition', runtime.vnc_enabled && 'vnc']
			.filter((p): p is string => typeof p === 'string').join(':');
		this.iconPath = runtimeStatusIcon(runtime.status, degraded, transition);
		const statusText = transition && runtime.desired_status && runtime.desired_status !== runtime.status
			? `${runtime.status} → ${runtime.desired_status}`
			: runtime.status;
		this.description = joinParts(statusText, degraded && vscode.l10n.t('degraded'), relativeTime(runtime.updated_at));
		this.tooltip = plainTooltip(runtime.display_name, [
			[vscode.l10n.t('Status'), runtime.status],
			[vscode.l10n.t('Desired status'), runtime.desired_status],
			[vscode.l10n.t('Degraded'), degraded ? vscode.l10n.t('yes: the runtime is running but its heartbeat has stalled') : undefined],
			[vscode.l10n.t('Error'), runtime.error_code ?? undefined],
			[vscode.l10n.t('ID'), runtime.id],
			[vscode.l10n.t('Revision'), runtime.revision],
			[vscode.l10n.t('Image'), runtime.image_id],
			[vscode.l10n.t('Memory'), formatMemoryMib(runtime.resources?.requests?.memory_mib)],
			[vscode.l10n.t('vCPUs'), runtime.resources?.requests?.vcpus],
			[vscode.l10n.t('SSH'), runtime.ssh_enabled],
			[vscode.l10n.t('VNC'), runtime.vnc_enabled ? (runtime.vnc_ready ? vscode.l10n.t('ready') : vscode.l10n.t('not ready')) : undefined],
			[vscode.l10n.t('Can manage'), runtime.can_manage],
			[vscode.l10n.t('Created'), runtime.created_at ? new Date(runtime.created_at).toLocaleString() : undefined],
		]);
		// Clicking a row shows the runtime's details.
		this.command = { command: 'cloudAgents.runtimes.showDetails', title: vscode.l10n.t('Show Runtime Details'), arguments: [this] };
	}
}

/**
 * The Runtimes view: every runtime, a page (`cloudAgents.pageSize`) at a time through the
 * service's cursors; it refreshes itself while a runtime is in transition.
 */
export class RuntimesTreeProvider extends CursorListTreeProvider<Runtime> {
	constructor(host: ListHost, private readonly client: () => CloudAgentsClient) {
		super('runtimes', host, { refresh: 'cloudAgents.runtimes.refresh', loadMore: 'cloudAgents.runtimes.loadMore' });
	}

	protected override listPage(request: PageRequest): Promise<Page<Runtime>> {
		return this.client().listRuntimes(request);
	}

	protected override keyOf(runtime: Runtime): string {
		return runtime.id;
	}

	protected override toNode(runtime: Runtime): vscode.TreeItem {
		return new RuntimeNode(runtime);
	}

	protected override isChanging(): boolean {
		return this.items.some(runtimeInTransition);
	}

	protected override signature(items: readonly Runtime[]): string {
		return JSON.stringify(items.map((r) => [r.id, r.status, r.desired_status, r.revision, r.degraded]));
	}
}
