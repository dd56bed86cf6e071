/**
 * src/api/endpoints/workspace.ts: the workspace operation (list, stat, read, search) and its checked
 * readers, whole-file reads in chunks, writes and deletes, against the emulator (the standard
 * profile and the variant-strict one, whose workspace interface differs) and a recording loopback
 * server (bodies as sent, what a 400 or 422 means, answers out of range).
 */
import * as assert from 'node:assert/strict';
import { ApiError, ValidationError, WorkspaceInterfaceError } from '../../../../src/api/errors';
import { InvalidResponseError } from '../../../../src/api/decode';
import { LIMITS, SAFETY } from '../../../../src/base/limits';
import { CloudAgentsClient } from '../../../../src/api/client';
import { nodeConnect } from '../../../../src/platform/node/network';
import { DEV_TOKEN } from '../../support/emulator';
import { AGENT_ID, type Recorded, type Recorder, emulatorSuite, recorderSuite, rejection, workspaceSuite } from './recorder';

const b64 = (bytes: Uint8Array | string): string => Buffer.from(bytes).toString('base64');

suite('api/endpoints/workspace', () => {
	suite('against the emulator (standard)', () => {
		let client: CloudAgentsClient;
		let agentId: string;

		workspaceSuite((s) => ({ client, agentId } = s));

		test('the root lists its folders and files; pages of one give the same entries as the whole listing', async () => {
			const all = await client.listWorkspaceAll(agentId, '');
			const names = all.map((e) => e.name);
			for (const name of ['README.md', 'src', 'docs', 'assets']) {
				assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
			}
			const first = await client.listWorkspace(agentId, '', { limit: 1 });
			assert.equal(first.items.length, 1);
			assert.ok(first.nextCursor);
			const paged: string[] = [];
			for await (const e of client.iterateWorkspace(agentId, '', { limit: 1 })) {
				paged.push(e.name);
			}
			assert.deepEqual(paged, names);
		});

		test('stat, a chunk at an offset, and a whole file read in small chunks equal one read', async () => {
			const stat = await client.statWorkspace(agentId, 'README.md');
			assert.equal(stat.type, 'file');
			const whole = await client.readWorkspaceFile(agentId, 'README.md');
			assert.equal(whole.eof, true);
			assert.equal(whole.size, stat.size);
			const part = await client.readWorkspaceFile(agentId, 'README.md', { offset: 2, length: 7 });
			assert.equal(Buffer.from(part.content).toString(), Buffer.from(whole.content.subarray(2, 9)).toString());
			assert.equal(part.offset, 2);
			assert.equal(part.eof, false);
			const chunked = await client.readWorkspaceFileAll(agentId, 'README.md', { chunkLength: 16 });
			assert.deepEqual(Buffer.from(chunked.content), Buffer.from(whole.content));
			const missing = await rejection(() => client.statWorkspace(agentId, 'no/such/file.txt'));
			assert.ok(missing instanceof ApiError && !(missing instanceof WorkspaceInterfaceError));
			assert.equal(missing.status, 404);
		});

		test('search finds the seeded word; a write reads back and a recursive delete removes its folder', async () => {
			const found = await client.searchWorkspace(agentId, 'quetzalcoatl', { maxResults: 50 });
			assert.equal(found.query, 'quetzalcoatl');
			assert.ok(found.matches.length >= 2);
			const bytes = new Uint8Array([1, 2, 3, 0, 255]);
			const written = await client.writeWorkspaceFile(agentId, 'unit/new/file.bin', bytes);
			assert.equal(written.size, 5);
			assert.deepEqual([...(await client.readWorkspaceFileAll(agentId, 'unit/new/file.bin')).content], [...bytes]);
			await client.deleteWorkspacePath(agentId, 'unit', { recursive: true });
			const gone = await rejection(() => client.statWorkspace(agentId, 'unit/new/file.bin'));
			assert.ok(gone instanceof ApiError);
			assert.equal(gone.status, 404);
		});
	});

	suite('against the emulator (variant-strict: the standard operation body is refused)', () => {
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ client } = s), { profile: 'variant-strict' });

		test('a 400 to the operation body is a WorkspaceInterfaceError naming the operation', async () => {
			const agent = (await client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Refactor billing module');
			assert.ok(agent);
			const err = await rejection(() => client.listWorkspace(agent.id, ''));
			assert.ok(err instanceof WorkspaceInterfaceError);
			assert.match(err.message, /the server rejected the "list" operation/);
			assert.ok(err.cause instanceof ApiError);
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;
		const ops = (): string[] => rec.requests.map((r) => String((r.body as { op?: string } | undefined)?.op));

		recorderSuite((s) => ({ rec, client } = s));

		test('paths, queries, limits, offsets and sizes out of range are refused before sending', async () => {
			const long = 'a'.repeat(LIMITS.workspacePathBytes - 1) + 'é';
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.listWorkspace('agent', ''), 'agentId'],
				[() => client.listWorkspace(AGENT_ID, long), 'path'],
				[() => client.listWorkspace(AGENT_ID, '', { limit: 0 }), 'limit'],
				[() => client.listWorkspace(AGENT_ID, '', { limit: LIMITS.workspaceListLimit.max + 1 }), 'limit'],
				[() => client.statWorkspace(AGENT_ID, long), 'path'],
				[() => client.readWorkspaceFile(AGENT_ID, 'f', { length: 0 }), 'length'],
				[() => client.readWorkspaceFile(AGENT_ID, 'f', { length: LIMITS.workspaceReadLength.max + 1 }), 'length'],
				[() => client.readWorkspaceFile(AGENT_ID, 'f', { offset: -1 }), 'offset'],
				[() => client.searchWorkspace(AGENT_ID, ''), 'query'],
				[() => client.searchWorkspace(AGENT_ID, 'é'.repeat(129)), 'query'],
				[() => client.searchWorkspace(AGENT_ID, 'q', { maxResults: 1001 }), 'maxResults'],
				[() => client.searchWorkspace(AGENT_ID, 'q', { path: long }), 'path'],
				[() => client.writeWorkspaceFile(AGENT_ID, long, new Uint8Array(1)), 'path'],
				[() => client.writeWorkspaceFile(AGENT_ID, 'f', new Uint8Array(LIMITS.writeBytes + 1)), 'content'],
				[() => client.deleteWorkspacePath(AGENT_ID, long), 'path'],
				[() => client.workspaceOperation(AGENT_ID, { op: 'list', path: long }), 'path'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			assert.throws(() => client.iterateWorkspace(AGENT_ID, long), ValidationError);
			assert.equal(rec.requests.length, 0);
		});

		test('a listing answered as a bare array is its entries (another server’s choice), not an empty folder', async () => {
			rec.answer(() => ({
				body: [
					{ name: 'a.ts', type: 'file', size: 1 },
					{ name: 'src', type: 'directory' },
				],
			}));
			const page = await client.listWorkspace(AGENT_ID, '');
			assert.deepEqual(
				page.items.map((e) => e.name),
				['a.ts', 'src'],
			);
			assert.equal(page.nextCursor, undefined);
		});

		test('operation bodies as sent: list, stat, read, search; the write and delete routes', async () => {
			rec.answer((req) => {
				const op = (req.body as { op?: string } | undefined)?.op;
				switch (op) {
					case 'list':
						return { body: { entries: [] } };
					case 'stat':
						return { body: { entry: { name: 'f', type: 'file', size: 1 } } };
					case 'read':
						return { body: { content_base64: b64('x'), offset: 3, size: 4 } };
					case 'search':
						return { body: { matches: [] } };
					default:
						return req.method === 'DELETE' ? { status: 204 } : { body: { path: 'f', size: 2 } };
				}
			});
			await client.listWorkspace(AGENT_ID, 'src', { limit: 10, cursor: 'c1' });
			await client.statWorkspace(AGENT_ID, 'src/a b.ts');
			await client.readWorkspaceFile(AGENT_ID, 'f', { offset: 3, length: 9 });
			await client.searchWorkspace(AGENT_ID, 'needle', { path: 'src', maxResults: 5, caseSensitive: true });
			await client.writeWorkspaceFile(AGENT_ID, 'f', new Uint8Array([104, 105]));
			await client.deleteWorkspacePath(AGENT_ID, 'dir');
			await client.deleteWorkspacePath(AGENT_ID, 'dir', { recursive: true });
			const shown = rec.requests.map((r: Recorded) => [`${r.method} ${r.url}`, r.body]);
			assert.deepEqual(shown, [
				[`POST /v2/agents/${AGENT_ID}/workspace`, { op: 'list', path: 'src', cursor: 'c1', limit: 10 }],
				[`POST /v2/agents/${AGENT_ID}/workspace`, { op: 'stat', path: 'src/a b.ts' }],
				[`POST /v2/agents/${AGENT_ID}/workspace`, { op: 'read', path: 'f', offset: 3, length: 9 }],
				[
					`POST /v2/agents/${AGENT_ID}/workspace`,
					{ op: 'search', query: 'needle', path: 'src', max_results: 5, case_sensitive: true },
				],
				[`PUT /v2/agents/${AGENT_ID}/workspace/files`, { path: 'f', content_base64: 'aGk=' }],
				[`DELETE /v2/agents/${AGENT_ID}/workspace/files`, { path: 'dir', recursive: false }],
				[`DELETE /v2/agents/${AGENT_ID}/workspace/files`, { path: 'dir', recursive: true }],
			]);
		});

		test('read operations are retried after a 503; any other operation is sent once', async () => {
			const retrying = rec.client({ maxAttempts: 2, minDelayMs: 1, baseDelayMs: 1, maxDelayMs: 1 });
			rec.answer((_req, i) => (i % 2 === 0 ? { status: 503, body: {} } : { body: { entries: [] } }));
			await retrying.listWorkspace(AGENT_ID, '');
			assert.deepEqual(ops(), ['list', 'list']);
			rec.reset();
			rec.answer(() => ({ status: 503, body: {} }));
			const err = await rejection(() => retrying.workspaceOperation(AGENT_ID, { op: 'mkdir', path: 'x' }));
			assert.ok(err instanceof ApiError);
			assert.deepEqual(ops(), ['mkdir']);
		});

		test('a 422 is the operation’s own when the root lists; a WorkspaceInterfaceError when the root is refused too', async () => {
			const invalid = { status: 422, body: { error: { code: 'invalid_argument', message: 'bad path' } } };
			// The root lists: the 422 was about this path.
			rec.answer((req) => ((req.body as { path?: string }).path === '' ? { body: { entries: [] } } : invalid));
			const own = await rejection(() => client.statWorkspace(AGENT_ID, 'weird'));
			assert.ok(own instanceof ApiError && !(own instanceof WorkspaceInterfaceError));
			assert.equal(own.status, 422);
			assert.deepEqual(
				rec.requests.map((r) => r.body),
				[
					{ op: 'stat', path: 'weird' },
					{ op: 'list', path: '', limit: 1 },
				],
			);
			// Every operation is refused: the interface differs.
			rec.reset();
			rec.answer(() => invalid);
			const differs = await rejection(() => client.statWorkspace(AGENT_ID, 'weird'));
			assert.ok(differs instanceof WorkspaceInterfaceError);
			assert.match(differs.message, /refused a workspace operation as invalid/);
			// An operation on the root itself needs no second look.
			rec.reset();
			const root = await rejection(() => client.listWorkspace(AGENT_ID, '/'));
			assert.ok(root instanceof WorkspaceInterfaceError);
			assert.equal(rec.requests.length, 1);
		});

		test('422s of one agent arriving together share one look at the root', async () => {
			// The root's answer is held until the client has had all three 422s, so all three wait on one look.
			let outcomes = 0;
			let allSeen: () => void = () => undefined;
			const seen = new Promise<void>((resolve) => (allSeen = resolve));
			const watched = new CloudAgentsClient({
				connect: nodeConnect,
				baseUrl: rec.baseUrl,
				getToken: () => DEV_TOKEN,
				retry: { maxAttempts: 1 },
				onOutcome: () => {
					if (++outcomes === 3) {
						allSeen();
					}
				},
			});
			try {
				const refused = { status: 422, body: { error: { code: 'invalid_argument', message: 'no' } } };
				rec.answer(async (req) => {
					if ((req.body as { path?: string }).path === '') {
						await seen;
					}
					return refused;
				});
				const errors = await Promise.all(['a', 'b', 'c'].map((p) => rejection(() => watched.statWorkspace(AGENT_ID, p))));
				assert.ok(errors.every((e) => e instanceof WorkspaceInterfaceError));
				assert.equal(rec.requests.filter((r) => (r.body as { path?: string }).path === '').length, 1);
				assert.equal(rec.requests.length, 4);
			} finally {
				watched.close();
			}
		});

		test('an answer without what its operation needs is a WorkspaceInterfaceError naming it', async () => {
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.listWorkspace(AGENT_ID, ''), 'entries array'],
				[() => client.statWorkspace(AGENT_ID, 'f'), 'entry object'],
				[() => client.readWorkspaceFile(AGENT_ID, 'f'), 'content_base64'],
				[() => client.searchWorkspace(AGENT_ID, 'q'), 'matches array'],
			];
			rec.answer(() => ({ body: { something: 'else' } }));
			for (const [call, missing] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof WorkspaceInterfaceError, missing);
				assert.ok(err.message.includes(missing), err.message);
				assert.ok(err.requestId?.startsWith('req-'), 'the request id of the answer');
			}
			// Entries that are not records, or with a negative size, are dropped.
			rec.answer(() => ({ body: { entries: [{ name: 'a', type: 'file' }, 'junk', { name: 'b', size: -4 }] } }));
			assert.deepEqual(
				(await client.listWorkspace(AGENT_ID, '')).items.map((e) => e.name),
				['a'],
			);
		});

		test('a read chunk is checked: offset as asked, size in range, no more than asked, integer mtime; eof and defaults', async () => {
			const bad: Array<[Record<string, unknown>, { offset?: number; length?: number }, string]> = [
				[{ content_base64: b64('abc'), offset: 5 }, { offset: 0 }, 'workspace read.offset'],
				[{ content_base64: b64('abc'), size: 2 }, {}, 'workspace read.size'],
				[{ content_base64: b64('abc'), size: SAFETY.readMaxBytes + 1 }, {}, 'workspace read.size'],
				[{ content_base64: b64('abc'), size: 1.5 }, {}, 'workspace read.size'],
				[{ content_base64: b64('abcdef'), size: 10 }, { length: 4 }, 'workspace read.content_base64'],
				[{ content_base64: b64('abc'), mtime_unix_ms: 1.5 }, {}, 'workspace read.mtime_unix_ms'],
				[{ content_base64: 'abc' }, {}, 'workspace read.content_base64'],
			];
			for (const [body, options, field] of bad) {
				rec.answer(() => ({ body }));
				const err = await rejection(() => client.readWorkspaceFile(AGENT_ID, 'f', options));
				assert.ok(err instanceof InvalidResponseError, JSON.stringify(body));
				assert.equal(err.field, field, JSON.stringify(body));
			}
			rec.answer(() => ({ body: { content_base64: b64('abc') } }));
			const defaults = await client.readWorkspaceFile(AGENT_ID, 'f');
			assert.deepEqual(
				[defaults.path, defaults.offset, defaults.length, defaults.size, defaults.eof, defaults.mtime_unix_ms],
				['f', 0, 3, 3, true, undefined],
			);
			rec.answer(() => ({ body: { content_base64: b64('abc'), offset: 2, size: 10, mtime_unix_ms: 7 } }));
			const middle = await client.readWorkspaceFile(AGENT_ID, 'f', { offset: 2, length: 3 });
			assert.deepEqual([middle.offset, middle.size, middle.eof, middle.mtime_unix_ms], [2, 10, false, 7]);
		});

		test('a whole-file read joins its chunks; a file that keeps changing ends in a 409 after three tries', async () => {
			const text = 'abcdefghij';
			rec.answer((req) => {
				const { offset = 0, length = 4 } = req.body as { offset?: number; length?: number };
				const piece = text.slice(offset, offset + length);
				return { body: { content_base64: b64(piece), offset, size: text.length, mtime_unix_ms: 1 } };
			});
			const file = await client.readWorkspaceFileAll(AGENT_ID, 'f', { chunkLength: 4 });
			assert.equal(Buffer.from(file.content).toString(), text);
			assert.deepEqual(
				rec.requests.map((r) => (r.body as { offset?: number }).offset ?? 0),
				[0, 4, 8],
			);

			rec.reset();
			let version = 0;
			rec.answer((req) => {
				const { offset = 0 } = req.body as { offset?: number };
				version++;
				return { body: { content_base64: b64(text.slice(offset, offset + 4)), offset, size: text.length, mtime_unix_ms: version } };
			});
			const err = await rejection(() => client.readWorkspaceFileAll(AGENT_ID, 'f', { chunkLength: 4 }));
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 409);
			assert.equal(err.code, 'file_changed');
			assert.equal(rec.requests.filter((r) => ((r.body as { offset?: number }).offset ?? 0) === 0).length, 3);
		});

		test('a server that dribbles chunks smaller than asked (and than the minimum) is refused', async () => {
			rec.answer((req) => {
				const { offset = 0 } = req.body as { offset?: number };
				return { body: { content_base64: b64('ab'), offset, size: 100_000 } };
			});
			const err = await rejection(() => client.readWorkspaceFileAll(AGENT_ID, 'f'));
			assert.ok(err instanceof InvalidResponseError);
			assert.match(err.message, /chunks of at least/);
			assert.equal(rec.requests.length, 1, 'refused at the first chunk, before a loop of tiny reads');
		});

		test('a write answer without path or size falls back to what was written', async () => {
			rec.answer(() => ({ body: {} }));
			assert.deepEqual(await client.writeWorkspaceFile(AGENT_ID, 'dir/f.txt', new Uint8Array(3)), { path: 'dir/f.txt', size: 3 });
			rec.answer(() => ({ body: { path: 'other', size: 9, extra: true } }));
			assert.deepEqual(await client.writeWorkspaceFile(AGENT_ID, 'f', new Uint8Array(3)), { path: 'other', size: 9, extra: true });
		});
	});
});
