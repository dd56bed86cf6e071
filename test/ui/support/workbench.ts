import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { EmulatorProfile } from '../../integration/support/profile';

/** CLOUD_AGENTS_TEST_SLOWDOWN: the harness's factor for every ceiling on a slow machine (1 by default). */
export const SLOWDOWN = Math.max(1, Number(process.env.CLOUD_AGENTS_TEST_SLOWDOWN ?? 1) || 1);

/** What the driver hands each UI test. */
export interface UiContext {
	/** The workbench page, already loaded (the in-host suites have finished). */
	page: Page;
	/** The page object for that page. */
	workbench: Workbench;
	/** Base URL of the emulator, no trailing slash. */
	emulatorUrl: string;
	/**
	 * Base URL of the lane's second emulator (same profile and demo seed as the first, so the same
	 * agent ids; no trailing slash): set for a test that declares `secondEmulator: true` only. It
	 * takes the same dev token; nothing points the extension at it until the test does.
	 */
	secondEmulatorUrl?: string;
	/** The emulator's dev token. */
	devToken: string;
	/**
	 * Where the extension sends GitHub lookups (CLOUD_AGENTS_GITHUB_API_URL, a loopback URL): nothing
	 * listens there unless a test serves its stub GitHub on that port while it runs.
	 */
	githubStubUrl: string;
	/** The user-data folder of this lane's code-server (its `User/settings.json` is the workbench's user settings). */
	userDataDir: string;
	/** The emulator profile of this pass (test/integration/support/profile.ts has its words). */
	emulatorProfile: EmulatorProfile;
	/** Folder for screenshots (test-results/screenshots/, git-ignored). */
	screenshotDir: string;
	/** Adds a line the driver prints under the test's result (what the test saw). */
	note: (line: string) => void;
	/**
	 * Declares an error this test provokes on purpose, so the run's console-error check
	 * (scripts/lib/consoleErrors.mjs) lets it through; the check fails if it never sees it.
	 */
	expectConsoleError: (pattern: RegExp, why: string) => void;
	/**
	 * Navigates the page to `to` (a URL, or an action after which the workbench reloads itself and
	 * has loaded again) and waits for the workbench. Use it rather than `page.goto`: the reads the old
	 * page had pending are cancelled as it unloads, and the console check judges what the workbench
	 * logs for them apart (scripts/lib/consoleErrors.mjs `UNLOAD_CANCEL`).
	 */
	leavePage: (to: string | (() => Promise<void>)) => Promise<void>;
}

/** A UI test file's default export. */
export interface UiTest {
	title: string;
	/**
	 * True when the test needs a second emulator (a second deployment, issue 47): the driver starts
	 * one for the lane before the first such test and hands its URL in `secondEmulatorUrl`. Lanes
	 * whose tests do not ask start none (an emulator's start is time every lane would pay).
	 */
	secondEmulator?: boolean;
	run(ctx: UiContext): Promise<void>;
}

/** An editor tab with unsaved changes. */
const DIRTY_TAB = '.tabs-container .tab.dirty';

/** A tab's label as read from the page (its text on one line). */
const tabLabel = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** The first line of an error's message (Playwright's add a call log). */
const firstLine = (err: unknown): string => (err instanceof Error ? err.message : String(err)).split('\n')[0]!.trim();

/**
 * Page object for the VS Code workbench served by code-server. Selectors are the ones verified in
 * docs (vscode-web-testing.md): activity-bar entries by aria-label, tree rows as `.monaco-list-row`.
 */
export class Workbench {
	constructor(
		readonly page: Page,
		private readonly screenshotDir: string,
	) {}

	/** Waits until the workbench has rendered its activity bar. */
	async ready(timeoutMs = 60_000): Promise<void> {
		await this.page.locator('.monaco-workbench .activitybar').waitFor({ state: 'visible', timeout: timeoutMs });
	}

	/**
	 * Closes modal dialogs and the quick input left open by earlier tests (a modal blocks every
	 * click). The driver calls it before each UI test.
	 */
	async dismissDialogs(): Promise<void> {
		// Keys typed while a webview (an iframe) has focus go to its page, not to the workbench: give
		// the focus back to the workbench first (a test that failed inside a panel leaves it there).
		await this.page.evaluate('document.activeElement instanceof HTMLIFrameElement && document.activeElement.blur()');
		for (let i = 0; i < 5; i++) {
			const blocking = this.page.locator(
				'.monaco-dialog-modal-block, .quick-input-widget:visible, .context-view.monaco-menu-container',
			);
			if ((await blocking.count()) === 0) {
				return;
			}
			await this.page.keyboard.press('Escape');
			await this.page.waitForTimeout(200);
		}
	}

	/** The labels of the editor tabs with unsaved changes. */
	async dirtyEditors(): Promise<string[]> {
		return (await this.page.locator(DIRTY_TAB).allTextContents()).map(tabLabel);
	}

	/**
	 * Reverts and closes every editor with unsaved changes, one at a time (a tab left dirty is
	 * backed up and restored into the next window that opens the same folder, where a later save
	 * meets "File Modified Since"). Rejects if one stays dirty.
	 */
	async revertDirtyEditors(): Promise<void> {
		for (let i = 0; i < 10; i++) {
			const before = (await this.dirtyEditors()).length;
			if (before === 0) {
				return;
			}
			await this.dismissDialogs();
			await this.page.locator(DIRTY_TAB).first().click();
			await this.runCommand('View: Revert and Close Editor');
			await this.page
				.waitForFunction(`document.querySelectorAll(${JSON.stringify(DIRTY_TAB)}).length < ${before}`, undefined, {
					timeout: 10_000,
				})
				.catch(() => undefined);
		}
		const left = await this.dirtyEditors();
		if (left.length > 0) {
			throw new Error(`editors still unsaved after reverting: ${JSON.stringify(left)}`);
		}
	}

	/**
	 * Hovers `row` and clicks its inline action `label` (shown only while the row is hovered). A list
	 * that refreshes meanwhile may move the row from under the mouse (a new row above it), hiding its
	 * actions again and showing the hover card of the row now under the mouse: the mouse leaves the
	 * list and the row is hovered anew until the click lands or `timeoutMs` passes. A click that
	 * Playwright had begun to perform when its time ran out (its call log says "performing click
	 * action") is not made again: on a slow page it may have landed (CI, 2026-12-05: Apply to Local ran,
	 * its row left the list, and the retries waited 30 s for the row). What the action does is for the
	 * caller to check.
	 */
	async clickInlineAction(row: Locator, label: string, timeoutMs = 30_000): Promise<void> {
		const action = row.locator(`.action-label[aria-label="${label}"]`).first();
		const deadline = Date.now() + timeoutMs;
		const left = (most: number): number => Math.max(1, Math.min(most, deadline - Date.now()));
		const attempts: string[] = [];
		for (;;) {
			try {
				await row.hover({ timeout: left(5_000) });
				await action.click({ timeout: left(2_000) });
				return;
			} catch (err) {
				const message = err instanceof Error ? err.message : String(err);
				if (message.includes('performing click action')) {
					return;
				}
				attempts.push(firstLine(err));
				if (Date.now() >= deadline) {
					throw new Error(
						`the inline action "${label}" took no click in ${timeoutMs} ms; ${await row.count()} such row(s) now; attempts: ${attempts.join(' | ')}`,
						{ cause: err },
					);
				}
				// The row that moved under the mouse shows its hover card, which can cover this row
				// (Playwright then waits for a row that never receives the pointer): the mouse leaves
				// the list so the card closes before the row is hovered again.
				await this.page.mouse.move(0, 0);
			}
		}
	}

	/**
	 * "Send Prompt" from the palette with `agentName` selected in the Agents view: its agent pick lists
	 * the selected agent first, and Enter takes it. Resolves when the prompt box for that agent shows.
	 */
	async openPromptBoxForSelected(agentName: string): Promise<void> {
		await this.runCommand('Cloud Agents: Send Prompt');
		await this.page.locator('.quick-input-list .monaco-list-row').first().waitFor({ state: 'visible', timeout: 20_000 });
		await this.page.waitForFunction(
			`!!document.querySelector('.quick-input-list .monaco-list-row')?.textContent?.includes(${JSON.stringify(agentName)})`,
			undefined,
			{ timeout: 20_000 },
		);
		await this.page.keyboard.press('Enter');
		await this.page
			.locator('.quick-input-widget .quick-input-title')
			.filter({ hasText: `Send Prompt to ${agentName}` })
			.first()
			.waitFor({ state: 'visible', timeout: 10_000 });
	}

	/** The activity-bar entry of a view container, by its title. */
	activityBarItem(title: string): Locator {
		// The item, not its icon: the badge (Activity's unread count) lies over the icon and takes its clicks.
		return this.page.locator(`.activitybar .action-item:has(> .action-label[aria-label^="${title}"])`).first();
	}

	/** Opens a contributed view container from the activity bar; returns its side-bar pane. */
	async openViewContainer(title: string, containerId: string): Promise<Locator> {
		const container = this.viewContainer(containerId);
		if (!(await container.isVisible())) {
			await this.activityBarItem(title).click();
		}
		await container.waitFor({ state: 'visible', timeout: 30_000 });
		// The Account and Activity views start collapsed; a test or an in-host suite that opened one
		// leaves it open, and then the other four views share what is left of the side bar (rows scroll
		// out of view). Collapse them unless the test asks for one (expandedPane).
		if (containerId === 'cloudAgents') {
			for (const title of ['Account', 'Activity']) {
				const header = this.pane(containerId, title).locator('.pane-header');
				if ((await header.count()) > 0 && (await header.getAttribute('aria-expanded')) === 'true') {
					await header.click();
				}
			}
		}
		return container;
	}

	/** The side-bar element of `workbench.view.extension.<containerId>`. */
	viewContainer(containerId: string): Locator {
		return this.page.locator(`[id="workbench.view.extension.${containerId}"]`);
	}

	/** Titles of the view panes shown in a container (e.g. "Agents", "Runs"). */
	async paneTitles(containerId: string): Promise<string[]> {
		const titles = await this.viewContainer(containerId).locator('.pane-header h3.title').allInnerTexts();
		return titles.map((t) => t.trim());
	}

	/** The pane of one view inside the container, by its title. */
	pane(containerId: string, title: string): Locator {
		return this.viewContainer(containerId).locator('.pane', { has: this.page.locator('.pane-header h3.title', { hasText: title }) });
	}

	/** The pane of one view by its title, expanded (its header clicked when it is collapsed). */
	async expandedPane(containerId: string, title: string): Promise<Locator> {
		const pane = this.pane(containerId, title);
		const header = pane.locator('.pane-header');
		if ((await header.getAttribute('aria-expanded')) !== 'true') {
			await header.click();
		}
		return pane;
	}

	/**
	 * Scrolls the list of `pane` until `row` is in view (bounded): a list draws only the rows in view,
	 * and a pane made small by an earlier test's layout may hold the row below its end.
	 */
	async revealRow(pane: Locator, row: Locator, timeoutMs = 30_000): Promise<void> {
		for (let i = 0; i < 20 && !(await row.isVisible()); i++) {
			await pane.locator('.monaco-list').first().hover();
			await this.page.mouse.wheel(0, 66);
			await row.waitFor({ state: 'visible', timeout: 500 }).catch(() => undefined);
		}
		await row.waitFor({ state: 'visible', timeout: timeoutMs });
	}

	/**
	 * The Agents view's row of the agent `name`, visible: the view loads when shown, and one loaded
	 * earlier in the run is refreshed once to list an agent a test has just made.
	 */
	async agentRow(name: string): Promise<Locator> {
		await this.openViewContainer('Cloud Agents', 'cloudAgents');
		const row = this.pane('cloudAgents', 'Agents').locator('.monaco-list-row', { hasText: name }).first();
		const shown = await row.waitFor({ state: 'visible', timeout: 5_000 }).then(
			() => true,
			() => false,
		);
		if (!shown) {
			await this.runCommand('Cloud Agents: Refresh Agents');
			await row.waitFor({ state: 'visible', timeout: 30_000 });
		}
		return row;
	}

	/**
	 * Selects the agent `name` in the Agents view and waits until the Runs view follows it (its header
	 * names the agent): a click while the tree re-renders after a refresh can land on a row being
	 * replaced, so it is clicked again until the selection took.
	 */
	async selectAgent(name: string): Promise<Locator> {
		const runsHeader = this.pane('cloudAgents', 'Runs').locator('.pane-header');
		for (let attempt = 0; ; attempt++) {
			const row = await this.agentRow(name);
			await row.click();
			const followed = await runsHeader
				.filter({ hasText: name })
				.waitFor({ state: 'visible', timeout: 5_000 })
				.then(
					() => true,
					() => false,
				);
			if (followed) {
				return row;
			}
			if (attempt >= 3) {
				throw new Error(`the Runs view did not follow the agent ${name} after ${attempt + 1} clicks`);
			}
		}
	}

	/** Inner texts of the tree rows in a container (label and description of each row). */
	async treeRows(containerId: string): Promise<string[]> {
		const rows = await this.viewContainer(containerId).locator('.monaco-list-row').allInnerTexts();
		return rows.map((r) => r.replace(/\s+/g, ' ').trim());
	}

	/** Inner texts of the tree rows of one view, by its title. */
	async paneRows(containerId: string, title: string): Promise<string[]> {
		const rows = await this.pane(containerId, title).locator('.monaco-list-row').allInnerTexts();
		return rows.map((r) => r.replace(/\s+/g, ' ').trim());
	}

	/** Texts of the welcome content (text and buttons) of one view, by its title. */
	async paneWelcome(containerId: string, title: string): Promise<string[]> {
		const parts = await this.pane(containerId, title)
			.locator('.welcome-view-content p, .welcome-view-content .monaco-button')
			.allInnerTexts();
		return parts.map((t) => t.trim()).filter((t) => t !== '');
	}

	/** Texts of the welcome content (text and buttons) shown in a container. */
	async welcomeTexts(containerId: string): Promise<string[]> {
		const parts = await this.viewContainer(containerId)
			.locator('.welcome-view-content p, .welcome-view-content .monaco-button')
			.allInnerTexts();
		return parts.map((t) => t.trim()).filter((t) => t !== '');
	}

	/** Runs a command from the palette by its "Category: Title" label. */
	async runCommand(label: string): Promise<void> {
		// The palette lists the commands known when it opens: in a window that is still reading the
		// extensions' contributions, close it and ask again (at most three times).
		// From a webview (an iframe) that has the focus, the workbench gives the focus back to it when
		// the palette closes, which can close the command's own quick pick: start from the workbench.
		await this.page.evaluate('document.activeElement instanceof HTMLIFrameElement && document.activeElement.blur()');
		const widget = this.page.locator('.quick-input-widget');
		const input = widget.locator('input');
		for (let attempt = 1; ; attempt++) {
			// Start from no quick input: F1 in a quick input that is still open (a pick an earlier step
			// closed, which its extension then hides or replaces) opens the palette in that widget, and
			// the palette went when the pick did (seen: an input "not visible" for 30 s).
			if (await widget.isVisible()) {
				await this.page.keyboard.press('Escape');
				await widget.waitFor({ state: 'hidden', timeout: 10_000 });
			}
			await this.page.keyboard.press('F1');
			// An F1 the workbench did not take (the focus moving into a webview as it loads took the key
			// with it; the palette closed as the focus left it) is pressed again, at most three times.
			const opened = await tookOrLast(input.waitFor({ state: 'visible', timeout: 10_000 }), attempt >= 3);
			if (!opened) {
				await this.page.evaluate('document.activeElement instanceof HTMLIFrameElement && document.activeElement.blur()');
				continue;
			}
			const filled = await tookOrLast(input.fill(`>${label}`, { timeout: 10_000 }), attempt >= 3);
			if (!filled) {
				continue;
			}
			const row = this.page.locator('.quick-input-list .monaco-list-row', { hasText: label }).first();
			const shown = await tookOrLast(row.waitFor({ state: 'visible', timeout: 10_000 }), attempt >= 3);
			if (shown) {
				await this.page.keyboard.press('Enter');
				// The palette closes before the command's own input opens: until then its rows are
				// still on the page, and a test waiting for "a row of the pick" would take them (and
				// type into the palette). Wait until the palette's text is gone (hidden, or another
				// input in its place).
				await this.page.waitForFunction(
					`(() => {
						const widget = document.querySelector('.quick-input-widget');
						const box = widget && widget.querySelector('input');
						return !widget || widget.style.display === 'none' || !widget.offsetParent || !box || box.value !== ${JSON.stringify(`>${label}`)};
					})()`,
					undefined,
					{ timeout: 10_000, polling: 50 },
				);
				return;
			}
			await this.page.keyboard.press('Escape');
		}
	}

	/**
	 * Accepts the row of the open quick pick that shows `label`, by keyboard: the focus is moved to
	 * it with the arrow keys, then Enter. A click can miss: the list may still move under it, and a
	 * hover (a path's tooltip) can cover the row.
	 *
	 * Keys go where the keyboard focus is. A pick that stays open when it loses the focus
	 * (`ignoreFocusOut`, as our sign-in pick) can show its focused row while a webview that had the
	 * focus before the palette took it back (the workbench restores an editor's focus a moment after
	 * the palette closes): an Enter then went to the webview and the pick stayed open. So the focus is
	 * put in the pick's input before each key, and an Enter that found the focus gone from the pick
	 * (the row still shown) is pressed again there.
	 */
	async pickByKeyboard(label: string | RegExp, timeoutMs = 30_000): Promise<void> {
		const list = this.page.locator('.quick-input-widget .quick-input-list');
		const row = list.locator('.monaco-list-row', { hasText: label }).first();
		const focusInPick = (): Promise<boolean> =>
			this.page.evaluate<boolean>(
				"!!(document.activeElement && document.activeElement.closest && document.activeElement.closest('.quick-input-widget'))",
			);
		const focusPick = async (): Promise<void> => {
			if (!(await focusInPick())) {
				await this.page.locator('.quick-input-widget input').first().focus();
			}
		};
		await row.waitFor({ state: 'visible', timeout: timeoutMs });
		const end = Date.now() + timeoutMs;
		for (;;) {
			const focused = list.locator('.monaco-list-row.focused').first();
			const [want, at] = await Promise.all([
				row.getAttribute('data-index'),
				focused.count().then((n) => (n > 0 ? focused.getAttribute('data-index') : null)),
			]);
			await focusPick();
			if (want !== null && at !== null && want === at) {
				await this.page.keyboard.press('Enter');
				// Taken: the pick closed or moved on (another step, another input). Not taken: the row is
				// still shown and the focus left the pick (to a webview) before the key reached it.
				const stillShown = await row.waitFor({ state: 'hidden', timeout: 2_000 }).then(
					() => false,
					() => true,
				);
				if (!stillShown || (await focusInPick()) || Date.now() > end) {
					return;
				}
				continue;
			}
			if (Date.now() > end) {
				throw new Error(`the quick pick's row ${String(label)} could not be focused (row ${want}, focus on ${at})`);
			}
			await this.page.keyboard.press(at === null || Number(want) > Number(at) ? 'ArrowDown' : 'ArrowUp');
			await row.waitFor({ state: 'visible', timeout: timeoutMs });
		}
	}

	/**
	 * Right-clicks `row` and runs the context-menu item labelled `label`. A menu item of the
	 * workbench takes clicks only once a 100 ms timer after it was drawn has run (its mouse-up
	 * listener is added then: `runOnceToEnableMouseUp` in VS Code's menu.ts); on a busy machine that
	 * timer runs late and a click as soon as the item shows is dropped: no command runs and the menu
	 * stays open. So the item is clicked again while the menu stays open (a click it took closes it
	 * before the command runs, so a command never runs twice); a menu that closed under the click
	 * (detached item) is opened again.
	 */
	async runContextMenuItem(row: Locator, label: string): Promise<void> {
		const menu = this.page.locator('.context-view.monaco-menu-container');
		const item = menu.locator('.action-item', { hasText: label }).first();
		for (let opened = 1; ; opened++) {
			// A hover card left by the pointer (the activity bar's "N unread activities") can lie over the
			// row and stays while the pointer is over it: the pointer leaves for the editor area and the
			// card closes before the row is clicked again.
			const rightClicked = await row.click({ button: 'right', timeout: 10_000 }).then(
				() => true,
				() => false,
			);
			if (!rightClicked) {
				const size = this.page.viewportSize() ?? { width: 1280, height: 1024 };
				await this.page.mouse.move(size.width - 20, size.height / 2);
				await this.page
					.locator('.context-view .hover-contents')
					.first()
					.waitFor({ state: 'hidden', timeout: 5_000 })
					.catch(() => undefined);
				if (opened >= 3) {
					throw new Error(`the row took no right click for "${label}" (tried ${opened} times)`);
				}
				continue;
			}
			await item.waitFor({ state: 'visible', timeout: 10_000 });
			for (let attempt = 1; attempt <= 5; attempt++) {
				// A menu that goes away under the click (the workbench closed it) took no click: open it again.
				const clicked = await item.click({ timeout: 5_000 }).then(
					() => true,
					() => false,
				);
				if (!clicked) {
					break;
				}
				const closed = await menu.waitFor({ state: 'hidden', timeout: 2_000 }).then(
					() => true,
					() => false,
				);
				if (closed) {
					return;
				}
			}
			if (opened >= 3) {
				throw new Error(`the context menu item "${label}" took no click (menu opened ${opened} times)`);
			}
			await this.page.keyboard.press('Escape');
		}
	}

	/** Texts of the notification toasts currently shown. */
	async notifications(): Promise<string[]> {
		return this.page.locator('.notifications-toasts .notification-list-item-message').allInnerTexts();
	}

	/**
	 * The first notification whose text includes `text`, waited for (bounded): in the toasts, else
	 * in the notification center. The workbench shows no new toast once three came within 800 ms
	 * (its spam protection): such a notification goes to the center only. The center is opened for
	 * the wait and hidden after it.
	 */
	async waitForNotification(text: string, timeoutMs = 20_000): Promise<string> {
		const inToasts = async (): Promise<string | undefined> => (await this.notifications()).find((t) => t.includes(text));
		const end = Date.now() + timeoutMs * SLOWDOWN;
		const found = await inToasts();
		if (found !== undefined) {
			return found;
		}
		await this.runCommand('Notifications: Show Notifications');
		const center = this.page.locator('.notifications-center');
		try {
			await center.waitFor({ state: 'visible', timeout: 10_000 });
			for (;;) {
				const shown = (await center.locator('.notification-list-item-message').allInnerTexts()).find((t) => t.includes(text));
				if (shown !== undefined) {
					return shown;
				}
				if (Date.now() > end) {
					throw new Error(`no notification says ${JSON.stringify(text)} (toasts or center) within ${timeoutMs} ms`);
				}
				await this.page.waitForTimeout(250);
			}
		} finally {
			await this.runCommand('Notifications: Hide Notifications');
		}
	}

	/** Saves a full-page screenshot as `<screenshotDir>/<name>.png`; returns its path. */
	async screenshot(name: string): Promise<string> {
		mkdirSync(this.screenshotDir, { recursive: true });
		const path = join(this.screenshotDir, `${name}.png`);
		await this.page.screenshot({ path });
		return path;
	}
}

/** True once `step` succeeds, false when it fails and another attempt follows; the last attempt's failure is thrown. */
function tookOrLast(step: Promise<unknown>, last: boolean): Promise<boolean> {
	return step.then(
		() => true,
		(err: unknown) => {
			if (last) {
				throw err;
			}
			return false;
		},
	);
}
