import * as assert from 'node:assert/strict';
import { CloudAgentsClient, LIMITS } from '../../../../src/api';
import { nodeConnect } from '../../../../src/platform/node/network';
import { DEFAULTS } from '../../../../src/workspace/fs/cacheOptions';
import type { WorkspaceApi } from '../../../../src/workspace/fs/cacheOptions';
import { WorkspaceCache } from '../../../../src/workspace/fs/workspaceCache';
import { WorkspaceFsError } from '../../../../src/workspace/fs/workspaceModel';
import { AGENT_ID, TOKEN } from '../../../hostile/fixtures';
import { type HostileServer, startHostile } from '../../../hostile/server';
import { workspaceRoutes } from './hostileWorkspace';

const MTIME = 1_760_000_000_000;
const BIG = DEFAULTS.chunkLength + 1;

/**
 * A cache built with nothing but a clock gets DEFAULTS: each test moves the clock to just at, then
 * just past, one of them and counts the requests the hostile server saw.
 */
suite('fs/cacheOptions: the defaults a cache is built with', () => {
	let server: HostileServer;
	let client: CloudAgentsClient;
	let cache: WorkspaceCache;
	let now = 0;
	const ops = (op: string): number =>
		server.requestsTo('POST /v2/agents/*/workspace').filter((r) => (JSON.parse(r.body.toString('utf8')) as { op?: string }).op === op)
			.length;
	const isMissing = (err: unknown): boolean => err instanceof WorkspaceFsError && err.code === 'FileNotFound';

	suiteSetup(async () => {
		server = await startHostile({
			description: 'a small workspace',
			routes: workspaceRoutes({
				list: (p) =>
					p === ''
						? [
								{ name: 'a.txt', type: 'file', size: 5, mtime_unix_ms: MTIME },
								{ name: 'big.bin', type: 'file', size: BIG, mtime_unix_ms: MTIME },
								{ name: 'dir', type: 'directory', size: 0, mtime_unix_ms: MTIME },
							]
						: p === 'dir'
							? []
							: undefined,
				file: (p) =>
					p === 'a.txt'
						? { content: Buffer.from('hello'), mtime: MTIME }
						: p === 'big.bin'
							? { content: Buffer.alloc(BIG, 7), mtime: MTIME }
							: undefined,
			}),
		});
		client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: server.baseUrl, getToken: () => TOKEN });
	});
	suiteTeardown(async () => {
		client.close();
		await server.close();
	});
	setup(() => {
		now = 1_000_000;
		const api: WorkspaceApi = client;
		cache = new WorkspaceCache(() => api, { now: () => now });
		server.requests.length = 0;
	});

	test("the defaults are those the options' documentation states, reads as large as the service allows", () => {
		assert.deepEqual(DEFAULTS, {
			listTtlMs: 30_000,
			listReuseMs: 2_000,
			fileFreshMs: 1_000,
			coalesceMs: 25,
			chunkLength: LIMITS.workspaceReadLength.max,
		});
		assert.equal(LIMITS.workspaceReadLength.max, 1_048_576);
	});

	test('listReuseMs: readDirectory reuses a listing up to 2 s old, and asks again after', async () => {
		await cache.readDirectory(AGENT_ID, '/');
		now += DEFAULTS.listReuseMs;
		assert.equal((await cache.readDirectory(AGENT_ID, '/')).length, 3);
		assert.equal(ops('list'), 1);
		now += 1;
		await cache.readDirectory(AGENT_ID, '/');
		assert.equal(ops('list'), 2);
	});

	test("fileFreshMs: a file's size and mtime from a listing answer stat for 1 s, then stat asks", async () => {
		await cache.readDirectory(AGENT_ID, '/');
		now += DEFAULTS.fileFreshMs;
		assert.equal((await cache.stat(AGENT_ID, '/a.txt')).size, 5);
		assert.equal(ops('stat'), 0);
		now += 1;
		assert.equal((await cache.stat(AGENT_ID, '/a.txt')).size, 5);
		assert.equal(ops('stat'), 1);
	});

	test('listTtlMs: a listing answers for its folders and for missing names for 30 s, then the service is asked', async () => {
		await cache.readDirectory(AGENT_ID, '/');
		now += DEFAULTS.listTtlMs;
		assert.equal((await cache.stat(AGENT_ID, '/dir')).type, 'directory');
		await assert.rejects(cache.stat(AGENT_ID, '/missing.txt'), isMissing);
		assert.equal(ops('stat'), 0);
		now += 1;
		assert.equal((await cache.stat(AGENT_ID, '/dir')).type, 'directory');
		// The service's own 404 now (errors.ts turns it into FileNotFound for VS Code).
		await assert.rejects(cache.stat(AGENT_ID, '/missing.txt'), (err: unknown) => (err as { status?: number }).status === 404);
		assert.equal(ops('stat'), 2);
	});

	test('chunkLength: a file one byte over 1 MiB is read in two requests, the first asking for 1 MiB', async () => {
		const content = await cache.readFile(AGENT_ID, '/big.bin');
		assert.equal(content.byteLength, BIG);
		const reads = server
			.requestsTo('POST /v2/agents/*/workspace')
			.map((r) => JSON.parse(r.body.toString('utf8')) as { op?: string; length?: number; offset?: number })
			.filter((b) => b.op === 'read');
		assert.equal(reads.length, 2);
		assert.equal(reads[0]?.length, DEFAULTS.chunkLength);
		assert.equal(reads[1]?.offset, DEFAULTS.chunkLength);
	});
});
