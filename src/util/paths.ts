/**
 * The one path module: the rules for every path the extension builds or accepts, pure functions
 * over `/`-separated strings (no `node:path`, no disk: the checks against the local folder are the
 * seam's, src/compare/localFiles.ts). No `vscode`, no Node.
 * - Workspace paths as the service spells them: relative to the workspace root, `/` separators,
 *   `""` for the root. Everything that reaches the API goes through `normalizeWorkspacePath`, which
 *   refuses escapes from the root before any request is sent.
 * - Relative paths of a comparison (issue 21): checked before any use (`checkRelativePath`), then
 *   joined onto the agent's workspace folder, or handed to the local folder's seam
 *   (src/compare/localFiles.ts), which refuses a symlinked component before anything is written.
 * - Local file names derived from server data (artifact ids and names, run and agent ids): whatever
 *   the server sends, the name is one harmless path segment and the file stays inside the folder the
 *   extension chose.
 */
// The modules themselves, not src/api/index.ts: the comparison's worker bundle takes
// UnsafePathError from here and must not bring in the HTTP client.
import { LIMITS, SAFETY } from '../base/limits';
import { utf8Length } from '../base/bytes';
import { sha256HexSync } from '../base/random';

// ---- Workspace paths (the service's) ----

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

// ---- Relative paths of a comparison and their local targets ----

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
	if (rel.startsWith('/')) {
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
	if (utf8Length(path) > LIMITS.workspacePathBytes) {
		// The service's path limit, refused here as the client would refuse it before sending.
		throw new UnsafePathError(path, `longer than the service's ${LIMITS.workspacePathBytes} UTF-8 bytes for a workspace path`);
	}
	return path;
}

// ---- Local file names from server data ----

/** A name refused or changed by these rules would have left its folder; `resolveInside` throws this. */
export class LocalPathEscapeError extends Error {
	override readonly name = 'LocalPathEscapeError';
	constructor(
		/** The folder the path had to stay in. */
		readonly folder: string,
		/** The names that were joined to it. */
		readonly names: readonly string[],
	) {
		super(`A local path built from server data would leave its folder ${folder}; nothing was written.`);
	}
}

/**
 * C0 and C1 control characters, DEL, bidi controls (U+061C, U+200E/F, U+202A–U+202E,
 * U+2066–U+2069), zero-width and other invisible formatting characters, and lone surrogates.
 */
const INVISIBLE =
	// eslint-disable-next-line no-control-regex
	/[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
/** Characters no file name may hold on some supported system (separators and Windows' reserved characters). */
const RESERVED_CHARS = /[/\\<>:"|?*]/g;
/** Windows device names, reserved with any extension and in any case (`con`, `NUL.txt`, `com1.tar.gz`). */
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])(\.|$)/i;

/** True when `text` holds a control, bidi or other invisible character, or a lone surrogate. */
export function hasInvisibleCharacters(text: string): boolean {
	INVISIBLE.lastIndex = 0;
	const found = INVISIBLE.test(text);
	INVISIBLE.lastIndex = 0;
	return found;
}

/** Cuts `name` to `max` UTF-16 units without splitting a surrogate pair, keeping a short extension. */
function cut(name: string, max: number): string {
	if (name.length <= max) {
		return name;
	}
	const dot = name.lastIndexOf('.');
	const ext = dot > 0 && name.length - dot <= 16 ? name.slice(dot) : '';
	let stem = name.slice(0, Math.max(1, max - ext.length));
	if (/[\ud800-\udbff]$/.test(stem)) {
		stem = stem.slice(0, -1);
	}
	return stem + ext;
}

/**
 * One safe local file name from untrusted text: never a path separator (`/`, `\`) or a character
 * Windows refuses (`<>:"|?*`, turned into `_`), no control, bidi or invisible characters (dropped),
 * not `.` or `..`, no leading dots (no hidden files) and no trailing dots or spaces, no Windows device
 * name (`CON`, `NUL.txt`, `LPT1`… get a `_` prefix), at most `SAFETY.localNameMaxChars` characters
 * (the extension is kept), and never empty: `fallback` (itself made safe, else `"file"`) stands in.
 */
export function safeFileName(raw: unknown, fallback = 'file'): string {
	const text = typeof raw === 'string' ? raw : '';
	let name = text.normalize('NFC').replace(INVISIBLE, '').replace(RESERVED_CHARS, '_').trim();
	name = name.replace(/^[.\s]+/, '');
	name = cut(name, SAFETY.localNameMaxChars);
	name = name.replace(/[.\s]+$/, '');
	if (DEVICE_NAME.test(name)) {
		name = cut(`_${name}`, SAFETY.localNameMaxChars);
	}
	if (name === '') {
		return fallback === 'file' ? 'file' : safeFileName(fallback, 'file');
	}
	return name;
}

/** The segments of a `/`-separated path resolved as POSIX does (from the root: `.` and empty dropped, `..` up, never above the root). */
function resolvePosix(paths: readonly string[]): string[] {
	let out: string[] = [];
	for (const path of paths) {
		if (path.startsWith('/')) {
			out = [];
		}
		for (const segment of path.split('/')) {
			if (segment === '..') {
				out.pop();
			} else if (segment !== '' && segment !== '.') {
				out.push(segment);
			}
		}
	}
	return out;
}

/**
 * `folder` (a `/`-separated absolute path: `vscode.Uri.path`) joined with `names`, asserting that
 * the result lies strictly inside `folder`; throws a LocalPathEscapeError otherwise (`..`, absolute
 * names, or names that resolve to the folder itself). Pass names through `safeFileName` first: this
 * is the second line of defence. POSIX rules whatever the OS (pure string functions: no `node:path`).
 */
export function resolveInsidePosix(folder: string, ...names: string[]): string {
	const root = resolvePosix([folder]);
	const resolved = resolvePosix([folder, ...names]);
	if (resolved.length <= root.length || root.some((segment, i) => resolved[i] !== segment)) {
		throw new LocalPathEscapeError(folder, names);
	}
	return `/${resolved.join('/')}`;
}

/** Room kept for a `.jsonl` suffix within `SAFETY.localNameMaxChars` (localIdName). */
const SUFFIX_ROOM = '.jsonl'.length;

/**
 * The local name of an agent or run id: the id percent-encoded as before (so existing histories are
 * found again; `.` becomes `%2E`, so no name is `.`, `..` or hidden), when that is already a safe
 * file name of a sensible length; otherwise a safe, shortened form of it plus a hash of the whole
 * id, so distinct ids never share a file and no id can name a device, a separator or a long path.
 */
export function localIdName(id: string): string {
	let encoded: string | undefined;
	try {
		encoded = hasInvisibleCharacters(id) ? undefined : encodeURIComponent(id).replace(/\./g, '%2E');
	} catch {
		encoded = undefined; // a lone surrogate
	}
	const max = SAFETY.localNameMaxChars - SUFFIX_ROOM;
	if (encoded !== undefined && encoded.length <= max && /^[A-Za-z0-9%_-]+$/.test(encoded) && safeFileName(encoded, '') === encoded) {
		return encoded;
	}
	const hash = sha256HexSync(id).slice(0, 16);
	const stem = safeFileName(id, 'id')
		.replace(/[^A-Za-z0-9_-]/g, '_')
		.slice(0, max - hash.length - 1);
	return `${stem}~${hash}`;
}
