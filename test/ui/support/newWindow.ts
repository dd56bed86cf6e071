import * as assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';

/**
 * Waits for a window (a page of its own) to show the Explorer folder row named `name`, and returns
 * it. The new window's side bar shows the view container used last, not always the Explorer, and a
 * dialog it opens first (its workspace's trust, a restored state) takes the keys: each attempt
 * closes such a dialog and shows the Explorer (Show Explorer focuses it; it never hides the side bar
 * as a click on its icon can). Fails with a screenshot at `shot` after six attempts of 15 s.
 */
export async function explorerFolderRow(window: Page, name: string, shot: string): Promise<Locator> {
	const root = window.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first();
	for (let attempt = 1; ; attempt++) {
		await window.keyboard.press('Escape');
		await window.keyboard.press('Control+Shift+E');
		const shown = await root.waitFor({ state: 'visible', timeout: 15_000 }).then(
			() => true,
			() => false,
		);
		if (shown) {
			return root;
		}
		if (attempt >= 6) {
			await window.screenshot({ path: shot }).catch(() => undefined);
			assert.fail(`no Explorer folder row named ${JSON.stringify(name)} in the new window (what it showed: ${shot})`);
		}
	}
}
