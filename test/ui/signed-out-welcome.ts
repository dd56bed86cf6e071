import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { signInWithKey, signOutKeepingToken, TOAST_SPAM_WINDOW_MS, waitForWelcome } from './support/session';
import type { UiTest } from './support/workbench';

/**
 * Issue 20 (6): "Signed out or unreachable, the reason is hidden. The Agents view shows 'Sign in…'
 * while the real reason ('cannot be reached at the configured API URL') and Check Connection are
 * clipped below; the other four views each repeat 'Sign in (in the Agents view above)'; Send Prompt
 * while signed out only moves the focus." Signed out with the service not answering, the Agents
 * view says so first, with Check Connection and Configure API URL; once it answers, Sign In comes
 * first; the other views say one short line; Send Prompt offers to sign in and then goes on to its
 * agent pick.
 */
const uiTest: UiTest = {
	title: 'signed out: the Agents view says Sign In first, the other views one line; Send Prompt offers to sign in and goes on to its agent pick',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const agentsWelcome = (): Promise<string[]> => workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents');
		const until = async (what: string, ok: (texts: string[]) => boolean): Promise<string[]> => {
			let texts: string[] = [];
			for (let i = 0; i < 150; i++) {
				texts = await agentsWelcome();
				if (ok(texts)) {
					return texts;
				}
				await page.waitForTimeout(100);
			}
			assert.fail(`${what}: ${JSON.stringify(texts)}`);
		};
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await waitForWelcome(workbench, false);
		let signedOut = false;
		try {
			await signOutKeepingToken(workbench, emulatorUrl);
			signedOut = true;

			// The service answers (the unreachable case, first with Check Connection, is checked on the
			// manifest by test/unit/manifest.test.ts): Sign In comes first.
			const reachable = await until('the sign-in welcome', (t) => t.includes('Sign In'));
			note(`signed out: ${JSON.stringify(reachable)}`);
			assert.match(reachable[0] ?? '', /^Sign in to the Cloud Agents service/);
			assert.equal(reachable[1], 'Sign In');
			for (const view of ['Runs', 'Runtimes', 'Artifacts']) {
				const welcome = await workbench.paneWelcome(VIEW_CONTAINER_ID, view);
				assert.ok(welcome.length <= 1, `${view}: ${JSON.stringify(welcome)}`);
				assert.ok(!welcome.join(' ').includes('Agents view above'), `${view}: ${JSON.stringify(welcome)}`);
			}

			// Send Prompt while signed out: it says so and offers Sign In; after signing in, the agent pick.
			await page.waitForTimeout(TOAST_SPAM_WINDOW_MS + 200);
			await workbench.dismissDialogs();
			await workbench.runCommand('Cloud Agents: Send Prompt');
			const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'signed out of Cloud Agents' }).first();
			await toast.waitFor({ state: 'visible', timeout: 10_000 });
			note(`Send Prompt signed out: ${(await toast.innerText()).replace(/\s+/g, ' ').trim()}`);
			assert.match(await toast.innerText(), /Sign in to use Send Prompt/);
			await toast.locator('.monaco-button', { hasText: 'Sign In' }).click();
			const apiKeyItem = page.locator('.quick-input-list .monaco-list-row', { hasText: 'API key' }).first();
			await apiKeyItem.waitFor({ state: 'visible', timeout: 10_000 });
			await apiKeyItem.click();
			await page.locator('.quick-input-widget', { hasText: 'API key for' }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.locator('.quick-input-widget input').fill(devToken);
			await page.keyboard.press('Enter');
			await page.locator('.quick-input-widget input[placeholder="Pick an agent"]').waitFor({ state: 'visible', timeout: 20_000 });
			await page
				.locator('.quick-input-list .monaco-list-row', { hasText: 'Docs writer' })
				.first()
				.waitFor({ state: 'visible', timeout: 20_000 });
			signedOut = false;
			note('after signing in, Send Prompt went on to its agent pick');
			await page.keyboard.press('Escape');
			await waitForWelcome(workbench, false);
		} finally {
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
			await page.keyboard.press('Escape');
			if (signedOut) {
				await workbench.dismissDialogs();
				await signInWithKey(workbench, devToken).catch(() => {});
				await waitForWelcome(workbench, false).catch(() => {});
			}
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => {});
		}
	},
};

export default uiTest;
