/**
 * Runtimes: list, resume, VNC credentials, detaching an SSH key. One group of CloudAgentsClient's
 * methods (src/api/client.ts puts them on the one client object).
 */
import { dataPage, paginate } from '../pagination';
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { ClientCore, e, unwrap, arrayOf } from './core';

/** Endpoint methods of CloudAgentsClient: runtimes. */
export class RuntimeEndpoints extends ClientCore {
	/** GET /v2/runtimes: one page (cursor sent as `after`). */
	async listRuntimes(options: T.RuntimeListOptions = {}): Promise<T.Page<T.Runtime>> {
		V.checkRange('limit', options.limit, V.LIMITS.runtimeListLimit);
		return this.decoded(
			{
				method: 'GET',
				path: '/v2/runtimes',
				route: 'GET /v2/runtimes',
				query: { status: options.status?.join(','), limit: options.limit, after: options.cursor },
				idempotent: true,
				signal: options.signal,
			},
			(body, ctx) => {
				const page = dataPage<unknown>(body);
				return { items: this.listOf<T.Runtime>(D.decodeRuntime)(page.items, ctx), nextCursor: page.nextCursor };
			},
		);
	}

	/** Every runtime, page by page. */
	iterateRuntimes(options: Omit<T.RuntimeListOptions, 'cursor'> = {}): AsyncGenerator<T.Runtime, void, undefined> {
		V.checkRange('limit', options.limit, V.LIMITS.runtimeListLimit);
		return paginate((cursor) => this.listRuntimes({ ...options, cursor }));
	}

	/** POST /v2/runtimes/{runtime_id}/resume[?expected_revision=]. Not retried. */
	async resumeRuntime(runtimeId: string, options: T.CallOptions & { expectedRevision?: number } = {}): Promise<T.Runtime> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkRevision(options.expectedRevision, false);
		return this.mutateOnce('runtime resume', () =>
			this.decoded(
				{
					method: 'POST',
					path: `/v2/runtimes/${e(runtimeId)}/resume`,
					route: 'POST /v2/runtimes/{runtime_id}/resume',
					query: { expected_revision: options.expectedRevision },
					idempotent: false,
					signal: options.signal,
				},
				this.one<T.Runtime>(D.decodeRuntime, true),
			),
		);
	}

	/** GET /v2/runtimes/{runtime_id}/vnc-credentials. */
	async listVncCredentials(runtimeId: string, options: T.CallOptions = {}): Promise<T.VncCredential[]> {
		V.checkOpaqueId('runtimeId', runtimeId);
		return arrayOf(
			await this.call({
				method: 'GET',
				path: `/v2/runtimes/${e(runtimeId)}/vnc-credentials`,
				route: 'GET /v2/runtimes/{runtime_id}/vnc-credentials',
				idempotent: true,
				signal: options.signal,
			}),
		);
	}

	/** DELETE /v2/runtimes/{runtime_id}/ssh-keys/{ssh_key_id}?expected_revision= (required): detaches a key. */
	async detachRuntimeSshKey(
		runtimeId: string,
		sshKeyId: string,
		options: T.CallOptions & { expectedRevision: number },
	): Promise<T.SshKey> {
		V.checkOpaqueId('runtimeId', runtimeId);
		V.checkOpaqueId('sshKeyId', sshKeyId);
		V.checkRevision(options.expectedRevision, true);
		return unwrap(
			await this.call({
				method: 'DELETE',
				path: `/v2/runtimes/${e(runtimeId)}/ssh-keys/${e(sshKeyId)}`,
				route: 'DELETE /v2/runtimes/{runtime_id}/ssh-keys/{ssh_key_id}',
				query: { expected_revision: options.expectedRevision },
				idempotent: false,
				signal: options.signal,
			}),
		);
	}
}
