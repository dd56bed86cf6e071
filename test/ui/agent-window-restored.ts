import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { encodeAgentAuthority } from '../../src/workspace/fs/agentUri';
import { emulatorCall } from './support/emulatorApi';
import { explorerFolderRow } from './support/newWindow';
import type { UiTest } from './support/workbench';

/**
 * An agent window (src/workspace/agentWindow.ts) that VS Code opened without its folder gets the
 * folder back. In VS Code for the Web on a remote, the workbench first takes a workspace file's
 * folders from its cache (empty on a first open) and can drop the file's own answer when it comes
 * during start-up: the `agent-window` test then saw "No Folder Opened" in a window titled after the
 * agent. Here the window opens an agent-window file that lists no folder, which is what that window
 * was left with.
 */
/** What the new window showed when the test failed (the runner's own screenshot is of the first window). */
const NEW_WINDOW_SHOT = 'test-results/screenshots/FAILED-agent-window-restored-new-window.png';

const uiTest: UiTest = {
	title: 'an agent window that VS Code opened without its folder gets the folder back, named after the agent',
	async run({ page, workbench, emulatorUrl, devToken, userDataDir, note, leavePage }) {
		const agents = await emulatorCall<{ agents?: Array<{ id: string; name: string }> }>(
			emulatorUrl,
			devToken,
			'GET',
			'/v2/agents?limit=100',
		);
		// Not the agent of the `agent-window` test: this window's workspace is new to the browser.
		const agent = (agents.agents ?? []).find((a) => a.name !== 'Docs writer' && /^[\w .-]+$/.test(a.name));
		assert.ok(agent, 'the demo seed has a second agent');
		const authority = encodeAgentAuthority(agent.id);
		const file = resolve(
			userDataDir,
			'User',
			'globalStorage',
			'cloud-agents.cloud-agents-vscode',
			'agent-windows',
			authority,
			`${agent.name}.code-workspace`,
		);
		const folderExisted = existsSync(dirname(file));
		mkdirSync(dirname(file), { recursive: true });
		writeFileSync(file, `${JSON.stringify({ folders: [], settings: {} }, null, '\t')}\n`);
		let opened: Page | undefined;
		try {
			opened = await page.context().newPage();
			await opened.setViewportSize({ width: 1280, height: 1024 });
			await opened.goto(`${new URL(page.url()).origin}/?workspace=${encodeURIComponent(file)}`);
			await opened.locator('.monaco-workbench .activitybar').waitFor({ state: 'visible', timeout: 90_000 });
			const root = await explorerFolderRow(opened, agent.name, NEW_WINDOW_SHOT);
			note(`folder ${JSON.stringify((await root.innerText()).trim())} in ${JSON.stringify(await opened.title())}`);
			// The folder is back in the file too (VS Code writes a workspace's folders to its file).
			const content = JSON.parse(readFileSync(file, 'utf8')) as { folders?: Array<{ uri?: string; name?: string }> };
			assert.deepEqual(content.folders, [{ uri: `cloud-agent://${authority}/`, name: agent.name }]);
		} catch (err) {
			// The runner's FAILED-… screenshot is of the first window: keep what the new one showed.
			await opened?.screenshot({ path: NEW_WINDOW_SHOT }).catch(() => undefined);
			throw err;
		} finally {
			const window = opened;
			if (window) {
				// Closing the window cancels what its workbench had pending: judged as a page leaving.
				await leavePage(() => window.close());
			}
			rmSync(folderExisted ? file : dirname(file), { recursive: true, force: true });
			await page.bringToFront();
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
