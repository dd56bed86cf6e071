import * as assert from 'node:assert/strict';
import type { CloudAgentsClient, ImageInfo } from '../../../src/api';
import { readImage } from '../../../src/api';
import { imageActions, imagesList } from '../../../src/resources/images';
import type { TestEmulator } from '../support/emulator';
import { emulatorPerSuite, fakeKit, listContext, readList, rowContext, tooltipText } from './kit';

/** src/resources/images.ts: rows from the emulator's images, Show Details and Delete Image… against it. */
suite('resources/images', () => {
	const env = emulatorPerSuite();
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let images: ImageInfo[];

	setup(async () => {
		({ emu, client } = env);
		images = await readList(imagesList, listContext(client), undefined);
	});

	const image = (id: string): ImageInfo => {
		const i = images.find((x) => x.id === id);
		assert.ok(i, `no image ${id}`);
		return i;
	};
	const row = (i: ImageInfo) => imagesList.row(i, rowContext(listContext(client), undefined));
	const deletes = async (): Promise<number> => (await emu.counters()).mutations.by_kind['images.delete'] ?? 0;

	test('rows: built-in and custom, "in use" marked in the description and the context value', () => {
		assert.deepEqual(images.map((i) => i.id).sort(), [
			'img_browser_2025_11',
			'img_custom_node18_legacy',
			'img_custom_python_ml',
			'img_standard_2025_11',
		]);
		const builtin = row(image('img_standard_2025_11'));
		assert.equal(builtin.contextValue, 'image:builtin:inUse');
		assert.equal(builtin.icon?.id, 'archive');
		assert.equal(builtin.label, 'Cloud Agent standard (2025-11)');
		assert.match(builtin.description!, /^builtin · in use/);
		const free = row(image('img_custom_node18_legacy'));
		assert.equal(free.contextValue, 'image:custom');
		assert.equal(free.icon?.id, 'package');
		assert.ok(!free.description!.includes('in use'), free.description);
		assert.match(tooltipText(free.tooltip), /Architectures: x86_64/);
		assert.equal(free.command?.command, 'cloudAgents.images.showDetails');
	});

	test('a record with odd or missing members still makes a row', () => {
		const odd = readImage({ id: 'img_x', kind: 'Weird Kind', tags: ['a', 'b'], description: 'desc' })!;
		const r = row(odd);
		assert.equal(r.label, 'img_x');
		assert.equal(r.contextValue, 'image:unknown');
		assert.equal(r.description, 'Weird Kind · a, b · desc');
		assert.equal(row(readImage({ id: 'img_y' })!).contextValue, 'image:unknown');
	});

	test('Delete is offered on custom images no runtime uses only', () => {
		const filter = imageActions.delete.filter;
		assert.equal(filter(image('img_custom_node18_legacy')), true);
		assert.equal(filter(image('img_custom_python_ml')), false);
		assert.equal(filter(image('img_standard_2025_11')), false);
	});

	test('Delete: asks first; declined sends nothing and the image stays', async () => {
		const { kit, log } = fakeKit({ client, confirm: false });
		const result = await imageActions.delete.run({ image: image('img_custom_node18_legacy') }, kit);
		assert.deepEqual(result, { deleted: false, reason: 'cancelled' });
		assert.equal(log.confirms.length, 1);
		assert.equal(log.confirms[0]!.message, 'Delete the image "Node 18 legacy toolchain"?');
		assert.equal(log.confirms[0]!.action, 'Delete Image');
		assert.ok(log.confirms[0]!.detail!.includes('img_custom_node18_legacy'));
		assert.equal(await deletes(), 0);
		assert.ok((await client.listImages({})).some((i) => (i as { id: string }).id === 'img_custom_node18_legacy'));
	});

	test('Delete: confirmed deletes the image, says so and refreshes the list', async () => {
		const { kit, log } = fakeKit({ client, confirm: true });
		const result = await imageActions.delete.run({ image: image('img_custom_node18_legacy') }, kit);
		assert.deepEqual(result, { deleted: true });
		assert.deepEqual(log.infos, ['Deleted the image "Node 18 legacy toolchain".']);
		assert.equal(log.refreshes, 1);
		assert.equal(log.progress.length, 1);
		assert.equal(await deletes(), 1);
		const left = (await readList(imagesList, listContext(client), undefined)).map((i) => i.id);
		assert.ok(!left.includes('img_custom_node18_legacy'), left.join(', '));
	});

	test('Delete of an image its row says is in use: refused before asking, nothing sent', async () => {
		const { kit, log } = fakeKit({ client, confirm: true });
		const result = await imageActions.delete.run({ image: image('img_custom_python_ml') }, kit);
		assert.deepEqual(result, { deleted: false, reason: 'in_use' });
		assert.equal(log.confirms.length, 0);
		assert.equal(log.warnings.length, 1);
		assert.match(log.warnings[0]!, /"Python ML toolchain" cannot be deleted: a runtime uses it/);
		assert.equal(await deletes(), 0);
	});

	test('Delete refused by the service (409, the row was stale): a warning with its request id, the list refreshed', async () => {
		const stale = { ...image('img_custom_python_ml'), inUse: false };
		const { kit, log } = fakeKit({ client, confirm: true });
		const result = (await imageActions.delete.run({ image: stale }, kit)) as { deleted: boolean; reason: string; requestId?: string };
		assert.equal(result.deleted, false);
		assert.equal(result.reason, 'in_use');
		assert.ok(result.requestId, 'the 409 carried a request id');
		assert.equal(log.warnings.length, 1);
		assert.match(log.warnings[0]!, /"Python ML toolchain" was not deleted: it is in use/);
		assert.ok(log.warnings[0]!.includes(`(request ${result.requestId})`), log.warnings[0]);
		assert.equal(log.refreshes, 1);
		assert.deepEqual(log.infos, []);
	});

	test('Delete failing otherwise (404): the error goes to the caller, nothing said as done', async () => {
		const { kit, log } = fakeKit({ client, confirm: true });
		const ghost = readImage({ id: 'img_gone', kind: 'custom', display_name: 'Gone' })!;
		await assert.rejects(imageActions.delete.run({ image: ghost }, kit), (err: Error & { status?: number }) => err.status === 404);
		assert.deepEqual(log.infos, []);
		assert.equal(log.refreshes, 0);
	});

	test('Show Details: the record as sent, under the image name', async () => {
		const { kit, log } = fakeKit({ client });
		await imageActions.showDetails.run({ image: image('img_browser_2025_11') }, kit);
		assert.equal(log.json[0]!.title, 'Image Cloud Agent with browser (2025-11)');
		assert.deepEqual(log.json[0]!.key, ['images', 'img_browser_2025_11']);
		assert.equal((log.json[0]!.value as { id: string }).id, 'img_browser_2025_11');
	});

	test('the target: get by id, none for an unknown one', async () => {
		const ctx = listContext(client);
		assert.equal((await imagesList.target!.get(ctx, 'img_custom_python_ml', undefined))?.name, 'Python ML toolchain');
		assert.equal(await imagesList.target!.get(ctx, 'img_nope', undefined), undefined);
		assert.equal(imagesList.target!.pickText(image('img_custom_python_ml')).description, 'custom · in use');
	});
});
