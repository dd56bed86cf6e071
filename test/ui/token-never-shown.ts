import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { signInWithKey, signOutKeepingToken, waitForWelcome } from './support/session';
import type { UiTest } from './support/workbench';

/** The notification signing in ends with (src/auth/signIn.ts), in every emulator profile. */
const SIGNED_IN = 'Signed in to Cloud Agents';

/**
 * The token passes through the page and is never shown. The test makes notifications of its own
 * that the token went through: it signs out (the emulator refuses the revoke, so the token stays
 * valid) and signs in again with the token typed into the palette's input box, masked and checked
 * against the service. Then no notification in the notification center and no text on the page
 * shows the token; the notifications earlier tests of the session left there are checked first.
 * The in-host suites check logs, output channels and stored run events the same way. Ends signed in
 * with the dev token, as it started.
 */
const uiTest: UiTest = {
	title: 'signing out and in again with the token from the palette: no notification and no text on the workbench page shows the token',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		await workbench.dismissDialogs();
		// Opening the view activates the extension (also when this test runs first or alone).
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await waitForWelcome(workbench, false);

		const center = page.locator('.notifications-center');
		/** The notification center's messages, after checking that none shows the token. */
		const readCenter = async (): Promise<string[]> => {
			await workbench.runCommand('Notifications: Show Notifications');
			await center.waitFor({ state: 'visible', timeout: 15_000 });
			const messages = await center.locator('.notification-list-item').allInnerTexts();
			for (const message of messages) {
				assert.ok(!message.includes(devToken), `a notification shows the token: ${message.slice(0, 80)}`);
			}
			return messages;
		};
		// What earlier tests of the session left (nothing when this test runs first or after a
		// reload), then a clean notification center for this test's own notifications.
		note(`${(await readCenter()).length} notification(s) of earlier tests in the notification center`);
		await workbench.runCommand('Notifications: Clear All Notifications');

		await signOutKeepingToken(workbench, emulatorUrl);
		await signInWithKey(workbench, devToken, async (input) => {
			assert.equal(await input.getAttribute('type'), 'password', 'the API key is typed into a masked input box');
			assert.ok(!(await page.locator('body').innerText()).includes(devToken), 'the page shows the token as it is typed');
		});
		await page
			.locator('.notification-list-item-message', { hasText: SIGNED_IN })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
		await waitForWelcome(workbench, false);

		const messages = await readCenter();
		note(`${messages.length} notification(s): ${messages.map((m) => m.replace(/\s+/g, ' ').slice(0, 50)).join(' | ')}`);
		assert.ok(
			messages.some((m) => m.includes(SIGNED_IN)),
			'the notifications the token went through are read, so the check is not vacuous',
		);
		const pageText = await page.locator('body').innerText();
		assert.ok(pageText.includes(SIGNED_IN), 'the page text read includes the notification center');
		assert.ok(!pageText.includes(devToken), 'the workbench page shows the token');
		await workbench.screenshot('notifications');
		// Close the notification center (Escape = notifications.hideList) so it covers nothing in later tests.
		await page.keyboard.press('Escape');
	},
};

export default uiTest;
