/** The Explorer and agent folders in the UI tests. */
import type { Locator, Page } from 'playwright-core';
import type { Workbench } from './workbench';

/**
 * Shows the Explorer and returns its folders view. A key pressed while a reloaded workbench is still
 * restoring its layout can be lost, so this runs "View: Show Explorer" from the palette until the
 * Explorer is in the side bar; a failure names what the side bar showed instead.
 */
export async function showExplorer(page: Page, workbench: Workbench): Promise<Locator> {
	const container = page.locator('[id="workbench.view.explorer"]');
	for (let i = 0; i < 5 && !(await container.isVisible()); i++) {
		await workbench.dismissDialogs();
		await workbench.runCommand('View: Show Explorer').catch(() => {});
		await container.waitFor({ state: 'visible', timeout: 3_000 }).catch(() => {});
	}
	if (!(await container.isVisible())) {
		const sideBar = await page
			.locator('.part.sidebar')
			.innerText()
			.catch(() => '(no side bar)');
		throw new Error(`the Explorer is not shown; the side bar reads: ${JSON.stringify(sideBar.slice(0, 300))}`);
	}
	return container.locator('.explorer-folders-view');
}

/** Expands a folder row of the Explorer (clicks and ArrowRight until it says it is expanded). */
export async function expandRow(page: Page, row: Locator): Promise<void> {
	for (let i = 0; i < 20 && (await row.getAttribute('aria-expanded')) !== 'true'; i++) {
		await row.click();
		await page.keyboard.press('ArrowRight');
		await page.waitForTimeout(500);
	}
}

/**
 * Runs "Open Agent Workspace" from the palette and picks the agent; returns the dialog's "Add to
 * Workspace" button once it shows (the caller clicks it: in an empty window that reloads the page).
 */
export async function addToWorkspaceButton(page: Page, workbench: Workbench, agentName: string): Promise<Locator> {
	await workbench.runCommand('Cloud Agents: Open Agent Workspace');
	await workbench.pickByKeyboard(agentName);
	const add = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Add to Workspace' });
	await add.waitFor({ state: 'visible', timeout: 15_000 });
	return add;
}
