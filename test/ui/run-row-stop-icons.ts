import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { advanceClock, createIdleAgent, emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface RunBody {
	id: string;
	status: string;
}

/**
 * Issue 20 (11): "Two identical stop icons on a running run (Stop Following, Cancel Run), and a
 * confirmation with 'Cancel' next to 'Cancel Run'." A followed running run's row shows its two
 * inline buttons with different icons, and Cancel Run's confirmation has no bare "Cancel": its
 * dismiss button says "Keep Running", and choosing it leaves the run running.
 */
const uiTest: UiTest = {
	title: 'a followed running run shows Cancel Run and Stop Following with different icons, and the confirmation dismisses with "Keep Running"',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
			emulatorCall<T>(emulatorUrl, devToken, method, path, body);
		const name = `Stop icons ${Date.now()}`;
		const runtimeIds = async (): Promise<string[]> =>
			(await call<{ runtimes: Array<{ id: string }> }>('GET', '/_emulator/state')).runtimes.map((r) => r.id);
		const runtimesBefore = new Set(await runtimeIds());
		const agent = await createIdleAgent(emulatorUrl, devToken, name);
		const enc = encodeURIComponent(agent.id);
		const prompt = `Held for the icons ${Date.now()} [[hold]]`;
		const run = await call<RunBody>('POST', `/v2/agents/${enc}/runs`, { prompt });
		const statusOf = async (): Promise<string | undefined> =>
			(await call<RunBody[]>('GET', `/v2/agents/${enc}/runs?limit=100`)).find((r) => r.id === run.id)?.status;
		for (let i = 0; i < 50 && (await statusOf()) !== 'running'; i++) {
			await page.waitForTimeout(200);
		}
		const dialog = page.locator('.monaco-dialog-box', { hasText: 'Cancel the run' });
		try {
			await workbench.selectAgent(name);
			const runsPane = workbench.pane(VIEW_CONTAINER_ID, 'Runs');
			const runRow = runsPane.locator('.monaco-list-row', { hasText: 'Held for the icons' }).first();
			await runRow.waitFor({ state: 'visible', timeout: 20_000 });

			// Follow it (inline), so that the row carries both stop-looking buttons.
			await workbench.clickInlineAction(runRow, 'Follow Run');
			const stopFollowing = runRow.locator('.action-label[aria-label="Stop Following Run"]');
			const cancel = runRow.locator('.action-label[aria-label="Cancel Run"]');
			for (let i = 0; i < 100 && !(await stopFollowing.count()); i++) {
				await runRow.hover();
				await page.waitForTimeout(200);
			}
			await runRow.hover();
			const iconOf = async (button: typeof cancel): Promise<string> =>
				((await button.getAttribute('class')) ?? '')
					.split(/\s+/)
					.filter((c) => c.startsWith('codicon-') && c !== 'codicon-modifier-spin')
					.join(' ');
			const cancelIcon = await iconOf(cancel);
			const stopIcon = await iconOf(stopFollowing);
			note(`inline icons: Cancel Run ${cancelIcon}, Stop Following Run ${stopIcon}`);
			assert.ok(cancelIcon !== '' && stopIcon !== '', 'both buttons show an icon');
			assert.notEqual(cancelIcon, stopIcon, 'Cancel Run and Stop Following Run look different');
			await workbench.screenshot('run-row-stop-icons');

			// Cancel Run asks; the dismiss button is not a bare "Cancel" beside "Cancel Run".
			await cancel.click();
			await dialog.waitFor({ state: 'visible', timeout: 10_000 });
			const buttons = (await dialog.locator('.dialog-buttons .monaco-button').allInnerTexts()).map((t) => t.trim());
			note(`confirmation buttons: ${JSON.stringify(buttons)}`);
			assert.ok(buttons.includes('Cancel Run'), JSON.stringify(buttons));
			assert.ok(buttons.includes('Keep Running'), JSON.stringify(buttons));
			assert.ok(!buttons.includes('Cancel'), `a bare "Cancel" beside "Cancel Run": ${JSON.stringify(buttons)}`);
			await dialog.getByRole('button', { name: 'Keep Running', exact: true }).click();
			await dialog.waitFor({ state: 'hidden', timeout: 5_000 });
			await page.waitForTimeout(1_000);
			assert.equal(await statusOf(), 'running', '"Keep Running" leaves the run running');

			// Stop following it again (the window as found).
			await runRow.hover();
			await stopFollowing.click();
		} finally {
			if (await dialog.isVisible().catch(() => false)) {
				await page.keyboard.press('Escape');
			}
			await call('DELETE', `/v2/agents/${enc}/runs/${encodeURIComponent(run.id)}`).catch(() => undefined);
			for (let i = 0; i < 50 && (await statusOf().catch(() => 'cancelled')) !== 'cancelled'; i++) {
				await page.waitForTimeout(200);
			}
			await page.waitForTimeout(500);
			await call('DELETE', `/v2/agents/${enc}?delete_runtime=true`).catch(() => undefined);
			// The agent's runtime is deleted on the emulator's clock: moved on until it is gone, so the next
			// test's Runtimes view is the seed's (a deleting runtime keeps the view refreshing its rows, and a
			// test that holds the clock kept it deleting: runtimes-resume then could not hover its row).
			for (let i = 0; i < 20 && (await runtimeIds()).some((id) => !runtimesBefore.has(id)); i++) {
				await advanceClock(emulatorUrl, devToken, 10);
			}
		}
	},
};

export default uiTest;
