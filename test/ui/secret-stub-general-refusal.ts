import * as assert from 'node:assert/strict';
import { CREATE_ROUTE, SecretStubForm, type StubAnswers } from './support/secretStubForm';
import type { UiTest } from './support/workbench';

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
		const form = new SecretStubForm(page, workbench, emulatorUrl, devToken);
		const { input, rowsOfPick, widget } = form;
		const stamp = Date.now();
		const secretName = `ui-general-${stamp}`;
		const answers: StubAnswers = {
			host: `api.ui-general-${stamp}.example`,
			path: '/v3/*',
			header: 'X-General-Key',
			valueFormat: 'Token ${credential}',
			file: '/home/agent/.general-key',
		};
		await form.call('POST', '/_emulator/secrets', {
			display_name: secretName,
			value: `sk-ui-general-${stamp}-Wq4Lp9`,
			cache_ttl_secs: 300,
		});
		const runtime = (await form.state()).runtimes.find((r) => r.display_name === 'atlas-dev');
		assert.ok(runtime, 'the demo seed has the runtime atlas-dev');
		const fileStep = widget.locator('.quick-input-message', { hasText: 'also write the decrypted secret to this absolute path' });
		try {
			await page.bringToFront();
			await workbench.dismissDialogs();
			await workbench.runCommand('Notifications: Clear All Notifications');
			await form.open(runtime.display_name);
			await form.fillHeaderStub(answers);

			// The service refuses the create once with a 422 whose message names no field.
			await form.call('PUT', '/_emulator/faults', { rules: [{ method: 'POST', route: CREATE_ROUTE, status: 422, count: 1 }] });
			const before = await form.posts();
			await form.secretStep.waitFor({ timeout: 15_000 });
			await form.pick(secretName);
			const refusal = rowsOfPick.filter({ hasText: 'Not added' }).first();
			await refusal.waitFor({ state: 'visible', timeout: 20_000 });
			note(`the last step says: ${(await refusal.innerText()).replace(/\s+/g, ' ').trim()}`);
			assert.ok((await refusal.innerText()).includes('injected fault: 422'), "the service's words are on the step");
			await form.waitForValue(secretName, 'the secret is kept on the reopened last step');
			assert.equal(await form.posts(), before + 1, 'one create was sent');
			assert.ok(!(await form.state()).stubs.some((s) => s.host_pattern === answers.host), 'no stub was made');

			// Typed on step 7, Back, forward: the typed text is still there.
			const typed = `typed-then-back-${stamp}`;
			await input.fill(typed);
			await form.back();
			await fileStep.first().waitFor({ state: 'visible', timeout: 15_000 });
			await form.waitForValue(answers.file, 'step 6 kept');
			// Typed on step 6, Back to step 5, forward twice: both typed values are shown again.
			const typedFile = '/home/agent/.typed-key';
			await input.fill(typedFile);
			await form.back();
			await form.waitForValue(answers.valueFormat, 'step 5 kept');
			await page.keyboard.press('Enter');
			await fileStep.first().waitFor({ state: 'visible', timeout: 15_000 });
			await form.waitForValue(typedFile, 'what was typed on step 6 survives Back');
			await page.keyboard.press('Enter');
			await form.secretStep.waitFor({ timeout: 15_000 });
			await form.waitForValue(typed, 'what was typed on step 7 survives Back');
			note('Back then forward kept what was typed on steps 6 and 7');

			// Enter with the secret again sends every kept answer: the stub is made.
			await form.pick(secretName);
			const made = await form.madeStub({ ...answers, file: typedFile });
			note(`the stub ${made.id} was made from the kept answers`);
		} finally {
			await form.cleanUp(answers.host, secretName);
			await workbench.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
			await workbench.dismissDialogs();
		}
	},
};

export default uiTest;
