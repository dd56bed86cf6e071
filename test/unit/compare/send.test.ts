/**
 * Send to Agent (src/compare/send.ts) over real HTTP against the hostile test server's workspace
 * routes on an in-memory tree: the conflict check (presence, size and mtime as listed) before any
 * write or delete, AgentChangedError with what is there now and nothing sent, the facts after a
 * write, a delete only of a file that is there, and errors other than 404 passed on.
 */
import * as assert from 'node:assert/strict';
import { ApiError, CloudAgentsClient } from '../../../src/api';
import { AgentChangedError, sendToAgent, statAgentFile } from '../../../src/compare/send';
import { nodeConnect } from '../../../src/platform/node/network';
import { AGENT_ID, TOKEN } from '../../hostile/fixtures';
import { type HostileServer, errorEnvelope, startHostile } from '../../hostile/server';
import { workspaceRoutes } from '../workspace/fs/hostileWorkspace';

const T0 = 1_760_000_000_000;

suite('compare/send', () => {
	let server: HostileServer;
	let client: CloudAgentsClient;
	/** The agent's workspace: file path → content and mtime (folders implied). */
	let files: Map<string, { content: Buffer; mtime: number }>;
	let clock = T0;
	let mark = 0;
	/** The methods and ops of this test's requests, in order (`stat`, `PUT`, `DELETE`…). */
	const sent = (): string[] =>
		server.requests
			.slice(mark)
			.map((r) => (r.method === 'POST' ? String((JSON.parse(r.body.toString('utf8')) as { op?: string }).op) : r.method));

	const useTree = (): void =>
		server.use({
			description: 'an in-memory workspace',
			routes: workspaceRoutes({
				list: () => undefined,
				file: (path) => files.get(path),
				write: (path, content) => files.set(path, { content, mtime: ++clock }),
				remove: (path) => files.delete(path),
			}),
		});

	suiteSetup(async () => {
		server = await startHostile({ description: 'send', routes: {} });
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: server.baseUrl,
			getToken: () => TOKEN,
			retry: { baseDelayMs: 1, maxDelayMs: 5 },
		});
	});
	setup(() => {
		files = new Map([['src/a.ts', { content: Buffer.from('agent side\n'), mtime: T0 }]]);
		clock = T0;
		mark = server.requests.length;
		useTree();
	});
	suiteTeardown(async () => {
		client?.close();
		await server?.close();
	});

	test('statAgentFile: the facts of a file, undefined for a missing one', async () => {
		assert.deepEqual(await statAgentFile(client, AGENT_ID, 'src/a.ts'), { size: 11, mtime: T0 });
		assert.equal(await statAgentFile(client, AGENT_ID, 'src/missing.ts'), undefined);
	});

	test('statAgentFile: an error other than 404 is passed on, not taken for absence', async () => {
		server.use({
			description: 'forbidden',
			routes: { 'POST /v2/agents/*/workspace': (_req, res) => errorEnvelope(res, 403, 'forbidden', 'read-only token') },
		});
		await assert.rejects(statAgentFile(client, AGENT_ID, 'src/a.ts'), (err: unknown) => err instanceof ApiError && err.status === 403);
		await assert.rejects(
			sendToAgent(client, AGENT_ID, 'src/a.ts', Buffer.from('x'), { size: 11, mtime: T0 }),
			(err: unknown) => err instanceof ApiError && err.status === 403,
		);
		assert.deepEqual(sent(), ['stat', 'stat'], 'nothing written after the failed check');
	});

	test('the agent copy as listed: the content is written and the facts returned are the new copy’s', async () => {
		const facts = await sendToAgent(client, AGENT_ID, 'src/a.ts', Buffer.from('from local'), { size: 11, mtime: T0 });
		assert.deepEqual(facts, { size: 10, mtime: T0 + 1 });
		assert.equal(files.get('src/a.ts')?.content.toString(), 'from local');
		assert.deepEqual(sent(), ['stat', 'PUT', 'stat']);
	});

	test('a file the agent does not have, expected absent: written', async () => {
		const facts = await sendToAgent(client, AGENT_ID, 'new/b.txt', new Uint8Array(0), undefined);
		assert.deepEqual(facts, { size: 0, mtime: T0 + 1 });
		assert.equal(files.get('new/b.txt')?.content.byteLength, 0);
	});

	test('another mtime, another size, or a copy where none was listed: AgentChangedError with what is there, nothing written', async () => {
		for (const expected of [{ size: 11, mtime: T0 - 1 }, { size: 12, mtime: T0 }, undefined]) {
			mark = server.requests.length;
			await assert.rejects(
				sendToAgent(client, AGENT_ID, 'src/a.ts', Buffer.from('from local'), expected),
				(err: unknown) =>
					err instanceof AgentChangedError &&
					err.name === 'AgentChangedError' &&
					err.path === 'src/a.ts' &&
					err.message.includes('src/a.ts') &&
					err.message.includes('nothing was sent') &&
					err.now?.size === 11 &&
					err.now.mtime === T0,
				JSON.stringify(expected),
			);
			assert.deepEqual(sent(), ['stat'], JSON.stringify(expected));
		}
		assert.equal(files.get('src/a.ts')?.content.toString(), 'agent side\n');
	});

	test('a copy listed but gone since: AgentChangedError saying it is absent, nothing written or deleted', async () => {
		for (const content of [Buffer.from('from local'), undefined]) {
			await assert.rejects(
				sendToAgent(client, AGENT_ID, 'src/gone.ts', content, { size: 3, mtime: T0 }),
				(err: unknown) => err instanceof AgentChangedError && err.now === undefined,
			);
		}
		assert.deepEqual(sent(), ['stat', 'stat']);
		assert.equal(files.has('src/gone.ts'), false);
	});

	test('no content: the agent copy as listed is deleted, and the answer is undefined', async () => {
		assert.equal(await sendToAgent(client, AGENT_ID, 'src/a.ts', undefined, { size: 11, mtime: T0 }), undefined);
		assert.equal(files.has('src/a.ts'), false);
		assert.deepEqual(sent(), ['stat', 'DELETE']);
		const del = server.requests.at(-1)!;
		assert.deepEqual(JSON.parse(del.body.toString('utf8')), { path: 'src/a.ts', recursive: false });
	});

	test('no content and no agent copy, as listed: nothing to delete, no DELETE sent', async () => {
		assert.equal(await sendToAgent(client, AGENT_ID, 'src/none.ts', undefined, undefined), undefined);
		assert.deepEqual(sent(), ['stat']);
	});

	test('no content, a copy where none was listed: AgentChangedError, not deleted', async () => {
		await assert.rejects(sendToAgent(client, AGENT_ID, 'src/a.ts', undefined, undefined), AgentChangedError);
		assert.ok(files.has('src/a.ts'));
		assert.deepEqual(sent(), ['stat']);
	});

	test('a path longer than the service takes is refused before anything is sent (the caller checks the rest: agentPathOf)', async () => {
		const path = `${'a/'.repeat(3000)}x`;
		await assert.rejects(sendToAgent(client, AGENT_ID, path, Buffer.from('x'), undefined), /4096/);
		await assert.rejects(sendToAgent(client, AGENT_ID, path, undefined, { size: 1, mtime: T0 }), /4096/);
		assert.deepEqual(sent(), []);
	});

	test('an aborted signal sends nothing', async () => {
		const ac = new AbortController();
		ac.abort();
		await assert.rejects(sendToAgent(client, AGENT_ID, 'src/a.ts', Buffer.from('x'), { size: 11, mtime: T0 }, ac.signal), {
			name: 'AbortError',
		});
		assert.deepEqual(sent(), []);
		assert.equal(files.get('src/a.ts')?.content.toString(), 'agent side\n');
	});
});
