/**
 * The decoders of the service's answers (src/api/decode.ts): the platform resources, the SSH
 * gateway host key and secrets, and the session replay's items. Each part below says what it covers.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { CloudAgentsClient, SAFETY, decodeSessionEvent } from '../../../src/api';
import {
	InvalidResponseError,
	decodeGatewayHostKey,
	decodeGitHubAuthorizationRequest,
	decodeRuntime,
	decodeSecret,
	decodeSecretStub,
	decodeStubConfig,
	parseStubConfig,
} from '../../../src/api/decode';
import type { Runtime } from '../../../src/api';
import { AGENT_ID, RUNTIME_ID, TOKEN } from '../../hostile/fixtures';
import { type HostileServer, REQUEST_ID, type Scenario, json, startHostile } from '../../hostile/server';
import { CLIENT_PROFILES, DEV_TOKEN, type TestEmulator, isVariant, startTestEmulator } from '../support/emulator';
import { recordingLogger } from '../support/leaks';
import { serve } from '../support/serve';
import { nodeConnect } from '../../../src/platform/node/network';

/**
 * The decoders of the platform resources (src/api/decode.ts, the block "secret stubs, SSH keys,
 * GitHub"): secret stubs and their configuration, the SSH keys and GitHub bindings a runtime record
 * carries, GitHub authorization requests. Hostile input — wrong types, huge strings, missing
 * fields, control characters, links that are not https — is decoded safely or dropped, never
 * thrown past the listing and never kept where a route, a lookup or the browser would use it.
 */

const HUGE = 'x'.repeat(SAFETY.recordTextMaxChars + 1);

function stub(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		id: '0b5e8f3c-0000-4000-8000-0000000000aa',
		host_pattern: 'api.example.com',
		path_pattern: '/v1/*',
		runtime_display_name: 'atlas',
		stub_config_json: JSON.stringify({ headerName: 'Authorization', valueFormat: 'Bearer ${credential}' }),
		stub_value_display_name: 'openai-api-key',
		...overrides,
	};
}

function runtime(overrides: Record<string, unknown> = {}): Record<string, unknown> {
	return { id: RUNTIME_ID, display_name: 'atlas', status: 'running', revision: 3, ...overrides };
}

function request(overrides: Record<string, unknown> = {}, lifecycle: Record<string, unknown> = {}): Record<string, unknown> {
	return {
		request_id: 'ghreq_0001',
		requested_by: 'agent atlas',
		reason: 'push the fix',
		created_at_unix_seconds: 1_760_000_000,
		lifecycle: {
			status: 'pending',
			authorization_url: 'https://github.com/login/oauth/authorize?x=1',
			expires_at_unix_seconds: 1_760_000_900,
			...lifecycle,
		},
		...overrides,
	};
}

suite('platform resource decoders (crafted answers)', () => {
	suite('secret stubs', () => {
		test('a well-formed stub is kept as it is (no copy)', () => {
			const raw = stub();
			assert.equal(decodeSecretStub(raw, {}), raw);
		});

		test('members of the wrong type, or longer than the record text bound, are left out; the rest is kept', () => {
			const s = decodeSecretStub(
				stub({
					host_pattern: 42,
					path_pattern: { evil: true },
					runtime_display_name: HUGE,
					stub_value_display_name: ['a'],
					stub_config_json: { headerName: 'X' },
				}),
				{},
			);
			assert.deepEqual(s, { id: '0b5e8f3c-0000-4000-8000-0000000000aa' });
		});

		test('a configuration longer than SAFETY.stubConfigMaxChars is left out, one at the bound kept', () => {
			const long = JSON.stringify({ headerName: 'A', valueFormat: 'y'.repeat(SAFETY.stubConfigMaxChars) });
			assert.equal(decodeSecretStub(stub({ stub_config_json: long }), {}).stub_config_json, undefined);
			const atBound = `"${'z'.repeat(SAFETY.stubConfigMaxChars - 2)}"`;
			assert.equal(decodeSecretStub(stub({ stub_config_json: atBound }), {}).stub_config_json, atBound);
		});

		test('control and bidi characters in display text are kept for the display code to neutralise', () => {
			const s = decodeSecretStub(stub({ host_pattern: 'a\u202e.example\u0007' }), {});
			assert.equal(s.host_pattern, 'a\u202e.example\u0007');
		});

		test('a stub without a usable id is an error naming the field and the request id', () => {
			for (const id of [undefined, null, '', '..', 'a\nb', 7, 'x'.repeat(SAFETY.idMaxChars + 1)]) {
				assert.throws(
					() => decodeSecretStub(stub({ id }), { requestId: 'req-9' }),
					(err: unknown) => err instanceof InvalidResponseError && err.field === 'secret stub.id' && err.requestId === 'req-9',
					JSON.stringify(id),
				);
			}
			assert.throws(() => decodeSecretStub('not an object', {}), InvalidResponseError);
			assert.throws(() => decodeSecretStub([stub()], {}), InvalidResponseError);
		});

		test('the configuration: its string members only; unreadable JSON, arrays and scalars are no configuration', () => {
			assert.deepEqual(decodeStubConfig(JSON.stringify({ headerName: 'Authorization', value: 'token ${credential}', filePath: 5 })), {
				headerName: 'Authorization',
				value: 'token ${credential}',
			});
			assert.deepEqual(decodeStubConfig(JSON.stringify({ paramName: 'api_key', paramFormat: '{value}', extra: 'kept out' })), {
				paramName: 'api_key',
				paramFormat: '{value}',
			});
			assert.deepEqual(decodeStubConfig('{}'), {});
			for (const bad of [
				undefined,
				'',
				'not json',
				'[1,2]',
				'"text"',
				'null',
				'42',
				`{"headerName":"${'q'.repeat(SAFETY.stubConfigMaxChars)}"}`,
			]) {
				assert.equal(decodeStubConfig(bad), undefined, String(bad).slice(0, 20));
			}
		});

		test('the configuration for the record document: any JSON value, undefined when unreadable or over the bound', () => {
			assert.deepEqual(parseStubConfig('[1,2]'), [1, 2]);
			assert.equal(parseStubConfig('null'), null);
			assert.equal(parseStubConfig('{broken'), undefined);
			assert.equal(parseStubConfig(undefined), undefined);
			assert.equal(parseStubConfig(`"${'q'.repeat(SAFETY.stubConfigMaxChars)}"`), undefined);
		});
	});

	suite('SSH keys and GitHub bindings on a runtime record', () => {
		test('keys: items without a safe id are dropped, other members of the wrong type left out', () => {
			const r = decodeRuntime(
				runtime({
					ssh_keys: [
						{
							id: 'key_1',
							display_name: 'laptop',
							fingerprint: 'SHA256:abc',
							user_id: 'u1',
							created_at: '2026-11-01T00:00:00Z',
						},
						{ id: '..', display_name: 'route confusion' },
						{ id: 'bad\u0000id' },
						{ display_name: 'no id' },
						null,
						'key_3',
						{ id: 'key_2', display_name: 17, fingerprint: HUGE, public_key: ['x'] },
					],
				}),
				{},
			) as Runtime;
			assert.deepEqual(r.ssh_keys, [
				{ id: 'key_1', display_name: 'laptop', fingerprint: 'SHA256:abc', user_id: 'u1', created_at: '2026-11-01T00:00:00Z' },
				{ id: 'key_2' },
			]);
		});

		test('keys: a member that is not a list is left out (the server does not say which keys are attached)', () => {
			for (const ssh_keys of [{ id: 'key_1' }, 'key_1', 3, null]) {
				const r = decodeRuntime(runtime({ ssh_keys }), {}) as Runtime;
				assert.equal(r.ssh_keys, undefined, JSON.stringify(ssh_keys));
				assert.ok(!('ssh_keys' in r));
			}
			assert.deepEqual((decodeRuntime(runtime({ ssh_keys: [] }), {}) as Runtime).ssh_keys, []);
		});

		test('keys: at most SAFETY.pageMaxItems are kept', () => {
			const many = Array.from({ length: SAFETY.pageMaxItems + 5 }, (_, i) => ({ id: `key_${i}` }));
			const r = decodeRuntime(runtime({ ssh_keys: many }), {}) as Runtime;
			assert.equal(r.ssh_keys?.length, SAFETY.pageMaxItems);
		});

		test('a well-formed runtime with keys and bindings is not copied', () => {
			const raw = runtime({
				ssh_keys: [{ id: 'key_1', display_name: 'laptop' }],
				github_bindings: [{ id: 'b1', repository_id: 42, branch: 'main', sort_order: 0 }],
			});
			assert.equal(decodeRuntime(raw, {}), raw);
		});

		test('bindings: a repository id (safe integer) and a branch are required; a bad sort order is left out', () => {
			const r = decodeRuntime(
				runtime({
					github_bindings: [
						{ repository_id: 42, branch: 'main', sort_order: 1 },
						{ repository_id: '42', branch: 'main' },
						{ repository_id: 1.5, branch: 'main' },
						{ repository_id: -1, branch: 'main' },
						{ repository_id: 2 ** 60, branch: 'main' },
						{ repository_id: 7, branch: null },
						{ repository_id: 8, branch: HUGE },
						{ repository_id: 9, branch: 'dev', sort_order: 'first', id: 5 },
						[],
					],
				}),
				{},
			) as Runtime;
			assert.deepEqual(r.github_bindings, [
				{ repository_id: 42, branch: 'main', sort_order: 1 },
				{ repository_id: 9, branch: 'dev' },
			]);
			assert.equal((decodeRuntime(runtime({ github_bindings: { repository_id: 1 } }), {}) as Runtime).github_bindings, undefined);
		});
	});

	suite('GitHub authorization requests', () => {
		test('a well-formed request is kept as it is', () => {
			const raw = request();
			assert.equal(decodeGitHubAuthorizationRequest(raw, {}), raw);
		});

		test('who asked and why: another type or a huge text is left out, the request kept', () => {
			const r = decodeGitHubAuthorizationRequest(request({ requested_by: { name: 'x' }, reason: HUGE }), {});
			assert.equal(r.requested_by, undefined);
			assert.equal(r.reason, undefined);
			assert.equal(r.request_id, 'ghreq_0001');
		});

		test('no lifecycle (absent or null) is a request without a known state: kept without it', () => {
			for (const lifecycle of [undefined, null]) {
				const r = decodeGitHubAuthorizationRequest(request({ lifecycle }), {});
				assert.ok(!('lifecycle' in r) || r.lifecycle === undefined);
			}
		});

		test('a lifecycle that would open something else, expire oddly or has no readable state is an error (dropped from the listing)', () => {
			const bad: Array<[string, Record<string, unknown>]> = [
				['a javascript: URL', request({}, { authorization_url: 'javascript:alert(1)' })],
				['a plain http URL', request({}, { authorization_url: 'http://github.com/login' })],
				['a file: URL', request({}, { authorization_url: 'file:///etc/passwd' })],
				['a URL that is not one', request({}, { authorization_url: 'not a url' })],
				['a negative expiry', request({}, { expires_at_unix_seconds: -5 })],
				['a fractional expiry', request({}, { expires_at_unix_seconds: 1.5 })],
				['an expiry as text', request({}, { expires_at_unix_seconds: '1760000900' })],
				['a status that is not text', request({}, { status: 1 })],
				['a lifecycle that is not an object', request({ lifecycle: 'pending' })],
				['an unsafe request id', request({ request_id: '../x\n' })],
			];
			for (const [why, value] of bad) {
				assert.throws(
					() => decodeGitHubAuthorizationRequest(value, { requestId: 'req-7' }),
					(err: unknown) => err instanceof InvalidResponseError && err.requestId === 'req-7',
					why,
				);
			}
		});
	});

	suite('through the client (hostile server)', function () {
		this.timeout(30_000);
		let server: HostileServer | undefined;
		const clients: CloudAgentsClient[] = [];

		teardown(async () => {
			for (const c of clients.splice(0)) {
				c.close();
			}
			await server?.close();
		});

		async function client(routes: Scenario['routes']): Promise<CloudAgentsClient> {
			server = await startHostile({ description: 'platform records', routes });
			const c = new CloudAgentsClient({ connect: nodeConnect, baseUrl: server.baseUrl, getToken: () => TOKEN });
			clients.push(c);
			return c;
		}

		test('a stub listing delivers the usable stubs only, their bad members left out', async () => {
			const c = await client({
				'GET /v1/secret-stubs': (_q, res) =>
					json(res, 200, [stub({ id: '..' }), stub({ id: 'stub_ok', host_pattern: 5 }), stub({ id: 'stub\u0007' }), 'junk']),
			});
			const stubs = await c.listSecretStubs();
			assert.deepEqual(
				stubs.map((s) => [s.id, s.host_pattern]),
				[['stub_ok', undefined]],
			);
		});

		test('a created stub whose answer has no usable id is an error naming the field and the request id', async () => {
			const c = await client({ 'POST /v1/runtimes/*/secret-stubs': (_q, res) => json(res, 201, { data: stub({ id: '..' }) }) });
			await assert.rejects(
				c.createSecretStub(RUNTIME_ID, { host: 'api.example.com', config: { filePath: '/x' }, stub_value: 'k' }),
				(err: unknown) =>
					err instanceof InvalidResponseError && /secret stub\.id/.test(err.message) && err.requestId === REQUEST_ID,
			);
		});

		test('a request listing keeps the requests that can be offered: no javascript: link survives', async () => {
			const c = await client({
				'GET /v2/github/authorization-requests': (_q, res) =>
					json(res, 200, {
						requests: [
							request({ request_id: 'ok_1' }),
							request({ request_id: 'evil' }, { authorization_url: 'javascript:alert(1)' }),
							request({ request_id: 'ok_2', requested_by: 9 }),
						],
					}),
			});
			const requests = await c.listGitHubAuthorizationRequests();
			assert.deepEqual(
				requests.map((r) => [r.request_id, r.requested_by]),
				[
					['ok_1', 'agent atlas'],
					['ok_2', undefined],
				],
			);
		});
	});
});

/**
 * The decoders of the SSH gateway host key and of secrets (src/api/decode.ts): against the emulator
 * in each profile over real HTTP, and against crafted answers that must be refused or cleaned.
 */

/** An SSH public key blob of a type with a 32-byte body. */
function blob(type: string, body = Buffer.alloc(32, 7)): Buffer {
	const str = (b: Buffer): Buffer => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
	return Buffer.concat([str(Buffer.from(type)), str(body)]);
}
const fp = (b: Buffer): string => `SHA256:${createHash('sha256').update(b).digest('base64').replace(/=+$/, '')}`;

CLIENT_PROFILES.forEach((profile) =>
	suite(`platform records against the emulator [${profile}]`, function () {
		this.timeout(30_000);
		let emu: TestEmulator;
		let client: CloudAgentsClient;
		suiteSetup(async () => {
			emu = await startTestEmulator({ profile });
			client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN, logger: recordingLogger });
		});
		suiteTeardown(async () => {
			client.close();
			await emu.close();
		});

		test('the gateway host key decodes to the same key, fingerprint, host and port in every profile', async () => {
			const key = await client.getGatewayHostKey();
			assert.equal(key.keyType, 'ssh-ed25519');
			const raw = Buffer.from(key.keyBase64, 'base64');
			assert.equal(raw.length, 51);
			assert.equal(key.fingerprintSha256, fp(raw));
			assert.equal(key.host, 'gateway.cloud-agents.example');
			assert.equal(key.port, 2222);
		});

		test('a secret reads by name with its TTL; the preview only when masked (absent in the variant)', async () => {
			const s = (await client.getSecret('npm-token')) as Record<string, unknown>;
			assert.equal(s.display_name, 'npm-token');
			assert.equal(s.cache_ttl_secs, 600);
			if (isVariant(profile)) {
				assert.equal(s.value_preview, undefined);
			} else {
				assert.match(String(s.value_preview), /^npm•{8}h8$|^npm•+/);
			}
			assert.ok(!JSON.stringify(s).includes('npm_demoA1b2C3d4E5f6G7h8'), 'never the value');
		});
	}),
);

suite('platform decoders (crafted answers)', () => {
	const b = blob('ssh-ed25519');
	const b64 = b.toString('base64');

	test('host key: the standard shape, the variant shape and a bare key with host:port', () => {
		const std = decodeGatewayHostKey(
			{
				key_type: 'ssh-ed25519',
				public_key: `ssh-ed25519 ${b64} comment here`,
				fingerprint_sha256: fp(b),
				host: 'GW.Example.com',
				port: 22,
			},
			{},
		);
		assert.deepEqual(std, { keyType: 'ssh-ed25519', keyBase64: b64, fingerprintSha256: fp(b), host: 'gw.example.com', port: 22 });
		const variant = decodeGatewayHostKey(
			{ algorithm: 'ssh-ed25519', key: b64, fingerprints: { sha256: fp(b).slice(7) }, endpoint: 'ssh://gw.example.com:2200' },
			{},
		);
		assert.equal(variant.host, 'gw.example.com');
		assert.equal(variant.port, 2200);
		const bare = decodeGatewayHostKey({ public_key: `ssh-ed25519 ${b64}`, gateway: '[2001:db8::1]:2201' }, {});
		assert.equal(bare.host, '2001:db8::1');
		assert.equal(bare.port, 2201);
		const nohost = decodeGatewayHostKey({ public_key: `ssh-ed25519 ${b64}` }, {});
		assert.equal(nohost.host, undefined);
		assert.equal(nohost.fingerprintSha256, fp(b));
	});

	test('host key: what would corrupt a known_hosts line or trust another key is refused', () => {
		const bad: Array<[string, Record<string, unknown>]> = [
			[
				'a fingerprint of another key',
				{ public_key: `ssh-ed25519 ${b64}`, fingerprint_sha256: fp(blob('ssh-ed25519', Buffer.alloc(32, 8))) },
			],
			['a type that disagrees with the blob', { key_type: 'ssh-rsa', key: b64 }],
			['a blob of another type than its prefix', { public_key: `ssh-rsa ${b64}` }],
			['a newline in the host', { public_key: `ssh-ed25519 ${b64}`, host: 'gw.example.com\nevil.example.com ssh-ed25519 AAAA' }],
			['a space or comma in the host', { public_key: `ssh-ed25519 ${b64}`, host: 'a.example,b.example' }],
			['a port out of range', { public_key: `ssh-ed25519 ${b64}`, host: 'gw.example.com', port: 70000 }],
			['loose base64', { public_key: `ssh-ed25519 ${b64.slice(0, -1)}` }],
			['a key type with odd characters', { key_type: 'ssh ed25519', key: b64 }],
			['no key at all', { key_type: 'ssh-ed25519' }],
			['a blob too short for its type', { public_key: `ssh-ed25519 ${Buffer.from([0, 0, 0, 40, 1]).toString('base64')}` }],
		];
		for (const [why, value] of bad) {
			assert.throws(
				() => decodeGatewayHostKey(value, { requestId: 'req-1' }),
				(err: unknown) => err instanceof InvalidResponseError && err.requestId === 'req-1',
				why,
			);
		}
	});

	test('secret: members that could carry the value are dropped; an unmasked preview is not kept', () => {
		const s = decodeSecret(
			{
				id: '0b5e8f3c-0000-4000-8000-000000000001',
				display_name: 'x',
				cache_ttl_secs: 60,
				value_preview: 'sk-live-abcdef123456',
				value: 'sk-live-abcdef123456',
				secret_value: 'y',
			},
			{},
		);
		assert.deepEqual(s, { id: '0b5e8f3c-0000-4000-8000-000000000001', display_name: 'x', cache_ttl_secs: 60 });
		const masked = decodeSecret({ id: 'a', display_name: 'x', cache_ttl_secs: 0, value_preview: 'sk-••••••••456' }, {});
		assert.equal(masked.value_preview, 'sk-••••••••456');
		assert.throws(() => decodeSecret({ id: 'a', cache_ttl_secs: -1 }, {}), InvalidResponseError);
		assert.throws(() => decodeSecret({ id: 'a', cache_ttl_secs: 2 ** 32 }, {}), InvalidResponseError);
		assert.throws(() => decodeSecret({ id: '..' }, {}), InvalidResponseError);
	});
});

/**
 * The session replay's items (GET /v2/agents/{id}/events, Show Session History) decoded once at the
 * API boundary: hostile items are dropped or read safely, never handed on raw.
 */

const SESSION_EVENTS_TOKEN = 'ca_test_session_events';

suite('api/decode: session events', () => {
	test('reads our spelling and the variant spelling (sequence, event, at)', () => {
		assert.deepEqual(
			decodeSessionEvent({ seq: 3, type: 'log', created_at: '2026-01-01T00:00:00Z', run_id: 'r1', data: { line: 'x' } }),
			{
				seq: 3,
				type: 'log',
				created_at: '2026-01-01T00:00:00Z',
				run_id: 'r1',
				data: { line: 'x' },
			},
		);
		const variant = decodeSessionEvent({ sequence: 4, event: 'status', at: '2026-01-01T00:00:01Z' });
		assert.equal(variant?.seq, 4);
		assert.equal(variant?.type, 'status');
		assert.equal(variant?.created_at, '2026-01-01T00:00:01Z');
	});

	test('an item that is not an object, or has no usable sequence number, is dropped', () => {
		for (const item of [
			null,
			undefined,
			7,
			'seq',
			[{ seq: 1 }],
			{},
			{ type: 'log' },
			{ seq: '1' },
			{ seq: -1 },
			{ seq: 1.5 },
			{ seq: Number.NaN },
			{ seq: Number.MAX_SAFE_INTEGER + 2 },
			{ seq: null, sequence: 'x' },
		]) {
			assert.equal(decodeSessionEvent(item), undefined, JSON.stringify(item) ?? 'undefined');
		}
	});

	test('a type of the wrong kind, huge, empty or with control characters reads as "event"', () => {
		for (const type of [42, { a: 1 }, '', 'x'.repeat(100_000), 'log\u0000', 'a\nb', '\u009b31m']) {
			assert.equal(decodeSessionEvent({ seq: 1, type })?.type, 'event', JSON.stringify(type).slice(0, 40));
		}
		assert.equal(decodeSessionEvent({ seq: 1 })?.type, 'event');
	});

	test('a time or run id that is not a short clean string is left out', () => {
		for (const created_at of [12, {}, 'x'.repeat(1_000), '2026\u0007']) {
			const event = decodeSessionEvent({ seq: 1, type: 'log', created_at });
			assert.ok(event && !('created_at' in event), JSON.stringify(created_at).slice(0, 40));
		}
		for (const run_id of [12, '', '..', 'r'.repeat(256), 'r\u0000']) {
			const event = decodeSessionEvent({ seq: 1, type: 'log', run_id });
			assert.ok(event && !('run_id' in event), JSON.stringify(run_id).slice(0, 40));
		}
	});

	test('the client hands out only decoded events', async () => {
		const served = await serve((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify({
					agent_id: AGENT_ID,
					session_id: 's1',
					events: [{ seq: 0, type: 'log' }, 'junk', null, { seq: 'one' }, { sequence: 2, event: 'status', created_at: 5 }],
				}),
			);
		});
		const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: served.baseUrl, getToken: () => SESSION_EVENTS_TOKEN });
		try {
			const answer = await client.getAgentEvents(AGENT_ID);
			assert.equal(answer.session_id, 's1');
			assert.deepEqual(
				answer.events.map((e) => [e.seq, e.type, e.created_at]),
				[
					[0, 'log', undefined],
					[2, 'status', undefined],
				],
			);
		} finally {
			client.close();
			await served.close();
		}
	});
});
