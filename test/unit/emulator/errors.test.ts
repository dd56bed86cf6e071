/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/** Documented error paths: statuses, the envelope, and a message naming the field and the limit. */
import * as assert from 'node:assert/strict';
import type { RunningEmulator } from '../../../emulator/src/server';
import type { Client, Res } from './helpers';
import { b64, boot, READONLY_TOKEN, UUID_V7_RE } from './helpers';

const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

function assertEnvelope(r: Res, status: number, code: string, messageIncludes: (string | RegExp)[] = []): void {
	assert.equal(r.status, status, `expected ${status}, got ${r.status}: ${r.text}`);
	assert.equal(r.body.error.code, code, r.text);
	for (const m of messageIncludes) {
		if (typeof m === 'string') {
			assert.ok(r.body.error.message.includes(m), `message ${JSON.stringify(r.body.error.message)} should name ${m}`);
		} else assert.match(r.body.error.message, m);
	}
	const rid = r.headers.get('x-request-id');
	assert.ok(rid && UUID_V7_RE.test(rid), `X-Request-Id ${rid} is a UUID v7`);
	if (r.template?.startsWith('/v1/')) assert.equal(r.body.request_id, undefined);
	else assert.equal(r.body.request_id, rid);
}

suite('emulator: error paths', () => {
	let emu: RunningEmulator;
	let c: Client;
	let billing: string;
	let triage: string;
	let billingRun: string;
	const runtimes: Record<string, { id: string; revision: number }> = {};

	suiteSetup(async () => {
		({ emu, c } = await boot());
		const agents = (await c.get('/v2/agents?limit=100')).body.agents as { id: string; name: string }[];
		billing = agents.find((a) => a.name === 'Refactor billing module')!.id;
		triage = agents.find((a) => a.name === 'CI triage')!.id;
		billingRun = (await c.get(`/v2/agents/${billing}/runs?limit=1`)).body[0].id;
		for (const r of (await c.get('/v2/runtimes?limit=100')).body.data) runtimes[r.display_name] = r;
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	suite('401 unauthenticated', () => {
		test('missing bearer', async () => {
			const r = await c.get('/v2/agents', { token: null });
			assertEnvelope(r, 401, 'unauthenticated', ['missing']);
			assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
		});
		test('malformed Authorization header', async () => {
			for (const h of ['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer two words', 'ca_dev_0123456789abcdef']) {
				const r = await c.get('/v2/agents', { token: null, headers: { authorization: h } });
				assertEnvelope(r, 401, 'unauthenticated', ['malformed']);
			}
		});
		test('unknown token', async () => {
			assertEnvelope(await c.get('/v2/me', { token: 'ca_dev_wrong' }), 401, 'unauthenticated', ['rejected']);
		});
		test('revoked token', async () => {
			const start = await c.post('/v2/auth/device/authorization', { client_id: 't' }, { token: null });
			await c.admin('POST', '/device/approve', { user_code: start.body.user_code });
			const tok = (await c.post('/v2/auth/device/token', { device_code: start.body.device_code }, { token: null })).body.access_token;
			assert.equal((await c.del('/v2/auth/token', { token: tok })).status, 204);
			assertEnvelope(await c.get('/v2/me', { token: tok }), 401, 'unauthenticated', ['revoked']);
			assertEnvelope(await c.get('/v1/secret-stubs', { token: tok }), 401, 'unauthenticated', ['revoked']);
		});
	});

	suite('403 permission_denied', () => {
		test('read-only token: reads pass, mutations are refused', async () => {
			assert.equal((await c.get('/v2/agents', { token: READONLY_TOKEN })).status, 200);
			assert.equal(
				(await c.post(`/v2/agents/${billing}/workspace`, { op: 'stat', path: '' }, { token: READONLY_TOKEN })).status,
				200,
			);
			assertEnvelope(await c.post('/v2/agents', { name: 'x' }, { token: READONLY_TOKEN }), 403, 'permission_denied', ['read-only']);
			assertEnvelope(await c.patch(`/v2/agents/${billing}`, { name: 'x' }, { token: READONLY_TOKEN }), 403, 'permission_denied');
			assertEnvelope(
				await c.del('/v1/secret-stubs/00000000-0000-4000-8000-000000000000', { token: READONLY_TOKEN }),
				403,
				'permission_denied',
			);
			const rt = (await c.get('/v2/runtimes?limit=100', { token: READONLY_TOKEN })).body.data;
			assert.ok(
				rt.every((r: { can_manage: boolean }) => r.can_manage === false),
				'a read-only caller manages nothing',
			);
		});
		test('runtime with can_manage:false', async () => {
			const shared = runtimes['delta-shared']!;
			assert.equal((shared as unknown as { can_manage: boolean }).can_manage, false);
			assertEnvelope(await c.post(`/v2/runtimes/${shared.id}/resume`), 403, 'permission_denied', ['delta-shared', 'can_manage']);
			assertEnvelope(await c.put(`/v2/github/runtime-bindings/${shared.id}`, { repositories: [] }), 403, 'permission_denied');
			assertEnvelope(
				await c.post(`/v1/runtimes/${shared.id}/secret-stubs`, {
					host: 'h',
					config: { headerName: 'X' },
					stub_value: 'sentry-dsn',
				}),
				403,
				'permission_denied',
			);
		});
	});

	suite('404 and 405', () => {
		test('unknown resources', async () => {
			assertEnvelope(await c.get('/v2/agents/00000000-0000-4000-8000-000000000000.main'), 404, 'not_found', ['agent']);
			assertEnvelope(await c.get(`/v2/agents/${billing}/runs/run_nope`), 404, 'not_found', ['run_nope']);
			assertEnvelope(await c.get('/v2/secrets/no-such-secret'), 404, 'not_found');
			assertEnvelope(await c.get('/v1/runtimes/no-such-runtime/tokensaver/savings'), 404, 'not_found');
			assertEnvelope(await c.get('/v2/images/builds/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
		});
		test('unknown route: 404 envelope', async () => {
			const r = await c.get('/v2/nothing-here', { validate: false });
			assertEnvelope(r, 404, 'not_found', ['/v2/nothing-here']);
			const r2 = await c.get('/', { validate: false });
			assertEnvelope(r2, 404, 'not_found');
		});
		test('malformed URLs, over-long parameters, unsupported media types: envelopes, never a crash', async () => {
			assertEnvelope(await c.get('/v2/agents/%E0%A4%A', { validate: false }), 400, 'invalid_argument', ['malformed URL']);
			assertEnvelope(await c.get(`/v2/agents/${'a'.repeat(9000)}`, { validate: false }), 414, 'invalid_argument', ['path']);
			assertEnvelope(
				await c.call('POST', '/v2/agents', { raw: 'name=x', headers: { 'content-type': 'text/plain' } }),
				415,
				'invalid_argument',
				['Content-Type'],
			);
			assertEnvelope(await c.call('POST', '/v2/agents', { raw: '{"name":"x","__proto__":{"admin":true}}' }), 400, 'invalid_argument');
			assert.equal((await c.get('/healthz', { token: null })).status, 200, 'still alive');
		});
		test('wrong method: 405 envelope with Allow', async () => {
			const r = await c.call('PUT', '/v2/agents', { json: {}, validate: false });
			assertEnvelope(r, 405, 'unimplemented', ['PUT']);
			assert.equal(r.headers.get('allow'), 'GET, HEAD, POST');
		});
	});

	suite('409 conflicts', () => {
		test('a run while another run of the agent is active', async () => {
			const r = await c.post(`/v2/agents/${triage}/runs`, { prompt: 'another one' });
			assertEnvelope(r, 409, 'failed_precondition', ['active', 'running']);
		});
		test('expected_revision mismatch (resume and SSH key detach)', async () => {
			const cobalt = runtimes['cobalt-sandbox']!;
			assertEnvelope(
				await c.post(`/v2/runtimes/${cobalt.id}/resume?expected_revision=${cobalt.revision + 7}`),
				409,
				'failed_precondition',
				['expected_revision', String(cobalt.revision)],
			);
			const atlas = runtimes['atlas-dev']!;
			const key = (await c.get('/_emulator/state', { token: null, validate: false })).body.runtimes.find(
				(x: { id: string }) => x.id === atlas.id,
			).ssh_key_ids[0];
			assertEnvelope(await c.del(`/v2/runtimes/${atlas.id}/ssh-keys/${key}?expected_revision=1`), 409, 'failed_precondition', [
				'expected_revision',
			]);
			assertEnvelope(await c.del(`/v2/runtimes/${atlas.id}/ssh-keys/${key}`), 422, 'invalid_argument', [
				'expected_revision',
				'required',
			]);
		});
		test('resuming a runtime that is running; deleting a builtin or in-use image', async () => {
			assertEnvelope(await c.post(`/v2/runtimes/atlas-dev/resume`), 409, 'failed_precondition', ['running']);
			assertEnvelope(await c.del('/v2/images/img_standard_2025_11'), 409, 'failed_precondition', ['built in']);
			assertEnvelope(await c.del('/v2/images/img_custom_python_ml'), 409, 'failed_precondition', ['in use']);
		});
	});

	suite('400, 413 and 422 on bad input', function () {
		// The size limits send and parse bodies of tens of megabytes: seconds of CPU on a quiet machine,
		// far more while `npm test` runs the VS Code lanes beside the unit tests (one took over 30 s).
		this.timeout(180_000);
		test('malformed JSON → 400', async () => {
			assertEnvelope(await c.call('POST', '/v2/agents', { raw: '{"name": ' }), 400, 'invalid_argument', ['malformed JSON']);
			assertEnvelope(await c.call('POST', '/v1/runtimes/atlas-dev/secret-stubs', { raw: '{' }), 400, 'invalid_argument');
		});
		test('wrong types → 422 naming the field', async () => {
			assertEnvelope(await c.post('/v2/agents', { name: 123 }), 422, 'invalid_argument', ['name', 'string']);
			assertEnvelope(await c.post('/v2/agents', []), 422, 'invalid_argument', ['body', 'object']);
			assertEnvelope(
				await c.post('/v2/agents', { name: 'x', repositories: [{ repository_id: 'one', branch: 'main' }] }),
				422,
				'invalid_argument',
				['repositories[0].repository_id'],
			);
			assertEnvelope(await c.post(`/v2/agents/${billing}/workspace`, { op: 'rename' }), 422, 'invalid_argument', ['op', 'list']);
			assertEnvelope(await c.post('/v2/agents'), 422, 'invalid_argument', ['body']);
		});
		test('413: body over the 1 MiB ordinary limit', async () => {
			const r = await c.patch(`/v2/agents/${billing}`, { name: 'x'.repeat(1024 * 1024 + 10) });
			assertEnvelope(r, 413, 'invalid_argument', ['1048576', 'limit']);
		});
		test('the new-run route accepts bodies over 1 MiB (72 MiB limit)', async () => {
			const big = PNG_1PX.replace(/=+$/, '');
			const data = Buffer.concat([Buffer.from(PNG_1PX, 'base64'), Buffer.alloc(1_600_000)]).toString('base64');
			assert.ok(data.length > 2_000_000 && big.length > 0);
			const r = await c.post(`/v2/agents/${billing}/runs`, {
				prompt: 'look at this [[delay:1]]',
				images: [{ data, media_type: 'image/png' }],
			});
			assert.equal(r.status, 202, r.text);
			await c.del(`/v2/agents/${billing}/runs/${r.body.id}`);
		});

		// One test per limit of the Limits table.
		test('limit: agent name 1 to 255 bytes after trimming', async () => {
			assertEnvelope(await c.post('/v2/agents', { name: '   ' }), 422, 'invalid_argument', ['name', '1 to 255 bytes']);
			assertEnvelope(await c.post('/v2/agents', { name: 'é'.repeat(128) }), 422, 'invalid_argument', ['name', '255', 'got 256']);
			assertEnvelope(await c.patch(`/v2/agents/${billing}`, { name: 'a'.repeat(256) }), 422, 'invalid_argument', ['name', '255']);
			assert.equal((await c.patch(`/v2/agents/${billing}`, { name: `  ${'é'.repeat(127)}  ` })).status, 200);
		});
		test('limit: run prompt up to 65,536 UTF-8 bytes after trimming', async () => {
			assertEnvelope(await c.post(`/v2/agents/${billing}/runs`, { prompt: '€'.repeat(21846) }), 422, 'invalid_argument', [
				'prompt',
				'65536',
				'got 65538',
			]);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs/${billingRun}/follow-ups`, { prompt: 'x'.repeat(65537) }),
				422,
				'invalid_argument',
				['prompt', '65536'],
			);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs/${billingRun}/resume`, { prompt: 'x'.repeat(65537) }),
				422,
				'invalid_argument',
				['prompt', '65536'],
			);
		});
		test('limit: prompt may be empty only when images are sent', async () => {
			assertEnvelope(await c.post(`/v2/agents/${billing}/runs`, { prompt: '  \n ' }), 422, 'invalid_argument', ['prompt', 'empty']);
			const ok = await c.post(`/v2/agents/${billing}/runs`, { prompt: '', images: [{ data: PNG_1PX }] });
			assert.equal(ok.status, 202, ok.text);
			await c.del(`/v2/agents/${billing}/runs/${ok.body.id}`);
		});
		test('limit: up to 8 images', async () => {
			const images = Array.from({ length: 9 }, () => ({ data: PNG_1PX }));
			assertEnvelope(await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', images }), 422, 'invalid_argument', [
				'images',
				'at most 8',
				'got 9',
			]);
		});
		test('limit: PNG, JPEG, GIF, WebP only (magic bytes), raw base64', async () => {
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', images: [{ data: b64('%PDF-1.7 not an image') }] }),
				422,
				'invalid_argument',
				['images[0].data', 'PNG, JPEG, GIF or WebP'],
			);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', images: [{ data: `data:image/png;base64,${PNG_1PX}` }] }),
				422,
				'invalid_argument',
				['images[0].data', 'base64'],
			);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', images: [{ data: PNG_1PX, media_type: 'image/jpeg' }] }),
				422,
				'invalid_argument',
				['images[0].media_type'],
			);
		});
		test('limit: encoded image data up to 35,000,000 bytes per image', async () => {
			const data = PNG_1PX.slice(0, 16) + 'A'.repeat(35_000_004 - 16);
			assertEnvelope(await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', images: [{ data }] }), 422, 'invalid_argument', [
				'images[0].data',
				'35000000',
			]);
		});
		test('limit: encoded image data up to 70,000,000 bytes in total', async () => {
			const one = PNG_1PX.slice(0, 16) + 'A'.repeat(23_400_000 - 16);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', images: [{ data: one }, { data: one }, { data: one }] }),
				422,
				'invalid_argument',
				['images', '70000000', 'total'],
			);
		});
		test('limit: harness, run and session identifiers; agent runtime prefix is a UUID', async () => {
			assertEnvelope(await c.post('/v2/agents', { name: 'x', harness_id: 'has space' }), 422, 'invalid_argument', [
				'harness_id',
				'1 to 160',
			]);
			assertEnvelope(await c.post('/v2/agents', { name: 'x', harness_id: 'h'.repeat(161) }), 422, 'invalid_argument', [
				'harness_id',
				'160',
			]);
			assertEnvelope(await c.get(`/v2/agents/${billing}/runs/run%21bad`), 422, 'invalid_argument', ['run_id', '1 to 160']);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/runs`, { prompt: 'x', resume_session_id: 'ses bad' }),
				422,
				'invalid_argument',
				['resume_session_id'],
			);
			assertEnvelope(await c.get(`/v2/agents/${billing}/events?session_id=${'s'.repeat(161)}`), 422, 'invalid_argument', [
				'session_id',
			]);
			assertEnvelope(await c.get('/v2/agents/not-a-uuid.main'), 422, 'invalid_argument', ['agent_id', 'UUID']);
		});
		test('limit: agent list limit 1 to 100', async () => {
			assertEnvelope(await c.get('/v2/agents?limit=0'), 422, 'invalid_argument', ['limit', '>= 1']);
			assertEnvelope(await c.get('/v2/agents?limit=101'), 422, 'invalid_argument', ['limit', '<= 100']);
			assertEnvelope(await c.get('/v2/agents?limit=ten'), 422, 'invalid_argument', ['limit', 'integer']);
			assertEnvelope(await c.get('/v2/agents?cursor=garbage'), 422, 'invalid_argument', ['cursor']);
		});
		test('limit: run list limit 1 to 500, default 100', async () => {
			assertEnvelope(await c.get(`/v2/agents/${billing}/runs?limit=501`), 422, 'invalid_argument', ['limit', '<= 500']);
			assertEnvelope(await c.get(`/v2/agents/${billing}/runs?limit=0`), 422, 'invalid_argument', ['limit', '>= 1']);
		});
		test('limit: runtime list limit 1 to 100, default 50', async () => {
			assertEnvelope(await c.get('/v2/runtimes?limit=101'), 422, 'invalid_argument', ['limit', '<= 100']);
			assertEnvelope(await c.get('/v2/runtimes?status=running,sleeping'), 422, 'invalid_argument', ['status', 'sleeping']);
		});
		test('limit: image build list limit 1 to 100, default 50', async () => {
			assertEnvelope(await c.get('/v2/images/builds?limit=101'), 422, 'invalid_argument', ['limit', '<= 100']);
			assertEnvelope(await c.get('/v2/images/builds?limit=0'), 422, 'invalid_argument', ['limit', '>= 1']);
		});
		test('limit: event cursor after is an integer of at least -1', async () => {
			assertEnvelope(await c.get(`/v2/agents/${billing}/runs/${billingRun}/events?after=-2`), 422, 'invalid_argument', [
				'after',
				'>= -1',
			]);
			assertEnvelope(await c.get(`/v2/agents/${billing}/runs/${billingRun}/events?after=1.5`), 422, 'invalid_argument', [
				'after',
				'integer',
			]);
			assertEnvelope(await c.get(`/v2/agents/${billing}/events?after=-5`), 422, 'invalid_argument', ['after']);
		});
		test('limit: artifact filename pattern', async () => {
			for (const name of ['.hidden', 'a/b.txt', 'sp ace.txt', 'ümlaut.txt', '', 'a'.repeat(256)]) {
				assertEnvelope(
					await c.post(`/v2/agents/${billing}/artifacts`, { run_id: billingRun, name, content_base64: b64('x') }),
					422,
					'invalid_argument',
					['name', '255 ASCII'],
				);
			}
		});
		test('limit: artifact/workspace write up to 32 MiB decoded content → 413', async () => {
			const content = 'A'.repeat(Math.ceil(((32 * 1024 * 1024 + 3) * 4) / 3 / 4) * 4);
			assertEnvelope(
				await c.put(`/v2/agents/${billing}/workspace/files`, { path: 'big.bin', content_base64: content }),
				413,
				'invalid_argument',
				['content_base64', '33554432'],
			);
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/artifacts`, { run_id: billingRun, name: 'big.bin', content_base64: content }),
				413,
				'invalid_argument',
				['content_base64', '32 MiB'],
			);
		});
		test('limit: workspace query path up to 4,096 bytes; no .. segments', async () => {
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/workspace`, { op: 'stat', path: 'a/'.repeat(2049) }),
				422,
				'invalid_argument',
				['path', '4096 bytes'],
			);
			assertEnvelope(await c.post(`/v2/agents/${billing}/workspace`, { op: 'stat', path: 'src/../..' }), 422, 'invalid_argument', [
				'path',
				'..',
			]);
			assertEnvelope(
				await c.put(`/v2/agents/${billing}/workspace/files`, { path: 'a\\b', content_base64: '' }),
				422,
				'invalid_argument',
				['path', 'backslash'],
			);
		});
		test('limit: workspace search query up to 256 bytes', async () => {
			assertEnvelope(
				await c.post(`/v2/agents/${billing}/workspace`, { op: 'search', query: 'ü'.repeat(129) }),
				422,
				'invalid_argument',
				['query', '256 bytes', 'got 258'],
			);
			assertEnvelope(await c.post(`/v2/agents/${billing}/workspace`, { op: 'search', query: '' }), 422, 'invalid_argument', [
				'query',
			]);
		});
		test('limit: 2 MiB output cap for artifact content and session replay', async () => {
			const r = await c.post(`/v2/agents/${billing}/artifacts`, {
				run_id: billingRun,
				name: 'large.bin',
				content_base64: Buffer.alloc(1_700_000, 7).toString('base64'),
			});
			assert.equal(r.status, 201);
			assertEnvelope(await c.get(`/v2/agents/${billing}/artifacts/${r.body.id}?include_content=true`), 422, 'failed_precondition', [
				'2 MiB',
				'output cap',
			]);
			assert.equal((await c.get(`/v2/agents/${billing}/artifacts/${r.body.id}`)).status, 200);
		});
		test('resume without a resumable session → 422 failed_precondition', async () => {
			const docs = ((await c.get('/v2/agents?limit=100')).body.agents as { id: string; name: string }[]).find(
				(a) => a.name === 'Docs writer',
			)!.id;
			const runs = (await c.get(`/v2/agents/${docs}/runs`)).body as { id: string; dsh_session_id?: string }[];
			const synthetic = runs.find((r) => !r.dsh_session_id)!;
			assertEnvelope(await c.post(`/v2/agents/${docs}/runs/${synthetic.id}/resume`), 422, 'failed_precondition', [
				'resumable session',
			]);
		});
		test('workspace conflicts and absence', async () => {
			assertEnvelope(
				await c.put(`/v2/agents/${billing}/workspace/files`, { path: 'src', content_base64: b64('x') }),
				409,
				'failed_precondition',
				['folder'],
			);
			assertEnvelope(
				await c.call('DELETE', `/v2/agents/${billing}/workspace/files`, { json: { path: 'docs' } }),
				409,
				'failed_precondition',
				['recursive'],
			);
			assertEnvelope(
				await c.call('DELETE', `/v2/agents/${billing}/workspace/files`, { json: { path: 'nope.txt' } }),
				404,
				'not_found',
			);
			assertEnvelope(await c.post(`/v2/agents/${billing}/workspace`, { op: 'read', path: 'src' }), 409, 'failed_precondition');
		});
	});

	suite('429 and the device flow 400s', () => {
		test('429 rate_limited with Retry-After (fault)', async () => {
			await c.admin('PUT', '/faults', { rules: [{ method: 'GET', route: '/v2/me', status: 429, retry_after: 7, count: 1 }] });
			const r = await c.get('/v2/me');
			assertEnvelope(r, 429, 'rate_limited');
			assert.equal(r.headers.get('retry-after'), '7');
			assert.equal((await c.get('/v2/me')).status, 200, 'count: 1 affects only the first request');
			await c.admin('DELETE', '/faults');
		});
		test('503 and 504 faults', async () => {
			await c.admin('PUT', '/faults', {
				rules: [
					{ route: '/v2/runtimes', status: 503, count: 1 },
					{ route: '/v2/images', status: 504, count: 1 },
				],
			});
			const a = await c.get('/v2/runtimes');
			assertEnvelope(a, 503, 'unavailable');
			assert.equal(a.headers.get('retry-after'), '1');
			assertEnvelope(await c.get('/v2/images'), 504, 'deadline_exceeded');
			await c.admin('DELETE', '/faults');
		});
		test('device token: authorization_pending, slow_down, expired_token, access_denied, invalid_grant', async () => {
			const start = await c.post('/v2/auth/device/authorization', { client_id: 'cli' }, { token: null });
			const code = start.body.device_code;
			const p1 = await c.post('/v2/auth/device/token', { device_code: code }, { token: null });
			assert.equal(p1.status, 400);
			assert.deepEqual(p1.body, { error: 'authorization_pending', interval: start.body.interval });
			const p2 = await c.post('/v2/auth/device/token', { device_code: code }, { token: null });
			assert.deepEqual(p2.body, { error: 'slow_down', interval: start.body.interval + 5 });
			await c.admin('POST', '/device/expire', { user_code: start.body.user_code });
			const p3 = await c.post('/v2/auth/device/token', { device_code: code }, { token: null });
			assert.equal(p3.status, 400);
			assert.equal(p3.body.error, 'expired_token');

			const s2 = await c.post('/v2/auth/device/authorization', { client_id: 'cli' }, { token: null });
			await c.admin('POST', '/device/deny', { user_code: s2.body.user_code });
			assert.equal(
				(await c.post('/v2/auth/device/token', { device_code: s2.body.device_code }, { token: null })).body.error,
				'access_denied',
			);
			assert.equal(
				(await c.post('/v2/auth/device/token', { device_code: 'dc_unknown' }, { token: null })).body.error,
				'invalid_grant',
			);
			assertEnvelope(await c.post('/v2/auth/device/authorization', {}, { token: null }), 422, 'invalid_argument', [
				'client_id',
				'required',
			]);
		});
		test('the device page approves a code', async () => {
			const start = await c.post('/v2/auth/device/authorization', { client_id: 'page' }, { token: null });
			const page = await fetch(start.body.verification_uri_complete);
			assert.equal(page.status, 200);
			assert.match(await page.text(), new RegExp(start.body.user_code));
			const form = await fetch(`${emu.url}/device`, {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: `user_code=${start.body.user_code.toLowerCase()}&action=approve`,
			});
			assert.equal(form.status, 200);
			const tok = await c.post('/v2/auth/device/token', { device_code: start.body.device_code }, { token: null });
			assert.equal(tok.status, 200);
		});
	});

	test('request_id equals X-Request-Id and is a UUID v7, on successes too', async () => {
		const ok = await c.get('/v2/me');
		assert.match(ok.headers.get('x-request-id') ?? '', UUID_V7_RE);
		const ids = new Set<string>();
		for (let i = 0; i < 5; i++) {
			const r = await c.get('/v2/agents/00000000-0000-4000-8000-000000000000.x');
			assertEnvelope(r, 404, 'not_found');
			ids.add(r.body.request_id);
		}
		assert.equal(ids.size, 5);
		const v1 = await c.del('/v1/secret-stubs/00000000-0000-4000-8000-000000000000');
		assertEnvelope(v1, 404, 'not_found');
	});
});
