import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { IMAGE_SCHEME } from '../../../src/ids';
import { ImageDocuments } from '../../../src/views/imageDocuments';
import * as fake from '../support/vscodeFake';

const MiB = 1024 * 1024;

/** src/views/imageDocuments.ts on the `vscode` fake. */
suite('views/imageDocuments', () => {
	let images: ImageDocuments;
	let events: vscode.FileChangeEvent[][];

	setup(() => {
		images = new ImageDocuments();
		events = [];
		images.onDidChangeFile((e) => events.push(e));
	});

	teardown(() => {
		images.dispose();
	});

	const held = (uri: vscode.Uri): boolean => {
		try {
			images.readFile(uri);
			return true;
		} catch {
			return false;
		}
	};

	test('registers a read-only, case-sensitive file system for its scheme', () => {
		const [scheme, provider, options] = fake.calls('workspace.registerFileSystemProvider')[0]!;
		assert.equal(scheme, IMAGE_SCHEME);
		assert.equal(provider, images);
		assert.deepEqual(options, { isReadonly: true, isCaseSensitive: true });
	});

	test('uri: the name is the only path segment (never one that climbs or splits); the identity is in the query', () => {
		const uri = ImageDocuments.uri('coverage-chart.png', 'a1', 'art-1');
		assert.equal(uri.scheme, IMAGE_SCHEME);
		assert.equal(uri.path, '/coverage-chart.png');
		assert.equal(uri.query, 'a1/art-1');
		assert.equal(ImageDocuments.uri('../x/y\\z.png', 'a/1').path, '/.._x_y_z.png');
		assert.equal(ImageDocuments.uri('..').path, '/_');
		assert.equal(ImageDocuments.uri('').path, '/_');
		assert.equal(ImageDocuments.uri('.', 'a/1').query, 'a_1');
		assert.notEqual(ImageDocuments.uri('x.png', 'a1', '1').toString(), ImageDocuments.uri('x.png', 'a1', '2').toString());
	});

	test('show holds the bytes, opens the preview and answers stat and readFile', async () => {
		const uri = ImageDocuments.uri('chart.png', 'a1', '1');
		const bytes = new Uint8Array([137, 80, 78, 71]);
		assert.equal(await images.show(uri, bytes), uri);
		assert.deepEqual(fake.calls('commands.executeCommand')[0], ['vscode.open', uri, { preview: true }]);
		assert.equal(images.readFile(uri), bytes);
		const stat = images.stat(uri);
		assert.equal(stat.type, vscode.FileType.File);
		assert.equal(stat.size, 4);
		assert.equal(stat.permissions, vscode.FilePermission.Readonly);
		assert.deepEqual(events, [], 'a first show changes no file VS Code knows');
	});

	test('showing the same image again replaces its bytes and tells VS Code it changed', async () => {
		const uri = ImageDocuments.uri('chart.png', 'a1', '1');
		await images.show(uri, new Uint8Array([1]));
		await images.show(uri, new Uint8Array([2, 2]));
		assert.deepEqual([...images.readFile(uri)], [2, 2]);
		assert.deepEqual(events, [[{ type: vscode.FileChangeType.Changed, uri }]]);
	});

	test('an image no longer held: FileNotFound saying to open the artifact again', () => {
		const uri = ImageDocuments.uri('gone.png', 'a1', '9');
		assert.throws(
			() => images.readFile(uri),
			(err: Error) => err instanceof vscode.FileSystemError && err.code === 'FileNotFound' && /Open Artifact/.test(err.message),
		);
		assert.throws(() => images.stat(uri), /no longer held/);
	});

	test('the root is a read-only folder that lists nothing', () => {
		const root = vscode.Uri.from({ scheme: IMAGE_SCHEME, path: '/' });
		const stat = images.stat(root);
		assert.equal(stat.type, vscode.FileType.Directory);
		assert.equal(stat.permissions, vscode.FilePermission.Readonly);
		assert.deepEqual(images.readDirectory(), []);
		const watch = images.watch();
		assert.equal(typeof watch.dispose, 'function');
	});

	test('nothing can be written, made, deleted or renamed', () => {
		const uri = ImageDocuments.uri('x.png', 'a1');
		for (const attempt of [
			() => images.writeFile(uri),
			() => images.createDirectory(uri),
			() => images.delete(uri),
			() => images.rename(uri),
		]) {
			assert.throws(attempt, (err: Error) => err instanceof vscode.FileSystemError && err.code === 'NoPermissions');
		}
	});

	test('at most 16 images are held: the oldest goes first; showing one again makes it the newest', async () => {
		const uris = Array.from({ length: 17 }, (_, i) => ImageDocuments.uri(`i${i}.png`, 'a1', String(i)));
		for (const uri of uris.slice(0, 16)) {
			await images.show(uri, new Uint8Array([1]));
		}
		await images.show(uris[0]!, new Uint8Array([2]));
		await images.show(uris[16]!, new Uint8Array([3]));
		assert.ok(held(uris[0]!), 'shown again: newest');
		assert.ok(!held(uris[1]!), 'the oldest went');
		assert.ok(uris.slice(2).every(held));
	});

	test('at most 64 MiB in all: the oldest go until the rest fits, but never the image just shown', async () => {
		const a = ImageDocuments.uri('a.png', '1');
		const b = ImageDocuments.uri('b.png', '2');
		const c = ImageDocuments.uri('c.png', '3');
		const huge = ImageDocuments.uri('huge.png', '4');
		await images.show(a, new Uint8Array(30 * MiB));
		await images.show(b, new Uint8Array(30 * MiB));
		assert.ok(held(a) && held(b), '60 MiB fit');
		await images.show(c, new Uint8Array(10 * MiB));
		assert.deepEqual([held(a), held(b), held(c)], [false, true, true]);
		await images.show(huge, new Uint8Array(65 * MiB));
		assert.deepEqual([held(b), held(c), held(huge)], [false, false, true], 'alone over the bound, still shown');
	});

	test('forgetAll: every image goes, VS Code is told they are deleted, their tabs close', async () => {
		const a = ImageDocuments.uri('a.png', '1');
		const b = ImageDocuments.uri('b.png', '2');
		await images.show(a, new Uint8Array([1]));
		await images.show(b, new Uint8Array([2]));
		const tab = { label: 'a.png', input: new vscode.TabInputCustom(a, 'imagePreview.previewEditor'), isDirty: false };
		fake.window.tabGroups.all = [{ tabs: [tab] }];
		await images.forgetAll();
		assert.ok(!held(a) && !held(b));
		assert.deepEqual(events, [
			[
				{ type: vscode.FileChangeType.Deleted, uri: vscode.Uri.parse(a.toString(), true) },
				{ type: vscode.FileChangeType.Deleted, uri: vscode.Uri.parse(b.toString(), true) },
			],
		]);
		assert.deepEqual(fake.calls('window.tabGroups.close')[0], [[tab], true]);
		events.splice(0);
		await images.forgetAll();
		assert.deepEqual(events, [], 'nothing held: nothing told');
	});

	test("forgetAll of a deployment (issue 47): its images go and their tabs close; the default deployment's and others' stay", async () => {
		const mine = ImageDocuments.uri('a.png', '1');
		const theirs = mine.with({ authority: 'staging-0123456789ab' });
		await images.show(mine, new Uint8Array([1]));
		await images.show(theirs, new Uint8Array([2]));
		const tabOf = (uri: vscode.Uri) => ({
			label: 'a.png',
			input: new vscode.TabInputCustom(uri, 'imagePreview.previewEditor'),
			isDirty: false,
		});
		fake.window.tabGroups.all = [{ tabs: [tabOf(mine), tabOf(theirs)] }];
		await images.forgetAll('staging-0123456789ab');
		assert.deepEqual([held(mine), held(theirs)], [true, false]);
		assert.deepEqual(
			(fake.calls('window.tabGroups.close')[0]![0] as Array<{ input: vscode.TabInputCustom }>).map((t) => t.input.uri.authority),
			['staging-0123456789ab'],
		);
		await images.forgetAll();
		assert.deepEqual([held(mine), held(theirs)], [false, false]);
	});

	test('dispose drops every image', async () => {
		const a = ImageDocuments.uri('a.png', '1');
		await images.show(a, new Uint8Array([1]));
		images.dispose();
		assert.ok(!held(a));
	});
});
