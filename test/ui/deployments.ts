import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { emulatorCall } from './support/emulatorApi';
import { expandRow, showExplorer } from './support/explorer';
import {
	type ListRow,
	STAGING,
	addStaging,
	agentRowUnder,
	drawnRows,
	setExpanded,
	signOutOfStaging,
	waitForRootRows,
} from './support/deployments';
import { restoreSettings, userSettingsFile } from './support/settings';
import { until } from './support/webviewPage';
import type { UiTest, Workbench } from './support/workbench';

/**
 * Several deployments side by side (issue 47) as a person sees them: the lane's emulator is the
 * default deployment (signed in with the dev token), a second emulator of the same demo seed (the
 * same agent ids) is added as "Staging" in `cloudAgents.deployments` and signed in from the palette
 * with a key of its own. The Agents view lists both under a root row each; Open Agent Workspace on
 * each deployment's row of the same agent opens two folders, each with the file only its service
 * has; a reload brings back both root rows and both folders with the right files; signing out of
 * Staging leaves the default deployment's rows. Settings, folders and seeded files are put back.
 */

/** The demo seed's agent both services have (by id; its name on the default emulator may have changed). */
const SEED_AGENT = 'Refactor billing module';
/** A file only the default deployment's copy of the agent has, and one only Staging's has. */
const DEFAULT_FILE = 'only-on-the-first-service.md';
const STAGING_FILE = 'only-on-staging.md';
/** Views of the container collapsed while the test runs, so that the Agents view draws both deployments' rows. */
const OTHER_VIEWS = ['Runtimes', 'Runs', 'Artifacts'];

/** The agent `agentId`'s name as `emulatorUrl` has it. */
async function agentName(emulatorUrl: string, token: string, agentId: string): Promise<string> {
	return (await emulatorCall<{ name: string }>(emulatorUrl, token, 'GET', `/v2/agents/${encodeURIComponent(agentId)}`)).name;
}

/** Writes `path` (one line naming it) into the agent's workspace on `emulatorUrl`, through the admin API. */
async function writeAgentFile(emulatorUrl: string, token: string, agentId: string, path: string): Promise<void> {
	await emulatorCall(emulatorUrl, token, 'POST', `/_emulator/workspace/${encodeURIComponent(agentId)}/write`, {
		path,
		content_base64: Buffer.from(`# ${path}\n`).toString('base64'),
	});
}

/** Open Agent Workspace on `row` (its context menu), Add to Workspace; resolves once the Explorer has one more top folder. */
async function openWorkspaceFromRow(workbench: Workbench, row: Locator): Promise<void> {
	const page = workbench.page;
	const explorer = await showExplorer(page, workbench);
	const before = await explorer.locator('.monaco-list-row[aria-level="1"]').count();
	await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
	await workbench.runContextMenuItem(row, 'Open Agent Workspace');
	const add = page.locator('.monaco-dialog-box .monaco-button', { hasText: 'Add to Workspace' });
	await add.waitFor({ state: 'visible', timeout: 15_000 });
	await add.click();
	await until(page, 'the folder in the Explorer', async () =>
		(await explorer.locator('.monaco-list-row[aria-level="1"]').count()) > before ? true : undefined,
	);
}

/** The Explorer's top folders named "Agent: …", in order, as drawn rows. */
async function agentFolders(explorer: Locator): Promise<ListRow[]> {
	return (await drawnRows(explorer)).filter((r) => r.level === 1 && r.label.startsWith('Agent: '));
}

/**
 * The names of the files and folders at the top of the `nth` agent folder of the Explorer (expanded
 * for it), once they include `expected`.
 */
async function folderEntries(workbench: Workbench, nth: number, expected: string): Promise<string[]> {
	const page = workbench.page;
	const explorer = await showExplorer(page, workbench);
	let shown: string[] = [];
	try {
		return await until(
			page,
			`${expected} in agent folder ${nth + 1}`,
			async () => {
				const folder = (await agentFolders(explorer))[nth];
				if (folder === undefined) {
					return undefined;
				}
				const row = explorer.locator(`.monaco-list-row[data-index="${folder.index}"]`);
				if ((await row.getAttribute('aria-expanded')) !== 'true') {
					await expandRow(page, row);
				}
				const rows = await drawnRows(explorer);
				const at = rows.findIndex((r) => r.index === folder.index);
				const next = rows.findIndex((r, i) => i > at && r.level === 1);
				shown = rows
					.slice(at + 1, next < 0 ? undefined : next)
					.filter((r) => r.level === 2)
					.map((r) => r.label);
				return shown.includes(expected) ? shown : undefined;
			},
			30_000,
		);
	} catch (err) {
		throw new Error(`${err instanceof Error ? err.message : String(err)}; the folder shows: ${JSON.stringify(shown)}`, { cause: err });
	}
}

/**
 * Checks that the two agent folders this test added (after the `base` ones the window had: the
 * default's first, Staging's second) show each service's own file.
 */
async function checkFolders(workbench: Workbench, base: number, note: (line: string) => void, when: string): Promise<void> {
	const first = await folderEntries(workbench, base, DEFAULT_FILE);
	const second = await folderEntries(workbench, base + 1, STAGING_FILE);
	note(`${when}: the first folder shows ${JSON.stringify(first)}, the second ${JSON.stringify(second)}`);
	assert.ok(!first.includes(STAGING_FILE), `the default deployment's folder shows Staging's file: ${JSON.stringify(first)}`);
	assert.ok(!second.includes(DEFAULT_FILE), `Staging's folder shows the default deployment's file: ${JSON.stringify(second)}`);
}

/** Removes the agent folders after the first `base` from the window, the last first. */
async function removeAgentFolders(workbench: Workbench, base: number): Promise<void> {
	const explorer = await showExplorer(workbench.page, workbench);
	for (let left = (await agentFolders(explorer)).length; left > base; left--) {
		const folder = (await agentFolders(explorer)).at(-1)!;
		await workbench.runContextMenuItem(
			explorer.locator(`.monaco-list-row[data-index="${folder.index}"]`),
			'Remove Folder from Workspace',
		);
		await until(workbench.page, 'the folder removed', async () => ((await agentFolders(explorer)).length < left ? true : undefined));
	}
}

const uiTest: UiTest = {
	title: 'several deployments: two emulators listed side by side under a root row each; the same agent id opens two folders with each service its files; a reload restores both; signing out of one keeps the other',
	secondEmulator: true,
	async run({ page, workbench, emulatorUrl, secondEmulatorUrl, devToken, userDataDir, note, leavePage }) {
		assert.ok(secondEmulatorUrl, 'the driver started a second emulator');
		const settingsFile = userSettingsFile(userDataDir);
		const originalSettings = readFileSync(settingsFile, 'utf8');
		const defaultName = new URL(emulatorUrl).host;

		// The same agent id on both services (the demo seed's ids are stable); a file only each has.
		const agents = await emulatorCall<{ agents?: Array<{ id: string; name: string }> }>(
			secondEmulatorUrl,
			devToken,
			'GET',
			'/v2/agents?limit=100',
		);
		const agentId = (agents.agents ?? []).find((a) => a.name === SEED_AGENT)?.id;
		assert.ok(agentId, `the second emulator has the demo seed's ${SEED_AGENT}`);
		const defaultAgent = await agentName(emulatorUrl, devToken, agentId);
		await writeAgentFile(emulatorUrl, devToken, agentId, DEFAULT_FILE);
		await writeAgentFile(secondEmulatorUrl, devToken, agentId, STAGING_FILE);
		// Agent folders an earlier test left open (none, usually): this test's come after them.
		const base = (await agentFolders(await showExplorer(page, workbench))).length;
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		const expanded = new Map<string, boolean>();
		try {
			for (const title of OTHER_VIEWS) {
				expanded.set(title, await setExpanded(workbench, title, false));
			}
			await addStaging(workbench, settingsFile, JSON.parse(originalSettings) as Record<string, unknown>, secondEmulatorUrl, note);

			// Both deployments' agents, each under its root row: the same agent id twice.
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			const rows = await waitForRootRows(workbench, [defaultName, STAGING], [defaultAgent, SEED_AGENT]);
			note(`the Agents view: ${JSON.stringify(rows.filter((r) => r.level === 1).map((r) => r.text))}`);
			await workbench.runCommand('Notifications: Clear All Notifications');
			await workbench.screenshot('deployments-views');

			// Open Agent Workspace on each deployment's row of that agent: two folders, each with its service's file.
			await openWorkspaceFromRow(workbench, await agentRowUnder(workbench, defaultName, defaultAgent));
			await openWorkspaceFromRow(workbench, await agentRowUnder(workbench, STAGING, SEED_AGENT));
			const explorer = await showExplorer(page, workbench);
			const folders = await agentFolders(explorer);
			assert.equal(folders.length, base + 2, `two agent folders more: ${JSON.stringify(folders.map((f) => f.label))}`);
			await checkFolders(workbench, base, note, 'opened');
			await workbench.screenshot('deployments-workspaces');

			// A reload: both root rows again, both folders on their own service.
			await leavePage(() => workbench.runCommand('Developer: Reload Window'));
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			await waitForRootRows(workbench, [defaultName, STAGING], [defaultAgent, SEED_AGENT]);
			await checkFolders(workbench, base, note, 'after the reload');

			// Signing out of Staging (its folder closed first) keeps the default deployment's rows and folder.
			await removeAgentFolders(workbench, base + 1);
			await signOutOfStaging(workbench, defaultName, defaultAgent, note);
			await folderEntries(workbench, base, DEFAULT_FILE);
		} finally {
			await workbench.dismissDialogs();
			await workbench.runCommand('View: Close All Editors').catch(() => undefined);
			await removeAgentFolders(workbench, base).catch((err: unknown) => note(`removing the agent folders: ${String(err)}`));
			await restoreSettings(workbench, settingsFile, originalSettings);
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID).catch(() => undefined);
			for (const [title, was] of expanded) {
				await setExpanded(workbench, title, was).catch(() => undefined);
			}
			await emulatorCall(emulatorUrl, devToken, 'POST', `/_emulator/workspace/${encodeURIComponent(agentId)}/delete`, {
				path: DEFAULT_FILE,
			}).catch(() => undefined);
			await emulatorCall(secondEmulatorUrl, devToken, 'POST', `/_emulator/workspace/${encodeURIComponent(agentId)}/delete`, {
				path: STAGING_FILE,
			}).catch(() => undefined);
		}
	},
};

export default uiTest;
