/**
 * The emulator's CORS option (issue 34): a browser's extension host (VS Code for the Web) calls the
 * service from the workbench's origin, so the service must answer preflights for Authorization and
 * Content-Type, expose X-Request-Id and Retry-After, and do so on the event stream too. Without the
 * option the emulator answers no CORS at all, as a service that allows no browser.
 */
import * as assert from 'node:assert/strict';
import { request } from 'undici';
import { type RunningEmulator, startEmulator } from '../../../emulator/src/server';
import { DEV_TOKEN } from '../support/emulator';

const ORIGIN = 'http://127.0.0.1:43210';
const OTHER = 'http://127.0.0.1:43211';

interface Answer {
	status: number;
	headers: Record<string, string | string[] | undefined>;
	text: string;
}

async function call(
	emu: RunningEmulator,
	method: 'GET' | 'POST' | 'OPTIONS',
	path: string,
	headers: Record<string, string>,
	body?: string,
): Promise<Answer> {
	const res = await request(`${emu.url}${path}`, { method, headers, body });
	// The event stream does not end by itself: its first bytes are enough.
	const text = headers.accept === 'text/event-stream' ? '' : await res.body.text();
	if (headers.accept === 'text/event-stream') {
		res.body.on('error', () => undefined); // The abort below is ours.
		res.body.destroy();
	}
	return { status: res.statusCode, headers: res.headers, text };
}

/** A header's value as one lower-case list. */
const list = (value: string | string[] | undefined): string[] =>
	(Array.isArray(value) ? value.join(',') : (value ?? ''))
		.split(',')
		.map((v) => v.trim().toLowerCase())
		.filter((v) => v !== '');

suite('emulator: CORS for a browser workbench (--cors-origin)', () => {
	let emu: RunningEmulator;
	let plain: RunningEmulator;
	const auth = { authorization: `Bearer ${DEV_TOKEN}` };

	suiteSetup(async () => {
		[emu, plain] = await Promise.all([
			startEmulator({ port: 0, seed: 'demo', quiet: true, corsOrigins: [ORIGIN] }),
			startEmulator({ port: 0, seed: 'demo', quiet: true }),
		]);
	});
	suiteTeardown(async () => {
		await Promise.all([emu.close(), plain.close()]);
	});

	test('a preflight for Authorization and Content-Type is allowed for the origin, not for another', async () => {
		const preflight = {
			'access-control-request-method': 'POST',
			'access-control-request-headers': 'authorization, content-type',
		};
		const ok = await call(emu, 'OPTIONS', '/v2/agents', { origin: ORIGIN, ...preflight });
		assert.ok(ok.status === 204 || ok.status === 200, `preflight status ${ok.status}`);
		assert.equal(ok.headers['access-control-allow-origin'], ORIGIN);
		assert.ok(list(ok.headers['access-control-allow-methods']).includes('post'));
		for (const h of ['authorization', 'content-type', 'last-event-id', 'idempotency-key', 'x-idempotency-key']) {
			assert.ok(list(ok.headers['access-control-allow-headers']).includes(h), `${h} allowed`);
		}
		const other = await call(emu, 'OPTIONS', '/v2/agents', { origin: OTHER, ...preflight });
		assert.equal(other.headers['access-control-allow-origin'], undefined, 'another origin is not allowed');
	});

	test('an answer (and an error) lets the page read X-Request-Id and Retry-After', async () => {
		const listed = await call(emu, 'GET', '/v2/agents?limit=1', { origin: ORIGIN, ...auth });
		assert.equal(listed.status, 200);
		assert.equal(listed.headers['access-control-allow-origin'], ORIGIN);
		assert.deepEqual(list(listed.headers['access-control-expose-headers']).sort(), ['retry-after', 'x-request-id']);
		assert.ok(listed.headers['x-request-id']);
		const refused = await call(emu, 'GET', '/v2/agents?limit=1', { origin: ORIGIN });
		assert.equal(refused.status, 401);
		assert.equal(refused.headers['access-control-allow-origin'], ORIGIN, 'the page can read why it was refused');
	});

	test('the run-event stream carries the same headers', async () => {
		const agents = JSON.parse((await call(emu, 'GET', '/v2/agents?limit=100', auth)).text) as { agents: Array<{ id: string }> };
		let stream: Answer | undefined;
		for (const agent of agents.agents) {
			// The standard profile answers a runs listing with a bare array.
			const runs = JSON.parse(
				(await call(emu, 'GET', `/v2/agents/${encodeURIComponent(agent.id)}/runs?limit=1`, auth)).text,
			) as Array<{
				id: string;
			}>;
			const run = runs[0];
			if (run) {
				stream = await call(emu, 'GET', `/v2/agents/${encodeURIComponent(agent.id)}/runs/${encodeURIComponent(run.id)}/events`, {
					origin: ORIGIN,
					accept: 'text/event-stream',
					...auth,
				});
				break;
			}
		}
		assert.ok(stream, 'the demo seed has a run');
		assert.equal(stream.status, 200);
		assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
		assert.equal(stream.headers['access-control-allow-origin'], ORIGIN);
		assert.ok(list(stream.headers['access-control-expose-headers']).includes('x-request-id'));
	});

	test('without the option: no CORS headers at all', async () => {
		const listed = await call(plain, 'GET', '/v2/agents?limit=1', { origin: ORIGIN, ...auth });
		assert.equal(listed.status, 200);
		assert.equal(listed.headers['access-control-allow-origin'], undefined);
		const preflight = await call(plain, 'OPTIONS', '/v2/agents', {
			origin: ORIGIN,
			'access-control-request-method': 'GET',
			'access-control-request-headers': 'authorization',
		});
		assert.equal(preflight.headers['access-control-allow-origin'], undefined);
	});
});
