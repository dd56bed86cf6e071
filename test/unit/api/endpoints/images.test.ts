/**
 * src/api/endpoints/images.ts: images, image builds (paging with `after`, the idempotency key sent
 * under both header names and kept across a retry) and checkpoints (paging), against the emulator
 * and a recording loopback server.
 */
import * as assert from 'node:assert/strict';
import { ApiError, ValidationError } from '../../../../src/api/errors';
import type { CloudAgentsClient } from '../../../../src/api/client';
import { type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

suite('api/endpoints/images', () => {
	suite('against the emulator', () => {
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ client } = s));

		test('images are listed; deleting a built-in or an unknown image is refused by the service', async () => {
			const images = (await client.listImages()) as Array<Record<string, unknown>>;
			assert.ok(images.some((i) => i.id === 'img_custom_python_ml'));
			const builtin = images.find((i) => i.kind === 'builtin');
			assert.ok(builtin);
			const conflict = await rejection(() => client.deleteImage(String(builtin.id)));
			assert.ok(conflict instanceof ApiError);
			assert.equal(conflict.status, 409);
			const missing = await rejection(() => client.deleteImage('img_nothing_here'));
			assert.ok(missing instanceof ApiError);
			assert.equal(missing.status, 404);
		});

		test('builds page by page with `after` and iterate to the same list; one is read by id', async () => {
			const all: string[] = [];
			let cursor: string | undefined;
			do {
				const page = await client.listImageBuilds({ limit: 1, cursor });
				assert.ok(page.items.length <= 1);
				all.push(...page.items.map((b) => (b as { id: string }).id));
				cursor = page.nextCursor;
			} while (cursor);
			assert.ok(all.length >= 3);
			const iterated: string[] = [];
			for await (const b of client.iterateImageBuilds({ limit: 2 })) {
				iterated.push((b as { id: string }).id);
			}
			assert.deepEqual(iterated, all);
			const one = (await client.getImageBuild(all[0]!)) as Record<string, unknown>;
			assert.equal(one.id, all[0]);
		});

		test('a build created twice with one idempotency key is one build', async () => {
			const request = { display_name: 'Unit image', dockerfile: 'FROM scratch\n' };
			const a = (await client.createImageBuild(request, { idempotencyKey: 'unit-key-1' })) as { id: string };
			const b = (await client.createImageBuild(request, { idempotencyKey: 'unit-key-1' })) as { id: string };
			assert.equal(b.id, a.id);
			const c = (await client.createImageBuild(request)) as { id: string };
			assert.notEqual(c.id, a.id, 'a generated key makes a new build');
		});

		test('checkpoints page through every one once', async () => {
			const seen: string[] = [];
			for await (const c of client.iterateCheckpoints({ limit: 2 })) {
				seen.push((c as { id: string }).id);
			}
			assert.ok(seen.length >= 5);
			assert.equal(new Set(seen).size, seen.length);
			const first = await client.listCheckpoints({ limit: 2 });
			assert.deepEqual(
				first.items.map((c) => (c as { id: string }).id),
				seen.slice(0, 2),
			);
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('limits outside 1–100 and bad ids are refused before sending', async () => {
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.listImageBuilds({ limit: 0 }), 'limit'],
				[() => client.listImageBuilds({ limit: 101 }), 'limit'],
				[() => client.listCheckpoints({ limit: -1 }), 'limit'],
				[() => client.listCheckpoints({ limit: 1.5 }), 'limit'],
				[() => client.getImageBuild(''), 'buildId'],
				[() => client.deleteImage('img\r'), 'imageId'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			assert.throws(() => client.iterateImageBuilds({ limit: 1000 }), ValidationError);
			assert.throws(() => client.iterateCheckpoints({ limit: 0 }), ValidationError);
			assert.equal(rec.requests.length, 0);
		});

		test('routes, encoded ids and query parameters', async () => {
			rec.answer(() => ({ body: { data: [] } }));
			await client.listImages();
			await client.deleteImage('img/1');
			await client.getImageBuild('b 1');
			await client.listImageBuilds({ limit: 10, cursor: 'c&d' });
			await client.listImageBuilds();
			await client.listCheckpoints({ limit: 3 });
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[
					'GET /v2/images',
					'DELETE /v2/images/img%2F1',
					'GET /v2/images/builds/b%201',
					'GET /v2/images/builds?limit=10&after=c%26d',
					'GET /v2/images/builds',
					'GET /v2/checkpoints?limit=3',
				],
			);
		});

		test('the idempotency key goes under both names, generated (a UUID) unless given, and is the same on a retry', async () => {
			await client.createImageBuild({ display_name: 'x', dockerfile: 'FROM a' }, { idempotencyKey: 'given-key' });
			await client.createImageBuild({ display_name: 'x', dockerfile: 'FROM a' });
			await client.createImageBuild({ display_name: 'x', dockerfile: 'FROM a' });
			const [given, gen1, gen2] = rec.requests;
			assert.equal(given?.headers['idempotency-key'], 'given-key');
			assert.equal(given?.headers['x-idempotency-key'], 'given-key');
			assert.deepEqual(given?.body, { display_name: 'x', dockerfile: 'FROM a' });
			assert.match(String(gen1?.headers['idempotency-key']), UUID);
			assert.equal(gen1?.headers['x-idempotency-key'], gen1?.headers['idempotency-key']);
			assert.notEqual(gen2?.headers['idempotency-key'], gen1?.headers['idempotency-key']);

			rec.reset();
			const retrying = rec.client({ maxAttempts: 3, minDelayMs: 1, baseDelayMs: 1, maxDelayMs: 1 });
			rec.answer((_req, i) => (i < 2 ? { status: 503, body: {} } : { body: { data: { id: 'build-1', status: 'pending' } } }));
			assert.deepEqual(await retrying.createImageBuild({ display_name: 'x', dockerfile: 'FROM a' }), {
				id: 'build-1',
				status: 'pending',
			});
			assert.equal(rec.requests.length, 3, 'the create is retried like a read');
			assert.equal(new Set(rec.requests.map((r) => r.headers['idempotency-key'])).size, 1);
		});

		test('pages are read from data or data.builds, the cursor only while has_more is not false', async () => {
			const builds = [{ id: 'b1' }, { id: 'b2' }];
			const cases: Array<[unknown, number, string | undefined]> = [
				[{ data: builds, pagination: { next_cursor: 'n1', has_more: true } }, 2, 'n1'],
				[{ data: { builds, pagination: { next_cursor: 'n2' } } }, 2, 'n2'],
				[{ data: builds, pagination: { next_cursor: 'n3', has_more: false } }, 2, undefined],
				[{ data: builds, pagination: { next_cursor: null, has_more: false } }, 2, undefined],
				[{ data: 'nothing' }, 0, undefined],
			];
			for (const [body, count, next] of cases) {
				rec.answer(() => ({ body }));
				const page = await client.listImageBuilds();
				assert.equal(page.items.length, count, JSON.stringify(body));
				assert.equal(page.nextCursor, next, JSON.stringify(body));
			}
			rec.answer(() => ({ body: { data: { images: [{ id: 'i1' }] } } }));
			assert.deepEqual(await client.listImages(), [{ id: 'i1' }]);
			rec.answer(() => ({ body: { data: { id: 'b9' } } }));
			assert.deepEqual(await client.getImageBuild('b9'), { id: 'b9' });
		});

		test('a checkpoint listing that repeats its first page for every cursor parameter stops with cursor_ignored', async () => {
			rec.answer(() => ({ body: { data: [{ id: 'cp1' }], pagination: { next_cursor: 'x', has_more: true } } }));
			await client.listCheckpoints();
			const err = await rejection(() => client.listCheckpoints({ cursor: 'x' }));
			assert.ok(err instanceof ApiError);
			assert.equal((err as ApiError & { reason?: string }).reason, 'cursor_ignored');
			assert.equal(rec.requests.length, 1 + 7);
		});
	});
});
