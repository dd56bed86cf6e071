import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { TOAST_SPAM_WINDOW_MS, waitForWelcome } from './support/session';
import type { UiTest } from './support/workbench';

/**
 * Issue 20 (5): "Send Prompt with the service down shows an empty picker, then a bare 'Connection
 * refused (connect ECONNREFUSED 127.0.0.1:8799)' with no action, while Check Connection offers Retry
 * and Configure API URL." With no answer from the service, Send Prompt's agent pick shows the
 * failure with Retry and Configure API URL, and Retry loads the agents in the same pick once the
 * service answers; any other command that gets no answer says so with the same two actions, and its
 * Retry runs the command again.
 */
const uiTest: UiTest = {
	title: 'Send Prompt with the service not answering: the agent pick shows the failure with Retry and Configure API URL, and Retry loads the agents',
	async run({ page, workbench, emulatorUrl, note, expectConsoleError }) {
		expectConsoleError(
			/cloudAgents\.ssh\.showGatewayHostKey failed:[^]*(Network error|Connection)/,
			'our log channel records the command that got no answer',
		);
		expectConsoleError(/^Cannot reach the Cloud Agents service: /, 'the error notification (with Retry) that command shows');
		const faults = (rules: unknown[]): Promise<Response> =>
			fetch(`${emulatorUrl}/_emulator/faults`, {
				method: 'PUT',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify({ rules }),
			});
		const rows = page.locator('.quick-input-list .monaco-list-row');
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await waitForWelcome(workbench, false);
		try {
			// The connection is cut on every agents listing and on the gateway host key.
			assert.equal(
				(
					await faults([
						{ method: 'GET', route: '/v2/agents', close_connection: true },
						{ method: 'GET', route: '/v2/ssh-host-key', close_connection: true },
					])
				).status,
				200,
			);
			await page.waitForTimeout(TOAST_SPAM_WINDOW_MS + 200);
			await workbench.runCommand('Cloud Agents: Send Prompt');
			const failure = rows.filter({ hasText: 'Cannot reach the Cloud Agents service' }).first();
			await failure.waitFor({ state: 'visible', timeout: 30_000 });
			const shown = (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
			note(`the pick: ${JSON.stringify(shown)}`);
			assert.equal(shown.length, 3, JSON.stringify(shown));
			assert.ok(shown[1]?.startsWith('Retry') && shown[2]?.startsWith('Configure API URL'), JSON.stringify(shown));
			const toasts = await workbench.notifications();
			assert.ok(!toasts.some((t) => /Connection|Network error/.test(t)), `no bare error besides the pick: ${JSON.stringify(toasts)}`);
			await workbench.screenshot('send-prompt-unreachable');

			// The service answers again: Retry fills the same pick with the agents.
			assert.equal((await faults([{ method: 'GET', route: '/v2/ssh-host-key', close_connection: true }])).status, 200);
			await rows
				.filter({ hasText: /^\s*Retry/ })
				.first()
				.click();
			await rows.filter({ hasText: 'Docs writer' }).first().waitFor({ state: 'visible', timeout: 30_000 });
			note('Retry listed the agents in the same pick');
			await page.keyboard.press('Escape');

			// Another command without an answer: the error carries Retry and Configure API URL; Retry runs it again.
			await workbench.runCommand('Notifications: Clear All Notifications');
			await page.waitForTimeout(TOAST_SPAM_WINDOW_MS + 200);
			await workbench.runCommand('Cloud Agents: Show Gateway Host Key');
			const toast = page
				.locator('.notifications-toasts .notification-list-item', { hasText: 'Cannot reach the Cloud Agents service' })
				.first();
			await toast.waitFor({ state: 'visible', timeout: 30_000 });
			const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
			note(`Show Gateway Host Key: ${(await toast.innerText()).replace(/\s+/g, ' ').trim()}`);
			assert.ok(buttons.includes('Retry') && buttons.includes('Configure API URL'), JSON.stringify(buttons));
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
			await toast.locator('.monaco-button', { hasText: 'Retry' }).click();
			await page
				.locator('.tabs-container .tab', { hasText: 'SSH Gateway Host Key' })
				.first()
				.waitFor({ state: 'visible', timeout: 20_000 });
			note('Retry ran Show Gateway Host Key again');
		} finally {
			await fetch(`${emulatorUrl}/_emulator/faults`, { method: 'DELETE' });
			await page.keyboard.press('Escape');
			await workbench.runCommand('View: Close All Editors').catch(() => undefined);
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
		}
	},
};

export default uiTest;
