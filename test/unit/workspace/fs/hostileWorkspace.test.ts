import * as assert from 'node:assert/strict';
import { CloudAgentsClient, SAFETY } from '../../../../src/api';
import { DEFAULTS } from '../../../../src/workspace/fs/cacheOptions';
import { WorkspaceCache, WorkspaceFsError } from '../../../../src/workspace/fs/workspaceCache';
import type { WorkspaceChange } from '../../../../src/workspace/fs/workspaceCache';
import { AGENT_ID, TOKEN } from '../../../hostile/fixtures';
import { type HostileServer, startHostile } from '../../../hostile/server';
import { type HostileTree, type RawEntry, deepTree, wideTree, workspaceRoutes } from './hostileWorkspace';
import { nodeConnect } from '../../../../src/platform/node/network';

const MTIME = 1_760_000_000_000;
const file = (name: string, overrides: RawEntry = {}): RawEntry => ({ name, type: 'file', size: 5, mtime_unix_ms: MTIME, ...overrides });

suite('fs/WorkspaceCache against a hostile server', () => {
	let server: HostileServer;
	let client: CloudAgentsClient;
	let cache: WorkspaceCache;
	let warnings: string[];
	let changes: WorkspaceChange[];
	let offset = 0;
	const later = (ms: number): void => {
		offset += ms;
	};
	const serve = (tree: HostileTree, pageSize?: number): void => {
		server.use({ description: 'hostile workspace', routes: workspaceRoutes(tree, pageSize) });
		server.requests.length = 0;
	};
	const sent = (key: string): number => server.requestsTo(key).length;
	const ops = (op: string): number =>
		server.requestsTo('POST /v2/agents/*/workspace').filter((r) => (JSON.parse(r.body.toString('utf8')) as { op?: string }).op === op)
			.length;

	suiteSetup(async () => {
		server = await startHostile({ description: 'empty', routes: {} });
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: server.baseUrl,
			getToken: () => TOKEN,
			retry: { baseDelayMs: 1, maxDelayMs: 5 },
		});
	});
	suiteTeardown(async () => {
		client.close();
		await server.close();
	});
	setup(() => {
		offset = 0;
		warnings = [];
		changes = [];
		cache = new WorkspaceCache(() => client, { now: () => Date.now() + offset, log: { warn: (m) => warnings.push(m) } });
		cache.onDidChange((c) => changes.push(...c));
	});

	test('listing entries named with separators, ".", "..", "", duplicates, control characters or too long are dropped and logged once per folder', async () => {
		const bad: RawEntry[] = [
			file('a/b'),
			file('a\\b'),
			file('..'),
			file('.'),
			file(''),
			file('x\u0007y'),
			file('tab\there'),
			file('rtl\u202Etxt.exe'),
			file('z'.repeat(SAFETY.entryNameMaxChars + 1)),
			{ type: 'file', size: 1 },
			{ name: 42, type: 'file' },
		];
		const root: RawEntry[] = [
			file('ok.txt'),
			...bad,
			file('ok.txt', { size: 99 }),
			{ name: 'dir', type: 'directory' },
			file('ünïcode name.md'),
		];
		serve({
			list: (p) => (p === '' ? root : p === 'dir' ? [file('..'), file('inner.txt'), file('inner.txt')] : undefined),
			file: () => undefined,
		});

		const children = await cache.readDirectory(AGENT_ID, '/');
		assert.deepEqual(children, [
			['ok.txt', 'file'],
			['dir', 'directory'],
			['ünïcode name.md', 'file'],
		]);
		assert.equal((await cache.stat(AGENT_ID, '/ok.txt')).size, 5, 'the first of two duplicates counts');
		await assert.rejects(
			cache.stat(AGENT_ID, '/x\u0007y'),
			(err: unknown) => err instanceof WorkspaceFsError && err.code === 'FileNotFound',
		);
		assert.equal(warnings.length, 1, warnings.join('\n'));
		// 12 bad entries: the client's parsing boundary already drops the one whose name is not a string.
		assert.match(warnings[0] ?? '', /ignored 11 entries/);

		later(5_000);
		await cache.readDirectory(AGENT_ID, '/');
		assert.equal(sent('POST /v2/agents/*/workspace'), 2, 'listed again');
		assert.equal(warnings.length, 1, 'the same folder is not logged again');
		assert.deepEqual(await cache.readDirectory(AGENT_ID, '/dir'), [['inner.txt', 'file']]);
		assert.equal(warnings.length, 2, 'another folder is logged once');
		const walked = await cache.walkFiles(AGENT_ID);
		assert.deepEqual(walked.files.sort(), ['dir/inner.txt', 'ok.txt', 'ünïcode name.md']);
	});

	test('an mtime going backwards, or a new size under the same mtime, is a change: the reported mtime grows and listeners hear of it', async () => {
		let current = { content: Buffer.from('hello'), mtime: MTIME };
		serve({
			list: (p) => (p === '' ? [file('open.md', { size: current.content.byteLength, mtime_unix_ms: current.mtime })] : undefined),
			file: (p) => (p === 'open.md' ? current : undefined),
		});
		const first = await cache.stat(AGENT_ID, '/open.md');
		assert.equal(first.mtime, MTIME);
		assert.equal(new TextDecoder().decode(await cache.readFile(AGENT_ID, '/open.md')), 'hello');

		later(5_000);
		const same = await cache.stat(AGENT_ID, '/open.md');
		assert.equal(same.mtime, first.mtime, 'unchanged answers keep the mtime');
		assert.deepEqual(changes, []);

		current = { content: Buffer.from('hello'), mtime: MTIME - 60_000 };
		later(5_000);
		const back = await cache.stat(AGENT_ID, '/open.md');
		assert.ok(back.mtime > first.mtime, `mtime ${back.mtime} must grow past ${first.mtime} although the server went back`);
		assert.deepEqual(changes, [{ type: 'changed', agentId: AGENT_ID, path: 'open.md' }]);

		current = { content: Buffer.from('hello, longer'), mtime: MTIME - 60_000 };
		later(5_000);
		const resized = await cache.stat(AGENT_ID, '/open.md');
		assert.ok(resized.mtime > back.mtime, 'a new size under the same mtime is a change too');
		assert.equal(resized.size, 13);
		assert.equal(changes.length, 2);

		// A listing that shows an older mtime again counts as well; the cache's clear() does not reset it.
		current = { content: Buffer.from('hello'), mtime: MTIME - 120_000 };
		cache.clear();
		await cache.readDirectory(AGENT_ID, '/');
		const listed = await cache.stat(AGENT_ID, '/open.md');
		assert.ok(listed.mtime > resized.mtime);
		assert.equal(changes.length, 3);
	});

	test('a save over a file whose mtime went backwards at the same size is refused once, not written silently', async () => {
		let current: { content: Buffer; mtime: number } = { content: Buffer.from('original\n'), mtime: MTIME };
		const writes: string[] = [];
		serve({
			list: () => undefined,
			file: (p) => (p === 'open.md' ? current : undefined),
			write: (p, c) => {
				writes.push(p);
				current = { content: c, mtime: Date.now() };
			},
		});
		const [opened] = await Promise.all([cache.stat(AGENT_ID, '/open.md'), cache.readFile(AGENT_ID, '/open.md')]);
		current = { content: Buffer.from('theirs!!\n'), mtime: MTIME - 3_600_000 };
		later(5_000);
		// What VS Code does on save: a fresh stat (it sees a newer mtime but the same size, so no dialog), then the write.
		const before = await cache.stat(AGENT_ID, '/open.md');
		assert.ok(before.mtime > opened.mtime);
		await assert.rejects(
			cache.writeFile(AGENT_ID, '/open.md', Buffer.from('mine: original\n'), { create: true, overwrite: true }),
			(err: unknown) =>
				err instanceof WorkspaceFsError &&
				err.code === 'Conflict' &&
				/changed in the agent workspace since it was opened/.test(err.message),
		);
		assert.deepEqual(writes, []);
		assert.equal(current.content.toString(), 'theirs!!\n');
		// Saving again (the user was told) overwrites.
		await cache.writeFile(AGENT_ID, '/open.md', Buffer.from('mine: original\n'), { create: true, overwrite: true });
		assert.deepEqual(writes, ['open.md']);
		// And an ordinary read-edit-save cycle is not refused.
		later(5_000);
		await cache.readFile(AGENT_ID, '/open.md');
		later(5_000);
		await cache.stat(AGENT_ID, '/open.md');
		await cache.writeFile(AGENT_ID, '/open.md', Buffer.from('second save\n'), { create: true, overwrite: true });
		assert.deepEqual(writes, ['open.md', 'open.md']);
	});

	test('copy and move of a folder deeper than the walk limit stop with a clear error after one bounded walk each, changing nothing', async () => {
		const writes: string[] = [];
		const deletes: string[] = [];
		const tree = deepTree('deep', 100);
		serve({ ...tree, write: (p) => writes.push(p), remove: (p) => deletes.push(p) });
		// A clock that moves only when the test says: how many listings a move sends after a copy
		// depends on how long ago the copy listed (the cache's reuse window), not on the machine's speed.
		const at = Date.now();
		cache = new WorkspaceCache(() => client, { now: () => at + offset });
		const refused = (op: 'copy' | 'rename'): Promise<void> =>
			assert.rejects(
				cache[op](AGENT_ID, '/deep', '/elsewhere', { overwrite: true }),
				(err: unknown) =>
					err instanceof WorkspaceFsError &&
					err.code === 'TooLarge' &&
					err.message.includes(`more than ${SAFETY.walkMaxDepth} folder levels deep`) &&
					/Nothing was changed/.test(err.message),
			);
		const listingsOf = async (op: 'copy' | 'rename'): Promise<number> => {
			server.requests.length = 0;
			await refused(op);
			return ops('list');
		};
		// One walk: the source and the 32 levels below it, one folder at a time; the folder seen at
		// level 33 is not listed.
		assert.equal(await listingsOf('copy'), SAFETY.walkMaxDepth + 1);
		// A move right after: the copy's listings are reused (younger than the reuse window).
		assert.equal(await listingsOf('rename'), 0);
		// A move once they are older (a slow copy on a loaded machine): one walk again, no more.
		later(DEFAULTS.listReuseMs + 1);
		assert.equal(await listingsOf('rename'), SAFETY.walkMaxDepth + 1);
		assert.deepEqual([writes, deletes], [[], []]);
		assert.equal(sent('PUT /v2/agents/*/workspace/files') + sent('DELETE /v2/agents/*/workspace/files'), 0);
	});

	test('copy of a folder with more entries than the walk limit stops before writing; an existing target is not deleted first', async () => {
		const writes: string[] = [];
		const deletes: string[] = [];
		const huge = wideTree('huge', 50_000);
		const tree: HostileTree = {
			list: (p) =>
				p === ''
					? [
							{ name: 'huge', type: 'directory' },
							{ name: 'target', type: 'directory' },
						]
					: p === 'target'
						? [file('keep.txt')]
						: huge.list(p),
			file: (p) => (p === 'target/keep.txt' ? { content: Buffer.from('keep!'), mtime: MTIME } : huge.file(p)),
			write: (p) => writes.push(p),
			remove: (p) => deletes.push(p),
		};
		serve(tree);
		await assert.rejects(
			cache.copy(AGENT_ID, '/huge', '/target', { overwrite: true }),
			(err: unknown) =>
				err instanceof WorkspaceFsError &&
				err.code === 'TooLarge' &&
				err.message.includes(`more than ${SAFETY.walkMaxEntries} files and folders`),
		);
		assert.deepEqual(deletes, [], 'the target was not deleted');
		assert.deepEqual(writes, []);
		assert.ok(server.requests.length <= 10, `${server.requests.length} requests`);
	});

	test('a recursive delete is one request, however big the tree', async () => {
		const deletes: string[] = [];
		serve({ ...deepTree('deep', 100), remove: (p, recursive) => deletes.push(`${p}:${recursive}`) });
		await cache.readDirectory(AGENT_ID, '/');
		server.requests.length = 0;
		await cache.delete(AGENT_ID, '/deep', { recursive: true });
		assert.deepEqual(deletes, ['deep:true']);
		assert.equal(server.requests.length, 1);
	});

	test('walkFiles stops at the entry limit, folders included, with a truncated result', async () => {
		serve(wideTree('', 30_000, true));
		const walked = await cache.walkFiles(AGENT_ID);
		assert.equal(walked.truncated, true);
		assert.ok(ops('list') <= 5, `${ops('list')} listings for ${SAFETY.walkMaxEntries} entries`);

		serve(deepTree('deep', 100));
		cache.clear();
		const deep = await cache.walkFiles(AGENT_ID);
		assert.equal(deep.truncated, true);
		assert.ok(ops('list') <= SAFETY.walkMaxDepth + 3, `${ops('list')} listings`);
	});
});
