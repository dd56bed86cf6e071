/**
 * Images, image builds and checkpoints. One group of CloudAgentsClient's methods (src/api/client.ts
 * puts them on the one client object).
 */
import { randomUuid } from '../../base/random';
import { dataPage, paginate } from '../pagination';
import type * as T from '../types';
import * as V from '../validation';
import { ClientCore, e, unwrap, arrayOf } from './core';

/** Endpoint methods of CloudAgentsClient: images, image builds and checkpoints. */
export class ImageEndpoints extends ClientCore {
	// ------------------------------------------------------------------ images and builds

	/** GET /v2/images. */
	async listImages(options: T.CallOptions = {}): Promise<T.ImageVariant[]> {
		return arrayOf(
			await this.call({ method: 'GET', path: '/v2/images', route: 'GET /v2/images', idempotent: true, signal: options.signal }),
			'images',
		);
	}

	/** DELETE /v2/images/{image_id}: deletes an unused custom image. */
	async deleteImage(imageId: string, options: T.CallOptions = {}): Promise<void> {
		V.checkOpaqueId('imageId', imageId);
		await this.call({
			method: 'DELETE',
			path: `/v2/images/${e(imageId)}`,
			route: 'DELETE /v2/images/{image_id}',
			idempotent: false,
			signal: options.signal,
		});
	}

	/** GET /v2/images/builds: one page. */
	async listImageBuilds(options: T.PageOptions = {}): Promise<T.Page<T.ImageBuild>> {
		V.checkRange('limit', options.limit, V.LIMITS.imageBuildListLimit);
		return dataPage<T.ImageBuild>(
			await this.call({
				method: 'GET',
				path: '/v2/images/builds',
				route: 'GET /v2/images/builds',
				query: { limit: options.limit, after: options.cursor },
				idempotent: true,
				signal: options.signal,
			}),
			'builds',
		);
	}

	/** Every image build, page by page. */
	iterateImageBuilds(options: Omit<T.PageOptions, 'cursor'> = {}): AsyncGenerator<T.ImageBuild, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.imageBuildListLimit);
		return paginate((cursor) => this.listImageBuilds({ ...options, cursor }));
	}

	/**
	 * POST /v2/images/builds with an Idempotency-Key (generated unless given): the one create the
	 * service makes safe to repeat, so it is retried like a read. The header's name is not shown:
	 * the key goes as `Idempotency-Key` and `X-Idempotency-Key` (the same value).
	 */
	async createImageBuild(
		request: T.CreateImageBuildRequest | Record<string, unknown>,
		options: T.CallOptions & { idempotencyKey?: string } = {},
	): Promise<T.ImageBuild> {
		const key = options.idempotencyKey ?? randomUuid();
		return unwrap(
			await this.call({
				method: 'POST',
				path: '/v2/images/builds',
				route: 'POST /v2/images/builds',
				body: request,
				headers: { 'idempotency-key': key, 'x-idempotency-key': key },
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	/** GET /v2/images/builds/{build_id}. */
	async getImageBuild(buildId: string, options: T.CallOptions = {}): Promise<T.ImageBuild> {
		V.checkOpaqueId('buildId', buildId);
		return unwrap(
			await this.call({
				method: 'GET',
				path: `/v2/images/builds/${e(buildId)}`,
				route: 'GET /v2/images/builds/{build_id}',
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	// ------------------------------------------------------------------ checkpoints

	/** GET /v2/checkpoints: one page of user-created checkpoints. */
	async listCheckpoints(options: T.PageOptions = {}): Promise<T.Page<T.Checkpoint>> {
		V.checkRange('limit', options.limit, V.LIMITS.checkpointListLimit);
		return this.pageWithCursor('checkpoints', options.cursor, async (param, cursor) =>
			dataPage<T.Checkpoint>(
				await this.call({
					method: 'GET',
					path: '/v2/checkpoints',
					route: 'GET /v2/checkpoints',
					query: { limit: options.limit, [param]: cursor },
					idempotent: true,
					signal: options.signal,
				}),
			),
		);
	}

	/** Every checkpoint, page by page. */
	iterateCheckpoints(options: Omit<T.PageOptions, 'cursor'> = {}): AsyncGenerator<T.Checkpoint, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.checkpointListLimit);
		return paginate((cursor) => this.listCheckpoints({ ...options, cursor }));
	}
}
