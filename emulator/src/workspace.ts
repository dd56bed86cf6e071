import { createHash } from 'node:crypto';
import { ApiError, conflict, invalid } from './errors';
import { utf8Bytes } from './util';

export const MAX_PATH_BYTES = 4096;
export const MAX_SEARCH_BYTES = 256;
export const MAX_WRITE_BYTES = 32 * 1024 * 1024;

interface FileNode {
	type: 'file';
	data: Buffer;
	mtime: number;
}
interface DirNode {
	type: 'directory';
	mtime: number;
}
type WsNode = FileNode | DirNode;

export interface WorkspaceEntry {
	name: string;
	type: 'file' | 'directory';
	size: number;
	mtime_unix_ms: number;
}

export interface SearchMatch {
	path: string;
	line: number;
	column: number;
	preview: string;
}

/** A file as the admin ground truth lists it (`GET /_emulator/workspace/{agent_id}/files`). */
export interface WorkspaceFileInfo {
	path: string;
	size: number;
	mtime_unix_ms: number;
	sha256: string;
}

export interface SerializedWorkspace {
	[path: string]: { type: 'file' | 'directory'; mtime: number; content_base64?: string };
}

/**
 * Normalises a workspace path: relative to the root with `/` separators, "" is the root, a
 * leading `/` is tolerated; `..` segments, NUL and backslashes are refused with 422.
 */
export function normalizePath(field: string, raw: string): string {
	if (utf8Bytes(raw) > MAX_PATH_BYTES) {
		throw invalid(`${field}: must be at most ${MAX_PATH_BYTES} bytes (got ${utf8Bytes(raw)})`);
	}
	if (raw.includes('\0')) throw invalid(`${field}: must not contain NUL characters`);
	if (raw.includes('\\')) throw invalid(`${field}: must use '/' separators, not backslashes`);
	const parts = raw.split('/').filter((p) => p !== '' && p !== '.');
	if (parts.includes('..')) throw invalid(`${field}: must not contain '..' segments`);
	return parts.join('/');
}

const parentOf = (p: string): string => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
const baseName = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

export class Workspace {
	private readonly nodes = new Map<string, WsNode>();
	/**
	 * Where new mtimes come from: once the workspace is reached through `Emulator.workspace()`, the
	 * emulator clock or the wall clock, whichever is later (mtimes move forward with
	 * `POST /_emulator/clock/advance`), else the wall clock.
	 */
	clock: () => number = Date.now;
	/** The latest mtime given out: mtimes of this workspace only move forward, each write's after the last. */
	private lastMtime = 0;

	constructor(at?: number) {
		this.nodes.set('', { type: 'directory', mtime: this.mtime(at) });
	}

	/** `at` (dated seed data), else the next tick of the clock: strictly after every mtime given out before. */
	private mtime(at?: number): number {
		if (at !== undefined) {
			if (at > this.lastMtime) this.lastMtime = at;
			return at;
		}
		const now = this.clock();
		this.lastMtime = now > this.lastMtime ? now : this.lastMtime + 1;
		return this.lastMtime;
	}

	static fromJSON(data: SerializedWorkspace): Workspace {
		const ws = new Workspace();
		for (const [p, n] of Object.entries(data)) {
			if (n.mtime > ws.lastMtime) ws.lastMtime = n.mtime;
			ws.nodes.set(
				p,
				n.type === 'file'
					? { type: 'file', data: Buffer.from(n.content_base64 ?? '', 'base64'), mtime: n.mtime }
					: { type: 'directory', mtime: n.mtime },
			);
		}
		return ws;
	}

	toJSON(): SerializedWorkspace {
		const out: SerializedWorkspace = {};
		for (const [p, n] of this.nodes) {
			out[p] =
				n.type === 'file'
					? { type: 'file', mtime: n.mtime, content_base64: n.data.toString('base64') }
					: { type: 'directory', mtime: n.mtime };
		}
		return out;
	}

	/** Path → size summary (for the admin state dump). */
	summary(): Record<string, number | 'directory'> {
		const out: Record<string, number | 'directory'> = {};
		for (const [p, n] of this.nodes) out[p === '' ? '/' : p] = n.type === 'file' ? n.data.length : 'directory';
		return out;
	}

	/** Every file's path (path order), below `under` when given. */
	filePaths(under = ''): string[] {
		const out: string[] = [];
		for (const [p, n] of this.nodes) if (n.type === 'file' && (under === '' || p.startsWith(`${under}/`))) out.push(p);
		return out.sort();
	}

	/** Every file (path order) with its size, mtime and SHA-256: the ground truth tests compare with. */
	files(under = ''): WorkspaceFileInfo[] {
		return this.filePaths(under).map((p) => {
			const n = this.nodes.get(p) as FileNode;
			return { path: p, size: n.data.length, mtime_unix_ms: n.mtime, sha256: createHash('sha256').update(n.data).digest('hex') };
		});
	}

	/** Every folder below the root (path order). */
	directories(under = ''): string[] {
		const out: string[] = [];
		for (const [p, n] of this.nodes) {
			if (n.type === 'directory' && p !== '' && (under === '' || p.startsWith(`${under}/`))) out.push(p);
		}
		return out.sort();
	}

	/** The content of a file (undefined for a folder or a missing path). */
	content(path: string): Buffer | undefined {
		const n = this.nodes.get(path);
		return n?.type === 'file' ? n.data : undefined;
	}

	totalBytes(): number {
		let total = 0;
		for (const n of this.nodes.values()) if (n.type === 'file') total += n.data.length;
		return total;
	}

	private entry(p: string, n: WsNode): WorkspaceEntry {
		return { name: p === '' ? '' : baseName(p), type: n.type, size: n.type === 'file' ? n.data.length : 0, mtime_unix_ms: n.mtime };
	}

	private touch(dir: string, mtime: number): void {
		const n = this.nodes.get(dir);
		if (n) n.mtime = mtime;
	}

	/**
	 * Writes a file, creating parent folders. 409 when the path or a parent is of the wrong kind.
	 * `at` sets the mtime (seed data dated in the past); otherwise the next tick of the workspace clock.
	 */
	write(path: string, data: Buffer, at?: number): { path: string; size: number; mtime_unix_ms: number } {
		if (path === '') throw invalid('path: must name a file, not the workspace root');
		const existing = this.nodes.get(path);
		if (existing?.type === 'directory') throw conflict(`path: ${JSON.stringify(path)} is a folder`);
		const mtime = this.mtime(at);
		const parts = path.split('/');
		let prefix = '';
		for (let i = 0; i < parts.length - 1; i++) {
			prefix = prefix === '' ? parts[i]! : `${prefix}/${parts[i]!}`;
			const n = this.nodes.get(prefix);
			if (n?.type === 'file') throw conflict(`path: parent ${JSON.stringify(prefix)} is a file`);
			if (!n) {
				this.nodes.set(prefix, { type: 'directory', mtime });
				this.touch(parentOf(prefix), mtime);
			}
		}
		this.nodes.set(path, { type: 'file', data, mtime });
		this.touch(parentOf(path), mtime);
		return { path, size: data.length, mtime_unix_ms: mtime };
	}

	delete(path: string, recursive: boolean, at?: number): void {
		if (path === '') throw invalid('path: the workspace root cannot be deleted');
		const n = this.nodes.get(path);
		if (!n) throw new ApiError('not_found', `path: ${JSON.stringify(path)} not found in the workspace`);
		if (n.type === 'directory') {
			const children = [...this.nodes.keys()].filter((k) => k.startsWith(`${path}/`));
			if (children.length > 0 && !recursive) {
				throw conflict(`path: folder ${JSON.stringify(path)} is not empty; pass recursive: true to delete it`);
			}
			for (const k of children) this.nodes.delete(k);
		}
		this.nodes.delete(path);
		this.touch(parentOf(path), this.mtime(at));
	}

	has(path: string): boolean {
		return this.nodes.has(path);
	}

	stat(path: string): WorkspaceEntry {
		const n = this.nodes.get(path);
		if (!n) throw new ApiError('not_found', `path: ${JSON.stringify(path)} not found in the workspace`);
		return this.entry(path, n);
	}

	list(path: string): WorkspaceEntry[] {
		const n = this.nodes.get(path);
		if (!n) throw new ApiError('not_found', `path: ${JSON.stringify(path)} not found in the workspace`);
		if (n.type !== 'directory') throw conflict(`path: ${JSON.stringify(path)} is a file, not a folder`);
		const out: WorkspaceEntry[] = [];
		for (const [p, c] of this.nodes) {
			if (p !== '' && parentOf(p) === path) out.push(this.entry(p, c));
		}
		out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
		return out;
	}

	read(path: string, offset: number, length: number): { data: Buffer; size: number; mtime: number; eof: boolean } {
		const n = this.nodes.get(path);
		if (!n) throw new ApiError('not_found', `path: ${JSON.stringify(path)} not found in the workspace`);
		if (n.type !== 'file') throw conflict(`path: ${JSON.stringify(path)} is a folder, not a file`);
		const start = Math.min(offset, n.data.length);
		const end = Math.min(start + length, n.data.length);
		return { data: n.data.subarray(start, end), size: n.data.length, mtime: n.mtime, eof: end >= n.data.length };
	}

	search(query: string, scope: string, maxResults: number, caseSensitive: boolean): { matches: SearchMatch[]; truncated: boolean } {
		const root = this.nodes.get(scope);
		if (!root) throw new ApiError('not_found', `path: ${JSON.stringify(scope)} not found in the workspace`);
		const needle = caseSensitive ? query : query.toLowerCase();
		const matches: SearchMatch[] = [];
		const paths = [...this.nodes.keys()].filter((p) => (scope === '' ? true : p === scope || p.startsWith(`${scope}/`))).sort();
		for (const p of paths) {
			const n = this.nodes.get(p);
			if (!n || n.type !== 'file' || n.data.includes(0)) continue; // skip folders and binary files
			const lines = n.data.toString('utf8').split(/\r?\n/);
			for (let i = 0; i < lines.length; i++) {
				const line = lines[i]!;
				const hay = caseSensitive ? line : line.toLowerCase();
				let col = hay.indexOf(needle);
				while (col >= 0) {
					if (matches.length >= maxResults) return { matches, truncated: true };
					matches.push({ path: p, line: i + 1, column: col + 1, preview: line.length > 240 ? line.slice(0, 240) : line });
					col = hay.indexOf(needle, col + Math.max(needle.length, 1));
				}
			}
		}
		return { matches, truncated: false };
	}
}
