import * as assert from 'node:assert/strict';
import { encodeAgentAuthority } from '../../src/workspace/fs/agentUri';
import { seedWorkspaceFile } from './support/emulatorApi';
import type { Locator } from 'playwright-core';
import { addToWorkspaceButton, expandRow, showExplorer } from './support/explorer';
import type { UiTest } from './support/workbench';

/**
 * Issue 11: "Opening a remote folder in an empty window keeps the folders and restores the session."
 * In an empty window, adding the first folder makes the workbench enter an untitled workspace, which in
 * the browser reloads the page (a desktop window restarts its extension host): everything of ours starts
 * again from nothing, and the workbench resolves `cloud-agent:` folders before our extension has
 * activated. The folder must survive that, its files must be listed, the session must come back
 * signed in from SecretStorage, and none of it may log an error of ours. The test's windows are
 * workspaces of their own: at the end (also on failure) it takes the page back to the window it found
 * and waits until our views are there again, so the tests after it find the workbench they expect.
 */
const uiTest: UiTest = {
	title: 'opening an agent workspace in an empty window keeps the folder and the session after the reload',
	async run({ page, workbench, emulatorUrl, devToken, note, leavePage }) {
		const agent = await seedWorkspaceFile(emulatorUrl, devToken, 'Docs writer', 'reopened/hello.md', '# Hello\n');

		const home = page.url();
		const empty = new URL(home);
		empty.search = '?ew=true';
		try {
			await leavePage(empty.toString());
			assert.equal(await page.locator('.explorer-folders-view .monaco-list-row').count(), 0, 'the window starts empty');

			// Straight from the palette: nothing of ours has activated in this window yet (the command
			// is offered anyway, and running it activates the extension).
			await workbench.activityBarItem('Cloud Agents').waitFor({ state: 'visible', timeout: 60_000 }); // contributions read
			const add = await addToWorkspaceButton(page, workbench, agent.name);
			// The page reloads into an untitled workspace holding the folder.
			await leavePage(async () => {
				await add.click();
				await page.waitForURL((u) => u.searchParams.has('workspace'), { timeout: 60_000 });
			});
			note(`reloaded into ${new URL(page.url()).searchParams.get('workspace')}`);
			const folderRowIn = (explorer: Locator): Locator =>
				explorer.locator('.monaco-list-row', { hasText: `Agent: ${agent.name}` }).first();
			let explorer = await showExplorer(page, workbench);
			let folderRow = folderRowIn(explorer);
			const shown = await folderRow.waitFor({ state: 'visible', timeout: 15_000 }).then(
				() => true,
				() => false,
			);
			if (
				!shown &&
				(await page.locator('.part.sidebar', { hasText: 'You have not yet added a folder to the workspace' }).count()) > 0
			) {
				// The workbench (not our extension, which this window has not even activated) first reads a
				// remote .code-workspace file from its configuration cache, empty for a new workspace, and now
				// and then never takes in the file it wrote (the file holds the folder; 2 of 13 local runs). A
				// reload reads the file. The README's workspace section tells users the same.
				note('the workbench showed the new untitled workspace without its folder (its configuration-cache race); reloaded once');
				await leavePage(async () => {
					await page.reload();
				});
				explorer = await showExplorer(page, workbench);
				folderRow = folderRowIn(explorer);
			}
			await folderRow.waitFor({ state: 'visible', timeout: 60_000 });
			await expandRow(page, folderRow);
			await explorer
				.locator('.monaco-list-row', { hasText: /^\s*reopened\s*$/ })
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 });

			// The session came back from SecretStorage: the Agents view lists agents, no Sign In.
			await workbench.openViewContainer('Cloud Agents', 'cloudAgents');
			const agentsPane = workbench.pane('cloudAgents', 'Agents');
			await agentsPane.locator('.monaco-list-row', { hasText: agent.name }).first().waitFor({ state: 'visible', timeout: 30_000 });
			// No view asks to sign in (a view still loading or empty may show its own empty-state text,
			// e.g. "No runtimes yet.": that is not the sign-in welcome).
			assert.deepEqual(
				(await workbench.welcomeTexts('cloudAgents')).filter((t) => /sign in/i.test(t)),
				[],
				'no sign-in welcome after the reload',
			);
			await workbench.screenshot('reopened-folder');

			// The same folder opened straight from a link (a recent folder, a bookmark): the workbench
			// resolves it, and probes files in it, before anything of ours has run.
			const direct = new URL(home);
			direct.search = `?folder=${encodeURIComponent(`cloud-agent://${encodeAgentAuthority(agent.id)}/`)}`;
			await leavePage(direct.toString());
			const root = (await showExplorer(page, workbench)).locator('.monaco-list-row', { hasText: /^\s*reopened\s*$/ }).first();
			await root.waitFor({ state: 'visible', timeout: 60_000 });
			note('opened again from ?folder=: the files are listed');
		} finally {
			await leavePage(home);
			// Back in the test run's own workspace: wait for our contributions, as after start-up.
			await workbench.dismissDialogs();
			await workbench.activityBarItem('Cloud Agents').waitFor({ state: 'visible', timeout: 60_000 });
		}
	},
};

export default uiTest;
