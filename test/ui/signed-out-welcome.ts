import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { signInWithKey, signOutKeepingToken, TOAST_SPAM_WINDOW_MS, waitForWelcome } from './support/session';
import type { UiTest } from './support/workbench';

/**
 * Issue 20 (6): "Signed out or unreachable, the reason is hidden. The Agents view shows 'Sign in…'
 * while the real reason ('cannot be reached at the configured API URL') and Check Connection are
 * clipped below; the other four views each repeat 'Sign in (in the Agents view above)'; Send Prompt
 * while signed out only moves the focus." Signed out with the service answering, the Agents view
 * says Sign In first and the other four views one short line; with the service not answering, the
 * Agents view says so first, with Check Connection and no Sign In; Send Prompt from the palette
 * says it needs a sign-in and offers Sign In, then goes on to its agent pick. Ends signed in with
 * the dev token, with no fault left in the emulator.
 */
const OTHER_VIEWS = ['Runs', 'Runtimes', 'Artifacts', 'Account'];

const uiTest: UiTest = {
	title: 'signed out: the Agents view says Sign In first, or first that the service cannot be reached (Check Connection); the other views one line; Send Prompt offers to sign in',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const faults = (rules: unknown[]): Promise<Response> =>
			fetch(`${emulatorUrl}/_emulator/faults`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ rules }),
			});
		/** Polls the welcome of one view until `ok` holds (the welcome re-renders as context keys change). */
		const welcomeUntil = async (
			view: string,
			what: string,
			ok: (texts: string[]) => boolean,
			timeoutMs = 20_000,
		): Promise<string[]> => {
			let texts: string[];
			// What the view showed (welcome texts and tree rows) each time it changed, noted on failure.
			const seen: string[] = [];
			const start = Date.now();
			for (const end = start + timeoutMs; ;) {
				texts = await workbench.paneWelcome(VIEW_CONTAINER_ID, view);
				if (ok(texts)) {
					return texts;
				}
				const state = `${JSON.stringify(texts)} rows ${JSON.stringify(await workbench.paneRows(VIEW_CONTAINER_ID, view))}`;
				if (seen.at(-1)?.endsWith(state) !== true) {
					seen.push(`${Date.now() - start} ms: ${state}`);
				}
				if (Date.now() > end) {
					for (const line of seen) {
						note(`${view} view at ${line}`);
					}
					assert.fail(`${view} view, ${what}: ${JSON.stringify(texts)}`);
				}
				await page.waitForTimeout(100);
			}
		};
		const accountHeader = workbench.pane(VIEW_CONTAINER_ID, 'Account').locator('.pane-header');

		// Signed in and loaded: the Agents view lists the seed's agents. No welcome is not enough: the
		// welcome is also empty while the extension is still starting, and in two runs that began so (a
		// loaded machine, this test first in the window) the Agents view read empty after the sign-out
		// (suspected: the sign-out raced with the session's restore at start).
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await workbench
			.pane(VIEW_CONTAINER_ID, 'Agents')
			.locator('.monaco-list-row', { hasText: 'Docs writer' })
			.first()
			.waitFor({ state: 'visible', timeout: 60_000 });
		let signedOut = false;
		try {
			await signOutKeepingToken(workbench, emulatorUrl);
			signedOut = true;

			// (a) The service answers: Sign In comes first in the Agents view; the other views say one line.
			const reachable = await welcomeUntil(
				'Agents',
				'the sign-in welcome once the service answered',
				(t) => t.includes('Sign In') && !t.some((x) => x.startsWith('Checking whether')),
			);
			note(`signed out, the service answering: Agents ${JSON.stringify(reachable)}`);
			assert.match(reachable[0] ?? '', /^Sign in to the Cloud Agents service/, JSON.stringify(reachable));
			assert.equal(reachable[1], 'Sign In', JSON.stringify(reachable));
			assert.ok(!reachable.some((t) => /cannot be reached/.test(t)), JSON.stringify(reachable));
			// The Account view starts collapsed (its welcome shows only when it is expanded).
			await workbench.expandedPane(VIEW_CONTAINER_ID, 'Account');
			for (const view of OTHER_VIEWS) {
				const welcome = await welcomeUntil(view, 'one short line', (t) => t.length > 0);
				note(`${view}: ${JSON.stringify(welcome)}`);
				assert.deepEqual(welcome, ['Signed out.'], `${view}: ${JSON.stringify(welcome)}`);
			}
			if ((await accountHeader.getAttribute('aria-expanded')) === 'true') {
				await accountHeader.click();
			}

			// (b) The service does not answer its health check (the socket is closed with no answer): once
			// the Agents view shows again, it says so first, with Check Connection, and offers no Sign In.
			assert.equal((await faults([{ method: 'HEAD', route: '/healthz', ambiguous_timeout: true }])).status, 200);
			await workbench.runCommand('View: Show Explorer');
			await workbench.viewContainer(VIEW_CONTAINER_ID).waitFor({ state: 'hidden', timeout: 10_000 });
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			const unreachable = await welcomeUntil(
				'Agents',
				'the unreachable reason first',
				(t) => t.some((x) => /cannot be reached/.test(x)),
				40_000,
			);
			note(`signed out, the service not answering: Agents ${JSON.stringify(unreachable)}`);
			assert.match(
				unreachable[0] ?? '',
				/^The Cloud Agents service cannot be reached at the configured API URL/,
				JSON.stringify(unreachable),
			);
			assert.equal(unreachable[1], 'Check Connection', JSON.stringify(unreachable));
			assert.ok(unreachable.includes('Configure API URL'), JSON.stringify(unreachable));
			assert.ok(
				!unreachable.includes('Sign In'),
				`Sign In offered while the service cannot be reached: ${JSON.stringify(unreachable)}`,
			);
			await workbench.screenshot('signed-out-unreachable');

			// The service answers again: Check Connection says so and Sign In comes back first.
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
			await workbench
				.pane(VIEW_CONTAINER_ID, 'Agents')
				.locator('.welcome-view-content .monaco-button', { hasText: 'Check Connection' })
				.first()
				.click();
			const again = await welcomeUntil('Agents', 'Sign In back after Check Connection', (t) => t[1] === 'Sign In');
			note(`after Check Connection: Agents ${JSON.stringify(again)}`);
			await workbench.runCommand('Notifications: Clear All Notifications');

			// (c) Send Prompt from the palette while signed out: it says so and offers Sign In; signing in
			// with the key goes on to its agent pick.
			await page.waitForTimeout(TOAST_SPAM_WINDOW_MS + 200);
			await workbench.runCommand('Cloud Agents: Send Prompt');
			const toast = page.locator('.notifications-toasts .notification-list-item', { hasText: 'signed out of Cloud Agents' }).first();
			await toast.waitFor({ state: 'visible', timeout: 10_000 });
			const said = (await toast.innerText()).replace(/\s+/g, ' ').trim();
			note(`Send Prompt signed out: ${said}`);
			assert.match(said, /You are signed out of Cloud Agents\. Sign in to use Send Prompt\./);
			await toast.locator('.monaco-button', { hasText: 'Sign In' }).click();
			const apiKeyItem = page.locator('.quick-input-list .monaco-list-row', { hasText: 'API key' }).first();
			await apiKeyItem.waitFor({ state: 'visible', timeout: 10_000 });
			await apiKeyItem.click();
			await page.locator('.quick-input-widget', { hasText: 'API key for' }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.locator('.quick-input-widget input').fill(devToken);
			await page.keyboard.press('Enter');
			await page
				.locator('.quick-input-list .monaco-list-row', { hasText: 'Docs writer' })
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 });
			signedOut = false;
			note('after signing in, Send Prompt went on to its agent pick');
			await page.keyboard.press('Escape');
			await waitForWelcome(workbench, false);
		} finally {
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
			await workbench.dismissDialogs();
			if (signedOut) {
				await signInWithKey(workbench, devToken).catch(() => {});
				await waitForWelcome(workbench, false).catch(() => {});
			}
			if ((await accountHeader.getAttribute('aria-expanded').catch(() => null)) === 'true') {
				await accountHeader.click().catch(() => {});
			}
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => {});
		}
	},
};

export default uiTest;
