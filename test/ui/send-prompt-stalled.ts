import * as assert from 'node:assert/strict';
import { createIdleAgent, startOutage } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

/**
 * Issue 42, item 3: "Send Prompt during a stall is 122 s of silence: no progress, no status bar
 * item". A prompt sent while the service accepts connections and never answers is said to wait
 * within a couple of seconds (a progress notification naming the agent, with Cancel); Cancel stops
 * waiting, says the run may still show in the Runs view, and keeps the prompt for the next Send
 * Prompt.
 */
const uiTest: UiTest = {
	title: 'Send Prompt while the service stalls: "waiting for the service" with Cancel within seconds; Cancel keeps the prompt',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const name = `Stalled prompt ${Date.now()}`;
		await createIdleAgent(emulatorUrl, devToken, name);
		const input = page.locator('.quick-input-widget input');
		const toasts = page.locator('.notifications-toasts .notification-list-item');
		const openPromptBox = (): Promise<void> => workbench.openPromptBoxForSelected(name);
		let outage: { end(): Promise<void> } | undefined;
		try {
			await workbench.selectAgent(name);
			await openPromptBox();
			const prompt = `Sent into a stall ${Date.now()}`;
			await input.fill(prompt);
			outage = await startOutage(emulatorUrl, 'stall', 120);
			const sent = Date.now();
			await page.keyboard.press('Enter');
			const waiting = toasts.filter({ hasText: `Sending the prompt to ${name}: waiting for the service` }).first();
			await waiting.waitFor({ state: 'visible', timeout: 10_000 });
			const after = Date.now() - sent;
			note(`"waiting for the service" shown ${after} ms after Enter`);
			assert.ok(after < 10_000, `said within seconds (${after} ms)`);
			const cancel = waiting.locator('.monaco-button', { hasText: /^Cancel$/ });
			assert.equal(await cancel.count(), 1, 'the progress has Cancel');
			await workbench.screenshot('send-prompt-waiting');
			await cancel.click();
			const stopped = toasts.filter({ hasText: 'Stopped waiting for the service' }).first();
			await stopped.waitFor({ state: 'visible', timeout: 10_000 });
			const text = (await stopped.innerText()).replace(/\s+/g, ' ');
			assert.match(text, new RegExp(`its run shows in the Runs view of ${name}`), text);
			assert.match(text, /Your prompt is kept/, text);
			await waiting.waitFor({ state: 'detached', timeout: 10_000 });

			// The service answers again: the next Send Prompt to the agent offers the prompt again.
			await outage.end();
			outage = undefined;
			await workbench.runCommand('Notifications: Clear All Notifications');
			await openPromptBox();
			await page.waitForFunction(
				`document.querySelector('.quick-input-widget input')?.value === ${JSON.stringify(prompt)}`,
				undefined,
				{ timeout: 10_000 },
			);
			note('the next Send Prompt offered the prompt again');
			await page.keyboard.press('Escape');
		} finally {
			await outage?.end();
			await page.keyboard.press('Escape');
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
		}
	},
};

export default uiTest;
