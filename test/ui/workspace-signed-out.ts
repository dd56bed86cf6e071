import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { emulatorCall } from './support/emulatorApi';
import { signInWithKey } from './support/session';
import { expandRow, showExplorer } from './support/explorer';
import type { UiTest } from './support/workbench';

const api = emulatorCall;

/** The text of the hover the workbench shows over `target` (empty when none shows within `timeoutMs`). */
async function hoverText(page: Page, target: Locator, timeoutMs = 5_000): Promise<string> {
	const hover = page.locator('.monaco-hover:visible, .workbench-hover:visible').first();
	for (let attempt = 0; attempt < 3; attempt++) {
		await page.mouse.move(0, 0);
		await target.hover();
		const shown = await hover.waitFor({ state: 'visible', timeout: timeoutMs }).then(
			() => true,
			() => false,
		);
		if (shown) {
			return (await hover.innerText()).replace(/\s+/g, ' ').trim();
		}
	}
	return '';
}

/**
 * Issue 20 (2): "The agent's folder in the Explorer goes silently empty after sign-out or when the
 * service is unreachable, and stays empty after signing in again until Refresh Explorer." With the
 * agent's folder expanded in the Explorer, signing out (from the palette, the Explorer staying in
 * front) must show an error on the folder that names the reason, and signing in again must bring its
 * files back with no Refresh Explorer and no other click in the Explorer.
 */
const uiTest: UiTest = {
	title: 'an agent folder in the Explorer says why while signed out (not an empty workspace folder) and its files come back by themselves after signing in',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const agents = await api<{ agents?: Array<{ id: string; name: string }> }>(emulatorUrl, devToken, 'GET', '/v2/agents?limit=100');
		const agent = (agents.agents ?? []).find((a) => a.name === 'Docs writer');
		assert.ok(agent, 'the demo seed has the docs agent');
		await api(emulatorUrl, devToken, 'POST', `/_emulator/workspace/${agent.id}/write`, {
			path: 'kept-while-signed-out/notes.md',
			content_base64: Buffer.from('# Notes\n').toString('base64'),
		});

		// The agent's folder in this window (an earlier test may have added it already).
		await workbench.runCommand('Cloud Agents: Open Agent Workspace');
		const pick = page.locator('.quick-input-list .monaco-list-row', { hasText: agent.name }).first();
		await pick.waitFor({ state: 'visible', timeout: 30_000 });
		await pick.click();
		const add = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Add to Workspace' });
		const adding = await add.waitFor({ state: 'visible', timeout: 5_000 }).then(
			() => true,
			() => false,
		);
		if (adding) {
			await add.click();
		}
		const explorer = await showExplorer(page, workbench);
		const folderRow = explorer.locator('.monaco-list-row', { hasText: `Agent: ${agent.name}` }).first();
		await folderRow.waitFor({ state: 'visible', timeout: 60_000 });
		await expandRow(page, folderRow);
		const child = explorer.locator('.monaco-list-row', { hasText: /^\s*kept-while-signed-out\s*$/ }).first();
		// A folder an earlier test added may show a listing read before the file above was written.
		if (
			!(await child.waitFor({ state: 'visible', timeout: 5_000 }).then(
				() => true,
				() => false,
			))
		) {
			// The Explorer's own Refresh (its title bar shows its actions while hovered).
			const explorerView = page.locator('[id="workbench.view.explorer"]');
			await explorerView.hover();
			await explorerView.locator('.action-label[aria-label="Refresh Explorer"]').first().click();
		}
		await child.waitFor({ state: 'visible', timeout: 30_000 });

		let signedOut = false;
		try {
			// Sign out from the palette while the Explorer stays in front; the service "cannot" revoke the
			// token (a 503), so the same key signs in again below and the tests after this one keep it.
			const fault = await fetch(`${emulatorUrl}/_emulator/faults`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ rules: [{ method: 'DELETE', route: '/v2/auth/token', status: 503 }] }),
			});
			assert.equal(fault.status, 200);
			await workbench.runCommand('Cloud Agents: Sign Out');
			signedOut = true;
			const confirm = page.locator('.monaco-dialog-box .dialog-buttons .monaco-button', { hasText: /^Sign Out$/ });
			for (let i = 0; i < 100 && (await child.isVisible()); i++) {
				if (await confirm.isVisible().catch(() => false)) {
					await confirm.click();
				}
				await page.waitForTimeout(100);
			}
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });

			// The Explorer read the folder again by itself: its files are gone, and the folder says why.
			await child.waitFor({ state: 'hidden', timeout: 15_000 });
			await folderRow.waitFor({ state: 'visible' });
			const label = folderRow.locator('.label-name').first();
			const text = await hoverText(page, label);
			note(`the folder's hover while signed out: ${text.slice(0, 300)}`);
			if (!text.includes('Signed out of Cloud Agents')) {
				note(`the folder row: ${(await folderRow.innerHTML()).slice(0, 1500)}`);
			}
			assert.match(text, /Signed out of Cloud Agents: sign in to see this agent's files/);
			await page.mouse.move(0, 0);
			await workbench.screenshot('workspace-signed-out');

			// Sign in again from the palette; nothing is clicked in the Explorer.
			await signInWithKey(workbench, devToken);
			signedOut = false;
			await child.waitFor({ state: 'visible', timeout: 30_000 });
			note('the files came back after signing in, without Refresh Explorer');
			assert.equal(await folderRow.isVisible(), true);
		} finally {
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
			if (signedOut) {
				await workbench.dismissDialogs();
				await signInWithKey(workbench, devToken).catch(() => {});
				await page.waitForTimeout(2_000);
			}
			// The window as this test found it: without the folder it added.
			if (adding) {
				await workbench.dismissDialogs();
				await workbench.runContextMenuItem(folderRow, 'Remove Folder from Workspace');
				await folderRow.waitFor({ state: 'hidden', timeout: 15_000 });
			}
		}
	},
};

export default uiTest;
