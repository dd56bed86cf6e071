/**
 * src/api/endpoints/runtimes.ts: the runtime listing (status filter, `after` paging), resume with
 * an expected revision, VNC credentials and detaching an SSH key, against the emulator and a
 * recording loopback server.
 */
import * as assert from 'node:assert/strict';
import { ApiError, OutcomeUnknownError, ValidationError } from '../../../../src/api/errors';
import type { CloudAgentsClient } from '../../../../src/api/client';
import type { Runtime } from '../../../../src/api/types';
import { type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

suite('api/endpoints/runtimes', () => {
	suite('against the emulator', () => {
		let client: CloudAgentsClient;
		let all: Runtime[];

		emulatorSuite(async (s) => {
			({ client } = s);
			all = [];
			for await (const r of client.iterateRuntimes({ limit: 3 })) {
				all.push(r);
			}
		});

		test('pages of three walk all eight runtimes once; the status filter selects', async () => {
			assert.equal(all.length, 8);
			assert.equal(new Set(all.map((r) => r.id)).size, 8);
			const first = await client.listRuntimes({ limit: 3 });
			assert.equal(first.items.length, 3);
			assert.ok(first.nextCursor);
			const paused = await client.listRuntimes({ status: ['paused'] });
			assert.deepEqual(
				paused.items.map((r) => r.display_name),
				['cobalt-sandbox'],
			);
			const two = await client.listRuntimes({ status: ['paused', 'suspended'] });
			assert.deepEqual(two.items.map((r) => r.display_name).sort(), ['cobalt-sandbox', 'ember-nightly']);
		});

		test('resume with a stale revision is a conflict; with the current one the runtime comes back', async () => {
			const cobalt = all.find((r) => r.display_name === 'cobalt-sandbox')!;
			const stale = await rejection(() => client.resumeRuntime(cobalt.id, { expectedRevision: cobalt.revision + 10 }));
			assert.ok(stale instanceof ApiError && !(stale instanceof OutcomeUnknownError));
			assert.equal(stale.status, 409);
			const resumed = await client.resumeRuntime(cobalt.id, { expectedRevision: cobalt.revision });
			assert.equal(resumed.id, cobalt.id);
			assert.ok(resumed.revision > cobalt.revision);
		});

		test('VNC credentials of atlas-dev are listed; an SSH key is detached at the current revision', async () => {
			const atlas = all.find((r) => r.display_name === 'atlas-dev')!;
			const creds = (await client.listVncCredentials(atlas.id)) as Array<Record<string, unknown>>;
			assert.ok(creds.length > 0);
			assert.ok(creds.every((c) => typeof c.id === 'string' && typeof c.display_name === 'string'));
			const withKey = all.find((r) => r.can_manage === true && (r.ssh_keys as unknown[] | undefined)?.length);
			assert.ok(withKey, 'a seeded runtime of ours has an SSH key');
			const key = (withKey.ssh_keys as Array<{ id: string }>)[0]!;
			const detached = (await client.detachRuntimeSshKey(withKey.id, key.id, { expectedRevision: withKey.revision })) as {
				id: string;
			};
			assert.equal(detached.id, key.id);
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('bad limits, ids and revisions are refused before sending; detaching needs a revision', async () => {
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.listRuntimes({ limit: 0 }), 'limit'],
				[() => client.listRuntimes({ limit: 101 }), 'limit'],
				[() => client.resumeRuntime(''), 'runtimeId'],
				[() => client.resumeRuntime('rt', { expectedRevision: 0 }), 'expectedRevision'],
				[() => client.resumeRuntime('rt', { expectedRevision: 1.5 }), 'expectedRevision'],
				[() => client.listVncCredentials('rt\u0000'), 'runtimeId'],
				[() => client.detachRuntimeSshKey('rt', '', { expectedRevision: 1 }), 'sshKeyId'],
				[() => client.detachRuntimeSshKey('rt', 'k', {} as never), 'expectedRevision'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			assert.throws(() => client.iterateRuntimes({ limit: 500 }), ValidationError);
			assert.equal(rec.requests.length, 0);
		});

		test('routes, encoded ids and query parameters', async () => {
			rec.answer(() => ({ body: { data: { id: 'rt 1' } } }));
			await client.listRuntimes({ status: ['running', 'paused'], limit: 10, cursor: 'c/1' });
			await client.listRuntimes();
			await client.resumeRuntime('atlas dev', { expectedRevision: 4 });
			await client.resumeRuntime('rt/1');
			await client.listVncCredentials('rt?1');
			await client.detachRuntimeSshKey('rt#1', 'key 1', { expectedRevision: 2 });
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[
					'GET /v2/runtimes?status=running%2Cpaused&limit=10&after=c%2F1',
					'GET /v2/runtimes',
					'POST /v2/runtimes/atlas%20dev/resume?expected_revision=4',
					'POST /v2/runtimes/rt%2F1/resume',
					'GET /v2/runtimes/rt%3F1/vnc-credentials',
					'DELETE /v2/runtimes/rt%231/ssh-keys/key%201?expected_revision=2',
				],
			);
		});

		test('a listing drops records without an id and follows has_more', async () => {
			rec.answer(() => ({
				body: {
					data: [{ id: 'r1', status: 'running' }, { status: 'no id' }, { id: 'r2' }],
					pagination: { next_cursor: 'n', has_more: true },
				},
			}));
			const page = await client.listRuntimes();
			assert.deepEqual(
				page.items.map((r) => r.id),
				['r1', 'r2'],
			);
			assert.equal(page.nextCursor, 'n');
			rec.answer(() => ({ body: { data: [{ id: 'r1' }], pagination: { next_cursor: 'n', has_more: false } } }));
			assert.equal((await client.listRuntimes()).nextCursor, undefined);
		});

		test('resume unwraps data; VNC credentials and a detached key are read from data', async () => {
			rec.answer(() => ({ body: { data: { id: 'rt1', revision: 5, status: 'running' } } }));
			const r = await client.resumeRuntime('rt1');
			assert.deepEqual([r.id, r.revision, r.status], ['rt1', 5, 'running']);
			rec.answer(() => ({ body: { data: [{ id: 'v1' }, { id: 'v2' }] } }));
			assert.equal((await client.listVncCredentials('rt1')).length, 2);
			rec.answer(() => ({ body: { data: { id: 'k1' } } }));
			assert.deepEqual(await client.detachRuntimeSshKey('rt1', 'k1', { expectedRevision: 1 }), { id: 'k1' });
			rec.answer(() => ({ body: { data: { revision: 5 } } }));
			const noId = await rejection(() => client.resumeRuntime('rt1'));
			assert.ok(noId instanceof ApiError);
			assert.match(noId.message, /runtime\.id/);
		});

		test('a resume that gets no answer is OutcomeUnknownError and is not sent twice', async () => {
			const retrying = rec.client({ maxAttempts: 3, minDelayMs: 1, baseDelayMs: 1, maxDelayMs: 1 });
			rec.answer(() => ({ status: 504, body: {} }));
			const err = await rejection(() => retrying.resumeRuntime('rt1', { expectedRevision: 3 }));
			assert.ok(err instanceof OutcomeUnknownError);
			assert.equal(err.resource, 'runtime resume');
			assert.equal(rec.requests.length, 1);
		});
	});
});
