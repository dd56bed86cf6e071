/**
 * Copy and move on their own, over an in-memory workspace standing in for the cache: the cases a
 * real service rarely produces on demand (a write that succeeds but a copy the service then reports
 * with another size).
 */
import assert from 'node:assert/strict';
import { WorkspaceFsError } from '../../../../src/workspace/fs/workspaceModel';
import { type TransferHost, transfer } from '../../../../src/workspace/fs/workspaceTransfer';
import type { EntryType } from '../../../../src/workspace/fs/workspaceWalk';

/** A flat map of files (folders implied by paths); `shortBy` makes the service report copies smaller. */
function memoryHost(
	files: Record<string, string>,
	shortBy = 0,
): TransferHost & { files: Map<string, Uint8Array>; calls: string[]; virtual: string[] } {
	const map = new Map<string, Uint8Array>(Object.entries(files).map(([k, v]) => [k, new TextEncoder().encode(v)]));
	const calls: string[] = [];
	const virtual: string[] = [];
	const isDir = (path: string): boolean => [...map.keys()].some((k) => k.startsWith(`${path}/`));
	const stat = async (path: string) =>
		map.has(path)
			? { type: 'file' as const, size: map.get(path)?.byteLength ?? 0, mtime: 1 }
			: isDir(path)
				? { type: 'directory' as const, size: 0, mtime: 1 }
				: undefined;
	return {
		files: map,
		calls,
		virtual,
		stat: async (path) => (await stat(path)) ?? Promise.reject(new WorkspaceFsError('FileNotFound', path)),
		tryStat: stat,
		readDirectory: async (path) => {
			const names = new Map<string, EntryType>();
			for (const key of map.keys()) {
				if (key.startsWith(`${path}/`)) {
					const [first, ...rest] = key.slice(path.length + 1).split('/');
					names.set(first as string, rest.length > 0 ? 'directory' : 'file');
				}
			}
			return [...names];
		},
		readFile: async (path) => map.get(path) ?? Promise.reject(new WorkspaceFsError('FileNotFound', path)),
		writeFile: async (path, content) => {
			calls.push(`write ${path}`);
			map.set(path, content);
			return { type: 'file', size: content.byteLength, mtime: 2 };
		},
		statAtService: async (path) => ({ type: 'file', size: (map.get(path)?.byteLength ?? 0) - shortBy }),
		delete: async (path) => {
			calls.push(`delete ${path}`);
			for (const key of [...map.keys()]) {
				if (key === path || key.startsWith(`${path}/`)) {
					map.delete(key);
				}
			}
		},
		addVirtualDir: (path) => virtual.push(path),
		created: (path) => calls.push(`created ${path}`),
	};
}

suite('fs/workspaceTransfer', () => {
	test('a move whose copy the service reports with another size keeps the source and says so', async () => {
		const host = memoryHost({ 'src/a.txt': 'hello' }, 1);
		await assert.rejects(
			transfer(host, 'src/a.txt', 'dst/a.txt', { overwrite: false, move: true }),
			(err: unknown) =>
				err instanceof WorkspaceFsError &&
				err.code === 'Unavailable' &&
				/4 of 5 bytes/.test(err.message) &&
				/src\/a\.txt was kept/.test(err.message),
		);
		assert.ok(host.files.has('src/a.txt'), 'the source is still there');
		assert.ok(!host.calls.some((c) => c.startsWith('delete')), host.calls.join(', '));
	});

	test('a folder move writes every file, keeps empty folders, and deletes the source last', async () => {
		const host = memoryHost({ 'src/a.txt': 'a', 'src/sub/b.txt': 'bb' });
		await transfer(host, 'src', 'dst', { overwrite: false, move: true });
		assert.deepEqual([...host.files.keys()].sort(), ['dst/a.txt', 'dst/sub/b.txt']);
		assert.equal(host.calls.at(-1), 'delete src');
		assert.ok(host.calls.indexOf('created dst') < host.calls.indexOf('delete src'));
	});

	test('refused before anything is read: the root, a target inside the source, an existing target without overwrite', async () => {
		const host = memoryHost({ 'src/a.txt': 'a', 'dst.txt': 'x' });
		for (const [from, to, code] of [
			['', 'x', 'NoPermissions'],
			['src', 'src/inner', 'NoPermissions'],
			['src/a.txt', 'dst.txt', 'FileExists'],
		] as const) {
			await assert.rejects(
				transfer(host, from, to, { overwrite: false, move: false }),
				(err: unknown) => err instanceof WorkspaceFsError && err.code === code,
				`${from} → ${to}`,
			);
		}
		assert.deepEqual(host.calls, []);
	});
});
