import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Page } from 'playwright-core';
import { createIdleAgent, emulatorCall } from './support/emulatorApi';
import { until } from './support/webviewPage';
import type { UiTest, Workbench } from './support/workbench';

const enc = encodeURIComponent;

interface GroundFile {
	path: string;
	content_base64?: string;
}

/** The agent's files with their text (the emulator's ground truth). */
async function agentFiles(emulatorUrl: string, devToken: string, agentId: string): Promise<Map<string, string>> {
	const { files } = await emulatorCall<{ files: GroundFile[] }>(
		emulatorUrl,
		devToken,
		'GET',
		`/_emulator/workspace/${enc(agentId)}/files?content=true`,
	);
	return new Map(files.map((f) => [f.path, Buffer.from(f.content_base64 ?? '', 'base64').toString('utf8')]));
}

/** The question Continue in Cloud asks before it replaces the agent's copy (a modal dialog). */
function question(page: Page): ReturnType<Page['locator']> {
	return page.locator('.monaco-dialog-box', { hasText: 'the agent workspace has other versions of' });
}

/**
 * Links the agent's folder `agentFolder` to the local folder `local` as a person does: the palette's
 * Compare with Local Folder…, the agent, its folder, Choose a Folder…, the path typed in VS Code's
 * simple folder dialog (code-server has no native one).
 */
async function linkByUi(
	page: Page,
	workbench: Workbench,
	agentName: string,
	agentFolder: string,
	local: string,
	note: (l: string) => void,
): Promise<void> {
	await workbench.runCommand('Cloud Agents: Compare with Local Folder');
	await workbench.pickByKeyboard(agentName);
	await workbench.pickByKeyboard(agentFolder);
	await workbench.pickByKeyboard('Choose a Folder…');
	const input = page.locator('.quick-input-widget input');
	await input.waitFor({ state: 'visible', timeout: 15_000 });
	// The dialog may rewrite the box while it settles: type again until the path stays (as agent-changes.ts does).
	for (let attempt = 1; ; attempt++) {
		await input.fill(`${local}/`);
		const listed = await page
			.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'empty-subfolder' })
			.first()
			.waitFor({ state: 'visible', timeout: 15_000 })
			.then(
				() => true,
				() => false,
			);
		await page.waitForTimeout(1_000);
		const value = await input.inputValue();
		if (listed && value === `${local}/`) {
			break;
		}
		note(`attempt ${attempt}: the folder dialog read ${JSON.stringify(value)}; typing the path again`);
		assert.ok(attempt < 3, `the dialog kept the typed path (it reads ${JSON.stringify(value)})`);
	}
	await page.locator('.quick-input-widget .monaco-button', { hasText: 'Compare' }).first().click();
	await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 10_000 });
	// The dialog closes before the link exists: the extension stores the link, then compares and
	// opens Source Control on it. A link command given before then (Compare Everything) finds no link
	// and says so in a notification that fades (the CI failures at a3a3499 and f2290d6: no request, no
	// rows). The flow has ended when Source Control shows the link's group.
	await page
		.locator('[id="workbench.view.scm"] .monaco-list-row', { hasText: 'Changed by the agent' })
		.first()
		.waitFor({ state: 'visible', timeout: 60_000 });
}

/**
 * Continue in Cloud from the palette up to its question: the command, the agent (its one linked
 * folder is taken), the files (both preselected: Enter), the prompt (typed unless the box already
 * holds it: the prompt kept from a hand-over not made), Enter.
 */
async function continueUpToQuestion(
	page: Page,
	workbench: Workbench,
	agentName: string,
	prompt: string,
	note: (l: string) => void,
): Promise<void> {
	await workbench.runCommand('Cloud Agents: Continue in Cloud');
	await workbench.pickByKeyboard(agentName);
	// The multi-select pick of the changed files, every one checked.
	const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
	await rows.filter({ hasText: 'notes.md' }).first().waitFor({ state: 'visible', timeout: 30_000 });
	await rows.filter({ hasText: 'new.md' }).first().waitFor({ state: 'visible', timeout: 5_000 });
	// A multi-select pick's rows carry their check state (aria-checked) for screen readers.
	const checked = await Promise.all(
		[rows.filter({ hasText: 'notes.md' }).first(), rows.filter({ hasText: 'new.md' }).first()].map((r) =>
			r.getAttribute('aria-checked'),
		),
	);
	note(`the files' check boxes: ${JSON.stringify(checked)}`);
	assert.deepEqual(checked, ['true', 'true'], 'both changed files are preselected');
	await page.locator('.quick-input-widget input').first().focus();
	await page.keyboard.press('Enter');
	// The prompt step: Send Prompt's box, titled for the hand-over.
	await page
		.locator('.quick-input-widget .quick-input-title', { hasText: `Continue in Cloud with ${agentName}` })
		.waitFor({ state: 'visible', timeout: 30_000 });
	const input = page.locator('.quick-input-widget input').first();
	const value = await input.inputValue();
	if (value !== prompt) {
		await input.fill(prompt);
	}
	await page.keyboard.press('Enter');
}

/**
 * Issue 46, "Done when": Continue in Cloud from a linked folder with two changed files → the agent's
 * workspace holds both, one run started with the prompt; a file that differs on the agent's side is
 * asked about first. The agent (made for this test) has `notes.md` in its folder; the local copy of
 * the folder edits it and adds `new.md`. The folder is linked as a person links it (palette), every
 * difference listed (Compare Everything); then Continue in Cloud from the palette: the question
 * names notes.md and what is lost; Cancel leaves the agent's copy and starts no run; run again (the
 * prompt is offered again), Replace and Continue: both files there with the local bytes, one run
 * whose prompt starts with what was typed and names both files.
 */
const uiTest: UiTest = {
	title: "Continue in Cloud from a linked folder with two changed files: the agent's differing copy is asked about first (Cancel keeps it), then both files reach the agent and one run starts with the prompt",
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const stamp = Date.now().toString(36);
		const agentName = `Continue in Cloud ${stamp}`;
		const folder = `cic-${stamp}`;
		const agent = await createIdleAgent(emulatorUrl, devToken, agentName);
		await emulatorCall(emulatorUrl, devToken, 'POST', `/_emulator/workspace/${enc(agent.id)}/write`, {
			path: `${folder}/notes.md`,
			content_base64: Buffer.from("# Notes\n\nThe agent's version.\n").toString('base64'),
		});
		const root = await mkdtemp(join(tmpdir(), 'ca-ui-continue-'));
		const local = join(root, folder);
		await mkdir(local);
		await writeFile(join(local, 'notes.md'), '# Notes\n\nMy local edit.\n');
		await writeFile(join(local, 'new.md'), '# New\n\nStarted locally.\n');
		// A folder dialog lists folders only: this one shows that it took the typed path in (an empty folder is no difference).
		await mkdir(join(local, 'empty-subfolder'));
		const label = `${agentName} ↔ ${basename(local)}`;
		const prompt = `Finish the notes (UI ${stamp})`;
		const runsOf = (): Promise<Array<{ id: string; prompt?: string }>> =>
			emulatorCall(emulatorUrl, devToken, 'GET', `/v2/agents/${enc(agent.id)}/runs?limit=100`);
		let linked = false;
		try {
			await workbench.runCommand('View: Close All Editors');
			await linkByUi(page, workbench, agentName, folder, local, note);
			linked = true;
			// Every difference (the local edit is not one the agent made: Compare Everything lists it).
			await workbench.runCommand('Cloud Agents: Compare Everything');
			const scmRows = page.locator('[id="workbench.view.scm"] .monaco-list-row');
			await scmRows
				.filter({ hasText: 'notes.md' })
				.first()
				.waitFor({ state: 'visible', timeout: 60_000 })
				.catch(async (err: unknown) => {
					// What the window showed instead (the CI run at a3a3499 failed here once).
					await workbench.screenshot('continue-in-cloud-no-rows');
					note(`Source Control rows: ${JSON.stringify(await scmRows.allInnerTexts())}`);
					note(`notifications: ${JSON.stringify(await workbench.notifications())}`);
					note(
						`quick input: ${JSON.stringify(
							await page
								.locator('.quick-input-widget')
								.innerText()
								.catch(() => ''),
						)}`,
					);
					throw err;
				});
			await scmRows.filter({ hasText: 'new.md' }).first().waitFor({ state: 'visible', timeout: 10_000 });

			// First: the question names the file and what is lost; Cancel hands nothing over.
			await continueUpToQuestion(page, workbench, agentName, prompt, note);
			await question(page).waitFor({ state: 'visible', timeout: 30_000 });
			const asked = await question(page).innerText();
			note(`asked: ${asked.replace(/\s+/g, ' ')}`);
			assert.match(asked, /notes\.md/);
			assert.match(asked, /what the agent wrote there is lost/);
			await workbench.screenshot('continue-in-cloud-question');
			await question(page)
				.locator('.dialog-buttons .monaco-button', { hasText: /^Cancel$/ })
				.click();
			await question(page).waitFor({ state: 'hidden', timeout: 10_000 });
			const afterCancel = await agentFiles(emulatorUrl, devToken, agent.id);
			assert.equal(afterCancel.get(`${folder}/notes.md`), "# Notes\n\nThe agent's version.\n", "Cancel left the agent's copy");
			assert.equal(afterCancel.has(`${folder}/new.md`), false, 'Cancel wrote nothing');
			assert.equal((await runsOf()).length, 0, 'Cancel started no run');

			// Again (the prompt is offered again): Replace and Continue hands both over and starts the run.
			await continueUpToQuestion(page, workbench, agentName, prompt, note);
			await question(page).waitFor({ state: 'visible', timeout: 30_000 });
			await question(page)
				.locator('.dialog-buttons .monaco-button', { hasText: /^Replace and Continue$/ })
				.click();
			const run = await until(
				page,
				'one run with the prompt',
				async () => {
					const runs = await runsOf();
					return runs.length === 1 && runs[0]!.prompt?.startsWith(`${prompt}\n`) ? runs[0] : undefined;
				},
				60_000,
			);
			assert.match(run.prompt ?? '', /"notes\.md"/);
			assert.match(run.prompt ?? '', /"new\.md"/);
			const after = await agentFiles(emulatorUrl, devToken, agent.id);
			assert.equal(after.get(`${folder}/notes.md`), '# Notes\n\nMy local edit.\n');
			assert.equal(after.get(`${folder}/new.md`), '# New\n\nStarted locally.\n');
			await workbench.screenshot('continue-in-cloud-handed-over');
		} finally {
			await workbench.dismissDialogs();
			if (linked) {
				await workbench.runCommand('Cloud Agents: Unlink Local Folder').catch((err: unknown) => note(`unlink: ${String(err)}`));
				const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label }).first();
				if (
					await row.waitFor({ state: 'visible', timeout: 3_000 }).then(
						() => true,
						() => false,
					)
				) {
					await workbench.pickByKeyboard(label);
				}
			}
			await workbench.runCommand('View: Close All Editors');
			await emulatorCall(emulatorUrl, devToken, 'DELETE', `/v2/agents/${enc(agent.id)}?delete_runtime=true`).catch((err: unknown) =>
				note(`could not delete the agent: ${String(err)}`),
			);
			await rm(root, { recursive: true, force: true });
		}
	},
};

export default uiTest;
