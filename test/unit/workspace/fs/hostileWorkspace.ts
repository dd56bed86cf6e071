/**
 * A workspace served by the hostile test server: the workspace routes (list with paging, stat,
 * read, write, delete) over a test-defined tree, so a test can send names, mtimes and trees no
 * sane service would. Shared by the unit tests and the in-VS-Code hostile suite (node:* only).
 */
import type { ServerResponse } from 'node:http';
import { type RouteHandler, errorEnvelope, json } from '../../../hostile/server';

/** A raw listing entry, exactly as the server will send it. */
export type RawEntry = Record<string, unknown>;

/** The tree a hostile workspace serves. Every callback gets a workspace path (`""` for the root). */
export interface HostileTree {
	/** The raw entries of a folder, or undefined when the folder does not exist. */
	list(path: string): RawEntry[] | undefined;
	/** A file's content and mtime, or undefined when there is no such file. */
	file(path: string): { content: Buffer; mtime: number } | undefined;
	/** A write (default: refused with 403). */
	write?(path: string, content: Buffer): void;
	/** A delete (default: refused with 403). */
	remove?(path: string, recursive: boolean): void;
	/** The raw `matches` of a search (default: refused with 422). */
	search?(query: string): unknown;
}

function body(raw: Buffer): Record<string, unknown> {
	try {
		const parsed: unknown = JSON.parse(raw.toString('utf8'));
		return parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}

function statEntry(tree: HostileTree, path: string): RawEntry | undefined {
	const name = path.slice(path.lastIndexOf('/') + 1);
	const file = tree.file(path);
	if (file) {
		return { name, path, type: 'file', size: file.content.byteLength, mtime_unix_ms: file.mtime };
	}
	return tree.list(path) ? { name, path, type: 'directory', size: 0, mtime_unix_ms: 1_760_000_000_000 } : undefined;
}

function notFound(res: ServerResponse, path: string): void {
	errorEnvelope(res, 404, 'not_found', `no such path: ${path}`);
}

/**
 * Routes of the workspace endpoints over `tree`. Listings are paged `pageSize` entries at a time
 * (the cursor is the offset), so a huge folder arrives in documented-size pages.
 */
export function workspaceRoutes(tree: HostileTree, pageSize = 10_000): Record<string, RouteHandler> {
	return {
		'POST /v2/agents/*/workspace': (req, res) => {
			const b = body(req.body);
			const path = typeof b.path === 'string' ? b.path : '';
			switch (b.op) {
				case 'list': {
					const entries = tree.list(path);
					if (!entries) {
						return notFound(res, path);
					}
					const offset = typeof b.cursor === 'string' ? Number(b.cursor) : 0;
					const page = entries.slice(offset, offset + pageSize);
					const next = offset + pageSize < entries.length ? String(offset + pageSize) : undefined;
					return json(res, 200, { op: 'list', path, entries: page, next_cursor: next });
				}
				case 'stat': {
					const entry = statEntry(tree, path);
					return entry ? json(res, 200, { op: 'stat', entry }) : notFound(res, path);
				}
				case 'read': {
					const file = tree.file(path);
					if (!file) {
						return notFound(res, path);
					}
					const offset = typeof b.offset === 'number' ? b.offset : 0;
					const length = typeof b.length === 'number' ? b.length : 1_048_576;
					const chunk = file.content.subarray(offset, offset + length);
					return json(res, 200, {
						op: 'read',
						path,
						offset,
						length: chunk.byteLength,
						size: file.content.byteLength,
						mtime_unix_ms: file.mtime,
						eof: offset + chunk.byteLength >= file.content.byteLength,
						content_base64: chunk.toString('base64'),
					});
				}
				case 'search':
					if (tree.search) {
						return json(res, 200, {
							op: 'search',
							query: b.query,
							matches: tree.search(typeof b.query === 'string' ? b.query : ''),
							truncated: false,
						});
					}
					return errorEnvelope(res, 422, 'validation_error', 'unsupported op');
				default:
					return errorEnvelope(res, 422, 'validation_error', 'unsupported op');
			}
		},
		'PUT /v2/agents/*/workspace/files': (req, res) => {
			const b = body(req.body);
			const path = typeof b.path === 'string' ? b.path : '';
			if (!tree.write) {
				return errorEnvelope(res, 403, 'forbidden', 'read-only hostile workspace');
			}
			const content = Buffer.from(typeof b.content_base64 === 'string' ? b.content_base64 : '', 'base64');
			tree.write(path, content);
			return json(res, 200, { path, size: content.byteLength, mtime_unix_ms: tree.file(path)?.mtime });
		},
		'DELETE /v2/agents/*/workspace/files': (req, res) => {
			const b = body(req.body);
			if (!tree.remove) {
				return errorEnvelope(res, 403, 'forbidden', 'read-only hostile workspace');
			}
			tree.remove(typeof b.path === 'string' ? b.path : '', b.recursive === true);
			res.writeHead(204, { 'x-request-id': '0192f1a0-1234-7abc-8def-0123456789ab' });
			res.end();
		},
	};
}

/** A folder chain `d0/d1/…/d<depth-1>`, each level holding one file `f.txt` and the next folder. */
export function deepTree(root: string, depth: number): HostileTree {
	const level = (path: string): number | undefined => {
		if (path === root) {
			return 0;
		}
		if (!path.startsWith(`${root}/`)) {
			return undefined;
		}
		const parts = path.slice(root.length + 1).split('/');
		return parts.every((p, i) => p === `d${i + 1}`) ? parts.length : undefined;
	};
	return {
		list: (path) => {
			if (path === '') {
				return [{ name: root, type: 'directory', size: 0, mtime_unix_ms: 1_760_000_000_000 }];
			}
			const d = level(path);
			if (d === undefined) {
				return undefined;
			}
			const out: RawEntry[] = [{ name: 'f.txt', type: 'file', size: 1, mtime_unix_ms: 1_760_000_000_000 }];
			if (d + 1 < depth) {
				out.push({ name: `d${d + 1}`, type: 'directory', size: 0, mtime_unix_ms: 1_760_000_000_000 });
			}
			return out;
		},
		file: (path) =>
			path.endsWith('/f.txt') && level(path.slice(0, -'/f.txt'.length)) !== undefined
				? { content: Buffer.from('x'), mtime: 1_760_000_000_000 }
				: undefined,
	};
}

/** A folder `root` holding `count` entries (files, or empty folders when `folders`). */
export function wideTree(root: string, count: number, folders = false): HostileTree {
	const names = Array.from({ length: count }, (_, i) => `e${String(i).padStart(6, '0')}${folders ? '' : '.txt'}`);
	const entries = names.map((name) => ({
		name,
		type: folders ? 'directory' : 'file',
		size: folders ? 0 : 1,
		mtime_unix_ms: 1_760_000_000_000,
	}));
	return {
		list: (path) => {
			if (path === root) {
				return entries;
			}
			if (path === '' && root !== '') {
				return [{ name: root, type: 'directory', size: 0, mtime_unix_ms: 1_760_000_000_000 }];
			}
			return folders && path.startsWith(root === '' ? '' : `${root}/`) ? [] : undefined;
		},
		file: (path) =>
			!folders && path.startsWith(root === '' ? '' : `${root}/`)
				? { content: Buffer.from('x'), mtime: 1_760_000_000_000 }
				: undefined,
	};
}
