import * as assert from 'node:assert/strict';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface RuntimeBody {
	id: string;
	display_name: string;
}

/**
 * Copy Runtime ID (the README's example of adding an action: one entry in src/resources/runtimes.ts
 * plus its package.json lines) from a runtime row's context menu puts that runtime's id on the
 * clipboard. A UI test because the clipboard of code-server is the browser's, which only a page the
 * test granted the permission to answers.
 */
const uiTest: UiTest = {
	title: "Copy Runtime ID from a runtime row's context menu puts its id on the clipboard [variant]",
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const { runtimes } = await emulatorCall<{ runtimes: RuntimeBody[] }>(emulatorUrl, devToken, 'GET', '/_emulator/state');
		const target = runtimes.find((r) => r.display_name);
		assert.ok(target, 'the seed has a named runtime');
		await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(page.url()).origin });
		await page.bringToFront();
		await workbench.dismissDialogs();

		// No editor open: the row's click below opens the runtime's details, and its tab is how the test
		// knows that open is over.
		await workbench.runCommand('View: Close All Editors');
		await workbench.openViewContainer('Cloud Agents', 'cloudAgents');
		const pane = await workbench.expandedPane('cloudAgents', 'Runtimes');
		// Read again: the view may hold rows read before an earlier test removed what it made (a runtime
		// listed above the demo's pushed the target out of the pane).
		await workbench.runCommand('Cloud Agents: Refresh Runtimes');
		// The answer's row, not the row as last loaded ("cached ·"), which the answer replaces under a click.
		const row = pane.locator('.monaco-list-row', { hasText: target.display_name }).filter({ hasNotText: 'cached' }).first();
		await workbench.revealRow(pane, row);
		// A click on the row gives the page the focus the browser's clipboard wants (a test before this
		// one may have left it in a webview or the palette); then a value that is not the id.
		// The click's default action reads the runtime again and opens its details in an editor, which
		// takes the focus when it opens; a context menu open at that moment closes. The project's CI
		// failed so on a busy machine, waiting for "Copy Runtime ID": here the read is slowed down so that
		// the details always open late, and the test waits until they are shown.
		await emulatorCall(emulatorUrl, devToken, 'PUT', '/_emulator/faults', {
			rules: [{ method: 'GET', route: '/v2/runtimes', latency_ms: 1500 }],
		});
		try {
			await row.click();
			await page
				.locator('.tabs-container .tab.active', { hasText: `Runtime ${target.display_name}` })
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 });
		} finally {
			await emulatorCall(emulatorUrl, devToken, 'DELETE', '/_emulator/faults');
		}
		await page.waitForFunction(`document.hasFocus()`, undefined, { timeout: 10_000 });
		await page.evaluate(`navigator.clipboard.writeText('before')`);
		await workbench.runContextMenuItem(row, 'Copy Runtime ID');
		await page.waitForFunction(`navigator.clipboard.readText().then((t) => t === ${JSON.stringify(target.id)})`, undefined, {
			timeout: 15_000,
			polling: 250,
		});
		note(`copied ${target.id} (${target.display_name})`);
	},
};

export default uiTest;
