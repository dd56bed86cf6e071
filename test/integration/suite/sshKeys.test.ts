import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import { counters, emu, restoreDevToken, testApi } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';

/**
 * SSH keys under each runtime (src/resources/sshKeys.ts) against the
 * emulator inside VS Code: the rows, detaching with `expected_revision` (a 409 re-reads the runtime
 * and tries again, or stops), deleting one of my keys and refusing another user's — each asserted
 * on the emulator's state after the action.
 */

interface State {
	runtimes: Array<{ id: string; display_name: string; revision: number; ssh_key_ids: string[] }>;
	ssh_keys: Array<{ id: string; display_name: string; user_id: string }>;
}
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const rows = async (key: string, parent?: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key, parent)) ?? [];
const run = <T>(command: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(command, ...args);
const DETACH = 'DELETE /v2/runtimes/{runtime_id}/ssh-keys/{ssh_key_id}';

suite('SSH keys of runtimes', () => {
	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		await run('cloudAgents.runtimes.refresh');
	});

	suiteTeardown(async () => {
		await closeAllEditors();
	});

	const withKeys = async (): Promise<State['runtimes'][number]> => {
		const s = await state();
		const rt = s.runtimes.filter((r) => r.ssh_key_ids.length > 0).sort((a, b) => b.ssh_key_ids.length - a.ssh_key_ids.length)[0];
		assert.ok(rt, 'a runtime with SSH keys in the seed');
		return rt;
	};

	test('a runtime row has an "SSH Keys" group listing exactly its attached keys', async () => {
		const rt = await withKeys();
		const groups = await rows('runtimes', `runtime/${rt.id}`);
		assert.ok(
			groups.some((g) => g.id === `runtime/${rt.id}/runtimeSshKeys` && g.label === 'SSH Keys'),
			JSON.stringify(groups.map((g) => g.id)),
		);
		assert.ok(groups.some((g) => g.id === `runtime/${rt.id}/runtimeSecretStubs`));
		const keys = await rows('runtimes', `runtime/${rt.id}/runtimeSshKeys`);
		assert.deepEqual(keys.map((k) => k.id).sort(), rt.ssh_key_ids.map((id) => `sshKey/${rt.id}/${id}`).sort());
		assert.ok(keys.every((k) => k.contextValue === 'sshKey:attached' && k.command === 'cloudAgents.sshKeys.showDetails'));
	});

	test('detach with a stale revision: 409, then "cancel" keeps the key attached', async () => {
		const rt = await withKeys();
		const keyId = rt.ssh_key_ids[0]!;
		const before = (await counters()).requests.by_route[DETACH] ?? 0;
		const result = await run('cloudAgents.sshKeys.detach', {
			automation: true,
			runtimeId: rt.id,
			sshKeyId: keyId,
			expectedRevision: rt.revision + 7,
			onConflict: 'cancel',
			confirm: false,
			quiet: true,
			rethrow: true,
		});
		assert.equal(result, undefined);
		assert.equal((await counters()).requests.by_route[DETACH], before + 1);
		assert.ok((await state()).runtimes.find((r) => r.id === rt.id)!.ssh_key_ids.includes(keyId));
	});

	test('detach with a stale revision: 409, re-read, retried at the fresh revision, and the key is detached', async () => {
		const rt = await withKeys();
		const keyId = rt.ssh_key_ids[0]!;
		const before = (await counters()).requests.by_route[DETACH] ?? 0;
		const detached = await run<{ id: string }>('cloudAgents.sshKeys.detach', {
			automation: true,
			runtimeId: rt.id,
			sshKeyId: keyId,
			expectedRevision: rt.revision + 7,
			onConflict: 'retry',
			confirm: false,
			quiet: true,
			rethrow: true,
		});
		assert.equal(detached?.id, keyId);
		assert.equal((await counters()).requests.by_route[DETACH], before + 2);
		const after = (await state()).runtimes.find((r) => r.id === rt.id)!;
		assert.ok(!after.ssh_key_ids.includes(keyId));
		assert.ok(after.revision > rt.revision);
		// The key itself still exists (detached, not deleted), and the row is gone.
		assert.ok((await state()).ssh_keys.some((k) => k.id === keyId));
		const keys = await rows('runtimes', `runtime/${rt.id}/runtimeSshKeys`);
		assert.ok(!keys.some((k) => k.id === `sshKey/${rt.id}/${keyId}`));
	});

	test("delete one of my keys removes it everywhere; another user's key is refused and kept", async () => {
		const s = await state();
		const mine = [
			...new Map(
				s.runtimes.flatMap((r) => r.ssh_key_ids.map((k) => [k, { rt: r, key: s.ssh_keys.find((x) => x.id === k)! }] as const)),
			).values(),
		];
		const users = new Set(s.ssh_keys.map((k) => k.user_id));
		assert.ok(users.size >= 2, 'keys of two users in the seed');
		// Whose keys are mine: the delete of another user's key is refused (404), mine succeeds.
		let deleted = false;
		let refused = false;
		for (const { rt, key } of mine) {
			try {
				await run('cloudAgents.sshKeys.delete', {
					automation: true,
					runtimeId: rt.id,
					sshKeyId: key.id,
					confirm: false,
					quiet: true,
					rethrow: true,
				});
				deleted = true;
				const after = await state();
				assert.ok(!after.ssh_keys.some((k) => k.id === key.id));
				assert.ok(after.runtimes.every((r) => !r.ssh_key_ids.includes(key.id)));
			} catch (err) {
				assert.match(String(err), /not one of your keys/);
				refused = true;
				assert.ok(
					(await state()).ssh_keys.some((k) => k.id === key.id),
					'a refused key is kept',
				);
			}
			if (deleted && refused) {
				break;
			}
		}
		assert.ok(deleted && refused, `deleted ${deleted}, refused ${refused}`);
	});
});
