/**
 * src/api/endpoints/agents.ts: listing (page size, cursor parameter found per server), create with
 * reconciliation, read, rename, delete and computer sessions, against the emulator (both profiles
 * where paging differs) and a recording loopback server (encoded ids, query parameters, bodies,
 * answers the emulator never gives).
 */
import * as assert from 'node:assert/strict';
import { ApiError, OutcomeUnknownError, ValidationError } from '../../../../src/api/errors';
import { ListingStoppedError } from '../../../../src/api/pagination';
import { SAFETY } from '../../../../src/base/limits';
import type { CloudAgentsClient } from '../../../../src/api/client';
import type { TestEmulator } from '../../support/emulator';
import { AGENT_ID, type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

suite('api/endpoints/agents', () => {
	suite('against the emulator (standard)', () => {
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ client } = s));

		test('pages of two walk every agent once, newest first; iterateAgents yields the same', async () => {
			const first = await client.listAgents({ limit: 2 });
			assert.equal(first.items.length, 2);
			assert.ok(first.nextCursor);
			const ids = first.items.map((a) => a.id);
			let cursor: string | undefined = first.nextCursor;
			while (cursor) {
				const page = await client.listAgents({ limit: 2, cursor });
				ids.push(...page.items.map((a) => a.id));
				cursor = page.nextCursor;
			}
			assert.equal(ids.length, 7);
			assert.equal(new Set(ids).size, 7);
			const iterated: string[] = [];
			for await (const agent of client.iterateAgents({ limit: 3 })) {
				iterated.push(agent.id);
			}
			assert.deepEqual(iterated, ids);
		});

		test('create (name trimmed), get, rename, delete with and without the runtime', async () => {
			const created = await client.createAgent({ name: '  Unit agent  ' });
			assert.equal(created.name, 'Unit agent');
			assert.equal((await client.getAgent(created.id)).id, created.id);
			const renamed = await client.renameAgent(created.id, '\tRenamed agent ');
			assert.equal(renamed.name, 'Renamed agent');
			assert.equal((await client.getAgent(created.id)).name, 'Renamed agent');
			const result = await client.deleteAgent(created.id, { deleteRuntime: true });
			assert.equal(result.runtimeDeletionRequested, true);
			const missing = await rejection(() => client.getAgent(created.id));
			assert.ok(missing instanceof ApiError);
			assert.equal(missing.status, 404);
		});

		test('a computer session of the billing agent carries its VNC channel', async () => {
			const billing = (await client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Refactor billing module');
			assert.ok(billing);
			const session = (await client.createComputerSession(billing.id)) as Record<string, unknown>;
			assert.equal(session.agent_id, billing.id);
			const vnc = (session.channels as { vnc: { websocket_url: string; protocols: string[] } }).vnc;
			assert.match(vnc.websocket_url, /^wss?:\/\//);
			assert.ok(Array.isArray(vnc.protocols) && vnc.protocols.length > 0);
		});
	});

	suite('against the emulator (variant: another cursor parameter, ids with ":")', () => {
		let emu: TestEmulator;
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ emu, client } = s), { profile: 'variant' });

		test('the cursor parameter the server reads is found once and remembered', async () => {
			const first = await client.listAgents({ limit: 3 });
			assert.ok(first.nextCursor);
			await emu.admin('POST', '/counters/reset');
			const second = await client.listAgents({ limit: 3, cursor: first.nextCursor });
			assert.equal(second.items.length, 3);
			assert.ok(second.items.every((a) => !first.items.some((b) => b.id === a.id)));
			const afterFinding = (await emu.counters()).requests.by_route['GET /v2/agents'] ?? 0;
			assert.ok(afterFinding >= 2, `the ignored "cursor" and the one that works: ${afterFinding}`);
			await client.listAgents({ limit: 3, cursor: second.nextCursor });
			assert.equal((await emu.counters()).requests.by_route['GET /v2/agents'], afterFinding + 1, 'one request once found');
		});

		test('an agent id with its ":" separator goes as one encoded segment', async () => {
			const agent = (await client.listAgents({ limit: 1 })).items[0];
			assert.ok(agent);
			assert.ok(agent.id.includes(':'));
			assert.equal((await client.getAgent(agent.id)).id, agent.id);
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('bad ids, names, harness ids and limits are refused before anything is sent', async () => {
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.getAgent('not-an-agent-id'), 'agentId'],
				[() => client.getAgent(''), 'agentId'],
				[() => client.renameAgent(AGENT_ID, '   '), 'name'],
				[() => client.renameAgent(AGENT_ID, 'x'.repeat(256)), 'name'],
				[() => client.deleteAgent('../v2/me'), 'agentId'],
				[() => client.createComputerSession(`${AGENT_ID}\n`), 'agentId'],
				[() => client.createAgent({ name: '' }), 'name'],
				[() => client.createAgent({ name: 'ok', harness_id: 'bad harness' }), 'harness_id'],
				[() => client.listAgents({ limit: 0 }), 'limit'],
				[() => client.listAgents({ limit: 101 }), 'limit'],
				[() => client.listAgents({ limit: 2.5 }), 'limit'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			assert.throws(() => client.iterateAgents({ limit: 101 }), ValidationError);
			assert.equal(rec.requests.length, 0);
			// 255 UTF-8 bytes is the longest name.
			rec.answer(() => ({ body: { id: AGENT_ID, name: 'é'.repeat(127) + 'x' } }));
			await client.renameAgent(AGENT_ID, 'é'.repeat(127) + 'x');
			assert.equal(rec.requests.length, 1);
		});

		test('ids go as one percent-encoded segment; methods, bodies and query are as documented', async () => {
			const slashId = '0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e/main';
			rec.answer((req) => (req.method === 'DELETE' ? { status: 204 } : { body: { id: slashId, name: 'n' } }));
			await client.getAgent(slashId);
			await client.renameAgent('0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e?main', ' new name ');
			await client.deleteAgent(AGENT_ID);
			await client.deleteAgent(AGENT_ID, { deleteRuntime: true });
			await client.listAgents({ limit: 5 });
			await client.listAgents();
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[
					'GET /v2/agents/0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e%2Fmain',
					'PATCH /v2/agents/0b6c3c1e-7f4a-4d55-9d7e-2f1a4b5c6d7e%3Fmain',
					`DELETE /v2/agents/${AGENT_ID}`,
					`DELETE /v2/agents/${AGENT_ID}?delete_runtime=true`,
					'GET /v2/agents?limit=5',
					'GET /v2/agents',
				],
			);
			assert.deepEqual(rec.requests[1]?.body, { name: 'new name' });
		});

		test('deleteAgent reads 202 as runtime deletion requested and keeps the members it knows', async () => {
			rec.answer(() => ({ status: 202, body: { runtime_id: 'rt-1', status: 'deleting', other: true } }));
			assert.deepEqual(await client.deleteAgent(AGENT_ID, { deleteRuntime: true }), {
				runtimeDeletionRequested: true,
				runtime_id: 'rt-1',
				status: 'deleting',
			});
			rec.answer(() => ({ status: 200, body: { runtime_id: 7, status: null } }));
			assert.deepEqual(await client.deleteAgent(AGENT_ID), {
				runtimeDeletionRequested: false,
				runtime_id: undefined,
				status: undefined,
			});
		});

		test('a listing is read from agents or data.agents; bad records are dropped; the next cursor from any spelling', async () => {
			const agents = [{ id: 'a1', name: 'one' }, { name: 'no id' }, 'junk', { id: 'a2' }];
			const bodies: Array<[unknown, string | undefined]> = [
				[{ agents, next_cursor: 'c1' }, 'c1'],
				[{ data: { agents }, next_page_token: 'c2' }, 'c2'],
				[{ agents, pagination: { next_cursor: 'c3', has_more: true } }, 'c3'],
				[{ agents, pagination: { next_cursor: 'c4', has_more: false } }, undefined],
				[{ agents, next_cursor: '' }, undefined],
				// Another server's choice: the agents as a bare array (as the other listings read it).
				[agents, undefined],
			];
			for (const [body, next] of bodies) {
				rec.answer(() => ({ body }));
				const page = await client.listAgents();
				assert.deepEqual(
					page.items.map((a) => a.id),
					['a1', 'a2'],
					JSON.stringify(body),
				);
				assert.equal(page.nextCursor, next, JSON.stringify(body));
			}
			rec.answer(() => ({ body: { unexpected: true } }));
			assert.deepEqual(await client.listAgents(), { items: [], nextCursor: undefined });
		});

		test('a page of more items than SAFETY.pageMaxItems is refused', async () => {
			rec.answer(() => ({ body: { agents: Array.from({ length: SAFETY.pageMaxItems + 1 }, (_, i) => ({ id: `a${i}` })) } }));
			const err = await rejection(() => client.listAgents());
			assert.ok(err instanceof ApiError);
			assert.equal(err.code, 'response_too_large');
		});

		test('a server that ignores every cursor parameter: each name tried once, then cursor_ignored', async () => {
			rec.answer(() => ({ body: { agents: [{ id: 'a1' }], next_cursor: 'c1' } }));
			const first = await client.listAgents({ limit: 1 });
			assert.equal(first.nextCursor, 'c1');
			const err = await rejection(() => client.listAgents({ limit: 1, cursor: 'c1' }));
			assert.ok(err instanceof ListingStoppedError);
			assert.equal(err.reason, 'cursor_ignored');
			const tried = rec.requests.slice(1).map((r) => [...r.query.keys()].filter((k) => k !== 'limit'));
			assert.deepEqual(tried, [
				['cursor'],
				['page_token'],
				['after'],
				['next_cursor'],
				['starting_after'],
				['page'],
				['continuation_token'],
			]);
			assert.ok(rec.requests.slice(1).every((r) => [...r.query.values()].includes('c1')));
		});

		test('createAgent after a 504 is not sent again: the one matching agent is returned, none or two are OutcomeUnknownError', async () => {
			const now = Math.floor(Date.now() / 1000);
			let listed: unknown[] = [];
			rec.answer((req) =>
				req.method === 'POST'
					? { status: 504, body: { error: { code: 'deadline_exceeded', message: 'timed out' } } }
					: { body: { agents: listed } },
			);
			listed = [
				{ id: 'old', name: 'Mine', created_at_unix_seconds: now - 3600 },
				{ id: 'new', name: 'Mine', created_at_unix_seconds: now },
				{ id: 'other', name: 'Theirs', created_at_unix_seconds: now },
			];
			const found = await client.createAgent({ name: ' Mine ' });
			assert.equal(found.id, 'new');
			assert.deepEqual(
				rec.requests.map((r) => r.method),
				['POST', 'GET'],
			);
			assert.equal(rec.requests[1]?.query.get('limit'), '100');

			listed = [];
			const none = await rejection(() => client.createAgent({ name: 'Mine' }));
			assert.ok(none instanceof OutcomeUnknownError);
			assert.equal(none.resource, 'agent');
			assert.match(none.message, /no matching agent was found/);

			listed = [
				{ id: 'n1', name: 'Mine', created_at_unix_seconds: now },
				{ id: 'n2', name: 'Mine' },
			];
			const two = await rejection(() => client.createAgent({ name: 'Mine' }));
			assert.ok(two instanceof OutcomeUnknownError);
			assert.equal(two.candidates.length, 2);
			assert.equal(rec.requests.filter((r) => r.method === 'POST').length, 3, 'one POST per call');
		});

		test('createAgent after a plain refusal throws it unchanged, without looking', async () => {
			rec.answer(() => ({ status: 422, body: { error: { code: 'invalid_argument', message: 'bad provider' } } }));
			const err = await rejection(() => client.createAgent({ name: 'x' }));
			assert.ok(err instanceof ApiError && !(err instanceof OutcomeUnknownError));
			assert.equal(err.status, 422);
			assert.equal(rec.requests.length, 1);
		});

		test('a computer session after a 502 is OutcomeUnknownError, sent once', async () => {
			rec.answer(() => ({ status: 502, body: {} }));
			const err = await rejection(() => client.createComputerSession(AGENT_ID));
			assert.ok(err instanceof OutcomeUnknownError);
			assert.equal(err.resource, 'computer session');
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.path}`),
				[`POST /v2/agents/${AGENT_ID}/computer-sessions`],
			);
		});
	});
});
