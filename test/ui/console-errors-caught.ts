import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import type { UiTest } from './support/workbench';

const FAULTS = '/_emulator/faults';

async function emulator(emulatorUrl: string, method: 'PUT' | 'DELETE', body?: unknown): Promise<void> {
	const res = await fetch(`${emulatorUrl}${FAULTS}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	await res.arrayBuffer();
	assert.equal(res.status, 200, `${method} ${FAULTS} answered ${res.status}`);
}

/**
 * Self-check of the run's console-error check (scripts/lib/consoleErrors.mjs): makes one of our
 * commands fail for real from the palette (the emulator answers 400 to the agent list behind "Open
 * Agent Workspace"), so our extension logs the failure in its log channel and shows an error
 * notification (a console error in the workbench). The test declares both; the check fails the run
 * if it does not see each of them, so a collection that silently sees nothing cannot pass.
 */
const uiTest: UiTest = {
	title: 'the console-error check sees an error our extension logs and shows (a command failing on a 400)',
	async run({ workbench, emulatorUrl, note, expectConsoleError }) {
		expectConsoleError(
			/cloudAgents\.agents\.openWorkspace failed:[^]*injected fault: 400 for GET \/v2\/agents/,
			'our log channel records the failed command',
		);
		expectConsoleError(/^injected fault: 400 for GET \/v2\/agents/, 'the error notification our command shows');
		// Opening the view activates the extension (also when this test runs alone, --grep): signed
		// in with the dev token, the Agents view lists agents and the palette offers the command.
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await workbench
			.pane(VIEW_CONTAINER_ID, 'Agents')
			.locator('.monaco-list-row')
			.first()
			.waitFor({ state: 'visible', timeout: 30_000 });
		await emulator(emulatorUrl, 'PUT', { rules: [{ method: 'GET', route: '/v2/agents', status: 400 }] });
		try {
			await workbench.runCommand('Cloud Agents: Open Agent Workspace');
			const toast = workbench.page.locator('.notifications-toasts .notification-list-item-message', {
				hasText: 'injected fault: 400',
			});
			await toast.first().waitFor({ state: 'visible', timeout: 30_000 });
			note(`error notification: ${(await toast.first().innerText()).slice(0, 120)}`);
		} finally {
			await emulator(emulatorUrl, 'DELETE');
			await workbench.dismissDialogs();
		}
		// Restore what the fault changed: the views that listed during it show "Could not load" (a 400
		// is not retried by itself). Without this the next test found no agent rows (seen with the
		// tests in reverse order, when "computer" came next).
		await workbench.runCommand('Cloud Agents: Refresh');
		for (const title of ['Agents', 'Runs', 'Artifacts']) {
			await workbench
				.pane(VIEW_CONTAINER_ID, title)
				.locator('.monaco-list-row', { hasText: 'Could not load' })
				.first()
				.waitFor({ state: 'hidden', timeout: 30_000 });
		}
		assert.ok(
			(await workbench.paneRows(VIEW_CONTAINER_ID, 'Agents')).length > 0,
			'the Agents view lists agents again once the fault is gone',
		);
		// Hide the toast (Escape = notifications.hideToasts) so it covers nothing in later tests; it
		// stays in the notification center.
		await workbench.page.keyboard.press('Escape');
		await workbench.page
			.locator('.notifications-toasts .notification-list-item-message', { hasText: 'injected fault: 400' })
			.first()
			.waitFor({ state: 'hidden', timeout: 5_000 })
			.catch(() => undefined);
	},
};

export default uiTest;
