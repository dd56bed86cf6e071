/** src/activity/announce.ts: one announcement per event across the windows of a profile. */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Announcer, CLAIM_NAME, CLAIM_PRUNE_EVERY_MS, CLAIM_TTL_MS, type ClaimStore, claimName } from '../../../src/activity/announce';
import { nodeClaimStore } from '../../../src/platform/node/claimFiles';
import { FakeClock } from '../support/fakeClock';

const SCOPE = { apiUrl: 'https://api.example.test/', account: 'acct-fp-1' };

suite('activity announcements', () => {
	let folder: string;
	setup(() => {
		folder = mkdtempSync(join(tmpdir(), 'claims-'));
	});
	teardown(() => {
		rmSync(folder, { recursive: true, force: true });
	});

	test('two windows asked at the same moment about the same events: each event is announced by exactly one', async () => {
		// Two windows: two announcers, each with its own store object over the one folder (the profile's globalStorage).
		const windowA = new Announcer(nodeClaimStore(join(folder, 'activity-claims')), SCOPE);
		const windowB = new Announcer(nodeClaimStore(join(folder, 'activity-claims')), SCOPE);
		const keys = Array.from({ length: 60 }, (_, i) => ({ key: `run-ended:run-${i}` }));
		const answers = await Promise.all(keys.flatMap((e) => [windowA.shouldAnnounce(e), windowB.shouldAnnounce(e)]));
		for (let i = 0; i < keys.length; i++) {
			assert.equal(Number(answers[2 * i]) + Number(answers[2 * i + 1]), 1, `event ${i}: one window announces`);
		}
		assert.equal(await windowA.shouldAnnounce(keys[0]!), false, 'asked again later: no');
	});

	test('claim names are fingerprints of the URL, account and key: no server id reaches a path', async () => {
		const announcer = new Announcer(nodeClaimStore(folder), SCOPE);
		assert.equal(await announcer.shouldAnnounce({ key: 'run-ended:../../../etc/passwd' }), true);
		const names = readdirSync(folder);
		assert.equal(names.length, 1);
		assert.match(names[0] ?? '', CLAIM_NAME);
		assert.notEqual(claimName(SCOPE, 'k'), claimName({ ...SCOPE, account: 'other' }, 'k'));
		assert.notEqual(claimName(SCOPE, 'k'), claimName({ ...SCOPE, apiUrl: 'https://other/' }, 'k'));
		// Another account's window claims the same event key for itself.
		assert.equal(
			await new Announcer(nodeClaimStore(folder), { ...SCOPE, account: 'other' }).shouldAnnounce({
				key: 'run-ended:../../../etc/passwd',
			}),
			true,
		);
	});

	test('a store that fails: the window announces anyway and says why in the log', async () => {
		const log: string[] = [];
		const broken: ClaimStore = {
			claim: () => Promise.reject(new Error('disk full')),
			prune: () => Promise.resolve(),
		};
		assert.equal(await new Announcer(broken, SCOPE, { log: (m) => log.push(m) }).shouldAnnounce({ key: 'k' }), true);
		assert.match(log.join('\n'), /disk full/);
	});

	test('old claims are pruned at most once per CLAIM_PRUNE_EVERY_MS, everything before CLAIM_TTL_MS', async () => {
		const clock = new FakeClock(Date.UTC(2030, 0, 1));
		const prunes: Array<[number, number]> = [];
		const store: ClaimStore = {
			claim: () => Promise.resolve(true),
			prune: (before, max) => {
				prunes.push([before, max]);
				return Promise.resolve();
			},
		};
		const announcer = new Announcer(store, SCOPE, { clock });
		await announcer.shouldAnnounce({ key: 'a' });
		await announcer.shouldAnnounce({ key: 'b' });
		assert.equal(prunes.length, 1);
		assert.equal(prunes[0]?.[0], clock.now() - CLAIM_TTL_MS);
		await clock.advance(CLAIM_PRUNE_EVERY_MS);
		await announcer.shouldAnnounce({ key: 'c' });
		assert.equal(prunes.length, 2);
	});
});
