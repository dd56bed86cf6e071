/**
 * Ground truth of what agents changed in their workspaces (admin routes `/_emulator/workspace/…`),
 * and the deterministic large trees the bench seeds.
 */
import type { ChangeKind } from './runs';
import type { RunRow } from './state';

/** At most this many files in one `POST /_emulator/workspace/{agent_id}/seed`. */
export const MAX_SEED_FILES = 20_000;
/** `GET …/files?content=true` answers contents up to this many bytes. */
export const MAX_CONTENT_DUMP_BYTES = 64 * 1024 * 1024;

export interface FileChange {
	path: string;
	change: ChangeKind;
}

const KINDS: ReadonlySet<string> = new Set(['created', 'modified', 'deleted']);

/** A run's `file.changed` events, in order (stored in the standard form whatever the profile sends). */
export function runChanges(run: RunRow): FileChange[] {
	const out: FileChange[] = [];
	for (const ev of run.events) {
		if (ev.type !== 'file.changed') continue;
		const { path, change } = ev.data;
		if (typeof path === 'string' && typeof change === 'string' && KINDS.has(change)) out.push({ path, change: change as ChangeKind });
	}
	return out;
}

/**
 * The net change per path of a sequence of changes (path order): created then modified is created,
 * created then deleted is nothing, modified then deleted is deleted, deleted then created is modified.
 */
export function netChanges(changes: readonly FileChange[]): FileChange[] {
	const net = new Map<string, ChangeKind | undefined>();
	for (const { path, change } of changes) {
		// undefined: not seen, or created and deleted again (nets to nothing so far)
		const before = net.get(path);
		let after: ChangeKind | undefined;
		if (before === undefined) after = change;
		else if (before === 'created') after = change === 'deleted' ? undefined : 'created';
		else after = change === 'deleted' ? 'deleted' : 'modified';
		net.set(path, after);
	}
	return [...net]
		.filter((e): e is [string, ChangeKind] => e[1] !== undefined)
		.map(([path, change]) => ({ path, change }))
		.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export interface SeedTreeOptions {
	files: number;
	/** Bytes per file. */
	size: number;
	perFolder: number;
	/** Normalised folder the tree goes under ("" = the workspace root). */
	under: string;
	/** Varies the contents (not the paths). */
	seed: string;
}

/**
 * A deterministic tree: file i is `<under>/pkg-<i / perFolder / 10>/mod-<i / perFolder % 10>/file-<i>.txt`,
 * its content text lines naming the file and the seed, cut to `size` bytes.
 */
export function seedTree(o: SeedTreeOptions): {
	under: string;
	files: { path: string; data: Buffer }[];
	directories: number;
	bytes: number;
} {
	const files: { path: string; data: Buffer }[] = [];
	const dirs = new Set<string>();
	const width = Math.max(5, String(o.files - 1).length);
	for (let i = 0; i < o.files; i++) {
		const folder = Math.floor(i / o.perFolder);
		const name = `file-${String(i).padStart(width, '0')}.txt`;
		const pkg = `pkg-${String(Math.floor(folder / 10)).padStart(3, '0')}`;
		const dir = [o.under, pkg, `mod-${folder % 10}`].filter((x) => x !== '').join('/');
		for (let d = dir; d !== ''; d = d.includes('/') ? d.slice(0, d.lastIndexOf('/')) : '') dirs.add(d);
		const line = `${name} ${o.seed} line `;
		let text = '';
		for (let n = 1; text.length < o.size; n++) text += `${line}${n}\n`;
		files.push({ path: `${dir}/${name}`, data: Buffer.from(text.slice(0, o.size), 'utf8') });
	}
	return { under: o.under, files, directories: dirs.size, bytes: files.length * o.size };
}
