import * as assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as vscode from 'vscode';
import { ApiError, CloudAgentsClient } from '../../../src/api';
import { browserVerificationUrl, rejectedText } from '../../../src/auth/signIn';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { emu, restoreDevToken, testApi, waitFor, within, writtenText, followedRunStatus, followEnded } from '../support/cloudAgents';
import { devToken, emulatorUrl } from '../support/env';
import { nodeConnect } from '../../../src/platform/node/network';

/**
 * The demo's sign-in journeys (`npm start`): approving a device code through code-server's port
 * proxy, signing in again after Sign Out revoked the key (with a key minted by the emulator's admin
 * API, as `npm run demo:key` does), and what the status bar and run following do meanwhile.
 */

interface DeviceRow {
	user_code: string;
	client_id: string;
	state: string;
}

async function deviceRows(): Promise<DeviceRow[]> {
	return (await emu<{ devices?: DeviceRow[] }>('GET', '/_emulator/state')).body.devices ?? [];
}

/** A fresh API key from the emulator's admin API (what `npm run demo:key` prints). */
async function mintKey(): Promise<string> {
	const res = await emu<{ api_key?: string }>('POST', '/_emulator/keys');
	assert.equal(res.status, 201, JSON.stringify(res.body));
	assert.equal(typeof res.body.api_key, 'string');
	return res.body.api_key!;
}

/**
 * A stand-in of code-server's port proxy: `/proxy/<port>/<path>` forwards to `127.0.0.1:<port>/<path>`
 * (prefix stripped); anything else is code-server's own ("Unsupported method POST" for a POST).
 */
async function startPortProxy(target: URL): Promise<{ server: Server; base: string; prefix: string }> {
	const prefix = `/proxy/${target.port}`;
	const server = createServer((req, res) => {
		const url = req.url ?? '/';
		if (!url.startsWith(`${prefix}/`)) {
			res.writeHead(req.method === 'GET' ? 404 : 405, { 'content-type': 'text/plain' });
			res.end(req.method === 'GET' ? 'Not found' : `Unsupported method ${req.method ?? ''}`);
			return;
		}
		const upstream = request(
			{
				host: target.hostname,
				port: target.port,
				method: req.method,
				path: url.slice(prefix.length),
				headers: { ...req.headers, host: target.host },
			},
			(up) => {
				res.writeHead(up.statusCode ?? 502, up.headers);
				up.pipe(res);
			},
		);
		upstream.on('error', () => {
			res.writeHead(502);
			res.end();
		});
		req.pipe(upstream);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, prefix };
}

/** Every href and form action of an HTML page. */
function links(html: string): string[] {
	return [...html.matchAll(/\b(?:href|action)="([^"]*)"/g)].map((m) => m[1]!);
}

suite('Auth demo', () => {
	let api: CloudAgentsTestApi;
	const minted = new Set<string>();

	async function freshKey(): Promise<string> {
		const key = await mintKey();
		minted.add(key);
		return key;
	}

	suiteSetup(async () => {
		api = await testApi();
	});

	teardown(async () => {
		await restoreDevToken();
	});

	suiteTeardown(async () => {
		await vscode.commands.executeCommand('notifications.clearAll');
		await vscode.commands.executeCommand('workbench.action.closePanel');
	});

	test('device approval works through a port proxy path prefix (/proxy/<port>/device): the form posts to its relative action and sign-in completes', async function () {
		this.timeout(40_000);
		const proxy = await startPortProxy(new URL(emulatorUrl()));
		try {
			await api.session.deleteToken();
			const before = new Set((await deviceRows()).map((d) => d.user_code));
			const result = vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { method: 'device', openBrowser: false });
			const row = await waitFor('a new device authorization', async () =>
				(await deviceRows()).find(
					(d) => !before.has(d.user_code) && d.client_id === 'cloud-agents-vscode' && d.state === 'pending',
				),
			);

			// What a browser does with the approval page reached through the proxy.
			const pageUrl = `${proxy.base}${proxy.prefix}/device?user_code=${encodeURIComponent(row.user_code)}`;
			const page = await fetch(pageUrl);
			assert.equal(page.status, 200);
			const html = await page.text();
			const action = /<form[^>]*\baction="([^"]*)"/.exec(html)?.[1];
			assert.ok(action !== undefined, 'the approval page has no form action');
			for (const link of links(html)) {
				assert.ok(new URL(link, pageUrl).pathname.startsWith(`${proxy.prefix}/`), `"${link}" leaves the proxy prefix`);
			}
			const submitted = await fetch(new URL(action, pageUrl), {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({ user_code: row.user_code, action: 'approve' }).toString(),
			});
			const answer = await submitted.text();
			assert.equal(submitted.status, 200, `the form post answered ${submitted.status}: ${answer.slice(0, 200)}`);
			assert.match(answer, /Device connected/);

			assert.equal(await within('device sign-in to finish', result, 25_000), true);
			assert.equal(api.session.signedIn, true);
			const token = await api.session.getToken();
			assert.ok(token && token !== devToken());
			minted.add(token);

			// The error page's "Try again" link stays under the prefix too.
			const failed = await fetch(new URL(action, pageUrl), {
				method: 'POST',
				headers: { 'content-type': 'application/x-www-form-urlencoded' },
				body: new URLSearchParams({ user_code: row.user_code, action: 'approve' }).toString(),
			});
			assert.notEqual(failed.status, 200, 'approving a consumed code again succeeded');
			const failedLinks = links(await failed.text());
			assert.ok(failedLinks.length > 0, 'the error page has no "Try again" link');
			for (const link of failedLinks) {
				assert.ok(new URL(link, pageUrl).pathname.startsWith(`${proxy.prefix}/`), `"${link}" leaves the proxy prefix`);
			}
		} finally {
			proxy.server.close();
		}
	});

	test("the device verification address is shown as the browser reaches it: code-server's port proxy for the loopback emulator", async () => {
		const emulator = new URL(emulatorUrl());
		const shown = await browserVerificationUrl(`${emulatorUrl()}/device?user_code=BCDF-GHJK`);
		assert.ok(shown !== undefined);
		const url = new URL(shown);
		if (vscode.env.uiKind === vscode.UIKind.Web) {
			// The browser may be on another machine: never the emulator's own loopback address.
			assert.equal(url.pathname, `/proxy/${emulator.port}/device`, shown);
		} else {
			assert.equal(url.pathname, '/device', shown);
		}
		assert.equal(url.searchParams.get('user_code'), 'BCDF-GHJK');
		assert.equal(await browserVerificationUrl('https://auth.example.com/device'), 'https://auth.example.com/device');
		assert.equal(await browserVerificationUrl('http://auth.example.com/device'), undefined);
		assert.equal(await browserVerificationUrl('javascript:alert(1)'), undefined);
	});

	test("after Sign Out revoked the key, signing in with it again says the server's reason; a freshly minted key signs in again", async function () {
		this.timeout(40_000);
		const key = await freshKey();
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: key }), true);
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { confirm: false }), true);
		assert.equal(api.session.signedIn, false);

		assert.equal(
			await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: key }),
			false,
			'the revoked key was accepted',
		);
		assert.equal(api.session.signedIn, false);
		// The message shown for this rejection (the same function the command uses, with the real error).
		const client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emulatorUrl(),
			getToken: () => key,
			userAgent: 'auth-demo-test',
		});
		let err: unknown;
		try {
			await client.getMe();
		} catch (e) {
			err = e;
		} finally {
			client.close();
		}
		assert.ok(err instanceof ApiError && err.status === 401, `GET /v2/me with the revoked key: ${String(err)}`);
		const text = rejectedText(err, emulatorUrl());
		assert.match(text, /not accepted/);
		assert.match(text, /the token was revoked/, text);
		assert.match(text, /npm run demo:key/, text);
		assert.ok(!text.includes(key));
		// The log says it too.
		await waitFor('the rejection reason in the log', async () =>
			(await writtenText(api)).some((w) => w.text.includes('was rejected by') && w.text.includes('the token was revoked'))
				? true
				: undefined,
		);

		const fresh = await freshKey();
		assert.equal(
			await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: fresh }),
			true,
			'a freshly minted key was not accepted',
		);
		assert.equal(api.session.signedIn, true);
		assert.ok((await api.session.client.getMe()).id, 'the session cannot read /v2/me with the fresh key');
		const me = await emu<{ id?: string }>('GET', '/v2/me', undefined, fresh);
		assert.equal(me.status, 200);
	});

	test('the key-minting admin endpoint is not part of the API: /v2 and /v1 do not have it', async () => {
		for (const path of ['/v2/_emulator/keys', '/v1/_emulator/keys', '/v2/keys']) {
			const res = await emu('POST', path, undefined, devToken());
			assert.ok(res.status === 404 || res.status === 405, `${path} answered ${res.status}`);
		}
	});

	test('Sign Out stops following and the status bar says signed out (not "running"); signing in again resumes following', async function () {
		this.timeout(90_000);
		const key = await freshKey();
		assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: key }), true);
		const created = await emu<{ id: string }>('POST', '/v2/agents', { name: `auth-demo-${Date.now()}` }, devToken());
		assert.equal(created.status, 201, JSON.stringify(created.body));
		const agentId = created.body.id;
		try {
			await waitFor(
				'the agent to become idle',
				async () =>
					(await emu<{ status: string }>('GET', `/v2/agents/${encodeURIComponent(agentId)}`, undefined, devToken())).body
						.status === 'idle'
						? true
						: undefined,
				30_000,
			);
			const started = await emu<{ id: string }>(
				'POST',
				`/v2/agents/${encodeURIComponent(agentId)}/runs`,
				{ prompt: '[[hold]] follow across a sign-out' },
				devToken(),
			);
			assert.equal(started.status, 202, JSON.stringify(started.body));
			const runId = started.body.id;
			const seqs: number[] = [];
			const sub = api.runFollower.onDidReceiveEvent((e) => {
				if (e.runId === runId) {
					seqs.push(e.event.seq);
				}
			});
			try {
				await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId });
				await waitFor(
					'the run to be running',
					async () => (/running/.test(followedRunStatus(api)?.text ?? '') ? true : undefined),
					20_000,
				);
				assert.ok(api.runFollower.following.some((f) => f.runId === runId));

				assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signOut', { confirm: false }), true);
				await waitFor('following to stop', async () => (api.runFollower.following.length === 0 ? true : undefined));
				await waitFor(
					'the status bar to say signed out',
					async () => (/signed out/i.test(followedRunStatus(api)?.text ?? '') ? true : undefined),
					5_000,
				).catch(() => assert.fail(`status bar after sign-out: "${followedRunStatus(api)?.text ?? ''}"`));
				assert.doesNotMatch(followedRunStatus(api)?.text ?? '', /running/);
				const seenWhileSignedOut = seqs.length;

				assert.equal(await vscode.commands.executeCommand<boolean>('cloudAgents.signIn', { apiKey: await freshKey() }), true);
				await waitFor(
					'following to resume',
					async () => (api.runFollower.following.some((f) => f.runId === runId) ? true : undefined),
					10_000,
				).catch(() =>
					assert.fail(
						`following did not resume after signing in again (following: ${JSON.stringify(api.runFollower.following)})`,
					),
				);
				assert.doesNotMatch(followedRunStatus(api)?.text ?? '', /signed out/i);
				const cancelled = await emu(
					'DELETE',
					`/v2/agents/${encodeURIComponent(agentId)}/runs/${encodeURIComponent(runId)}`,
					undefined,
					devToken(),
				);
				assert.ok(cancelled.status < 300, `cancel answered ${cancelled.status}`);
				const outcome = await within('the run to end', followEnded(api, agentId, runId), 20_000);
				assert.equal(outcome.status, 'cancelled');
				assert.ok(seqs.length > seenWhileSignedOut, 'no events after signing in again');
				// Resumed from the cursor: no event twice.
				assert.equal(new Set(seqs).size, seqs.length, 'an event was received twice');
			} finally {
				sub.dispose();
			}
		} finally {
			await emu('DELETE', `/v2/agents/${encodeURIComponent(agentId)}?delete_runtime=true`, undefined, devToken());
		}
	});

	test('no minted key appears in any log, output channel or event file', async () => {
		const written = await writtenText(api);
		assert.ok(minted.size > 0);
		for (const { file, text } of written) {
			for (const token of minted) {
				assert.ok(!text.includes(token), `a token appears in ${file}`);
			}
		}
	});
});
