/* eslint-disable @typescript-eslint/no-explicit-any -- loosely typed JSON answers and Node errors */
/**
 * The network test infrastructure, checked with Node and undici only (not our client): the HTTPS
 * emulator and its test CA (emulator/src/tls.ts, test/support/tls.ts), the outage switch
 * (emulator/src/outage.ts, `/_emulator/outage`) and the authenticating forward proxy
 * (test/support/proxy.ts). The error codes asserted here are what Node 20 / undici 7 report.
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Agent, ProxyAgent, request } from 'undici';
import type { RunningEmulator } from '../../../emulator/src/server';
import { startEmulator } from '../../../emulator/src/server';
import { startProxy, type TestProxy } from '../../support/proxy';
import { createTestCa, emulatorTls, type TestCa } from '../../support/tls';
import { outageEmulatorPerSuite } from './emulator';

const DEV_TOKEN = 'ca_dev_0123456789abcdef';
const AUTH = { authorization: `Bearer ${DEV_TOKEN}` };

/** The code of the error `p` rejects with (undici puts a socket's error in `cause`), and its message. */
async function failure(p: Promise<unknown>): Promise<{ code: string; message: string }> {
	try {
		await p;
	} catch (e) {
		const err = e as any;
		const code = err?.cause?.code ?? err?.code ?? '';
		const message = String(err?.cause?.message ?? err?.message ?? '');
		return { code: String(code), message };
	}
	assert.fail('expected the request to fail');
}

async function admin(base: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<any> {
	const res = await request(`${base}/_emulator${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.body.text();
	assert.ok(res.statusCode < 300, `admin ${method} ${path}: ${res.statusCode} ${text}`);
	return text ? JSON.parse(text) : undefined;
}

/** GET /v2/agents through a fresh connection pool (`dispatcher` options given), closed afterwards. */
async function listAgents(url: string, agentOpts: ConstructorParameters<typeof Agent>[0] = {}): Promise<number> {
	const dispatcher = new Agent(agentOpts);
	try {
		const res = await request(`${url}/v2/agents`, { headers: AUTH, dispatcher });
		await res.body.text();
		return res.statusCode;
	} finally {
		await dispatcher.destroy();
	}
}

suite('Network test infrastructure: the HTTPS emulator and its test CA', () => {
	let ca: TestCa;
	const started: RunningEmulator[] = [];
	suiteSetup(async () => {
		ca = await createTestCa();
	});
	teardown(async () => {
		for (const e of started.splice(0)) await e.close();
	});
	const start = async (tls: NonNullable<Parameters<typeof startEmulator>[0]>['tls']): Promise<RunningEmulator> => {
		const e = await startEmulator({ port: 0, seed: 'demo', quiet: true, tls });
		started.push(e);
		return e;
	};

	test('--tls: an undici request without the test CA fails with SELF_SIGNED_CERT_IN_CHAIN, and succeeds with the CA written to tls.caPath', async () => {
		const emu = await start(true);
		assert.match(emu.url, /^https:\/\/127\.0\.0\.1:\d+$/);
		assert.ok(emu.tls && existsSync(emu.tls.caPath), 'the CA certificate is written to a file');
		assert.equal(readFileSync(emu.tls.caPath, 'utf8'), emu.tls.ca);
		const untrusted = await failure(listAgents(emu.url));
		assert.equal(untrusted.code, 'SELF_SIGNED_CERT_IN_CHAIN', untrusted.message);
		assert.match(untrusted.message, /self-signed certificate in certificate chain/);
		assert.equal(await listAgents(emu.url, { connect: { ca: readFileSync(emu.tls.caPath, 'utf8') } }), 200);
		// The name localhost is in the certificate too.
		assert.equal(await listAgents(emu.url.replace('127.0.0.1', 'localhost'), { connect: { ca: emu.tls.ca } }), 200);
		const caPath = emu.tls.caPath;
		await emu.close();
		started.length = 0;
		assert.equal(existsSync(caPath), false, 'the generated CA file is removed on close');
	});

	test('a certificate and CA passed in are served as given (startEmulator({tls: {cert, key, ca}}))', async () => {
		const emu = await start(await emulatorTls(ca, 'valid'));
		assert.equal(emu.tls?.ca, ca.cert);
		assert.equal(await listAgents(emu.url, { connect: { ca: ca.cert } }), 200);
		const other = await createTestCa({ commonName: 'Another CA' });
		const wrongCa = await failure(listAgents(emu.url, { connect: { ca: other.cert } }));
		assert.equal(wrongCa.code, 'SELF_SIGNED_CERT_IN_CHAIN', wrongCa.message);
	});

	test('an expired server certificate fails with CERT_HAS_EXPIRED even with the CA trusted', async () => {
		const emu = await start(await emulatorTls(ca, 'expired'));
		const f = await failure(listAgents(emu.url, { connect: { ca: ca.cert } }));
		assert.equal(f.code, 'CERT_HAS_EXPIRED', f.message);
		assert.match(f.message, /certificate has expired/);
	});

	test('a certificate for another host fails with ERR_TLS_CERT_ALTNAME_INVALID even with the CA trusted', async () => {
		const emu = await start(await emulatorTls(ca, 'wrong-host'));
		const f = await failure(listAgents(emu.url, { connect: { ca: ca.cert } }));
		assert.equal(f.code, 'ERR_TLS_CERT_ALTNAME_INVALID', f.message);
		assert.match(f.message, /does not match certificate's altnames/);
	});
});

suite('Network test infrastructure: the outage switch', () => {
	const emu = outageEmulatorPerSuite();

	test('refuse: new connections get ECONNREFUSED, the admin URL still answers, DELETE ends it', async () => {
		assert.equal(await listAgents(emu.url), 200);
		const on = await admin(emu.url, 'POST', '/outage', { mode: 'refuse', seconds: 60 });
		assert.equal(on.active, true);
		assert.equal(on.mode, 'refuse');
		assert.equal(on.admin_url, emu.adminUrl);
		const f = await failure(listAgents(emu.url));
		assert.equal(f.code, 'ECONNREFUSED', f.message);
		const state = await admin(emu.adminUrl, 'GET', '/outage');
		assert.equal(state.active, true);
		assert.ok(state.remaining_ms > 50_000 && state.remaining_ms <= 60_000, String(state.remaining_ms));
		const off = await admin(emu.adminUrl, 'DELETE', '/outage');
		assert.equal(off.active, false);
		assert.equal(await listAgents(emu.url), 200);
	});

	test('refuse ends by itself after `seconds` on the emulator clock (advancing the clock ends it too)', async () => {
		await admin(emu.url, 'POST', '/outage', { mode: 'refuse', seconds: 0.4 });
		assert.equal((await failure(listAgents(emu.url))).code, 'ECONNREFUSED');
		await new Promise((r) => setTimeout(r, 700));
		assert.equal((await admin(emu.adminUrl, 'GET', '/outage')).active, false);
		assert.equal(await listAgents(emu.url), 200);

		await admin(emu.url, 'POST', '/outage', { mode: 'refuse', seconds: 3600 });
		assert.equal((await failure(listAgents(emu.url))).code, 'ECONNREFUSED');
		await admin(emu.adminUrl, 'POST', '/clock/advance', { seconds: 3601 });
		await new Promise((r) => setTimeout(r, 250));
		assert.equal(await listAgents(emu.url), 200);
	});

	test('reset: requests get ECONNRESET, an open run-event stream is cut, the admin API on the same port still answers', async () => {
		const agents = (await (await request(`${emu.url}/v2/agents?limit=100`, { headers: AUTH })).body.json()) as {
			agents: Array<{ id: string; name: string }>;
		};
		const agent = agents.agents.find((a) => a.name === 'Refactor billing module') ?? agents.agents[0];
		assert.ok(agent, 'the demo seed has agents');
		const created = await request(`${emu.url}/v2/agents/${agent.id}/runs`, {
			method: 'POST',
			headers: { ...AUTH, 'content-type': 'application/json' },
			body: JSON.stringify({ prompt: 'hold [[hold]] [[delay:1]]' }),
		});
		const run = (await created.body.json()) as any;
		assert.ok(created.statusCode < 300, JSON.stringify(run));
		const streamPool = new Agent();
		try {
			const stream = await request(`${emu.url}/v2/agents/${agent.id}/runs/${run.id}/events`, {
				headers: { ...AUTH, accept: 'text/event-stream' },
				dispatcher: streamPool,
			});
			assert.equal(stream.statusCode, 200);
			const cut = (async () => {
				for await (const chunk of stream.body) void chunk;
			})();
			await new Promise((r) => setTimeout(r, 100));
			await admin(emu.url, 'POST', '/outage', { mode: 'reset', seconds: 60 });
			const streamEnd = await failure(cut);
			assert.equal(streamEnd.code, 'ECONNRESET', streamEnd.message);
			const f = await failure(listAgents(emu.url));
			assert.equal(f.code, 'ECONNRESET', f.message);
			const state = await admin(emu.url, 'GET', '/outage');
			assert.equal(state.mode, 'reset');
			assert.ok(state.counts.reset_requests >= 1 && state.counts.cut_connections >= 1, JSON.stringify(state.counts));
			await admin(emu.url, 'DELETE', '/outage');
			assert.equal(await listAgents(emu.url), 200);
		} finally {
			await streamPool.destroy();
			await request(`${emu.url}/v2/agents/${agent.id}/runs/${run.id}/cancel`, { method: 'POST', headers: AUTH }).then(
				(r) => r.body.text(),
				() => '',
			);
		}
	});

	test('stall: requests are accepted and never answered (a headers timeout), and the service answers again after `seconds`', async () => {
		await admin(emu.url, 'POST', '/outage', { mode: 'stall', seconds: 1.5 });
		const began = Date.now();
		const f = await failure(listAgents(emu.url, { headersTimeout: 500 }));
		assert.equal(f.code, 'UND_ERR_HEADERS_TIMEOUT', f.message);
		assert.ok(Date.now() - began >= 450);
		assert.equal((await admin(emu.url, 'GET', '/outage')).mode, 'stall');
		assert.ok((await admin(emu.url, 'GET', '/outage')).counts.stalled_requests >= 1);
		await new Promise((r) => setTimeout(r, 1600));
		assert.equal(await listAgents(emu.url, { headersTimeout: 2000 }), 200);
	});

	test('a bad outage body is refused with 422 and changes nothing', async () => {
		for (const body of [
			{ mode: 'melt', seconds: 1 },
			{ mode: 'reset' },
			{ mode: 'reset', seconds: 0 },
			{ mode: 'reset', seconds: 100_000 },
		]) {
			const res = await request(`${emu.adminUrl}/_emulator/outage`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
			await res.body.text();
			assert.equal(res.statusCode, 422, JSON.stringify(body));
		}
		assert.equal((await admin(emu.adminUrl, 'GET', '/outage')).active, false);
		assert.equal(await listAgents(emu.url), 200);
	});

	test('the admin URL serves only the admin API', async () => {
		const res = await request(`${emu.adminUrl}/v2/agents`, { headers: AUTH });
		await res.body.text();
		assert.equal(res.statusCode, 404);
	});
});

suite('Network test infrastructure: the authenticating forward proxy', () => {
	let emu: RunningEmulator;
	let tlsEmu: RunningEmulator;
	let proxy: TestProxy;
	const basic = (u: string, p: string): string => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
	suiteSetup(async () => {
		emu = await startEmulator({ port: 0, seed: 'demo', quiet: true });
		tlsEmu = await startEmulator({ port: 0, seed: 'demo', quiet: true, tls: true });
		proxy = await startProxy({ user: 'alice', password: 's3cret:pa ss' });
	});
	suiteTeardown(async () => {
		await proxy.close();
		await emu.close();
		await tlsEmu.close();
	});
	setup(() => {
		proxy.log.length = 0;
	});

	async function through(url: string, opts: Omit<ProxyAgent.Options, 'uri'>): Promise<number> {
		const dispatcher = new ProxyAgent({ uri: proxy.url, ...opts });
		try {
			const res = await request(url, { headers: AUTH, dispatcher });
			await res.body.text();
			return res.statusCode;
		} finally {
			await dispatcher.close();
		}
	}

	test('with the right credentials a plain-HTTP request is forwarded to the emulator and logged', async () => {
		const status = await through(`${emu.url}/v2/agents`, { token: basic('alice', 's3cret:pa ss'), proxyTunnel: false });
		assert.equal(status, 200);
		assert.deepEqual(proxy.log, [{ method: 'GET', target: `${emu.url}/v2/agents`, authorized: true }]);
	});

	test('credentials in the proxy URL work too (urlWithCredentials)', async () => {
		const dispatcher = new ProxyAgent({ uri: proxy.urlWithCredentials, proxyTunnel: false });
		try {
			const res = await request(`${emu.url}/v2/agents`, { headers: AUTH, dispatcher });
			await res.body.text();
			assert.equal(res.statusCode, 200);
		} finally {
			await dispatcher.close();
		}
		assert.equal(proxy.log[0]?.authorized, true);
	});

	test('wrong or missing credentials get 407 with Proxy-Authenticate: Basic, and nothing reaches the emulator', async () => {
		const before = (await admin(emu.adminUrl, 'GET', '/counters')).requests.total;
		for (const auth of [basic('alice', 'wrong'), basic('bob', 's3cret:pa ss'), undefined]) {
			// A plain node:http request in absolute form, as a proxy client sends it (undici's ProxyAgent turns a 407 into an error).
			const answer = await new Promise<{ status: number; challenge: string | undefined }>((resolve, reject) => {
				const req = httpRequest(
					{
						host: '127.0.0.1',
						port: proxy.port,
						path: `${emu.url}/v2/agents`,
						headers: { ...AUTH, ...(auth ? { 'proxy-authorization': auth } : {}) },
						agent: false,
					},
					(res) => {
						res.resume();
						res.on('end', () => resolve({ status: res.statusCode ?? 0, challenge: res.headers['proxy-authenticate'] }));
					},
				);
				req.on('error', reject);
				req.end();
			});
			assert.deepEqual(answer, { status: 407, challenge: 'Basic realm="proxy"' });
		}
		const viaUndici = await failure(through(`${emu.url}/v2/agents`, { token: basic('alice', 'wrong'), proxyTunnel: false }));
		assert.match(viaUndici.message, /Proxy Authentication Required \(407\)/);
		assert.deepEqual(
			proxy.log.map((e) => e.authorized),
			[false, false, false, false],
		);
		assert.equal((await admin(emu.adminUrl, 'GET', '/counters')).requests.total, before);
	});

	test('CONNECT to the HTTPS emulator through the proxy works with the credentials and the test CA, and fails with a 407 without them', async () => {
		const ca = tlsEmu.tls?.ca ?? '';
		const status = await through(`${tlsEmu.url}/v2/agents`, { token: basic('alice', 's3cret:pa ss'), requestTls: { ca } });
		assert.equal(status, 200);
		const host = new URL(tlsEmu.url).host;
		assert.deepEqual(proxy.log, [{ method: 'CONNECT', target: host, authorized: true }]);
		const f = await failure(through(`${tlsEmu.url}/v2/agents`, { token: basic('alice', 'nope'), requestTls: { ca } }));
		assert.match(f.message, /407/, `${f.code} ${f.message}`);
		assert.equal(proxy.log[1]?.authorized, false);
	});
});
