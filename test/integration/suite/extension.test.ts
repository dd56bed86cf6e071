import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMAND_IDS, CONFIG, EXTENSION_ID } from '../../../src/ids';
import { emulatorUrl } from '../support/env';
import { testApi } from '../support/cloudAgents';

suite('Extension', () => {
	test('is installed and activates [web]', async () => {
		const extension = vscode.extensions.getExtension(EXTENSION_ID);
		assert.ok(extension, `${EXTENSION_ID} is not installed`);
		await extension.activate();
		assert.equal(extension.isActive, true);
	});

	test('activate() registers and starts nothing: neither the body nor the HTTP client is loaded when it returns (issue 44) [web]', async () => {
		const api = await testApi();
		assert.equal(api.activation.bodyLoaded, false, 'activate() started the body (dist/main.js, or its part of the web bundle)');
		assert.equal(
			api.activation.clientLoaded,
			false,
			'activate() loaded the HTTP client (dist/client.js, or its part of the web bundle)',
		);
	});

	test('registers every command in COMMAND_IDS [web]', async () => {
		await vscode.extensions.getExtension(EXTENSION_ID)?.activate();
		const registered = new Set(await vscode.commands.getCommands(true));
		const missing = COMMAND_IDS.filter((id) => !registered.has(id));
		assert.deepEqual(missing, []);
	});

	test('reads cloudAgents.apiUrl from user settings [web]', () => {
		const apiUrl = vscode.workspace.getConfiguration(CONFIG.section).get<string>(CONFIG.apiUrl);
		assert.equal(apiUrl, emulatorUrl());
	});

	test('reaches the emulator from inside the extension host [web]', async () => {
		const res = await fetch(`${emulatorUrl()}/healthz`);
		await res.arrayBuffer();
		assert.ok(res.status === 200 || res.status === 204, `GET /healthz answered ${res.status}`);
	});
});
