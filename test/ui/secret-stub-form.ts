import * as assert from 'node:assert/strict';
import { emulatorCall } from './support/emulatorApi';
import type { UiTest } from './support/workbench';

interface State {
	runtimes: Array<{ id: string; display_name: string; can_manage?: boolean }>;
	secrets: Array<{ id: string; display_name: string }>;
	stubs: Array<{ id: string; runtime_id: string; host_pattern: string; path_pattern: string; stub_config_json: string }>;
}
interface Counters {
	requests: { by_route: Record<string, number> };
}

const CREATE_ROUTE = '/v1/runtimes/{runtime_id}/secret-stubs';

/**
 * Issue 20, item 4: "Add Secret Stub…" checks the secret on its step (a name no secret has keeps
 * the step open with the reason, nothing sent), and a value the service refuses after the checks
 * (the secret deleted while the request was on its way) reopens the form at the refused step with
 * every answer kept: Back walks through them, and Enter on each sends them again.
 */
const uiTest: UiTest = {
	title: 'Add Secret Stub checks the secret on its step and reopens at the step the service refused, every answer kept',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const call = <T>(method: string, path: string, body?: unknown): Promise<T> =>
			emulatorCall<T>(emulatorUrl, devToken, method, path, body);
		const stamp = Date.now();
		const secretName = `ui-form-secret-${stamp}`;
		const host = `api.ui-form-${stamp}.example`;
		const makeSecret = (): Promise<unknown> =>
			call('POST', '/_emulator/secrets', { display_name: secretName, value: `sk-ui-form-${stamp}-Vq7Rp2`, cache_ttl_secs: 300 });
		const state = (): Promise<State> => call<State>('GET', '/_emulator/state');
		const posts = async (): Promise<number> =>
			(await call<Counters>('GET', '/_emulator/counters')).requests.by_route[`POST ${CREATE_ROUTE}`] ?? 0;

		await makeSecret();
		const runtime = (await state()).runtimes.find((r) => r.display_name === 'atlas-dev');
		assert.ok(runtime, 'the demo seed has the runtime atlas-dev');

		const widget = page.locator('.quick-input-widget');
		const input = widget.locator('input');
		const rowsOfPick = page.locator('.quick-input-list .monaco-list-row');
		/** Waits for the input box step whose prompt contains `prompt`, then answers it. */
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
		const back = async (): Promise<void> => {
			await widget.locator('.codicon-quick-input-back').first().click();
		};
		try {
			await page.bringToFront();
			await workbench.dismissDialogs();
			await workbench.runCommand('Cloud Agents: Add Secret Stub…');
			// The runtime: a pick of the runtimes.
			await rowsOfPick.first().waitFor({ state: 'visible', timeout: 20_000 });
			await input.fill(runtime.display_name);
			await rowsOfPick.filter({ hasText: runtime.display_name }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Enter');
			await widget
				.locator('.quick-input-title', { hasText: `Add Secret Stub to ${runtime.display_name}` })
				.waitFor({ timeout: 15_000 });

			await answer('host pattern egress requests must match', host);
			await answer('path pattern requests must also match', '/v2/*');
			await page.locator(`.quick-input-widget input[placeholder="How is the secret injected?"]`).waitFor({ timeout: 15_000 });
			await rowsOfPick.filter({ hasText: 'Header' }).first().waitFor({ state: 'visible' });
			await page.keyboard.press('Enter');
			await answer('The header that carries the secret', 'X-Form-Key');
			await answer('the header value, with ${credential}', 'Bearer ${credential}');
			await answer('also write the decrypted secret to this absolute path', '/home/agent/.form-key');

			// Step 7: a name no secret has stays on the step with the reason; nothing is sent.
			const before = await posts();
			await input.waitFor({ state: 'visible' });
			await page.locator('.quick-input-widget input[placeholder^="The secret:"]').waitFor({ timeout: 15_000 });
			await input.fill(`no-such-secret-${stamp}`);
			await rowsOfPick
				.filter({ hasText: `no-such-secret-${stamp}` })
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Enter');
			const refusedRow = rowsOfPick.filter({ hasText: 'No secret has this name or UUID' }).first();
			await refusedRow.waitFor({ state: 'visible', timeout: 15_000 });
			// Issue 33, item 14: the reason reads as words beside an error icon, not "$(error)" as text.
			assert.doesNotMatch(await refusedRow.innerText(), /\$\(error\)/, 'no literal $(error) on the refused item');
			assert.equal(await refusedRow.locator('.codicon-error').count(), 1, 'the refused item carries an error icon');
			assert.equal(await posts(), before, 'nothing was sent for a secret that does not exist');
			note('a secret name no secret has: the step says so, no POST');

			// The secret exists when checked, and is deleted while the create is on its way (slowed down).
			await call('PUT', '/_emulator/faults', { rules: [{ method: 'POST', route: CREATE_ROUTE, latency_ms: 4000, count: 1 }] });
			await input.fill(secretName);
			await rowsOfPick.filter({ hasText: secretName }).first().waitFor({ state: 'visible', timeout: 10_000 });
			await page.keyboard.press('Enter');
			await page
				.locator('.notifications-toasts', { hasText: 'Adding a secret stub to' })
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });
			const secret = (await state()).secrets.find((s) => s.display_name === secretName);
			assert.ok(secret);
			await call('DELETE', `/v2/secrets/${encodeURIComponent(secret.id)}`);

			// Refused: the form is back at step 7 with the name kept and the service's words on it.
			await rowsOfPick.filter({ hasText: 'The service refused this' }).first().waitFor({ state: 'visible', timeout: 20_000 });
			await waitForValue(secretName, 'the refused secret name is kept');
			assert.equal(await posts(), before + 1, 'one create was sent');
			assert.ok(!(await state()).stubs.some((s) => s.host_pattern === host), 'no stub was made');
			note('refused by the service: the form reopened at the secret step');

			// Every earlier answer is kept: Back walks through them.
			await back();
			await waitForValue('/home/agent/.form-key', 'step 6 kept');
			await back();
			await waitForValue('Bearer ${credential}', 'step 5 kept');
			await back();
			await waitForValue('X-Form-Key', 'step 4 kept');
			await back();
			await page.locator(`.quick-input-widget input[placeholder="How is the secret injected?"]`).waitFor({ timeout: 15_000 });
			await back();
			await waitForValue('/v2/*', 'step 2 kept');
			await back();
			await waitForValue(host, 'step 1 kept');

			// The secret is made again: Enter on every kept answer sends them, and the stub is made.
			await makeSecret();
			await answer('host pattern egress requests must match', host);
			await answer('path pattern requests must also match', '/v2/*');
			await page.locator(`.quick-input-widget input[placeholder="How is the secret injected?"]`).waitFor({ timeout: 15_000 });
			await page.keyboard.press('Enter');
			await answer('The header that carries the secret', 'X-Form-Key');
			await answer('the header value, with ${credential}', 'Bearer ${credential}');
			await answer('also write the decrypted secret to this absolute path', '/home/agent/.form-key');
			await page.locator('.quick-input-widget input[placeholder^="The secret:"]').waitFor({ timeout: 15_000 });
			await waitForValue(secretName, 'step 7 kept');
			await page.keyboard.press('Enter');
			let made: State['stubs'][number] | undefined;
			for (let i = 0; i < 100 && !made; i++) {
				made = (await state()).stubs.find((s) => s.host_pattern === host);
				if (!made) {
					await page.waitForTimeout(200);
				}
			}
			assert.ok(made, 'the stub was made with the kept answers');
			assert.equal(made.runtime_id, runtime.id);
			assert.equal(made.path_pattern, '/v2/*');
			assert.deepEqual(JSON.parse(made.stub_config_json), {
				headerName: 'X-Form-Key',
				valueFormat: 'Bearer ${credential}',
				filePath: '/home/agent/.form-key',
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
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
