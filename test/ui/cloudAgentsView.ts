import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import type { UiTest } from './support/workbench';

interface AgentBody {
	id: string;
	name: string;
}

const VIEWS = ['Agents', 'Runs', 'Runtimes', 'Artifacts'];

const uiTest: UiTest = {
	title: 'opens the Cloud Agents view from the activity bar, runs the Refresh Agents command and reads the signed-in rows [variant]',
	async run({ workbench, emulatorUrl, devToken, note }) {
		// The harness signs in at startup with the emulator's dev token (CLOUD_AGENTS_DEV_TOKEN).
		const res = await fetch(`${emulatorUrl}/v2/agents?limit=100`, { headers: { authorization: `Bearer ${devToken}` } });
		assert.equal(res.status, 200, `GET /v2/agents answered ${res.status}`);
		const { agents } = (await res.json()) as { agents: AgentBody[] };
		assert.ok(agents.length > 0, 'the emulator has agents for the dev token');

		const container = await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		await container.locator('.pane-header').first().waitFor({ state: 'visible' });
		const titles = await workbench.paneTitles(VIEW_CONTAINER_ID);
		for (const name of VIEWS) {
			assert.ok(
				titles.some((t) => t.toLowerCase() === name.toLowerCase()),
				`no "${name}" view in ${JSON.stringify(titles)}`,
			);
		}

		// Earlier tests may have changed the agents behind the view's back: refresh it, then wait for
		// the newest agent's row.
		await workbench.runCommand('Cloud Agents: Refresh Agents');
		const agentsPane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
		await agentsPane.locator('.monaco-list-row', { hasText: agents[0]!.name }).first().waitFor({ state: 'visible', timeout: 30_000 });
		assert.deepEqual(await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents'), [], 'signed in: no welcome content in the Agents view');

		// The tree renders only the rows in view: agents of the account, each once (their order, most
		// recent activity first, is agents-recent-first.ts's).
		const rows = await workbench.paneRows(VIEW_CONTAINER_ID, 'Agents');
		const agentRows = rows.filter((r) => agents.some((a) => r.startsWith(a.name)));
		assert.ok(agentRows.length > 0, `no agent rows in ${JSON.stringify(rows)}`);
		const named = agentRows.map(
			(row) => agents.filter((a) => row.startsWith(a.name)).sort((x, y) => y.name.length - x.name.length)[0]!.id,
		);
		assert.equal(new Set(named).size, named.length, `an agent shown twice: ${JSON.stringify(agentRows)}`);
		note(`Agents: ${agentRows.length} row(s) of ${agents.length} agent(s): ${agentRows.slice(0, 3).join(' | ')}`);
		for (const name of VIEWS.slice(1)) {
			const paneRows = await workbench.paneRows(VIEW_CONTAINER_ID, name);
			const welcome = await workbench.paneWelcome(VIEW_CONTAINER_ID, name);
			note(
				`${name}: ${paneRows.length > 0 ? `${paneRows.length} row(s): ${paneRows.slice(0, 3).join(' | ')}` : `welcome: ${welcome.join(' / ')}`}`,
			);
		}
		const shot = await workbench.screenshot('cloud-agents-view');
		note(`screenshot: ${shot}`);
	},
};

export default uiTest;
