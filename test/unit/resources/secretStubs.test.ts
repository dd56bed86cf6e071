import * as assert from 'node:assert/strict';
import type { Runtime, SecretStub } from '../../../src/api';
import { ApiError } from '../../../src/api';
import {
	checkStub,
	refusedStep,
	runtimeSecretStubsList,
	secretStubActions,
	secretStubsList,
	stubRequest,
	stubShape,
	stubShapeText,
	stubsOfRuntime,
	type StubAnswers,
} from '../../../src/resources/secretStubs';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, type FakeKitOptions, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/secretStubs.ts: stub shapes and rows from the emulator, the checks before sending, Add/Delete/Show against it. */
suite('resources/secretStubs', () => {
	const env = emulatorPerSuite();
	let stubs: SecretStub[];
	let runtimes: Runtime[];

	setup(async () => {
		stubs = await readList(secretStubsList, listContext(env.client), undefined);
		runtimes = (await env.client.listRuntimes({ limit: 100 })).items;
	});

	const runtime = (name: string): Runtime => runtimes.find((r) => r.display_name === name)!;
	const stub = (secret: string): SecretStub => stubs.find((s) => s.stub_value_display_name === secret)!;
	const kitOf = (opts: FakeKitOptions = {}) => fakeKit({ client: env.client, ...opts });
	const mutations = async (kind: string): Promise<number> => (await env.emu.counters()).mutations.by_kind[kind] ?? 0;
	const answers = (over: Partial<StubAnswers>): StubAnswers => ({
		host: 'api.example.com',
		path: '',
		shape: 'header',
		headerName: 'Authorization',
		valueFormat: 'Bearer ${credential}',
		paramName: '',
		paramFormat: '',
		filePath: '',
		secret: 'openai-api-key',
		...over,
	});

	test('the shape of each demo stub, from its configuration', () => {
		assert.deepEqual(stubShape(stub('openai-api-key')), {
			kind: 'header',
			headerName: 'Authorization',
			filePath: undefined,
			template: 'Bearer ${credential}',
		});
		assert.equal(stubShapeText(stubShape(stub('npm-token'))), 'file /home/service/.npm-token');
		assert.equal(stubShapeText(stubShape(stub('datadog-api-key'))), 'query ?api_key');
		assert.equal(stubShape(stub('github-token')).template, 'token ${credential}', 'value when no valueFormat');
		assert.equal(stubShape({ ...stub('npm-token'), stub_config_json: '{not json' }).kind, 'unreadable');
		assert.equal(stubShapeText({ kind: 'other' }), 'other shape');
		assert.equal(stubShapeText({ kind: 'header', headerName: 'X', filePath: '/f' }), 'header X · file /f');
	});

	test('rows: host and path, the secret and the shape; the Account view names the runtime too', () => {
		const openai = stub('openai-api-key');
		const global = secretStubsList.row(openai, rowContext(listContext(env.client), undefined));
		assert.equal(global.label, 'api.openai.example /v1/*');
		assert.equal(global.contextValue, 'secretStub:global');
		assert.equal(global.description, 'openai-api-key · header Authorization · atlas-dev');
		assert.match(tooltipText(global.tooltip), /Value template: Bearer \$\{credential\}/);
		const atlas = runtime('atlas-dev');
		const local = runtimeSecretStubsList.row(openai, rowContext(listContext(env.client), atlas, atlas.id));
		assert.equal(local.contextValue, 'secretStub:runtime');
		assert.equal(local.description, 'openai-api-key · header Authorization');
		// Any path: the host alone.
		assert.equal(secretStubsList.row(stub('npm-token'), rowContext(listContext(env.client), undefined)).label, 'registry.npmjs.org');
	});

	test("a runtime's stubs: those naming it", async () => {
		const atlas = runtime('atlas-dev');
		const mine = await readList(runtimeSecretStubsList, listContext(env.client), atlas);
		assert.deepEqual(mine.map((s) => s.stub_value_display_name).sort(), ['github-token', 'openai-api-key']);
		assert.deepEqual(stubsOfRuntime(stubs, { display_name: 'nobody' }), []);
		assert.deepEqual(runtimeSecretStubsList.fields(mine[0]!, atlas.id), { stub: mine[0], runtimeId: atlas.id });
	});

	test('the checks of each answer', () => {
		assert.equal(checkStub.host('*.example.com:8443'), undefined);
		assert.match(checkStub.host('https://x.example')!, /no scheme/);
		assert.match(checkStub.host('x.example/v1')!, /no path/);
		assert.match(checkStub.host('a b')!, /no spaces/);
		assert.match(checkStub.host(' ')!, /Enter the host pattern/);
		assert.equal(checkStub.path(''), undefined);
		assert.equal(checkStub.path('/v1/*'), undefined);
		assert.match(checkStub.path('v1')!, /starts with \//);
		assert.match(checkStub.path('/a b')!, /no spaces/);
		assert.equal(checkStub.headerName('X-Api-Key'), undefined);
		assert.match(checkStub.headerName('X Api')!, /no spaces or colons/);
		assert.match(checkStub.paramName('a=b')!, /none of & = # \?/);
		assert.equal(checkStub.template(''), undefined);
		assert.equal(checkStub.template('Bearer {value}'), undefined);
		assert.match(checkStub.template('Bearer token')!, /Put \$\{credential\}/);
		assert.match(checkStub.template('a\n${credential}')!, /no line breaks/);
		assert.equal(checkStub.filePath('', false), undefined);
		assert.match(checkStub.filePath('', true)!, /Enter the absolute path/);
		assert.match(checkStub.filePath('rel/path', false)!, /absolute path/);
		assert.match(checkStub.secret(' ')!, /display name or UUID/);
		assert.equal(checkStub.secret('x'.repeat(1000)), 'Not a secret name or UUID.');
	});

	test('stubRequest: the first problem refused by name; each shape becomes its config', () => {
		assert.throws(() => stubRequest(answers({ host: 'https://x' })), /^Error: Not sent: host: Only the host/);
		assert.throws(() => stubRequest(answers({ shape: 'socket' as never })), /Not sent: shape: The shape is header, query or file\./);
		assert.throws(() => stubRequest(answers({ shape: 'query', paramName: '' })), /Not sent: paramName: /);
		assert.throws(() => stubRequest(answers({ shape: 'file' })), /Not sent: filePath: /);
		assert.deepEqual(stubRequest(answers({ path: ' /v1/* ', filePath: ' /f ' })), {
			host: 'api.example.com',
			path: '/v1/*',
			config: { headerName: 'Authorization', valueFormat: 'Bearer ${credential}', filePath: '/f' },
			stub_value: 'openai-api-key',
		});
		assert.deepEqual(stubRequest(answers({ shape: 'query', paramName: 'k', paramFormat: '' })).config, { paramName: 'k' });
		assert.deepEqual(stubRequest(answers({ shape: 'file', filePath: '/t', headerName: 'ignored' })), {
			host: 'api.example.com',
			path: null,
			config: { filePath: '/t' },
			stub_value: 'openai-api-key',
		});
	});

	test('Add (automation): checked, one POST, the three lists refreshed, said unless quiet', async () => {
		const atlas = runtime('atlas-dev');
		const arg = automation({ runtimeId: atlas.id, host: 'api.example.com', shape: 'query', paramName: 'key', secret: 'npm-token' });
		const { kit, log } = kitOf({ arg, automation: true });
		const created = (await secretStubActions.create.run({ runtime: atlas }, kit)) as SecretStub;
		assert.equal(created.stub_value_display_name, 'npm-token');
		assert.equal(created.runtime_display_name, 'atlas-dev');
		assert.deepEqual([...log.listRefreshes].sort(), ['runtimes', 'secretStubs', 'secrets']);
		assert.deepEqual(log.infos, [
			'Added the secret stub api.example.com (query ?key) to atlas-dev: it injects the secret "npm-token".',
		]);
		assert.equal(await mutations('secret_stubs.create'), 1);
	});

	test('Add (automation) with a bad answer: refused before anything is sent', async () => {
		const atlas = runtime('atlas-dev');
		const { kit } = kitOf({ arg: automation({ host: 'api.example.com', headerName: 'Bad Header', secret: 'x' }), automation: true });
		await assert.rejects(secretStubActions.create.run({ runtime: atlas }, kit), /Not sent: headerName: A header name/);
		assert.equal(await mutations('secret_stubs.create'), 0);
	});

	test("Add naming a secret that does not exist: the service's refusal, which names the secret step", async () => {
		const atlas = runtime('atlas-dev');
		const { kit } = kitOf({
			arg: automation({ host: 'api.example.com', headerName: 'X-Key', secret: 'no-such-secret' }),
			automation: true,
		});
		await assert.rejects(secretStubActions.create.run({ runtime: atlas }, kit), (err: unknown) => {
			assert.ok(err instanceof ApiError);
			assert.ok(err.requestId);
			assert.equal(refusedStep(err), 'secret');
			return true;
		});
		assert.equal(await mutations('secret_stubs.create'), 0);
	});

	test('refusedStep: the field named in details or the message; nothing for auth failures and server errors', () => {
		const refusal = (status: number, message: string, fields: Array<{ field: string; message: string }> = []) =>
			Object.assign(new ApiError(status, 'invalid_argument', message, 'req_1'), { fieldErrors: fields });
		assert.equal(refusedStep(refusal(422, 'config.filePath: must be absolute')), 'file');
		assert.equal(refusedStep(refusal(422, 'bad', [{ field: 'config.filePath', message: 'x' }])), 'file');
		assert.equal(refusedStep(refusal(422, 'host: too long')), 'host');
		assert.equal(refusedStep(refusal(422, 'bad', [{ field: 'body.path', message: 'x' }])), 'path');
		assert.equal(refusedStep(refusal(422, 'config: must contain headerName')), 'shape');
		assert.equal(refusedStep(refusal(422, 'bad', [{ field: 'config.headerName', message: 'x' }])), 'name');
		assert.equal(refusedStep(refusal(404, 'no such secret')), 'secret');
		assert.equal(refusedStep(refusal(404, 'no such runtime')), undefined);
		assert.equal(refusedStep(refusal(500, 'host: x')), undefined);
		assert.equal(refusedStep(refusal(401, 'host: x')), undefined);
		assert.equal(refusedStep(new Error('host: x')), undefined);
	});

	test("Delete from a runtime's row: asked first, then the runtime route; declined deletes nothing", async () => {
		const atlas = runtime('atlas-dev');
		const openai = stub('openai-api-key');
		const asked: unknown[][] = [];
		let yes = false;
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => (asked.push(args), yes ? args[2] : undefined));
		const { kit, log } = kitOf();
		assert.equal(await secretStubActions.delete.run({ stub: openai, runtimeId: atlas.id }, kit), undefined);
		assert.equal(asked[0]![0], 'Delete the secret stub api.openai.example /v1/* (header Authorization)?');
		assert.match(
			(asked[0]![1] as { detail: string }).detail,
			/^Requests of the runtime atlas-dev to .* no longer get the secret "openai-api-key"\. The secret itself is kept\.$/,
		);
		assert.equal(await mutations('secret_stubs.delete'), 0);
		yes = true;
		assert.equal(await secretStubActions.delete.run({ stub: openai, runtimeId: atlas.id }, kit), openai);
		assert.equal(await mutations('secret_stubs.delete'), 1);
		assert.deepEqual(log.infos, ['Deleted the secret stub api.openai.example /v1/* (header Authorization).']);
		assert.ok(!(await env.client.listSecretStubs()).some((s) => s.id === openai.id));
	});

	test('Delete from the Account view (automation, quiet): the global route, nothing said', async () => {
		const npm = stub('npm-token');
		const { kit, log } = kitOf({ arg: automation({ stubId: npm.id, confirm: false, quiet: true }), automation: true });
		assert.equal(await secretStubActions.delete.run({ stub: npm }, kit), npm);
		assert.deepEqual(log.infos, []);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
		assert.ok(!(await env.client.listSecretStubs()).some((s) => s.id === npm.id));
		// The runtime route with a runtime that does not hold it: the service's 404.
		const sentry = stub('sentry-dsn');
		const wrong = kitOf({ arg: automation({ confirm: false, runtimeId: runtime('atlas-dev').id }), automation: true });
		await assert.rejects(
			secretStubActions.delete.run({ stub: sentry }, wrong.kit),
			(err: Error & { status?: number }) => err.status === 404,
		);
	});

	test('Show Details: the record with its configuration parsed; an unreadable one kept as text', async () => {
		const { kit, log } = kitOf();
		const openai = stub('openai-api-key');
		await secretStubActions.showDetails.run({ stub: openai }, kit);
		assert.equal(log.json[0]!.title, 'Secret Stub api.openai.example /v1/* (header Authorization)');
		assert.deepEqual(log.json[0]!.key, ['secret-stubs', openai.id]);
		assert.deepEqual((log.json[0]!.value as { config: unknown }).config, {
			headerName: 'Authorization',
			valueFormat: 'Bearer ${credential}',
		});
		await secretStubActions.showDetails.run({ stub: { ...openai, stub_config_json: '{oops' } }, kit);
		assert.equal((log.json[1]!.value as { config: unknown }).config, '{oops');
	});

	test('the target: a stub found in the listing by id, a message for an unknown one; Add offered on runtimes one may manage', async () => {
		const ctx = listContext(env.client);
		assert.equal((await secretStubsList.target!.get(ctx, stub('sentry-dsn').id, undefined))?.host_pattern, 'o42.ingest.sentry.example');
		assert.equal(await secretStubsList.target!.get(ctx, 'nope', undefined), undefined);
		assert.equal(secretStubsList.target!.notFound!('nope'), 'The secret stub nope was not found.');
		assert.equal(secretStubActions.create.filter(runtime('delta-shared')), false);
		assert.equal(secretStubActions.create.filter(runtime('atlas-dev')), true);
	});
});
