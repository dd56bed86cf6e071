/**
 * The SHA-256 of an agent-side file, read over the API chunk by chunk (the agent's side of a
 * comparison; the local side is the folder's seam, localFiles.ts), incrementally through @noble/hashes
 * (the same hex as `node:crypto`'s; Web Crypto has no incremental digest). No `vscode`, no Node.
 */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex } from '@noble/hashes/utils';
import { ApiError, type CloudAgentsClient, SAFETY } from '../api';
import { throwIfAborted } from '../base/async';
import { InvalidResponseError } from '../api/decode';

/** What an agent-side hash read (bytes: the content length, for the byte counters). */
export interface AgentHash {
	sha256: string;
	size: number;
	mtime: number;
}

/**
 * SHA-256 of an agent-side file, read chunk by chunk through `client.readWorkspaceFile` and hashed as
 * it comes (never the whole file in memory). Every chunk must show the first chunk's size and mtime
 * and carry bytes (at least SAFETY.readChunkMinBytes before the end); a file that changes between
 * chunks is read again from the start, up to 3 times in all, then ApiError 409 `file_changed`.
 * `expected` (the listed facts) stands in for an mtime the server leaves out; the facts returned are
 * those of the content read (another size or mtime than listed: the file changed since).
 */
export async function hashAgentFile(
	client: CloudAgentsClient,
	agentId: string,
	agentPath: string,
	signal?: AbortSignal,
	expected?: { size: number; mtime: number },
): Promise<AgentHash> {
	for (let attempt = 0; attempt < 3; attempt++) {
		throwIfAborted(signal);
		const first = await client.readWorkspaceFile(agentId, agentPath, { signal });
		const hash = sha256.create();
		const size = first.size;
		hash.update(first.content.subarray(0, size));
		let offset = first.content.byteLength;
		let consistent = true;
		const minChunk = SAFETY.readChunkMinBytes;
		const tooSmall = (n: number, at: number): boolean => n < minChunk && at + n < size;
		if (!first.eof && offset < size && tooSmall(first.content.byteLength, 0)) {
			throw new InvalidResponseError('workspace read', `chunks of at least ${minChunk} bytes before the end of the file`, undefined);
		}
		while (offset < size && !first.eof) {
			const chunk = await client.readWorkspaceFile(agentId, agentPath, { signal, offset });
			if (chunk.size !== size || chunk.mtime_unix_ms !== first.mtime_unix_ms || chunk.content.byteLength === 0) {
				consistent = false;
				break;
			}
			if (tooSmall(chunk.content.byteLength, offset)) {
				throw new InvalidResponseError(
					'workspace read',
					`chunks of at least ${minChunk} bytes before the end of the file`,
					undefined,
				);
			}
			hash.update(chunk.content.subarray(0, size - offset));
			offset += chunk.content.byteLength;
		}
		if (consistent) {
			const read = first.eof ? Math.min(first.content.byteLength, size) : size;
			return { sha256: bytesToHex(hash.digest()), size: read, mtime: first.mtime_unix_ms ?? expected?.mtime ?? 0 };
		}
	}
	throw new ApiError(409, 'file_changed', `The file ${agentPath} kept changing while it was read`, undefined);
}
