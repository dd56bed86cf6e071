/**
 * An agent's workspace (the FileSystemProvider's source): the workspace operation (list, stat,
 * read, search) and its checked readers, whole-file reads in chunks, writes and deletes. One group
 * of CloudAgentsClient's methods (src/api/client.ts puts them on the one client object).
 */
import { ApiError, WorkspaceInterfaceError } from '../errors';
import { SAFETY } from '../../base/limits';
import { paginate } from '../pagination';
import * as D from '../decode';
import type * as T from '../types';
import * as V from '../validation';
import { type ListWorkspaceOptions, type ReadChunkOptions, ClientCore, e, obj, arrayOf } from './core';

/** Endpoint methods of CloudAgentsClient: an agent's workspace (the FileSystemProvider's source). */
export class WorkspaceEndpoints extends ClientCore {
	/** POST /v2/agents/{agent_id}/workspace with any operation body (list, stat, read, search: all reads, so retried). */
	async workspaceOperation<R = Record<string, unknown>>(
		agentId: string,
		body: { op: string; [member: string]: unknown },
		options: T.CallOptions = {},
	): Promise<R> {
		V.checkAgentId(agentId);
		if (typeof body.path === 'string') {
			V.checkWorkspacePath(body.path);
		}
		try {
			const res = await this.send<R>({
				method: 'POST',
				path: `/v2/agents/${e(agentId)}/workspace`,
				route: 'POST /v2/agents/{agent_id}/workspace',
				body,
				idempotent: ['list', 'stat', 'read', 'search'].includes(body.op),
				signal: options.signal,
			});
			this.lastWorkspaceRequestId = res.requestId;
			return res.body;
		} catch (err) {
			// The operation body is not shown in the description: a 400 means this server reads another shape.
			if (err instanceof ApiError && err.status === 400) {
				throw new WorkspaceInterfaceError(`the server rejected the "${body.op}" operation (${err.message})`, err.requestId, err);
			}
			// So does a 422 (the service's answer to a body it cannot validate) when the root is refused too.
			if (err instanceof ApiError && err.status === 422 && (await this.refusesWorkspaceRoot(agentId, body.path))) {
				throw new WorkspaceInterfaceError(
					`the server refused a workspace operation as invalid (${err.message})`,
					err.requestId,
					err,
				);
			}
			throw err;
		}
	}

	/**
	 * After a 422: whether the agent's workspace root, which every workspace has, is refused too (a
	 * 400, or a 422 of its own). True for an operation on the root itself; otherwise as one listing
	 * of the root answers, shared by the operations waiting on the same agent (VS Code's probes of a
	 * new folder come together). False means the 422 was about that operation.
	 */
	private refusesWorkspaceRoot(agentId: string, path: unknown): Promise<boolean> {
		if (typeof path === 'string' && path.replace(/^\/+|\/+$/g, '') === '') {
			return Promise.resolve(true);
		}
		let check = this.workspaceRootChecks.get(agentId);
		if (!check) {
			// The raw operation: only a refusal counts (an answer in another shape is not one).
			check = this.workspaceOperation(agentId, { op: 'list', path: '', limit: 1 })
				.then(
					() => false,
					(rootErr: unknown) => rootErr instanceof WorkspaceInterfaceError,
				)
				.finally(() => this.workspaceRootChecks.delete(agentId));
			this.workspaceRootChecks.set(agentId, check);
		}
		return check;
	}

	/** Throws WorkspaceInterfaceError unless `ok`: the answer lacks what the operation needs, so this server misread our body. */
	private expectWorkspace(ok: boolean, op: string, missing: string): void {
		if (!ok) {
			throw new WorkspaceInterfaceError(`the answer to the "${op}" operation has no ${missing}`, this.lastWorkspaceRequestId);
		}
	}

	/** One page of a workspace folder listing. */
	async listWorkspace(agentId: string, path: string, options: ListWorkspaceOptions = {}): Promise<T.Page<T.WorkspaceEntry>> {
		V.checkWorkspacePath(path);
		V.checkRange('limit', options.limit, V.LIMITS.workspaceListLimit);
		const raw = await this.workspaceOperation(agentId, { op: 'list', path, cursor: options.cursor, limit: options.limit }, options);
		const body = obj(raw);
		this.expectWorkspace(Array.isArray(raw) || Array.isArray(body.entries), 'list', 'entries array');
		return {
			// A bare array is the entries themselves (the check above lets it through).
			items: this.listOf<T.WorkspaceEntry>(D.decodeWorkspaceEntry, 'entries')(raw, {}),
			nextCursor: typeof body.next_cursor === 'string' && body.next_cursor ? body.next_cursor : undefined,
		};
	}

	/** Every entry of a workspace folder, page by page. */
	iterateWorkspace(
		agentId: string,
		path: string,
		options: Omit<ListWorkspaceOptions, 'cursor'> = {},
	): AsyncGenerator<T.WorkspaceEntry, void, undefined> {
		V.checkWorkspacePath(path);
		return paginate((cursor) => this.listWorkspace(agentId, path, { ...options, cursor }));
	}

	/** The whole listing of a folder as an array. */
	async listWorkspaceAll(agentId: string, path: string, options: T.CallOptions = {}): Promise<T.WorkspaceEntry[]> {
		const out: T.WorkspaceEntry[] = [];
		for await (const entry of this.iterateWorkspace(agentId, path, options)) {
			out.push(entry);
		}
		return out;
	}

	/** Metadata of a workspace path; ApiError 404 when missing. */
	async statWorkspace(agentId: string, path: string, options: T.CallOptions = {}): Promise<T.WorkspaceEntry> {
		V.checkWorkspacePath(path);
		const body = obj(await this.workspaceOperation(agentId, { op: 'stat', path }, options));
		this.expectWorkspace(body.entry !== null && typeof body.entry === 'object', 'stat', 'entry object');
		return D.decodeWorkspaceEntry(body.entry, {}) as T.WorkspaceEntry;
	}

	/** One chunk of a file (offset default 0, length 1–1,048,576, default the maximum). */
	async readWorkspaceFile(agentId: string, path: string, options: ReadChunkOptions = {}): Promise<T.WorkspaceReadChunk> {
		V.checkWorkspacePath(path);
		V.checkRange('length', options.length, V.LIMITS.workspaceReadLength);
		V.checkRange('offset', options.offset, { min: 0, max: Number.MAX_SAFE_INTEGER });
		const b = obj(
			await this.workspaceOperation(agentId, { op: 'read', path, offset: options.offset, length: options.length }, options),
		);
		this.expectWorkspace(typeof b.content_base64 === 'string', 'read', 'content_base64');
		const content = D.decodeBase64Strict(b.content_base64 ?? '', 'workspace read.content_base64', {});
		const requested = options.offset ?? 0;
		const offset = typeof b.offset === 'number' ? b.offset : requested;
		const size = typeof b.size === 'number' ? b.size : offset + content.byteLength;
		// Sizes and offsets outside their ranges fail cleanly (a hostile size would allocate or loop).
		if (offset !== requested) {
			throw new D.InvalidResponseError('workspace read.offset', `the requested offset ${requested}`, undefined);
		}
		if (!Number.isSafeInteger(size) || size < offset + content.byteLength || size > SAFETY.readMaxBytes) {
			throw new D.InvalidResponseError(
				'workspace read.size',
				`an integer from ${offset + content.byteLength} to ${SAFETY.readMaxBytes}`,
				undefined,
			);
		}
		if (content.byteLength > (options.length ?? V.LIMITS.workspaceReadLength.max)) {
			throw new D.InvalidResponseError(
				'workspace read.content_base64',
				`at most the ${options.length ?? V.LIMITS.workspaceReadLength.max} bytes asked for`,
				undefined,
			);
		}
		if (b.mtime_unix_ms !== undefined && !Number.isSafeInteger(b.mtime_unix_ms)) {
			throw new D.InvalidResponseError('workspace read.mtime_unix_ms', 'an integer', undefined);
		}
		return {
			path: typeof b.path === 'string' ? b.path : path,
			offset,
			length: typeof b.length === 'number' ? b.length : content.byteLength,
			size,
			mtime_unix_ms: typeof b.mtime_unix_ms === 'number' ? b.mtime_unix_ms : undefined,
			eof: typeof b.eof === 'boolean' ? b.eof : offset + content.byteLength >= size,
			content,
		};
	}

	/**
	 * The rest of a file whose first chunk is `first` (not at end of file), read chunk by chunk
	 * from where that chunk stopped: the whole content, or undefined when the file changed between
	 * chunks (another size or mtime, or an empty chunk) so the caller can start over.
	 */
	async readWorkspaceFileRest(
		agentId: string,
		path: string,
		first: T.WorkspaceReadChunk,
		options: T.CallOptions & { chunkLength?: number } = {},
	): Promise<Uint8Array | undefined> {
		const content = new Uint8Array(first.size);
		content.set(first.content.subarray(0, first.size), 0);
		let offset = first.content.byteLength;
		// Every chunk but the last must carry at least SAFETY.readChunkMinBytes (or all that was asked for):
		// a server that dribbles a few bytes per answer would otherwise cost millions of requests.
		const minChunk = Math.min(SAFETY.readChunkMinBytes, options.chunkLength ?? SAFETY.readChunkMinBytes);
		const tooSmall = (n: number, at: number): boolean => n < minChunk && at + n < first.size;
		if (tooSmall(first.content.byteLength, 0)) {
			throw new D.InvalidResponseError(
				'workspace read',
				`chunks of at least ${minChunk} bytes before the end of the file (got ${first.content.byteLength})`,
				undefined,
			);
		}
		while (offset < first.size) {
			const chunk = await this.readWorkspaceFile(agentId, path, { signal: options.signal, offset, length: options.chunkLength });
			if (chunk.size !== first.size || chunk.mtime_unix_ms !== first.mtime_unix_ms || chunk.content.byteLength === 0) {
				return undefined;
			}
			if (tooSmall(chunk.content.byteLength, offset)) {
				throw new D.InvalidResponseError(
					'workspace read',
					`chunks of at least ${minChunk} bytes before the end of the file (got ${chunk.content.byteLength})`,
					undefined,
				);
			}
			content.set(chunk.content.subarray(0, first.size - offset), offset);
			offset += chunk.content.byteLength;
		}
		return content;
	}

	/**
	 * A whole file, read chunk by chunk. Restarts (up to 3 times) when the file changes between
	 * chunks, so the result is never a mix of two versions.
	 */
	async readWorkspaceFileAll(
		agentId: string,
		path: string,
		options: T.CallOptions & { chunkLength?: number } = {},
	): Promise<T.WorkspaceFile> {
		for (let attempt = 0; ; attempt++) {
			const first = await this.readWorkspaceFile(agentId, path, { signal: options.signal, length: options.chunkLength });
			if (first.eof) {
				return { path: first.path, size: first.content.byteLength, mtime_unix_ms: first.mtime_unix_ms, content: first.content };
			}
			const content = await this.readWorkspaceFileRest(agentId, path, first, options);
			if (content) {
				return { path: first.path, size: first.size, mtime_unix_ms: first.mtime_unix_ms, content };
			}
			if (attempt >= 2) {
				throw new ApiError(409, 'file_changed', `The file ${path} kept changing while it was read`, undefined);
			}
		}
	}

	/** Searches file contents (query 1–256 bytes). */
	async searchWorkspace(agentId: string, query: string, options: T.WorkspaceSearchOptions = {}): Promise<T.WorkspaceSearchResult> {
		V.checkSearchQuery(query);
		if (options.path !== undefined) {
			V.checkWorkspacePath(options.path);
		}
		V.checkRange('maxResults', options.maxResults, V.LIMITS.searchMaxResults);
		const b = obj(
			await this.workspaceOperation(
				agentId,
				{ op: 'search', query, path: options.path, max_results: options.maxResults, case_sensitive: options.caseSensitive },
				options,
			),
		);
		this.expectWorkspace(Array.isArray(b.matches), 'search', 'matches array');
		return { query, matches: arrayOf<T.WorkspaceSearchMatch>(b, 'matches'), truncated: b.truncated === true };
	}

	/** PUT …/workspace/files: writes a whole file (creating parent folders). Idempotent, so retried. */
	async writeWorkspaceFile(
		agentId: string,
		path: string,
		bytes: Uint8Array,
		options: T.CallOptions = {},
	): Promise<T.WorkspaceWriteResult> {
		V.checkAgentId(agentId);
		V.checkWorkspacePath(path);
		V.checkWriteSize('content', bytes);
		const body = await this.call<T.WorkspaceWriteResult>({
			method: 'PUT',
			path: `/v2/agents/${e(agentId)}/workspace/files`,
			route: 'PUT /v2/agents/{agent_id}/workspace/files',
			body: { path, content_base64: V.base64(bytes) },
			idempotent: true,
			transfer: true,
			signal: options.signal,
		});
		const b = obj(body);
		return { ...b, path: typeof b.path === 'string' ? b.path : path, size: typeof b.size === 'number' ? b.size : bytes.byteLength };
	}

	/** DELETE …/workspace/files {path, recursive}. Idempotent, so retried. */
	async deleteWorkspacePath(agentId: string, path: string, options: T.CallOptions & { recursive?: boolean } = {}): Promise<void> {
		V.checkAgentId(agentId);
		V.checkWorkspacePath(path);
		await this.call({
			method: 'DELETE',
			path: `/v2/agents/${e(agentId)}/workspace/files`,
			route: 'DELETE /v2/agents/{agent_id}/workspace/files',
			body: { path, recursive: options.recursive ?? false },
			idempotent: true,
			signal: options.signal,
		});
	}
}
