import * as assert from 'node:assert/strict';
import { type Server, createServer } from 'node:http';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface AgentBody {
	id: string;
	name: string;
	runtime_id?: string;
	repositories?: Array<{ repository_id: number; branch: string }>;
}
interface RuntimeBody {
	id: string;
	display_name: string;
}

/**
 * Issue 20, items 12 and 14: Create Agent takes `owner/name` (resolved through GitHub, a stub here,
 * to its id and default branch), refuses a malformed entry as it is typed, and its steps 2 and 3 have
 * a Back button that keeps what was typed; the delete-agent confirmation names the runtime by its
 * name (it was not loaded in the Runtimes view: it is the new agent's own).
 */
const uiTest: UiTest = {
	title: 'Create Agent takes owner/name (GitHub looked up), Back keeps the answers; Delete Agent names the runtime by its name',
	async run({ page, workbench, emulatorUrl, devToken, githubStubUrl, note }) {
		const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
			emulatorCall<T>(emulatorUrl, devToken, method, path, body);
		const github = createServer((req, res) => {
			const found = req.url === '/repos/octocat/hello-world' && req.headers.authorization === undefined;
			res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
			res.end(
				JSON.stringify(
					found ? { id: 1296269, full_name: 'octocat/Hello-World', default_branch: 'master' } : { message: 'Not Found' },
				),
			);
		});
		const { port, hostname } = new URL(githubStubUrl);
		await new Promise<void>((resolve, reject) => {
			github.once('error', reject);
			github.listen(Number(port), hostname, resolve);
		});
		const name = `Create steps ${Date.now()}`;
		const widget = page.locator('.quick-input-widget');
		const input = widget.locator('input');
		const message = widget.locator('.quick-input-message');
		const back = widget.locator('.quick-input-left-action-bar .action-label[aria-label^="Back"]');
		const step = async (n: number): Promise<void> => {
			await page.waitForFunction(
				`document.querySelector('.quick-input-widget .quick-input-title')?.textContent?.includes('Create Agent') && /\\b${n}\\s*\\/\\s*3\\b/.test(document.querySelector('.quick-input-widget .quick-input-titlebar')?.textContent ?? '')`,
				undefined,
				{ timeout: 15_000 },
			);
		};
		let agent: AgentBody | undefined;
		try {
			await workbench.runCommand('View: Show Explorer');
			await workbench.runCommand('Cloud Agents: Create Agent');
			await step(1);
			assert.equal(await back.count(), 0, 'no Back on the first step');
			await input.fill(name);
			await page.keyboard.press('Enter');

			await step(2);
			await input.fill('octocat');
			await message.filter({ hasText: 'is not a repository' }).first().waitFor({ state: 'visible', timeout: 10_000 });
			note(`malformed: ${(await message.first().innerText()).trim()}`);
			await input.fill('octocat/hello-world');
			await back.waitFor({ state: 'visible', timeout: 5_000 });
			await back.click();
			await step(1);
			assert.equal(await input.inputValue(), name, 'Back shows the name typed');
			await page.keyboard.press('Enter');
			await step(2);
			await input.fill('octocat/hello-world');
			await page.keyboard.press('Enter');

			await step(3);
			await input.fill('Read the README');
			await back.click();
			await step(2);
			assert.equal(await input.inputValue(), 'octocat/hello-world', 'Back shows the repositories typed');
			await page.keyboard.press('Enter');
			await step(3);
			assert.equal(await input.inputValue(), 'Read the README', 'the first message typed is kept');
			await input.fill('');
			await page.keyboard.press('Enter');

			for (let i = 0; i < 100 && !agent; i++) {
				const state = await call<{ agents: AgentBody[] }>('GET', '/_emulator/state');
				agent = state.agents.find((a) => a.name === name);
				if (!agent) {
					await page.waitForTimeout(200);
				}
			}
			assert.ok(agent, 'the agent was created');
			assert.deepEqual(
				agent.repositories,
				[{ repository_id: 1296269, branch: 'master' }],
				'owner/name became the id and default branch',
			);
			note(`created ${agent.id} with ${JSON.stringify(agent.repositories)}`);

			// Delete Agent from the palette, the Cloud Agents views hidden: the new runtime is not in a
			// loaded Runtimes list (never loaded, or loaded before it existed), yet the confirmation
			// names it by its name.
			const runtime = (await call<{ data: RuntimeBody[] }>('GET', '/v2/runtimes?limit=100')).data.find(
				(r) => r.id === agent?.runtime_id,
			);
			assert.ok(runtime?.display_name, 'the new agent has a named runtime');
			// Delete Agent from the palette acts on the agent selected in the Agents view, if any (an
			// earlier test may have selected one): only with none selected does it ask, so both are taken
			// here, and a dialog for another agent fails the test.
			await workbench.runCommand('Cloud Agents: Delete Agent');
			const dialog = page.locator('.monaco-dialog-box', { hasText: 'Delete the agent' });
			const pickRow = page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first();
			const picks = await Promise.race([
				pickRow.waitFor({ state: 'visible', timeout: 20_000 }).then(() => true),
				dialog.waitFor({ state: 'visible', timeout: 20_000 }).then(() => false),
			]);
			if (picks) {
				await input.fill(name);
				await page.keyboard.press('Enter');
			} else {
				const other = await dialog.innerText();
				if (!other.includes(name)) {
					// The selection was another agent: dismiss, and pick ours in the Agents view's place.
					await page.keyboard.press('Escape');
					await dialog.waitFor({ state: 'hidden', timeout: 5_000 });
					note('Delete Agent took the agent selected by an earlier test; ran it again for ours from its row');
					const row = await workbench.agentRow(name);
					await workbench.runContextMenuItem(row, 'Delete Agent');
				}
			}
			await dialog.waitFor({ state: 'visible', timeout: 10_000 });
			const text = await dialog.innerText();
			note(`dialog: ${text.replace(/\s+/g, ' ').trim()}`);
			assert.ok(text.includes(`runtime ${runtime.display_name}`), `the runtime is named: ${text}`);
			assert.ok(!text.includes(runtime.id), 'not by its id');
			await page.keyboard.press('Escape');
			await dialog.waitFor({ state: 'hidden', timeout: 5_000 });
		} finally {
			await workbench.dismissDialogs();
			if (agent) {
				await call('DELETE', `/v2/agents/${encodeURIComponent(agent.id)}?delete_runtime=true`).catch(() => undefined);
			}
			await closeServer(github);
		}
	},
};

function closeServer(server: Server): Promise<void> {
	server.closeAllConnections();
	return new Promise((resolve) => server.close(() => resolve()));
}

export default uiTest;
