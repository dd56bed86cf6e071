/**
 * Proxies and certificates (issue 22), through the client, over real HTTP: the HTTPS emulator on
 * this machine's own non-loopback address (loopback is never proxied) with a certificate from a
 * test CA, and a real forward proxy with Basic authentication (test/support/proxy.ts) whose log
 * shows what went through it. The CA is trusted through the settings' `ca` (NetworkSettings.ca).
 */
import * as assert from 'node:assert/strict';
import { inspect } from 'node:util';
import {
	ApiError,
	CloudAgentsClient,
	GitHubLookupError,
	GitHubResolver,
	NetworkError,
	ProxyError,
	isUnreachable,
} from '../../../../src/api';
import { ProxyConfigError, proxyEnvironment, systemCertificatesSupported } from '../../../../src/platform/node/network';
import type { EventRecord, NetworkSettings } from '../../../../src/api';
import { type RunningEmulator, startEmulator } from '../../../../emulator/src/server';
import { NO_EXTERNAL_ADDRESS, nonLoopbackIPv4 } from '../../../support/hosts';
import { startProxy, type TestProxy } from '../../../support/proxy';
import { createTestCa, emulatorTls, type TestCa } from '../../../support/tls';
import { DEV_TOKEN, emulatorAdmin } from '../../support/emulator';
import { nodeConnect } from '../../../../src/platform/node/network';

/** An agent of the demo seed whose runtime is ready for runs. */
const READY_AGENT = 'Refactor billing module';
const USER = 'proxyuser';
const PASSWORD = 'pa ss:w0rd/é!';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A port nothing listens on (a proxy that is down). */
const DEAD_PROXY = 'http://127.0.0.1:9';

interface Collected {
	lines: string[];
	warnings: string[];
	debug(message: string): void;
	warn(message: string): void;
}
function collector(): Collected {
	const c: Collected = {
		lines: [],
		warnings: [],
		debug: (m) => void c.lines.push(m),
		warn: (m) => void c.warnings.push(m),
	};
	return c;
}

async function failure(p: Promise<unknown>): Promise<unknown> {
	return p.then(
		() => assert.fail('expected the call to fail'),
		(e: unknown) => e,
	);
}

suite('api: proxies and certificates (network settings) against the HTTPS emulator on a non-loopback address', function () {
	this.timeout(60_000);
	const ip = nonLoopbackIPv4();
	let ca: TestCa;
	let emu: RunningEmulator;
	let proxy: TestProxy;
	let host: string;
	const clients: CloudAgentsClient[] = [];

	suiteSetup(async function () {
		if (!ip) {
			console.log(`      skipped: ${NO_EXTERNAL_ADDRESS}`);
			this.skip();
		}
		ca = await createTestCa();
		emu = await startEmulator({ port: 0, host: ip, seed: 'demo', quiet: true, tls: await emulatorTls(ca, 'valid', undefined, [ip]) });
		host = new URL(emu.url).host;
		proxy = await startProxy({ user: USER, password: PASSWORD });
	});
	suiteTeardown(async () => {
		await proxy?.close();
		await emu?.close();
	});
	setup(() => {
		if (proxy) {
			proxy.log.length = 0;
			proxy.raw.length = 0;
		}
	});
	teardown(() => {
		for (const c of clients.splice(0)) c.close();
	});

	/** Settings with the test CA trusted and nothing else, `over` on top. */
	const net = (over: Partial<NetworkSettings> = {}): NetworkSettings => ({
		noProxy: [],
		strictSSL: true,
		systemCertificates: false,
		env: {},
		ca: [ca.cert],
		...over,
	});
	const client = (
		network: NetworkSettings | (() => NetworkSettings) | undefined,
		extra: Partial<ConstructorParameters<typeof CloudAgentsClient>[0]> = {},
	): CloudAgentsClient => {
		const c = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN, network, ...extra });
		clients.push(c);
		return c;
	};
	const requestsSeen = async (): Promise<number> =>
		(await emulatorAdmin<{ requests: { total: number } }>(emu.adminUrl, 'GET', '/counters')).requests.total;
	/** Every CONNECT went to the emulator with the right credentials, and the token never crossed the proxy in clear. */
	const throughProxy = (): void => {
		assert.ok(proxy.log.length >= 1, 'the proxy saw the requests');
		assert.deepEqual(
			proxy.log.filter((e) => e.method !== 'CONNECT' || e.target !== host || !e.authorized),
			[],
			`only authorized CONNECTs to ${host}: ${JSON.stringify(proxy.log)}`,
		);
		assert.ok(!proxy.raw.join('\n').includes(DEV_TOKEN), 'the token is not in what the proxy read');
	};
	const noSecrets = (text: string): void => {
		for (const secret of [DEV_TOKEN, PASSWORD, encodeURIComponent(PASSWORD), basic(USER, PASSWORD), USER]) {
			assert.ok(!text.includes(secret), `no ${secret === USER ? 'proxy user' : 'secret'} in: ${text}`);
		}
	};

	test('credentials in http.proxy: the requests and the run stream go through the proxy (CONNECT to the host), the token never in clear', async () => {
		const log = collector();
		const c = client(net({ proxy: proxy.urlWithCredentials }), { logger: log });
		const agent = (await c.listAgents({ limit: 100 })).items.find((a) => a.name === READY_AGENT);
		assert.ok(agent, `the demo seed has ${READY_AGENT}`);
		const run = await c.createRun(agent.id, { prompt: 'network test [[events:3]]' });
		const events: EventRecord[] = [];
		for await (const e of c.streamRunEvents(agent.id, run.id)) {
			events.push(e);
		}
		assert.ok(events.length >= 3, `the run's events arrived through the proxy (${events.length})`);
		throughProxy();
		assert.ok(
			log.lines.some((l) => l.includes(`${host}: through the proxy 127.0.0.1:${proxy.port} (http.proxy, with credentials)`)),
			log.lines.join('\n'),
		);
		noSecrets(log.lines.join('\n'));
	});

	test('http.proxyAuthorization gives the credentials (the proxy URL has none)', async () => {
		const c = client(net({ proxy: proxy.url, proxyAuthorization: basic(USER, PASSWORD) }));
		await c.listAgents({ limit: 1 });
		throughProxy();
		assert.ok(
			proxy.raw.some((r) => r.includes(basic(USER, PASSWORD))),
			'the proxy got the Proxy-Authorization value as given',
		);
	});

	test('a proxy URL without a scheme (host:port) is read as http://', async () => {
		const c = client(net({ proxy: `127.0.0.1:${proxy.port}`, proxyAuthorization: basic(USER, PASSWORD) }));
		await c.listAgents({ limit: 1 });
		throughProxy();
	});

	test('the environment: https_proxy or HTTPS_PROXY (lower case wins), HTTP_PROXY for https when there is no HTTPS_PROXY', async () => {
		for (const env of [
			{ https_proxy: proxy.urlWithCredentials },
			{ HTTPS_PROXY: proxy.urlWithCredentials },
			{ https_proxy: proxy.urlWithCredentials, HTTPS_PROXY: DEAD_PROXY },
			{ HTTP_PROXY: proxy.urlWithCredentials },
			{ http_proxy: proxy.urlWithCredentials },
		]) {
			proxy.log.length = 0;
			const c = client(net({ env: proxyEnvironment(env) }));
			await c.listAgents({ limit: 1 });
			// Closed, so the next client (with settings that may be the same) opens a new tunnel.
			c.close();
			assert.equal(proxy.log.length, 1, JSON.stringify(Object.keys(env)));
			throughProxy();
		}
	});

	test("a client given no settings reads the process's environment (HTTPS_PROXY)", async () => {
		const saved = { ...process.env };
		process.env.HTTPS_PROXY = proxy.urlWithCredentials;
		delete process.env.https_proxy;
		delete process.env.NO_PROXY;
		delete process.env.no_proxy;
		try {
			// Node's default store does not trust the test CA: the request fails, but only after the proxy's CONNECT.
			const err = await failure(client(undefined, { retry: { maxAttempts: 1 } }).listAgents({ limit: 1 }));
			assert.ok(err instanceof NetworkError && err.code === 'tls_error', String(err));
			assert.equal(proxy.log.length, 1);
			throughProxy();
		} finally {
			process.env = saved;
		}
	});

	test('http.proxy wins over the environment', async () => {
		const c = client(net({ proxy: proxy.urlWithCredentials, env: proxyEnvironment({ HTTPS_PROXY: DEAD_PROXY }) }));
		await c.listAgents({ limit: 1 });
		throughProxy();
	});

	test('http.noProxy (and NO_PROXY without it) send the host direct: the proxy log stays empty', async () => {
		const [first, second, third] = ip?.split('.') ?? [];
		for (const settings of [
			net({ proxy: proxy.urlWithCredentials, noProxy: [ip ?? ''] }),
			net({ proxy: proxy.urlWithCredentials, noProxy: ['example.com', `${ip}:${emu.port}`] }),
			net({ env: proxyEnvironment({ HTTPS_PROXY: proxy.urlWithCredentials, NO_PROXY: `localhost,${ip}` }) }),
			// http.noProxy wins over NO_PROXY: here NO_PROXY would not exempt the host, http.noProxy does.
			net({ proxy: proxy.urlWithCredentials, noProxy: [ip ?? ''], env: { noProxy: `${first}.${second}.${third}.250` } }),
		]) {
			const c = client(settings);
			await c.listAgents({ limit: 1 });
		}
		assert.deepEqual(proxy.log, []);
		// And an entry for another host does not exempt this one.
		await client(net({ proxy: proxy.urlWithCredentials, noProxy: ['service.example.com'] })).listAgents({ limit: 1 });
		throughProxy();
	});

	test('loopback hosts are never proxied', async () => {
		const local = await startEmulator({ port: 0, seed: 'demo', quiet: true });
		try {
			const c = new CloudAgentsClient({
				connect: nodeConnect,
				baseUrl: local.url,
				getToken: () => DEV_TOKEN,
				network: net({ proxy: DEAD_PROXY }),
			});
			clients.push(c);
			await c.listAgents({ limit: 1 });
		} finally {
			await local.close();
		}
	});

	test('a wrong password: the 407 message names the proxy as host:port, without user, password or token; not retried; nothing reached the service', async () => {
		const before = await requestsSeen();
		const log = collector();
		const wrong = `http://${USER}:${encodeURIComponent('not-the-password')}@127.0.0.1:${proxy.port}`;
		const c = client(net({ proxy: wrong }), { logger: log, retry: { baseDelayMs: 1, maxDelayMs: 1 } });
		const err = await failure(c.listAgents({ limit: 1 }));
		assert.ok(err instanceof ProxyError, inspect(err));
		assert.equal(err.status, 407);
		assert.equal(err.code, 'proxy_auth_required');
		assert.equal(
			err.message,
			`The proxy 127.0.0.1:${proxy.port} refused the credentials (407 Proxy Authentication Required). Check http.proxy / http.proxyAuthorization.`,
		);
		assert.equal(isUnreachable(err), false);
		assert.equal(proxy.log.length, 1, 'not retried');
		assert.equal(proxy.log[0]?.authorized, false);
		assert.equal(await requestsSeen(), before, 'nothing reached the service');
		const everything = [inspect(err, { depth: 5 }), log.lines.join('\n')].join('\n');
		assert.ok(!everything.includes('not-the-password'), everything);
		noSecrets(everything);

		// Through http.proxyAuthorization, and on the run stream (which does not reconnect on it).
		proxy.log.length = 0;
		const viaHeader = client(net({ proxy: proxy.url, proxyAuthorization: basic(USER, 'wrong') }), {
			stream: { reconnectMinMs: 1, reconnectBaseMs: 1 },
		});
		const agent = (await client(net()).listAgents({ limit: 100 })).items.find((a) => a.name === READY_AGENT);
		assert.ok(agent);
		const streamErr = await failure(
			(async () => {
				for await (const e of viaHeader.streamRunEvents(agent.id, 'run_0000000000000001')) void e;
			})(),
		);
		assert.ok(streamErr instanceof ProxyError && streamErr.status === 407, inspect(streamErr));
		assert.equal(proxy.log.length, 1, 'the stream did not reconnect');
		assert.ok(!inspect(streamErr, { depth: 5 }).includes(basic(USER, 'wrong')));
	});

	test('no credentials at all: the 407 message says the proxy asks for them', async () => {
		const err = await failure(client(net({ proxy: proxy.url })).listAgents({ limit: 1 }));
		assert.ok(err instanceof ProxyError, inspect(err));
		assert.match(
			err.message,
			new RegExp(`^The proxy 127\\.0\\.0\\.1:${proxy.port} asks for credentials \\(407 Proxy Authentication Required\\)\\.`),
		);
	});

	test('a proxy that is down reads as the proxy being down: connection_refused, unreachable, nothing sent, retried like an outage', async () => {
		const log = collector();
		const c = client(net({ proxy: `http://${USER}:${encodeURIComponent(PASSWORD)}@127.0.0.1:9` }), {
			logger: log,
			retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
		});
		const err = await failure(c.listAgents({ limit: 1 }));
		assert.ok(err instanceof NetworkError, inspect(err));
		assert.equal(err.code, 'connection_refused');
		assert.equal(err.requestSent, false);
		assert.equal(isUnreachable(err), true);
		assert.match(
			err.message,
			/^The proxy 127\.0\.0\.1:9 refused the connection \(connect ECONNREFUSED 127\.0\.0\.1:9 \[ECONNREFUSED\]\): is it running\? Check http\.proxy\.$/,
		);
		assert.ok(
			log.lines.some((l) => l.includes('retrying')),
			'an idempotent request is retried',
		);
		noSecrets([inspect(err, { depth: 5 }), log.lines.join('\n')].join('\n'));
	});

	test('an unusable proxy setting is a clear error that does not repeat it', async () => {
		const socks = await failure(client(net({ proxy: `socks5://${USER}:secretpw@10.1.2.3:1080` })).listAgents({ limit: 1 }));
		assert.ok(socks instanceof ProxyConfigError, inspect(socks));
		assert.equal(socks.message, 'http.proxy: socks5: proxies are not supported (http: or https: only; the proxy 10.1.2.3:1080)');
		const bad = await failure(client(net({ env: { httpsProxy: 'http://u:secretpw@[oops' } })).listAgents({ limit: 1 }));
		assert.ok(bad instanceof ProxyConfigError, inspect(bad));
		assert.match(bad.message, /^HTTPS_PROXY is not a valid proxy URL/);
		assert.ok(!inspect(socks).includes('secretpw') && !inspect(bad).includes('secretpw'));
	});

	test('http.proxyStrictSSL false accepts a certificate nobody trusts (direct and through the proxy), with one warning per log', async () => {
		const untrusted = net({ ca: [] });
		const refused = await failure(client(untrusted, { retry: { maxAttempts: 1 } }).listAgents({ limit: 1 }));
		assert.ok(refused instanceof NetworkError && refused.code === 'tls_error', inspect(refused));
		const log = collector();
		await client({ ...untrusted, strictSSL: false }, { logger: log }).listAgents({ limit: 1 });
		await client({ ...untrusted, strictSSL: false, proxy: proxy.urlWithCredentials }, { logger: log }).listAgents({ limit: 1 });
		throughProxy();
		assert.equal(log.warnings.length, 1, log.warnings.join('\n'));
		assert.match(log.warnings[0] ?? '', /certificates are NOT verified/);
	});

	test('http.proxyStrictSSL false: the warning reaches a log even when a client without one built the shared route', async () => {
		// The sign-in's key check (no log) may reach a new URL before the session's client does; both
		// then share one dispatcher, and the session's log must still be told.
		const insecure = { ...net({ ca: [] }), strictSSL: false };
		const first = client(insecure);
		const log = collector();
		const second = client(insecure, { logger: log });
		await first.listAgents({ limit: 1 });
		await second.listAgents({ limit: 1 });
		assert.equal(log.warnings.length, 1, log.warnings.join('\n'));
		assert.match(log.warnings[0] ?? '', /certificates are NOT verified/);
	});

	test('http.systemCertificates: the test CA is still trusted with the system store added (where this Node reads it)', async () => {
		const log = collector();
		await client(net({ systemCertificates: true }), { logger: log }).listAgents({ limit: 1 });
		const line = log.lines.find((l) => l.includes('certificates:')) ?? '';
		if (systemCertificatesSupported()) {
			assert.match(line, /\+ \d+ system certificates \+ 1 given/);
		} else {
			assert.match(line, /the system store needs Node ≥ 22\.15/);
		}
	});

	test("Create Agent's GitHub look-up goes the same way (through the proxy)", async () => {
		// The emulator stands in for api.github.com: it does not know the route, and answers 404.
		const resolver = new GitHubResolver({ connect: nodeConnect, baseUrl: emu.url, network: net({ proxy: proxy.urlWithCredentials }) });
		try {
			const err = await failure(resolver.resolve({ owner: 'octocat', repo: 'hello-world', text: 'octocat/hello-world' }));
			assert.ok(err instanceof GitHubLookupError && err.failure === 'not_found', inspect(err));
		} finally {
			resolver.close();
		}
		throughProxy();
	});

	test('a changed setting applies to the next request of a client that exists (a new dispatcher)', async () => {
		let settings = net();
		const c = client(() => settings);
		await c.listAgents({ limit: 1 });
		assert.deepEqual(proxy.log, [], 'direct at first');
		settings = net({ proxy: proxy.urlWithCredentials });
		await c.listAgents({ limit: 1 });
		throughProxy();
		proxy.log.length = 0;
		settings = net({ proxy: proxy.urlWithCredentials, noProxy: [ip ?? ''] });
		await c.listAgents({ limit: 1 });
		assert.deepEqual(proxy.log, [], 'direct again');
	});

	test('a 5xx from the proxy (it cannot reach the host) is an outage, not a refusal', async () => {
		// The proxy is asked for a host that refuses: it answers the CONNECT with an error status.
		const closed = await startEmulator({
			port: 0,
			host: ip,
			seed: 'demo',
			quiet: true,
			tls: await emulatorTls(ca, 'valid', undefined, [ip ?? '']),
		});
		const url = closed.url;
		await closed.close();
		const c = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: url,
			getToken: () => DEV_TOKEN,
			network: net({ proxy: proxy.urlWithCredentials }),
			retry: { maxAttempts: 1 },
		});
		clients.push(c);
		const err = await failure(c.listAgents({ limit: 1 }));
		assert.ok(err instanceof ApiError, inspect(err));
		assert.equal(proxy.log[0]?.method, 'CONNECT');
		assert.ok(err instanceof NetworkError, `${err.code}: ${err.message}`);
		assert.equal(isUnreachable(err), true);
		assert.match(
			err.message,
			new RegExp(
				`^The proxy 127\\.0\\.0\\.1:${proxy.port} could not reach ${url.replace('https://', '').replace(/\./g, '\\.')} \\(HTTP \\d{3} from the proxy\\)$`,
			),
		);
	});
});
