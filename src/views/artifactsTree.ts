import * as vscode from 'vscode';
import type { Agent, Artifact, CloudAgentsClient } from '../api';
import { formatBytes, joinParts, plainTooltip, relativeTime } from './format';
import { AgentListTreeProvider } from './listTree';
import type { ListHost, Loaded } from './listTree';

/** The output cap of a single answer: an artifact larger than this cannot be read back whole. */
export const ARTIFACT_READ_CAP_BYTES = 2 * 1024 * 1024;

/** How an artifact opens: as an image, as text, or only by saving it. */
export function artifactKind(artifact: Pick<Artifact, 'media_type' | 'name'>): 'image' | 'text' | 'binary' {
	const type = (artifact.media_type ?? '').toLowerCase();
	if (/^image\/(png|jpeg|gif|webp|svg\+xml|bmp)$/.test(type)) {
		return 'image';
	}
	if (type.startsWith('text/') || /(json|xml|yaml|javascript|typescript|markdown|csv|x-sh|toml)/.test(type)) {
		return 'text';
	}
	if (type === '' || type === 'application/octet-stream') {
		return /\.(md|txt|json|log|ya?ml|csv|ts|js|py|sh|toml|xml|html?|diff|patch)$/i.test(artifact.name) ? 'text' : 'binary';
	}
	return 'binary';
}

/** A row of the Artifacts view; `contextValue` is `artifact:<image|text|binary>`. */
export class ArtifactNode extends vscode.TreeItem {
	constructor(readonly agentId: string, readonly artifact: Artifact) {
		super(artifact.name, vscode.TreeItemCollapsibleState.None);
		const kind = artifactKind(artifact);
		this.id = `artifact/${agentId}/${artifact.id}`;
		this.contextValue = `artifact:${kind}${(artifact.size ?? 0) > ARTIFACT_READ_CAP_BYTES ? ':large' : ''}`;
		this.iconPath = new vscode.ThemeIcon(kind === 'image' ? 'file-media' : kind === 'text' ? 'file-text' : 'file-binary');
		this.description = joinParts(formatBytes(artifact.size), relativeTime(artifact.created_at));
		this.tooltip = plainTooltip(artifact.name, [
			[vscode.l10n.t('ID'), artifact.id],
			[vscode.l10n.t('Run'), artifact.run_id],
			[vscode.l10n.t('Media type'), artifact.media_type],
			[vscode.l10n.t('Size'), formatBytes(artifact.size)],
			[vscode.l10n.t('Created'), artifact.created_at ? new Date(artifact.created_at).toLocaleString() : undefined],
		]);
		this.command = { command: 'cloudAgents.artifacts.open', title: vscode.l10n.t('Open Artifact'), arguments: [this] };
	}
}

/**
 * The Artifacts view: artifacts of the agent selected in the Agents view. The listing has no
 * paging, so there is no "Load more…" row; it refreshes when a run of that agent finishes.
 */
export class ArtifactsTreeProvider extends AgentListTreeProvider<Artifact> {
	constructor(host: ListHost, private readonly client: () => CloudAgentsClient) {
		super('artifacts', host, { refresh: 'cloudAgents.artifacts.refresh' });
	}

	protected override selectAgentText(): string {
		return vscode.l10n.t('Select an agent in the Agents view to see its artifacts.');
	}

	protected override async fetchOf(agent: Agent, _pages: number, signal: AbortSignal): Promise<Loaded<Artifact>> {
		const items = await this.client().listArtifacts(agent.id, { signal });
		return { items, more: false };
	}

	protected override keyOf(artifact: Artifact): string {
		return artifact.id;
	}

	protected override toNode(artifact: Artifact): vscode.TreeItem {
		return new ArtifactNode(this.agent?.id ?? '', artifact);
	}
}
