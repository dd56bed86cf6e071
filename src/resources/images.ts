import * as vscode from 'vscode';
import { ApiError, readImage, redactSecrets } from '../api';
import type { ImageInfo } from '../api';
import { describeError } from '../messages/errors';
import { contextToken, iconSafe } from '../util/text';
import type { ListDescriptor } from '../views/descriptor';
import type { RecordAction } from '../views/actions';
import { joinParts, plainTooltip } from '../views/format';

/** What an image command receives: `{image}` (a row, the resolver). */
export interface ImageTarget {
	image: ImageInfo;
}

/** What "Delete Image…" returns to automation: deleted, or why not. */
export interface DeleteImageResult {
	deleted: boolean;
	/** `in_use` when the service refused because a runtime uses the image (409). */
	reason?: 'in_use' | 'cancelled';
	requestId?: string;
}

async function readImages(
	ctx: { client(): { listImages(o: { signal?: AbortSignal }): Promise<unknown[]> } },
	signal?: AbortSignal,
): Promise<ImageInfo[]> {
	return (await ctx.client().listImages({ signal })).map(readImage).filter((i): i is ImageInfo => i !== undefined);
}

/**
 * Images (a group of the Account view): the runtime image variants, built-in and custom. The
 * record's members are not shown in the description, so a row shows what is there (name, kind,
 * "in use", description, tags) and a click opens the whole record as read-only JSON. A row's
 * `contextValue` is `image:<kind>` plus `:inUse`; "Delete Image…" is offered on custom ones no
 * runtime uses.
 */
export const imagesList: ListDescriptor<ImageInfo, ImageTarget> = {
	key: 'images',
	kind: 'image',
	title: () => vscode.l10n.t('Images'),
	commands: { refresh: 'cloudAgents.images.refresh' },
	source: {
		async list(ctx, { signal }) {
			return { items: await readImages(ctx, signal), more: false };
		},
	},
	keyOf: (image) => image.id,
	name: (image) => image.name,
	fields: (image) => ({ image }),
	empty: () => ({ label: vscode.l10n.t('No images') }),
	row(image) {
		return {
			label: image.name ?? image.id,
			contextValue: [`image:${contextToken(image.kind ?? 'unknown')}`, image.inUse === true && 'inUse']
				.filter((p): p is string => typeof p === 'string')
				.join(':'),
			icon: new vscode.ThemeIcon(image.kind === 'custom' ? 'package' : 'archive'),
			description: joinParts(
				image.kind,
				image.inUse === true && vscode.l10n.t('in use'),
				image.tags.length > 0 && image.tags.join(', '),
				image.description,
			),
			tooltip: plainTooltip(image.name, [
				[vscode.l10n.t('ID'), image.id],
				[vscode.l10n.t('Kind'), image.kind],
				[vscode.l10n.t('In use'), image.inUse],
				[vscode.l10n.t('Architectures'), image.architectures.join(', ') || undefined],
				[vscode.l10n.t('Tags'), image.tags.join(', ') || undefined],
				[vscode.l10n.t('Description'), image.description],
			]),
			command: { command: 'cloudAgents.images.showDetails', title: vscode.l10n.t('Show Image Details') },
		};
	},
	target: {
		idField: 'imageId',
		get: async (ctx, id) => (await readImages(ctx)).find((image) => image.id === id),
		choices: (ctx) => readImages(ctx),
		pickText: (image) => ({
			label: image.name ?? image.id,
			description: joinParts(image.kind, image.inUse === true && vscode.l10n.t('in use')),
			detail: image.id,
		}),
		placeholder: () => vscode.l10n.t('Pick an image'),
		notFound: (id) => vscode.l10n.t('The image {0} was not found.', id),
		preferLoaded: true,
	},
};

/** What a user can do with images. */
export const imageActions = {
	showDetails: {
		on: imagesList,
		command: 'cloudAgents.images.showDetails',
		run: ({ image }, kit) =>
			kit.showJson(vscode.l10n.t('Image {0}', iconSafe(image.name ?? image.id)), ['images', image.id], redactSecrets(image.raw)),
	} satisfies RecordAction<ImageInfo, ImageTarget>,
	delete: {
		on: imagesList,
		command: 'cloudAgents.images.delete',
		// Offered on custom images no runtime uses (the menu: `image:custom` without `:inUse`).
		filter: (image) => image.kind === 'custom' && image.inUse !== true,
		async run({ image }, kit): Promise<DeleteImageResult> {
			const name = image.name ?? image.id;
			if (image.inUse === true) {
				// Said before asking: the service refuses while a runtime uses the image, so nothing is sent.
				kit.warn(
					vscode.l10n.t(
						'The image "{0}" cannot be deleted: a runtime uses it. Delete or recreate the runtimes that use it, then try again.',
						name,
					),
				);
				return { deleted: false, reason: 'in_use' };
			}
			const ok = await kit.confirm(
				vscode.l10n.t('Delete the image "{0}"?', name),
				vscode.l10n.t(
					'The custom image {0} is deleted for good; new runtimes can no longer use it. The service refuses while a runtime uses it.',
					image.id,
				),
				vscode.l10n.t('Delete Image'),
			);
			if (!ok) {
				return { deleted: false, reason: 'cancelled' };
			}
			try {
				await kit.progress(vscode.l10n.t('Deleting image {0}…', name), (signal) => kit.client().deleteImage(image.id, { signal }));
			} catch (err) {
				if (err instanceof ApiError && err.status === 409) {
					// The documented conflict: a runtime still uses the image (or it is built in).
					kit.warn(
						vscode.l10n.t(
							'The image "{0}" was not deleted: it is in use. Delete or recreate the runtimes that use it, then try again. The service said: {1}',
							name,
							describeError(err),
						),
					);
					await kit.refresh();
					return { deleted: false, reason: 'in_use', requestId: err.requestId };
				}
				throw err;
			}
			kit.info(vscode.l10n.t('Deleted the image "{0}".', name));
			await kit.refresh();
			return { deleted: true };
		},
	} satisfies RecordAction<ImageInfo, ImageTarget>,
};
