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
 *
 * Putting the folder back changes the window's first folder, and VS Code reloads a remote window
 * when that happens (its WorkspaceChangeExtHostRelauncher: `remoteAuthority ? reload()`). The folder
 * row can show before that reload and vanish with the page: the reversed run of issue 41 found the
 * row, then timed out reading it. When the folder is back before VS Code watches for a change, no
 * reload comes. The test reads the row until a read spans no navigation.
 */
/** The longest wait for the folder to stay in the window (through a reload: a workbench's boot on a loaded machine). */
const RELOAD_MS = 120_000;

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
			const window = await page.context().newPage();
			opened = window;
			// VS Code reloads the window when its first folder changes after its extension-host
			// relauncher has started; on a fast machine the folder is back before that, and no reload
			// comes (a clean-clone run waited 120 s for one). So the reload is counted, not required: the
			// folder is read until a read spans no navigation of the page and the file holds the folder.
			let navigations = 0;
			window.on('framenavigated', (frame) => {
				if (frame === window.mainFrame()) {
					navigations++;
				}
			});
			await window.setViewportSize({ width: 1280, height: 1024 });
			await window.goto(`${new URL(page.url()).origin}/?workspace=${encodeURIComponent(file)}`);
			const folders = (): Array<{ uri?: string; name?: string }> | undefined =>
				(JSON.parse(readFileSync(file, 'utf8')) as { folders?: Array<{ uri?: string; name?: string }> }).folders;
			const end = Date.now() + RELOAD_MS;
			let shown: string | undefined;
			while (shown === undefined) {
				assert.ok(Date.now() < end, `the folder never stayed in the window (${navigations} navigations)`);
				const before = navigations;
				try {
					await window.locator('.monaco-workbench .activitybar').waitFor({ state: 'visible', timeout: 90_000 });
					const root = await explorerFolderRow(window, agent.name, NEW_WINDOW_SHOT);
					const text = (await root.innerText()).trim();
					if (navigations === before && (folders()?.length ?? 0) > 0) {
						shown = text;
					}
				} catch (err) {
					if (navigations === before) {
						throw err;
					}
				}
			}
			// The workbench sets the title once it has the workspace's name (a clean-clone run read "" here)
			// and sets it again when the extensions' label formatters arrive: waited for, then read.
			await window
				.waitForFunction(
					`document.title.includes(${JSON.stringify(agent.name)}) && document.title.includes('Cloud Agent')`,
					undefined,
					{
						timeout: 30_000,
					},
				)
				.catch(() => undefined);
			const title = await window.title();
			note(`${navigations > 1 ? 'reloaded' : 'not reloaded'}; folder ${JSON.stringify(shown)} in ${JSON.stringify(title)}`);
			// The window's title names the agent, and where it is as "Cloud Agent" (package.json
			// resourceLabelFormatters), never the folder's authority string (issue 42, item 13).
			assert.ok(title.includes(agent.name) && title.includes('Cloud Agent'), title);
			assert.ok(!title.includes(authority), `the title shows the authority: ${title}`);
			// The folder is back in the file too (VS Code writes a workspace's folders to its file).
			assert.deepEqual(folders(), [{ uri: `cloud-agent://${authority}/`, name: agent.name }]);
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
