/** src/platform/web/claimStore.ts: claims over vscode.workspace.fs (the fake's in-memory one) under a Web Lock. */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { CLAIM_LOCK_NAME, webClaimStore } from '../../../../src/platform/web/claimStore';

const NAME = (i: number): string => i.toString(16).padStart(40, '0');
const FOLDER = vscode.Uri.parse('vscode-userdata:/globalStorage/ext/activity-claims');

/** A lock manager as the browser's: callbacks of one name run one after another. */
function serialLocks(): { request<T>(name: string, options: { mode: 'exclusive' }, fn: () => Promise<T>): Promise<T>; names: string[] } {
	let tail: Promise<unknown> = Promise.resolve();
	const names: string[] = [];
	return {
		names,
		request<T>(name: string, _options: { mode: 'exclusive' }, fn: () => Promise<T>): Promise<T> {
			names.push(name);
			const run = tail.then(fn, fn);
			tail = run.catch(() => undefined);
			return run;
		},
	};
}

suite('web claim store', () => {
	test('under the Web Lock, of many claims of one name at the same moment exactly one wins', async () => {
		const locks = serialLocks();
		const windowA = webClaimStore(FOLDER, locks);
		const windowB = webClaimStore(FOLDER, locks);
		const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? windowA : windowB).claim(NAME(7))));
		assert.equal(results.filter(Boolean).length, 1);
		assert.equal(await windowA.claim(NAME(8)), true);
		assert.ok(locks.names.every((n) => n === CLAIM_LOCK_NAME));
		assert.deepEqual((await vscode.workspace.fs.readDirectory(FOLDER)).map(([n]) => n).sort(), [NAME(7), NAME(8)]);
	});

	test('names other than 40 hex characters are refused; prune removes at most max old claims', async () => {
		const store = webClaimStore(FOLDER, serialLocks());
		await assert.rejects(store.claim('../x'), /not a claim name/);
		for (let i = 0; i < 4; i++) {
			await store.claim(NAME(i));
		}
		await store.prune(Date.now(), 3);
		assert.equal((await vscode.workspace.fs.readDirectory(FOLDER)).length, 1);
	});
});
