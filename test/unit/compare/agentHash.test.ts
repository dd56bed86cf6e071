/**
 * The SHA-256 of an agent-side file read chunk by chunk (src/compare/agentHash.ts), over real HTTP
 * against the hostile test server, whose workspace read answers each test shapes: chunked files
 * hashed as node:crypto does, a file that changes between chunks read again (at most 3 times, then
 * 409 file_changed), chunks too small before the end refused, the listed mtime standing in for one
 * the server leaves out, cancellation before anything is sent.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ApiError, CloudAgentsClient } from '../../../src/api';
import { InvalidResponseError } from '../../../src/api/decode';
import { SAFETY } from '../../../src/base/limits';
import { hashAgentFile } from '../../../src/compare/agentHash';
import { nodeConnect } from '../../../src/platform/node/network';
import { AGENT_ID, TOKEN } from '../../hostile/fixtures';
import { type HostileServer, errorEnvelope, json, startHostile } from '../../hostile/server';

const sha = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');
const MTIME = 1_760_000_000_000;
const CHUNK = SAFETY.readChunkMinBytes;

/** What one read answers: the file's facts and content from `offset`, as the test decides. */
type Reader = (offset: number, attempt: { reads: number }) => Record<string, unknown> | 'missing';

/** A read answer of `content` (the whole file) from `offset`, `chunk` bytes at most; `extra` overrides members. */
function answer(content: Buffer, offset: number, chunk = CHUNK, extra: Record<string, unknown> = {}): Record<string, unknown> {
	const part = content.subarray(offset, offset + chunk);
	return {
		op: 'read',
		path: 'f.bin',
		offset,
		length: part.byteLength,
		size: content.byteLength,
		mtime_unix_ms: MTIME,
		eof: offset + part.byteLength >= content.byteLength,
		content_base64: part.toString('base64'),
		...extra,
	};
}

suite('compare/agentHash', () => {
	let server: HostileServer;
	let client: CloudAgentsClient;
	let reader: Reader;
	const state = { reads: 0 };
	/** Requests seen before this test's. */
	let mark = 0;
	/** The offsets this test's reads asked for (undefined: none, the start). */
	const offsets = (): Array<number | undefined> =>
		server.requests.slice(mark).map((r) => (JSON.parse(r.body.toString('utf8')) as { offset?: number }).offset);

	suiteSetup(async () => {
		server = await startHostile({ description: 'agentHash', routes: {} });
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: server.baseUrl,
			getToken: () => TOKEN,
			retry: { baseDelayMs: 1, maxDelayMs: 5 },
		});
	});
	setup(() => {
		state.reads = 0;
		mark = server.requests.length;
		server.use({
			description: 'workspace reads',
			routes: {
				'POST /v2/agents/*/workspace': (_req, res, ctx) => {
					const b = ctx.json() as { op?: string; offset?: number };
					assert.equal(b.op, 'read');
					state.reads++;
					const a = reader(b.offset ?? 0, state);
					return a === 'missing' ? errorEnvelope(res, 404, 'not_found', 'no such path') : json(res, 200, a);
				},
			},
		});
	});
	suiteTeardown(async () => {
		client?.close();
		await server?.close();
	});

	test('a file in several chunks is hashed as its bytes, the last chunk shorter than the others', async () => {
		const content = Buffer.alloc(2 * CHUNK + 1234);
		for (let i = 0; i < content.length; i++) {
			content[i] = (i * 31) & 0xff;
		}
		reader = (offset) => answer(content, offset);
		const h = await hashAgentFile(client, AGENT_ID, 'f.bin');
		assert.deepEqual(h, { sha256: sha(content), size: content.byteLength, mtime: MTIME });
		assert.deepEqual(offsets(), [undefined, CHUNK, 2 * CHUNK]);
	});

	test('a file in one answer (eof), and an empty file', async () => {
		reader = (offset) => answer(Buffer.from('hello'), offset);
		assert.deepEqual(await hashAgentFile(client, AGENT_ID, 'f.bin'), { sha256: sha(Buffer.from('hello')), size: 5, mtime: MTIME });
		reader = (offset) => answer(Buffer.alloc(0), offset);
		assert.deepEqual(await hashAgentFile(client, AGENT_ID, 'f.bin'), { sha256: sha(Buffer.alloc(0)), size: 0, mtime: MTIME });
		assert.deepEqual(offsets(), [undefined, undefined], 'one read each');
	});

	test('an answer that says eof before its size: the bytes sent are what is hashed and counted', async () => {
		const content = Buffer.from('0123456789');
		reader = () => ({ ...answer(content, 0), size: 100, eof: true });
		assert.deepEqual(await hashAgentFile(client, AGENT_ID, 'f.bin'), { sha256: sha(content), size: 10, mtime: MTIME });
		assert.equal(state.reads, 1);
	});

	test('an mtime the server leaves out is the listed one, or 0 without one; the size is always the one read', async () => {
		const content = Buffer.from('abc');
		reader = () => ({ ...answer(content, 0), mtime_unix_ms: undefined });
		assert.deepEqual(await hashAgentFile(client, AGENT_ID, 'f.bin', undefined, { size: 99, mtime: 42 }), {
			sha256: sha(content),
			size: 3,
			mtime: 42,
		});
		assert.equal((await hashAgentFile(client, AGENT_ID, 'f.bin')).mtime, 0);
		reader = (offset) => answer(content, offset);
		assert.equal(
			(await hashAgentFile(client, AGENT_ID, 'f.bin', undefined, { size: 3, mtime: 42 })).mtime,
			MTIME,
			'the server’s mtime wins',
		);
	});

	test('a file that changes between chunks is read again from the start, and the new content is what is hashed', async () => {
		const before = Buffer.alloc(2 * CHUNK, 'a');
		const after = Buffer.alloc(2 * CHUNK, 'b');
		// First attempt: the second chunk shows a newer mtime. Second attempt: stable, new content.
		reader = (offset, s) => (s.reads === 1 ? answer(before, offset) : answer(after, offset, CHUNK, { mtime_unix_ms: MTIME + 1 }));
		const h = await hashAgentFile(client, AGENT_ID, 'f.bin');
		assert.deepEqual(h, { sha256: sha(after), size: after.byteLength, mtime: MTIME + 1 });
		assert.deepEqual(offsets(), [undefined, CHUNK, undefined, CHUNK]);
	});

	test('another size between chunks, or an empty chunk before the end, also means read again', async () => {
		const content = Buffer.alloc(2 * CHUNK, 'c');
		reader = (offset, s) => (s.reads === 2 ? answer(content, offset, CHUNK, { size: 2 * CHUNK + 1 }) : answer(content, offset));
		assert.equal((await hashAgentFile(client, AGENT_ID, 'f.bin')).sha256, sha(content));
		assert.equal(state.reads, 4);
		state.reads = 0;
		reader = (offset, s) => (s.reads === 2 ? answer(content, offset, 0, { eof: false }) : answer(content, offset));
		assert.equal((await hashAgentFile(client, AGENT_ID, 'f.bin')).sha256, sha(content));
		assert.equal(state.reads, 4);
	});

	test('a file that keeps changing: three attempts, then ApiError 409 file_changed naming the path', async () => {
		const content = Buffer.alloc(2 * CHUNK, 'd');
		reader = (offset, s) => answer(content, offset, CHUNK, { mtime_unix_ms: MTIME + s.reads });
		await assert.rejects(
			hashAgentFile(client, AGENT_ID, 'dir/f.bin'),
			(err: unknown) =>
				err instanceof ApiError && err.status === 409 && err.code === 'file_changed' && err.message.includes('dir/f.bin'),
		);
		assert.deepEqual(offsets(), [undefined, CHUNK, undefined, CHUNK, undefined, CHUNK]);
	});

	test('a first chunk smaller than the minimum before the end is refused, nothing more read', async () => {
		const content = Buffer.alloc(3 * CHUNK, 'e');
		reader = (offset) => answer(content, offset, 100);
		await assert.rejects(
			hashAgentFile(client, AGENT_ID, 'f.bin'),
			(err: unknown) => err instanceof InvalidResponseError && err.message.includes(`${CHUNK} bytes`),
		);
		assert.equal(state.reads, 1);
	});

	test('a later chunk smaller than the minimum before the end is refused too; one at the end is fine', async () => {
		const content = Buffer.alloc(3 * CHUNK, 'f');
		reader = (offset) => answer(content, offset, offset === 0 ? CHUNK : CHUNK - 1);
		await assert.rejects(hashAgentFile(client, AGENT_ID, 'f.bin'), InvalidResponseError);
		assert.equal(state.reads, 2);
		const short = Buffer.alloc(CHUNK + 1, 'g');
		reader = (offset) => answer(short, offset);
		assert.equal((await hashAgentFile(client, AGENT_ID, 'f.bin')).sha256, sha(short));
	});

	test('a missing file is the API’s 404; an aborted signal sends nothing', async () => {
		reader = () => 'missing';
		await assert.rejects(hashAgentFile(client, AGENT_ID, 'gone.txt'), (err: unknown) => err instanceof ApiError && err.status === 404);
		mark = server.requests.length;
		const ac = new AbortController();
		ac.abort();
		reader = (offset) => answer(Buffer.from('x'), offset);
		await assert.rejects(hashAgentFile(client, AGENT_ID, 'f.bin', ac.signal), { name: 'AbortError' });
		assert.deepEqual(offsets(), []);
	});
});
