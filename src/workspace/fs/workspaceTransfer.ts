/**
 * Copying and moving inside one agent's workspace. The service has no copy or move, so both are
 * file by file: the whole source tree is listed first (within the walk limits: a bigger tree is
 * refused before anything changes), every target file is written and verified against a fresh
 * stat from the service, and a move deletes its source only after all of that succeeded. Nothing
 * is lost when a step fails.
 *
 * No `vscode` import and no state of its own: it works through a `TransferHost`, which the cache
 * provides so that what a copy learns (listings, stats, written files) stays cached.
 */
import { isSameOrBelow } from '../../util/paths';
import { type EntryStat, WorkspaceFsError } from './workspaceModel';
import { type EntryType, WalkLimitError, collectTree } from './workspaceWalk';

/** One agent's workspace as a copy or move uses it (paths already normalised). */
export interface TransferHost {
	/** Type, size and mtime; throws FileNotFound when missing. */
	stat(path: string): Promise<EntryStat>;
	/** As `stat`, undefined when missing. */
	tryStat(path: string): Promise<EntryStat | undefined>;
	/** A folder's children. */
	readDirectory(path: string): Promise<Array<[string, EntryType]>>;
	/** A whole file (no large-file confirmation: copying is not opening). */
	readFile(path: string): Promise<Uint8Array>;
	/** Writes a whole file, creating or replacing it. */
	writeFile(path: string, content: Uint8Array): Promise<EntryStat>;
	/** Asks the service (never a cache) for the type and size of `path`, to verify a copy. */
	statAtService(path: string): Promise<{ type: EntryType; size: number | undefined }>;
	/** Deletes a file or folder with its content. */
	delete(path: string): Promise<void>;
	/** Records an empty folder the service cannot hold (it has no mkdir). */
	addVirtualDir(path: string): void;
	/** Reports a folder created by a copy. */
	created(path: string): void;
}

/**
 * Copies (or, with `move`, moves) `from` to `to`. Refuses the root, a target inside the source and
 * an existing target without `overwrite`; lists a folder's whole tree before changing anything.
 */
export async function transfer(
	host: TransferHost,
	from: string,
	to: string,
	options: { overwrite: boolean; move: boolean },
): Promise<void> {
	const { move } = options;
	if (from === '' || to === '') {
		throw new WorkspaceFsError(
			'NoPermissions',
			from === '' ? from : to,
			'The root of the agent workspace cannot be moved or replaced.',
		);
	}
	if (from === to) {
		return;
	}
	if (isSameOrBelow(to, from)) {
		throw new WorkspaceFsError('NoPermissions', to, `Cannot ${move ? 'move' : 'copy'} ${from} into itself.`);
	}
	const source = await host.stat(from);
	const target = await host.tryStat(to);
	if (target && !options.overwrite) {
		throw new WorkspaceFsError('FileExists', to);
	}
	// The whole source tree is listed (within the walk limits) before anything is changed.
	const tree = source.type === 'directory' ? await listTree(host, from, move ? 'move' : 'copy') : undefined;
	if (target && (target.type === 'directory' || source.type === 'directory')) {
		await host.delete(to);
	}
	if (!tree) {
		await copyFileVerified(host, from, to);
	} else {
		const { files, emptyDirs } = tree;
		for (const file of files) {
			await copyFileVerified(host, file, to + file.slice(from.length));
		}
		for (const dir of emptyDirs) {
			host.addVirtualDir(to + dir.slice(from.length));
		}
		if (files.length === 0) {
			host.addVirtualDir(to);
		}
		host.created(to);
	}
	if (move) {
		await host.delete(from);
	}
}

/** Copies one file and verifies the copy from the service (not from what the write answered). */
async function copyFileVerified(host: TransferHost, from: string, to: string): Promise<void> {
	const content = await host.readFile(from);
	await host.writeFile(to, content);
	const check = await host.statAtService(to);
	if (check.type !== 'file' || check.size !== content.byteLength) {
		throw new WorkspaceFsError(
			'Unavailable',
			to,
			`The copy at ${to} could not be verified (${check.size ?? '?'} of ${content.byteLength} bytes); ${from} was kept.`,
		);
	}
}

/**
 * Every file (and empty folder) below a folder, within `SAFETY.walkMaxDepth` and
 * `SAFETY.walkMaxEntries`: a bigger tree is refused (TooLarge, naming the limit) before anything is
 * copied, moved or deleted.
 */
async function listTree(host: TransferHost, root: string, op: 'copy' | 'move'): Promise<{ files: string[]; emptyDirs: string[] }> {
	try {
		return await collectTree((dir) => host.readDirectory(dir), root);
	} catch (err) {
		if (err instanceof WalkLimitError) {
			const what =
				err.bound === 'depth' ? `is more than ${err.limit} folder levels deep` : `holds more than ${err.limit} files and folders`;
			throw new WorkspaceFsError(
				'TooLarge',
				root,
				`Cannot ${op} ${root}: it ${what}, the limit of one ${op} in the agent workspace (walk limit). Nothing was changed.`,
			);
		}
		throw err;
	}
}
