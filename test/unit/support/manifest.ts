/**
 * package.json as VS Code reads it in English: its user-visible strings are `%key%` references to
 * package.nls.json (issue 42, item 16), which VS Code substitutes when it loads the extension (and
 * `extension.packageJSON` holds the substituted text). The unit tests and the bench that read our
 * contributions from the file (a command's title, a view's name, a welcome's text) read them here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A `%key%` reference as VS Code recognises one: the whole string, between two `%`. */
export const NLS_REFERENCE = /^%([^%]+)%$/;

/** package.nls.json of the repository at `root`: key → English text. */
export function readNls(root: string): Record<string, string> {
	return JSON.parse(readFileSync(join(root, 'package.nls.json'), 'utf8')) as Record<string, string>;
}

/** `value` with every `%key%` string, at any depth, replaced by its text in `nls`; an unknown key throws. */
export function resolveNls<T>(value: T, nls: Record<string, string>): T {
	const resolve = (v: unknown): unknown => {
		if (typeof v === 'string') {
			const key = NLS_REFERENCE.exec(v)?.[1];
			if (key === undefined) {
				return v;
			}
			const text = nls[key];
			if (text === undefined) {
				throw new Error(`package.json refers to ${v}, which package.nls.json does not define`);
			}
			return text;
		}
		if (Array.isArray(v)) {
			return v.map(resolve);
		}
		if (typeof v === 'object' && v !== null) {
			return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolve(x)]));
		}
		return v;
	};
	return resolve(value) as T;
}

/** package.json of the repository at `root` as written (with its `%key%` references). */
export function readRawManifest(root: string): unknown {
	return JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
}

/** package.json of the repository at `root` with its English texts in place, as VS Code shows them. */
export function readManifest<T = unknown>(root: string): T {
	return resolveNls(readRawManifest(root), readNls(root)) as T;
}
