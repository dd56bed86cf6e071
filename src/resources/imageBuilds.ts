import { randomUuid, sha256HexSync } from '../base/random';
import * as vscode from 'vscode';
import { SAFETY, buildStatusClass, isJsonObject, readBuild, redactSecrets, sleepUntilAborted } from '../api';
import type { BuildAttemptInfo, BuildInfo } from '../api';
import { describeError } from '../messages/errors';
import { contextToken, iconSafe, notificationText } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import type { DescriptorTreeProvider } from '../views/listTree';
import type { ActionKit, RecordAction, ResourceAction } from '../views/actions';
import { joinParts, plainTooltip, relativeTime, statusIcon } from '../views/format';
import { argFlag, argObject, closeSentDocument, openUntitledDraft, showInfo, showWarning } from '../views/ui';
import { imagesList } from './images';

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

/** The body members of a build request are not shown: the template uses ours (docs/contract-choices.md). */
function buildTemplate(dockerfile: string | undefined): string {
	return `${JSON.stringify(
		{
			display_name: 'my-image',
			dockerfile:
				dockerfile ?? 'FROM ubuntu:24.04\nRUN apt-get update && apt-get install -y --no-install-recommends git ca-certificates\n',
			architecture: 'x86_64',
		},
		null,
		'\t',
	)}\n`;
}

/** What "Start Image Build…" (automation) and "Start Build" return: the build, with the idempotency key sent. */
export type StartedBuild = BuildInfo & { idempotencyKey: string };

/** What the build follower keeps of the kit of the action that made it: services only (it outlives that invocation). */
type FollowerServices = Pick<ActionKit, 'client' | 'session' | 'list' | 'invoke' | 'log'>;

/**
 * The image builds started and followed in this window: the idempotency key of each start attempt,
 * the builds followed now (polled in the background with back-off, whether or not the Account view
 * is shown, so the end is told when it comes) and those whose end was announced. One per extension
 * context, made on first use (`buildFollower`); disposing it, or a change of the session (sign-out),
 * stops every poll.
 */
class ImageBuildFollower implements vscode.Disposable {
	/**
	 * The idempotency key of each start attempt, by the SHA-256 of the request text: made once for
	 * an attempt and kept while it has not succeeded, so "Start Build" again on the same request (a
	 * retry) sends the same key and the service cannot create the build twice. A success forgets it.
	 */
	private readonly attemptKeys = new Map<string, string>();
	/** Builds followed now, with the promise of their end. */
	private readonly following = new Map<string, Promise<BuildInfo>>();
	/** Builds whose end was announced (one notification per build). */
	private readonly announced = new Set<string>();
	/** The polls running now (aborted on dispose). */
	private readonly polls = new Set<AbortController>();
	private disposed = false;

	constructor(private readonly services: FollowerServices) {}

	/** Whether `dispose()` has run (the extension context that owned it is gone). */
	get isDisposed(): boolean {
		return this.disposed;
	}

	/** The key of the attempt to send `requestText` (the same until `succeeded`), and how to forget it. */
	attempt(requestText: string): { key: string; succeeded(): void } {
		const hash = sha256HexSync(requestText);
		let key = this.attemptKeys.get(hash);
		if (!key) {
			key = randomUuid();
			this.attemptKeys.set(hash, key);
			while (this.attemptKeys.size > 50) {
				this.attemptKeys.delete(this.attemptKeys.keys().next().value!);
			}
		}
		return { key, succeeded: () => this.attemptKeys.delete(hash) };
	}

	/**
	 * Follows a build until it ends (a second call for the same build shares the first); `quiet`
	 * writes the end to the log instead of a notification. Resolves with the build as last read.
	 */
	follow(build: BuildInfo, quiet: boolean): Promise<BuildInfo> {
		const existing = this.following.get(build.id);
		if (existing) {
			return existing;
		}
		const controller = new AbortController();
		this.polls.add(controller);
		const stop = this.services.session.onDidChange(() => controller.abort());
		const run = this.poll(build, quiet, controller.signal).finally(() => {
			stop.dispose();
			this.polls.delete(controller);
			this.following.delete(build.id);
		});
		this.following.set(build.id, run);
		return run;
	}

	/** Reads the build with back-off (faster again after a change) until it ends, then announces it once. */
	private async poll(build: BuildInfo, quiet: boolean, signal: AbortSignal): Promise<BuildInfo> {
		const { log } = this.services;
		let current = build;
		let delay: number = SAFETY.buildPollMinMs;
		let signature = JSON.stringify([current.status, current.attempts.length]);
		for (let reads = 0; buildStatusClass(current.status) === 'active'; reads++) {
			if (reads >= SAFETY.buildPollMaxReads) {
				log.warn(`image build ${current.id}: stopped following after ${reads} reads`);
				return current;
			}
			// Whether or not the Account view is shown: the end is told when it comes (bounded by
			// buildPollMaxReads and the back-off; sign-out and dispose abort it).
			await sleepUntilAborted(delay, signal);
			if (signal.aborted) {
				return current;
			}
			try {
				current = readBuild(await this.services.client().getImageBuild(build.id, { signal })) ?? current;
			} catch (err) {
				if (signal.aborted) {
					return current;
				}
				log.warn(`image build ${build.id}: ${describeError(err)}`);
			}
			const next = JSON.stringify([current.status, current.attempts.length]);
			if (next !== signature) {
				signature = next;
				delay = SAFETY.buildPollMinMs;
				void this.builds().refresh();
			} else {
				delay = Math.min(delay * 1.5, SAFETY.buildPollMaxMs);
			}
		}
		// A build that succeeded made an image: the Images list shows it without a manual Refresh.
		await Promise.all([
			this.builds().refresh(),
			buildStatusClass(current.status) === 'succeeded' && this.services.list(imagesList).refresh(),
		]);
		this.announce(current, quiet);
		return current;
	}

	/** One notification per build at its end ("Show Details" opens it), or a log line when `quiet`. */
	private announce(build: BuildInfo, quiet: boolean): void {
		if (this.announced.has(build.id)) {
			return;
		}
		this.announced.add(build.id);
		const name = build.name ?? build.id;
		const succeeded = buildStatusClass(build.status) === 'succeeded';
		const message = succeeded
			? vscode.l10n.t('The image build "{0}" succeeded.', name)
			: build.attempts.length === 1
				? vscode.l10n.t('The image build "{0}" ended: {1} after 1 attempt.', name, build.status ?? '')
				: vscode.l10n.t('The image build "{0}" ended: {1} after {2} attempts.', name, build.status ?? '', build.attempts.length);
		if (quiet) {
			this.services.log.info(notificationText(message));
			return;
		}
		const show = vscode.l10n.t('Show Details');
		void (succeeded ? showInfo(message, show) : showWarning(message, show)).then((choice) => {
			if (choice === show) {
				void this.services.invoke(imageBuildActions.showDetails, { buildId: build.id }).catch((err: unknown) => {
					this.services.log.error(`image build ${build.id}: showing its details failed: ${describeError(err)}`);
				});
			}
		});
	}

	private builds(): DescriptorTreeProvider<BuildInfo, ImageBuildTarget, unknown> {
		return this.services.list(imageBuildsList);
	}

	/** Stops every poll (a followed build's promise resolves with the build as last read). */
	dispose(): void {
		this.disposed = true;
		for (const controller of this.polls) {
			controller.abort();
		}
	}
}

/** The window's build follower: made on first use, owned by the extension context. */
let follower: ImageBuildFollower | undefined;

function buildFollower(kit: ActionKit): ImageBuildFollower {
	if (!follower || follower.isDisposed) {
		const { client, session, list, invoke, log } = kit;
		follower = new ImageBuildFollower({ client, session, list, invoke, log });
		kit.context.subscriptions.push(follower);
	}
	return follower;
}

/**
 * Sends a build request with its attempt's idempotency key, then follows the build (a person is
 * told it started and, later, that it ended; automation is not).
 */
async function startBuild(request: Record<string, unknown>, kit: ActionKit): Promise<StartedBuild> {
	const builds = buildFollower(kit);
	const attempt = builds.attempt(JSON.stringify(request));
	const raw = await vscode.window.withProgress(
		{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Starting image build…'), cancellable: false },
		() => kit.client().createImageBuild(request, { idempotencyKey: attempt.key }),
	);
	attempt.succeeded();
	const build = readBuild(raw);
	if (!build) {
		throw new Error(vscode.l10n.t('The service started a build but its answer names no build id.'));
	}
	await kit.list(imageBuildsList).refresh();
	void builds.follow(build, kit.automation);
	if (!kit.automation) {
		kit.info(vscode.l10n.t('Started the image build "{0}". You will be told when it ends.', build.name ?? build.id));
	}
	return { ...build, idempotencyKey: attempt.key };
}

/** Opens a new untitled JSON build request to edit, prefilled with the active editor's Dockerfile. */
async function openBuildRequest(kit: ActionKit): Promise<vscode.TextDocument> {
	const active = vscode.window.activeTextEditor?.document;
	const dockerfile =
		active && (active.languageId === 'dockerfile' || /Dockerfile$/i.test(active.fileName)) ? active.getText() : undefined;
	const doc = await openUntitledDraft('image-build', 'json', 'json', buildTemplate(dockerfile));
	kit.info(vscode.l10n.t('Edit the build request, then run "Start Build" from the editor title.'));
	return doc;
}

/** Sends the request in the document the command names (a URI from the editor title) or the active one. */
async function startFromEditor(kit: ActionKit): Promise<StartedBuild> {
	const { arg } = kit;
	const doc =
		arg instanceof vscode.Uri
			? vscode.workspace.textDocuments.find((d) => d.uri.toString() === arg.toString())
			: vscode.window.activeTextEditor?.document;
	if (!doc) {
		throw new Error(vscode.l10n.t('Open a build request document first ("Start Image Build…").'));
	}
	let request: unknown;
	try {
		request = JSON.parse(doc.getText());
	} catch (err) {
		throw new Error(vscode.l10n.t('The build request is not valid JSON: {0}', err instanceof Error ? err.message : String(err)), {
			cause: err,
		});
	}
	if (!isJsonObject(request)) {
		throw new Error(vscode.l10n.t('The build request must be a JSON object.'));
	}
	const sent = doc.getText();
	const started = await startBuild(request, kit);
	// The request was sent and the service has it (Show Details reads it back): an untitled request
	// document a person sent no longer asks to be saved when its tab closes (issue 42, item 8). Kept
	// when it was edited meanwhile, on failure (to try again) and for automation.
	if (!kit.automation && doc.uri.scheme === 'untitled' && !doc.isClosed && doc.getText() === sent) {
		await closeSentDocument(doc);
	}
	return started;
}

/**
 * What a user can do with image builds: start one (from a JSON request document, with an
 * idempotency key per attempt), follow one until it ends (one notification then), show one.
 * Automation may pass `{buildId}` instead of a row (plus the options each action names).
 */
export const imageBuildActions = {
	showDetails: {
		on: imageBuildsList,
		command: 'cloudAgents.imageBuilds.showDetails',
		run: async ({ build }, kit): Promise<vscode.TextDocument> => {
			const fresh = readBuild(await kit.client().getImageBuild(build.id)) ?? build;
			return kit.showJson(
				vscode.l10n.t('Image build {0}', iconSafe(fresh.name ?? fresh.id)),
				['imageBuilds', fresh.id],
				redactSecrets(fresh.raw),
			);
		},
	} satisfies RecordAction<BuildInfo, ImageBuildTarget>,
	/**
	 * "Start Image Build…": opens a JSON request document to edit (prefilled with the active
	 * editor's Dockerfile); "Start Build" in its title sends it. Automation: `{request}` sends it at
	 * once and returns the build with the idempotency key used.
	 */
	start: {
		command: 'cloudAgents.imageBuilds.start',
		run: (kit): Promise<StartedBuild | vscode.TextDocument> => {
			const request = argObject(kit.arg, 'request');
			return request ? startBuild(request, kit) : openBuildRequest(kit);
		},
	} satisfies ResourceAction,
	/** "Start Build": sends the request in the active JSON document (the same key when retried). */
	startFromEditor: {
		command: 'cloudAgents.imageBuilds.startFromEditor',
		run: (kit): Promise<StartedBuild> => startFromEditor(kit),
	} satisfies ResourceAction,
	/**
	 * "Follow Image Build": reads the build with back-off (2 s growing to 30 s while nothing
	 * changes), shown or not, until it ends; one notification then.
	 * Automation: `{buildId, wait: true}` resolves with the build at its end (`quiet: true`: no
	 * notification).
	 */
	follow: {
		on: imageBuildsList,
		command: 'cloudAgents.imageBuilds.follow',
		filter: (build) => buildStatusClass(build.status) === 'active',
		run: ({ build }, kit): Promise<BuildInfo | { following: string }> => {
			const end = buildFollower(kit).follow(build, argFlag(kit.arg, 'quiet'));
			return argFlag(kit.arg, 'wait') ? end : Promise.resolve({ following: build.id });
		},
	} satisfies RecordAction<BuildInfo, ImageBuildTarget>,
};
