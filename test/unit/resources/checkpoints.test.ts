import * as assert from 'node:assert/strict';
import type { CheckpointInfo, CloudAgentsClient } from '../../../src/api';
import { readCheckpoint } from '../../../src/api';
import { checkpointActions, checkpointsList, sourceRuntimeText } from '../../../src/resources/checkpoints';
import { startWorkspaceEmulator, type TestEmulator } from '../support/emulator';
import { fakeKit, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/checkpoints.ts: rows built from the emulator's demo checkpoints, and Show Details. */
suite('resources/checkpoints', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let all: CheckpointInfo[];

	suiteSetup(async () => {
		({ emu, client } = await startWorkspaceEmulator());
		all = await readList(checkpointsList, listContext(client), undefined, { limit: 3 });
	});
	suiteTeardown(async () => {
		await emu.close();
	});

	const byName = (name: string): CheckpointInfo => {
		const c = all.find((x) => x.name === name);
		assert.ok(c, `no checkpoint ${name} in ${all.map((x) => x.name).join(', ')}`);
		return c;
	};
	const row = (c: CheckpointInfo, loaded: Record<string, unknown[]> = {}) =>
		checkpointsList.row(c, rowContext(listContext(client, loaded), undefined));

	test('the list walks the pages: every checkpoint once, decoded', async () => {
		// Read three at a time above; the seed has seven.
		assert.equal(all.length, 7);
		assert.equal(new Set(all.map((c) => c.id)).size, 7);
		const whole = await readList(checkpointsList, listContext(client), undefined, { limit: 100 });
		assert.deepEqual(all.map((c) => c.id).sort(), whole.map((c) => c.id).sort());
	});

	test('a ready checkpoint: its state, source runtime and a click that shows details', () => {
		const c = byName('ci-baseline');
		const r = row(c);
		assert.equal(r.label, 'ci-baseline');
		assert.equal(r.contextValue, 'checkpoint:ready');
		assert.equal(r.icon?.id, 'pass-filled');
		assert.match(r.description!, /^ready · from borealis/);
		assert.equal(r.command?.command, 'cloudAgents.checkpoints.showDetails');
		assert.equal(checkpointsList.isActive!(c), false);
		const tip = tooltipText(r.tooltip);
		assert.match(tip, /^ci-baseline\n/);
		assert.match(tip, /Kind: cold/);
		assert.ok(tip.includes(`ID: ${c.id}`), tip);
	});

	test('a failed checkpoint shows its failure reason and the failed icon', () => {
		const r = row(byName('sandbox-snapshot'));
		assert.equal(r.contextValue, 'checkpoint:failed');
		assert.equal(r.icon?.id, 'error');
		assert.ok(r.description!.includes('disk_snapshot_timeout'), r.description);
		assert.match(tooltipText(r.tooltip), /Failure reason: disk_snapshot_timeout/);
	});

	test('a checkpoint being created spins and keeps the list refreshing', () => {
		const c = byName('nightly-pre-upgrade');
		assert.equal(checkpointsList.isActive!(c), true);
		assert.equal(row(c).icon?.id, 'sync~spin');
		assert.equal(row(c).contextValue, 'checkpoint:creating');
	});

	test('the source runtime: the Runtimes view name wins; a gone runtime is "(deleted)"', () => {
		const c = byName('ci-baseline');
		const renamed = { id: c.sourceRuntimeId, display_name: 'borealis (renamed)' };
		assert.equal(sourceRuntimeText(c, listContext(client, { runtimes: [renamed] })), 'borealis (renamed)');
		assert.ok(row(c, { runtimes: [renamed] }).description!.includes('from borealis (renamed)'));
		const gone = byName('retired-runtime-final');
		assert.equal(gone.sourceRuntimeId, undefined);
		assert.equal(sourceRuntimeText(gone), 'iris-retired (deleted)');
		assert.match(tooltipText(row(gone).tooltip), /Source runtime: iris-retired \(deleted\)/);
		// No captured name either: only "deleted"; a runtime id nobody names: the id.
		assert.equal(sourceRuntimeText({ ...gone, sourceRuntimeName: undefined }), 'deleted');
		assert.equal(sourceRuntimeText({ ...c, sourceRuntimeName: undefined }), c.sourceRuntimeId);
	});

	test('an odd state is a context token "unknown"; no state at all too', () => {
		const odd = readCheckpoint({ id: 'ck_1', state: { status: 'Bad State!' } })!;
		assert.equal(row(odd).contextValue, 'checkpoint:unknown');
		assert.equal(row(odd).label, 'ck_1', 'no name: the id');
		const none = readCheckpoint({ id: 'ck_2' })!;
		assert.equal(row(none).contextValue, 'checkpoint:unknown');
		assert.equal(row(none).icon?.id, 'pass-filled');
	});

	test('the target: a checkpoint found by id across pages, none for an unknown id', async () => {
		const ctx = listContext(client);
		const last = all.at(-1)!;
		assert.equal((await checkpointsList.target!.get(ctx, last.id, undefined))?.name, last.name);
		assert.equal(await checkpointsList.target!.get(ctx, 'ck_not_there', undefined), undefined);
		assert.equal(checkpointsList.target!.notFound!('ck_x'), 'The checkpoint ck_x was not found.');
		assert.equal((await checkpointsList.target!.choices(ctx, undefined)).length, 7);
	});

	test('Show Details: a summary first, "deleted" for a gone runtime, and the record as sent', async () => {
		const { kit, log } = fakeKit();
		const gone = byName('iris-before-retire');
		await checkpointActions.showDetails.run({ checkpoint: gone }, kit);
		assert.equal(log.json.length, 1);
		const { title, key, value } = log.json[0]!;
		assert.equal(title, 'Checkpoint iris-before-retire');
		assert.deepEqual(key, ['checkpoints', gone.id]);
		const v = value as Record<string, unknown>;
		assert.equal(v.state, 'failed');
		assert.equal(v.failure_reason, 'checkpoint_storage_quota_exceeded');
		assert.equal(v.source_runtime, 'deleted');
		assert.equal(v.source_runtime_id, null);
		assert.equal((v.record as { id: string }).id, gone.id);
	});

	test('Show Details: a name with a codicon is shown as typed in the title', async () => {
		const { kit, log } = fakeKit();
		await checkpointActions.showDetails.run({ checkpoint: readCheckpoint({ id: 'ck_3', name: '$(zap) boom' })! }, kit);
		assert.equal(log.json[0]!.title, 'Checkpoint \\$(zap) boom');
		assert.equal((log.json[0]!.value as { name: unknown; state: unknown }).state, null);
	});
});
