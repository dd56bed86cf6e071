import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { FS_SCHEME } from '../../../src/ids';
import { emu, restoreDevToken, testApi, waitFor, within } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { devToken, words } from '../support/env';
import { base64Text, textBase64 } from '../support/text';

/**
 * A followed run that changes a file of the agent's workspace updates an editor showing that file:
 * the run's `file.changed` event invalidates the file system's cache and fires onDidChangeFile, and
 * VS Code reloads the (clean) document from the service.
 */
suite("Agent workspace follows the agent's runs", () => {
	let agentId: string | undefined;

	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		const created = await emu<{ id: string }>('POST', '/v2/agents', { name: `ws-run-changes-${Date.now()}` }, devToken());
		assert.equal(created.status, 201, JSON.stringify(created.body));
		const id = created.body.id;
		agentId = id;
		await waitFor('the agent to become idle', async () => {
			const agent = await emu<{ status: string }>('GET', `/v2/agents/${encodeURIComponent(id)}`, undefined, devToken());
			return agent.body.status === words().agentIdle ? true : undefined;
		});
	});

	suiteTeardown(async () => {
		await closeAllEditors();
		await vscode.commands.executeCommand('notifications.clearAll');
		if (agentId) {
			await emu('DELETE', `/v2/agents/${encodeURIComponent(agentId)}?delete_runtime=true`, undefined, devToken());
		}
	});

	test('an open, unmodified file shows the content a followed run wrote', async function () {
		this.timeout(45_000);
		const id = agentId ?? assert.fail('no agent');
		const path = 'notes/watched.md';
		const seeded = await emu('POST', `/_emulator/workspace/${encodeURIComponent(id)}/write`, {
			path,
			content_base64: textBase64('first line\n'),
		});
		assert.equal(seeded.status, 200, JSON.stringify(seeded.body));

		const uri = vscode.Uri.from({ scheme: FS_SCHEME, authority: id, path: `/${path}` });
		const doc = await vscode.workspace.openTextDocument(uri);
		await vscode.window.showTextDocument(doc);
		assert.equal(doc.getText(), 'first line\n');

		const run = await emu<{ id: string }>(
			'POST',
			`/v2/agents/${encodeURIComponent(id)}/runs`,
			{ prompt: `[[write:${path}]] update the notes` },
			devToken(),
		);
		assert.equal(run.status, 202, JSON.stringify(run.body));
		await within(
			'following the run',
			Promise.resolve(
				vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId: id, runId: run.body.id }),
			),
		);

		// The emulator appends a line naming the run; the editor must show it without any action.
		const text = await waitFor(
			"the open document to show the run's change",
			async () => {
				const current = doc.getText();
				return current.includes(run.body.id) ? current : undefined;
			},
			30_000,
		);
		assert.ok(text.startsWith('first line\n'), text);
		assert.equal(doc.isDirty, false);
		// The read answer's members are not shown in the description (variant: result.data.content).
		const server = await emu<{ content_base64?: string; result?: { data?: { content?: string } } }>(
			'POST',
			`/v2/agents/${encodeURIComponent(id)}/workspace`,
			{ op: 'read', path },
			devToken(),
		);
		assert.equal(base64Text(server.body.content_base64 ?? server.body.result?.data?.content ?? ''), text);
		await vscode.commands.executeCommand('cloudAgents.runs.stopFollowing', { automation: true, agentId: id, runId: run.body.id });
	});
});
