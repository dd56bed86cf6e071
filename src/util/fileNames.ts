/**
 * File names and paths as text, the same in both extension hosts (no `node:path`: VS Code for the
 * Web's extension host has none): the last segment of a URI's path, a name's extension, whether a
 * local path given as text is absolute. Pure, no `vscode`.
 */

/** The last segment of a `/`-separated path (a URI's `path`), trailing `/` ignored: `a.txt` of `/c:/x/a.txt`. */
export function baseName(path: string): string {
	const trimmed = path.replace(/\/+$/, '');
	return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/**
 * The extension of the last segment of `path`, with its dot, as Node's `path.posix.extname` reads
 * it: from the last `.`; `''` when there is none, for a leading dot only (`.bashrc`) and for `..`.
 */
export function extensionOf(path: string): string {
	const name = baseName(path);
	const dot = name.lastIndexOf('.');
	return dot <= 0 || name === '..' ? '' : name.slice(dot);
}

/** True for an absolute local path as text: `/…`, a Windows drive (`C:\…`, `C:/…`) or a UNC path (`\\server\share`). */
export function isAbsoluteLocalPath(path: string): boolean {
	return /^(\/|\\\\|[A-Za-z]:[\\/])/.test(path);
}
