import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ProviderInfo } from '../../../src/api';
import { SECRET_MASK } from '../../../src/api';
import {
	checkProviderConfig,
	modelProviderActions,
	modelProviderDocuments,
	modelProvidersList,
	providerOfUri,
	providerUri,
	readProviders,
} from '../../../src/resources/modelProviders';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, type FakeKitOptions, listContext, rowContext, tooltipText } from './kit';

/** src/resources/modelProviders.ts: rows, the checks before sending, the provider documents' file system (its write is the PATCH). */
suite('resources/modelProviders', () => {
	const env = emulatorPerSuite();
	let providers: ProviderInfo[];
	let context: { subscriptions: vscode.Disposable[] };
	let diagnostics: Map<string, vscode.Diagnostic[]>;

	setup(async () => {
		providers = await readProviders(listContext(env.client));
		context = { subscriptions: [] };
		diagnostics = new Map();
		fake.answer('languages.createDiagnosticCollection', () => ({
			set: (uri: vscode.Uri, items: vscode.Diagnostic[]) => void diagnostics.set(uri.toString(), items),
			delete: (uri: vscode.Uri) => void diagnostics.delete(uri.toString()),
			dispose: () => diagnostics.clear(),
		}));
	});
	teardown(() => {
		for (const d of context.subscriptions) {
			d.dispose();
		}
	});

	const provider = (id: string): ProviderInfo => providers.find((p) => p.id === id)!;
	const kitOf = (opts: FakeKitOptions = {}) => fakeKit({ client: env.client, ...opts, extra: { context, ...opts.extra } as never });
	const fsOf = (): { fs: vscode.FileSystemProvider; log: ReturnType<typeof kitOf>['log'] } => {
		const { kit, log } = kitOf();
		return { fs: modelProviderDocuments(kit), log };
	};
	const updates = async (): Promise<number> => (await env.emu.counters()).mutations.by_kind['model_providers.update'] ?? 0;
	const encode = (value: unknown): Uint8Array =>
		new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value, null, '\t'));
	const read = async (fs: vscode.FileSystemProvider, uri: vscode.Uri): Promise<Record<string, unknown>> =>
		JSON.parse(new TextDecoder().decode(await fs.readFile(uri))) as Record<string, unknown>;

	test('rows: kind and enabled in the context value, a disabled one says so', () => {
		assert.deepEqual(
			providers.map((p) => p.id),
			['mp_openai', 'mp_anthropic', 'mp_local_vllm'],
		);
		const ctx = rowContext(listContext(env.client), undefined);
		const openai = modelProvidersList.row(provider('mp_openai'), ctx);
		assert.equal(openai.contextValue, 'modelProvider:openai:enabled');
		assert.equal(openai.description, 'gpt-4.1 · openai');
		assert.match(tooltipText(openai.tooltip), /Endpoint: https:\/\/api\.openai\.example\/v1/);
		const vllm = modelProvidersList.row(provider('mp_local_vllm'), ctx);
		assert.equal(vllm.contextValue, 'modelProvider:openai_compatible:disabled');
		assert.equal(vllm.icon?.id, 'circle-slash');
		assert.match(vllm.description!, /disabled/);
	});

	test('the document URI: the name as the path (no folders, no id); the id in the query only when another provider has the same name', () => {
		assert.equal(
			providerUri({ id: 'mp_1', name: 'OpenAI Production' }).toString(true),
			'cloud-agents-provider:/OpenAI Production.json',
		);
		const twins = [
			{ id: 'mp_a', name: 'Same' },
			{ id: 'mp_b', name: 'Same' },
			{ id: 'mp_c', name: 'Other' },
		];
		assert.equal(providerUri(twins[0]!, twins).toString(true), 'cloud-agents-provider:/Same.json?mp_a');
		assert.equal(providerUri(twins[2]!, twins).toString(true), 'cloud-agents-provider:/Other.json');
		assert.equal(providerUri({ id: 'mp_2', name: '../etc/x' }).path, '/.._etc_x.json');
		assert.equal(providerUri({ id: 'mp_3', name: '..' }).path, '/provider.json');
		assert.equal(providerUri({ id: 'mp_4', name: undefined }).path, '/mp_4.json');
	});

	test('providerOfUri: the id in the query, else the one provider whose file name is the path (none when two share it)', () => {
		const all = [
			{ id: 'mp_a', name: 'Same', raw: {} },
			{ id: 'mp_b', name: 'Same', raw: {} },
			{ id: 'mp_c', name: 'Other', raw: {} },
		] as unknown as ProviderInfo[];
		const id = (text: string): string | undefined => providerOfUri(vscode.Uri.parse(text), all)?.id;
		assert.equal(id('cloud-agents-provider:/Other.json'), 'mp_c');
		assert.equal(id('cloud-agents-provider:/Same.json?mp_b'), 'mp_b');
		assert.equal(id('cloud-agents-provider:/Same.json'), undefined, 'two share the name: the id is needed');
		assert.equal(id('cloud-agents-provider:/Gone.json'), undefined);
	});

	test('checkProviderConfig: every problem at once — missing field, wrong type, bad URL, credentials, empty name, no model', () => {
		const current = { display_name: 'X', endpoint: 'https://a.example', model: 'm', enabled: true, api_key: 'k' };
		assert.deepEqual(checkProviderConfig({ ...current }, current), []);
		assert.deepEqual(checkProviderConfig({ ...current, api_key: SECRET_MASK }, current), [], 'a masked secret is kept');
		const problems = checkProviderConfig({ display_name: ' ', endpoint: 'ftp://x', model: '', enabled: 'yes', api_key: 'k' }, current);
		assert.deepEqual(
			problems.map((p) => p.message),
			[
				'"enabled" must be a boolean, like the service\'s value.',
				'"display_name" must not be empty.',
				'"endpoint" must be an absolute https URL.',
			],
		);
		assert.deepEqual(
			checkProviderConfig({ display_name: 'X', endpoint: 'https://u:p@a.example', model: ' ', enabled: true }, current).map(
				(p) => p.message,
			),
			[
				'"api_key" is missing: the service requires every configuration field.',
				'"endpoint" must not contain credentials.',
				'"model" is required for an enabled provider.',
			],
		);
	});

	test('the file system: a document read from the service, only configuration fields; the root a folder', async () => {
		const { fs } = fsOf();
		const uri = providerUri(provider('mp_anthropic'));
		assert.deepEqual(await read(fs, uri), {
			display_name: 'Anthropic',
			endpoint: 'https://api.anthropic.example/v1',
			model: 'claude-sonnet-4',
			enabled: true,
		});
		assert.equal((await fs.stat(vscode.Uri.parse('cloud-agents-provider:/'))).type, vscode.FileType.Directory);
		assert.equal((await fs.stat(uri)).type, vscode.FileType.File);
		await assert.rejects(
			Promise.resolve(fs.readFile(vscode.Uri.parse('cloud-agents-provider:/Gone.json?mp_gone'))),
			(err: Error) => err.name === 'FileNotFound (FileSystemError)',
		);
		await assert.rejects(
			Promise.resolve(fs.readFile(vscode.Uri.parse('cloud-agents-provider:/Gone.json'))),
			(err: Error) => err.name === 'FileNotFound (FileSystemError)',
		);
		assert.throws(
			() => fs.delete(uri, { recursive: false }),
			(err: Error) => err.name === 'NoPermissions (FileSystemError)',
		);
		assert.throws(() => fs.createDirectory(uri), /one at a time/);
	});

	test('a write is the PATCH: sent, the list refreshed, the document kept as written', async () => {
		const { fs, log } = fsOf();
		const uri = providerUri(provider('mp_anthropic'));
		const config = { ...(await read(fs, uri)), model: 'claude-opus-4' };
		await fs.writeFile(uri, encode(config), { create: false, overwrite: true });
		assert.equal(await updates(), 1);
		assert.equal((await readProviders(listContext(env.client))).find((p) => p.id === 'mp_anthropic')?.model, 'claude-opus-4');
		assert.deepEqual(log.listRefreshes, ['modelProviders']);
		assert.equal((await read(fs, uri)).model, 'claude-opus-4');
		assert.equal(diagnostics.size, 0);
	});

	test('invalid JSON: refused before sending, a diagnostic at the place, the write fails with NoPermissions', async () => {
		const { fs } = fsOf();
		const uri = providerUri(provider('mp_anthropic'));
		await assert.rejects(
			Promise.resolve(fs.writeFile(uri, encode('{\n\t"model": "x",\n}'), { create: false, overwrite: true })),
			(err: Error) => {
				assert.equal((err as { code?: string }).code, 'NoPermissions');
				assert.equal(String(err), err.message, 'VS Code shows the reason alone, no code before it');
				assert.match(err.message, /^Not sent: the provider configuration is not valid JSON: .* \(line 3, column \d+\)\.$/);
				return true;
			},
		);
		assert.equal(diagnostics.get(uri.toString())?.length, 1);
		assert.equal(diagnostics.get(uri.toString())![0]!.range.start.line, 2, 'at the place the parser named');
		await assert.rejects(
			Promise.resolve(fs.writeFile(uri, encode('[1]'), { create: false, overwrite: true })),
			/must be a JSON object/,
		);
		assert.equal(await updates(), 0);
	});

	test('field problems: every one a diagnostic on its member, nothing sent', async () => {
		const { fs } = fsOf();
		const uri = providerUri(provider('mp_openai'));
		const text = JSON.stringify({ display_name: '', endpoint: 'not a url', model: 'gpt-4.1', enabled: true }, null, '\t');
		await assert.rejects(
			Promise.resolve(fs.writeFile(uri, encode(text), { create: false, overwrite: true })),
			/Not sent: 2 fields of the provider are not valid; see the Problems panel\./,
		);
		const items = diagnostics.get(uri.toString())!;
		assert.deepEqual(
			items.map((d) => d.code),
			['display_name', 'endpoint'],
		);
		// On the member's line.
		assert.equal(
			items[1]!.range.start.line,
			text.split('\n').findIndex((l) => l.includes('"endpoint"')),
		);
		assert.equal(await updates(), 0);
	});

	test("the service's field errors become diagnostics; the write is refused with its request id", async () => {
		const { fs } = fsOf();
		const uri = providerUri(provider('mp_openai'));
		// Plain http passes the client's check; the service wants https for this kind.
		const config = { ...(await read(fs, uri)), endpoint: 'http://api.openai.example/v1' };
		await assert.rejects(Promise.resolve(fs.writeFile(uri, encode(config), { create: false, overwrite: true })), (err: Error) => {
			assert.equal((err as { code?: string }).code, 'NoPermissions');
			assert.equal(String(err), err.message, 'VS Code shows the reason alone, no code before it');
			assert.match(err.message, /^The service refused 1 field of the provider; see the Problems panel\. .*\(request [^)]+\)$/);
			return true;
		});
		const items = diagnostics.get(uri.toString())!;
		assert.equal(items.length, 1);
		assert.equal(items[0]!.code, 'endpoint');
		assert.match(items[0]!.message, /must use https for a provider of kind openai/);
		assert.equal(await updates(), 0);
	});

	test('the service unreachable for a moment: the write fails as Unavailable (VS Code offers Retry)', async () => {
		const { fs } = fsOf();
		const uri = providerUri(provider('mp_anthropic'));
		const config = await read(fs, uri);
		await env.emu.faults([{ method: 'PATCH', route: '/v2/model-providers/{provider_id}', status: 503 }]);
		await assert.rejects(Promise.resolve(fs.writeFile(uri, encode(config), { create: false, overwrite: true })), (err: Error) => {
			assert.equal((err as { code?: string }).code, 'Unavailable');
			assert.equal(String(err), err.message, 'VS Code shows the reason alone, no code before it');
			assert.match(err.message, /^The service could not be reached; the model provider was not saved: /);
			return true;
		});
	});

	test('Edit: the provider read again, opened as a document, and the person told how to send it', async () => {
		const opened: vscode.Uri[] = [];
		fake.answer('workspace.openTextDocument', async (uri: vscode.Uri) => (opened.push(uri), { uri }));
		const { kit, log } = kitOf();
		const doc = (await modelProviderActions.edit.run({ provider: { ...provider('mp_openai'), name: 'stale' } }, kit)) as {
			uri: vscode.Uri;
		};
		assert.equal(doc.uri.toString(), providerUri(provider('mp_openai')).toString());
		assert.equal(fake.calls('window.showTextDocument').length, 1);
		assert.deepEqual(log.infos, [
			'Editing the model provider "OpenAI": save the document to send every configuration field to the service.',
		]);
	});

	test('a provider renamed from its document is still the same document: the next save goes to it (its id kept, not read from the URI)', async () => {
		fake.answer('workspace.openTextDocument', async (uri: vscode.Uri) => ({ uri }));
		const { kit } = kitOf();
		const doc = (await modelProviderActions.edit.run({ provider: provider('mp_anthropic') }, kit)) as { uri: vscode.Uri };
		const fs = modelProviderDocuments(kit);
		const renamed = { ...(await read(fs, doc.uri)), display_name: 'Anthropic (renamed)' };
		await fs.writeFile(doc.uri, encode(renamed), { create: false, overwrite: true });
		await fs.writeFile(doc.uri, encode({ ...renamed, model: 'claude-opus-4' }), { create: false, overwrite: true });
		const now = (await readProviders(listContext(env.client))).find((p) => p.id === 'mp_anthropic');
		assert.deepEqual([now?.name, now?.model], ['Anthropic (renamed)', 'claude-opus-4']);
	});

	test('Save with no provider document: an error that says what to do', async () => {
		const { kit } = kitOf({ arg: automation({ uri: 'cloud-agents-provider:/X.json?mp_x' }), automation: true });
		await assert.rejects(modelProviderActions.save.run(kit), /Open a model provider with "Edit Model Provider" first\./);
		Object.assign(fake.window, { activeTextEditor: { document: { uri: vscode.Uri.file('/x.json') } } });
		await assert.rejects(modelProviderActions.save.run(kitOf().kit), /Edit Model Provider/);
	});

	test('Save of a clean document sends it as it is; a refusal is returned and, for a person, shown', async () => {
		const uri = providerUri(provider('mp_anthropic'));
		const { fs } = fsOf();
		const text = new TextDecoder().decode(await fs.readFile(uri));
		const docOf = (t: string) => ({ uri, isDirty: false, getText: () => t });
		Object.assign(fake.workspace, { textDocuments: [docOf(text)] });
		const ok = await modelProviderActions.save.run(kitOf({ arg: automation({ uri: uri.toString() }), automation: true }).kit);
		assert.equal(ok.saved, true);
		assert.equal(ok.sent, true);
		assert.equal(await updates(), 1);
		Object.assign(fake.workspace, { textDocuments: [] });
		Object.assign(fake.window, { activeTextEditor: { document: docOf('{') } });
		const bad = await modelProviderActions.save.run(kitOf().kit);
		assert.deepEqual([bad.saved, bad.sent, bad.diagnostics], [false, false, 1]);
		assert.equal(fake.calls('window.showWarningMessage')[0]![0], bad.message);
	});
});
