import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { emu, holdClock, waitFor, within } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';

/**
 * The runner's restore between top-level suites (test/integration/runner-extension/src/core.ts):
 * the first suite leaves an unsaved document behind, as a test that fails half-way does; the next
 * starts with none and with no editor open. Then a suite leaves the emulator clock held (a test
 * that failed between holdClock and its release); the next finds it running. Before the restore reverted unsaved documents, "close
 * all" asked whether to save one, nobody answered, and every later suite's restore timed out with
 * its editors left open (a model-provider test's failure failed fourteen tests in a reversed run).
 */
suite('Runner baseline: a suite leaves an unsaved document', () => {
	test('an unsaved document is left open, as a failed test would leave it', async () => {
		const doc = await vscode.workspace.openTextDocument({ content: '', language: 'plaintext' });
		const editor = await vscode.window.showTextDocument(doc);
		assert.ok(await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'left unsaved by a test')));
		// The workbench marks the tab unsaved a moment after the edit.
		await waitFor(
			'the document shown as unsaved',
			async () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.isDirty)) || undefined,
		);
	});
});

suite('Runner baseline: the next suite starts clean', () => {
	test('no unsaved document and no editor is left from the suite before', () => {
		const dirty = vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString());
		assert.deepEqual(dirty, [], 'unsaved documents');
		const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label));
		assert.deepEqual(tabs, [], 'open editors');
	});
});

suite("Runner baseline: a suite's own closeAllEditors()", () => {
	test('reverts an unsaved document and closes every editor without asking whether to save (issue 41)', async function () {
		this.timeout(30_000);
		const unsaved = await vscode.workspace.openTextDocument({ content: '', language: 'plaintext' });
		const editor = await vscode.window.showTextDocument(unsaved);
		assert.ok(await editor.edit((e) => e.insert(new vscode.Position(0, 0), 'left unsaved by a test')));
		await waitFor(
			'the document shown as unsaved',
			async () => vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.isDirty)) || undefined,
		);
		// "Close all" on its own would ask whether to save, and the call would not end.
		await within('closeAllEditors()', closeAllEditors(), 15_000);
		assert.deepEqual(
			vscode.window.tabGroups.all.flatMap((g) => g.tabs.map((t) => t.label)),
			[],
			'open editors',
		);
		assert.deepEqual(
			vscode.workspace.textDocuments.filter((d) => d.isDirty).map((d) => d.uri.toString()),
			[],
			'unsaved documents',
		);
	});
});

suite('Runner baseline: a suite leaves the emulator clock held', () => {
	test('the clock is held and not released, as a test failing before its release would leave it', async () => {
		await holdClock();
		assert.equal((await emu<{ held: boolean }>('GET', '/_emulator/clock')).body.held, true);
	});
});

suite('Runner baseline: the next suite finds the clock running', () => {
	test('the clock is not held after the suite before held it', async () => {
		const clock = (await emu<{ held: boolean; now_ms: number }>('GET', '/_emulator/clock')).body;
		assert.equal(clock.held, false, 'the restore between suites released it');
		// And it moves (a condition, not a pause): a held clock never would.
		await waitFor('the emulator clock to move', async () =>
			(await emu<{ now_ms: number }>('GET', '/_emulator/clock')).body.now_ms > clock.now_ms ? true : undefined,
		);
	});
});
