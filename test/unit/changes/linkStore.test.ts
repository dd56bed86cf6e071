import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type AgentLink, LinkStore, MAX_LINKS, readLinks } from '../../../src/changes/linkStore';
import type { Baseline } from '../../../src/compare/types';
import { LINKS_KEY } from '../../../src/ids';
import * as fake from '../support/vscodeFake';

/** src/changes/linkStore.ts: the links in a Memento (checked when read back), the baselines in the fake `workspace.fs`. */
class Memento {
	readonly values = new Map<string, unknown>();
	get<T>(key: string, fallback?: T): T | undefined {
		return this.values.has(key) ? (this.values.get(key) as T) : fallback;
	}
	async update(key: string, value: unknown): Promise<void> {
		this.values.set(key, value);
	}
	keys(): readonly string[] {
		return [...this.values.keys()];
	}
}

const folder = vscode.Uri.file('/storage/links');
const link = (n: number): Omit<AgentLink, 'id'> => ({
	agentId: `agent-${n}`,
	agentName: `Agent ${n}`,
	agentFolder: '',
	localFolder: vscode.Uri.file(`/work/local-${n}`).toString(),
});
const good: AgentLink = { id: 'link-1', agentId: 'a1', agentName: 'A', agentFolder: 'src', localFolder: 'file:///work/x' };
const baseline: Baseline = { version: 1, taken: 1000, since: undefined, entries: { 'a.ts': { size: 3, mtime: 5 } }, deleted: ['b.ts'] };

suite('changes/linkStore', () => {
	let state: Memento;
	let store: LinkStore;
	setup(() => {
		state = new Memento();
		store = new LinkStore(state, folder, 100);
	});
	teardown(() => store.dispose());

	test('readLinks: nothing stored, or not an array, is no link', () => {
		assert.deepEqual(readLinks(state as unknown as vscode.Memento), []);
		state.values.set(LINKS_KEY, { 0: good });
		assert.deepEqual(readLinks(state as unknown as vscode.Memento), []);
	});

	test('readLinks drops damaged or foreign records and keeps the first of a duplicate id', () => {
		state.values.set(LINKS_KEY, [
			good,
			{ ...good, agentName: 'duplicate' },
			null,
			'link-2',
			{ ...good, id: 'Bad_ID' },
			{ ...good, id: 'x'.repeat(65) },
			{ ...good, id: 'link-3', agentId: '' },
			{ ...good, id: 'link-4', agentFolder: '../escape' },
			{ ...good, id: 'link-5', localFolder: 'https://example.test/folder' },
			{ ...good, id: 'link-6', localFolder: 'not a uri' },
			{ ...good, id: 'link-7', agentName: 7 },
			{ ...good, id: 'link-8', agentFolder: '' },
		]);
		const links = readLinks(state);
		assert.deepEqual(
			links.map((l) => [l.id, l.agentName]),
			[
				['link-1', 'A'],
				['link-8', 'A'],
			],
		);
	});

	test('readLinks cuts a long agent name to 200 characters and reads at most MAX_LINKS records', () => {
		const many = Array.from({ length: MAX_LINKS + 5 }, (_, i) => ({ ...good, id: `link-${i}`, agentName: 'n'.repeat(500) }));
		state.values.set(LINKS_KEY, many);
		const links = readLinks(state);
		assert.equal(links.length, MAX_LINKS);
		assert.equal(links[0]!.agentName.length, 200);
	});

	test('add gives a new link a valid id and fires onDidChange; the same agent, folder and local folder keep their id', async () => {
		let changes = 0;
		store.onDidChange(() => changes++);
		const first = await store.add(link(1));
		assert.match(first.id, /^[a-z0-9-]{1,64}$/);
		const again = await store.add({ ...link(1), agentName: 'Renamed' });
		assert.equal(again.id, first.id);
		assert.deepEqual(
			store.all().map((l) => [l.id, l.agentName]),
			[[first.id, 'Renamed']],
		);
		const other = await store.add({ ...link(1), agentFolder: 'sub' });
		assert.notEqual(other.id, first.id);
		assert.equal(store.all().length, 2);
		assert.equal(changes, 3);
	});

	test("deployments (issue 47): a link kept before them reads as the default deployment's; another deployment's round-trips; a bad one is dropped", async () => {
		const staging = 'staging-example-com-0123456789ab';
		state.values.set(LINKS_KEY, [
			good,
			{ ...good, id: 'link-2', deployment: 'Staging-Example-Com-0123456789AB' },
			{ ...good, id: 'link-3', deployment: 'not an id' },
			{ ...good, id: 'link-4', deployment: 7 },
		]);
		const links = readLinks(state);
		// The old record is read exactly as it was: no deployment field, so the default deployment's.
		assert.deepEqual(links[0], good);
		assert.ok(!('deployment' in links[0]));
		assert.deepEqual(links[1], { ...good, id: 'link-2', deployment: staging }, 'read in lower case (VS Code lower-cases authorities)');
		assert.equal(links.length, 2);
		// Stored and read back: the default deployment's link without the field, as before deployments.
		state.values.clear();
		const mine = await store.add(link(1));
		const theirs = await store.add({ ...link(1), deployment: staging });
		assert.notEqual(theirs.id, mine.id, 'the same agent id and folders on two deployments are two links');
		const stored = state.values.get(LINKS_KEY) as Array<Record<string, unknown>>;
		assert.ok(!('deployment' in stored[0]!));
		assert.equal(stored[1]!.deployment, staging);
		assert.deepEqual(
			readLinks(state).map((l) => [l.id, l.deployment]),
			[
				[mine.id, undefined],
				[theirs.id, staging],
			],
		);
		assert.equal((await store.add({ ...link(1), deployment: staging, agentName: 'Again' })).id, theirs.id);
	});

	test('past MAX_LINKS the oldest link goes, and its baseline file with it', async () => {
		const oldest = await store.add(link(0));
		await store.setBaseline(oldest.id, baseline);
		for (let i = 1; i < MAX_LINKS; i++) {
			await store.add(link(i));
		}
		assert.ok(await store.baseline(oldest.id));
		await store.add(link(MAX_LINKS));
		const ids = store.all().map((l) => l.id);
		assert.equal(ids.length, MAX_LINKS);
		assert.ok(!ids.includes(oldest.id));
		assert.equal(await store.baseline(oldest.id), undefined);
		assert.ok(![...fake.memoryFiles.keys()].some((k) => k.includes(oldest.id)));
	});

	test('a baseline is written as JSON under the folder and read back checked', async () => {
		const kept = await store.add(link(1));
		await store.setBaseline(kept.id, baseline);
		const key = vscode.Uri.joinPath(folder, `${kept.id}.json`).toString();
		assert.ok(fake.memoryFiles.has(key));
		const back = (await store.baseline(kept.id))!;
		assert.equal(back.taken, 1000);
		assert.deepEqual({ ...back.entries }, { 'a.ts': { size: 3, mtime: 5 } });
		assert.deepEqual(back.deleted, ['b.ts']);
	});

	test('a damaged or missing baseline file reads as none, never an error', async () => {
		assert.equal(await store.baseline('link-none'), undefined);
		fake.memoryFiles.set(vscode.Uri.joinPath(folder, 'link-bad.json').toString(), new TextEncoder().encode('{not json'));
		assert.equal(await store.baseline('link-bad'), undefined);
		fake.memoryFiles.set(vscode.Uri.joinPath(folder, 'link-v2.json').toString(), new TextEncoder().encode('{"version":2}'));
		assert.equal(await store.baseline('link-v2'), undefined);
	});

	test('an id that is not a link id never names a file (no path out of the folder)', async () => {
		await assert.rejects(store.setBaseline('../../evil', baseline), /not a link id/);
		assert.equal(await store.baseline('../../evil'), undefined);
		assert.equal(fake.memoryFiles.size, 0);
	});

	test('remove forgets the link and deletes its baseline; removing an unknown id only fires', async () => {
		const a = await store.add(link(1));
		const b = await store.add(link(2));
		await store.setBaseline(a.id, baseline);
		let changes = 0;
		store.onDidChange(() => changes++);
		await store.remove(a.id);
		assert.deepEqual(
			store.all().map((l) => l.id),
			[b.id],
		);
		assert.equal(await store.baseline(a.id), undefined);
		await store.remove('link-unknown');
		assert.equal(store.all().length, 1);
		assert.equal(changes, 2);
	});
});
