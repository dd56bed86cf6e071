import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { VIEW_CONTAINER_ID } from '../../src/ids';
import { RUN_ID, TOKEN, agent, run } from '../hostile/fixtures';
import { type HostileServer, errorEnvelope, json, startHostile } from '../hostile/server';
import { restoreSettings, userSettingsFile, writeSettingsInEditor } from './support/settings';
import type { UiTest } from './support/workbench';

/**
 * Server text from a hostile server in the real workbench (code-server + Chromium): the driver
 * starts the hostile server, points `cloudAgents.apiUrl` at it by writing the user settings file
 * (VS Code reloads it), signs in through the palette (the server accepts any token), then reads
 * what a person would see: the Agents view's rows and the notification of a failed command.
 * The user settings file is put back at the end, so the extension talks to the emulator again.
 */

// eslint-disable-next-line no-control-regex
const BIDI_OR_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c\u200b\ufeff]/;
const HOSTILE_NAME = `Invoice \u202efdp.exe\u202c\u0007 red\nSECOND LINE\r\n\u2066isolated\u2069 end`;
const LINK_MESSAGE = 'Broken. [Open](command:workbench.action.openSettings)';
const IMPLAUSIBLE_REQUEST_ID = `req ${'z'.repeat(200)}`;
const PLAUSIBLE_REQUEST_ID = '0192f1a0-1234-7abc-8def-0123456789ab';
const RUN_TWO = 'run_hostile0002';

const uiTest: UiTest = {
	title: "hostile server text: an agent name with bidi and control characters shows neutralised; an error's command link is not clickable; an implausible request id is not offered for copying",
	async run({ page, workbench, note, expectConsoleError, userDataDir }) {
		// The hostile server's errors are shown on purpose: our log line and the notification, twice.
		expectConsoleError(
			/cloudAgents\.runs\.openResult failed: Broken\. \[Open\]\(command:workbench\.action\.openSettings\)$/,
			'our log channel records the failed command (first run)',
		);
		expectConsoleError(
			/^Broken\. \[Open\] \(command: workbench\.action\.openSettings\)$/,
			'the error notification, its link broken (first run)',
		);
		expectConsoleError(
			/cloudAgents\.runs\.openResult failed: Broken\. \[Open\]\(command:workbench\.action\.openSettings\) again$/,
			'our log channel records the failed command (second run)',
		);
		expectConsoleError(
			/^Broken\. \[Open\] \(command: workbench\.action\.openSettings\) again \(request /,
			'the error notification of the second run, with its plausible request id',
		);
		// The checks of what a person sees are collected, so one run reports every one that fails.
		const problems: string[] = [];
		const check = (ok: boolean, what: string): void => {
			if (!ok) {
				problems.push(what);
			}
		};
		const isEqual = (actual: unknown, expected: unknown, what = `expected ${JSON.stringify(expected)}`): [boolean, string] => [
			actual === expected,
			`${what}; got ${JSON.stringify(actual)}`,
		];
		const settingsFile = userSettingsFile(userDataDir);
		const originalSettings = readFileSync(settingsFile, 'utf8');
		let server: HostileServer | undefined;
		try {
			server = await startHostile({
				description: 'names with bidi overrides and controls; errors with command links and odd request ids',
				routes: {
					'GET /v2/me': (_req, res) => json(res, 200, { id: 'user_hostile', display_name: 'Mallory' }),
					'GET /v2/agents': (_req, res) => json(res, 200, { agents: [agent({ name: HOSTILE_NAME })] }),
					[`GET /v2/agents/*/runs/${RUN_ID}`]: (_req, res) =>
						errorEnvelope(res, 500, 'internal', LINK_MESSAGE, IMPLAUSIBLE_REQUEST_ID, {
							'x-request-id': IMPLAUSIBLE_REQUEST_ID,
						}),
					[`GET /v2/agents/*/runs/${RUN_TWO}`]: (_req, res) =>
						errorEnvelope(res, 500, 'internal', `${LINK_MESSAGE} again`, PLAUSIBLE_REQUEST_ID),
					'GET /v2/agents/*/runs': (_req, res) =>
						json(res, 200, { runs: [run({ id: RUN_ID, prompt: 'first run' }), run({ id: RUN_TWO, prompt: 'second run' })] }),
					'GET /v2/agents/*/artifacts': (_req, res) => json(res, 200, { artifacts: [] }),
					'GET /v2/runtimes': (_req, res) => json(res, 200, { data: [] }),
				},
			});
			const settings = JSON.parse(originalSettings) as Record<string, unknown>;
			await writeSettingsInEditor(workbench, settingsFile, { ...settings, 'cloudAgents.apiUrl': server.baseUrl });

			// No token is stored for the hostile origin: sign in through the palette with any key.
			await workbench.openViewContainer('Cloud Agents', VIEW_CONTAINER_ID);
			// VS Code reloads the settings file: signed out for the new origin, the Agents view shows its welcome.
			for (let i = 0; i < 150 && (await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents')).length === 0; i++) {
				await page.waitForTimeout(100);
			}
			assert.ok(
				(await workbench.paneWelcome(VIEW_CONTAINER_ID, 'Agents')).length > 0,
				'the extension did not switch to the hostile server (still signed in)',
			);
			await workbench.runCommand('Cloud Agents: Sign In');
			await workbench.pickByKeyboard('API key', 10_000);
			const input = page.locator('.quick-input-widget input');
			await page.locator('.quick-input-widget', { hasText: server.baseUrl }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await input.fill(TOKEN);
			await page.keyboard.press('Enter');

			// (a) The Agents view shows the hostile agent's name without bidi or control characters, on one line.
			const agentsPane = workbench.pane(VIEW_CONTAINER_ID, 'Agents');
			const row = agentsPane.locator('.monaco-list-row', { hasText: 'Invoice' }).first();
			await row.waitFor({ state: 'visible', timeout: 30_000 });
			const label = (await row.locator('.label-name').first().textContent()) ?? '';
			note(`agent row label: ${JSON.stringify(label)}`);
			check(!BIDI_OR_CONTROL.test(label), `the row shows a bidi or control character: ${JSON.stringify(label)}`);
			check(...isEqual(label, 'Invoice fdp.exe red SECOND LINE isolated end'));
			const rowText = (await row.textContent()) ?? '';
			check(!BIDI_OR_CONTROL.test(rowText), `the row shows a bidi or control character: ${JSON.stringify(rowText)}`);
			await workbench.screenshot('hostile-agents-view');

			/** Runs "Open Run Result" for a run of the hostile agent and returns its error toast. */
			const openResultOf = async (runId: string, expected: string) => {
				await workbench.runCommand('Cloud Agents: Open Run Result');
				const agentPick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Invoice' }).first();
				const runPick = page.locator('.quick-input-list .monaco-list-row', { hasText: 'second run' }).first();
				// The agent is picked first, unless one is selected in the Agents view (then its runs show at once).
				await agentPick.or(runPick).first().waitFor({ state: 'visible', timeout: 15_000 });
				if (await agentPick.isVisible()) {
					const pickText = (await agentPick.textContent()) ?? '';
					check(
						!BIDI_OR_CONTROL.test(pickText),
						`the agent quick pick shows a bidi or control character: ${JSON.stringify(pickText)}`,
					);
					await page.keyboard.press('Enter');
				}
				await page
					.locator('.quick-input-list .monaco-list-row', { hasText: 'second run' })
					.first()
					.waitFor({ state: 'visible', timeout: 15_000 });
				await input.fill(runId);
				await page
					.locator('.quick-input-list .monaco-list-row', { hasText: runId })
					.first()
					.waitFor({ state: 'visible', timeout: 10_000 });
				await page.keyboard.press('Enter');
				const toast = page.locator('.notifications-toasts .notification-toast', { hasText: expected }).first();
				await toast.waitFor({ state: 'visible', timeout: 15_000 });
				return toast;
			};

			// (b) + (c) An error whose message carries a command link and whose request id is implausible.
			const toast = await openResultOf(RUN_ID, 'Broken.');
			const message = (await toast.locator('.notification-list-item-message').innerText()).trim();
			note(`error toast: ${JSON.stringify(message)}`);
			check(...isEqual(await toast.locator('.notification-list-item-message a').count(), 0, 'the message has a link'));
			check(
				...isEqual(
					await page.locator('.notifications-toasts a[href^="command:"], .notifications-center a[href^="command:"]').count(),
					0,
					'a command link is shown',
				),
			);
			check(message.includes('[Open]'), `the link text is shown as text: ${message}`);
			check(
				!message.includes(IMPLAUSIBLE_REQUEST_ID) && !message.includes('zzzzzzzz'),
				`the implausible request id is shown: ${message}`,
			);
			const buttons = (await toast.locator('.monaco-button').allInnerTexts()).map((b) => b.trim());
			note(`buttons: ${JSON.stringify(buttons)}`);
			check(!buttons.includes('Copy Request ID'), `"Copy Request ID" is offered for an implausible id: ${JSON.stringify(buttons)}`);
			await workbench.screenshot('hostile-error-toast');

			// A plausible request id is offered for copying (so the check above can fail), and its link is not clickable either.
			const second = await openResultOf(RUN_TWO, 'again');
			const secondButtons = (await second.locator('.monaco-button').allInnerTexts()).map((b) => b.trim());
			assert.ok(
				secondButtons.includes('Copy Request ID'),
				`no "Copy Request ID" for a plausible id: ${JSON.stringify(secondButtons)}`,
			);
			assert.ok((await second.locator('.notification-list-item-message').innerText()).includes(PLAUSIBLE_REQUEST_ID));
			check(...isEqual(await second.locator('.notification-list-item-message a').count(), 0, 'the second message has a link'));
			// Hide the toasts so they do not cover later tests (the notification center keeps them).
			await page.keyboard.press('Escape');
			assert.deepEqual(problems, [], `what a person would see from the hostile server:\n${problems.join('\n')}`);
		} finally {
			await workbench.dismissDialogs();
			await restoreSettings(workbench, settingsFile, originalSettings);
			await server?.close();
		}
		// Back on the emulator: its agents show again (the dev token is still stored for its origin).
		await workbench.runCommand('Cloud Agents: Refresh Agents').catch(() => undefined);
		await workbench
			.pane(VIEW_CONTAINER_ID, 'Agents')
			.locator('.monaco-list-row', { hasNotText: 'Invoice' })
			.first()
			.waitFor({ state: 'visible', timeout: 30_000 });
	},
};

export default uiTest;
