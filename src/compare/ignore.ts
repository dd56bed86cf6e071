/**
 * Which files a comparison leaves out (issue 21): the local folder's `.gitignore` files (each applies
 * below its own folder, read lazily, cached, bounded), the `files.exclude` globs, and a fixed list
 * that is always left out. Matching is the `ignore` package's (gitignore semantics, MIT), not
 * hand-written globbing. The same rules filter both sides: an ignored folder is not listed at all.
 * Plain Node, no `vscode`.
 */
import * as nodePath from 'node:path';
import ignore from 'ignore';
import { readSmallTextFile } from './fileRead';

type Ignore = ignore.Ignore;

/** Always left out, whatever the settings say (gitignore syntax). */
export const ALWAYS_IGNORED: readonly string[] = ['.git/', 'node_modules/', '.svn/', '.hg/', '.DS_Store', '__pycache__/', '.venv/'];

/** At most this many `.gitignore` files are read; further ones are not applied. */
export const MAX_GITIGNORE_FILES = 1000;
/** A `.gitignore` larger than this is not applied. */
export const MAX_GITIGNORE_BYTES = 256 * 1024;
/** Folders whose (absent) `.gitignore` is remembered; past it, folders without one are looked up again. */
const MAX_CACHED_FOLDERS = 50_000;

/** `{a,b}` alternatives expanded (not nested; at most 64 results). */
function expandBraces(glob: string): string[] {
	const m = /\{([^{}]*)\}/.exec(glob);
	if (!m) {
		return [glob];
	}
	const out: string[] = [];
	for (const alt of m[1]!.split(',')) {
		for (const rest of expandBraces(glob.slice(0, m.index) + alt + glob.slice(m.index + m[0].length))) {
			if (out.length < 64) {
				out.push(rest);
			}
		}
	}
	return out;
}

/**
 * A `files.exclude` glob (relative to the folder, VS Code's glob syntax) as gitignore lines: braces
 * expanded, a leading `!`/`#` escaped, and a pattern without a `/` anchored to the root (a VS Code
 * glob `foo` matches the top-level `foo` only; gitignore's would match at any depth).
 */
export function excludeGlobToGitignore(glob: string): string[] {
	const out: string[] = [];
	for (let g of expandBraces(glob.trim())) {
		if (g === '') {
			continue;
		}
		if (g.startsWith('./')) {
			g = g.slice(2);
		}
		if (g.startsWith('!') || g.startsWith('#')) {
			g = `\\${g}`;
		}
		const body = g.endsWith('/') ? g.slice(0, -1) : g;
		if (!body.includes('/') && !g.startsWith('/')) {
			g = `/${g}`;
		}
		out.push(g);
	}
	return out;
}

export class IgnoreRules {
	/** Per folder (relative, '' = root): its .gitignore's rules, or null when it has none (or past the bounds). */
	private readonly layers = new Map<string, Ignore | null>();
	/** Folders already decided (relative path → ignored). */
	private readonly folders = new Map<string, boolean>();
	private gitignoresRead = 0;
	/** `.gitignore` files not applied (past the count or size bound). */
	skippedGitignores = 0;

	private constructor(
		private readonly localRoot: string | undefined,
		private readonly fixed: Ignore,
	) {}

	/**
	 * The rules of `localRoot` (its `.gitignore` files, read when first needed) with `exclude`: the
	 * `files.exclude` globs whose value is true. `localRoot` undefined: no `.gitignore` at all.
	 */
	static load(localRoot: string | undefined, options: { exclude?: readonly string[] } = {}): Promise<IgnoreRules> {
		const fixed = ignore().add([...ALWAYS_IGNORED]);
		for (const glob of options.exclude ?? []) {
			fixed.add(excludeGlobToGitignore(glob));
		}
		const rules = new IgnoreRules(localRoot === undefined ? undefined : nodePath.resolve(localRoot), fixed);
		rules.layer(''); // the root's .gitignore, read now (the rest lazily)
		return Promise.resolve(rules);
	}

	/** The rules of the `.gitignore` in folder `dir` (relative), read once. */
	private layer(dir: string): Ignore | null {
		const known = this.layers.get(dir);
		if (known !== undefined) {
			return known;
		}
		let rules: Ignore | null = null;
		if (this.localRoot !== undefined) {
			const text =
				this.gitignoresRead < MAX_GITIGNORE_FILES
					? readSmallTextFile(nodePath.join(this.localRoot, ...dir.split('/').filter(Boolean), '.gitignore'), MAX_GITIGNORE_BYTES)
					: undefined;
			if (text !== undefined) {
				this.gitignoresRead++;
				rules = ignore().add(text);
			} else if (this.gitignoresRead >= MAX_GITIGNORE_FILES) {
				this.skippedGitignores++;
			}
		}
		if (rules !== null || this.layers.size < MAX_CACHED_FOLDERS) {
			this.layers.set(dir, rules);
		}
		return rules;
	}

	/** Whether `rel` itself (its folders aside) is matched: the fixed rules, then each .gitignore from the root down (deeper wins). */
	private matches(rel: string, isDir: boolean): boolean {
		const test = isDir ? `${rel}/` : rel;
		if (this.fixed.ignores(test)) {
			return true;
		}
		const parts = rel.split('/');
		let state = false;
		for (let depth = 0; depth < parts.length; depth++) {
			const dir = parts.slice(0, depth).join('/');
			const rules = this.layer(dir);
			if (rules === null) {
				continue;
			}
			const r = rules.test(depth === 0 ? test : test.slice(dir.length + 1));
			if (r.ignored) {
				state = true;
			} else if (r.unignored) {
				state = false;
			}
		}
		return state;
	}

	private folderIgnored(dir: string): boolean {
		const known = this.folders.get(dir);
		if (known !== undefined) {
			return known;
		}
		const slash = dir.lastIndexOf('/');
		const result = (slash >= 0 && this.folderIgnored(dir.slice(0, slash))) || this.matches(dir, true);
		if (this.folders.size < MAX_CACHED_FOLDERS) {
			this.folders.set(dir, result);
		}
		return result;
	}

	/** Whether `rel` (a checked relative path; `isDir` for a folder) is left out, or lies in a folder that is. */
	ignores(rel: string, isDir: boolean): boolean {
		if (isDir) {
			return this.folderIgnored(rel);
		}
		const slash = rel.lastIndexOf('/');
		return (slash >= 0 && this.folderIgnored(rel.slice(0, slash))) || this.matches(rel, false);
	}
}
