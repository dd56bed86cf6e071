import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { EventRecord } from '../../../src/api';
import { RunEventStore, SEGMENT_MAX_BYTES } from '../../../src/runFollowing/runStore';
import * as fake from '../support/vscodeFake';

/** src/runFollowing/runStore.ts on the fake's in-memory `workspace.fs` (or a wrapper of it that fails on demand). */

const ROOT = vscode.Uri.parse('file:///storage/runs');
const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);

function event(seq: number, extra: Record<string, unknown> = {}): EventRecord {
	return { seq, type: 'run.log', data: { text: `line ${seq}` }, ...extra };
}

/** The stored file at `uri` as text (undefined when absent). */
function stored(uri: vscode.Uri): string | undefined {
	const data = fake.memoryFiles.get(uri.toString());
	return data === undefined ? undefined : text(data);
}

function segment(file: vscode.Uri, index: number): vscode.Uri {
	return index === 0 ? file : file.with({ path: `${file.path}.${index}` });
}

/** The fake's file system, with writes, renames, stats or reads failing while `fail` says so. */
function flakyFs(fail: { write?: boolean; stat?: boolean; read?: (uri: vscode.Uri) => Error | undefined }): vscode.FileSystem {
	const fs = vscode.workspace.fs;
	return {
		...fs,
		readFile: (uri: vscode.Uri) => {
			const err = fail.read?.(uri);
			return err ? Promise.reject(err) : fs.readFile(uri);
		},
		writeFile: (uri: vscode.Uri, content: Uint8Array) =>
			fail.write ? Promise.reject(vscode.FileSystemError.NoPermissions(uri)) : fs.writeFile(uri, content),
		stat: (uri: vscode.Uri) => (fail.stat ? Promise.reject(vscode.FileSystemError.Unavailable(uri)) : fs.stat(uri)),
	};
}

suite('runFollowing/runStore', () => {
	test('fileOf puts a run under its agent with safe single names, inside the root', () => {
		const store = new RunEventStore(ROOT);
		assert.equal(store.fileOf('agent-1', 'run-1').toString(), 'file:///storage/runs/agent-1/run-1.jsonl');
		const odd = store.fileOf('../..', 'a/b');
		assert.ok(odd.path.startsWith('/storage/runs/'), odd.path);
		const [agent, run] = odd.path.slice('/storage/runs/'.length).split('/');
		assert.ok(agent && agent !== '..' && agent !== '.', agent);
		assert.equal(run, 'a%2Fb.jsonl');
		assert.equal(odd.path.split('/').length, 5, odd.path);
	});

	test('placeOf is the path on disk for a file root, the URI for any other scheme', () => {
		assert.equal(new RunEventStore(ROOT).placeOf('a', 'r'), vscode.Uri.parse('file:///storage/runs/a/r.jsonl').fsPath);
		const web = new RunEventStore(vscode.Uri.parse('vscode-userdata:/User/globalStorage/runs'));
		assert.equal(web.placeOf('a', 'r'), 'vscode-userdata:/User/globalStorage/runs/a/r.jsonl');
	});

	test('a run with nothing stored reads as empty', async () => {
		const store = new RunEventStore(ROOT);
		assert.deepEqual(await store.read('a', 'r'), []);
		const lines: string[] = [];
		for await (const line of store.lines('a', 'r')) {
			lines.push(line);
		}
		assert.deepEqual(lines, []);
	});

	test('appends add one JSON line per event, in order, and read returns them', async () => {
		const store = new RunEventStore(ROOT);
		await store.append('a', 'r', [event(1), event(2)]);
		await store.append('a', 'r', [event(3)]);
		const file = store.fileOf('a', 'r');
		assert.equal(stored(file), [event(1), event(2), event(3)].map((e) => `${JSON.stringify(e)}\n`).join(''));
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1, 2, 3],
		);
		// Nothing left beside the segment: each write went to `.tmp` and was moved over it.
		assert.equal(stored(file.with({ path: `${file.path}.tmp` })), undefined);
	});

	test('an empty append writes nothing', async () => {
		const store = new RunEventStore(ROOT);
		await store.append('a', 'r', []);
		assert.equal(fake.memoryFiles.size, 0);
	});

	test('appends not awaited are serialised per run; read waits for them', async () => {
		const store = new RunEventStore(ROOT);
		const pending = [1, 2, 3, 4, 5].map((seq) => store.append('a', 'r', [event(seq)]));
		void store.append('a', 'other', [event(9)]);
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1, 2, 3, 4, 5],
		);
		await Promise.all(pending);
		await store.flushed();
		assert.deepEqual(
			(await store.read('a', 'other')).map((e) => e.seq),
			[9],
		);
	});

	test('read skips torn lines, blank lines, records without a numeric seq, and seqs out of order or repeated', async () => {
		const store = new RunEventStore(ROOT);
		const file = store.fileOf('a', 'r');
		const lines = [
			JSON.stringify(event(1)),
			'{"seq":2,"type":"run.log","da', // torn
			'',
			'   ',
			JSON.stringify({ type: 'no seq' }),
			JSON.stringify({ seq: '3', type: 'string seq' }),
			JSON.stringify(event(4)),
			JSON.stringify(event(4, { type: 'duplicate' })),
			JSON.stringify(event(2)), // older than the last kept
			JSON.stringify(event(5)),
		];
		fake.memoryFiles.set(file.toString(), bytes(lines.join('\n')));
		const events = await store.read('a', 'r');
		assert.deepEqual(
			events.map((e) => [e.seq, e.type]),
			[
				[1, 'run.log'],
				[4, 'run.log'],
				[5, 'run.log'],
			],
		);
		const raw: string[] = [];
		for await (const line of store.lines('a', 'r')) {
			raw.push(line);
		}
		assert.equal(raw.length, lines.length - 2, 'lines() leaves out only the blank lines');
	});

	test('an append after a history torn at its end starts a new line: the torn record is dropped, the new one whole', async () => {
		const store = new RunEventStore(ROOT);
		const file = store.fileOf('a', 'r');
		fake.memoryFiles.set(file.toString(), bytes(`${JSON.stringify(event(1))}\n{"seq":2,"typ`));
		await store.append('a', 'r', [event(3)]);
		assert.equal(stored(file), `${JSON.stringify(event(1))}\n${JSON.stringify(event(3))}\n`);
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1, 3],
		);
	});

	test('a segment moved away mid-rename (only its `.tmp` is there) is read from the `.tmp`, and appended to', async () => {
		const store = new RunEventStore(ROOT);
		const file = store.fileOf('a', 'r');
		const temp = file.with({ path: `${file.path}.tmp` });
		fake.memoryFiles.set(temp.toString(), bytes(`${JSON.stringify(event(1))}\n${JSON.stringify(event(2))}\n`));
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1, 2],
		);
		// A new store (another window) appends after what the `.tmp` holds, not over it.
		await new RunEventStore(ROOT).append('a', 'r', [event(3)]);
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1, 2, 3],
		);
		assert.equal(stored(temp), undefined);
	});

	test('a `.tmp` torn at its end (a window closed while writing it) yields its whole records', async () => {
		const store = new RunEventStore(ROOT);
		const file = store.fileOf('a', 'r');
		fake.memoryFiles.set(file.with({ path: `${file.path}.tmp` }).toString(), bytes(`${JSON.stringify(event(7))}\n{"seq":8,`));
		await store.append('a', 'r', [event(9)]);
		assert.equal(stored(file), `${JSON.stringify(event(7))}\n${JSON.stringify(event(9))}\n`);
	});

	test('a segment that would grow past SEGMENT_MAX_BYTES is left whole; the events go on in `.jsonl.1`', async () => {
		const store = new RunEventStore(ROOT);
		const file = store.fileOf('a', 'r');
		const padding = 'x'.repeat(1000);
		const big = (seq: number): EventRecord => event(seq, { data: { text: padding } });
		const perEvent = JSON.stringify(big(100)).length + 1;
		const fit = Math.floor(SEGMENT_MAX_BYTES / perEvent);
		await store.append(
			'a',
			'r',
			Array.from({ length: fit }, (_, i) => big(100 + i)),
		);
		const first = stored(file)!;
		assert.ok(first.length <= SEGMENT_MAX_BYTES, `${first.length}`);
		await store.append('a', 'r', [big(100 + fit)]);
		assert.equal(stored(file), first, 'the full segment is not rewritten');
		assert.equal(stored(segment(file, 1)), `${JSON.stringify(big(100 + fit))}\n`);
		// A new store (after a reload) finds the last segment and appends there.
		await new RunEventStore(ROOT).append('a', 'r', [event(100 + fit + 1)]);
		assert.equal(stored(file), first);
		assert.equal(stored(segment(file, 1))!.split('\n').length, 3);
		assert.equal(stored(segment(file, 2)), undefined);
		const seqs = (await store.read('a', 'r')).map((e) => e.seq);
		assert.equal(seqs.length, fit + 2);
		assert.deepEqual(
			seqs,
			Array.from({ length: fit + 2 }, (_, i) => 100 + i),
		);
	});

	test('one append larger than a segment goes whole into an empty segment (a record is never split)', async () => {
		const store = new RunEventStore(ROOT);
		const file = store.fileOf('a', 'r');
		const huge = event(1, { data: { text: 'y'.repeat(SEGMENT_MAX_BYTES + 10) } });
		await store.append('a', 'r', [huge]);
		assert.equal(stored(file), `${JSON.stringify(huge)}\n`);
		await store.append('a', 'r', [event(2)]);
		assert.equal(stored(segment(file, 1)), `${JSON.stringify(event(2))}\n`);
	});

	test('a failed write fails the append; its events are written first by the next append', async () => {
		const fail = { write: false };
		const store = new RunEventStore(ROOT, flakyFs(fail));
		await store.append('a', 'r', [event(1)]);
		fail.write = true;
		await assert.rejects(store.append('a', 'r', [event(2), event(3)]), /NoPermissions/);
		await store.flushed();
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1],
		);
		fail.write = false;
		await store.append('a', 'r', [event(4)]);
		assert.deepEqual(
			(await store.read('a', 'r')).map((e) => e.seq),
			[1, 2, 3, 4],
		);
	});

	test('the events of failed appends kept for later are bounded: the oldest go, whole records remain', async () => {
		const fail = { write: true };
		const store = new RunEventStore(ROOT, flakyFs(fail));
		const padding = 'z'.repeat(10_000);
		const failed = 150; // about 1.5 MiB, past the 1 MiB kept
		for (let seq = 1; seq <= failed; seq++) {
			await assert.rejects(store.append('a', 'r', [event(seq, { data: { text: padding } })]));
		}
		fail.write = false;
		await store.append('a', 'r', [event(failed + 1)]);
		const seqs = (await store.read('a', 'r')).map((e) => e.seq);
		assert.equal(seqs.at(-1), failed + 1);
		assert.equal(seqs.at(-2), failed, 'the newest failed event is kept');
		assert.ok(seqs[0]! > 1, `the oldest were dropped: starts at ${seqs[0]}`);
		assert.ok(seqs.length < failed, `${seqs.length} kept`);
		for (let i = 1; i < seqs.length; i++) {
			assert.equal(seqs[i], seqs[i - 1]! + 1, 'a gap only at the start');
		}
		// Every line stored is a whole record.
		for (const line of (stored(store.fileOf('a', 'r')) ?? '').split('\n').filter(Boolean)) {
			JSON.parse(line);
		}
	});

	test('a stat failing otherwise than "missing" fails the append rather than write the history over', async () => {
		const fail = { stat: false };
		await new RunEventStore(ROOT).append('a', 'r', [event(1), event(2)]);
		fail.stat = true;
		const store = new RunEventStore(ROOT, flakyFs(fail));
		await assert.rejects(store.append('a', 'r', [event(3)]), /Unavailable/);
		assert.equal(stored(new RunEventStore(ROOT).fileOf('a', 'r')), `${JSON.stringify(event(1))}\n${JSON.stringify(event(2))}\n`);
	});

	test('a read failing once (not "missing") is tried again, and the history is read whole', async () => {
		const store = new RunEventStore(ROOT);
		await store.append('a', 'r', [event(1), event(2)]);
		let failures = 0;
		const flaky = new RunEventStore(
			ROOT,
			flakyFs({
				read: () => (failures === 0 ? (failures++, vscode.FileSystemError.Unavailable('connecting')) : undefined),
			}),
		);
		assert.deepEqual(
			(await flaky.read('a', 'r')).map((e) => e.seq),
			[1, 2],
		);
		assert.equal(failures, 1);
	});
});
