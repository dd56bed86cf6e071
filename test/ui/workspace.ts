import * as assert from 'node:assert/strict';
import { emulatorCall, seedWorkspaceFile } from './support/emulatorApi';
import { addToWorkspaceButton, expandRow } from './support/explorer';
import type { UiTest } from './support/workbench';

const api = emulatorCall;

const uiTest: UiTest = {
	title: 'opens an agent workspace in the Explorer, edits and saves a file, and the change is on the emulator',
	async run({ page, workbench, emulatorUrl, devToken }) {
		const agent = await seedWorkspaceFile(emulatorUrl, devToken, 'Docs writer', 'ui/edit-me.md', '# Edit me\n');

		// Palette → agent quick pick → "Add to Workspace" (the harness opens a saved multi-root
		// workspace, so adding a folder does not reload the page).
		const add = await addToWorkspaceButton(page, workbench, agent.name);
		await add.click();

		// The Explorer shows the folder; expand it and open the file.
		await page.keyboard.press('Control+Shift+E');
		const explorer = page.locator('.explorer-folders-view');
		const folderRow = explorer.locator('.monaco-list-row', { hasText: `Agent: ${agent.name}` }).first();
		await folderRow.waitFor({ state: 'visible', timeout: 60_000 });
		try {
			await expandRow(page, folderRow);
			const uiRow = explorer.locator('.monaco-list-row', { hasText: /^\s*ui\s*$/ }).first();
			await uiRow.waitFor({ state: 'visible', timeout: 30_000 });
			await expandRow(page, uiRow);
			const fileRow = explorer.locator('.monaco-list-row', { hasText: 'edit-me.md' }).first();
			await fileRow.waitFor({ state: 'visible', timeout: 30_000 });
			await fileRow.dblclick();
			const editor = page.locator('.editor-instance .monaco-editor').first();
			await editor.waitFor({ state: 'visible', timeout: 30_000 });
			await page.locator('.tabs-container .tab', { hasText: 'edit-me.md' }).first().waitFor({ state: 'visible' });

			await editor.locator('.view-lines').click();
			await page.keyboard.press('Control+End');
			await page.keyboard.type('Saved from the UI test.');
			await page.keyboard.press('Control+S');

			let content = '';
			for (let i = 0; i < 40; i++) {
				const read = await api<{ content_base64: string }>(emulatorUrl, devToken, 'POST', `/v2/agents/${agent.id}/workspace`, {
					op: 'read',
					path: 'ui/edit-me.md',
				});
				content = Buffer.from(read.content_base64, 'base64').toString('utf8');
				if (content.includes('Saved from the UI test.')) {
					break;
				}
				await page.waitForTimeout(250);
			}
			assert.match(content, /# Edit me\n[\s\S]*Saved from the UI test\./);
			await workbench.screenshot('workspace');
		} finally {
			// The window as this test found it: no agent file open (a test after this one that signs out
			// would have the workbench read it again and log the folder's "Signed out" error), and
			// without the folder it added (an outage in a later test, views-offline in the reversed
			// order, had the Explorer read it and log "cannot be reached").
			await workbench.runCommand('View: Close All Editors');
			await workbench.dismissDialogs();
			await workbench.runContextMenuItem(folderRow, 'Remove Folder from Workspace');
			await folderRow.waitFor({ state: 'hidden', timeout: 15_000 });
		}
	},
};

export default uiTest;
