import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import { counters, emu, restoreDevToken, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';

/**
 * Secret stubs and the secrets they use (src/resources/secretStubs.ts, src/resources/secrets.ts)
 * against the emulator inside VS Code: the Account view's groups, the stubs under a runtime, create
 * (checked before sending), delete through both routes, and secrets shown masked — each asserted on
 * the emulator's state after the action.
 */

interface StubRow {
	id: string;
	runtime_id: string;
	host_pattern: string;
	path_pattern: string;
	stub_config_json: string;
	stub_value_display_name: string;
}
interface State {
	runtimes: Array<{ id: string; display_name: string; can_manage?: boolean; owner_user_id: string }>;
	stubs: StubRow[];
	secrets: Array<{ id: string; display_name: string }>;
	users: Array<{ id: string }>;
}
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const rows = async (key: string, parent?: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key, parent)) ?? [];
const run = <T>(command: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(command, ...args);

/** The stub rows under a runtime's row (directly, or under its "Secret Stubs" group when it has several). */
async function stubRowsOf(runtimeId: string): Promise<RowSnapshot[]> {
	const under = await rows('runtimes', `runtime/${runtimeId}`);
	const group = under.find((r) => r.id === `runtime/${runtimeId}/runtimeSecretStubs`);
	return group ? rows('runtimes', group.id) : under;
}

suite('Secret stubs and secrets', () => {
	const SECRET_VALUE = `sk-surf-${Date.now()}-Zq8Wm3Xr7Tp2Ln5Kd9`;
	const secretName = `surf-test-secret-${Date.now()}`;
	let runtimeId: string;
	let runtimeName: string;

	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		const created = await emu('POST', '/_emulator/secrets', { display_name: secretName, value: SECRET_VALUE, cache_ttl_secs: 600 });
		assert.equal(created.status, 201);
		const s = await state();
		const rt = s.runtimes.find((r) => r.display_name === 'atlas') ?? s.runtimes[0]!;
		runtimeId = rt.id;
		runtimeName = rt.display_name;
		await run('cloudAgents.runtimes.refresh');
		await run('cloudAgents.secretStubs.refresh');
		await run('cloudAgents.secrets.refresh');
	});

	suiteTeardown(async () => {
		await closeAllEditors();
	});

	test('the Account view shows the groups, and its Secret Stubs group every stub of the service', async () => {
		const groups = await rows('account');
		assert.deepEqual(
			groups.filter((g) => ['account/secretStubs', 'account/secrets'].includes(g.id ?? '')).map((g) => g.contextValue),
			['group:secretStub', 'group:secret'],
		);
		const stubs = await rows('account', 'account/secretStubs');
		const s = await state();
		assert.deepEqual(stubs.map((r) => r.id).sort(), s.stubs.map((x) => `secretStub/${x.id}`).sort());
		for (const r of stubs) {
			assert.equal(r.contextValue, 'secretStub:global');
			assert.equal(r.command, 'cloudAgents.secretStubs.showDetails');
		}
	});

	test('create checks every answer before sending: a bad host, header name or template sends nothing', async () => {
		const before = (await counters()).requests.by_route['POST /v1/runtimes/{runtime_id}/secret-stubs'] ?? 0;
		const base = {
			runtimeId,
			host: 'api.example.com',
			shape: 'header',
			headerName: 'X-Api-Key',
			secret: secretName,
			rethrow: true,
			quiet: true,
		};
		for (const bad of [
			{ host: 'https://api.example.com' },
			{ headerName: 'X Api Key' },
			{ valueFormat: 'Bearer token' },
			{ shape: 'file', filePath: 'relative/path' },
			{ path: 'v1/*' },
		]) {
			await assert.rejects(
				Promise.resolve(run('cloudAgents.secretStubs.create', { automation: true, ...base, ...bad })),
				/Not sent/,
				JSON.stringify(bad),
			);
		}
		assert.equal((await counters()).requests.by_route['POST /v1/runtimes/{runtime_id}/secret-stubs'] ?? 0, before);
	});

	let createdId: string;
	test('create on a runtime sends the header shape and the stub appears in the emulator and under the runtime [web]', async () => {
		const count = (await state()).stubs.length;
		const stub = await run<{ id: string }>('cloudAgents.secretStubs.create', {
			automation: true,
			runtimeId,
			host: 'api.surf.example',
			path: '/v1/*',
			shape: 'header',
			headerName: 'X-Api-Key',
			valueFormat: 'Key ${credential}',
			filePath: '/home/service/.surf-key',
			secret: secretName,
			quiet: true,
			rethrow: true,
		});
		assert.ok(stub?.id);
		createdId = stub.id;
		// Issue 20 (8, 14): the Secrets group follows the new stub (no manual Refresh), in words for one stub.
		const secretRow = (await rows('account', 'account/secrets')).find((r) => r.label === secretName);
		assert.ok(secretRow, 'the Secrets group lists the secret the new stub uses');
		assert.match(secretRow.description ?? '', /(^| )1 stub$/);
		assert.match(secretRow.tooltip ?? '', /Used by: 1 secret stub on /);
		const s = await state();
		assert.equal(s.stubs.length, count + 1);
		const row = s.stubs.find((x) => x.id === createdId)!;
		assert.equal(row.runtime_id, runtimeId);
		assert.equal(row.host_pattern, 'api.surf.example');
		assert.equal(row.path_pattern, '/v1/*');
		assert.equal(row.stub_value_display_name, secretName);
		assert.deepEqual(JSON.parse(row.stub_config_json), {
			headerName: 'X-Api-Key',
			valueFormat: 'Key ${credential}',
			filePath: '/home/service/.surf-key',
		});
		const under = await waitFor('the new stub under its runtime', async () => {
			const r = await stubRowsOf(runtimeId);
			return r.some((x) => x.id === `secretStub/${runtimeId}/${createdId}`) ? r : undefined;
		});
		const mine = under.find((x) => x.id === `secretStub/${runtimeId}/${createdId}`)!;
		assert.equal(mine.contextValue, 'secretStub:runtime');
		assert.match(mine.label, /api\.surf\.example \/v1\/\*/);
		assert.match(mine.description ?? '', /header X-Api-Key/);
		// Only this runtime's stubs hang under it.
		const others = s.stubs
			.filter((x) => x.runtime_id === runtimeId)
			.map((x) => `secretStub/${runtimeId}/${x.id}`)
			.sort();
		assert.deepEqual(
			under
				.filter((x) => x.contextValue === 'secretStub:runtime')
				.map((x) => x.id)
				.sort(),
			others,
		);
	});

	test('a query-parameter stub and a file-only stub are sent in their shapes', async () => {
		const q = await run<{ id: string }>('cloudAgents.secretStubs.create', {
			automation: true,
			runtimeId,
			host: '*.surf.example',
			shape: 'query',
			paramName: 'api_key',
			paramFormat: '{value}',
			secret: secretName,
			quiet: true,
			rethrow: true,
		});
		const f = await run<{ id: string }>('cloudAgents.secretStubs.create', {
			automation: true,
			runtimeId,
			host: 'files.surf.example',
			shape: 'file',
			filePath: '/home/service/.surf',
			secret: secretName,
			quiet: true,
			rethrow: true,
		});
		const s = await state();
		assert.deepEqual(JSON.parse(s.stubs.find((x) => x.id === q.id)!.stub_config_json), {
			paramName: 'api_key',
			paramFormat: '{value}',
		});
		assert.deepEqual(JSON.parse(s.stubs.find((x) => x.id === f.id)!.stub_config_json), { filePath: '/home/service/.surf' });
		// Global delete of the file stub: the /v1/secret-stubs route.
		const before = (await counters()).requests.by_route['DELETE /v1/secret-stubs/{stub_id}'] ?? 0;
		await run('cloudAgents.secretStubs.delete', { automation: true, stubId: f.id, confirm: false, quiet: true, rethrow: true });
		assert.equal((await counters()).requests.by_route['DELETE /v1/secret-stubs/{stub_id}'], before + 1);
		assert.ok(!(await state()).stubs.some((x) => x.id === f.id));
		await run('cloudAgents.secretStubs.delete', {
			automation: true,
			stubId: q.id,
			runtimeId,
			confirm: false,
			quiet: true,
			rethrow: true,
		});
		assert.ok(!(await state()).stubs.some((x) => x.id === q.id));
	});

	test('the Secrets group lists the secrets stubs use, masked, and a click opens the metadata without the value', async () => {
		await run('cloudAgents.secrets.refresh');
		const secrets = await rows('account', 'account/secrets');
		const s = await state();
		const used = [...new Set(s.stubs.map((x) => x.stub_value_display_name))].sort();
		assert.deepEqual(secrets.map((r) => r.label).sort(), used);
		const mine = secrets.find((r) => r.label === secretName)!;
		assert.ok(mine, 'the test secret is listed');
		assert.match(mine.description ?? '', /•/);
		assert.match(mine.description ?? '', /cache 10 min/);
		for (const r of secrets) {
			assert.ok(!JSON.stringify(r).includes(SECRET_VALUE), 'no row carries the value');
		}
		await run('_cloudAgents.views.click', 'secrets', mine.id);
		const doc = await waitFor('the secret document', async () =>
			vscode.window.activeTextEditor?.document.getText().includes(secretName)
				? vscode.window.activeTextEditor.document.getText()
				: undefined,
		);
		assert.match(doc, /"value_preview": ".*•/);
		assert.ok(!doc.includes(SECRET_VALUE));
	});

	test('a stub row opens its record; delete from a runtime uses the runtime route and the stub is gone', async () => {
		await run(
			'_cloudAgents.views.click',
			'runtimes',
			`secretStub/${runtimeId}/${createdId}`,
			(await rows('runtimes', `runtime/${runtimeId}`)).some((r) => r.id === `runtime/${runtimeId}/runtimeSecretStubs`)
				? `runtime/${runtimeId}/runtimeSecretStubs`
				: `runtime/${runtimeId}`,
		);
		const doc = await waitFor('the stub document', async () =>
			vscode.window.activeTextEditor?.document.getText().includes('api.surf.example')
				? vscode.window.activeTextEditor.document.getText()
				: undefined,
		);
		assert.match(doc, /"headerName": "X-Api-Key"/);
		assert.ok(!doc.includes(SECRET_VALUE));
		const before = (await counters()).requests.by_route['DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}'] ?? 0;
		await run('cloudAgents.secretStubs.delete', {
			automation: true,
			stubId: createdId,
			runtimeId,
			confirm: false,
			quiet: true,
			rethrow: true,
		});
		assert.equal((await counters()).requests.by_route['DELETE /v1/runtimes/{runtime_id}/secret-stubs/{stub_id}'], before + 1);
		assert.ok(!(await state()).stubs.some((x) => x.id === createdId));
		const under = await stubRowsOf(runtimeId);
		assert.ok(!under.some((x) => x.id === `secretStub/${runtimeId}/${createdId}`), `${runtimeName} no longer shows it`);
	});
});
