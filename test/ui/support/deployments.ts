/**
 * Several deployments in the UI tests (issue 47): the lane's emulator is the default deployment, the
 * driver's second emulator (`secondEmulator: true`, UiContext.secondEmulatorUrl) is added as
 * "Staging"; the Agents view's rows read with their depth, so that a row is found under its
 * deployment's root row.
 */
import * as assert from 'node:assert/strict';
import type { Locator } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../../src/ids';
import { signInWithKey } from './session';
import { writeSettingsInEditor } from './settings';
import { until } from './webviewPage';
import type { Workbench } from './workbench';

/** The name the second emulator is configured under. */
export const STAGING = 'Staging';

/** A drawn row of a list: its place in the list, its depth (1: a top row) and its text on one line. */
export interface ListRow {
	index: number;
	level: number;
	/** Its label (the tree item's label, the Explorer's file name). */
	label: string;
	/** All its text: the label, then its description. */
	text: string;
}

/** The rows `list` draws now (those in view), in list order. */
export async function drawnRows(list: Locator): Promise<ListRow[]> {
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
export function rowsUnder(rows: readonly ListRow[], isRoot: (row: ListRow) => boolean): ListRow[] | undefined {
	const at = rows.findIndex((r) => r.level === 1 && isRoot(r));
	if (at < 0) {
		return undefined;
	}
	const next = rows.findIndex((r, i) => i > at && r.level === 1);
	return rows.slice(at + 1, next < 0 ? undefined : next);
}

/** Whether a row's label is `name`. */
export const labelled =
	(name: string) =>
	(row: ListRow): boolean =>
		row.label === name;

/** Shows or hides a view of the Cloud Agents container by its header; resolves with whether it was expanded. */
export async function setExpanded(workbench: Workbench, title: string, expanded: boolean): Promise<boolean> {
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
export async function waitForRootRows(workbench: Workbench, roots: readonly string[], agents: readonly string[]): Promise<ListRow[]> {
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
export async function agentRowUnder(workbench: Workbench, root: string, agent: string): Promise<Locator> {
	await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
	const pane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
	await pane.locator('.monaco-list-row').first().waitFor({ state: 'visible', timeout: 30_000 });
	const row = rowsUnder(await drawnRows(pane), labelled(root))?.find((r) => labelled(agent)(r));
	assert.ok(row, `no row of ${agent} drawn under ${root}`);
	return pane.locator(`.monaco-list-row[data-index="${row.index}"]`);
}

/**
 * Adds the second emulator as Staging to `cloudAgents.deployments` (user settings as `settings`
 * held them, through the settings editor) and signs in to it from the palette (Sign In asks which
 * deployment) with a key of its own from its admin API, as `npm run demo:key` prints one; resolves
 * once the message named Staging.
 */
export async function addStaging(
	workbench: Workbench,
	settingsFile: string,
	settings: Record<string, unknown>,
	stagingUrl: string,
	note: (line: string) => void,
): Promise<void> {
	await writeSettingsInEditor(workbench, settingsFile, {
		...settings,
		'cloudAgents.deployments': [{ name: STAGING, apiUrl: stagingUrl }],
	});
	await signInToStaging(workbench, stagingUrl, note);
}

/**
 * Signs in to Staging (already in `cloudAgents.deployments`) from the palette (Sign In asks which
 * deployment) with a new key from its admin API; resolves once the message named Staging.
 */
export async function signInToStaging(workbench: Workbench, stagingUrl: string, note: (line: string) => void): Promise<void> {
	const res = await fetch(`${stagingUrl}/_emulator/keys`, { method: 'POST' });
	assert.equal(res.status, 201, `POST /_emulator/keys answered ${res.status}`);
	const key = ((await res.json()) as { api_key: string }).api_key;
	// The key's check answers slowly, as on a busy machine (a reversed run of the whole suite): the
	// sign-in must not be cancelled while its box waits (signInWithKey returns once the box closed).
	await setFaults(stagingUrl, [{ method: 'GET', route: '/v2/me', latency_ms: 2_000, count: 1 }]);
	try {
		await signInWithKey(workbench, key, undefined, () => workbench.pickByKeyboard(STAGING, 15_000));
		// The message names the deployment (the key's box said "Cloud Agents", as with one deployment).
		note(await workbench.waitForNotification(`Signed in to ${STAGING} as`));
	} finally {
		await setFaults(stagingUrl, []);
	}
}

/** Sets the fault rules of the emulator at `url` (none: cleared). */
async function setFaults(url: string, rules: unknown[]): Promise<void> {
	const res = await fetch(`${url}/_emulator/faults`, {
		method: rules.length > 0 ? 'PUT' : 'DELETE',
		headers: { 'content-type': 'application/json' },
		body: rules.length > 0 ? JSON.stringify({ rules }) : undefined,
	});
	assert.equal(res.status, 200, `${rules.length > 0 ? 'PUT' : 'DELETE'} /_emulator/faults answered ${res.status}`);
}

/**
 * Signs out of Staging from the palette (it asks which deployment; confirmed when it asks, as
 * `cloudAgents.confirmSignOut` may be off); resolves once the Agents view shows the default
 * deployment's rows alone, without a root row, and the message named Staging.
 */
export async function signOutOfStaging(
	workbench: Workbench,
	defaultName: string,
	defaultAgent: string,
	note: (line: string) => void,
): Promise<void> {
	const page = workbench.page;
	await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
	await workbench.runCommand('Cloud Agents: Sign Out');
	await workbench.pickByKeyboard(STAGING, 15_000);
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
}
