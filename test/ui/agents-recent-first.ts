import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface StateAgent {
	id: string;
	name: string;
	updated_at_ms: number;
}

/** The demo agent the README's "Try it" starts from. */
const DEMO_AGENT = 'Refactor billing module';

/**
 * Issue 33 (11): the Agents view lists agents most recent activity first, so the README's demo
 * agent, which worked a few hours ago, is among the first rows in view, not the seventh (the
 * service's order, newest created first) below the fold. Send Prompt's agent pick lists the agents
 * it does not mark (selected, recently used) in the same order (issue 42, item 15).
 */
const uiTest: UiTest = {
	title: "the Agents view lists agents most recent activity first: the README's demo agent is among the first rows, in view",
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		const pane = await workbench.expandedPane(VIEW_CONTAINER_ID, 'Agents');
		// An earlier test may have left the view loaded before agents it made moved: read it afresh.
		await workbench.runCommand('Cloud Agents: Refresh Agents');
		// The answer's rows, not the rows as last loaded ("cached ·").
		const demoRow = pane.locator('.monaco-list-row', { hasText: DEMO_AGENT }).filter({ hasNotText: 'cached' }).first();
		await demoRow.waitFor({ state: 'visible', timeout: 30_000 });
		await pane.locator('.monaco-list-row', { hasText: 'cached' }).first().waitFor({ state: 'hidden', timeout: 30_000 });
		const rows = await workbench.paneRows(VIEW_CONTAINER_ID, 'Agents');
		const { agents } = await emulatorCall<{ agents: StateAgent[] }>(emulatorUrl, devToken, 'GET', '/_emulator/state');
		// The wire has whole seconds (updated_at_unix_seconds).
		const activity = (a: StateAgent): number => Math.floor(a.updated_at_ms / 1000);
		const shown = agents
			.map((a) => ({ agent: a, index: rows.findIndex((r) => r.startsWith(a.name)) }))
			.filter((x) => x.index >= 0)
			.sort((x, y) => x.index - y.index);
		// Six in view at the least: the pane's share of a 1024-pixel window beside the other views and
		// the Activity and Account headers (the seed has seven; the seventh may be below the fold).
		assert.ok(shown.length >= 6, `the demo agents are rows: ${JSON.stringify(rows)}`);
		for (let i = 1; i < shown.length; i++) {
			const above = shown[i - 1]!.agent;
			const below = shown[i]!.agent;
			assert.ok(
				activity(above) >= activity(below),
				`"${above.name}" (${new Date(above.updated_at_ms).toISOString()}) is above "${below.name}" (${new Date(below.updated_at_ms).toISOString()}): ${JSON.stringify(rows)}`,
			);
		}
		const demo = agents.find((a) => a.name === DEMO_AGENT);
		assert.ok(demo, 'the demo seed has the demo agent');
		const index = rows.findIndex((r) => r.startsWith(DEMO_AGENT));
		const newer = agents.filter((a) => activity(a) > activity(demo)).length;
		assert.equal(index, newer, `only the ${newer} agents that worked since are above the demo agent: ${JSON.stringify(rows)}`);
		// Among the first rows, in view without scrolling (in the demo seed only "CI triage", with a run
		// started 20 minutes ago, worked since: the demo agent is second).
		const list = await pane.locator('.monaco-list').first().boundingBox();
		const row = await demoRow.boundingBox();
		assert.ok(list && row, 'the list and the row are laid out');
		assert.ok(
			row.y >= list.y && row.y + row.height <= list.y + list.height,
			`the demo agent's row is in view (row ${JSON.stringify(row)}, list ${JSON.stringify(list)})`,
		);
		note(`the demo agent is row ${index + 1} of ${rows.length}: ${rows.slice(0, 3).join(' | ')}`);

		// Send Prompt's agent pick (issue 42, item 15): the selected and recently used agents first
		// (marked), then the others in the Agents view's order, not the service's.
		await workbench.runCommand('Cloud Agents: Send Prompt');
		const picks = page.locator('.quick-input-list .monaco-list-row');
		try {
			await picks.filter({ hasText: DEMO_AGENT }).first().waitFor({ state: 'visible', timeout: 30_000 });
			const listed = (await picks.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
			const others = listed.filter((t) => !/\b(selected|recently used)\b/.test(t));
			const order = (list: string[]): string[] =>
				agents
					.map((a) => ({ name: a.name, at: list.findIndex((t) => t.startsWith(a.name)) }))
					.filter((x) => x.at >= 0 && others.some((t) => t.startsWith(x.name)))
					.sort((x, y) => x.at - y.at)
					.map((x) => x.name);
			note(`the pick: ${JSON.stringify(listed.map((t) => t.slice(0, 40)))}`);
			assert.ok(order(others).length >= 2, `unmarked agents in the pick: ${JSON.stringify(listed)}`);
			// The rows in view (an agent below the fold has no row to compare with).
			const inView = (names: string[]): string[] => names.filter((n) => rows.some((r) => r.startsWith(n)));
			assert.deepEqual(
				inView(order(others)),
				order(rows),
				`the pick's unmarked agents in the Agents view's order: ${JSON.stringify(listed)}`,
			);
			const firstUnmarked = listed.indexOf(others[0] ?? '');
			assert.ok(
				listed.every((t, i) => i < firstUnmarked || others.includes(t)),
				`the marked agents come first: ${JSON.stringify(listed)}`,
			);
		} finally {
			await page.keyboard.press('Escape');
		}
	},
};

export default uiTest;
