import * as assert from 'node:assert/strict';
import type { CloudAgentsClient, Runtime } from '../../../src/api';
import { ApiError } from '../../../src/api';
import { attachedSshKeys, runtimeSshKeysList, sshKeyActions } from '../../../src/resources/sshKeys';
import { automation } from '../../../src/views/automation';
import type { TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/sshKeys.ts: the keys under a runtime's row, Detach (with its revision) and Delete, against the emulator. */
suite('resources/sshKeys', () => {
	const env = emulatorPerSuite();
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let runtimes: Runtime[];

	setup(async () => {
		({ emu, client } = env);
		runtimes = (await client.listRuntimes({ limit: 100 })).items;
	});

	const runtime = (name: string): Runtime => {
		const r = runtimes.find((x) => x.display_name === name);
		assert.ok(r, `no runtime ${name}`);
		return r;
	};
	const mutations = async (kind: string): Promise<number> => (await emu.counters()).mutations.by_kind[kind] ?? 0;
	const keysOf = async (name: string): Promise<string[]> => {
		const fresh = (await client.listRuntimes({ limit: 100 })).items.find((r) => r.display_name === name)!;
		return (attachedSshKeys(fresh) ?? []).map((k) => k.display_name ?? k.id);
	};
	/** Answers the modal question with its action (or dismisses it) and records the questions. */
	const answerQuestions = (choose: boolean): string[] => {
		const asked: string[] = [];
		fake.answer('window.showWarningMessage', async (message: string, ...rest: unknown[]) => {
			asked.push(message);
			const items = rest.filter((x): x is string => typeof x === 'string');
			return choose ? items[0] : undefined;
		});
		return asked;
	};

	test('the rows are the keys the runtime record lists, with the runtime named in the tooltip', async () => {
		const atlas = runtime('atlas-dev');
		const keys = await readList(runtimeSshKeysList, listContext(client), atlas);
		assert.deepEqual(
			keys.map((k) => k.display_name),
			['ada-laptop', 'ada-desktop'],
		);
		const r = runtimeSshKeysList.row(keys[0]!, rowContext(listContext(client), atlas, atlas.id));
		assert.equal(r.label, 'ada-laptop');
		assert.equal(r.contextValue, 'sshKey:attached');
		assert.ok(r.description!.startsWith(keys[0]!.fingerprint!), r.description);
		const tip = tooltipText(r.tooltip);
		assert.match(tip, /Runtime: atlas-dev/);
		assert.ok(tip.includes(`ID: ${keys[0]!.id}`));
		assert.deepEqual(runtimeSshKeysList.fields(keys[0]!, atlas.id), { sshKey: keys[0], runtimeId: atlas.id });
	});

	test('a runtime record without the member has no keys; the pick offers only runtimes with keys', async () => {
		const bare = { ...runtime('atlas-dev'), ssh_keys: undefined };
		assert.equal(attachedSshKeys(bare), undefined);
		assert.deepEqual(await readList(runtimeSshKeysList, listContext(client), bare), []);
		assert.equal(runtimeSshKeysList.target!.parentFilter!(runtime('atlas-dev')), true);
		assert.equal(runtimeSshKeysList.target!.parentFilter!(bare), false);
	});

	test('the target reads the runtime again; an unknown key or runtime is an error naming it', async () => {
		const atlas = runtime('atlas-dev');
		const ctx = listContext(client);
		const laptop = attachedSshKeys(atlas)![0]!;
		assert.equal((await runtimeSshKeysList.target!.get(ctx, laptop.id, atlas.id))?.display_name, 'ada-laptop');
		await assert.rejects(
			runtimeSshKeysList.target!.get(ctx, 'key_nope', atlas.id),
			/No SSH key key_nope is attached to the runtime atlas-dev\./,
		);
		await assert.rejects(runtimeSshKeysList.target!.get(ctx, laptop.id, 'rt_nope'), /The runtime rt_nope was not found\./);
		assert.equal((await runtimeSshKeysList.target!.choices(ctx, atlas.id)).length, 2);
	});

	test('Detach asks first; declined sends nothing', async () => {
		const atlas = runtime('atlas-dev');
		const asked = answerQuestions(false);
		const { kit, log } = fakeKit({ client, lists: { runtimes: runtimes } });
		const result = await sshKeyActions.detach.run({ sshKey: attachedSshKeys(atlas)![0]!, runtimeId: atlas.id }, kit);
		assert.equal(result, undefined);
		assert.deepEqual(asked, ['Detach the SSH key "ada-laptop" from the runtime atlas-dev?']);
		assert.equal(await mutations('runtimes.ssh_keys.detach'), 0);
		assert.deepEqual(log.infos, []);
	});

	test('Detach confirmed: sent with the revision shown, the key gone, the Runtimes view refreshed', async () => {
		const atlas = runtime('atlas-dev');
		answerQuestions(true);
		const { kit, log } = fakeKit({ client, lists: { runtimes } });
		const result = (await sshKeyActions.detach.run({ sshKey: attachedSshKeys(atlas)![1]!, runtimeId: atlas.id }, kit)) as {
			id: string;
		};
		assert.equal(result.id, attachedSshKeys(atlas)![1]!.id);
		assert.deepEqual(await keysOf('atlas-dev'), ['ada-laptop']);
		assert.deepEqual(log.listRefreshes, ['runtimes']);
		assert.deepEqual(log.infos, ['Detached the SSH key "ada-desktop" from the runtime atlas-dev.']);
	});

	test('Detach with a stale revision: 409, the runtime re-read, asked again at the new revision, then detached', async () => {
		const atlas = runtime('atlas-dev');
		const stale = { ...atlas, revision: (atlas.revision ?? 0) - 1 };
		const asked = answerQuestions(true);
		const { kit, log } = fakeKit({ client, lists: { runtimes: [stale] } });
		await sshKeyActions.detach.run({ sshKey: attachedSshKeys(atlas)![0]!, runtimeId: atlas.id }, kit);
		assert.equal(asked.length, 2, asked.join('\n'));
		assert.equal(
			asked[1],
			`The runtime atlas-dev changed since it was shown (revision ${stale.revision}, now ${atlas.revision}). Detach the key from it as it is now?`,
		);
		assert.deepEqual(await keysOf('atlas-dev'), ['ada-desktop']);
		assert.equal(await mutations('runtimes.ssh_keys.detach'), 1);
		assert.ok(log.listRefreshes.length >= 2, 'refreshed after the conflict and after the detach');
	});

	test('Detach for automation with onConflict "cancel": no question, nothing detached after the 409', async () => {
		const atlas = runtime('atlas-dev');
		const asked = answerQuestions(true);
		const arg = automation({ runtimeId: atlas.id, sshKeyId: 'x', confirm: false, onConflict: 'cancel', expectedRevision: 1 });
		const { kit } = fakeKit({ client, arg, automation: true, lists: { runtimes } });
		const result = await sshKeyActions.detach.run({ sshKey: attachedSshKeys(atlas)![0]!, runtimeId: atlas.id }, kit);
		assert.equal(result, undefined);
		assert.deepEqual(asked, []);
		assert.equal(await mutations('runtimes.ssh_keys.detach'), 0);
		assert.deepEqual(await keysOf('atlas-dev'), ['ada-laptop', 'ada-desktop']);
	});

	test('Delete: confirmed removes the key from every runtime; quiet automation says nothing', async () => {
		const laptop = attachedSshKeys(runtime('atlas-dev'))![0]!;
		const { kit, log } = fakeKit({ client, arg: automation({ confirm: false, quiet: true }), automation: true });
		const deleted = (await sshKeyActions.delete.run({ sshKey: laptop, runtimeId: undefined }, kit)) as { id: string };
		assert.equal(deleted.id, laptop.id);
		assert.deepEqual(await keysOf('atlas-dev'), ['ada-desktop']);
		assert.deepEqual(await keysOf('borealis-ci'), []);
		assert.deepEqual(log.infos, []);
		assert.deepEqual(log.listRefreshes, ['runtimes']);
	});

	test("Delete of another user's key: the 404 explained in our words, its request id kept", async () => {
		const grace = runtimes.flatMap((r) => attachedSshKeys(r) ?? []).find((k) => k.display_name === 'grace-workstation')!;
		answerQuestions(true);
		const { kit, log } = fakeKit({ client });
		await assert.rejects(sshKeyActions.delete.run({ sshKey: grace, runtimeId: undefined }, kit), (err: unknown) => {
			assert.ok(err instanceof ApiError);
			assert.equal(err.status, 404);
			assert.equal(
				err.message,
				'The SSH key "grace-workstation" is not one of your keys (only its owner can delete it), or it was already deleted.',
			);
			assert.ok(err.requestId, 'request id kept');
			return true;
		});
		assert.equal(await mutations('ssh_keys.delete'), 0);
		assert.deepEqual(log.listRefreshes, []);
	});

	test('Delete declined sends nothing', async () => {
		answerQuestions(false);
		const { kit } = fakeKit({ client });
		assert.equal(
			await sshKeyActions.delete.run({ sshKey: attachedSshKeys(runtime('atlas-dev'))![0]!, runtimeId: undefined }, kit),
			undefined,
		);
		assert.equal(await mutations('ssh_keys.delete'), 0);
	});

	test('Show Details: the key record under its name', async () => {
		const { kit, log } = fakeKit();
		const key = attachedSshKeys(runtime('atlas-dev'))![0]!;
		await sshKeyActions.showDetails.run({ sshKey: key, runtimeId: undefined }, kit);
		assert.equal(log.json[0]!.title, 'SSH Key ada-laptop');
		assert.deepEqual(log.json[0]!.key, ['ssh-keys', key.id]);
		assert.equal(log.json[0]!.value, key);
	});
});
