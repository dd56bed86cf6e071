import * as assert from 'node:assert/strict';
import { advanceClock, emulatorCall, holdClock } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface RuntimeBody {
	id: string;
	display_name: string;
	status: string;
	revision: number;
}

/**
 * Issue 12, item 11: "Resume Runtime gives no feedback". From a paused runtime's row (inline button),
 * the user sees a progress notification that names the runtime, and the row follows the runtime to
 * "running" without a manual refresh; the emulator's runtime was resumed once. Issue 20, item 8: the
 * "is resuming" notification closes when the row says running (none is left in the notification centre).
 */
const uiTest: UiTest = {
	title: 'Resume Runtime from a row: a notification names the runtime while it resumes, the row moves to running by itself and the notification closes then',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
			emulatorCall<T>(emulatorUrl, devToken, method, path, body);
		const runtimes = async (): Promise<RuntimeBody[]> => (await call<{ runtimes: RuntimeBody[] }>('GET', '/_emulator/state')).runtimes;
		let target = (await runtimes()).find((r) => r.status === 'paused' || r.status === 'suspended');
		if (!target) {
			// The in-host suites resumed the seed's paused runtimes: start again from the demo seed.
			await call('POST', '/_emulator/reset', { seed: 'demo' });
			target = (await runtimes()).find((r) => r.status === 'paused' || r.status === 'suspended');
			note('emulator reset to the demo seed (the in-host suites had resumed its paused runtimes)');
		}
		assert.ok(target, 'the demo seed has a paused or suspended runtime');
		const name = target.display_name;

		// The runtime is running 2 s of the emulator clock after the resume, and the notification closes
		// then: the clock is held until the test has seen the notification and the resume's revision
		// (under load the runtime could be running, and the notification gone, before the first look),
		// then moved on.
		const releaseClock = await holdClock(emulatorUrl, devToken);
		try {
			await workbench.openViewContainer('Cloud Agents', 'cloudAgents');
			const pane = await workbench.expandedPane('cloudAgents', 'Runtimes');
			const header = pane.locator('.pane-header');
			// The view's own Refresh (title bar): it may have loaded before the reset.
			await header.hover();
			await header.locator('.action-label[aria-label="Refresh Runtimes"]').click();
			const row = pane.locator('.monaco-list-row', { hasText: name }).first();
			await row.waitFor({ state: 'visible', timeout: 30_000 });
			const rowWith = (status: string): string =>
				`[...document.querySelectorAll('.monaco-list-row')].some((r) => r.textContent.includes(${JSON.stringify(name)}) && /${status}/i.test(r.textContent))`;
			await page.waitForFunction(rowWith(target.status), undefined, { timeout: 30_000 });
			await workbench.clickInlineAction(row, 'Resume Runtime');

			const toast = page
				.locator('.notifications-toasts .notification-list-item-message', { hasText: `The runtime ${name} is resuming` })
				.first();
			await toast.waitFor({ state: 'visible', timeout: 20_000 });
			note(`notification: ${(await toast.innerText()).trim()}`);
			const after = (await runtimes()).find((r) => r.id === target.id);
			assert.equal(after?.revision, target.revision + 1, 'the emulator resumed the runtime once');
			// The read is done: the runtime may move on (2 s of the emulator clock).
			await advanceClock(emulatorUrl, devToken, 3);

			// The row keeps refreshing while the runtime moves, and ends on "running" without a Refresh.
			await page.waitForFunction(rowWith('running'), undefined, { timeout: 45_000 });
			await workbench.screenshot('runtime-resumed');
			// The message ends with the transition (issue 20, item 8): once the row says running, "is
			// resuming" leaves the toasts and is not kept in the notification centre either.
			await toast.waitFor({ state: 'detached', timeout: 10_000 });
			await workbench.runCommand('Notifications: Show Notifications');
			const centre = page.locator('.notifications-center');
			await centre.waitFor({ state: 'visible', timeout: 10_000 });
			const kept = await centre.locator('.notification-list-item-message').allInnerTexts();
			note(`notification centre: ${JSON.stringify(kept)}`);
			await workbench.runCommand('Notifications: Hide Notifications');
			await centre.waitFor({ state: 'hidden', timeout: 10_000 });
			assert.ok(
				!kept.some((t) => t.includes(`The runtime ${name} is resuming`)),
				'no "is resuming" message once the row says running',
			);
		} finally {
			await releaseClock();
		}
	},
};

export default uiTest;
