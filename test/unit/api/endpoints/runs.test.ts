/**
 * src/api/endpoints/runs.ts: runs of an agent (list, create with reconciliation, read, cancel,
 * resume, follow up), the run-event stream's arguments and a session's events, against the emulator
 * and a recording loopback server.
 */
import * as assert from 'node:assert/strict';
import { ApiError, OutcomeUnknownError, ValidationError } from '../../../../src/api/errors';
import { LIMITS } from '../../../../src/base/limits';
import type { CloudAgentsClient } from '../../../../src/api/client';
import type { Agent } from '../../../../src/api/types';
import { AGENT_ID, type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

suite('api/endpoints/runs', () => {
	suite('against the emulator', () => {
		let client: CloudAgentsClient;
		const agents = new Map<string, Agent>();
		const agent = (name: string): Agent => {
			const a = agents.get(name);
			assert.ok(a, `the demo seed has ${name}`);
			return a;
		};

		emulatorSuite(async (s) => {
			({ client } = s);
			for (const a of (await client.listAgents({ limit: 100 })).items) {
				agents.set(a.name ?? '', a);
			}
		});

		test('runs are listed newest first within the limit; one is read by id', async () => {
			const billing = agent('Refactor billing module');
			const all = await client.listRuns(billing.id);
			assert.equal(all.length, 7);
			const two = await client.listRuns(billing.id, { limit: 2 });
			assert.deepEqual(
				two.map((r) => r.id),
				all.slice(0, 2).map((r) => r.id),
			);
			const one = await client.getRun(billing.id, all[0]!.id);
			assert.equal(one.id, all[0]!.id);
			assert.equal(one.agent_id, billing.id);
		});

		test('a finished run streams its events in order; `after` is exclusive', async () => {
			const billing = agent('Refactor billing module');
			const run = (await client.listRuns(billing.id, { limit: 1 }))[0]!;
			const seqs: number[] = [];
			for await (const e of client.streamRunEvents(billing.id, run.id)) {
				seqs.push(e.seq);
			}
			assert.ok(seqs.length >= 3, `${seqs.length} events`);
			assert.deepEqual(
				seqs,
				[...seqs].sort((a, b) => a - b),
			);
			const from = seqs[1]!;
			const rest: number[] = [];
			for await (const e of client.streamRunEvents(billing.id, run.id, { after: from })) {
				rest.push(e.seq);
			}
			assert.deepEqual(rest, seqs.slice(2));
		});

		test('a second run of a busy agent is a 409; cancelling the active run ends it; a run without a session cannot be resumed', async () => {
			const triage = agent('CI triage');
			const active = (await client.listRuns(triage.id, { limit: 1 }))[0]!;
			assert.equal(active.status, 'running');
			const busy = await rejection(() => client.createRun(triage.id, { prompt: 'another' }));
			assert.ok(busy instanceof ApiError && !(busy instanceof OutcomeUnknownError));
			assert.equal(busy.status, 409);
			const cancelled = await client.cancelRun(triage.id, active.id);
			assert.equal(cancelled.id, active.id);
			assert.notEqual((await client.getRun(triage.id, active.id)).status, 'running');

			const docs = agent('Docs writer');
			const docsRuns = await client.listRuns(docs.id);
			const noSession = docsRuns.find((r) => !r.dsh_session_id);
			assert.ok(noSession);
			const refused = await rejection(() => client.resumeRun(docs.id, noSession.id, { prompt: 'go on' }));
			assert.ok(refused instanceof ApiError);
			assert.equal(refused.status, 422);
		});

		test("a session's events arrive decoded, every one with a sequence number", async () => {
			const sandbox = agent('Sandbox explorer');
			const events = await client.getAgentEvents(sandbox.id);
			assert.equal(events.agent_id, sandbox.id);
			const sessionId = events.session_id;
			assert.ok(typeof sessionId === 'string' && sessionId.length > 0);
			assert.ok(events.events.length > 100, `${events.events.length} events`);
			assert.ok(events.events.every((e) => Number.isSafeInteger(e.seq) && typeof e.type === 'string'));
			const later = await client.getAgentEvents(sandbox.id, { sessionId, after: events.events[99]!.seq });
			assert.equal(later.events.length, events.events.length - 100);
			assert.ok(later.events.every((e) => e.seq > events.events[99]!.seq));
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('bad ids, limits, prompts and cursors are refused before sending', async () => {
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.listRuns('agent', {}), 'agentId'],
				[() => client.listRuns(AGENT_ID, { limit: 0 }), 'limit'],
				[() => client.listRuns(AGENT_ID, { limit: LIMITS.runListLimit.max + 1 }), 'limit'],
				[() => client.getRun(AGENT_ID, 'run/1'), 'runId'],
				[() => client.cancelRun(AGENT_ID, ''), 'runId'],
				[() => client.createRun(AGENT_ID, { prompt: '   ' }), 'prompt'],
				[() => client.createRun(AGENT_ID, { prompt: 'x'.repeat(LIMITS.promptBytes + 1) }), 'prompt'],
				[() => client.createRun(AGENT_ID, { prompt: 'ok', resume_session_id: 'sess 1' }), 'resume_session_id'],
				[() => client.createRun(AGENT_ID, { prompt: 'ok', parent_run_id: 'a'.repeat(161) }), 'parent_run_id'],
				[() => client.resumeRun(AGENT_ID, 'run_1', { prompt: 'x'.repeat(LIMITS.promptBytes + 1) }), 'prompt'],
				[() => client.followUpRun(AGENT_ID, 'run_1', { prompt: '' }), 'prompt'],
				[() => client.getAgentEvents(AGENT_ID, { sessionId: 's?1' }), 'sessionId'],
				[() => client.getAgentEvents(AGENT_ID, { after: -2 }), 'after'],
				[() => client.getAgentEvents(AGENT_ID, { after: 0.5 }), 'after'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			assert.throws(() => client.streamRunEvents(AGENT_ID, 'run_1', { after: -5 }), ValidationError);
			assert.throws(() => client.streamRunEvents(AGENT_ID, 'bad run'), ValidationError);
			assert.throws(() => client.streamRunEvents('bad', 'run_1'), ValidationError);
			assert.equal(rec.requests.length, 0);
		});

		test('routes, query parameters and bodies (prompts trimmed, resume without a prompt sends {})', async () => {
			rec.answer((req) => (req.path.endsWith('/events') ? { body: { events: [] } } : { body: { id: 'run_1' } }));
			const slashAgent = '0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e/main';
			await client.listRuns(slashAgent, { limit: 5 });
			await client.createRun(AGENT_ID, { prompt: '  fix it  ', parent_run_id: 'run_0' });
			await client.getRun(AGENT_ID, 'run_1');
			await client.cancelRun(AGENT_ID, 'run_1');
			await client.resumeRun(AGENT_ID, 'run_1');
			await client.resumeRun(AGENT_ID, 'run_1', { prompt: ' more ' });
			await client.followUpRun(AGENT_ID, 'run_1', { prompt: ' steer ' });
			await client.getAgentEvents(AGENT_ID, { sessionId: 'sess_1', after: -1 });
			await client.getAgentEvents(AGENT_ID);
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[
					'GET /v2/agents/0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e%2Fmain/runs?limit=5',
					`POST /v2/agents/${AGENT_ID}/runs`,
					`GET /v2/agents/${AGENT_ID}/runs/run_1`,
					`DELETE /v2/agents/${AGENT_ID}/runs/run_1`,
					`POST /v2/agents/${AGENT_ID}/runs/run_1/resume`,
					`POST /v2/agents/${AGENT_ID}/runs/run_1/resume`,
					`POST /v2/agents/${AGENT_ID}/runs/run_1/follow-ups`,
					`GET /v2/agents/${AGENT_ID}/events?session_id=sess_1&after=-1`,
					`GET /v2/agents/${AGENT_ID}/events`,
				],
			);
			assert.deepEqual(rec.requests[1]?.body, { prompt: 'fix it', parent_run_id: 'run_0' });
			assert.deepEqual(rec.requests[4]?.body, {});
			assert.deepEqual(rec.requests[5]?.body, { prompt: 'more' });
			assert.deepEqual(rec.requests[6]?.body, { prompt: 'steer' });
		});

		test('listRuns takes the documented bare array, or runs under runs or data; records without an id are dropped', async () => {
			const runs = [{ id: 'r1', status: 'done' }, { status: 'no id' }, { id: 'r2' }];
			for (const body of [runs, { runs }, { data: runs }]) {
				rec.answer(() => ({ body }));
				assert.deepEqual(
					(await client.listRuns(AGENT_ID)).map((r) => r.id),
					['r1', 'r2'],
					JSON.stringify(body),
				);
			}
		});

		test('getAgentEvents fills a missing agent and session id and drops items that are not events', async () => {
			rec.answer(() => ({
				body: {
					events: [
						{ seq: 0, type: 'run.started', run_id: 'run_1' },
						{ type: 'no sequence' },
						{ sequence: 2, event: 'log', run_id: '..' },
						{ seq: -1, type: 'negative' },
						'text',
					],
					extra: 'kept',
				},
			}));
			const result = await client.getAgentEvents(AGENT_ID);
			assert.equal(result.agent_id, AGENT_ID);
			assert.equal(result.session_id, '');
			assert.equal((result as unknown as Record<string, unknown>).extra, 'kept');
			assert.deepEqual(
				result.events.map((e) => [e.seq, e.type, e.run_id]),
				[
					[0, 'run.started', 'run_1'],
					[2, 'log', undefined],
				],
			);
			rec.answer(() => ({ body: { agent_id: 'other', session_id: 'sess_9', events: 'none' } }));
			const other = await client.getAgentEvents(AGENT_ID);
			assert.deepEqual([other.agent_id, other.session_id, other.events], ['other', 'sess_9', []]);
		});

		test('createRun after a 504 finds its run by prompt, parent and time; a resume or follow-up after a 504 is OutcomeUnknownError', async () => {
			const now = new Date().toISOString();
			let listed: unknown[] = [];
			rec.answer((req) => (req.method === 'POST' ? { status: 504, body: {} } : { body: listed }));
			listed = [
				{ id: 'other-prompt', prompt: 'something else', created_at: now, parent_run_id: 'run_0' },
				{ id: 'other-parent', prompt: 'fix it', created_at: now, parent_run_id: 'run_x' },
				{ id: 'old', prompt: 'fix it', created_at: '2020-01-01T00:00:00Z', parent_run_id: 'run_0' },
				{ id: 'mine', prompt: ' fix it ', created_at: now, parent_run_id: 'run_0' },
			];
			assert.equal((await client.createRun(AGENT_ID, { prompt: 'fix it', parent_run_id: 'run_0' })).id, 'mine');
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[`POST /v2/agents/${AGENT_ID}/runs`, `GET /v2/agents/${AGENT_ID}/runs?limit=20`],
			);
			for (const call of [
				() => client.resumeRun(AGENT_ID, 'run_1'),
				() => client.followUpRun(AGENT_ID, 'run_1', { prompt: 'steer' }),
			]) {
				const err = await rejection(call);
				assert.ok(err instanceof OutcomeUnknownError);
				assert.equal(err.resource, 'run');
			}
			assert.equal(rec.requests.filter((r) => r.method === 'POST').length, 3, 'nothing sent twice');
		});

		test('cancelRun, an idempotent DELETE, is retried after a 503', async () => {
			const retrying = rec.client({ maxAttempts: 2, minDelayMs: 1, baseDelayMs: 1, maxDelayMs: 1 });
			rec.answer((_req, i) => (i === 0 ? { status: 503, body: {} } : { body: { id: 'run_1', status: 'cancelled' } }));
			assert.equal((await retrying.cancelRun(AGENT_ID, 'run_1')).status, 'cancelled');
			assert.equal(rec.requests.length, 2);
		});
	});
});
