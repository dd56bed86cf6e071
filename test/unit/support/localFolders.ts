/**
 * The two local sides of a comparison (src/compare/localFiles.ts) over a folder of this machine, for
 * tests that run the same checks against both: Node's (a worker thread and node:fs) and the one VS
 * Code for the Web uses (fileSystemLocalFiles.ts), here over a stand-in for `vscode.workspace.fs`
 * with its rules: a stat follows a symbolic link and marks it (FileType.SymbolicLink with the type of
 * its target), a listing marks links the same way, a file is read whole.
 */
import { lstat, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { FS_TYPE, FileSystemLocalFiles, type FolderFileSystem } from '../../../src/compare/fileSystemLocalFiles';
import type { LocalFiles } from '../../../src/compare/localFiles';
import { NodeLocalFiles } from '../../../src/platform/node/nodeLocalFiles';

function typeOf(st: { isFile(): boolean; isDirectory(): boolean }): number {
	return st.isFile() ? FS_TYPE.file : st.isDirectory() ? FS_TYPE.directory : 0;
}

/** `vscode.workspace.fs`'s behaviour on the folder `root` of this machine (the disk provider's), through node:fs. */
export function diskFolderFileSystem(root: string): FolderFileSystem & { calls: number } {
	const abs = (rel: string): string => (rel === '' ? root : join(root, ...rel.split('/')));
	const fs = {
		calls: 0,
		stat: async (rel: string) => {
			fs.calls++;
			const l = await lstat(abs(rel));
			if (!l.isSymbolicLink()) {
				return { type: typeOf(l), size: l.size, mtime: l.mtimeMs };
			}
			const target = await stat(abs(rel)).catch(() => undefined);
			return { type: FS_TYPE.symbolicLink | (target ? typeOf(target) : 0), size: target?.size ?? 0, mtime: target?.mtimeMs ?? 0 };
		},
		readDirectory: async (rel: string): Promise<Array<[string, number]>> => {
			fs.calls++;
			const entries = await readdir(abs(rel), { withFileTypes: true });
			return Promise.all(
				entries.map(async (d): Promise<[string, number]> => {
					if (!d.isSymbolicLink()) {
						return [d.name, typeOf(d)];
					}
					const target = await stat(join(abs(rel), d.name)).catch(() => undefined);
					return [d.name, FS_TYPE.symbolicLink | (target ? typeOf(target) : 0)];
				}),
			);
		},
		readFile: async (rel: string) => {
			fs.calls++;
			return new Uint8Array(await readFile(abs(rel)));
		},
		isMissing: (err: unknown) => ['ENOENT', 'ENOTDIR'].includes(String((err as { code?: unknown } | null)?.code)),
	};
	return fs;
}

/** The local sides by name: `worker` (Node's) and `workspace.fs` (the browser's, over the stand-in above). */
export const LOCAL_SIDES: ReadonlyArray<readonly [name: string, of: (root: string) => LocalFiles]> = [
	['worker', (root) => new NodeLocalFiles(root)],
	['workspace.fs', (root) => new FileSystemLocalFiles(diskFolderFileSystem(root))],
];
