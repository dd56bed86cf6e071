import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { signInWithKey, signOutKeepingToken, waitForWelcome } from './support/session';
import { until, webviewFrame } from './support/webviewPage';
import type { UiTest } from './support/workbench';

/**
 * The Token Savings panel across a sign-out and a sign-in: signed out, it says to sign in (no
 * mangled "missing bearer <redacted>" text) and shows nothing of the account (issue 42, item 5:
 * totals, tables and events stayed under the banner); after signing in again it reads the savings by itself,
 * without Refresh, and its error is gone.
 */
const uiTest: UiTest = {
	title: 'token savings panel after a sign-out: it asks to sign in, and reads the savings again by itself once signed in',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await waitForWelcome(workbench, false);
		await workbench.runCommand('Cloud Agents: Open Token Savings');
		await page.locator('.tabs-container .tab', { hasText: 'Token Savings' }).first().waitFor({ state: 'visible', timeout: 20_000 });
		const frame = await webviewFrame(page, 'Token Savings', '#chart');
		const status = frame.locator('#status');
		const read = async (): Promise<true | undefined> => {
			const text = await status.innerText();
			return /events read at/.test(text) && !(await status.getAttribute('class'))?.includes('error') ? true : undefined;
		};
		try {
			await until(page, 'the savings read while signed in', read, 30_000);
			// What the account's data looks like on the page: totals, the chart, the newest events.
			const shown = async (): Promise<{ events: string; chart: number; recent: number }> => ({
				events: (await frame.locator('#range-events').innerText()).trim(),
				chart: await frame.locator('#chart canvas').count(),
				recent: await frame.locator('#recent tbody tr').count(),
			});
			const before = await shown();
			assert.ok(
				before.events !== '–' && before.chart > 0 && before.recent > 0,
				`the account's data shows: ${JSON.stringify(before)}`,
			);

			await signOutKeepingToken(workbench, emulatorUrl);
			// Signed out, a refresh (the panel may have read again by itself already) ends in an error that says what to do.
			await frame.locator('#refresh').click();
			const signedOut = await until(
				page,
				'the signed-out message',
				// Class and text read at once: the panel's own reload on the session change and the
				// Refresh click each show "Reading…" before their error (two reads could straddle one).
				() =>
					status.evaluate((el: { className: string; textContent: string | null }): string | undefined =>
						el.className.includes('error') ? (el.textContent ?? '') : undefined,
					),
				30_000,
			);
			note(`signed out: ${JSON.stringify(signedOut)}`);
			assert.match(signedOut, /Sign in/);
			assert.doesNotMatch(signedOut, /<redacted>/);
			// Issue 42, item 5: nothing of the account stays under the banner.
			const cleared = await shown();
			assert.deepEqual(cleared, { events: '–', chart: 0, recent: 0 }, "signed out, the account's totals, chart and events are gone");

			// Signing in again: the panel reads by itself; nobody presses Refresh. The webview takes the
			// focus back while the sign-in pick shows (as the workbench does when it restores the
			// editor's focus a moment after the palette closed; seen in CI): the pick, which stays open
			// without the focus, still takes the choice.
			await signInWithKey(workbench, devToken, undefined, async () => {
				await page.locator('.quick-input-widget .monaco-list-row', { hasText: 'API key' }).first().waitFor({ state: 'visible' });
				await page.locator('iframe.webview').first().focus();
				assert.equal(
					await page.evaluate('document.activeElement instanceof HTMLIFrameElement'),
					true,
					'the webview has the focus while the pick shows',
				);
			});
			await waitForWelcome(workbench, false);
			await until(page, 'the savings read again after signing in', read, 30_000);
			const after = await status.innerText();
			note(`signed in again: ${JSON.stringify(after)}`);
			assert.ok((await frame.locator('#runtime option').count()) > 1, 'the runtime filter lists the runtimes again');
		} finally {
			await workbench.runCommand('View: Close All Editors').catch(() => undefined);
			// Leave the window signed in, also when a check above failed (the tests after this one expect it).
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID).catch(() => undefined);
			if ((await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents').catch(() => [])).length > 0) {
				await signInWithKey(workbench, devToken).catch(() => undefined);
			}
		}
	},
};

export default uiTest;
