import * as vscode from 'vscode';
import { buildStatusClass, readBuild, redactSecrets } from '../api';
import type { BuildAttemptInfo, BuildInfo } from '../api';
import { contextToken, iconSafe } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import type { RecordAction } from '../views/actions';
import { joinParts, plainTooltip, relativeTime, statusIcon } from '../views/format';

/** What an image build command receives: `{build}` (a row, the resolver). */
export interface ImageBuildTarget {
	build: BuildInfo;
}

/** The icon of a build or attempt status (any spelling). */
export function buildIcon(status: string | undefined): vscode.ThemeIcon {
	const s = (status ?? '').toLowerCase();
	if (s === 'pending' || s === 'queued') {
		return statusIcon('waiting');
	}
	const cls = buildStatusClass(status);
	return cls === 'succeeded' ? statusIcon('ok') : cls === 'failed' ? statusIcon('failed') : statusIcon('active');
}

function when(ms: number | undefined): string | undefined {
	return ms === undefined ? undefined : new Date(ms).toLocaleString();
}

/**
 * Image builds (a group of the Account view), newest first, a page (`cloudAgents.pageSize`) at a
 * time through the service's `after` cursor. A build's attempts are its children. The list
 * refreshes itself while a build is pending or running (only while the view is visible). A row's
 * `contextValue` is `imageBuild:<status>` plus `:active` or `:succeeded`/`:failed`; a click opens
 * the build as read-only JSON.
 */
export const imageBuildsList: ListDescriptor<BuildInfo, ImageBuildTarget> = {
	key: 'imageBuilds',
	kind: 'imageBuild',
	title: () => vscode.l10n.t('Image builds'),
	commands: { refresh: 'cloudAgents.imageBuilds.refresh', loadMore: 'cloudAgents.imageBuilds.loadMore' },
	source: {
		async page(ctx, { cursor, limit, signal }) {
			const page = await ctx.client().listImageBuilds({ cursor, limit, signal });
			return { items: page.items.map(readBuild).filter((b): b is BuildInfo => b !== undefined), nextCursor: page.nextCursor };
		},
	},
	keyOf: (build) => build.id,
	name: (build) => build.name,
	fields: (build) => ({ build }),
	isActive: (build) => buildStatusClass(build.status) === 'active',
	signature: (b) => [b.id, b.status, b.attempts.length, b.attempts.at(-1)?.outcome, b.imageId],
	empty: () => ({
		label: vscode.l10n.t('No image builds'),
		tooltip: vscode.l10n.t('Start one with "Cloud Agents: Start Image Build…".'),
	}),
	row(build) {
		const cls = buildStatusClass(build.status);
		return {
			label: build.name ?? build.id,
			contextValue: `imageBuild:${contextToken(build.status ?? 'unknown')}:${cls}`,
			icon: buildIcon(build.status),
			description: joinParts(
				build.status,
				build.attempts.length > 1 && vscode.l10n.t('{0} attempts', build.attempts.length),
				relativeTime(build.updatedAt ?? build.createdAt),
			),
			tooltip: plainTooltip(build.name, [
				[vscode.l10n.t('Status'), build.status],
				[vscode.l10n.t('ID'), build.id],
				[vscode.l10n.t('Architecture'), build.architecture],
				[vscode.l10n.t('Image'), build.imageId],
				[vscode.l10n.t('Attempts'), build.attempts.length],
				[vscode.l10n.t('Created'), when(build.createdAt)],
				[vscode.l10n.t('Updated'), when(build.updatedAt)],
			]),
			command: { command: 'cloudAgents.imageBuilds.showDetails', title: vscode.l10n.t('Show Image Build Details') },
		};
	},
	target: {
		idField: 'buildId',
		get: async (ctx, id) => readBuild(await ctx.client().getImageBuild(id)),
		choices: async (ctx) =>
			(await ctx.client().listImageBuilds({ limit: 100 })).items.map(readBuild).filter((b): b is BuildInfo => b !== undefined),
		pickText: (build) => ({
			label: build.name ?? build.id,
			description: joinParts(build.status, relativeTime(build.updatedAt ?? build.createdAt)),
			detail: build.id,
		}),
		placeholder: () => vscode.l10n.t('Pick an image build'),
		preferLoaded: true,
	},
};

/** What an attempt row carries: `{buildId, attempt}`. */
export interface BuildAttemptTarget {
	buildId: string;
	attempt: BuildAttemptInfo;
}

/** The attempts of a build, under its row (from the build record: no request of their own). */
export const buildAttemptsList: ListDescriptor<BuildAttemptInfo, BuildAttemptTarget, BuildInfo> = {
	key: 'buildAttempts',
	kind: 'buildAttempt',
	parent: { as: 'children', of: imageBuildsList },
	fromParent: true,
	title: () => vscode.l10n.t('Attempts'),
	source: {
		list: async (_ctx, _request, build) => ({ items: build.attempts, more: false }),
	},
	keyOf: (attempt) => String(attempt.number),
	fields: (attempt, buildId) => ({ buildId: buildId ?? '', attempt }),
	empty: () => ({ label: vscode.l10n.t('No attempts yet') }),
	row(attempt) {
		return {
			label: vscode.l10n.t('Attempt {0}', attempt.number),
			contextValue: `buildAttempt:${contextToken(attempt.outcome ?? 'unknown')}`,
			icon: buildIcon(attempt.outcome),
			description: joinParts(attempt.outcome, relativeTime(attempt.finishedAt ?? attempt.startedAt)),
			tooltip: plainTooltip(vscode.l10n.t('Attempt {0}', attempt.number), [
				[vscode.l10n.t('Outcome'), attempt.outcome],
				[vscode.l10n.t('Started'), when(attempt.startedAt)],
				[vscode.l10n.t('Finished'), when(attempt.finishedAt)],
			]),
		};
	},
};

/** What a user can do with imageBuilds. */
export const imageBuildActions = {
	showDetails: {
		on: imageBuildsList,
		command: 'cloudAgents.imageBuilds.showDetails',
		title: () => vscode.l10n.t('Show Image Build Details'),
		run: async ({ build }, kit) => {
			const fresh = readBuild(await kit.client().getImageBuild(build.id)) ?? build;
			return kit.showJson(
				vscode.l10n.t('Image build {0}', iconSafe(fresh.name ?? fresh.id)),
				['imageBuilds', fresh.id],
				redactSecrets(fresh.raw),
			);
		},
	} satisfies RecordAction<BuildInfo, ImageBuildTarget>,
};
