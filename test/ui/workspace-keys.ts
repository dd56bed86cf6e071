import * as assert from 'node:assert/strict';
import { encodeAgentAuthority } from '../../src/workspace/fs/agentUri';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

const api = emulatorCall;

/**
 * Issue 20 (3): "VS Code's own search misses the agent's files. Ctrl+Shift+F finds only open
 * editors, Ctrl+P says No matching results." In a window whose folder is an agent's workspace the
 * keys people press lead to ours: Ctrl+P opens Go to File in Agent Workspace (its pick lists the
 * agent's files) and Ctrl+Shift+F opens Search Workspace. The test opens such a window (`?folder=`)
 * and at the end (also on failure) takes the page back to the window it found.
 */
const uiTest: UiTest = {
	title: 'in a window whose only folder is an agent folder (a virtual workspace), Ctrl+P opens our Go to File and Ctrl+Shift+F our Search Workspace, titled with the agent and keeping the query',
	async run({ page, workbench, emulatorUrl, devToken, note, leavePage }) {
		const agents = await api<{ agents?: Array<{ id: string; name: string }> }>(emulatorUrl, devToken, 'GET', '/v2/agents?limit=100');
		const agent = (agents.agents ?? []).find((a) => a.name === 'Docs writer');
		assert.ok(agent, 'the demo seed has the docs agent');
		await api(emulatorUrl, devToken, 'POST', `/_emulator/workspace/${agent.id}/write`, {
			path: 'keys/find-me-by-name.md',
			content_base64: Buffer.from('# Find me\n').toString('base64'),
		});

		const home = page.url();
		const direct = new URL(home);
		direct.search = `?folder=${encodeURIComponent(`cloud-agent://${encodeAgentAuthority(agent.id)}/`)}`;
		try {
			await leavePage(direct.toString());
			// The folder is listed: the extension is active and has set its context keys.
			const explorer = page.locator('[id="workbench.view.explorer"] .explorer-folders-view');
			await explorer
				.locator('.monaco-list-row', { hasText: /^\s*keys\s*$/ })
				.first()
				.waitFor({ state: 'visible', timeout: 60_000 });
			await workbench.dismissDialogs();

			const widget = page.locator('.quick-input-widget');
			await page.keyboard.press('Control+P');
			await widget.waitFor({ state: 'visible', timeout: 15_000 });
			const title = (
				await widget
					.locator('.quick-input-title')
					.innerText()
					.catch(() => '')
			).trim();
			note(`Ctrl+P opened: ${JSON.stringify(title)}`);
			assert.match(title, /^Go to File in /, 'our Go to File pick, not VS Code\u2019s Quick Open');
			// Issue 33, item 12: named by the agent's name (the folder opened on its own is named "/").
			assert.equal(title, `Go to File in ${agent.name}`, 'the pick names the agent by its name, not its id');
			await page.keyboard.type('find-me-by');
			await widget
				.locator('.quick-input-list .monaco-list-row', { hasText: 'find-me-by-name.md' })
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 });
			await workbench.screenshot('workspace-ctrl-p');
			await page.keyboard.press('Escape');
			await widget.waitFor({ state: 'hidden', timeout: 5_000 });

			await page.keyboard.press('Control+Shift+F');
			await widget.waitFor({ state: 'visible', timeout: 15_000 });
			await widget.locator('text=Search the agent workspace').first().waitFor({ state: 'visible', timeout: 10_000 });
			note('Ctrl+Shift+F asks "Search the agent workspace"');
			// Issue 42, item 11: the box is titled with the agent's name; Enter on it empty says what it
			// needs and keeps it; the pick of matches keeps the query in its title.
			assert.equal((await widget.locator('.quick-input-title').innerText()).trim(), `Search ${agent.name}`);
			await page.keyboard.press('Enter');
			await widget
				.locator('.quick-input-message', { hasText: 'Type the text to find.' })
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });
			assert.ok(await widget.isVisible(), 'Enter on an empty box keeps it open');
			await page.keyboard.type('Find me');
			await page.keyboard.press('Enter');
			const results = widget.locator('.quick-input-title', { hasText: '"Find me"' }).first();
			await results.waitFor({ state: 'visible', timeout: 30_000 });
			const resultsTitle = (await results.innerText()).trim();
			note(`the matches' pick: ${JSON.stringify(resultsTitle)}`);
			assert.match(resultsTitle, new RegExp(`^Search ${agent.name}: "Find me" — \\d+ match`));
			await widget
				.locator('.quick-input-list .monaco-list-row', { hasText: 'find-me-by-name.md' })
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Escape');
		} finally {
			await leavePage(home);
			await workbench.dismissDialogs();
			await workbench.activityBarItem('Cloud Agents').waitFor({ state: 'visible', timeout: 60_000 });
		}
	},
};

export default uiTest;
