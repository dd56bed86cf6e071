/**
 * src/api/endpoints/artifacts.ts: list, create (checked before sending, reconciled after an
 * ambiguous failure), read with content (decoded and checked against its size) and delete, against
 * the emulator and a recording loopback server.
 */
import * as assert from 'node:assert/strict';
import { ApiError, OutcomeUnknownError, ValidationError } from '../../../../src/api/errors';
import { InvalidResponseError } from '../../../../src/api/decode';
import { LIMITS } from '../../../../src/base/limits';
import type { CloudAgentsClient } from '../../../../src/api/client';
import { AGENT_ID, type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

const b64 = (text: string): string => Buffer.from(text).toString('base64');

suite('api/endpoints/artifacts', () => {
	suite('against the emulator', () => {
		let client: CloudAgentsClient;
		let agentId: string;
		let runId: string;

		emulatorSuite(async (s) => {
			({ client } = s);
			const billing = (await client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Refactor billing module');
			assert.ok(billing);
			agentId = billing.id;
			runId = (await client.listRuns(agentId, { limit: 1 }))[0]!.id;
		});

		test("the billing agent's artifacts are listed; one read with content matches its size", async () => {
			const list = await client.listArtifacts(agentId);
			assert.deepEqual(list.map((a) => a.name).sort(), ['coverage-chart.png', 'pr-summary.md', 'public-functions.txt']);
			assert.ok(
				list.every((a) => a.content_base64 === undefined),
				'no content in the listing',
			);
			const txt = list.find((a) => a.name === 'public-functions.txt')!;
			const { artifact, content } = await client.readArtifactContent(agentId, txt.id);
			assert.equal(artifact.id, txt.id);
			assert.equal(Buffer.from(content).toString(), 'createInvoice\nroundInvoice\napplyDiscount\nvoidInvoice\n');
			assert.equal(content.byteLength, txt.size);
			const meta = await client.getArtifact(agentId, txt.id);
			assert.equal(meta.content_base64, undefined);
		});

		test('create, read back byte for byte, delete, and the artifact is gone', async () => {
			const bytes = new Uint8Array([0, 1, 2, 254, 255, 10, 13]);
			const created = await client.createArtifact(agentId, {
				run_id: runId,
				name: 'unit.bin',
				media_type: 'application/octet-stream',
				content: bytes,
			});
			assert.equal(created.name, 'unit.bin');
			assert.equal(created.size, bytes.byteLength);
			const { content } = await client.readArtifactContent(agentId, created.id);
			assert.deepEqual([...content], [...bytes]);
			await client.deleteArtifact(agentId, created.id);
			const gone = await rejection(() => client.getArtifact(agentId, created.id));
			assert.ok(gone instanceof ApiError);
			assert.equal(gone.status, 404);
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('bad agent ids, run ids, names, artifact ids and oversize content are refused before sending', async () => {
			const ok = { run_id: 'run_1', name: 'a.txt', content: new Uint8Array(1) };
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.listArtifacts('nope'), 'agentId'],
				[() => client.createArtifact(AGENT_ID, { ...ok, run_id: 'run 1' }), 'run_id'],
				[() => client.createArtifact(AGENT_ID, { ...ok, name: '.hidden' }), 'name'],
				[() => client.createArtifact(AGENT_ID, { ...ok, name: 'a/b.txt' }), 'name'],
				[() => client.createArtifact(AGENT_ID, { ...ok, name: 'x'.repeat(256) }), 'name'],
				[() => client.createArtifact(AGENT_ID, { ...ok, content: new Uint8Array(LIMITS.writeBytes + 1) }), 'content'],
				[() => client.getArtifact(AGENT_ID, ''), 'artifactId'],
				[() => client.deleteArtifact(AGENT_ID, 'a\u0000b'), 'artifactId'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			// `..` passes the opaque-id check but never goes into a route (it would address the agent).
			const dots = await rejection(() => client.deleteArtifact(AGENT_ID, '..'));
			assert.ok(dots instanceof ValidationError);
			assert.equal(rec.requests.length, 0);
		});

		test('the create body carries the content in base64; ids are encoded; content is asked for both ways', async () => {
			rec.answer((req) => (req.method === 'DELETE' ? { status: 204 } : { body: { id: 'art 1', name: 'a.txt', size: 3 } }));
			await client.createArtifact(AGENT_ID, {
				run_id: 'run_1',
				name: 'a.txt',
				media_type: 'text/plain',
				content: new Uint8Array([104, 105, 33]),
			});
			await client.getArtifact(AGENT_ID, 'art 1/x');
			await client.getArtifact(AGENT_ID, 'art#1', { includeContent: true });
			await client.deleteArtifact(AGENT_ID, 'art?1');
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[
					`POST /v2/agents/${AGENT_ID}/artifacts`,
					`GET /v2/agents/${AGENT_ID}/artifacts/art%201%2Fx`,
					`GET /v2/agents/${AGENT_ID}/artifacts/art%231?include_content=true&include=content`,
					`DELETE /v2/agents/${AGENT_ID}/artifacts/art%3F1`,
				],
			);
			assert.deepEqual(rec.requests[0]?.body, { run_id: 'run_1', name: 'a.txt', media_type: 'text/plain', content_base64: 'aGkh' });
		});

		test('listArtifacts reads a bare array or one under artifacts or data, dropping records without an id or with a negative size', async () => {
			const items = [{ id: 'a1', name: 'x.txt' }, { name: 'no id' }, { id: 'a2', size: -1 }, { id: 'a3', size: 3 }];
			for (const body of [items, { artifacts: items }, { data: items }, { data: { artifacts: items } }]) {
				rec.answer(() => ({ body }));
				const list = await client.listArtifacts(AGENT_ID);
				assert.deepEqual(
					list.map((a) => a.id),
					['a1', 'a3'],
					JSON.stringify(body),
				);
				assert.equal(list[1]?.size, 3);
			}
		});

		test('readArtifactContent refuses content that is not strict base64 or does not match the size', async () => {
			rec.answer(() => ({ body: { id: 'a', size: 5, content_base64: b64('hello') } }));
			assert.equal(Buffer.from((await client.readArtifactContent(AGENT_ID, 'a')).content).toString(), 'hello');
			rec.answer(() => ({ body: { id: 'a', content_base64: b64('no size given') } }));
			assert.equal((await client.readArtifactContent(AGENT_ID, 'a')).content.byteLength, 13);
			rec.answer(() => ({ body: { id: 'a', size: 4, content_base64: b64('hello') } }));
			const wrongSize = await rejection(() => client.readArtifactContent(AGENT_ID, 'a'));
			assert.ok(wrongSize instanceof InvalidResponseError);
			assert.equal(wrongSize.field, 'artifact.size');
			for (const content_base64 of ['aGVsbG8', 'aGV sbG8=', 'aGVs*G8=']) {
				rec.answer(() => ({ body: { id: 'a', content_base64 } }));
				const bad = await rejection(() => client.readArtifactContent(AGENT_ID, 'a'));
				assert.ok(bad instanceof InvalidResponseError, content_base64);
				assert.equal(bad.field, 'artifact.content_base64');
			}
			rec.answer(() => ({ body: { id: 'a', size: 0 } }));
			assert.equal((await client.readArtifactContent(AGENT_ID, 'a')).content.byteLength, 0, 'no content member: empty');
		});

		test('createArtifact after a 504 looks for the artifact by name, run and size instead of sending again', async () => {
			let listed: unknown[] = [];
			rec.answer((req) => (req.method === 'POST' ? { status: 504, body: {} } : { body: listed }));
			const now = new Date().toISOString();
			listed = [
				{ id: 'other-run', name: 'a.txt', run_id: 'run_2', size: 3, created_at: now },
				{ id: 'other-size', name: 'a.txt', run_id: 'run_1', size: 4, created_at: now },
				{ id: 'old', name: 'a.txt', run_id: 'run_1', size: 3, created_at: '2020-01-01T00:00:00Z' },
				{ id: 'mine', name: 'a.txt', run_id: 'run_1', size: 3, created_at: now },
			];
			const request = { run_id: 'run_1', name: 'a.txt', content: new Uint8Array(3) };
			assert.equal((await client.createArtifact(AGENT_ID, request)).id, 'mine');
			assert.deepEqual(
				rec.requests.map((r) => r.method),
				['POST', 'GET'],
			);
			listed = [];
			const none = await rejection(() => client.createArtifact(AGENT_ID, request));
			assert.ok(none instanceof OutcomeUnknownError);
			assert.equal(none.resource, 'artifact');
			// The lookup itself failing is OutcomeUnknownError too, with the lookup's error as cause.
			rec.answer(() => ({ status: 504, body: {} }));
			const blind = await rejection(() => client.createArtifact(AGENT_ID, request));
			assert.ok(blind instanceof OutcomeUnknownError);
			assert.match(blind.message, /checking whether it was created failed too/);
			assert.ok(blind.cause instanceof ApiError);
		});
	});
});
