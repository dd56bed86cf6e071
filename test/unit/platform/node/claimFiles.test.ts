/** src/platform/node/claimFiles.ts: exclusive claim files on a real file system. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nodeClaimStore } from '../../../../src/platform/node/claimFiles';

const NAME = (i: number): string => i.toString(16).padStart(40, '0');

suite('node claim files', () => {
	let folder: string;
	setup(() => {
		folder = mkdtempSync(join(tmpdir(), 'claims-'));
	});
	teardown(() => {
		rmSync(folder, { recursive: true, force: true });
	});

	test('the first claim of a name wins, every other loses, even at the same moment; the folder is made when needed', async () => {
		const store = nodeClaimStore(join(folder, 'a', 'b'));
		const results = await Promise.all(Array.from({ length: 20 }, () => store.claim(NAME(1))));
		assert.equal(results.filter(Boolean).length, 1);
		assert.equal(await store.claim(NAME(2)), true);
		assert.deepEqual(readdirSync(join(folder, 'a', 'b')).sort(), [NAME(1), NAME(2)]);
	});

	test('names other than 40 hex characters are refused before touching the disk', async () => {
		const store = nodeClaimStore(folder);
		await assert.rejects(store.claim('../escape'), /not a claim name/);
		await assert.rejects(store.claim(NAME(1).toUpperCase().replace(/0/g, 'A')), /not a claim name/);
		assert.deepEqual(readdirSync(folder), []);
	});

	test('prune removes claims older than the given time, at most max, and nothing else', async () => {
		const store = nodeClaimStore(folder);
		for (let i = 0; i < 5; i++) {
			await store.claim(NAME(i));
		}
		writeFileSync(join(folder, 'notes.txt'), 'keep');
		const old = new Date(Date.now() - 86_400_000);
		for (const i of [0, 1, 2]) {
			utimesSync(join(folder, NAME(i)), old, old);
		}
		utimesSync(join(folder, 'notes.txt'), old, old);
		await store.prune(Date.now() - 3_600_000, 2);
		assert.equal(readdirSync(folder).filter((n) => [NAME(0), NAME(1), NAME(2)].includes(n)).length, 1);
		await store.prune(Date.now() - 3_600_000, 10);
		assert.deepEqual(readdirSync(folder).sort(), [NAME(3), NAME(4), 'notes.txt']);
		await nodeClaimStore(join(folder, 'missing')).prune(Date.now(), 10);
	});
});
