import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { encodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { FS_SCHEME } from '../../../src/ids';
import { messagesShown, restoreDevToken, seedAgent, testApi, waitFor } from '../support/cloudAgents';
import { addFolder, removeFolder } from '../support/folders';

/**
 * Issue 20 (3): VS Code's Quick Open and Search find nothing in agent files (their search provider
 * APIs are proposed), and nothing led people to our Go to File and Search Workspace. When an agent
 * folder is first opened, a hint says so, once per machine.
 */
suite('Agent workspace search hint', () => {
	let root: vscode.Uri;

	const add = (): Promise<unknown> => addFolder(root, 'Agent: hint test');
	/** The texts of the search hints the workspace feature showed in this window. */
	const hints = (): Promise<string[]> => messagesShown('information', /^VS Code's search cannot read agent files/);
	const remove = (): Promise<void> => removeFolder(root);

	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		const agent = await seedAgent('Refactor billing module');
		root = vscode.Uri.from({ scheme: FS_SCHEME, authority: encodeAgentAuthority(agent.id), path: '/' });
	});
	suiteTeardown(async () => {
		await remove();
		await vscode.commands.executeCommand('notifications.clearAll');
	});

	test('opening an agent folder shows the hint once per machine, naming our Go to File and Search Workspace', async function () {
		if (vscode.workspace.workspaceFile === undefined) {
			// Adding a folder to a single-folder browser window reloads the page (see workspaceFs.test.ts).
			this.skip();
		}
		this.timeout(30_000);
		await testApi();
		await remove();
		await vscode.commands.executeCommand('_cloudAgents.workspace.resetSearchHint');
		const before = (await hints()).length;

		await add();
		const text = await waitFor('the search hint', async () => (await hints())[before]);
		assert.match(text, /^VS Code's search cannot read agent files/);
		assert.match(text, /Go to File/);
		assert.match(text, /Search Workspace/);
		// This window also has a local folder: Ctrl+P and Ctrl+Shift+F stay VS Code's here, and the hint says so.
		assert.match(text, /search only your other folders/);

		await remove();
		await add();
		await new Promise((r) => setTimeout(r, 1_000));
		assert.equal((await hints()).length, before + 1, 'shown once');
	});
});
