import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ApiError, CloudAgentsClient, SAFETY, ValidationError } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';
import { secretActions, secretRefRow, secretsFromStubs, secretsList, ttlText, usedByStubs } from '../../../src/resources/secrets';
import type { SecretRef } from '../../../src/resources/secrets';
import { automation } from '../../../src/views/automation';
import { DEV_TOKEN, type TestEmulator } from '../support/emulator';
import { serve } from '../support/serve';
import * as fake from '../support/vscodeFake';
import { FakeQuickPick, emulatorPerSuite, fakeKit, listContext, readList, tooltipText, until } from './kit';

/** src/resources/secrets.ts: the secrets stubs refer to, Open and Delete Secret, against the emulator. */
suite('resources/secrets', () => {
	const env = emulatorPerSuite();
	let emu: TestEmulator;
	let client: CloudAgentsClient;

	setup(async () => {
		({ emu, client } = env);
	});

	const mutations = async (kind: string): Promise<number> => (await emu.counters()).mutations.by_kind[kind] ?? 0;

	test('the list: each name stubs use once, sorted, read for its masked preview and TTL', async () => {
		const refs = await readList(secretsList, listContext(client), undefined);
		assert.deepEqual(
			refs.map((r) => r.name),
			['datadog-api-key', 'github-token', 'npm-token', 'openai-api-key', 'sentry-dsn'],
		);
		const npm = refs.find((r) => r.name === 'npm-token')!;
		assert.equal(npm.stubs, 1);
		assert.deepEqual(npm.runtimes, ['borealis-ci']);
		assert.equal(npm.secret?.cache_ttl_secs, 600);
		const row = secretRefRow(npm);
		assert.equal(row.contextValue, 'secret:read');
		assert.equal(row.icon?.id, 'lock');
		assert.match(row.description!, /cache 10 min · 1 stub$/);
		// Never the value: only what the service masked.
		assert.ok(!JSON.stringify(row).includes('npm_demoA1b2C3d4E5f6G7h8'), JSON.stringify(row));
		assert.match(tooltipText(row.tooltip), /Used by: 1 secret stub on borealis-ci/);
		assert.deepEqual(secretsList.fields(npm, undefined), { secret: npm.secret.id, ref: npm });
	});

	test('a stub that refers to a deleted secret: a warning row that says so, unread', async () => {
		const npm = await client.getSecret('npm-token');
		await client.deleteSecret(npm.id);
		const refs = await secretsFromStubs(client, new AbortController().signal);
		const ref = refs.find((r) => r.name === 'npm-token')!;
		assert.equal(ref.secret, undefined);
		assert.equal(ref.problem, 'not found: the stubs refer to a secret that no longer exists');
		const row = secretRefRow(ref);
		assert.equal(row.contextValue, 'secret:unread');
		assert.equal(row.icon?.id, 'warning');
		assert.equal(row.description, ref.problem);
		assert.deepEqual(secretsList.fields(ref, undefined), { secret: 'npm-token', ref });
	});

	test('more names than are read: the first SAFETY.secretsFromStubsMax read, a few at a time, the rest said unread', async () => {
		const count = SAFETY.secretsFromStubsMax + 3;
		let reads = 0;
		let inFlight = 0;
		let most = 0;
		const server = await serve((req, res) => {
			res.setHeader('content-type', 'application/json');
			if (req.url?.startsWith('/v1/secret-stubs')) {
				const data = Array.from({ length: count }, (_, i) => ({
					id: `stub_${i}`,
					runtime_id: 'rt_1',
					runtime_display_name: 'rt',
					host_pattern: 'h.example',
					stub_value_display_name: `s${String(i).padStart(3, '0')}`,
				}));
				// One name used twice: counted once, with two stubs.
				data.push({ ...data[0]!, id: 'stub_dup', runtime_display_name: 'rt2' });
				res.end(JSON.stringify({ data }));
				return;
			}
			const name = decodeURIComponent(req.url!.split('/').pop()!);
			reads++;
			inFlight++;
			most = Math.max(most, inFlight);
			setImmediate(() => {
				inFlight--;
				res.end(JSON.stringify({ data: { id: `id-${name}`, display_name: name, cache_ttl_secs: 60, value_preview: 'ab…' } }));
			});
		});
		try {
			const c = new CloudAgentsClient({
				connect: nodeConnect,
				baseUrl: server.baseUrl,
				getToken: () => DEV_TOKEN,
				retry: { baseDelayMs: 1, maxDelayMs: 5 },
			});
			const refs = await secretsFromStubs(c, new AbortController().signal);
			assert.equal(refs.length, count);
			assert.equal(reads, SAFETY.secretsFromStubsMax);
			assert.ok(most <= SAFETY.secretReadConcurrency, `${most} reads at once`);
			assert.equal(refs[0]!.stubs, 2);
			assert.deepEqual(refs[0]!.runtimes, ['rt', 'rt2']);
			assert.match(tooltipText(secretRefRow(refs[0]!).tooltip), /Used by: 2 secret stubs on rt, rt2/);
			const unread = refs.slice(SAFETY.secretsFromStubsMax);
			assert.equal(unread.length, 3);
			for (const ref of unread) {
				assert.equal(ref.secret, undefined);
				assert.equal(ref.problem, `not read (only the first ${SAFETY.secretsFromStubsMax} secrets are read)`);
			}
		} finally {
			await server.close();
		}
	});

	test('TTL and usage words', () => {
		assert.equal(ttlText(300), '5 min');
		assert.equal(ttlText(7200), '2 h');
		assert.equal(ttlText(90), '90 s');
		assert.equal(ttlText(0), '0 s');
		assert.equal(ttlText(undefined), undefined);
		assert.equal(ttlText(Number.NaN), undefined);
		assert.equal(usedByStubs(1), 'used by 1 secret stub');
		assert.equal(usedByStubs(4), 'used by 4 secret stubs');
	});

	test('a row of a secret with no metadata member: no empty parts', () => {
		const ref: SecretRef = { name: 'x', stubs: 3, runtimes: [] };
		const row = secretRefRow(ref);
		assert.equal(row.description, '3 stubs');
		assert.match(tooltipText(row.tooltip), /Used by: 3 secret stubs on —/);
	});

	test('Open: the metadata document shows the masked preview and TTL in words, never the value', async () => {
		const { kit, log } = fakeKit({ client });
		const secret = (await secretActions.open.run(
			{ secret: 'pypi-token', ref: { name: 'pypi-token', stubs: 0, runtimes: [] } },
			kit,
		)) as {
			id: string;
		};
		assert.equal(log.json.length, 1);
		assert.equal(log.json[0]!.title, 'Secret pypi-token');
		assert.deepEqual(log.json[0]!.key, ['secrets', secret.id]);
		const doc = log.json[0]!.value as Record<string, unknown>;
		assert.equal(doc.cache_ttl, '1 day');
		assert.equal(doc.cache_ttl_secs, 86_400);
		assert.ok(!JSON.stringify(doc).includes('pypi-demoAgEIcHlwaS5vcmcCJGRlbW8'), JSON.stringify(doc));
	});

	test('Open quietly returns the metadata and shows nothing; an unknown name is explained with the request id', async () => {
		const { kit, log } = fakeKit({ client, arg: automation({ quiet: true }), automation: true });
		const target = { secret: 'sentry-dsn', ref: { name: 'sentry-dsn', stubs: 0, runtimes: [] } };
		assert.equal(((await secretActions.open.run(target, kit)) as { display_name: string }).display_name, 'sentry-dsn');
		assert.equal(log.json.length, 0);
		await assert.rejects(secretActions.open.run({ ...target, secret: 'no-such-secret' }, kit), (err: unknown) => {
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 404);
			assert.equal(
				err.message,
				'No secret is called "no-such-secret" or has that UUID. Secrets are found by their exact display name or UUID.',
			);
			assert.ok(err.requestId);
			return true;
		});
	});

	test('Open with a name no service could take: refused before anything is sent', async () => {
		const before = (await emu.counters()).requests.total;
		const { kit } = fakeKit({ client });
		await assert.rejects(
			secretActions.open.run({ secret: 'bad\nname', ref: { name: 'x', stubs: 0, runtimes: [] } }, kit),
			ValidationError,
		);
		assert.equal((await emu.counters()).requests.total, before, 'nothing sent');
	});

	test('Delete: read first so the question names it; declined deletes nothing; confirmed deletes and says so', async () => {
		const asked: unknown[][] = [];
		let yes = false;
		fake.answer('window.showWarningMessage', async (...args: unknown[]) => {
			asked.push(args);
			return yes ? args[2] : undefined;
		});
		const target = { secret: 'datadog-api-key', ref: { name: 'datadog-api-key', stubs: 0, runtimes: [] } };
		const { kit, log } = fakeKit({ client });
		assert.equal(await secretActions.delete.run(target, kit), undefined);
		assert.equal(asked[0]![0], 'Delete the secret "datadog-api-key"?');
		assert.equal(asked[0]![2], 'Delete Secret');
		assert.match((asked[0]![1] as { detail: string }).detail, /UUID: [0-9a-f-]{36}/);
		assert.equal(await mutations('secrets.delete'), 0);
		yes = true;
		const deleted = (await secretActions.delete.run(target, kit)) as { display_name: string };
		assert.equal(deleted.display_name, 'datadog-api-key');
		assert.deepEqual(log.infos, ['Deleted the secret "datadog-api-key".']);
		await assert.rejects(client.getSecret('datadog-api-key'), (err: ApiError) => err.status === 404);
	});

	test('Delete of a secret that does not exist: nothing asked, nothing deleted', async () => {
		const { kit } = fakeKit({ client, arg: automation({ confirm: false }), automation: true });
		await assert.rejects(
			secretActions.delete.run({ secret: 'gone', ref: { name: 'gone', stubs: 0, runtimes: [] } }, kit),
			/No secret is called "gone"/,
		);
		assert.equal(fake.calls('window.showWarningMessage').length, 0);
		assert.equal(await mutations('secrets.delete'), 0);
	});

	test('the target argument: a string or {secret}/{secretId} trimmed; a row as it is; nothing otherwise', () => {
		const targetArg = secretActions.open.targetArg;
		assert.equal(targetArg('  npm-token '), 'npm-token');
		assert.equal(targetArg(automation({ secretId: ' abc ' })), 'abc');
		assert.equal(targetArg(automation({ secret: 'n' })), 'n');
		assert.equal(targetArg('   '), undefined);
		assert.equal(targetArg(undefined), undefined);
		const row = new vscode.TreeItem('x');
		assert.equal(targetArg(row), row);
	});

	test('the picker offers the names stubs use, and what is typed; accepting gives that name', async () => {
		const qp = new FakeQuickPick();
		fake.answer('window.createQuickPick', () => qp);
		const { kit } = fakeKit({ client, title: 'Open Secret' });
		const picked = secretActions.open.pick(kit);
		await until(() => !qp.busy && qp.items.length > 0);
		assert.equal(qp.shown, true);
		assert.equal(qp.title, 'Open Secret');
		const npm = qp.items.find((i) => i.ref === 'npm-token')!;
		assert.equal(npm.description, 'used by 1 secret stub: borealis-ci registry.npmjs.org');
		qp.type('my-own');
		assert.equal(qp.items[0]!.ref, 'my-own');
		assert.equal(qp.items.length, 6);
		qp.type('npm-token');
		assert.equal(qp.items.length, 5, 'a typed name already offered is not offered twice');
		qp.accept(npm);
		assert.deepEqual(await picked, { name: 'npm-token', stubs: 0, runtimes: [] });
		assert.equal(qp.disposed, true);
	});

	test('the picker without a selection takes the typed text; hidden gives nothing', async () => {
		const qp = new FakeQuickPick();
		fake.answer('window.createQuickPick', () => qp);
		const { kit } = fakeKit({ client });
		const picked = secretActions.open.pick(kit);
		qp.value = '  typed-name ';
		qp.accept();
		assert.equal((await picked)?.name, 'typed-name');
		const qp2 = new FakeQuickPick();
		fake.answer('window.createQuickPick', () => qp2);
		const hidden = secretActions.delete.pick(kit);
		qp2.hide();
		assert.equal(await hidden, undefined);
		await until(() => !qp2.busy);
	});

	test('the picker when the stubs cannot be listed: typing still works, the placeholder says why', async () => {
		await emu.faults([{ method: 'GET', route: '/v1/secret-stubs', status: 403 }]);
		const qp = new FakeQuickPick();
		fake.answer('window.createQuickPick', () => qp);
		const { kit } = fakeKit({ client });
		const picked = secretActions.open.pick(kit);
		await until(() => !qp.busy);
		assert.equal(qp.placeholder, "Type a secret's name or UUID (the secret stubs could not be listed)");
		qp.type('x');
		assert.deepEqual(
			qp.items.map((i: { ref: string }) => i.ref),
			['x'],
		);
		qp.hide();
		assert.equal(await picked, undefined);
	});
});
