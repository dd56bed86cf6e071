/**
 * Local file names derived from server data (artifact ids and names, run and agent ids): whatever
 * the server sends, the name is one harmless path segment and the file stays inside the folder the
 * extension chose. Plain Node (no `vscode`), so the unit tests load it directly.
 */
import * as nodePath from 'node:path';
import { SAFETY } from '../api';

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
const DEVICE_NAME = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\.|$)/i;

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

function resolveWith(p: typeof nodePath.posix, folder: string, names: readonly string[]): string {
	const root = p.resolve(folder);
	const resolved = p.resolve(root, ...names);
	const rel = p.relative(root, resolved);
	if (rel === '' || rel === '..' || rel.startsWith(`..${p.sep}`) || p.isAbsolute(rel)) {
		throw new LocalPathEscapeError(folder, names);
	}
	return resolved;
}

/**
 * `folder` joined with `names` (local file-system path rules of this machine), asserting that the
 * result lies strictly inside `folder`; throws a LocalPathEscapeError otherwise (`..`, absolute
 * names, or names that resolve to the folder itself). Pass names through `safeFileName` first: this
 * is the second line of defence.
 */
export function resolveInside(folder: string, ...names: string[]): string {
	return resolveWith(nodePath, folder, names);
}

/** Like `resolveInside`, for the `/`-separated path of a URI (`vscode.Uri.path`), whatever the OS. */
export function resolveInsidePosix(folder: string, ...names: string[]): string {
	return resolveWith(nodePath.posix, folder, names);
}
