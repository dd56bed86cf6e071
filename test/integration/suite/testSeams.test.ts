import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { TEST_HARNESS_ENV, registerTestSeams } from '../../../src/testing';
import type { TestSeamDeps } from '../../../src/testing';
import { testApi } from '../support/cloudAgents';

/** The seams of src/testing.ts: registered under the harness, and nothing without its flag. */
suite('Test seams (src/testing.ts)', () => {
	suiteSetup(async () => {
		await testApi();
	});

	test('under the harness every seam is registered [variant]', async () => {
		// `getCommands(true)` hides internal commands (a leading underscore): ask for all.
		const commands = await vscode.commands.getCommands(false);
		for (const id of [
			'_cloudAgents.views.rows',
			'_cloudAgents.views.click',
			'_cloudAgents.views.selectAgent',
			'_cloudAgents.workspace.clearCache',
			'_cloudAgents.views.runOnRow',
			'_cloudAgents.window.messages',
			'_cloudAgents.workspace.retry',
			'_cloudAgents.workspace.resetSearchHint',
			'_cloudAgents.chat.prepare',
		]) {
			assert.ok(commands.includes(id), `${id} is not registered`);
		}
	});

	test('without the harness flag no seam is registered', () => {
		const saved = process.env[TEST_HARNESS_ENV];
		delete process.env[TEST_HARNESS_ENV];
		try {
			// Nothing of the deps is read when the flag is missing.
			assert.deepEqual(registerTestSeams({} as TestSeamDeps), []);
		} finally {
			process.env[TEST_HARNESS_ENV] = saved;
		}
		assert.ok(process.env[TEST_HARNESS_ENV] !== undefined);
	});
});
