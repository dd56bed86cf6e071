import * as assert from 'node:assert/strict';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';
import type { ProviderBody } from '../integration/support/profile';

/**
 * Issue 33, item 8: a model provider's tab (`cloud-agents-provider:/OpenAI.json`) survives a reload
 * of the window. VS Code restores the tab before any command of ours runs; it activates the
 * extension through `onFileSystem:cloud-agents-provider`, and the scheme is served from activation
 * (a stand-in that loads the documents' code on the first read), so the tab shows the provider's
 * configuration again instead of "The editor could not be opened… ENOPRO: No file system provider
 * found".
 */
const uiTest: UiTest = {
	title: "a model provider's tab shows its configuration again after the window reloads (no ENOPRO)",
	async run({ page, workbench, emulatorUrl, devToken, note, leavePage }) {
		const providers = await emulatorCall<{ model_providers: ProviderBody[] }>(emulatorUrl, devToken, 'GET', '/v2/model-providers');
		const provider = providers.model_providers.find((p) => p.id === 'mp_openai');
		assert.ok(provider, 'the demo seed has mp_openai');
		const tab = page.locator('.tabs-container .tab', { hasText: `${provider.display_name}.json` }).first();
		const editorText = async (): Promise<string> =>
			(
				await page
					.locator('.editor-instance .monaco-editor .view-lines')
					.first()
					.innerText({ timeout: 5_000 })
					.catch(() => '')
			).replace(/\s+/g, ' ');
		// The editor shows the provider's model (a string expression: the page's DOM types are not the test's).
		const shows = `document.querySelector('.editor-instance .monaco-editor .view-lines')?.textContent?.includes(${JSON.stringify(provider.model)}) === true`;
		try {
			await page.bringToFront();
			await workbench.dismissDialogs();
			await workbench.runCommand('Cloud Agents: Edit Model Provider');
			await workbench.pickByKeyboard(new RegExp(provider.id));
			await tab.waitFor({ state: 'visible', timeout: 20_000 });
			await page.waitForFunction(shows, undefined, { timeout: 15_000 });
			note(`opened: ${(await editorText()).slice(0, 80)}`);

			// "Developer: Reload Window", as a person would (an orderly shutdown saves the editors' state).
			await leavePage(() => workbench.runCommand('Developer: Reload Window'));
			await tab.waitFor({ state: 'visible', timeout: 60_000 });
			await tab.click();
			// The restored tab reads the provider from the service again: its configuration, not an error.
			await page.waitForFunction(shows, undefined, { timeout: 60_000 }).catch(async () => {
				const shown = (
					await page
						.locator('.editor-container')
						.first()
						.innerText({ timeout: 5_000 })
						.catch(() => '')
				).replace(/\s+/g, ' ');
				assert.fail(`the restored tab does not show the configuration: ${shown.slice(0, 300)}`);
			});
			assert.equal(
				await page.locator('.editor-container', { hasText: 'could not be opened' }).count(),
				0,
				'no "could not be opened"',
			);
			const notices = await workbench.notifications();
			assert.ok(!notices.some((n) => /ENOPRO|No file system provider/.test(n)), notices.join(' | '));
			note(`after the reload: ${(await editorText()).slice(0, 80)}`);
		} finally {
			await workbench.dismissDialogs();
			await workbench.runCommand('View: Revert and Close Editor').catch(() => undefined);
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
