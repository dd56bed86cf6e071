import * as assert from 'node:assert/strict';
import { CREATE_ROUTE, SecretStubForm, type StubAnswers } from './support/secretStubForm';
import type { UiTest } from './support/workbench';

/**
 * Issue 20, item 4: "Add Secret Stub…" checks the secret on its step (a name no secret has keeps
 * the step open with the reason, nothing sent), and a value the service refuses after the checks
 * (the secret deleted while the request was on its way) reopens the form at the refused step with
 * every answer kept: Back walks through them, and Enter on each sends them again.
 */
const uiTest: UiTest = {
	title: 'Add Secret Stub checks the secret on its step and reopens at the step the service refused, every answer kept',
	async run({ page, workbench, emulatorUrl, devToken, note }) {
		const form = new SecretStubForm(page, workbench, emulatorUrl, devToken);
		const { input, rowsOfPick } = form;
		const stamp = Date.now();
		const secretName = `ui-form-secret-${stamp}`;
		const answers: StubAnswers = {
			host: `api.ui-form-${stamp}.example`,
			path: '/v2/*',
			header: 'X-Form-Key',
			valueFormat: 'Bearer ${credential}',
			file: '/home/agent/.form-key',
		};
		const makeSecret = (): Promise<unknown> =>
			form.call('POST', '/_emulator/secrets', { display_name: secretName, value: `sk-ui-form-${stamp}-Vq7Rp2`, cache_ttl_secs: 300 });

		await makeSecret();
		const runtime = (await form.state()).runtimes.find((r) => r.display_name === 'atlas-dev');
		assert.ok(runtime, 'the demo seed has the runtime atlas-dev');

		try {
			await page.bringToFront();
			await workbench.dismissDialogs();
			await form.open(runtime.display_name);
			await form.fillHeaderStub(answers);

			// Step 7: a name no secret has stays on the step with the reason; nothing is sent.
			const before = await form.posts();
			await input.waitFor({ state: 'visible' });
			await form.secretStep.waitFor({ timeout: 15_000 });
			await form.pick(`no-such-secret-${stamp}`);
			const refusedRow = rowsOfPick.filter({ hasText: 'No secret has this name or UUID' }).first();
			await refusedRow.waitFor({ state: 'visible', timeout: 15_000 });
			// Issue 33, item 14: the reason reads as words beside an error icon, not "$(error)" as text.
			assert.doesNotMatch(await refusedRow.innerText(), /\$\(error\)/, 'no literal $(error) on the refused item');
			assert.equal(await refusedRow.locator('.codicon-error').count(), 1, 'the refused item carries an error icon');
			assert.equal(await form.posts(), before, 'nothing was sent for a secret that does not exist');
			note('a secret name no secret has: the step says so, no POST');

			// The secret exists when checked, and is deleted while the create is on its way (slowed down).
			await form.call('PUT', '/_emulator/faults', { rules: [{ method: 'POST', route: CREATE_ROUTE, latency_ms: 4000, count: 1 }] });
			await form.pick(secretName);
			await page
				.locator('.notifications-toasts', { hasText: 'Adding a secret stub to' })
				.first()
				.waitFor({ state: 'visible', timeout: 10_000 });
			const secret = (await form.state()).secrets.find((s) => s.display_name === secretName);
			assert.ok(secret);
			await form.call('DELETE', `/v2/secrets/${encodeURIComponent(secret.id)}`);

			// Refused: the form is back at step 7 with the name kept and the service's words on it.
			await rowsOfPick.filter({ hasText: 'The service refused this' }).first().waitFor({ state: 'visible', timeout: 20_000 });
			await form.waitForValue(secretName, 'the refused secret name is kept');
			assert.equal(await form.posts(), before + 1, 'one create was sent');
			assert.ok(!(await form.state()).stubs.some((s) => s.host_pattern === answers.host), 'no stub was made');
			note('refused by the service: the form reopened at the secret step');

			// Every earlier answer is kept: Back walks through them.
			await form.back();
			await form.waitForValue(answers.file, 'step 6 kept');
			await form.back();
			await form.waitForValue(answers.valueFormat, 'step 5 kept');
			await form.back();
			await form.waitForValue(answers.header, 'step 4 kept');
			await form.back();
			await form.kindStep.waitFor({ timeout: 15_000 });
			await form.back();
			await form.waitForValue(answers.path, 'step 2 kept');
			await form.back();
			await form.waitForValue(answers.host, 'step 1 kept');

			// The secret is made again: Enter on every kept answer sends them, and the stub is made.
			await makeSecret();
			await form.fillHeaderStub(answers);
			await form.secretStep.waitFor({ timeout: 15_000 });
			await form.waitForValue(secretName, 'step 7 kept');
			await page.keyboard.press('Enter');
			const made = await form.madeStub(answers);
			assert.equal(made.runtime_id, runtime.id);
			note(`the stub ${made.id} was made from the kept answers`);
		} finally {
			await form.cleanUp(answers.host, secretName);
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
