/**
 * Which files a comparison leaves out (issue 21): the local folder's `.gitignore` files (each applies
 * below its own folder, read through the folder's seam when a folder is first prepared, cached,
 * bounded), the `files.exclude` globs, and a fixed list that is always left out. Matching is the
 * `ignore` package's (gitignore semantics, MIT), not hand-written globbing. The same rules filter
 * both sides: an ignored folder is not listed at all. No `vscode`, no Node.
 */
import ignore from 'ignore';
import type { LocalFiles } from './localFiles';

type Ignore = ignore.Ignore;

/** Always left out, whatever the settings say (gitignore syntax). */
export const ALWAYS_IGNORED: readonly string[] = ['.git/', 'node_modules/', '.svn/', '.hg/', '.DS_Store', '__pycache__/', '.venv/'];

/** At most this many `.gitignore` files are read; further ones are not applied. */
export const MAX_GITIGNORE_FILES = 1000;
/** A `.gitignore` larger than this is not applied. */
export const MAX_GITIGNORE_BYTES = 256 * 1024;
/** Folders whose ignored state is remembered; past it, a folder's state is worked out again. */
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

/**
 * The rules of one comparison. `prepare(folder)` reads the `.gitignore` files of a folder and its
 * ancestors (once each); `ignores` then answers synchronously for the paths in that folder. The
 * folders prepared are bounded by the comparison's own bounds (the folders it lists on each side
 * and the parents of the files its baseline names).
 */
export class IgnoreRules {
	/** Per prepared folder (relative, '' = root): its .gitignore's rules, or null when it has none (or past the bounds). */
	private readonly layers = new Map<string, Ignore | null>();
	/** Folders already decided (relative path → ignored). */
	private readonly folders = new Map<string, boolean>();
	private gitignoresRead = 0;
	/** `.gitignore` files not applied (past the count or size bound). */
	skippedGitignores = 0;

	private constructor(
		private readonly local: LocalFiles | undefined,
		private readonly fixed: Ignore,
	) {}

	/**
	 * The rules of the folder `local` (its `.gitignore` files, the root's read now, the others as
	 * their folders are prepared) with `exclude`: the `files.exclude` globs whose value is true.
	 * `local` undefined: no `.gitignore` at all.
	 */
	static async load(local: LocalFiles | undefined, options: { exclude?: readonly string[] } = {}): Promise<IgnoreRules> {
		const fixed = ignore().add([...ALWAYS_IGNORED]);
		for (const glob of options.exclude ?? []) {
			fixed.add(excludeGlobToGitignore(glob));
		}
		const rules = new IgnoreRules(local, fixed);
		await rules.prepare('');
		return rules;
	}

	/** Reads the `.gitignore` files of folder `dir` (relative, '' = the root) and of its ancestors not read yet: `ignores` may then test paths in `dir`. */
	async prepare(dir: string): Promise<void> {
		const parts = dir === '' ? [] : dir.split('/');
		for (let depth = 0; depth <= parts.length; depth++) {
			const folder = parts.slice(0, depth).join('/');
			if (!this.layers.has(folder)) {
				this.layers.set(folder, await this.read(folder));
			}
		}
	}

	/** The rules of the `.gitignore` in folder `dir`, or null (none, unreadable, or past the bounds). */
	private async read(dir: string): Promise<Ignore | null> {
		if (this.local === undefined) {
			return null;
		}
		if (this.gitignoresRead >= MAX_GITIGNORE_FILES) {
			this.skippedGitignores++;
			return null;
		}
		const text = await this.local.readSmallText(dir === '' ? '.gitignore' : `${dir}/.gitignore`, MAX_GITIGNORE_BYTES);
		if (text === undefined) {
			return null;
		}
		this.gitignoresRead++;
		return ignore().add(text);
	}

	/** The rules of a prepared folder's `.gitignore` (null: none). */
	private layer(dir: string): Ignore | null {
		const rules = this.layers.get(dir);
		if (rules === undefined) {
			throw new Error(`The ignore rules of ${JSON.stringify(dir)} were not prepared`);
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
