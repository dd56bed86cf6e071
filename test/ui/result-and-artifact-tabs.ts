import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { until } from './support/webviewPage';
import type { UiTest } from './support/workbench';

const AGENT = 'Refactor billing module';
/** The demo seed's last run of the billing agent: its result is Markdown, and it made a Markdown artifact. */
const RUN = 'Summarise the refactoring';
const RESULT_TAB = `Result — ${AGENT}: ${RUN}`;
const ARTIFACT = 'pr-summary.md';
/** A line of the run's result (the artifact says "rounding moved to", never this). */
const RESULT_LINE = 'Invoice rounding lives in';

/** The labels of the editor tabs (their text: the rendered text breaks "pr-summary.md" before ".md"). */
async function tabLabels(page: Page): Promise<string[]> {
	return (await page.locator('.tabs-container .tab').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
}

/** True when a frame of the page (the Markdown preview's webview) shows `text`. */
async function someFrameShows(page: Page, text: string): Promise<boolean> {
	for (const frame of page.frames()) {
		if (frame.isDetached()) {
			continue;
		}
		const body = await frame.evaluate('document.body ? document.body.innerText : ""').catch(() => '');
		if (String(body).includes(text)) {
			return true;
		}
	}
	return false;
}

const uiTest: UiTest = {
	title: "a run's result and then a Markdown artifact open in two tabs: the artifact does not take over the result's tab",
	async run({ page, workbench, note }) {
		await workbench.runCommand('View: Close All Editors');
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		const agents = await workbench.expandedPane(VIEW_CONTAINER_ID, 'Agents');
		const billing = agents.locator('.monaco-list-row', { hasText: AGENT }).first();
		await billing.waitFor({ state: 'visible', timeout: 30_000 });
		// Another agent first, so the click on the billing agent changes the selection (an in-host
		// suite may have left it selected) and the Runs and Artifacts views follow it.
		await agents.locator('.monaco-list-row', { hasText: 'Docs writer' }).first().click();
		await billing.click();

		// The run's result: a click on the finished run opens it rendered.
		const runs = await workbench.expandedPane(VIEW_CONTAINER_ID, 'Runs');
		const run = runs.locator('.monaco-list-row', { hasText: RUN }).first();
		await run.waitFor({ state: 'visible', timeout: 30_000 });
		await run.click();
		await until(page, 'the result tab', async () => ((await tabLabels(page)).some((t) => t.includes(RESULT_TAB)) ? true : undefined));
		await until(page, 'the rendered result', async () => ((await someFrameShows(page, RESULT_LINE)) ? true : undefined));

		// Then the Markdown artifact of the same run.
		const artifacts = await workbench.expandedPane(VIEW_CONTAINER_ID, 'Artifacts');
		const artifact = artifacts.locator('.monaco-list-row', { hasText: ARTIFACT }).first();
		await artifact.waitFor({ state: 'visible', timeout: 30_000 });
		await artifact.click();
		await until(page, 'the artifact tab', async () =>
			(await tabLabels(page)).some((t) => t.includes(ARTIFACT) && !t.includes('Preview')) ? true : undefined,
		);
		// Give a preview that follows the active editor the time to take the artifact over.
		await page.waitForTimeout(1_500);
		const tabs = await tabLabels(page);
		note(`tabs: ${JSON.stringify(tabs)}`);
		assert.ok(
			tabs.some((t) => t.includes(RESULT_TAB)),
			`the result's tab is gone: ${JSON.stringify(tabs)}`,
		);
		assert.ok(
			tabs.some((t) => t.includes(ARTIFACT)),
			`no tab of the artifact: ${JSON.stringify(tabs)}`,
		);
		assert.ok(
			!tabs.some((t) => t.includes('Preview') && t.includes(ARTIFACT)),
			`the preview shows the artifact: ${JSON.stringify(tabs)}`,
		);

		// Back on the result's tab, it still shows the result.
		await page.locator('.tabs-container .tab', { hasText: RESULT_TAB }).first().click();
		await until(page, "the result's text in its tab", async () => ((await someFrameShows(page, RESULT_LINE)) ? true : undefined));
		await workbench.screenshot('result-and-artifact-tabs');
		await workbench.runCommand('View: Close All Editors');
		// The focus may still be in the preview's webview, now closed: give it back to the workbench page (a
		// tree row), as the next test may need a focused document (the clipboard does).
		await billing.click();
	},
};

export default uiTest;
