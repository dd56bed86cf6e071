import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { startOutage } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

/**
 * Issue 33: a pending first request is not an empty account. With the service holding every request
 * (the emulator's `stall` outage) a window reload, then the Runtimes view opened: while its first
 * read waits it says it is loading, never "No runtimes yet." (it said that for a minute), and after a
 * few seconds without an answer that it is waiting for the service (issue 42, item 4: only a progress
 * bar for two minutes). Once the service answers again, the view lists the runtimes by itself.
 */
const uiTest: UiTest = {
	title: 'a first read that waits: the Runtimes view says it is loading, not "No runtimes yet.", then that it waits for the service, and lists the runtimes once the service answers',
	async run({ workbench, emulatorUrl, devToken, note, leavePage }) {
		// A runtime of the demo seed (one another test made in this emulator may be gone by now, or
		// listed further down the view).
		const listed = await fetch(`${emulatorUrl}/v2/runtimes?limit=100`, { headers: { authorization: `Bearer ${devToken}` } });
		const body = (await listed.json()) as { runtimes?: Array<{ display_name?: string }>; data?: Array<{ display_name?: string }> };
		const name = (body.runtimes ?? body.data ?? []).find((r) => r.display_name === 'atlas-dev')?.display_name;
		assert.ok(name, 'the emulator has the demo runtime atlas-dev');

		const stall = await startOutage(emulatorUrl, 'stall', 120);
		try {
			// A new extension host: nothing read yet (the Runtimes view keeps no rows as last loaded).
			await workbench.runCommand('View: Close All Editors');
			await leavePage(() => workbench.runCommand('Developer: Reload Window'));
			await workbench.ready();
			// The side bar comes back as it was before the reload, possibly after ready(): a click on the
			// activity bar while it is still coming back would close the container it restores.
			await workbench
				.viewContainer(VIEW_CONTAINER_ID)
				.waitFor({ state: 'visible', timeout: 10_000 })
				.catch(() => note('the Cloud Agents container was not restored open; opening it'));
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			await workbench.expandedPane(VIEW_CONTAINER_ID, 'Runtimes');
			const seen: string[][] = [];
			const deadline = Date.now() + 30_000;
			for (;;) {
				const welcome = await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Runtimes');
				seen.push(welcome);
				assert.ok(!welcome.includes('No runtimes yet.'), `while the first read waits: ${JSON.stringify(welcome)}`);
				if (welcome.some((line) => line.startsWith('Loading runtimes: still waiting for the service to answer.'))) {
					break;
				}
				assert.ok(Date.now() < deadline, `not "still waiting for the service" within 30 s; seen ${JSON.stringify(seen.slice(-3))}`);
				await new Promise((resolve) => setTimeout(resolve, 250));
			}
			note(`Runtimes while the first read waits: ${JSON.stringify(seen.at(-1))}`);
			await workbench.screenshot('views-first-load');
		} finally {
			await stall.end();
		}
		const pane = workbench.pane(VIEW_CONTAINER_ID, 'Runtimes');
		// Listed once the service answers (its first row), then the demo's runtime scrolled into view.
		await pane.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 120_000 });
		await workbench.revealRow(pane, pane.locator('.monaco-list-row', { hasText: name }).first(), 120_000);
		const welcome = await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Runtimes');
		assert.deepEqual(welcome, [], 'no welcome text once the runtimes are listed');
	},
};

export default uiTest;
