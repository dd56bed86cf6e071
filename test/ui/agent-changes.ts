import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { profileWords } from '../integration/support/profile';
import { emulatorCall, seedWorkspaceFile, startOutage } from './support/emulatorApi';
import { TOAST_SPAM_WINDOW_MS } from './support/session';
import { until } from './support/webviewPage';
import type { UiTest, Workbench } from './support/workbench';

/** A demo agent with a workspace (the one `npm start`'s loop uses). */
const AGENT = 'Refactor billing module';

interface GroundFile {
	path: string;
	content_base64?: string;
}

const enc = encodeURIComponent;

/** The agent's files now, with contents (the emulator's ground truth). */
async function groundFiles(emulatorUrl: string, devToken: string, agentId: string): Promise<GroundFile[]> {
	return (
		await emulatorCall<{ files: GroundFile[] }>(emulatorUrl, devToken, 'GET', `/_emulator/workspace/${enc(agentId)}/files?content=true`)
	).files;
}

/** The Source Control view's rows (its side-bar container). */
function scmRows(page: Page): Locator {
	return page.locator('[id="workbench.view.scm"] .monaco-list-row');
}

/** The agent group's row in Source Control. */
function groupRow(page: Page): Locator {
	return scmRows(page).filter({ hasText: 'Changed by the agent' }).first();
}

/** Text as shown, white space folded; '' while it is not there. */
async function shownText(locator: Locator): Promise<string> {
	return ((await locator.innerText().catch(() => '')) || '').replace(/\s+/g, ' ').trim();
}

/** The row of a file of this test in Source Control (its name, and its folder as the description). */
function fileRow(page: Page, name: string, folder: string): Locator {
	return scmRows(page).filter({ hasText: name }).filter({ hasText: folder }).first();
}

/**
 * The Agents view's row of `name`, scrolled into view (the demo agent is the oldest: in a short
 * Agents view its row is below the ones shown).
 */
async function agentRowShown(page: Page, workbench: Workbench, name: string): Promise<Locator> {
	await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
	const agents = await workbench.expandedPane(VIEW_CONTAINER_ID, 'Agents');
	const row = agents.locator('.monaco-list-row', { hasText: name }).first();
	await agents.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 30_000 });
	for (let i = 0; i < 30 && !(await row.isVisible()); i++) {
		await agents.locator('.monaco-list').first().hover();
		await page.mouse.wheel(0, 100);
		await page.waitForTimeout(200);
	}
	return (await row.isVisible()) ? row : workbench.agentRow(name);
}

/** Send to Agent's question (a modal dialog), once shown: its text. */
async function sendQuestion(page: Page): Promise<string> {
	const dialog = page.locator('.monaco-dialog-box', { hasText: 'Send the local version of' });
	await dialog.waitFor({ state: 'visible', timeout: 10_000 });
	return dialog.innerText();
}

/** Answers Send to Agent's question with the button `label`, and waits for the dialog to close. */
async function answerSendQuestion(page: Page, label: string): Promise<void> {
	const dialog = page.locator('.monaco-dialog-box', { hasText: 'Send the local version of' });
	await dialog.locator('.dialog-buttons .monaco-button', { hasText: new RegExp(`^${label}$`) }).click();
	await dialog.waitFor({ state: 'hidden', timeout: 10_000 });
}

/**
 * Unlinks the link `label` through the palette ("Unlink Local Folder": no question with one link, a
 * pick by label with several).
 */
async function unlinkByUi(page: Page, workbench: Workbench, label: string): Promise<void> {
	await workbench.dismissDialogs();
	await workbench.runCommand('Cloud Agents: Unlink Local Folder');
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

/**
 * Issue 21: "after a run of a demo agent, the Source Control view shows the agent's source control
 * with the changed files; clicking one opens the diff; Apply to Local changes the local file". The
 * local folder is a temporary copy (outside the window's workspace) of the agent's files before the
 * run, with one folder a symbolic link to a folder outside; the run (through the service's API)
 * modifies two files and adds two (one of them under the symbolic link); the link is made as a
 * person makes it: the agent row's context menu → Compare with Local Folder… → the workspace root →
 * Choose a Folder… → VS Code's simple folder dialog, the path typed. Then, from the files' rows
 * (issue 32: Source Control's menus pass plain objects, which are a person's click): Send to Agent
 * asks before replacing the agent's copy (Cancel sends nothing), on a file the agent changed again
 * since the listing it is told as a conflict, and Apply to Local on
 * the file behind the symbolic link is told as refused (the file stays listed, nothing written
 * outside). At the end the link is unlinked (palette), editors closed, and the test's files removed
 * on both sides.
 */
const uiTest: UiTest = {
	title: 'after a run of a demo agent, Source Control lists its changes against a linked local folder; a click opens the diff; Apply to Local writes the file; from a row, a Send conflict and an Apply refusal are told',
	async run({ page, workbench, emulatorUrl, devToken, emulatorProfile, note, leavePage }) {
		const stamp = Date.now().toString(36);
		const folder = `ui-changes-${stamp}`;
		const modified = `${folder}/apply-me.md`;
		const added = `${folder}/added.md`;
		const conflict = `${folder}/conflict.md`;
		const behindLink = `${folder}/linked/x.md`;
		const agent = await seedWorkspaceFile(emulatorUrl, devToken, AGENT, modified, '# Apply me\n\nThe local copy.\n');
		await seedWorkspaceFile(emulatorUrl, devToken, AGENT, conflict, '# Conflict\n\nThe local copy.\n');
		const root = await mkdtemp(join(tmpdir(), 'ca-ui-changes-'));
		const local = join(root, 'billing-checkout');
		const label = `${AGENT} ↔ ${basename(local)}`;
		let linked = false;
		try {
			// The local checkout: the agent's files as they are before the run.
			for (const f of await groundFiles(emulatorUrl, devToken, agent.id)) {
				if (
					f.content_base64 === undefined ||
					f.path.split('/').some((s) => s === '' || s === '.' || s === '..') ||
					f.path.includes('\\')
				) {
					note(`not copied: ${JSON.stringify(f.path)}`);
					continue;
				}
				await mkdir(dirname(join(local, f.path)), { recursive: true });
				await writeFile(join(local, f.path), Buffer.from(f.content_base64, 'base64'));
			}
			// Locally, `linked` is a symbolic link to a folder outside the linked one.
			const outside = join(root, 'outside');
			await mkdir(outside);
			await symlink(outside, join(local, folder, 'linked'), 'dir');

			// The Agents view shown (it follows the agent's status while something is active).
			await workbench.runCommand('View: Close All Editors');
			const rowBefore = (await (await agentRowShown(page, workbench, AGENT)).innerText()).replace(/\s+/g, ' ');

			// A run of the agent modifies one of those files and adds one.
			const run = await emulatorCall<{ id: string }>(emulatorUrl, devToken, 'POST', `/v2/agents/${enc(agent.id)}/runs`, {
				prompt: `UI test ${stamp}: change four files [[write:${modified}]] [[write:${added}]] [[write:${conflict}]] [[write:${behindLink}]]`,
			});
			const succeeded = profileWords(emulatorProfile).run.succeeded;
			await until(page, `run ${run.id} to succeed`, async () => {
				const r = await emulatorCall<{ status: string }>(
					emulatorUrl,
					devToken,
					'GET',
					`/v2/agents/${enc(agent.id)}/runs/${enc(run.id)}`,
				);
				return r.status === succeeded ? true : undefined;
			});
			const agentCopy = (await groundFiles(emulatorUrl, devToken, agent.id)).find((f) => f.path === modified);
			assert.ok(agentCopy?.content_base64, `the agent's ${modified} after the run`);
			const agentBytes = Buffer.from(agentCopy.content_base64, 'base64');
			assert.match(agentBytes.toString('utf8'), new RegExp(run.id), 'the run appended a line naming itself');

			// Link as a person does: the agent row's context menu, the workspace root, a folder typed in the
			// dialog. The row first shows the run's end: the Agents view redraws when a poll brings news,
			// and a redraw drops every row's handle until the rows are read again (a context menu used
			// then runs without its row and asks which agent), so the menu is used once it did.
			await until(
				page,
				"the Agents view to show the agent's change",
				async () =>
					(await (await agentRowShown(page, workbench, AGENT)).innerText()).replace(/\s+/g, ' ') !== rowBefore ? true : undefined,
				30_000,
			);
			await page.waitForTimeout(1_000);
			const title = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Compare with Local Folder' }).first();
			const which = page.locator('.quick-input-widget input[placeholder="Pick an agent"]');
			for (let attempt = 1; ; attempt++) {
				await workbench.runContextMenuItem(await agentRowShown(page, workbench, AGENT), 'Compare with Local Folder…');
				await title.waitFor({ state: 'visible', timeout: 15_000 });
				await page.waitForTimeout(300);
				if (!(await which.isVisible())) {
					break;
				}
				// The row's handle was dropped by a redraw after all (a 60 s relative-time redraw).
				note(`attempt ${attempt}: the command ran without its row (asked which agent); again`);
				assert.ok(attempt < 3, 'Compare with Local Folder… on the agent row kept asking which agent');
				await workbench.dismissDialogs();
				await page.waitForTimeout(1_000);
			}
			await workbench.pickByKeyboard('Workspace root');
			await workbench.pickByKeyboard('Choose a Folder…');
			// VS Code's simple file dialog (code-server has no native one): a quick input holding a path.
			const input = page.locator('.quick-input-widget input');
			await input.waitFor({ state: 'visible', timeout: 15_000 });
			// The dialog lists the typed folder's entries once it took the path in; while it settles it may
			// rewrite the box (back to the folder it started in): type again until the path stays.
			for (let attempt = 1; ; attempt++) {
				await input.fill(`${local}/`);
				const listed = await page
					.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: folder })
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
			const closed = await page
				.locator('.quick-input-widget')
				.waitFor({ state: 'hidden', timeout: 10_000 })
				.then(
					() => true,
					() => false,
				);
			assert.ok(closed, `the folder dialog stayed open, reading ${JSON.stringify(await input.inputValue().catch(() => '?'))}`);
			linked = true;

			// Source Control opens with the link's source control and the run's two files.
			const modifiedRow = fileRow(page, 'apply-me.md', folder);
			const addedRow = fileRow(page, 'added.md', folder);
			await modifiedRow.waitFor({ state: 'visible', timeout: 60_000 });
			await addedRow.waitFor({ state: 'visible', timeout: 10_000 });
			await scmRows(page).filter({ hasText: 'Changed by the agent' }).first().waitFor({ state: 'visible', timeout: 10_000 });
			const rows = (await scmRows(page).allInnerTexts()).map((r) => r.replace(/\s+/g, ' ').trim());
			note(`Source Control: ${JSON.stringify(rows)}`);
			// The source control is the link's: its title actions are ours. (With one source control VS Code
			// shows no row for it, so its label "‹agent› ↔ ‹folder›" is not on the page; only the progress
			// notification of the first comparison names it, while it lasts.)
			await page
				.locator('.part.sidebar [aria-label^="Refresh Agent Changes"]')
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });

			// A click opens the diff local ↔ agent, each side with its own content.
			await modifiedRow.click();
			await page
				.locator('.tabs-container .tab', { hasText: `apply-me.md (local ↔ ${AGENT})` })
				.first()
				.waitFor({ state: 'visible', timeout: 30_000 });
			const diff = page.locator('.monaco-diff-editor').first();
			await diff.waitFor({ state: 'visible', timeout: 30_000 });
			await until(page, "the agent's line in the diff", async () =>
				((await diff.locator('.editor.modified .view-lines').textContent()) ?? '').includes(run.id) ? true : undefined,
			);
			assert.ok(
				!((await diff.locator('.editor.original .view-lines').textContent()) ?? '').includes(run.id),
				'the local side is the local copy',
			);
			await workbench.screenshot('agent-changes-diff');

			// Apply to Local on the file's row: the local file now holds the agent's bytes; the row goes.
			await workbench.clickInlineAction(modifiedRow, 'Apply to Local');
			await until(page, "the agent's bytes in the local file", async () =>
				Buffer.compare(await readFile(join(local, modified)), agentBytes) === 0 ? true : undefined,
			);
			await modifiedRow.waitFor({ state: 'hidden', timeout: 15_000 });
			// Nothing else was written locally: the added file is still only the agent's.
			await addedRow.waitFor({ state: 'visible', timeout: 5_000 });
			await assert.rejects(stat(join(local, added)), 'the file only the agent has was not written');
			await workbench.screenshot('agent-changes-applied');

			// Send to Agent asks before it replaces the agent's copy (issue 33: one click replaced it, with
			// no way back), naming the file and what is lost; Cancel sends nothing.
			const conflictRow = fileRow(page, 'conflict.md', folder);
			await conflictRow.waitFor({ state: 'visible', timeout: 10_000 });
			const conflictCopy = async (): Promise<string> =>
				Buffer.from(
					(await groundFiles(emulatorUrl, devToken, agent.id)).find((f) => f.path === conflict)?.content_base64 ?? '',
					'base64',
				).toString('utf8');
			const before = await conflictCopy();
			await workbench.clickInlineAction(conflictRow, 'Send to Agent…');
			const asked = await sendQuestion(page);
			assert.match(asked, /conflict\.md/);
			assert.match(asked, /what the agent wrote there is lost/);
			await answerSendQuestion(page, 'Cancel');
			assert.equal(await conflictCopy(), before, 'Cancel sent nothing');
			await conflictRow.waitFor({ state: 'visible', timeout: 5_000 });

			// Send to Agent on a file the agent changed again since it was listed: a conflict, and the
			// person is told so (nothing is written to the agent's copy).
			await emulatorCall(emulatorUrl, devToken, 'POST', `/_emulator/workspace/${enc(agent.id)}/write`, {
				path: conflict,
				content_base64: Buffer.from('# Conflict\n\nThe agent again.\n').toString('base64'),
			});
			await workbench.clickInlineAction(conflictRow, 'Send to Agent…');
			await sendQuestion(page);
			await answerSendQuestion(page, 'Send to Agent');
			const told = await workbench.waitForNotification('changed in the agent workspace since it was listed');
			assert.match(told, /conflict\.md/);
			const agentConflict = (await groundFiles(emulatorUrl, devToken, agent.id)).find((f) => f.path === conflict);
			assert.equal(Buffer.from(agentConflict?.content_base64 ?? '', 'base64').toString('utf8'), '# Conflict\n\nThe agent again.\n');
			// The workbench shows at most three toasts, and no new toast once three came within 800 ms
			// (its spam protection: the notification goes to the notification centre only). The Send's
			// progress and conflict, then the Apply's progress and refusal, came within 650 ms in a run
			// whose refusal the extension showed but no toast carried. Clear what was read and let the
			// spam window pass, as the sign-in helper does.
			await workbench.runCommand('Notifications: Clear All Notifications');
			await page
				.locator('.notifications-toasts .notification-list-item', { hasText: 'changed in the agent workspace since it was listed' })
				.first()
				.waitFor({ state: 'hidden', timeout: 10_000 });
			await page.waitForTimeout(TOAST_SPAM_WINDOW_MS + 200);

			// Apply to Local on the file behind the symbolic link: refused, the person told why, the row kept.
			const linkedRow = fileRow(page, 'x.md', `${folder}/linked`);
			await linkedRow.waitFor({ state: 'visible', timeout: 10_000 });
			await workbench.clickInlineAction(linkedRow, 'Apply to Local');
			const refused = await workbench.waitForNotification('could not be applied');
			assert.match(refused, /x\.md.*symbolic link/);
			await linkedRow.waitFor({ state: 'visible', timeout: 5_000 });
			assert.deepEqual(await readdir(outside), [], 'nothing written through the symbolic link');
			await workbench.screenshot('agent-changes-told');

			// Issues 33 and 42 (item 4): a comparison that could not reach the service is never a "0". With
			// the service refusing every connection, a reload (a new extension host that has compared nothing
			// yet): Source Control says it was not compared, and shows no group with a count. The service
			// back, the link compares by itself (no click) and lists the agent's files again. Once, in the
			// standard pass (a reload is slow; the variant pass checks the same code against the other
			// dialect above).
			if (emulatorProfile === 'standard') {
				const outage = await startOutage(emulatorUrl, 'refuse', 120);
				try {
					// No editor to restore: this step is about Source Control (a restored diff of the agent's
					// file would fail to read with the service away, which VS Code logs as an error).
					await workbench.runCommand('View: Close All Editors');
					await leavePage(() => workbench.runCommand('Developer: Reload Window'));
					// Said in the source control's input box (read-only), with no group row and so no count.
					const scmText = (): Promise<string> => shownText(page.locator('[id="workbench.view.scm"]').first());
					const failed = await until(
						page,
						'Source Control saying it was not compared',
						async () =>
							(await scmText()).includes('Not compared, Refresh to try again. The comparison failed: ')
								? scmText()
								: undefined,
						60_000,
					);
					note(`Source Control during the outage: ${failed}`);
					assert.equal(await groupRow(page).count(), 0, `no group row (and no "0") before a comparison: ${failed}`);
					await workbench.screenshot('agent-changes-not-compared');
				} finally {
					await outage.end();
				}
				await until(
					page,
					'the link compared again by itself',
					async () =>
						(await shownText(groupRow(page).locator('.label-name, .name').first())) === 'Changed by the agent' &&
						(await addedRow.isVisible())
							? true
							: undefined,
					120_000,
				);
			}

			await unlinkByUi(page, workbench, label);
			await addedRow.waitFor({ state: 'hidden', timeout: 15_000 });
			linked = false;
		} finally {
			await workbench.dismissDialogs();
			if (linked) {
				await unlinkByUi(page, workbench, label).catch((err: unknown) => note(`unlink failed: ${String(err)}`));
			}
			await workbench.runCommand('View: Close All Editors');
			await emulatorCall(emulatorUrl, devToken, 'POST', `/_emulator/workspace/${enc(agent.id)}/delete`, {
				path: folder,
				recursive: true,
			}).catch((err: unknown) => note(`could not delete ${folder} on the agent: ${String(err)}`));
			await rm(root, { recursive: true, force: true });
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		}
	},
};

export default uiTest;
