import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ChangeFile } from '../../../src/changes/changesActions';
import { confirmFiles, countFiles, type FilesQuestion, listOf, openDocument } from '../../../src/changes/words';
import type { Difference } from '../../../src/compare/types';
import * as fake from '../support/vscodeFake';

/** src/changes/words.ts on the `vscode` fake: counted and listed names, the open document, the question. */
const root = vscode.Uri.file('/work/local');
const source = { localUriOf: (p: string) => vscode.Uri.joinPath(root, p) };
function file(path: string, kind: Difference['kind']): ChangeFile {
	return { source, d: { path, kind, group: 'agent' } } as unknown as ChangeFile;
}

const words: FilesQuestion = {
	removes: (d) => d.kind === 'deleted',
	removedLine: (listed, count) => `removes ${count}: ${listed}`,
	replaces: (d) => d.kind === 'modified',
	replacedLine: (listed) => `replaces: ${listed}`,
	creates: (d) => d.kind === 'added',
	createdLine: (listed, count) => `creates ${count}: ${listed}`,
	dirtyLine: (listed) => `dirty: ${listed}`,
	question: (counted) => `Go on with ${counted}?`,
	action: 'Go',
};

function recordingKit(answer: boolean) {
	const asked: Array<[string, string | undefined, string]> = [];
	return {
		asked,
		confirm: async (message: string, detail: string | undefined, action: string) => {
			asked.push([message, detail, action]);
			return answer;
		},
	};
}

suite('changes/words', () => {
	test('countFiles says one file in the singular, any other count in the plural', () => {
		assert.equal(countFiles(1), '1 file');
		assert.equal(countFiles(0), '0 files');
		assert.equal(countFiles(12), '12 files');
	});

	test('listOf names up to five paths, then how many more', () => {
		assert.equal(listOf([]), '');
		assert.equal(listOf(['a', 'b']), 'a, b');
		assert.equal(listOf(['1', '2', '3', '4', '5']), '1, 2, 3, 4, 5');
		assert.equal(listOf(['1', '2', '3', '4', '5', '6', '7']), '1, 2, 3, 4, 5 and 2 more');
	});

	test('openDocument finds the open document of a URI by its string, else undefined', () => {
		const doc = { uri: vscode.Uri.file('/work/local/a.ts'), isDirty: true };
		fake.workspace.textDocuments = [{ uri: vscode.Uri.file('/work/local/b.ts') }, doc];
		assert.equal(openDocument(vscode.Uri.file('/work/local/a.ts')), doc);
		assert.equal(openDocument(vscode.Uri.file('/work/local/c.ts')), undefined);
	});

	test('confirmFiles asks nothing when no file is removed, replaced or dirty (even when some are created)', async () => {
		const kit = recordingKit(false);
		assert.equal(await confirmFiles([file('new.ts', 'added')], kit, words), true);
		assert.deepEqual(kit.asked, []);
	});

	test('confirmFiles asks once, counting every file and naming replaced, removed, created and dirty ones in that order', async () => {
		fake.workspace.textDocuments = [{ uri: vscode.Uri.file('/work/local/new.ts'), isDirty: true }];
		const kit = recordingKit(true);
		const files = [file('gone.ts', 'deleted'), file('mod.ts', 'modified'), file('new.ts', 'added')];
		assert.equal(await confirmFiles(files, kit, words), true);
		assert.equal(kit.asked.length, 1);
		const [message, detail, action] = kit.asked[0]!;
		assert.equal(message, 'Go on with 3 files?');
		assert.equal(action, 'Go');
		assert.deepEqual(detail!.split('\n'), ['replaces: mod.ts', 'removes 1: gone.ts', 'creates 1: new.ts', 'dirty: new.ts']);
	});

	test("confirmFiles answers the person's choice: a refusal stops the action", async () => {
		const kit = recordingKit(false);
		assert.equal(await confirmFiles([file('gone.ts', 'deleted')], kit, words), false);
		assert.equal(kit.asked.length, 1);
	});

	test('confirmFiles lists at most five removed paths, and a clean open document is not dirty', async () => {
		fake.workspace.textDocuments = [{ uri: vscode.Uri.file('/work/local/d0.ts'), isDirty: false }];
		const kit = recordingKit(true);
		const files = Array.from({ length: 7 }, (_, i) => file(`d${i}.ts`, 'deleted'));
		const minimal: FilesQuestion = { ...words, replaces: undefined, creates: undefined };
		await confirmFiles(files, kit, minimal);
		assert.equal(kit.asked[0]![1], 'removes 7: d0.ts, d1.ts, d2.ts, d3.ts, d4.ts and 2 more');
		assert.equal(kit.asked[0]![0], 'Go on with 7 files?');
	});
});
