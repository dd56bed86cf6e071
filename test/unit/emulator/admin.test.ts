/* eslint-disable @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return --
   these tests assert on loosely typed JSON answers (Res.body is `any`). */
/** The admin API's routes that make things happen in the account without the client (issue 45). */
import * as assert from 'node:assert/strict';
import { boot } from './helpers';

suite('emulator: admin routes for what happens in the account', () => {
	test('PUT runtimes/{id}/status sets a runtime to crashed and back; the public listing shows it, the revision moves', async () => {
		const { emu, c } = await boot();
		try {
			const before = (await c.get('/v2/runtimes?limit=100')).body.data.find((r: { status: string }) => r.status === 'running');
			assert.ok(before, 'the demo seed has a running runtime');
			const set = await c.admin('PUT', `/runtimes/${before.id}/status`, { status: 'crashed' });
			assert.equal(set.status, 200);
			assert.equal(set.body.status, 'crashed');
			assert.ok(set.body.revision > before.revision);
			const after = (await c.get('/v2/runtimes?limit=100')).body.data.find((r: { id: string }) => r.id === before.id);
			assert.equal(after.status, 'crashed');
			assert.equal((await c.admin('PUT', `/runtimes/${before.id}/status`, { status: 'running' })).body.status, 'running');
			assert.equal((await c.admin('PUT', `/runtimes/${before.id}/status`, { status: 'exploded' })).status, 422);
			assert.equal((await c.admin('PUT', '/runtimes/00000000-0000-4000-8000-000000000000/status', { status: 'error' })).status, 404);
		} finally {
			await emu.close();
		}
	});

	test('POST github/authorization-requests opens a pending request the public listing shows with its reason; DELETE closes it', async () => {
		const { emu, c } = await boot();
		try {
			const opened = await c.admin('POST', '/github/authorization-requests', {
				requested_by: 'agent:Docs bot',
				reason: 'Open a pull request with the docs',
			});
			assert.equal(opened.status, 201);
			const id = opened.body.request_id as string;
			assert.match(id, /^ghreq_[0-9a-f]{32}$/);
			const listed = (await c.get('/v2/github/authorization-requests')).body.data.requests.find(
				(r: { request_id: string }) => r.request_id === id,
			);
			assert.equal(listed.reason, 'Open a pull request with the docs');
			assert.equal(listed.lifecycle.status, 'pending');
			assert.match(listed.lifecycle.authorization_url, /^https:\/\//);
			assert.equal((await c.admin('DELETE', `/github/authorization-requests/${id}`)).body.closed, true);
			const gone = (await c.get('/v2/github/authorization-requests')).body.data.requests.some(
				(r: { request_id: string }) => r.request_id === id,
			);
			assert.equal(gone, false);
			assert.equal((await c.admin('DELETE', `/github/authorization-requests/${id}`)).status, 404);
			assert.equal((await c.admin('POST', '/github/authorization-requests', { reason: 'no requester' })).status, 422);
		} finally {
			await emu.close();
		}
	});

	test('an opened request expires on the emulator clock', async () => {
		const { emu, c } = await boot();
		try {
			const id = (await c.admin('POST', '/github/authorization-requests', { requested_by: 'agent:x', expires_in_seconds: 60 })).body
				.request_id as string;
			const has = async (): Promise<boolean> =>
				(await c.get('/v2/github/authorization-requests')).body.data.requests.some(
					(r: { request_id: string }) => r.request_id === id,
				);
			assert.equal(await has(), true);
			await c.admin('POST', '/clock/advance', { seconds: 61 });
			assert.equal(await has(), false);
		} finally {
			await emu.close();
		}
	});
});
