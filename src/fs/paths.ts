/**
 * Workspace paths as the service spells them: relative to the workspace root, `/` separators, `""`
 * for the root. Everything that reaches the API goes through `normalizeWorkspacePath`, which refuses
 * escapes from the root before any request is sent. No `vscode` import: unit tests load it in Node.
 */
import { LIMITS, utf8Length } from '../api';

/** Why a path was refused (a stable code for tests and the error mapping). */
export type PathProblem = 'escape' | 'backslash' | 'nul' | 'too_long';

/** A workspace path that cannot be sent to the service; nothing was sent. */
export class WorkspacePathError extends Error {
	override readonly name = 'WorkspacePathError';
	constructor(
		/** The refused path, as given. */
		readonly path: string,
		/** What is wrong with it. */
		readonly problem: PathProblem,
		message: string,
	) {
		super(message);
	}
}

/**
 * Turns the path part of a `cloud-agent://<agentId>/<path>` URI into a workspace path: drops empty
 * and `.` segments and a leading `/`, and refuses `..` segments, backslashes, NUL characters and
 * paths longer than 4,096 UTF-8 bytes (the service's limit) with a WorkspacePathError.
 */
export function normalizeWorkspacePath(raw: string): string {
	if (raw.includes('\0')) {
		throw new WorkspacePathError(raw, 'nul', 'A workspace path cannot contain NUL characters.');
	}
	if (raw.includes('\\')) {
		throw new WorkspacePathError(raw, 'backslash', `"${raw}": workspace paths use "/" separators, not backslashes.`);
	}
	const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
	if (parts.includes('..')) {
		throw new WorkspacePathError(raw, 'escape', `"${raw}" leaves the agent's workspace ("..").`);
	}
	const path = parts.join('/');
	const bytes = utf8Length(path);
	if (bytes > LIMITS.workspacePathBytes) {
		throw new WorkspacePathError(
			raw,
			'too_long',
			`The path is ${bytes} bytes long; the service accepts at most ${LIMITS.workspacePathBytes}.`,
		);
	}
	return path;
}

/** The folder holding `path` (`""` for top-level names and for the root itself). */
export function parentPath(path: string): string {
	const slash = path.lastIndexOf('/');
	return slash < 0 ? '' : path.slice(0, slash);
}

/** The last segment of `path` (`""` for the root). */
export function baseName(path: string): string {
	return path.slice(path.lastIndexOf('/') + 1);
}

/** `dir` joined with a child name. */
export function joinPath(dir: string, name: string): string {
	return dir === '' ? name : `${dir}/${name}`;
}

/** True when `path` is `ancestor` or lies below it. The root is an ancestor of everything. */
export function isSameOrBelow(path: string, ancestor: string): boolean {
	return ancestor === '' || path === ancestor || path.startsWith(`${ancestor}/`);
}
