/**
 * The run-event store (src/runFollowing/runStore.ts) in a real VS Code, through `vscode.workspace.fs`
 * as the extension writes it (the same code serves VS Code for the Web): segment files of at most
 * SEGMENT_MAX_BYTES, read back whole and in order, appends that go on after a reload, histories
 * written by earlier versions (one file of any size), and hostile ids that stay inside the folder.
 * Each test writes under a folder of its own in the extension's global storage and removes it.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EventRecord } from '../../../src/api';
import { RunEventStore, SEGMENT_MAX_BYTES } from '../../../src/runFollowing/runStore';
import { testApi } from '../support/cloudAgents';

const AGENT = '3f0c1d2e-4b5a-4c6d-8e7f-0a1b2c3d4e5f.claude';

/** `count` events from seq `from`, each with `pad` characters of data. */
function events(from: number, count: number, pad = 200): EventRecord[] {
	return Array.from({ length: count }, (_, i) => ({ seq: from + i, type: 'run.output', data: { text: 'x'.repeat(pad) } }));
}

suite('Run-event store (vscode.workspace.fs, segments) [web]', () => {
	let root: vscode.Uri;

	setup(async () => {
		const api = await testApi();
		root = vscode.Uri.joinPath(api.globalStorageUri, `store-test-${Date.now()}-${Math.random().toString(36).slice(2)}`);
	});

	teardown(async () => {
		await vscode.workspace.fs.delete(root, { recursive: true, useTrash: false }).then(undefined, () => undefined);
	});

	/** The names in the run's agent folder. */
	async function filesOf(store: RunEventStore, runId: string): Promise<string[]> {
		const folder = vscode.Uri.joinPath(store.fileOf(AGENT, runId), '..');
		return (await vscode.workspace.fs.readDirectory(folder)).map(([name]) => name).sort();
	}

	test('appends past one segment go on in the next; the history reads back whole, in order, once each', async () => {
		const store = new RunEventStore(root);
		// ~270 bytes a line, 100 a batch: a segment holds about 9 batches.
		for (let batch = 0; batch < 30; batch++) {
			void store.append(AGENT, 'run_0001', events(batch * 100, 100));
		}
		await store.flushed();
		const names = await filesOf(store, 'run_0001');
		assert.ok(names.length >= 3, `segments: ${names.join(', ')}`);
		assert.deepEqual(names.slice(0, 3), ['run_0001.jsonl', 'run_0001.jsonl.1', 'run_0001.jsonl.2']);
		for (const name of names) {
			const size = (await vscode.workspace.fs.stat(vscode.Uri.joinPath(store.fileOf(AGENT, 'run_0001'), '..', name))).size;
			assert.ok(size <= SEGMENT_MAX_BYTES, `${name}: ${size} bytes`);
		}
		const read = await store.read(AGENT, 'run_0001');
		assert.equal(read.length, 3000);
		assert.deepEqual(
			read.map((e) => e.seq),
			Array.from({ length: 3000 }, (_, i) => i),
		);
	});

	test('a new store (after a reload) appends to the last segment it finds, and reads what the old one wrote', async () => {
		const before = new RunEventStore(root);
		for (let batch = 0; batch < 12; batch++) {
			await before.append(AGENT, 'run_0002', events(batch * 100, 100));
		}
		const segments = (await filesOf(before, 'run_0002')).length;
		const after = new RunEventStore(root);
		await after.append(AGENT, 'run_0002', events(1200, 5));
		assert.equal((await filesOf(after, 'run_0002')).length, segments, 'the last segment had room: no new one');
		const read = await after.read(AGENT, 'run_0002');
		assert.equal(read.length, 1205);
		assert.equal(read.at(-1)?.seq, 1204);
	});

	/**
	 * VS Code's file system as the store sees it, with one twist: `writeFile` writes the first quarter
	 * of its bytes, waits for `gate`, then writes them all (a file system that truncates, then writes:
	 * the disk, a remote's, as a window's reload can interrupt it).
	 */
	function tearingFs(gate: Promise<void>, halfWritten: () => void): vscode.FileSystem {
		const fs = vscode.workspace.fs;
		return {
			stat: (uri) => fs.stat(uri),
			readDirectory: (uri) => fs.readDirectory(uri),
			createDirectory: (uri) => fs.createDirectory(uri),
			readFile: (uri) => fs.readFile(uri),
			writeFile: async (uri, bytes) => {
				await fs.writeFile(uri, bytes.slice(0, Math.floor(bytes.byteLength / 4)));
				halfWritten();
				await gate;
				await fs.writeFile(uri, bytes);
			},
			delete: (uri, options) => fs.delete(uri, options),
			rename: (from, to, options) => fs.rename(from, to, options),
			copy: (from, to, options) => fs.copy(from, to, options),
			isWritableFileSystem: (scheme) => fs.isWritableFileSystem(scheme),
		};
	}

	test('an append being written when another window reads the run (a reload) leaves what was stored whole: every record read, none cut (issue 42, item 1)', async () => {
		await new RunEventStore(root).append(AGENT, 'run_0005', events(0, 10));
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		let halfWritten!: () => void;
		const half = new Promise<void>((resolve) => (halfWritten = resolve));
		const writing = new RunEventStore(root, tearingFs(gate, halfWritten)).append(AGENT, 'run_0005', events(10, 10));
		await half;
		// The new window reads while the old one's write is half done.
		const during = await new RunEventStore(root).read(AGENT, 'run_0005');
		release();
		await writing;
		assert.deepEqual(
			during.map((e) => e.seq),
			Array.from({ length: 10 }, (_, i) => i),
			'read during the write: the ten stored before it, whole',
		);
		const after = await new RunEventStore(root).read(AGENT, 'run_0005');
		assert.deepEqual(
			after.map((e) => e.seq),
			Array.from({ length: 20 }, (_, i) => i),
		);
	});

	test("a window closing between VS Code's delete of a segment and the move of its .tmp over it loses nothing: the next window reads the .tmp and appends after it", async () => {
		await new RunEventStore(root).append(AGENT, 'run_0007', events(0, 10));
		// VS Code's rename over a file deletes the file, then moves: the old window stops in between.
		const fs = vscode.workspace.fs;
		let deleted!: () => void;
		const cut = new Promise<void>((resolve) => (deleted = resolve));
		let release!: () => void;
		const gate = new Promise<void>((resolve) => (release = resolve));
		const closing: vscode.FileSystem = {
			stat: (uri) => fs.stat(uri),
			readDirectory: (uri) => fs.readDirectory(uri),
			createDirectory: (uri) => fs.createDirectory(uri),
			readFile: (uri) => fs.readFile(uri),
			writeFile: (uri, bytes) => fs.writeFile(uri, bytes),
			delete: (uri, options) => fs.delete(uri, options),
			rename: async (from, to, options) => {
				await fs.delete(to);
				deleted();
				await gate;
				await fs.rename(from, to, options);
			},
			copy: (from, to, options) => fs.copy(from, to, options),
			isWritableFileSystem: (scheme) => fs.isWritableFileSystem(scheme),
		};
		const writing = new RunEventStore(root, closing).append(AGENT, 'run_0007', events(10, 10));
		await cut;
		assert.deepEqual(
			await filesOf(new RunEventStore(root), 'run_0007'),
			['run_0007.jsonl.tmp'],
			'the segment is gone, its .tmp is there',
		);
		const next = new RunEventStore(root);
		assert.deepEqual(
			(await next.read(AGENT, 'run_0007')).map((e) => e.seq),
			Array.from({ length: 20 }, (_, i) => i),
			'the next window reads the twenty events from the .tmp',
		);
		await next.append(AGENT, 'run_0007', events(20, 5));
		assert.deepEqual(await filesOf(next, 'run_0007'), ['run_0007.jsonl'], 'its append moved the segment into place');
		assert.deepEqual(
			(await new RunEventStore(root).read(AGENT, 'run_0007')).map((e) => e.seq),
			Array.from({ length: 25 }, (_, i) => i),
			'and wrote after them',
		);
		release();
		await writing.catch(() => undefined);
	});

	test('a file system failing for a moment fails the append instead of writing the history over, and its events are written by the next append (issue 42, item 1)', async () => {
		await new RunEventStore(root).append(AGENT, 'run_0006', events(0, 10));
		let failing = true;
		const fs = vscode.workspace.fs;
		const flaky: vscode.FileSystem = {
			stat: (uri) => (failing ? Promise.reject(vscode.FileSystemError.Unavailable(uri)) : fs.stat(uri)),
			readDirectory: (uri) => fs.readDirectory(uri),
			createDirectory: (uri) => fs.createDirectory(uri),
			readFile: (uri) => fs.readFile(uri),
			writeFile: (uri, bytes) => fs.writeFile(uri, bytes),
			delete: (uri, options) => fs.delete(uri, options),
			rename: (from, to, options) => fs.rename(from, to, options),
			copy: (from, to, options) => fs.copy(from, to, options),
			isWritableFileSystem: (scheme) => fs.isWritableFileSystem(scheme),
		};
		const store = new RunEventStore(root, flaky);
		await assert.rejects(store.append(AGENT, 'run_0006', events(10, 5)));
		assert.deepEqual(
			(await new RunEventStore(root).read(AGENT, 'run_0006')).map((e) => e.seq),
			Array.from({ length: 10 }, (_, i) => i),
			'the stored history is as it was',
		);
		failing = false;
		await store.append(AGENT, 'run_0006', events(15, 5));
		assert.deepEqual(
			(await new RunEventStore(root).read(AGENT, 'run_0006')).map((e) => e.seq),
			Array.from({ length: 20 }, (_, i) => i),
			'the failed append was written before the next one',
		);
	});

	test('a history written by an earlier version (one file, larger than a segment) is read, and new events go to a next segment', async () => {
		const store = new RunEventStore(root);
		const legacy = events(0, 2000);
		const text = `${legacy.map((e) => JSON.stringify(e)).join('\n')}\n{"seq": 2000, "type": "run.out`;
		await vscode.workspace.fs.writeFile(store.fileOf(AGENT, 'run_0003'), new TextEncoder().encode(text));
		assert.ok(text.length > SEGMENT_MAX_BYTES);
		await store.append(AGENT, 'run_0003', events(2000, 3));
		assert.deepEqual(await filesOf(store, 'run_0003'), ['run_0003.jsonl', 'run_0003.jsonl.1']);
		const read = await store.read(AGENT, 'run_0003');
		assert.equal(read.length, 2003, 'the torn last line of the old file is skipped, nothing else');
		assert.deepEqual(
			read.slice(-4).map((e) => e.seq),
			[1999, 2000, 2001, 2002],
		);
	});

	test('hostile ids are written as <root>/<agent>/<run>.jsonl inside the folder, and read back', async () => {
		const store = new RunEventStore(root);
		for (const id of ['../../../../tmp/pwned', '..', '.', '', 'a/b', 'a\\b', 'lone\uD800', 'x'.repeat(300)]) {
			const file = store.fileOf(id, id);
			assert.ok(file.path.startsWith(`${root.path}/`), `${JSON.stringify(id)} → ${file.path}`);
			assert.equal(vscode.Uri.joinPath(file, '..', '..').path, root.path, 'exactly <root>/<agent>/<run>.jsonl');
			await store.append(id, id, events(1, 1, 10));
			assert.equal((await store.read(id, id)).length, 1, JSON.stringify(id));
		}
		assert.equal((await vscode.workspace.fs.readDirectory(root)).length, 8, 'one agent folder per id');
	});
});
