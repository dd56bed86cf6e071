/**
 * Paths of a comparison (issue 21): relative paths checked before any use, joined onto the agent's
 * workspace folder or the local folder, and asserted to stay inside the local folder (no `..`, no
 * symlinked component) before anything is written there. Plain Node, no `vscode`.
 */
import { createHash } from 'node:crypto';
import { lstat, realpath } from 'node:fs/promises';
import * as nodePath from 'node:path';
// The modules themselves, not src/api/index.ts: the comparison's worker bundle (via fileRead.ts) takes
// UnsafePathError from here and must not bring in the HTTP client.
import type { CloudAgentsClient } from '../api/client';
import { ApiError } from '../api/errors';
import { SAFETY } from '../api/limits';
import { throwIfAborted } from '../api/async';
import { InvalidResponseError } from '../api/decode';
import { checkWorkspacePath } from '../api/validation';

/** A relative path (or a local target) that is not safe to use; `path` is the offending input. */
export class UnsafePathError extends Error {
	override readonly name = 'UnsafePathError';
	constructor(
		readonly path: string,
		reason: string,
	) {
		super(`Unsafe path ${JSON.stringify(path.slice(0, 200))}: ${reason}`);
	}
}

// C0 controls, DEL and C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * `rel` unchanged when it is a plain relative path (`a/b/c.txt`): not empty, not absolute, no
 * `.`/`..` or empty segment, no backslash, no control character (NUL included), no drive letter.
 * Throws UnsafePathError otherwise.
 */
export function checkRelativePath(rel: string): string {
	if (typeof rel !== 'string' || rel === '') {
		throw new UnsafePathError(String(rel), 'empty');
	}
	if (CONTROL.test(rel)) {
		throw new UnsafePathError(rel, 'control character');
	}
	if (rel.includes('\\')) {
		throw new UnsafePathError(rel, 'backslash');
	}
	if (rel.startsWith('/') || nodePath.isAbsolute(rel) || nodePath.win32.isAbsolute(rel)) {
		throw new UnsafePathError(rel, 'absolute');
	}
	if (/^[A-Za-z]:/.test(rel)) {
		throw new UnsafePathError(rel, 'drive letter');
	}
	for (const segment of rel.split('/')) {
		if (segment === '' || segment === '.' || segment === '..') {
			throw new UnsafePathError(rel, `segment ${JSON.stringify(segment)}`);
		}
	}
	return rel;
}

/** The workspace path of `rel` under `agentFolder` (`''` = the workspace root), as src/api takes it. */
export function agentPathOf(agentFolder: string, rel: string): string {
	checkRelativePath(rel);
	if (agentFolder !== '') {
		checkRelativePath(agentFolder);
	}
	const path = agentFolder === '' ? rel : `${agentFolder}/${rel}`;
	checkWorkspacePath(path);
	return path;
}

/** True when `child` is strictly inside `parent` (both absolute, resolved). */
function strictlyInside(parent: string, child: string): boolean {
	const r = nodePath.relative(parent, child);
	return r !== '' && !r.startsWith('..') && !nodePath.isAbsolute(r);
}

/** The absolute local path of `rel`, asserted strictly inside `localRoot` (else UnsafePathError). */
export function localPathOf(localRoot: string, rel: string): string {
	checkRelativePath(rel);
	const root = nodePath.resolve(localRoot);
	const abs = nodePath.resolve(root, ...rel.split('/'));
	if (!strictlyInside(root, abs)) {
		throw new UnsafePathError(rel, 'leaves the local folder');
	}
	return abs;
}

function isMissing(err: unknown): boolean {
	const code = (err as { code?: unknown } | null)?.code;
	return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The absolute local path of `rel`, safe to write or delete: inside `localRoot`, no existing
 * component between the root and the target (the target included) a symbolic link, and the real
 * path of the deepest existing ancestor inside the real path of the root. Call it before every
 * local write or delete.
 */
export async function assertSafeLocalWrite(localRoot: string, rel: string): Promise<string> {
	const abs = localPathOf(localRoot, rel);
	const root = nodePath.resolve(localRoot);
	const segments = rel.split('/');
	let deepest = root;
	let current = root;
	for (let i = 0; i < segments.length; i++) {
		current = nodePath.join(current, segments[i]!);
		let st;
		try {
			st = await lstat(current);
		} catch (err) {
			if (isMissing(err)) {
				break;
			}
			throw err;
		}
		if (st.isSymbolicLink()) {
			throw new UnsafePathError(
				rel,
				i === segments.length - 1 ? 'the target is a symbolic link' : 'a folder on the way is a symbolic link',
			);
		}
		if (i < segments.length - 1 && !st.isDirectory()) {
			throw new UnsafePathError(rel, 'a component on the way is not a folder');
		}
		if (i < segments.length - 1) {
			deepest = current;
		}
	}
	const realRoot = await realpath(root);
	const realDeepest = await realpath(deepest);
	if (realDeepest !== realRoot && !strictlyInside(realRoot, realDeepest)) {
		throw new UnsafePathError(rel, 'resolves outside the local folder');
	}
	return abs;
}

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
		const hash = createHash('sha256');
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
			return { sha256: hash.digest('hex'), size: read, mtime: first.mtime_unix_ms ?? expected?.mtime ?? 0 };
		}
	}
	throw new ApiError(409, 'file_changed', `The file ${agentPath} kept changing while it was read`, undefined);
}
