import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';
import { explorerFolderRow } from './support/newWindow';
import { showExplorer } from './support/explorer';

/**
 * Issue 33, item 12: "Open in New Window shows the folder and window as /". Open Agent Workspace →
 * Open in New Window opens a window (in the browser: a new page) whose title and Explorer folder
 * are the agent's name, through the workspace file the extension writes for it.
 */
const uiTest: UiTest = {
	title: "Open in New Window names the new window and its folder after the agent, not '/'",
	async run({ page, workbench, emulatorUrl, devToken, note, leavePage }) {
		const agents = await emulatorCall<{ agents?: Array<{ id: string; name: string }> }>(
			emulatorUrl,
			devToken,
			'GET',
			'/v2/agents?limit=100',
		);
		// An agent whose workspace is not a folder of this window already (an earlier test may have
		// added one: Open Agent Workspace then shows the Explorer and asks nothing).
		const roots = (await (await showExplorer(page, workbench)).locator('.monaco-list-row[aria-level="1"]').allInnerTexts()).map((t) =>
			t.trim(),
		);
		// Agents of the demo seed (emulator/src/seed.ts), the docs agent first.
		const agent = ['Docs writer', 'Sandbox explorer', 'Shared reviewer', 'Nightly dependency bump']
			.map((name) => (agents.agents ?? []).find((a) => a.name === name))
			.find((a) => a !== undefined && !roots.includes(`Agent: ${a.name}`));
		assert.ok(agent, `an agent of the demo seed whose workspace is not open here (folders: ${roots.join(', ')})`);
		note(`agent ${JSON.stringify(agent.name)} (folders open: ${roots.join(', ')})`);
		let opened: Page | undefined;
		try {
			await page.bringToFront();
			await workbench.dismissDialogs();
			await workbench.runCommand('Cloud Agents: Open Agent Workspace');
			await workbench.pickByKeyboard(agent.name);
			const button = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Open in New Window' });
			await button.waitFor({ state: 'visible', timeout: 15_000 });
			const popup = page.context().waitForEvent('page', { timeout: 60_000 });
			await button.click();
			opened = await popup;
			await opened.locator('.monaco-workbench .activitybar').waitFor({ state: 'visible', timeout: 90_000 });
			note(`new window: ${opened.url()}`);
			const root = await explorerFolderRow(opened, agent.name, 'test-results/screenshots/FAILED-agent-window-new-window.png');
			const rootText = (await root.innerText()).trim();
			assert.notEqual(rootText, '/', 'the folder is not named "/"');
			// The workbench sets the page title once its workspace is known, which on a busy machine
			// lands after the Explorer shows the folder (seen: an empty title read at once).
			await opened
				.waitForFunction(`document.title.includes(${JSON.stringify(agent.name)})`, undefined, { timeout: 20_000 })
				.catch(() => undefined);
			const title = await opened.title();
			note(`title ${JSON.stringify(title)}, folder ${JSON.stringify(rootText)}`);
			assert.ok(title.includes(agent.name), `the window title names the agent: ${title}`);
			assert.ok(!/^\/\s|—\s\/\s|^\/$/.test(title), `the window title is not "/": ${title}`);
		} finally {
			// Closing the window cancels what its workbench had pending: judged as a page leaving.
			const window = opened;
			if (window) {
				await leavePage(() => window.close());
			}
			await page.bringToFront();
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
