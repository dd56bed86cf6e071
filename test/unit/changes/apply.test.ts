import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { applyFiles, applyQuestion } from '../../../src/changes/apply';
import type { ChangeFile, ChangesHost } from '../../../src/changes/changesActions';
import type { Difference } from '../../../src/compare/types';
import { UnsafePathError } from '../../../src/util/paths';
import type { ActionKit } from '../../../src/views/actions';
import { startWorkspaceEmulator, type TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';

/**
 * src/changes/apply.ts: the agent's bytes read from the emulator (a real client), written into the
 * local folder through WorkspaceEdits that the `vscode` fake applies to its in-memory file system;
 * text files as an edit of their document (the fake document saves its text).
 */
const encode = (s: string): Uint8Array => new TextEncoder().encode(s);
const decode = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);
type Edit = vscode.WorkspaceEdit & { fileOperations?: fake.FileOperation[]; edits: Array<{ uri: vscode.Uri; edit: unknown }> };

suite('changes/apply', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let told: { info: string[]; warn: string[]; asked: Array<[string, string | undefined]>; settled: string[][]; logged: string[] };
	let edits: Edit[];
	let refuse: Set<string>;
	/** What a save participant does to the text on save (format on save). */
	let onSave: (text: string) => string;
	let applies: boolean;

	const root = vscode.Uri.file('/w');
	const uriOf = (p: string): vscode.Uri => vscode.Uri.joinPath(root, p);
	const source = {
		link: { id: 'link-1', agentId: '', agentFolder: 'applied', agentName: 'A', localFolder: root.toString() },
		// The client of the link's deployment: Apply reads the agent's bytes through it.
		client: () => client,
		localUriOf: uriOf,
		files: () => ({
			checkWrite: async (p: string) => {
				if (refuse.has(p)) {
					throw new UnsafePathError(p, 'a symbolic link (not followed)');
				}
			},
		}),
		settled: (paths: string[]) => told.settled.push(paths),
	};

	/** A text document of the fake file system: edits replace its text; save writes it (through `onSave`). */
	function documentOf(uri: vscode.Uri) {
		let text = decode(fake.memoryFiles.get(uri.toString())) ?? '';
		return {
			uri,
			isDirty: false,
			eol: fake.EndOfLine.LF,
			getText: () => text,
			positionAt: (offset: number) => new fake.Position(0, offset),
			setText: (t: string) => (text = t),
			save: async () => {
				fake.memoryFiles.set(uri.toString(), encode(onSave(text)));
				return true;
			},
		};
	}
	let docs: Map<string, ReturnType<typeof documentOf>>;

	setup(async () => {
		({ emu, client, agentId } = await startWorkspaceEmulator());
		source.link.agentId = agentId;
		told = { info: [], warn: [], asked: [], settled: [], logged: [] };
		edits = [];
		refuse = new Set();
		onSave = (t) => t;
		applies = true;
		docs = new Map();
		fake.answer('workspace.openTextDocument', async (uri: vscode.Uri) => {
			const doc = documentOf(uri);
			docs.set(uri.toString(), doc);
			return doc;
		});
		fake.answer('workspace.applyEdit', async (edit: Edit) => {
			edits.push(edit);
			if (!applies) {
				return false;
			}
			for (const op of edit.fileOperations ?? []) {
				if (op.op === 'delete') {
					fake.memoryFiles.delete(op.uri.toString());
				} else {
					fake.memoryFiles.set(op.uri.toString(), op.options.contents ?? new Uint8Array());
				}
			}
			for (const { uri, edit: e } of edit.edits) {
				const [textEdit] = e as [vscode.TextEdit];
				if (textEdit.newEol === undefined) {
					docs.get(uri.toString())?.setText(textEdit.newText);
				}
			}
			return true;
		});
	});
	teardown(async () => {
		client.close();
		await emu.close();
	});

	const host = (): ChangesHost => ({ client: () => client, log: { warn: (m: string) => told.logged.push(m) } }) as unknown as ChangesHost;
	const kit = (answer = true): ActionKit =>
		({
			confirm: async (m: string, d: string | undefined) => {
				told.asked.push([m, d]);
				return answer;
			},
			progress: async <R>(_t: string, work: (s: AbortSignal, r: (m: string) => void) => Promise<R>) =>
				work(new AbortController().signal, () => undefined),
			info: (m: string) => told.info.push(m),
			warn: (m: string) => told.warn.push(m),
		}) as unknown as ActionKit;
	const fileOf = (d: Difference): ChangeFile => ({ source, d }) as unknown as ChangeFile;
	const agentWrites = (path: string, content: Uint8Array | string) =>
		client.writeWorkspaceFile(agentId, `applied/${path}`, typeof content === 'string' ? encode(content) : content);

	test('nothing selected: says so and applies nothing', async () => {
		assert.deepEqual(await applyFiles(host(), [], kit()), { applied: [], refused: [] });
		assert.match(told.info[0]!, /^Nothing to apply/);
		assert.deepEqual(edits, []);
	});

	test('a file the agent deleted is deleted locally, after a question; a refusal deletes nothing', async () => {
		fake.memoryFiles.set(uriOf('gone.txt').toString(), encode('local'));
		const gone = fileOf({ path: 'gone.txt', kind: 'deleted', group: 'agent' });
		assert.deepEqual(await applyFiles(host(), [gone], kit(false)), { applied: [], refused: [] });
		assert.ok(fake.memoryFiles.has(uriOf('gone.txt').toString()));
		assert.deepEqual(told.asked[0], [
			"Apply the agent's version of 1 file?",
			'Deletes gone.txt in the local folder (the agent deleted it).',
		]);

		assert.deepEqual(await applyFiles(host(), [gone], kit()), { applied: ['gone.txt'], refused: [] });
		assert.equal(fake.memoryFiles.has(uriOf('gone.txt').toString()), false);
		assert.deepEqual(edits[0]!.fileOperations![0]!.options, { ignoreIfNotExists: true });
		assert.deepEqual(told.settled, [['gone.txt']]);
	});

	test("a modified text file is an edit of its document (the agent's text and line ends), then saved: no byte overwrite", async () => {
		fake.memoryFiles.set(uriOf('a.ts').toString(), encode('old\n'));
		await agentWrites('a.ts', 'new\r\ntext\r\n');
		const answer = await applyFiles(host(), [fileOf({ path: 'a.ts', kind: 'modified', group: 'agent' })], kit());
		assert.deepEqual(answer, { applied: ['a.ts'], refused: [] });
		assert.deepEqual(told.asked, [], 'a modified clean file asks nothing');
		assert.equal(edits.length, 1);
		const [replace, eol] = edits[0]!.edits.map((e) => (e.edit as [vscode.TextEdit])[0]);
		assert.equal(replace!.newText, 'new\r\ntext\r\n');
		assert.equal(eol!.newEol, fake.EndOfLine.CRLF);
		assert.equal(decode(fake.memoryFiles.get(uriOf('a.ts').toString())), 'new\r\ntext\r\n');
	});

	test("when a save participant changes the text, the agent's bytes are written as they are", async () => {
		fake.memoryFiles.set(uriOf('a.ts').toString(), encode('old'));
		await agentWrites('a.ts', 'keep   trailing   \n');
		onSave = (t) => t.replace(/ +\n/g, '\n');
		await applyFiles(host(), [fileOf({ path: 'a.ts', kind: 'modified', group: 'agent' })], kit());
		assert.equal(edits.length, 2);
		assert.equal(edits[1]!.fileOperations![0]!.options.overwrite, true);
		assert.equal(decode(fake.memoryFiles.get(uriOf('a.ts').toString())), 'keep   trailing   \n');
	});

	test('binary, BOM and mixed-line-end files, and new files not open, are written as bytes (no document opened)', async () => {
		const binary = new Uint8Array([1, 0, 2, 255]);
		const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x68, 0x69]);
		await agentWrites('bin.dat', binary);
		await agentWrites('bom.txt', bom);
		await agentWrites('mixed.txt', 'a\r\nb\nc\r');
		await agentWrites('new.txt', 'brand new\n');
		const files = [
			fileOf({ path: 'bin.dat', kind: 'modified', group: 'agent' }),
			fileOf({ path: 'bom.txt', kind: 'modified', group: 'agent' }),
			fileOf({ path: 'mixed.txt', kind: 'modified', group: 'other' }),
			fileOf({ path: 'new.txt', kind: 'added', group: 'agent' }),
		];
		const answer = await applyFiles(host(), files, kit());
		assert.deepEqual(answer.applied, ['bin.dat', 'bom.txt', 'mixed.txt', 'new.txt']);
		assert.deepEqual(fake.calls('workspace.openTextDocument'), []);
		assert.deepEqual(fake.memoryFiles.get(uriOf('bin.dat').toString()), binary);
		assert.deepEqual(fake.memoryFiles.get(uriOf('bom.txt').toString()), bom);
		assert.equal(decode(fake.memoryFiles.get(uriOf('mixed.txt').toString())), 'a\r\nb\nc\r');
		assert.equal(decode(fake.memoryFiles.get(uriOf('new.txt').toString())), 'brand new\n');
		assert.deepEqual(told.settled, [['bin.dat', 'bom.txt', 'mixed.txt', 'new.txt']]);
	});

	test('a path behind a symlink is refused (it stays listed) and the person told why; the others still apply', async () => {
		await agentWrites('ok.txt', 'ok');
		refuse.add('evil/x.txt');
		const answer = await applyFiles(
			host(),
			[fileOf({ path: 'evil/x.txt', kind: 'added', group: 'agent' }), fileOf({ path: 'ok.txt', kind: 'added', group: 'agent' })],
			kit(),
		);
		assert.deepEqual(answer.applied, ['ok.txt']);
		assert.equal(answer.refused.length, 1);
		assert.equal(answer.refused[0]!.path, 'evil/x.txt');
		assert.match(answer.refused[0]!.reason, /symbolic link/);
		assert.deepEqual(told.settled, [['ok.txt']]);
		assert.equal(told.warn.length, 1);
		assert.match(told.warn[0]!, /^1 file could not be applied: evil\/x\.txt: Unsafe path/);
		assert.equal(told.logged.length, 1);
	});

	test('an edit VS Code does not apply is refused with that reason', async () => {
		await agentWrites('new.txt', 'x');
		applies = false;
		const answer = await applyFiles(host(), [fileOf({ path: 'new.txt', kind: 'added', group: 'agent' })], kit());
		assert.deepEqual(answer.refused, [{ path: 'new.txt', reason: 'VS Code did not apply the change to new.txt.' }]);
		assert.deepEqual(told.settled, []);
	});

	test('applyQuestion: deleting several files says "them"; unsaved changes are named', () => {
		const q = applyQuestion();
		assert.equal(q.removedLine('a, b', 2), 'Deletes a, b in the local folder (the agent deleted them).');
		assert.equal(q.dirtyLine('a'), 'Replaces the unsaved changes of a.');
		assert.equal(q.removes({ path: 'a', kind: 'deleted', group: 'agent' }), true);
		assert.equal(q.removes({ path: 'a', kind: 'modified', group: 'agent' }), false);
		assert.equal(q.action, 'Apply to Local');
	});
});
