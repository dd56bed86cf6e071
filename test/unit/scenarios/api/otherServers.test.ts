/**
 * The client against servers that follow the description but chose differently where it says
 * "not shown": the cursor parameter, event payload shapes, run statuses and stream ends, the
 * workspace operation body, device-flow members. Each server is a scenario of test/hostile/server.ts.
 */
import assert from 'node:assert/strict';
import {
	ApiError,
	CloudAgentsClient,
	type EventRecord,
	ListingStoppedError,
	WorkspaceInterfaceError,
	agentStatusClass,
	eventFileChange,
	eventStatus,
	eventText,
	runStatusClass,
} from '../../../../src/api';
import { AGENT_ID, RUN_ID, TOKEN, agent, run } from '../../../hostile/fixtures';
import { type HostileServer, type Scenario, json, sseFrame, sseStart, startHostile } from '../../../hostile/server';
import { recordingLogger } from '../../support/leaks';
import { nodeConnect } from '../../../../src/platform/node/network';

suite('servers that chose differently', function () {
	this.timeout(30_000);
	let server: HostileServer;
	let client: CloudAgentsClient;

	async function start(s: Scenario): Promise<CloudAgentsClient> {
		server = await startHostile(s);
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: server.baseUrl,
			getToken: () => TOKEN,
			logger: recordingLogger,
			stream: { reconnectMinMs: 10, reconnectBaseMs: 10 },
		});
		return client;
	}

	teardown(async () => {
		client?.close();
		await server?.close();
	});

	/** Agents paged by `param`; any other cursor parameter is ignored (the first page comes back). */
	function agentsPagedBy(param: string | undefined, total = 5, size = 2): Scenario {
		return {
			description: `agents paged by ${param ?? 'nothing'}`,
			routes: {
				'GET /v2/agents': (req, res) => {
					const from = param ? Number(req.query.get(param) ?? 0) : 0;
					const items = Array.from({ length: Math.min(size, total - from) }, (_, i) =>
						agent({ id: `${AGENT_ID}${from + i}`, name: `agent ${from + i}` }),
					);
					json(res, 200, { agents: items, next_cursor: from + size < total ? String(from + size) : null });
				},
			},
		};
	}

	suite('paging with a cursor parameter of another name', () => {
		test('the working parameter is found once, then remembered', async () => {
			const c = await start(agentsPagedBy('page_token'));
			const names: string[] = [];
			for await (const a of c.iterateAgents({ limit: 2 })) {
				names.push(String(a.name));
			}
			assert.deepEqual(names, ['agent 0', 'agent 1', 'agent 2', 'agent 3', 'agent 4']);
			const firstWalk = server.requests.length;
			// Second walk: no more probing.
			const again: string[] = [];
			for await (const a of c.iterateAgents({ limit: 2 })) {
				again.push(String(a.name));
			}
			assert.deepEqual(again, names);
			assert.equal(server.requests.length - firstWalk, 3, 'three pages, no probes');
			assert.ok(server.requests.slice(firstWalk + 1).every((r) => r.query.has('page_token') && !r.query.has('cursor')));
		});

		test('"Load more" on a server that ignores every cursor name stops at once with a clear message', async () => {
			const c = await start(agentsPagedBy(undefined));
			const first = await c.listAgents({ limit: 2 });
			assert.equal(first.items.length, 2);
			const err = await c.listAgents({ limit: 2, cursor: first.nextCursor }).then(
				() => undefined,
				(e: unknown) => e,
			);
			assert.ok(err instanceof ListingStoppedError && err.reason === 'cursor_ignored', String(err));
			assert.match(err.message, /ignored the page cursor/);
			assert.ok(server.requests.length <= 8, `${server.requests.length} requests`);
		});
	});

	suite('events in other envelopes', () => {
		const cases: Array<[string, Record<string, unknown>, string]> = [
			['emulator envelope', { seq: 1, type: 'message', data: { role: 'assistant', text: 'hello' } }, 'hello'],
			[
				'flat with nested content',
				{ sequence: 1, type: 'assistant_message', message: { content: [{ type: 'text', text: 'nested hi' }] } },
				'nested hi',
			],
			['plain string data', { seq: 1, type: 'log', data: 'just a string' }, 'just a string'],
			['output member', { seq: 1, type: 'tool_output', output: { text: 'tool said' } }, 'tool said'],
			['payload member', { seq: 1, type: 'x', payload: { body: 'from body' } }, 'from body'],
		];
		for (const [name, record, text] of cases) {
			test(`text from ${name}`, () => {
				assert.equal(eventText(record as EventRecord), text);
			});
		}
		test('status and file changes from any envelope', () => {
			assert.equal(eventStatus({ seq: 1, type: 'run.status', data: { status: 'running' } }), 'running');
			assert.equal(eventStatus({ sequence: 1, type: 'status', status: 'completed' } as unknown as EventRecord), 'completed');
			assert.deepEqual(eventFileChange({ seq: 1, type: 'file.changed', data: { path: 'a.ts', change: 'modified' } }), {
				path: 'a.ts',
				change: 'modified',
			});
			assert.deepEqual(
				eventFileChange({ sequence: 1, type: 'file_change', file: { path: 'b.ts', action: 'created' } } as unknown as EventRecord),
				{ path: 'b.ts', change: 'created' },
			);
			assert.equal(eventFileChange({ seq: 1, type: 'log', data: { path: 'c.ts' } }), undefined);
		});
		test('statuses are classified whatever the spelling; unknown words stay unknown', () => {
			assert.deepEqual(
				[
					'succeeded',
					'completed',
					'COMPLETED',
					'errored',
					'failed',
					'canceled',
					'cancelled',
					'in_progress',
					'blocked',
					'pending',
					'queued',
					'wrapped_up',
				].map(runStatusClass),
				[
					'succeeded',
					'succeeded',
					'succeeded',
					'failed',
					'failed',
					'cancelled',
					'cancelled',
					'running',
					'running',
					'waiting',
					'waiting',
					'unknown',
				],
			);
			assert.deepEqual(['idle', 'READY', 'BUSY', 'STARTING', 'FAILED', 'HIBERNATING'].map(agentStatusClass), [
				'ready',
				'ready',
				'busy',
				'busy',
				'failed',
				'unknown',
			]);
		});
		test('no readable text: compact JSON of the payload, never an empty line', () => {
			assert.equal(eventText({ seq: 1, type: 'x', data: { n: 3 } }), '{"n":3}');
			assert.notEqual(eventText({ seq: 1, type: 'x', data: {} }), '');
			assert.notEqual(eventText({ seq: 1, type: 'x' }), '');
		});
	});

	suite('run end', () => {
		function streamThenStatus(frames: string, status: string): Scenario {
			return {
				description: `stream ends cleanly, run ${status}`,
				routes: {
					'GET /v2/agents/*/runs/*/events': (req, res) => {
						const write = sseStart(res);
						if (req.query.get('after') === '-1') {
							write(frames);
						}
						res.end();
					},
					'GET /v2/agents/*/runs/*': (_q, res) => json(res, 200, run({ status })),
				},
			};
		}

		test('a clean end without a completion event reads the run first: a terminal run ends the stream at once', async () => {
			const c = await start(
				streamThenStatus(
					sseFrame(0, 'status', { status: 'in_progress' }) + sseFrame(1, 'status', { status: 'completed' }),
					'completed',
				),
			);
			const stream = c.streamRunEvents(AGENT_ID, RUN_ID);
			const seen: number[] = [];
			for await (const ev of stream) {
				seen.push(ev.seq);
			}
			assert.deepEqual(seen, [0, 1]);
			assert.equal(stream.connections, 1, 'no reconnect after the run ended');
			assert.equal(server.requestsTo('GET /v2/agents/*/runs/*').length, 1);
			assert.equal(stream.finalRun?.status, 'completed');
		});

		test('a status no list knows: the stream ends when the server ends it again without news', async () => {
			const c = await start(streamThenStatus(sseFrame(0, 'status', {}), 'wrapped_up'));
			const stream = c.streamRunEvents(AGENT_ID, RUN_ID);
			const seen: number[] = [];
			for await (const ev of stream) {
				seen.push(ev.seq);
			}
			assert.deepEqual(seen, [0]);
			assert.ok(stream.connections <= 3, `${stream.connections} connections`);
			assert.equal(stream.finalRun?.status, 'wrapped_up', 'the unknown status is kept as it is');
		});
	});

	suite('workspace interface of another shape', () => {
		test('an answer without entries is a clear error with the request id, not an empty folder', async () => {
			const c = await start({
				description: 'other workspace result',
				routes: {
					'POST /v2/agents/*/workspace': (_q, res) =>
						json(res, 200, { operation: 'list_directory', result: { items: [{ path: 'a.txt', kind: 'file' }] } }),
				},
			});
			const err = await c.listWorkspace(AGENT_ID, '').then(
				() => undefined,
				(e: unknown) => e,
			);
			assert.ok(err instanceof WorkspaceInterfaceError, String(err));
			assert.equal(err.code, 'workspace_interface_differs');
			assert.match(err.message, /workspace interface differs/);
			assert.ok(err.requestId !== undefined);
		});
		test('a 400 for our operation body says the interface differs', async () => {
			const c = await start({
				description: 'rejects op bodies',
				routes: {
					'POST /v2/agents/*/workspace': (_q, res) =>
						json(res, 400, {
							error: { code: 'invalid_argument', message: 'unknown member op' },
							request_id: '0192f1a0-1234-7abc-8def-0123456789ab',
						}),
				},
			});
			const err = await c.statWorkspace(AGENT_ID, 'a.txt').then(
				() => undefined,
				(e: unknown) => e,
			);
			assert.ok(err instanceof ApiError && err.code === 'workspace_interface_differs', String(err));
			assert.match(err.message, /unknown member op/);
		});
	});

	suite('device flow with other member names', () => {
		test('verification_url, polling_interval and expires_at are understood', async () => {
			const expires = new Date(Date.now() + 600_000).toISOString();
			const c = await start({
				description: 'device start, other names',
				routes: {
					'POST /v2/auth/device/authorization': (_q, res) =>
						json(res, 200, {
							device_code: 'dc',
							user_code: 'WXYZ',
							verification_url: 'https://example.test/activate',
							expires_at: expires,
							polling_interval: 7,
						}),
				},
			});
			const start1 = await c.startDeviceAuthorization({ client_id: 'vscode' });
			assert.equal(start1.verification_uri, 'https://example.test/activate');
			assert.equal(start1.interval, 7);
			assert.ok(start1.expires_in > 590 && start1.expires_in <= 600, String(start1.expires_in));
		});
		test('pending, polling_too_fast, expired and denied in other words', async () => {
			const answers = [
				{ error: 'pending' },
				{ error: 'polling_too_fast', interval: 9 },
				{ error: 'invalid_device_code' },
				{ error: 'denied' },
			];
			const c = await start({
				description: 'device token, other words',
				routes: { 'POST /v2/auth/device/token': (_q, res, ctx) => json(res, 400, answers[ctx.hits - 1]) },
			});
			const statuses = [];
			for (let i = 0; i < answers.length; i++) {
				statuses.push((await c.pollDeviceToken('dc')).status);
			}
			assert.deepEqual(statuses, ['pending', 'slow_down', 'expired', 'denied']);
		});
	});
});
