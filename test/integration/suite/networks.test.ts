/**
 * Networks (issue 22) in the extension host: the service over HTTPS with private certificate
 * authorities, and an authenticating proxy, configured the way VS Code users configure them
 * (`http.proxy`, `http.noProxy`, `http.proxyStrictSSL`, `http.systemCertificates`, NODE_EXTRA_CA_CERTS).
 * The service is the harness's emulator behind a TLS front on this machine's non-loopback address
 * (support/tlsFront.ts; loopback is never proxied); the certificate authorities come from the harness
 * (scripts/lib/networkFixtures.mjs): one trusted through NODE_EXTRA_CA_CERTS, one through the system
 * store, one trusted nowhere. The proxy (test/support/proxy.ts) runs here, so its log is at hand.
 * The admin calls go to the emulator with this suite's own undici dispatcher: the extension host's
 * global fetch is VS Code's, which follows http.proxy too.
 */
import * as assert from 'node:assert/strict';
import * as tls from 'node:tls';
import { Agent, request } from 'undici';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { FS_SCHEME } from '../../../src/ids';
import { startProxy, type TestProxy } from '../../support/proxy';
import { createIdleAgent, restoreDevToken, testApi, waitFor, within, writtenText, storedEvents, followEnded } from '../support/cloudAgents';
import { type NetworkFixtures, devToken, emulatorUrl, networkFixtures, words } from '../support/env';
import { type TlsFront, startTlsFront } from '../support/tlsFront';

const USER = 'netuser';
const PASSWORD = 'n3t pass:word';
const WRONG = 'not-the-password';

const rows = async (key: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key)) ?? [];

/** The agents view, loaded afresh. */
async function agentRows(): Promise<RowSnapshot[]> {
	await vscode.commands.executeCommand('cloudAgents.agents.refresh');
	return rows('agents');
}

function errorRow(list: RowSnapshot[]): RowSnapshot | undefined {
	return list.find((r) => r.contextValue === 'error');
}

suite('Networks: proxies and certificates', function () {
	this.timeout(60_000);
	let api: CloudAgentsTestApi;
	let fx: NetworkFixtures;
	let host: string;
	const fronts: TlsFront[] = [];
	let proxy: TestProxy | undefined;
	const admin = new Agent();
	/** Settings this suite changed and their global values before. */
	const saved = new Map<string, unknown>();
	let agentId: string | undefined;
	const followed: string[] = [];

	/** A call to the emulator the fronts forward to, past any proxy. */
	async function emulator<T>(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: T }> {
		const res = await request(`${emulatorUrl()}${path}`, {
			method: method as 'GET',
			dispatcher: admin,
			headers: {
				...(body === undefined ? {} : { 'content-type': 'application/json' }),
				...(token ? { authorization: `Bearer ${token}` } : {}),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		const text = await res.body.text();
		return { status: res.statusCode, body: (text ? JSON.parse(text) : undefined) as T };
	}

	async function setting(key: string, value: unknown): Promise<void> {
		const dot = key.lastIndexOf('.');
		const config = vscode.workspace.getConfiguration(key.slice(0, dot));
		if (!saved.has(key)) {
			saved.set(key, config.inspect(key.slice(dot + 1))?.globalValue);
		}
		await config.update(key.slice(dot + 1), value, vscode.ConfigurationTarget.Global);
	}

	/** Sets http.* settings and waits until the session's network settings show them. */
	async function network(values: {
		proxy?: string;
		noProxy?: string[];
		proxyStrictSSL?: boolean;
		systemCertificates?: boolean;
	}): Promise<void> {
		for (const [name, value] of Object.entries(values)) {
			await setting(`http.${name}`, value);
		}
		await waitFor('the network settings to apply', async () => {
			const s = api.session.networkSettings();
			const ok =
				(!('proxy' in values) || s.proxy === values.proxy) &&
				(!('noProxy' in values) || JSON.stringify(s.noProxy) === JSON.stringify(values.noProxy ?? [])) &&
				(!('proxyStrictSSL' in values) || s.strictSSL === (values.proxyStrictSSL ?? true)) &&
				(!('systemCertificates' in values) || s.systemCertificates === (values.systemCertificates ?? true));
			return ok ? true : undefined;
		});
	}

	async function front(which: 'extra' | 'system' | 'untrusted'): Promise<TlsFront> {
		const f = await startTlsFront(host, fx[which], emulatorUrl());
		fronts.push(f);
		return f;
	}

	/** Points the extension at `url` (cloudAgents.apiUrl). */
	async function useService(url: string): Promise<void> {
		await setting('cloudAgents.apiUrl', url);
		await waitFor(`the session to use ${url}`, async () => (api.session.apiUrl === url ? true : undefined));
	}

	async function signInWithKey(): Promise<boolean | undefined> {
		return vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: devToken() });
	}

	/** Starts a run on the suite's agent and follows it through the extension; resolves with how many events it stored. */
	async function followRun(prompt: string): Promise<number> {
		assert.ok(agentId);
		const run = await emulator<{ id: string }>('POST', `/v2/agents/${encodeURIComponent(agentId)}/runs`, { prompt }, devToken());
		assert.equal(run.status, 202, JSON.stringify(run.body));
		followed.push(run.body.id);
		await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.body.id });
		const outcome = await within('the followed run to end', followEnded(api, agentId, run.body.id), 40_000);
		assert.equal(outcome.status, words().run.succeeded, JSON.stringify(outcome));
		return (await storedEvents(api, agentId, run.body.id)).length;
	}

	/** Every CONNECT the proxy saw went to the front with the right credentials; the token never crossed it in clear. */
	function throughProxy(target: TlsFront): void {
		assert.ok(proxy && proxy.log.length > 0, 'the proxy saw the traffic');
		assert.deepEqual(
			proxy.log.filter((e) => e.method !== 'CONNECT' || e.target !== target.hostPort || !e.authorized),
			[],
			JSON.stringify(proxy.log),
		);
		assert.ok(!proxy.raw.join('\n').includes(devToken()), 'the token is not in what the proxy read');
	}

	/** Opens new tunnels from here on (the old ones are cut) and forgets what the proxy saw. */
	function freshProxyLog(): void {
		assert.ok(proxy);
		proxy.dropConnections();
		proxy.log.length = 0;
		proxy.raw.length = 0;
	}

	suiteSetup(async function () {
		api = await testApi();
		const fixtures = await networkFixtures();
		if (!fixtures?.host) {
			console.log(
				fixtures
					? '      skipped: this machine has no non-loopback IPv4 address (a proxied target must not be loopback)'
					: '      skipped: no network fixtures (CLOUD_AGENTS_TEST_NETWORK; run through npm run test:integration)',
			);
			this.skip();
		}
		fx = fixtures;
		host = fixtures.host;
		agentId = await createIdleAgent('networks-suite', emulator);
	});

	suiteTeardown(async () => {
		for (const runId of followed) {
			if (agentId) await api.runFollower.forget(agentId, runId).catch(() => undefined);
		}
		if (api?.session.apiUrl !== emulatorUrl()) {
			await api?.session.deleteToken().catch(() => undefined);
		}
		for (const [key, value] of [...saved].reverse()) {
			const dot = key.lastIndexOf('.');
			await vscode.workspace.getConfiguration(key.slice(0, dot)).update(key.slice(dot + 1), value, vscode.ConfigurationTarget.Global);
		}
		if (api) {
			await waitFor('the session to use the emulator again', async () => (api.session.apiUrl === emulatorUrl() ? true : undefined));
			await restoreDevToken();
		}
		if (agentId) {
			await emulator('DELETE', `/v2/agents/${encodeURIComponent(agentId)}?delete_runtime=true`, undefined, devToken());
		}
		await proxy?.close();
		for (const f of fronts.splice(0)) await f.close();
		await admin.close();
		await vscode.commands.executeCommand('notifications.clearAll');
		await vscode.commands.executeCommand('workbench.action.closePanel');
	});

	test('a certificate authority nobody trusts: the clear TLS message, and no request (no token) reached the service', async () => {
		const untrusted = await front('untrusted');
		await useService(untrusted.url);
		assert.equal(await signInWithKey(), false, 'the key cannot be checked over a connection that is not trusted');
		await api.session.storeToken(devToken());
		const error = errorRow(await agentRows());
		assert.ok(error, 'the agents view shows the failure');
		assert.ok(
			(error.tooltip ?? '').includes(
				`${untrusted.hostPort}: secure connection refused: its certificate is not signed by an authority this machine trusts`,
			),
			error.tooltip,
		);
		assert.match(error.tooltip ?? '', /\[SELF_SIGNED_CERT_IN_CHAIN\]/);
		assert.doesNotMatch(error.tooltip ?? '', /fetch failed/);
		assert.equal(untrusted.connections, 0, 'no connection got past the handshake, so nothing (no token) was sent');
		assert.ok(untrusted.refused >= 1, `the handshakes were refused (${untrusted.refused})`);
		await api.session.deleteToken();
	});

	test('the authority trusted through NODE_EXTRA_CA_CERTS: sign-in, the views load and a run is followed', async () => {
		const trusted = await front('extra');
		await useService(trusted.url);
		assert.equal(await signInWithKey(), true);
		const list = await agentRows();
		assert.equal(errorRow(list), undefined, JSON.stringify(errorRow(list)));
		assert.ok(
			list.some((r) => r.label.includes('Refactor billing module')),
			`the seed's agents are listed: ${list.map((r) => r.label).join(', ')}`,
		);
		assert.ok((await followRun('[[events:5]] networks: trusted CA')) >= 5);
		assert.ok(trusted.connections > 0);
	});

	suite('through an authenticating proxy (http.proxy with credentials)', () => {
		let service: TlsFront;
		suiteSetup(async function () {
			if (!fx) this.skip();
			service = await front('extra');
			await useService(service.url);
			proxy = await startProxy({ user: USER, password: PASSWORD });
			await network({ proxy: proxy.urlWithCredentials });
			if (!(await api.session.getToken())) {
				assert.equal(await signInWithKey(), true);
			}
		});

		test('list requests go through it', async () => {
			freshProxyLog();
			const list = await agentRows();
			assert.equal(errorRow(list), undefined, JSON.stringify(errorRow(list)));
			assert.ok(list.length > 0);
			throughProxy(service);
		});

		test('cloud-agent:// workspace reads go through it', async () => {
			assert.ok(agentId);
			const text = `networks ${Date.now()}\n`;
			const written = await emulator('POST', `/_emulator/workspace/${agentId}/write`, {
				path: 'networks.txt',
				content_base64: Buffer.from(text).toString('base64'),
			});
			assert.ok(written.status < 300, JSON.stringify(written.body));
			await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
			freshProxyLog();
			const file = vscode.Uri.from({ scheme: FS_SCHEME, authority: agentId, path: '/networks.txt' });
			assert.equal(Buffer.from(await vscode.workspace.fs.readFile(file)).toString('utf8'), text);
			throughProxy(service);
		});

		test('the run stream of a followed run goes through it', async () => {
			freshProxyLog();
			assert.ok((await followRun('[[events:5]] networks: through the proxy')) >= 5);
			throughProxy(service);
		});

		test('the device-flow sign-in goes through it', async () => {
			await api.session.deleteToken();
			freshProxyLog();
			const before = new Set(
				((await emulator<{ devices?: Array<{ user_code: string }> }>('GET', '/_emulator/state')).body.devices ?? []).map(
					(d) => d.user_code,
				),
			);
			const result = vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { method: 'device', openBrowser: false });
			const row = await waitFor('a new device authorization', async () =>
				(
					(
						await emulator<{ devices?: Array<{ user_code: string; client_id: string; state: string }> }>(
							'GET',
							'/_emulator/state',
						)
					).body.devices ?? []
				).find((d) => !before.has(d.user_code) && d.client_id === 'cloud-agents-vscode' && d.state === 'pending'),
			);
			// Until approved, only the device flow talks to the service (the views are signed out).
			throughProxy(service);
			const approved = await emulator('POST', '/_emulator/device/approve', { user_code: row.user_code });
			assert.equal(approved.status, 200, JSON.stringify(approved.body));
			assert.equal(await within('the device sign-in to finish', result, 25_000), true);
			throughProxy(service);
			const token = await api.session.getToken();
			assert.ok(token && !proxy?.raw.join('\n').includes(token), 'the new token is not in what the proxy read either');
		});

		test('http.noProxy sends the host direct: the proxy sees nothing', async () => {
			await network({ noProxy: [host] });
			freshProxyLog();
			const list = await agentRows();
			assert.equal(errorRow(list), undefined, JSON.stringify(errorRow(list)));
			assert.deepEqual(proxy?.log, []);
			await network({ noProxy: undefined });
		});

		test('a wrong password: the 407 message names the proxy as host:port, never the password', async () => {
			assert.ok(proxy);
			await network({ proxy: `http://${USER}:${encodeURIComponent(WRONG)}@127.0.0.1:${proxy.port}` });
			freshProxyLog();
			const error = errorRow(await agentRows());
			assert.ok(error, 'the agents view shows the failure');
			assert.ok(
				(error.tooltip ?? '').includes(
					`The proxy 127.0.0.1:${proxy.port} refused the credentials (407 Proxy Authentication Required). Check http.proxy / http.proxyAuthorization.`,
				),
				error.tooltip,
			);
			assert.ok(proxy.log.length > 0 && proxy.log.every((e) => !e.authorized));
			const shown = JSON.stringify(await rows('agents'));
			const written = (await writtenText(api)).map((f) => f.text).join('\n');
			for (const secret of [WRONG, PASSWORD, encodeURIComponent(PASSWORD), devToken()]) {
				assert.ok(!shown.includes(secret), `the view shows ${secret}`);
				assert.ok(!written.includes(secret), `a log holds ${secret}`);
			}
			await network({ proxy: undefined });
		});
	});

	test('the authority trusted through the system store: trusted with http.systemCertificates, refused without it', async function () {
		if (typeof (tls as { getCACertificates?: unknown }).getCACertificates !== 'function') {
			console.log(`      skipped: this Node (${process.version}) cannot read the system store (tls.getCACertificates: Node ≥ 22.15)`);
			this.skip();
		}
		const system = await front('system');
		await useService(system.url);
		assert.equal(await signInWithKey(), true, 'trusted through the system store (http.systemCertificates is on by default)');
		assert.equal(errorRow(await agentRows()), undefined);
		await network({ systemCertificates: false });
		const error = errorRow(await agentRows());
		assert.ok(error, 'without the system store the certificate is not trusted');
		assert.match(error.tooltip ?? '', /secure connection refused: its certificate is not signed by an authority this machine trusts/);
		await network({ systemCertificates: undefined });
		assert.equal(errorRow(await agentRows()), undefined, 'trusted again');
	});

	test('http.proxyStrictSSL false: a certificate nobody trusts is accepted, with one warning in the log', async () => {
		const untrusted = await front('untrusted');
		await network({ proxyStrictSSL: false });
		await useService(untrusted.url);
		assert.equal(await signInWithKey(), true);
		assert.equal(errorRow(await agentRows()), undefined);
		assert.ok(untrusted.connections > 0);
		const written = (await writtenText(api)).map((f) => f.text).join('\n');
		assert.equal(written.split('certificates are NOT verified').length - 1, 1, 'one warning');
		await network({ proxyStrictSSL: undefined });
	});
});
