import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { createIdleAgent, emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface RunBody {
	id: string;
	status: string;
	prompt?: string;
}

/**
 * Watches, in a page loaded while the session storage flag is set, what the Cloud Agents panes say
 * before the extension has registered their data: VS Code's "There is no data provider registered…"
 * (issue 42, item 6: ~30 s after a reload on a busy machine) or our "Starting Cloud Agents…" welcome.
 * An init script: it runs before the workbench's own scripts, in every page of the context, and does
 * nothing unless the flag is set.
 */
const WATCH_FLAG = 'cloudAgentsWatchPaneMessages';
const PANE_WATCH = `(() => {
	if (sessionStorage.getItem(${JSON.stringify(WATCH_FLAG)}) !== '1') return;
	const start = performance.now();
	const seen = { noProvider: [], starting: [], noProviderFirst: undefined, noProviderLast: undefined, startingFirst: undefined };
	globalThis.__cloudAgentsPaneMessages = seen;
	const note = (list, el) => {
		const pane = el.closest('.pane')?.querySelector('.pane-header .title')?.textContent?.trim() ?? '?';
		if (!list.includes(pane)) list.push(pane);
		const t = Math.round(performance.now() - start);
		if (list === seen.noProvider) {
			seen.noProviderFirst ??= t;
			seen.noProviderLast = t;
		} else {
			seen.startingFirst ??= t;
		}
	};
	const check = () => {
		for (const el of document.querySelectorAll('[id^="workbench.view.extension.cloudAgents"] .pane-body .message')) {
			if (el.getClientRects().length > 0 && (el.textContent ?? '').includes('There is no data provider registered')) note(seen.noProvider, el);
		}
		for (const el of document.querySelectorAll('[id^="workbench.view.extension.cloudAgents"] .pane-body .welcome-view-content')) {
			if (el.getClientRects().length > 0 && (el.textContent ?? '').includes('Starting Cloud Agents')) note(seen.starting, el);
		}
	};
	new MutationObserver(check).observe(document, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class', 'style'] });
})();`;

/**
 * Issue 33, item 6: "Reloading the window silently stops following runs: the status bar drops the
 * run; its end brings no notification and no Source Control refresh." A run followed from Send
 * Prompt (held by the emulator's `[[hold]]`) is still running when the window reloads: the new
 * window follows it again (the status bar names it, running), the Runs view lists the runs of the
 * agent selected before the reload (issue 42, item 6), and when the run ends the end-of-run
 * notification appears, once.
 */
const uiTest: UiTest = {
	title: 'a run followed when the window reloads is followed again: the status bar shows it, and its end is announced once',
	async run({ page, workbench, emulatorUrl, devToken, note, leavePage }) {
		const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
			emulatorCall<T>(emulatorUrl, devToken, method, path, body);
		// Short: the status bar cuts a run's name at 48 characters, and this test finds it by the agent's.
		const name = `Reloaded ${Date.now() % 1_000_000}`;
		const agent = await createIdleAgent(emulatorUrl, devToken, name);
		const enc = encodeURIComponent(agent.id);
		const statusOf = async (runId: string): Promise<string | undefined> =>
			(await call<RunBody[]>('GET', `/v2/agents/${enc}/runs?limit=100`)).find((r) => r.id === runId)?.status;
		const prompt = `Outlives a reload ${Date.now()} [[hold]]`;
		let runId: string | undefined;
		const item = page.locator('.statusbar-item', { hasText: `${name}: Outlives a reload` }).first();
		const toasts = page.locator('.notifications-toasts .notification-list-item', { hasText: name });
		try {
			// Send Prompt from the agent's row: the new run is followed (status bar and channel).
			const row = await workbench.selectAgent(name);
			await workbench.clickInlineAction(row, 'Send Prompt…');
			await page
				.locator('.quick-input-widget .quick-input-title', { hasText: `Send Prompt to ${name}` })
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });
			await page.locator('.quick-input-widget input').fill(prompt);
			await page.keyboard.press('Enter');
			for (let i = 0; i < 50 && runId === undefined; i++) {
				runId = (await call<RunBody[]>('GET', `/v2/agents/${enc}/runs?limit=100`)).find((r) => r.prompt === prompt)?.id;
				if (runId === undefined) {
					await page.waitForTimeout(200);
				}
			}
			assert.ok(runId, 'Send Prompt created the run');
			await item.waitFor({ state: 'visible', timeout: 20_000 });
			await item.filter({ hasText: 'running' }).waitFor({ state: 'visible', timeout: 20_000 });
			note(`before the reload: ${(await item.innerText()).trim()}`);

			// "Developer: Reload Window", as a person would: the run is still running (held). The new page
			// watches what the panes say until the extension has registered their data (PANE_WATCH).
			await page.context().addInitScript({ content: PANE_WATCH });
			await page.evaluate(`sessionStorage.setItem(${JSON.stringify(WATCH_FLAG)}, '1')`);
			// Tabs an earlier test of this window left go first: VS Code's own Markdown preview fails to
			// restore itself after a reload (an error in the console that names no extension).
			await workbench.runCommand('View: Close All Editors');
			await leavePage(() => workbench.runCommand('Developer: Reload Window'));
			await item
				.filter({ hasText: 'running' })
				.waitFor({ state: 'visible', timeout: 60_000 })
				.catch(async () => {
					const bar = (await page.locator('.statusbar-item').allInnerTexts()).map((t) => t.trim()).filter((t) => t !== '');
					assert.fail(`after the reload the status bar does not show the run: ${JSON.stringify(bar)}`);
				});
			note(`after the reload: ${(await item.innerText()).trim()}`);
			assert.equal(await toasts.count(), 0, 'no end-of-run notification while the run is running');
			// Issue 42, item 6: the agent selected before the reload is selected again (the Runs view said
			// "Select an agent"): its runs are listed without a click.
			await workbench
				.viewContainer(VIEW_CONTAINER_ID)
				.waitFor({ state: 'visible', timeout: 10_000 })
				.catch(() => note('the Cloud Agents container was not restored open; opening it'));
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			const runsPane = await workbench.expandedPane(VIEW_CONTAINER_ID, 'Runs');
			await runsPane
				.locator('.monaco-list-row', { hasText: 'Outlives a reload' })
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 })
				.catch(async () => {
					assert.fail(
						`after the reload the Runs view does not list the selected agent's run: ${JSON.stringify(await workbench.paneRows(VIEW_CONTAINER_ID, 'Runs'))}`,
					);
				});
			note('after the reload the Runs view lists the agent selected before it');
			// Issue 42, item 6: until the extension had registered its views' data, they said "There is no
			// data provider registered that can provide view data." (~30 s on a busy machine). Now they say
			// "Starting Cloud Agents…" as soon as VS Code has read the extension's contributions; before that
			// (the panes are restored from VS Code's cache first) VS Code's message can show, never after.
			interface PaneMessages {
				noProvider: string[];
				starting: string[];
				noProviderFirst?: number;
				noProviderLast?: number;
				startingFirst?: number;
			}
			const paneMessages = await page.evaluate<PaneMessages | null>(
				'JSON.parse(JSON.stringify(globalThis.__cloudAgentsPaneMessages ?? null))',
			);
			await page.evaluate(`sessionStorage.removeItem(${JSON.stringify(WATCH_FLAG)})`);
			assert.ok(paneMessages, 'the page after the reload watched its panes');
			note(`before the views had their data (ms after the page began): ${JSON.stringify(paneMessages)}`);
			if (paneMessages.startingFirst !== undefined && paneMessages.noProviderLast !== undefined) {
				assert.ok(
					paneMessages.noProviderLast <= paneMessages.startingFirst,
					`"There is no data provider registered…" after "Starting Cloud Agents…": ${JSON.stringify(paneMessages)}`,
				);
			}

			// The run ends (cancelled through the API, as another client would): the followed run's end
			// reaches this window, in the status bar and in one notification.
			await call('DELETE', `/v2/agents/${enc}/runs/${encodeURIComponent(runId)}`);
			await toasts
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 })
				.catch(async () => {
					assert.fail(`no end-of-run notification after the reload; shown: ${JSON.stringify(await workbench.notifications())}`);
				});
			const text = (await toasts.first().innerText()).replace(/\s+/g, ' ').trim();
			note(`notification: ${text}`);
			assert.match(text, /Outlives a reload.*cancelled/);
			await item.filter({ hasText: 'cancelled' }).waitFor({ state: 'visible', timeout: 10_000 });
			assert.equal(await toasts.count(), 1, 'the end is announced once');
		} finally {
			await workbench.dismissDialogs();
			if (runId !== undefined && (await statusOf(runId).catch(() => 'cancelled')) !== 'cancelled') {
				await call('DELETE', `/v2/agents/${enc}/runs/${encodeURIComponent(runId)}`).catch(() => undefined);
				for (let i = 0; i < 50 && (await statusOf(runId).catch(() => 'cancelled')) !== 'cancelled'; i++) {
					await page.waitForTimeout(200);
				}
			}
			// Deleting the agent while its run is still followed would (rightly) report an error: the
			// follower sees the end first (the status bar says so).
			await item
				.filter({ hasText: 'cancelled' })
				.waitFor({ state: 'visible', timeout: 10_000 })
				.catch(() => undefined);
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
			await call('DELETE', `/v2/agents/${enc}?delete_runtime=true`).catch(() => undefined);
		}
	},
};

export default uiTest;
