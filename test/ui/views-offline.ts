import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { startOutage } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

/**
 * Issue 22: with the service refusing every connection (the emulator's outage switch), the Agents
 * view keeps its rows under "Offline — retrying in N s" and the status bar says "Cloud Agents:
 * reconnecting"; once the service is back, clicking the offline row (Retry Now) brings the rows back
 * and the status bar item goes away.
 */
const uiTest: UiTest = {
	title: 'Views while the service is unreachable: the offline row above the kept rows, "reconnecting" in the status bar, a click on the row retries',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const res = await fetch(`${emulatorUrl}/v2/agents?limit=1`, { headers: { authorization: `Bearer ${devToken}` } });
		const body = (await res.json()) as { agents?: Array<{ name: string }>; data?: Array<{ name: string }> };
		const first = (body.agents ?? body.data ?? [])[0]?.name;
		assert.ok(first, 'the emulator has an agent');
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		const agents = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
		await workbench.runCommand('Cloud Agents: Refresh Agents');
		await agents.locator('.monaco-list-row', { hasText: first }).first().waitFor({ state: 'visible', timeout: 30_000 });

		const outage = await startOutage(emulatorUrl, 'refuse', 60);
		const reconnecting = page.locator('.statusbar-item', { hasText: 'Cloud Agents: reconnecting' }).first();
		try {
			await workbench.runCommand('Cloud Agents: Refresh Agents');
			const offline = agents.locator('.monaco-list-row', { hasText: /Offline — retrying/ }).first();
			await offline.waitFor({ state: 'visible', timeout: 30_000 });
			const rows = await workbench.paneRows(VIEW_CONTAINER_ID, 'Agents');
			note(`Agents during the outage: ${JSON.stringify(rows.slice(0, 3))}`);
			assert.match(rows[0] ?? '', /^Offline — retrying (in \d+ s|now…)/, 'the offline row is first');
			assert.ok(
				rows.some((r) => r.startsWith(first)),
				`the agent rows are kept: ${JSON.stringify(rows)}`,
			);
			await reconnecting.waitFor({ state: 'visible', timeout: 10_000 });
			await workbench.screenshot('views-offline');

			await outage.end();
			await offline.click();
			await offline.waitFor({ state: 'detached', timeout: 20_000 });
			await reconnecting.waitFor({ state: 'hidden', timeout: 20_000 });
			assert.ok((await workbench.paneRows(VIEW_CONTAINER_ID, 'Agents')).some((r) => r.startsWith(first)));
			note('after the click: the rows without the offline row, no status bar item');
		} finally {
			await outage.end();
		}
	},
};

export default uiTest;
