import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import type { UiTest } from './support/workbench';

const VIEWS = ['Agents', 'Runs', 'Runtimes', 'Artifacts'];

const uiTest: UiTest = {
	title: 'opens the Cloud Agents view from the activity bar and reads what its views show',
	async run({ workbench, note }) {
		const container = await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await container.locator('.pane-header').first().waitFor({ state: 'visible' });
		const titles = await workbench.paneTitles(VIEW_CONTAINER_ID);
		for (const name of VIEWS) {
			assert.ok(titles.some((t) => t.toLowerCase() === name.toLowerCase()), `no "${name}" view in ${JSON.stringify(titles)}`);
		}
		// Each view shows tree rows or, while signed out or empty, its welcome content; activation
		// sets the context keys that pick which, so wait until the Agents view shows something.
		const agents = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
		await agents.locator('.monaco-list-row, .welcome-view-content').first().waitFor({ state: 'visible', timeout: 30_000 });
		for (const name of VIEWS) {
			const rows = await workbench.paneRows(VIEW_CONTAINER_ID, name);
			const welcome = await workbench.paneWelcome(VIEW_CONTAINER_ID, name);
			note(`${name}: ${rows.length > 0 ? `${rows.length} row(s): ${rows.slice(0, 3).join(' | ')}` : `welcome: ${welcome.join(' / ')}`}`);
		}
		const shot = await workbench.screenshot('cloud-agents-view');
		note(`screenshot: ${shot}`);
	},
};

export default uiTest;
