/**
 * src/api/endpoints/configuration.ts: model providers, secrets, secret stubs, SSH keys and GitHub
 * access, against the emulator and a recording loopback server (encoded ids, bodies, which calls
 * are retried, answers with members missing or unwrapped).
 */
import * as assert from 'node:assert/strict';
import { ApiError, OutcomeUnknownError, ValidationError } from '../../../../src/api/errors';
import type { CloudAgentsClient } from '../../../../src/api/client';
import { type Recorder, emulatorSuite, recorderSuite, rejection } from './recorder';

suite('api/endpoints/configuration', () => {
	suite('against the emulator', () => {
		let client: CloudAgentsClient;

		emulatorSuite((s) => ({ client } = s));

		test('model providers come with the organization; a secret is read by display name and by id, masked', async () => {
			const providers = await client.listModelProviders();
			assert.equal(providers.organization_id, 'org_analytical_engines');
			assert.ok(providers.model_providers.length > 0);
			const byName = await client.getSecret('openai-api-key');
			assert.equal(byName.display_name, 'openai-api-key');
			const byId = await client.getSecret(byName.id);
			assert.equal(byId.id, byName.id);
			assert.equal(typeof byId.cache_ttl_secs, 'number');
			assert.ok(!('value' in byId));
		});

		test('a secret stub created on a runtime named by display name is listed, then deleted both ways', async () => {
			const before = await client.listSecretStubs();
			assert.ok(before.length >= 4);
			const stub = await client.createSecretStub('atlas-dev', {
				host: 'api.unit.example',
				path: '/v1/*',
				config: { headerName: 'X-Api-Key' },
				stub_value: 'openai-api-key',
			});
			assert.equal(stub.host_pattern, 'api.unit.example');
			assert.equal(stub.runtime_display_name, 'atlas-dev');
			assert.ok((await client.listSecretStubs()).some((s) => s.id === stub.id));
			await client.deleteRuntimeSecretStub('atlas-dev', stub.id);
			assert.ok(!(await client.listSecretStubs()).some((s) => s.id === stub.id));
			const again = await client.createSecretStub('atlas-dev', {
				host: 'api.unit.example',
				config: { headerName: 'X-Api-Key' },
				stub_value: 'openai-api-key',
			});
			await client.deleteSecretStub(again.id);
			assert.equal((await client.listSecretStubs()).length, before.length);
			const missing = await rejection(() => client.deleteSecretStub(again.id));
			assert.ok(missing instanceof ApiError);
			assert.equal(missing.status, 404);
		});

		test('GitHub: pending authorization requests are listed; runtime bindings are replaced as a whole', async () => {
			const requests = await client.listGitHubAuthorizationRequests();
			assert.ok(requests.length >= 2);
			assert.ok(requests.every((r) => typeof r.request_id === 'string'));
			const runtime = (await client.listRuntimes({ limit: 100 })).items.find((r) => r.display_name === 'atlas-dev');
			assert.ok(runtime);
			const bindings = await client.setGitHubRuntimeBindings(runtime.id, [
				{ repository_id: 101, branch: 'main' },
				{ repository_id: 202, branch: 'dev' },
			] as never);
			assert.deepEqual(
				bindings.map((b) => [b.repository_id, b.branch]),
				[
					[101, 'main'],
					[202, 'dev'],
				],
			);
			assert.deepEqual(await client.setGitHubRuntimeBindings(runtime.id, []), []);
		});
	});

	suite('against a recording server', () => {
		let rec: Recorder;
		let client: CloudAgentsClient;

		recorderSuite((s) => ({ rec, client } = s));

		test('empty, over-long and control-character ids are refused before sending, each naming its field', async () => {
			const cases: Array<[() => Promise<unknown>, string]> = [
				[() => client.updateModelProvider('', {}), 'providerId'],
				[() => client.getSecret('a\nb'), 'secretId'],
				[() => client.deleteSecret('x'.repeat(256)), 'secretId'],
				[() => client.createSecretStub('', {} as never), 'runtimeId'],
				[() => client.deleteRuntimeSecretStub('rt', ''), 'stubId'],
				[() => client.deleteSecretStub('\u0007'), 'stubId'],
				[() => client.deleteSshKey(''), 'sshKeyId'],
				[() => client.setGitHubRuntimeBindings('\t', []), 'runtimeId'],
			];
			for (const [call, field] of cases) {
				const err = await rejection(call);
				assert.ok(err instanceof ValidationError, `${field}: ${err.message}`);
				assert.equal(err.field, field);
			}
			assert.equal(rec.requests.length, 0);
		});

		test('routes, encoded ids and bodies', async () => {
			rec.answer(() => ({ body: { data: { id: 'x' } } }));
			await client.updateModelProvider('prov/1', { name: 'p', endpoint: 'https://x.example' });
			await client.getSecret('my secret');
			await client.deleteSecret('a%b');
			await client.createSecretStub('atlas dev', { host: 'h.example', config: { headerName: 'H' }, stub_value: 'v' });
			await client.deleteRuntimeSecretStub('rt/1', 'st?1');
			await client.deleteSecretStub('st#1');
			await client.deleteSshKey('key 1');
			await client.setGitHubRuntimeBindings('rt&1', [{ repository_id: 7, branch: 'main' }] as never);
			await client.listSecretStubs();
			await client.listGitHubAuthorizationRequests();
			assert.deepEqual(
				rec.requests.map((r) => `${r.method} ${r.url}`),
				[
					'PATCH /v2/model-providers/prov%2F1',
					'GET /v2/secrets/my%20secret',
					'DELETE /v2/secrets/a%25b',
					'POST /v1/runtimes/atlas%20dev/secret-stubs',
					'DELETE /v1/runtimes/rt%2F1/secret-stubs/st%3F1',
					'DELETE /v1/secret-stubs/st%231',
					'DELETE /v2/ssh-keys/key%201',
					'PUT /v2/github/runtime-bindings/rt%261',
					'GET /v1/secret-stubs',
					'GET /v2/github/authorization-requests',
				],
			);
			assert.deepEqual(rec.requests[0]?.body, { name: 'p', endpoint: 'https://x.example' });
			assert.deepEqual(rec.requests[3]?.body, { host: 'h.example', config: { headerName: 'H' }, stub_value: 'v' });
			assert.deepEqual(rec.requests[7]?.body, { repositories: [{ repository_id: 7, branch: 'main' }] });
		});

		test('listModelProviders tolerates an unwrapped body and missing members', async () => {
			rec.answer(() => ({ body: { data: { organization_id: 'org', model_providers: [{ id: 'p1' }] } } }));
			assert.deepEqual(await client.listModelProviders(), { organization_id: 'org', model_providers: [{ id: 'p1' }] });
			rec.answer(() => ({ body: { organization_id: 7, model_providers: [{ id: 'p2' }] } }));
			assert.deepEqual(await client.listModelProviders(), { organization_id: '', model_providers: [{ id: 'p2' }] });
			rec.answer(() => ({ body: {} }));
			assert.deepEqual(await client.listModelProviders(), { organization_id: '', model_providers: [] });
		});

		test('records are unwrapped from data; a secret never keeps a member that could hold its value', async () => {
			rec.answer(() => ({
				body: { data: { id: 's1', display_name: 'k', cache_ttl_secs: 60, value: 'plain-secret', value_preview: 'ab•••yz' } },
			}));
			const secret = await client.getSecret('s1');
			assert.equal(secret.id, 's1');
			assert.equal(secret.value_preview, 'ab•••yz');
			assert.ok(!('value' in secret), 'the value member is dropped');
			rec.answer(() => ({ body: { data: { id: 'k1', fingerprint: 'SHA256:x' } } }));
			assert.deepEqual(await client.deleteSshKey('k1'), { id: 'k1', fingerprint: 'SHA256:x' });
			rec.answer(() => ({ body: { id: 'p1', name: 'bare' } }));
			assert.deepEqual(await client.updateModelProvider('p1', {}), { id: 'p1', name: 'bare' });
		});

		test('bindings and authorization requests are read from data.bindings and data.requests', async () => {
			rec.answer(() => ({ body: { data: { bindings: [{ id: 'b1', repository_id: 1, branch: 'main' }] } } }));
			assert.deepEqual(
				(await client.setGitHubRuntimeBindings('rt', [])).map((b) => b.id),
				['b1'],
			);
			rec.answer(() => ({
				body: {
					data: {
						requests: [
							{
								request_id: 'r1',
								requested_by: 'agent:x',
								created_at_unix_seconds: 1,
								lifecycle: { status: 'pending', authorization_url: 'https://github.com/x', expires_at_unix_seconds: 2 },
							},
							{ requested_by: 'no id' },
						],
					},
				},
			}));
			assert.deepEqual(
				(await client.listGitHubAuthorizationRequests()).map((r) => r.request_id),
				['r1'],
			);
		});

		test('the bindings PUT is retried after a 503; deleting a secret is not; a stub create after a 504 is OutcomeUnknownError', async () => {
			const retrying = rec.client({ maxAttempts: 2, minDelayMs: 1, baseDelayMs: 1, maxDelayMs: 1 });
			rec.answer((_req, i) => (i === 0 ? { status: 503, body: {} } : { body: { data: { bindings: [] } } }));
			assert.deepEqual(await retrying.setGitHubRuntimeBindings('rt', []), []);
			assert.equal(rec.requests.length, 2);

			rec.reset();
			rec.answer(() => ({ status: 503, body: {} }));
			const refused = await rejection(() => retrying.deleteSecret('s1'));
			assert.ok(refused instanceof ApiError);
			assert.equal(refused.status, 503);
			assert.equal(rec.requests.length, 1, 'a DELETE of a secret is not idempotent here: sent once');

			rec.reset();
			rec.answer(() => ({ status: 504, body: {} }));
			const unknown = await rejection(() => retrying.createSecretStub('rt', { host: 'h', config: {}, stub_value: 'v' } as never));
			assert.ok(unknown instanceof OutcomeUnknownError);
			assert.equal(unknown.resource, 'secret stub');
			assert.equal(rec.requests.length, 1);
		});
	});
});
