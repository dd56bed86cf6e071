/**
 * The browser's claim store of the Activity announcements (src/activity/announce.ts `ClaimStore`):
 * one empty file per claim in a folder under the extension's globalStorageUri, through
 * `vscode.workspace.fs`, which has no exclusive create. The check ("does the claim exist?") and the
 * write run under an exclusive Web Lock (`navigator.locks`), which holds across every tab and
 * worker of the origin, so across the windows of one browser profile. Without the Web Locks API
 * the check and the write run unguarded: two windows can then both claim within the few
 * milliseconds between them (the documented fallback).
 */
import * as vscode from 'vscode';
import { CLAIM_NAME, type ClaimStore } from '../../activity/announce';

/** The Web Lock every claim of this store runs under. */
export const CLAIM_LOCK_NAME = 'cloudAgents.activity.claims';

interface LockManager {
	request<T>(name: string, options: { mode: 'exclusive' }, callback: () => Promise<T>): Promise<T>;
}

function lockManager(): LockManager | undefined {
	const locks = (globalThis as { navigator?: { locks?: Partial<LockManager> } }).navigator?.locks;
	return typeof locks?.request === 'function' ? (locks as LockManager) : undefined;
}

/** The claim store in `folder` (a folder under globalStorageUri). */
export function webClaimStore(folder: vscode.Uri, locks: LockManager | undefined = lockManager()): ClaimStore {
	const guarded = <T>(fn: () => Promise<T>): Promise<T> => (locks ? locks.request(CLAIM_LOCK_NAME, { mode: 'exclusive' }, fn) : fn());
	return {
		claim(name) {
			if (!CLAIM_NAME.test(name)) {
				return Promise.reject(new Error('not a claim name'));
			}
			const file = vscode.Uri.joinPath(folder, name);
			return guarded(async () => {
				try {
					await vscode.workspace.fs.stat(file);
					return false;
				} catch (err) {
					if (!(err instanceof vscode.FileSystemError) || err.code !== 'FileNotFound') {
						throw err;
					}
				}
				await vscode.workspace.fs.createDirectory(folder);
				await vscode.workspace.fs.writeFile(file, new Uint8Array());
				return true;
			});
		},
		async prune(before, max) {
			try {
				let removed = 0;
				for (const [name, type] of await vscode.workspace.fs.readDirectory(folder)) {
					if (removed >= max) {
						break;
					}
					if (type !== vscode.FileType.File || !CLAIM_NAME.test(name)) {
						continue;
					}
					const file = vscode.Uri.joinPath(folder, name);
					const stat = await vscode.workspace.fs.stat(file);
					if (stat.mtime < before) {
						await vscode.workspace.fs.delete(file);
						removed++;
					}
				}
			} catch {
				// No folder yet, or it cannot be read: nothing to prune.
			}
		},
	};
}
