/**
 * Node's claim store of the Activity announcements (src/activity/announce.ts `ClaimStore`): one
 * empty file per claim in a folder under the extension's globalStorageUri, created with
 * flag `wx` (O_CREAT | O_EXCL): of any number of windows creating the same file, exactly
 * one succeeds and every other gets EEXIST. Plain Node (no `vscode`), so unit tests run it on real
 * files.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CLAIM_NAME, type ClaimStore } from '../../activity/announce';

/** Folders read at most per prune (a folder of claims has one file per event of the last CLAIM_TTL_MS). */
const PRUNE_READ_MAX = 5_000;

/** The claim store in `folder` (created when first needed, 0700). */
export function nodeClaimStore(folder: string): ClaimStore {
	return {
		async claim(name) {
			if (!CLAIM_NAME.test(name)) {
				throw new Error('not a claim name');
			}
			await fs.mkdir(folder, { recursive: true, mode: 0o700 });
			try {
				// Flag `wx`: O_CREAT | O_EXCL, the create fails with EEXIST when the file is there.
				await fs.writeFile(path.join(folder, name), '', { flag: 'wx', mode: 0o600 });
				return true;
			} catch (err) {
				if ((err as { code?: unknown }).code === 'EEXIST') {
					return false;
				}
				throw err;
			}
		},
		async prune(before, max) {
			try {
				const dir = await fs.opendir(folder);
				let read = 0;
				let removed = 0;
				for await (const entry of dir) {
					if (++read > PRUNE_READ_MAX || removed >= max) {
						break;
					}
					if (!entry.isFile() || !CLAIM_NAME.test(entry.name)) {
						continue;
					}
					const file = path.join(folder, entry.name);
					const stat = await fs.stat(file).catch(() => undefined);
					if (stat && stat.mtimeMs < before) {
						await fs.unlink(file).catch(() => undefined);
						removed++;
					}
				}
			} catch {
				// No folder yet, or it cannot be read: nothing to prune.
			}
		},
	};
}
