import * as assert from 'node:assert/strict';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { profileWords } from '../integration/support/profile';
import type { UiTest } from './support/workbench';

interface AgentBody {
	id: string;
	name: string;
	status: string;
}
interface RunBody {
	id: string;
	status: string;
	prompt?: string;
}

const uiTest: UiTest = {
	title: 'the Agents view shows the demo agents; "Send Prompt…" from the palette sends a run whose events show in the Output panel; its end is announced [variant]',
	async run({ page, workbench, emulatorUrl, devToken, emulatorProfile }) {
		const api = async <T>(path: string): Promise<T> => {
			const res = await fetch(`${emulatorUrl}${path}`, { headers: { authorization: `Bearer ${devToken}` } });
			assert.equal(res.status, 200, `${path} answered ${res.status}`);
			return (await res.json()) as T;
		};
		const { agents } = await api<{ agents: AgentBody[] }>('/v2/agents?limit=100');
		const demo = ['Refactor billing module', 'Docs writer', 'CI triage'];
		for (const name of demo) {
			assert.ok(
				agents.some((a) => a.name === name),
				`the emulator has the demo agent "${name}"`,
			);
		}

		// Signed in (the harness stores the dev token), the Agents view lists the agents as rows.
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		const agentsPane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
		const billingRow = agentsPane.locator('.monaco-list-row', { hasText: 'Refactor billing module' }).first();
		await billingRow.waitFor({ state: 'visible', timeout: 30_000 });
		const rows = (await agentsPane.locator('.monaco-list-row').allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
		for (const name of demo) {
			assert.ok(
				rows.some((r) => r.startsWith(name)),
				`no row for "${name}" in ${JSON.stringify(rows)}`,
			);
		}
		// Their order (most recent activity first) is agents-recent-first.ts's.
		// Selecting an agent makes the Runs view follow it. An in-host suite may have left this row
		// selected in the tree (`_cloudAgents.views.selectAgent` reveals and selects, and clearing the
		// Runs view does not clear the tree's selection): a click on it would change nothing, so
		// another agent is selected first.
		await agentsPane.locator('.monaco-list-row', { hasText: 'Docs writer' }).first().click();
		await billingRow.click();
		const runsPane = workbench.pane(VIEW_CONTAINER_ID, 'Runs');
		await runsPane
			.locator('.monaco-list-row', { hasText: 'Summarise the refactoring' })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
		await workbench.screenshot('agents-view');

		// "Send Prompt…" from the palette: pick the agent, type the prompt; Enter sends.
		const target = 'Docs writer';
		const agent = agents.find((a) => a.name === target)!;
		const before = await api<RunBody[]>(`/v2/agents/${encodeURIComponent(agent.id)}/runs?limit=100`);
		const prompt = `Outline the docs for the UI test ${Date.now()} [[events:3]]`;
		await workbench.runCommand('Cloud Agents: Send Prompt');
		const input = page.locator('.quick-input-widget input');
		await page
			.locator('.quick-input-list .monaco-list-row', { hasText: target })
			.first()
			.waitFor({ state: 'visible', timeout: 20_000 });
		await input.fill(target);
		await page.keyboard.press('Enter');
		await page
			.locator('.quick-input-widget .quick-input-title', { hasText: `Send Prompt to ${target}` })
			.first()
			.waitFor({ state: 'visible', timeout: 10_000 });
		await input.fill(prompt);
		await page.keyboard.press('Enter');

		// The emulator received exactly one new run with that prompt.
		let created: RunBody | undefined;
		for (let i = 0; i < 100 && !created; i++) {
			const runs = await api<RunBody[]>(`/v2/agents/${encodeURIComponent(agent.id)}/runs?limit=100`);
			created = runs.find((r) => r.prompt === prompt);
			if (!created) {
				await page.waitForTimeout(200);
			}
		}
		assert.ok(created, 'the run was created on the service');
		const after = await api<RunBody[]>(`/v2/agents/${encodeURIComponent(agent.id)}/runs?limit=100`);
		assert.equal(after.length, before.length + 1);

		// The end of the run is announced with the run's name (agent and prompt excerpt) and the
		// service's final status ("<agent>: <prompt…> — succeeded."; the variant says "completed" and
		// sends no run.completed event: its stream just closes after the final status). Toasts and the
		// notification center use the same message class.
		const named = `${target}: Outline the docs`;
		const ended = ` — ${profileWords(emulatorProfile).run.succeeded}.`;
		await page.waitForFunction(
			`[...document.querySelectorAll('.notification-list-item-message')].some((m) => { const t = (m.textContent ?? '').replace(/\\u00a0/g, ' '); return t.includes(${JSON.stringify(named)}) && t.includes(${JSON.stringify(ended)}); })`,
			undefined,
			{ timeout: 30_000 },
		);

		// Following the run shows its events in the Output panel.
		const output = page.locator('.part.panel .monaco-editor .view-lines').first();
		await output.waitFor({ state: 'visible', timeout: 20_000 });
		// Wait for THIS run's channel: the panel may first show the channel of a run an in-host suite
		// followed (seen: the test then read that run's events).
		const short = prompt.replace(/\[\[[^\]]*\]\]/g, '').trim();
		await page.waitForFunction(
			`((t) => t.includes(${JSON.stringify(`Looking into: ${short}`)}))` +
				"((document.querySelector('.part.panel .monaco-editor .view-lines')?.textContent ?? '').replace(/\\u00a0/g, ' '))",
			undefined,
			{ timeout: 30_000 },
		);
		const text = (await output.innerText()).replace(/\u00a0/g, ' ');
		// Event names are not shown in the description: the status events are `run.status` or `status`.
		assert.match(text, /\bstatus\b/);
		assert.match(text, /log/);
		await workbench.screenshot('run-output');
	},
};

export default uiTest;
