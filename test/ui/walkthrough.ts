import * as assert from 'node:assert/strict';
import type { UiTest } from './support/workbench';
import { until } from './support/webviewPage';

/**
 * Issue 42, item 17: a Getting Started walkthrough. "Welcome: Open Walkthrough…" offers it, and it
 * shows its five steps (sign in, browse agents, send a first prompt, open the agent's workspace,
 * review its changes), each with its button. Whether a step is checked is the workbench's: it
 * counts each completion event once per window session (a sign-in by an earlier test in this window
 * already counted), so this test does not assert it; the manifest test checks each step's event.
 */
const uiTest: UiTest = {
	title: 'the Getting Started walkthrough: offered by "Open Walkthrough…", five steps, each with its button',
	async run({ page, workbench, note }) {
		const steps = page.locator('.getting-started-step');
		try {
			await workbench.runCommand('Welcome: Open Walkthrough...');
			const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with Cloud Agents' }).first();
			await row.waitFor({ state: 'visible', timeout: 20_000 });
			await row.click();
			await steps.filter({ hasText: 'Browse your agents' }).first().waitFor({ state: 'visible', timeout: 20_000 });
			const titles = (await steps.locator('.step-title').allInnerTexts()).map((t) => t.trim());
			note(`steps: ${JSON.stringify(titles)}`);
			assert.deepEqual(titles, [
				'Sign in',
				'Browse your agents',
				'Send a first prompt',
				"Open the agent's workspace",
				'Review its changes',
			]);
			// The first step is open and shows its button.
			const button = steps.first().locator('a, button', { hasText: /^\s*Sign In\s*$/ });
			await button.waitFor({ state: 'visible', timeout: 10_000 });
			// The step's text is a Markdown page in a webview that loads after the step shows; the next
			// palette was opened while it loaded and its input never showed (the clean-clone run at
			// f1df63a: hidden for 30 s). Go on once the page shows.
			await until(page, "the first step's Markdown page", async () => {
				for (const frame of page.frames()) {
					if (!frame.isDetached() && (await frame.getByText('asks how', { exact: false }).count()) > 0) {
						return true;
					}
				}
				return undefined;
			});
			await workbench.runCommand('Notifications: Clear All Notifications');
			await workbench.screenshot('walkthrough');
		} finally {
			await page.keyboard.press('Escape');
			await workbench.runCommand('View: Close All Editors').catch(() => undefined);
		}
	},
};

export default uiTest;
