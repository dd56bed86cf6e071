import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../../src/ids';
import { until } from './webviewPage';
import type { Workbench } from './workbench';

/**
 * The workbench toasts at most 3 notifications in an 800 ms window and only lists the rest in the
 * notification center (`NotificationsToasts.SPAM_PROTECTION` in VS Code's notificationsToasts.ts; the window
 * starts at its first toast). A sign-out shows two (its progress and, with the revoke refused, a warning);
 * signing in right after adds the "Checking the API key…" progress and the outcome, which then came 4th
 * inside the window and was never toasted (seen after a window reload, when sign-in answers fastest).
 * Signing in after the window has passed keeps a test at a pace a person could sign out and in again.
 */
export const TOAST_SPAM_WINDOW_MS = 800;

/**
 * Signs in from the palette with an API key, typed into the key's input box (as a person pastes it);
 * `beforePick` runs once the sign-in command ran, `beforeEnter` sees the input box holding the key.
 */
export async function signInWithKey(
	workbench: Workbench,
	key: string,
	beforeEnter?: (input: Locator) => Promise<void>,
	beforePick?: () => Promise<void>,
): Promise<void> {
	const page = workbench.page;
	await page.waitForTimeout(TOAST_SPAM_WINDOW_MS + 200);
	await workbench.runCommand('Cloud Agents: Sign In');
	await beforePick?.();
	// By keyboard, not by a click on the row: the pick's rows can still move (a click found the row
	// "not stable", then gone).
	await workbench.pickByKeyboard('API key', 10_000);
	await page
		.locator('.quick-input-widget', { hasText: 'API key for' })
		.first()
		.waitFor({ state: 'visible', timeout: 10_000 })
		.catch(async (err: unknown) => {
			// What the window shows instead, for the failure message (a sign-in input that never showed was seen once).
			const widget = page.locator('.quick-input-widget').first();
			const shown = (await widget.isVisible())
				? JSON.stringify((await widget.innerText()).replace(/\s+/g, ' ').slice(0, 300))
				: 'no quick input';
			const focused = await page.evaluate('document.hasFocus()');
			const active = await page.evaluate(
				"document.activeElement ? document.activeElement.tagName + ' ' + String(document.activeElement.className).slice(0, 80) : 'none'",
			);
			throw new Error(
				`${err instanceof Error ? err.message.split('\n')[0] : String(err)}; the quick input: ${shown}; page focused: ${String(focused)}; focus on: ${String(active)}`,
			);
		});
	const input = page.locator('.quick-input-widget input');
	await input.fill(key);
	await beforeEnter?.(input);
	await page.keyboard.press('Enter');
	// The box stays open (busy) while the service checks the key. Anything run from the palette
	// meanwhile presses Escape on it first (Workbench.runCommand), which hides the box and cancels the
	// check: no sign-in and no message (a waitForNotification opening the notification center did,
	// on a busy machine: "Signed in to Staging as" was never shown). So this returns once the box has
	// closed (the key taken) or says why it was not (its message takes the place of "API key for").
	const box = page.locator('.quick-input-widget', { hasText: 'Sign in to Cloud Agents' }).first();
	await until(
		page,
		'the API key box closed, or saying why not',
		async () => (!(await box.isVisible()) || !(await box.innerText()).includes('API key for') ? true : undefined),
		30_000,
	);
}

/** Waits until the Agents view shows (`shown`) or no longer shows its signed-out welcome content. */
export async function waitForWelcome(workbench: Workbench, shown: boolean): Promise<void> {
	for (let i = 0; i < 150; i++) {
		const welcome = await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents');
		if (welcome.length > 0 === shown) {
			return;
		}
		await workbench.page.waitForTimeout(100);
	}
	assert.fail(shown ? 'the Agents view shows no signed-out welcome' : 'the Agents view still shows the signed-out welcome');
}

/**
 * Signs out from the palette (confirming when asked) while the emulator refuses to revoke the token
 * (a 503 for DELETE /v2/auth/token), so the token stays valid for signing in again and for the tests
 * after this one. Ends signed out.
 */
export async function signOutKeepingToken(workbench: Workbench, emulatorUrl: string): Promise<void> {
	const page = workbench.page;
	const fault = await fetch(`${emulatorUrl}/_emulator/faults`, {
		method: 'PUT',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ rules: [{ method: 'DELETE', route: '/v2/auth/token', status: 503 }] }),
	});
	assert.equal(fault.status, 200);
	try {
		await workbench.runCommand('Cloud Agents: Sign Out');
		// The confirmation, unless it was turned off ("Sign Out and Don't Ask Again").
		const dialog = page.locator('.monaco-dialog-box').first();
		const signOut = dialog.locator('.dialog-buttons .monaco-button', { hasText: /^Sign Out$/ });
		for (let i = 0; i < 100 && (await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents')).length === 0; i++) {
			if (await signOut.isVisible().catch(() => false)) {
				await signOut.click();
			}
			await page.waitForTimeout(100);
		}
		await waitForWelcome(workbench, true);
	} finally {
		await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
	}
}
