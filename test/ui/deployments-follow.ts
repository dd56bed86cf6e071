import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { createIdleAgent, emulatorCall } from './support/emulatorApi';
import { STAGING, addStaging, agentRowUnder, setExpanded, signInToStaging, signOutOfStaging, waitForRootRows } from './support/deployments';
import { restoreSettings, userSettingsFile } from './support/settings';
import { until } from './support/webviewPage';
import type { UiTest, Workbench } from './support/workbench';

/**
 * Followed runs of several deployments (issue 47, "a run followed on each at once, each announced
 * with its deployment; sign-out of one keeps the other's follows; a reload restores both"): the
 * lane's emulator is the default deployment, a second emulator is added as "Staging" and signed in.
 * An agent of the same name on each service gets the same prompt (held running by the emulator's
 * `[[hold]]`) from Send Prompt on its row under its deployment's root row: two status bar items at
 * once, told apart only by the deployment name each ends with, as each run's output channel (its
 * item's Show Output) is. After a reload both are followed
 * again. Signing out of Staging removes its item and leaves the default deployment's running; the
 * default's run ends with a notification naming its deployment; signed in to Staging again, its run
 * is followed again, and its end is announced naming Staging. Settings, agents and runs are put back.
 */

/** The prompt sent on both deployments (short: the status bar cuts a run's name at 48 characters). */
const PROMPT = 'Both at once [[hold]]';
/** Views of the container collapsed while the test runs, so that the Agents view draws both deployments' rows. */
const OTHER_VIEWS = ['Runtimes', 'Runs', 'Artifacts'];

/** One deployment's side of the test: its emulator, its agent, its run and that run's status bar item. */
interface Side {
	/** The deployment's name as the UI says it. */
	name: string;
	emulatorUrl: string;
	agentId: string;
	runId?: string;
	/** The status bar item of the run (its name, then the deployment's in parentheses). */
	item: Locator;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The status bar's texts, for failure messages. */
async function statusBar(page: Page): Promise<string[]> {
	return (await page.locator('.statusbar-item').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim()).filter((t) => t !== '');
}

/** Waits until `side`'s status bar item says `status` (bounded); resolves with its text. */
async function itemSays(page: Page, side: Side, status: string, timeoutMs = 30_000): Promise<string> {
	const item = side.item.filter({ hasText: `— ${status}` });
	await item.waitFor({ state: 'visible', timeout: timeoutMs }).catch(async () => {
		assert.fail(`the status bar shows no item of ${side.name}'s run saying "${status}": ${JSON.stringify(await statusBar(page))}`);
	});
	return (await item.innerText()).replace(/\s+/g, ' ').trim();
}

/** The status of `side`'s run as its service has it. */
async function runStatus(side: Side, token: string): Promise<string | undefined> {
	const runs = await emulatorCall<Array<{ id: string; status: string }>>(
		side.emulatorUrl,
		token,
		'GET',
		`/v2/agents/${encodeURIComponent(side.agentId)}/runs?limit=100`,
	);
	return runs.find((r) => r.id === side.runId)?.status;
}

/** Send Prompt from the agent's row under `side`'s root row; resolves with the new run's id once its service has it. */
async function sendPromptOn(workbench: Workbench, side: Side, agentName: string, token: string): Promise<string> {
	const page = workbench.page;
	const row = await agentRowUnder(workbench, side.name, agentName);
	await workbench.clickInlineAction(row, 'Send Prompt…');
	await page
		.locator('.quick-input-widget .quick-input-title', { hasText: 'Send Prompt to' })
		.filter({ hasText: agentName })
		.first()
		.waitFor({ state: 'visible', timeout: 15_000 });
	await page.locator('.quick-input-widget input').fill(PROMPT);
	await page.keyboard.press('Enter');
	const path = `/v2/agents/${encodeURIComponent(side.agentId)}/runs?limit=100`;
	for (let i = 0; i < 100; i++) {
		const run = (await emulatorCall<Array<{ id: string; prompt?: string }>>(side.emulatorUrl, token, 'GET', path)).find(
			(r) => r.prompt === PROMPT,
		);
		if (run) {
			return run.id;
		}
		await page.waitForTimeout(200);
	}
	assert.fail(`Send Prompt on ${side.name}'s row created no run`);
}

/**
 * The status bar item of `side`'s run, clicked, offers Show Output: the Output panel shows the run's
 * channel, whose name ends with the deployment's; resolves with that name.
 */
async function shownChannel(workbench: Workbench, side: Side, agentName: string): Promise<string> {
	const page = workbench.page;
	await side.item.click();
	await workbench.pickByKeyboard('Show Output', 10_000);
	const expected = `Cloud Agents: ${agentName}: ${PROMPT} (${side.name})`;
	// The Output view's channel picker (a select box in the panel's title): its chosen option.
	const chosen = (): Promise<string[]> =>
		page
			.locator('.part.panel select')
			.evaluateAll((els) =>
				(els as unknown as Array<{ selectedOptions: ArrayLike<{ textContent: string | null }> }>).map((e) =>
					Array.from(e.selectedOptions, (o) => (o.textContent ?? '').trim()).join(' '),
				),
			);
	let last: string[] = [];
	try {
		return await until(page, `the Output panel showing ${expected}`, async () => {
			last = await chosen();
			return last.find((t) => t === expected);
		});
	} catch (err) {
		throw new Error(`${err instanceof Error ? err.message : String(err)}; the panel's pickers show ${JSON.stringify(last)}`, {
			cause: err,
		});
	}
}

/** Cancels `side`'s run through its service's API (as another client would). */
async function cancelRun(side: Side, token: string): Promise<void> {
	await emulatorCall(
		side.emulatorUrl,
		token,
		'DELETE',
		`/v2/agents/${encodeURIComponent(side.agentId)}/runs/${encodeURIComponent(side.runId!)}`,
	);
}

const uiTest: UiTest = {
	title: 'several deployments: a run followed on each at once, each named with its deployment in the status bar and its end notification; signing out of one keeps the other followed; a reload follows both again',
	secondEmulator: true,
	async run({ page, workbench, emulatorUrl, secondEmulatorUrl, devToken, userDataDir, note, leavePage }) {
		assert.ok(secondEmulatorUrl, 'the driver started a second emulator');
		const settingsFile = userSettingsFile(userDataDir);
		const originalSettings = readFileSync(settingsFile, 'utf8');
		const defaultName = new URL(emulatorUrl).host;
		// The same agent name on both services: only the deployment's name tells their runs apart.
		const agentName = `Twin ${Date.now() % 1_000_000}`;
		const [first, second] = await Promise.all([
			createIdleAgent(emulatorUrl, devToken, agentName),
			createIdleAgent(secondEmulatorUrl, devToken, agentName),
		]);
		const itemOf = (deployment: string): Locator =>
			page.locator('.statusbar-item', { hasText: `${agentName}: Both at once` }).filter({ hasText: `(${deployment})` });
		const sides: Side[] = [
			{ name: defaultName, emulatorUrl, agentId: first.id, item: itemOf(defaultName) },
			{ name: STAGING, emulatorUrl: secondEmulatorUrl, agentId: second.id, item: itemOf(STAGING) },
		];
		const [byDefault, byStaging] = sides as [Side, Side];
		/** What the end notification of `side`'s run ends with. */
		const ended = (side: Side): string => `(${side.name}) — cancelled.`;
		let stagingSignedIn = false;
		const expanded = new Map<string, boolean>();
		await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
		try {
			for (const title of OTHER_VIEWS) {
				expanded.set(title, await setExpanded(workbench, title, false));
			}
			await addStaging(workbench, settingsFile, JSON.parse(originalSettings) as Record<string, unknown>, secondEmulatorUrl, note);
			stagingSignedIn = true;
			await workbench.runCommand('Cloud Agents: Refresh Agents');
			await waitForRootRows(workbench, [defaultName, STAGING], [agentName, agentName]);

			// Send Prompt on each deployment's row: both runs followed at once, each item naming its deployment.
			for (const side of sides) {
				side.runId = await sendPromptOn(workbench, side, agentName, devToken);
				note(`${side.name}: ${await itemSays(page, side, 'running')}`);
			}
			for (const side of sides) {
				const text = await itemSays(page, side, 'running', 5_000);
				assert.match(
					text,
					new RegExp(`${escape(`${agentName}: ${PROMPT} (${side.name}) — running`)}$`),
					`the status bar item: ${text}`,
				);
			}
			await workbench.screenshot('deployments-follow-both');
			// Each run's output channel names its deployment too.
			for (const side of sides) {
				note(`output channel: ${await shownChannel(workbench, side, agentName)}`);
			}
			await workbench.runCommand('View: Hide Panel');

			// A reload: both runs are followed again.
			await workbench.runCommand('View: Close All Editors');
			await leavePage(() => workbench.runCommand('Developer: Reload Window'));
			for (const side of sides) {
				note(`after the reload, ${side.name}: ${await itemSays(page, side, 'running', 60_000)}`);
			}

			// Signing out of Staging: its run's item goes; the default deployment's run is still followed.
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			await signOutOfStaging(workbench, defaultName, agentName, note);
			stagingSignedIn = false;
			await byStaging.item.waitFor({ state: 'hidden', timeout: 15_000 }).catch(async () => {
				assert.fail(`Staging's run is still in the status bar after its sign-out: ${JSON.stringify(await statusBar(page))}`);
			});
			note(`after Staging's sign-out: ${await itemSays(page, byDefault, 'running', 5_000)}`);

			// The default deployment's run ends: its notification names its deployment.
			await workbench.runCommand('Notifications: Clear All Notifications');
			await cancelRun(byDefault, devToken);
			const defaultEnd = await workbench.waitForNotification(ended(byDefault), 30_000);
			note(`notification: ${defaultEnd}`);
			assert.ok(defaultEnd.startsWith(`${agentName}: ${PROMPT}`), `the end notification: ${defaultEnd}`);
			await itemSays(page, byDefault, 'cancelled', 10_000);

			// Signed in to Staging again, its run is followed again; its end names Staging.
			await signInToStaging(workbench, secondEmulatorUrl, note);
			stagingSignedIn = true;
			note(`Staging signed in again: ${await itemSays(page, byStaging, 'running', 30_000)}`);
			await cancelRun(byStaging, devToken);
			const stagingEnd = await workbench.waitForNotification(ended(byStaging), 30_000);
			note(`notification: ${stagingEnd}`);
			assert.ok(stagingEnd.startsWith(`${agentName}: ${PROMPT}`), `the end notification: ${stagingEnd}`);
			await itemSays(page, byStaging, 'cancelled', 10_000);
		} finally {
			await workbench.dismissDialogs();
			// Runs still going end, and the followers see it, before their agents go.
			for (const side of sides.filter((s) => s.runId !== undefined)) {
				if ((await runStatus(side, devToken).catch(() => 'cancelled')) !== 'cancelled') {
					await cancelRun(side, devToken).catch(() => undefined);
				}
			}
			for (const side of stagingSignedIn ? sides : [byDefault]) {
				if (side.runId !== undefined) {
					await side.item
						.filter({ hasText: 'cancelled' })
						.waitFor({ state: 'visible', timeout: 10_000 })
						.catch(() => undefined);
				}
			}
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
			if (stagingSignedIn) {
				await signOutOfStaging(workbench, defaultName, agentName, note).catch((err: unknown) =>
					note(`signing out of Staging: ${String(err)}`),
				);
			}
			await restoreSettings(workbench, settingsFile, originalSettings);
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID).catch(() => undefined);
			for (const [title, was] of expanded) {
				await setExpanded(workbench, title, was).catch(() => undefined);
			}
			await emulatorCall(emulatorUrl, devToken, 'DELETE', `/v2/agents/${encodeURIComponent(first.id)}?delete_runtime=true`).catch(
				() => undefined,
			);
			await emulatorCall(
				secondEmulatorUrl,
				devToken,
				'DELETE',
				`/v2/agents/${encodeURIComponent(second.id)}?delete_runtime=true`,
			).catch(() => undefined);
		}
	},
};

export default uiTest;
