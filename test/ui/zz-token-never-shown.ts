import * as assert from 'node:assert/strict';
import type { UiTest } from './support/workbench';

/**
 * Runs last (file order): after every in-host suite and UI test of the run, no notification the
 * session produced — toasts and the notification center's history — and no text on the page shows
 * the token. The in-host suites check logs, output channels and stored run events the same way.
 */
const uiTest: UiTest = {
	title: 'no notification of the whole run and no text on the workbench page shows the token [variant]',
	async run({ page, workbench, devToken, note }) {
		await workbench.dismissDialogs();
		await workbench.runCommand('Notifications: Show Notifications');
		const center = page.locator('.notifications-center');
		await center.waitFor({ state: 'visible', timeout: 15_000 });
		const messages = await center.locator('.notification-list-item').allInnerTexts();
		note(`${messages.length} notification(s) in the notification center`);
		assert.ok(messages.length > 0, 'the run produced notifications (sign-in, run ended, …), so the check is not vacuous');
		for (const message of messages) {
			assert.ok(!message.includes(devToken), `a notification shows the token: ${message.slice(0, 80)}`);
		}
		const pageText = await page.locator('body').innerText();
		assert.ok(pageText.length > 0);
		assert.ok(!pageText.includes(devToken), 'the workbench page shows the token');
		await workbench.screenshot('notifications');
	},
};

export default uiTest;
