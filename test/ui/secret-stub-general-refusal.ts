import * as assert from 'node:assert/strict';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface State {
	runtimes: Array<{ id: string; display_name: string }>;
	secrets: Array<{ id: string; display_name: string }>;
	stubs: Array<{ id: string; runtime_id: string; host_pattern: string; path_pattern: string; stub_config_json: string }>;
}
interface Counters {
	requests: { by_route: Record<string, number> };
}

const CREATE_ROUTE = '/v1/runtimes/{runtime_id}/secret-stubs';

/**
 * Issue 33, item 7: "Add Secret Stub loses all seven answers when a refusal names no field (e.g. a
 * 422 with a general message): the form closes; only 'Copy Request ID' is offered. Going Back from
 * step 7 and forward again empties what was typed." A refusal that names no answer reopens the form
 * at the last step with every answer kept and the service's words on the step; what is typed on a
 * step and not yet accepted survives Back and forward (on the secret pick and on an input box).
 */
const uiTest: UiTest = {
	title: 'Add Secret Stub: a refusal naming no field reopens the last step with every answer kept; Back then forward keeps what was typed',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
			emulatorCall<T>(emulatorUrl, devToken, method, path, body);
		const stamp = Date.now();
		const secretName = `ui-general-${stamp}`;
		const host = `api.ui-general-${stamp}.example`;
		const state = (): Promise<State> => call<State>('GET', '/_emulator/state');
		const posts = async (): Promise<number> =>
			(await call<Counters>('GET', '/_emulator/counters')).requests.by_route[`POST ${CREATE_ROUTE}`] ?? 0;
		await call('POST', '/_emulator/secrets', { display_name: secretName, value: `sk-ui-general-${stamp}-Wq4Lp9`, cache_ttl_secs: 300 });
		const runtime = (await state()).runtimes.find((r) => r.display_name === 'atlas-dev');
		assert.ok(runtime, 'the demo seed has the runtime atlas-dev');

		const widget = page.locator('.quick-input-widget');
		const input = widget.locator('input');
		const rowsOfPick = page.locator('.quick-input-list .monaco-list-row');
		const secretStep = page.locator('.quick-input-widget input[placeholder^="The secret:"]');
		const fileStep = widget.locator('.quick-input-message', { hasText: 'also write the decrypted secret to this absolute path' });
		const answer = async (prompt: string, value: string): Promise<void> => {
			await widget.locator('.quick-input-message', { hasText: prompt }).first().waitFor({ state: 'visible', timeout: 15_000 });
			await input.fill(value);
			await page.keyboard.press('Enter');
		};
		const waitForValue = async (value: string, what: string): Promise<void> => {
			for (let i = 0; i < 50 && (await input.inputValue()) !== value; i++) {
				await page.waitForTimeout(100);
			}
			assert.equal(await input.inputValue(), value, what);
		};
		const back = (): Promise<void> => widget.locator('.codicon-quick-input-back').first().click();
		try {
			await page.bringToFront();
			await workbench.dismissDialogs();
			await workbench.runCommand('Notifications: Clear All Notifications');
			await workbench.runCommand('Cloud Agents: Add Secret Stub…');
			await rowsOfPick.first().waitFor({ state: 'visible', timeout: 20_000 });
			await input.fill(runtime.display_name);
			await rowsOfPick.filter({ hasText: runtime.display_name }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Enter');
			await widget
				.locator('.quick-input-title', { hasText: `Add Secret Stub to ${runtime.display_name}` })
				.waitFor({ timeout: 15_000 });
			await answer('host pattern egress requests must match', host);
			await answer('path pattern requests must also match', '/v3/*');
			await page.locator(`.quick-input-widget input[placeholder="How is the secret injected?"]`).waitFor({ timeout: 15_000 });
			await rowsOfPick.filter({ hasText: 'Header' }).first().waitFor({ state: 'visible' });
			await page.keyboard.press('Enter');
			await answer('The header that carries the secret', 'X-General-Key');
			await answer('the header value, with ${credential}', 'Token ${credential}');
			await answer('also write the decrypted secret to this absolute path', '/home/agent/.general-key');

			// The service refuses the create once with a 422 whose message names no field.
			await call('PUT', '/_emulator/faults', { rules: [{ method: 'POST', route: CREATE_ROUTE, status: 422, count: 1 }] });
			const before = await posts();
			await secretStep.waitFor({ timeout: 15_000 });
			await input.fill(secretName);
			await rowsOfPick.filter({ hasText: secretName }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Enter');
			const refusal = rowsOfPick.filter({ hasText: 'Not added' }).first();
			await refusal.waitFor({ state: 'visible', timeout: 20_000 });
			note(`the last step says: ${(await refusal.innerText()).replace(/\s+/g, ' ').trim()}`);
			assert.ok((await refusal.innerText()).includes('injected fault: 422'), "the service's words are on the step");
			await waitForValue(secretName, 'the secret is kept on the reopened last step');
			assert.equal(await posts(), before + 1, 'one create was sent');
			assert.ok(!(await state()).stubs.some((s) => s.host_pattern === host), 'no stub was made');

			// Typed on step 7, Back, forward: the typed text is still there.
			const typed = `typed-then-back-${stamp}`;
			await input.fill(typed);
			await back();
			await fileStep.first().waitFor({ state: 'visible', timeout: 15_000 });
			await waitForValue('/home/agent/.general-key', 'step 6 kept');
			// Typed on step 6, Back to step 5, forward twice: both typed values are shown again.
			await input.fill('/home/agent/.typed-key');
			await back();
			await waitForValue('Token ${credential}', 'step 5 kept');
			await page.keyboard.press('Enter');
			await fileStep.first().waitFor({ state: 'visible', timeout: 15_000 });
			await waitForValue('/home/agent/.typed-key', 'what was typed on step 6 survives Back');
			await page.keyboard.press('Enter');
			await secretStep.waitFor({ timeout: 15_000 });
			await waitForValue(typed, 'what was typed on step 7 survives Back');
			note('Back then forward kept what was typed on steps 6 and 7');

			// Enter with the secret again sends every kept answer: the stub is made.
			await input.fill(secretName);
			await rowsOfPick.filter({ hasText: secretName }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Enter');
			let made: State['stubs'][number] | undefined;
			for (let i = 0; i < 100 && !made; i++) {
				made = (await state()).stubs.find((s) => s.host_pattern === host);
				if (!made) {
					await page.waitForTimeout(200);
				}
			}
			assert.ok(made, 'the stub was made with the kept answers');
			assert.equal(made.path_pattern, '/v3/*');
			assert.deepEqual(JSON.parse(made.stub_config_json), {
				headerName: 'X-General-Key',
				valueFormat: 'Token ${credential}',
				filePath: '/home/agent/.typed-key',
			});
			note(`the stub ${made.id} was made from the kept answers`);
		} finally {
			if (await widget.isVisible()) {
				await page.keyboard.press('Escape');
			}
			await call('DELETE', '/_emulator/faults');
			for (const stub of (await state()).stubs.filter((s) => s.host_pattern === host)) {
				await call('DELETE', `/v1/secret-stubs/${encodeURIComponent(stub.id)}`);
			}
			for (const s of (await state()).secrets.filter((x) => x.display_name === secretName)) {
				await call('DELETE', `/v2/secrets/${encodeURIComponent(s.id)}`);
			}
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
