import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Locator } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { emulatorCall } from './support/emulatorApi';
import { expandRow, showExplorer } from './support/explorer';
import { signInWithKey } from './support/session';
import { restoreSettings, userSettingsFile, writeSettingsInEditor } from './support/settings';
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

const STAGING = 'Staging';
/** The demo seed's agent both services have (by id; its name on the default emulator may have changed). */
const SEED_AGENT = 'Refactor billing module';
/** A file only the default deployment's copy of the agent has, and one only Staging's has. */
const DEFAULT_FILE = 'only-on-the-first-service.md';
const STAGING_FILE = 'only-on-staging.md';
/** Views of the container collapsed while the test runs, so that the Agents view draws both deployments' rows. */
const OTHER_VIEWS = ['Runtimes', 'Runs', 'Artifacts'];

/** A drawn row of a list: its place in the list, its depth (1: a top row) and its text on one line. */
interface ListRow {
	index: number;
	level: number;
	/** Its label (the tree item's label, the Explorer's file name). */
	label: string;
	/** All its text: the label, then its description. */
	text: string;
}

/** The rows `list` draws now (those in view), in list order. */
async function drawnRows(list: Locator): Promise<ListRow[]> {
	// The tests are type-checked without the DOM's types: the elements as far as this reads them.
	type Drawn = {
		getAttribute(name: string): string | null;
		querySelector(selector: string): { textContent: string | null } | null;
		innerText: string;
	};
	const rows = await list.locator('.monaco-list-row').evaluateAll((els) =>
		(els as unknown as Drawn[]).map((e) => ({
			index: Number(e.getAttribute('data-index')),
			level: Number(e.getAttribute('aria-level')),
			text: e.innerText.replace(/\s+/g, ' ').trim(),
			label: (e.querySelector('.label-name')?.textContent ?? e.innerText).replace(/\s+/g, ' ').trim(),
		})),
	);
	return rows.sort((a, b) => a.index - b.index);
}

/** The rows under the first top row `isRoot` accepts, up to the next top row (undefined: no such top row drawn). */
function rowsUnder(rows: readonly ListRow[], isRoot: (row: ListRow) => boolean): ListRow[] | undefined {
	const at = rows.findIndex((r) => r.level === 1 && isRoot(r));
	if (at < 0) {
		return undefined;
	}
	const next = rows.findIndex((r, i) => i > at && r.level === 1);
	return rows.slice(at + 1, next < 0 ? undefined : next);
}

/** Whether a row's label is `name`. */
const labelled =
	(name: string) =>
	(row: ListRow): boolean =>
		row.label === name;

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

/** Shows or hides a view of the Cloud Agents container by its header; resolves with whether it was expanded. */
async function setExpanded(workbench: Workbench, title: string, expanded: boolean): Promise<boolean> {
	const header = workbench.pane(VIEW_CONTAINER_ID, title).locator('.pane-header');
	const was = (await header.getAttribute('aria-expanded')) === 'true';
	if (was !== expanded) {
		await header.click();
	}
	return was;
}

/**
 * Waits until the Agents view shows a root row for each of `roots` (in that order, and no other),
 * each with a row of its agent (`agents[i]`); resolves with the drawn rows.
 */
async function waitForRootRows(workbench: Workbench, roots: readonly string[], agents: readonly string[]): Promise<ListRow[]> {
	const pane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
	let last: ListRow[] = [];
	try {
		return await until(
			workbench.page,
			`a root row per deployment (${roots.join(', ')}) in the Agents view`,
			async () => {
				last = await drawnRows(pane);
				const top = last.filter((r) => r.level === 1);
				const ok =
					top.length === roots.length &&
					roots.every(
						(name, i) => labelled(name)(top[i]!) && rowsUnder(last, labelled(name))!.some((r) => labelled(agents[i]!)(r)),
					);
				return ok ? last : undefined;
			},
			60_000,
		);
	} catch (err) {
		throw new Error(
			`${err instanceof Error ? err.message : String(err)}; the rows drawn: ${JSON.stringify(last.map((r) => `${r.level} ${r.text}`))}`,
			{ cause: err },
		);
	}
}

/** The Agents view's row of `agent` under the root row `root`. */
async function agentRowUnder(workbench: Workbench, root: string, agent: string): Promise<Locator> {
	await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
	const pane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
	await pane.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 30_000 });
	const row = rowsUnder(await drawnRows(pane), labelled(root))?.find((r) => labelled(agent)(r));
	assert.ok(row, `no row of ${agent} drawn under ${root}`);
	return pane.locator(`.monaco-list-row[data-index="${row.index}"]`);
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

/** Checks that the two agent folders (the default's first, Staging's second) show each service's own file. */
async function checkFolders(workbench: Workbench, note: (line: string) => void, when: string): Promise<void> {
	const first = await folderEntries(workbench, 0, DEFAULT_FILE);
	const second = await folderEntries(workbench, 1, STAGING_FILE);
	note(`${when}: the first folder shows ${JSON.stringify(first)}, the second ${JSON.stringify(second)}`);
	assert.ok(!first.includes(STAGING_FILE), `the default deployment's folder shows Staging's file: ${JSON.stringify(first)}`);
	assert.ok(!second.includes(DEFAULT_FILE), `Staging's folder shows the default deployment's file: ${JSON.stringify(second)}`);
}

/** Removes every agent folder from the window, the last first. */
async function removeAgentFolders(workbench: Workbench): Promise<void> {
	const explorer = await showExplorer(workbench.page, workbench);
	for (let left = (await agentFolders(explorer)).length; left > 0; left--) {
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
		// Staging's own key, as `npm run demo:key` prints it (signing out revokes it there only).
		const keyRes = await fetch(`${secondEmulatorUrl}/_emulator/keys`, { method: 'POST' });
		assert.equal(keyRes.status, 201);
		const stagingKey = ((await keyRes.json()) as { api_key: string }).api_key;

		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		const expanded = new Map<string, boolean>();
		try {
			for (const title of OTHER_VIEWS) {
				expanded.set(title, await setExpanded(workbench, title, false));
			}
			const settings = JSON.parse(originalSettings) as Record<string, unknown>;
			await writeSettingsInEditor(workbench, settingsFile, {
				...settings,
				'cloudAgents.deployments': [{ name: STAGING, apiUrl: secondEmulatorUrl }],
			});

			// Sign In asks which deployment (two are configured); Staging, then its key.
			await signInWithKey(workbench, stagingKey, undefined, () => workbench.pickByKeyboard(STAGING, 15_000));
			// The message names the deployment (the key's box said "Cloud Agents", as with one deployment).
			note(await workbench.waitForNotification(`Signed in to ${STAGING} as`));

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
			assert.equal(folders.length, 2, `two agent folders: ${JSON.stringify(folders.map((f) => f.text))}`);
			await checkFolders(workbench, note, 'opened');
			await workbench.screenshot('deployments-workspaces');

			// A reload: both root rows again, both folders on their own service.
			await leavePage(() => workbench.runCommand('Developer: Reload Window'));
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			await waitForRootRows(workbench, [defaultName, STAGING], [defaultAgent, SEED_AGENT]);
			await checkFolders(workbench, note, 'after the reload');

			// Signing out of Staging (its folder closed first) keeps the default deployment's rows.
			const stagingFolder = (await agentFolders(await showExplorer(page, workbench)))[1]!;
			await workbench.runContextMenuItem(
				(await showExplorer(page, workbench)).locator(`.monaco-list-row[data-index="${stagingFolder.index}"]`),
				'Remove Folder from Workspace',
			);
			await until(page, 'Staging folder removed', async () =>
				(await agentFolders(await showExplorer(page, workbench))).length === 1 ? true : undefined,
			);
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			await workbench.runCommand('Cloud Agents: Sign Out');
			await workbench.pickByKeyboard(STAGING, 15_000);
			// Confirmed when it asks (cloudAgents.confirmSignOut may have been turned off).
			const confirm = page.locator('.monaco-dialog-box .dialog-buttons .monaco-button', { hasText: /^Sign Out$/ });
			const pane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
			const after = await until(
				page,
				"the default deployment's rows alone",
				async () => {
					if (await confirm.isVisible().catch(() => false)) {
						await confirm.click().catch(() => undefined);
					}
					const drawn = await drawnRows(pane);
					return drawn.every((r) => r.level === 1) && drawn.some((r) => labelled(defaultAgent)(r)) ? drawn : undefined;
				},
				30_000,
			);
			note(await workbench.waitForNotification(`Signed out of ${STAGING}`));
			assert.ok(!after.some((r) => labelled(STAGING)(r) || labelled(defaultName)(r)), `no root row: ${JSON.stringify(after)}`);
			await folderEntries(workbench, 0, DEFAULT_FILE);
		} finally {
			await workbench.dismissDialogs();
			await workbench.runCommand('View: Close All Editors').catch(() => undefined);
			await removeAgentFolders(workbench).catch((err: unknown) => note(`removing the agent folders: ${String(err)}`));
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
