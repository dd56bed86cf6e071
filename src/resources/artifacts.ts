import * as vscode from 'vscode';
import type { Agent, Artifact } from '../api';
import { iconSafe } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import { formatBytes, joinParts, plainTooltip, relativeTime } from '../views/format';
import { agentsList } from './agents';

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

/** What an artifact command receives: `{agentId, artifact}` (a row, the resolver). */
export interface ArtifactTarget {
	agentId: string;
	artifact: Artifact;
}

/**
 * The Artifacts view: artifacts of the agent selected in the Agents view. The listing has no
 * paging, so there is no "Load more…" row; it refreshes when a run of that agent finishes. A row's
 * `contextValue` is `artifact:<image|text|binary>` plus `:large` past the read cap; a click opens it.
 */
export const artifactsList: ListDescriptor<Artifact, ArtifactTarget, Agent> = {
	key: 'artifacts',
	kind: 'artifact',
	viewId: 'cloudAgents.artifacts',
	parent: {
		as: 'selection',
		of: agentsList,
		selectLabel: () => vscode.l10n.t('Select an agent'),
		selectTooltip: () => vscode.l10n.t('Select an agent in the Agents view to see its artifacts.'),
	},
	commands: { refresh: 'cloudAgents.artifacts.refresh' },
	source: {
		async list(ctx, { signal }, agent) {
			return { items: await ctx.client().listArtifacts(agent.id, { signal }), more: false };
		},
	},
	keyOf: (artifact) => artifact.id,
	name: (artifact) => artifact.name,
	fields: (artifact, agentId) => ({ agentId: agentId ?? '', artifact }),
	row(artifact) {
		const kind = artifactKind(artifact);
		return {
			label: artifact.name,
			contextValue: `artifact:${kind}${(artifact.size ?? 0) > ARTIFACT_READ_CAP_BYTES ? ':large' : ''}`,
			icon: new vscode.ThemeIcon(kind === 'image' ? 'file-media' : kind === 'text' ? 'file-text' : 'file-binary'),
			description: joinParts(formatBytes(artifact.size), relativeTime(artifact.created_at)),
			tooltip: plainTooltip(artifact.name, [
				[vscode.l10n.t('ID'), artifact.id],
				[vscode.l10n.t('Run'), artifact.run_id],
				[vscode.l10n.t('Media type'), artifact.media_type],
				[vscode.l10n.t('Size'), formatBytes(artifact.size)],
				[vscode.l10n.t('Created'), artifact.created_at ? new Date(artifact.created_at).toLocaleString() : undefined],
			]),
			command: { command: 'cloudAgents.artifacts.open', title: vscode.l10n.t('Open Artifact') },
		};
	},
	target: {
		idField: 'artifactId',
		get: (ctx, id, agentId) => ctx.client().getArtifact(agentId ?? '', id),
		choices: (ctx, agentId) => ctx.client().listArtifacts(agentId ?? ''),
		pickText: (artifact) => ({
			label: artifact.name,
			description: joinParts(formatBytes(artifact.size), relativeTime(artifact.created_at)),
			detail: artifact.id,
		}),
		placeholder: (agent) => vscode.l10n.t('Pick an artifact of {0}', iconSafe(agent?.name || '')),
		matchOnDetail: false,
	},
};
