import * as assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { emulatorCall } from './emulatorApi';
import type { Workbench } from './workbench';

/** The emulator's state as the secret-stub tests read it. */
export interface StubState {
	runtimes: Array<{ id: string; display_name: string; can_manage?: boolean }>;
	secrets: Array<{ id: string; display_name: string }>;
	stubs: Array<{ id: string; runtime_id: string; host_pattern: string; path_pattern: string; stub_config_json: string }>;
}

interface Counters {
	requests: { by_route: Record<string, number> };
}

/** The route Add Secret Stub… posts to (for faults and counters). */
export const CREATE_ROUTE = '/v1/runtimes/{runtime_id}/secret-stubs';

/** The answers of steps 1–6 of Add Secret Stub… (a header stub). */
export interface StubAnswers {
	host: string;
	path: string;
	header: string;
	valueFormat: string;
	file: string;
}

/**
 * Add Secret Stub… as a person fills it in the workbench: its seven steps (runtime pick, host,
 * path, kind, header, value format, file; then the secret), the emulator's state and counters,
 * and the clean-up of what a test made.
 */
export class SecretStubForm {
	readonly widget;
	readonly input;
	readonly rowsOfPick;
	/** The last step: the secret pick. */
	readonly secretStep;
	/** The step that asks how the secret is injected. */
	readonly kindStep;

	constructor(
		private readonly page: Page,
		private readonly workbench: Workbench,
		private readonly emulatorUrl: string,
		private readonly devToken: string,
	) {
		this.widget = page.locator('.quick-input-widget');
		this.input = this.widget.locator('input');
		this.rowsOfPick = page.locator('.quick-input-list .monaco-list-row');
		this.secretStep = page.locator('.quick-input-widget input[placeholder^="The secret:"]');
		this.kindStep = page.locator('.quick-input-widget input[placeholder="How is the secret injected?"]');
	}

	call<T>(method: string, path: string, body?: unknown): Promise<T> {
		return emulatorCall<T>(this.emulatorUrl, this.devToken, method, path, body);
	}

	state(): Promise<StubState> {
		return this.call<StubState>('GET', '/_emulator/state');
	}

	/** How many creates the emulator received. */
	async posts(): Promise<number> {
		return (await this.call<Counters>('GET', '/_emulator/counters')).requests.by_route[`POST ${CREATE_ROUTE}`] ?? 0;
	}

	/** Waits for the input box step whose prompt contains `prompt`, then answers it. */
	async answer(prompt: string, value: string): Promise<void> {
		await this.widget.locator('.quick-input-message', { hasText: prompt }).first().waitFor({ state: 'visible', timeout: 15_000 });
		await this.input.fill(value);
		await this.page.keyboard.press('Enter');
	}

	/** Waits until the step's input shows `value` (a step shown again fills in after it appears). */
	async waitForValue(value: string, what: string): Promise<void> {
		for (let i = 0; i < 50 && (await this.input.inputValue()) !== value; i++) {
			await this.page.waitForTimeout(100);
		}
		assert.equal(await this.input.inputValue(), value, what);
	}

	async back(): Promise<void> {
		await this.widget.locator('.codicon-quick-input-back').first().click();
	}

	/** Types `text` into a pick and takes the row that shows it. */
	async pick(text: string): Promise<void> {
		await this.input.fill(text);
		await this.rowsOfPick.filter({ hasText: text }).first().waitFor({ state: 'visible', timeout: 10_000 });
		await this.page.keyboard.press('Enter');
	}

	/** Opens the form from the palette and picks `runtimeName`: the form is titled with it. */
	async open(runtimeName: string): Promise<void> {
		await this.workbench.runCommand('Cloud Agents: Add Secret Stub…');
		await this.rowsOfPick.first().waitFor({ state: 'visible', timeout: 20_000 });
		await this.pick(runtimeName);
		await this.widget.locator('.quick-input-title', { hasText: `Add Secret Stub to ${runtimeName}` }).waitFor({ timeout: 15_000 });
	}

	/** Answers steps 1–6 (a header stub); the form then waits on the secret step. */
	async fillHeaderStub(a: StubAnswers): Promise<void> {
		await this.answer('host pattern egress requests must match', a.host);
		await this.answer('path pattern requests must also match', a.path);
		await this.kindStep.waitFor({ timeout: 15_000 });
		await this.rowsOfPick.filter({ hasText: 'Header' }).first().waitFor({ state: 'visible' });
		await this.page.keyboard.press('Enter');
		await this.answer('The header that carries the secret', a.header);
		await this.answer('the header value, with ${credential}', a.valueFormat);
		await this.answer('also write the decrypted secret to this absolute path', a.file);
	}

	/** The stub made for `host`, once the emulator has it; checks its path and configuration against `a`. */
	async madeStub(a: StubAnswers): Promise<StubState['stubs'][number]> {
		let made: StubState['stubs'][number] | undefined;
		for (let i = 0; i < 100 && !made; i++) {
			made = (await this.state()).stubs.find((s) => s.host_pattern === a.host);
			if (!made) {
				await this.page.waitForTimeout(200);
			}
		}
		assert.ok(made, 'the stub was made with the kept answers');
		assert.equal(made.path_pattern, a.path);
		assert.deepEqual(JSON.parse(made.stub_config_json), { headerName: a.header, valueFormat: a.valueFormat, filePath: a.file });
		return made;
	}

	/** Closes the form and removes the faults, the stubs for `host` and the secrets named `secretName`. */
	async cleanUp(host: string, secretName: string): Promise<void> {
		if (await this.widget.isVisible()) {
			await this.page.keyboard.press('Escape');
		}
		await this.call('DELETE', '/_emulator/faults');
		for (const stub of (await this.state()).stubs.filter((s) => s.host_pattern === host)) {
			await this.call('DELETE', `/v1/secret-stubs/${encodeURIComponent(stub.id)}`);
		}
		for (const s of (await this.state()).secrets.filter((x) => x.display_name === secretName)) {
			await this.call('DELETE', `/v2/secrets/${encodeURIComponent(s.id)}`);
		}
	}
}
