import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { CloudAgentsClient } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';
import { deploymentId } from '../../../src/auth/deployments';
import { encodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { agentWindowFile, openAgentWorkspace } from '../../../src/workspace/openWorkspace';
import type { WorkspaceFeature } from '../../../src/workspace/workspaceFeature';
import * as fake from '../support/vscodeFake';
import { testFeature, testSession } from './workspaceFeatureDeps';

/** src/workspace/openWorkspace.ts on the fake's workspace, commands and in-memory file system (no request is made). */

const AGENT = 'C19B1983-412F-41B5-81CC-EC71FA626645:Main';
const STORAGE = vscode.Uri.parse('file:///global/storage');
const FOLDER = vscode.Uri.joinPath(STORAGE, 'agent-windows', encodeAgentAuthority(AGENT));

const executed = (): unknown[][] => fake.calls('commands.executeCommand').filter(([id]) => id !== 'setContext');
const text = (uri: vscode.Uri): string | undefined => {
	const data = fake.memoryFiles.get(uri.toString());
	return data && new TextDecoder().decode(data);
};

suite('workspace/openWorkspace', () => {
	let client: CloudAgentsClient;
	let feature: WorkspaceFeature;

	setup(() => {
		// Nothing here reaches the service: a client of a port nobody is asked on.
		client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: 'http://127.0.0.1:9', getToken: () => undefined });
		feature = testFeature(testSession(client, 'http://127.0.0.1:9'));
	});
	teardown(() => {
		feature.dispose();
		client.close();
	});

	suite('openAgentWorkspace', () => {
		test('a window that already shows the workspace brings the Explorer forward and asks nothing', async () => {
			fake.workspace.workspaceFolders = [{ uri: workspaceUri(AGENT), name: 'Agent: Main', index: 0 }];
			await openAgentWorkspace(feature, AGENT, 'Main', undefined);
			assert.deepEqual(executed(), [['workbench.view.explorer']]);
			assert.equal(fake.calls('window.showInformationMessage').length, 0);
			assert.equal(fake.calls('workspace.updateWorkspaceFolders').length, 0);
		});

		test("an agent of another deployment (issue 47): its folder's address carries the deployment, and the default agent of that id is not it", async () => {
			const STAGING = deploymentId('https://staging.example.test');
			const staging = {
				cache: feature.cache,
				client,
				uriFor: feature.uriFor.bind(feature),
				retryInterface: () => undefined,
				deploymentPart: STAGING,
			};
			fake.workspace.workspaceFolders = [{ uri: workspaceUri(AGENT), name: 'Agent: Main', index: 0 }];
			await openAgentWorkspace(staging, AGENT, 'Main', 'add');
			assert.deepEqual(fake.calls('workspace.updateWorkspaceFolders')[0], [
				1,
				0,
				{ uri: workspaceUri(AGENT, '', STAGING), name: 'Agent: Main' },
			]);
			assert.equal(
				(fake.calls('workspace.updateWorkspaceFolders')[0]![2] as { uri: vscode.Uri }).uri.authority,
				`${encodeAgentAuthority(AGENT)}.${STAGING}`,
			);
			const target = await agentWindowFile(STORAGE, AGENT, 'Main', STAGING);
			const folder = vscode.Uri.joinPath(STORAGE, 'agent-windows', `${encodeAgentAuthority(AGENT)}.${STAGING}`);
			assert.equal(target.toString(), vscode.Uri.joinPath(folder, 'Main.code-workspace').toString());
			assert.deepEqual(JSON.parse(text(target)!), {
				folders: [{ uri: workspaceUri(AGENT, '', STAGING).toString(), name: 'Main' }],
				settings: {},
			});
		});

		test("several deployments configured (issue 47): the Explorer's folder and a new window name the agent's deployment, the default one's too; with one, neither does", async () => {
			const STAGING_URL = 'https://staging.example.test';
			const STAGING = deploymentId(STAGING_URL);
			const staging = {
				cache: feature.cache,
				client,
				uriFor: feature.uriFor.bind(feature),
				retryInterface: () => undefined,
				deploymentPart: STAGING,
			};
			fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
			fake.workspace.workspaceFolders = [];
			await openAgentWorkspace(feature, AGENT, 'Main', 'add');
			fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: STAGING_URL }];
			await openAgentWorkspace(feature, AGENT, 'Main', 'add');
			await openAgentWorkspace(staging, AGENT, 'Main', 'add');
			assert.deepEqual(
				fake.calls('workspace.updateWorkspaceFolders').map((c) => (c[2] as { name: string }).name),
				['Agent: Main', 'Agent: Main (api.example.test)', 'Agent: Main (Staging)'],
			);
			await openAgentWorkspace(staging, AGENT, 'Main', 'newWindow', STORAGE);
			const [, target] = executed().find(([id]) => id === 'vscode.openFolder')!;
			assert.match((target as vscode.Uri).path, /\/Main \(Staging\)\.code-workspace$/);
			assert.equal(JSON.parse(text(target as vscode.Uri)!).folders[0].name, 'Main (Staging)');
		});

		test('a folder below the root of the agent is not the workspace: it is opened still', async () => {
			fake.workspace.workspaceFolders = [{ uri: workspaceUri(AGENT, 'src'), name: 'src', index: 0 }];
			await openAgentWorkspace(feature, AGENT, 'Main', 'add');
			assert.deepEqual(fake.calls('workspace.updateWorkspaceFolders')[0], [1, 0, { uri: workspaceUri(AGENT), name: 'Agent: Main' }]);
		});

		test('without a mode a modal asks; "Add to Workspace" adds the folder after the others, named after the agent on one line', async () => {
			fake.workspace.workspaceFolders = [{ uri: vscode.Uri.parse('file:///mine'), name: 'mine', index: 0 }];
			fake.answer('window.showInformationMessage', async (_m: string, _o: unknown, add: string) => add);
			await openAgentWorkspace(feature, AGENT, 'Main\nagent', undefined);
			const [message, options, ...buttons] = fake.calls('window.showInformationMessage')[0]!;
			assert.equal(message, 'Open the workspace of "Main agent"');
			assert.deepEqual(options, { modal: true });
			assert.deepEqual(buttons, ['Add to Workspace', 'Open in New Window']);
			assert.deepEqual(fake.calls('workspace.updateWorkspaceFolders'), [
				[1, 0, { uri: workspaceUri(AGENT), name: 'Agent: Main agent' }],
			]);
			assert.deepEqual(executed(), [['workbench.view.explorer']]);
		});

		test('dismissing the modal does nothing', async () => {
			fake.answer('window.showInformationMessage', async () => undefined);
			await openAgentWorkspace(feature, AGENT, 'Main', undefined);
			assert.equal(fake.calls('workspace.updateWorkspaceFolders').length, 0);
			assert.deepEqual(executed(), []);
		});

		test('VS Code refusing the folder is an error naming the agent', async () => {
			fake.answer('workspace.updateWorkspaceFolders', () => false);
			await assert.rejects(
				openAgentWorkspace(feature, AGENT, 'Main', 'add'),
				new Error('VS Code refused to add the workspace folder of "Main".'),
			);
			assert.deepEqual(executed(), []);
		});

		test('a new window without storage opens the bare folder', async () => {
			await openAgentWorkspace(feature, AGENT, 'Main', 'newWindow');
			assert.equal(executed().length, 1);
			const [id, target, options] = executed()[0]!;
			assert.equal(id, 'vscode.openFolder');
			assert.equal((target as vscode.Uri).toString(), workspaceUri(AGENT).toString());
			assert.deepEqual(options, { forceNewWindow: true });
		});

		test('"Open in New Window" with storage opens a workspace file named after the agent', async () => {
			fake.answer('window.showInformationMessage', async (_m: string, _o: unknown, _add: string, newWindow: string) => newWindow);
			await openAgentWorkspace(feature, AGENT, 'Main', undefined, STORAGE);
			const [id, target, options] = executed()[0]!;
			assert.equal(id, 'vscode.openFolder');
			assert.equal((target as vscode.Uri).toString(), vscode.Uri.joinPath(FOLDER, 'Main.code-workspace').toString());
			assert.deepEqual(options, { forceNewWindow: true });
			assert.ok(text(target as vscode.Uri));
		});
	});

	suite('agentWindowFile', () => {
		test('writes one folder, the agent root, named after the agent, as tab-indented JSON', async () => {
			const file = await agentWindowFile(STORAGE, AGENT, 'Refactor billing');
			assert.equal(file.toString(), vscode.Uri.joinPath(FOLDER, 'Refactor billing.code-workspace').toString());
			const content = text(file)!;
			assert.ok(content.endsWith('}\n'));
			assert.match(content, /^\{\n\t"folders"/);
			assert.deepEqual(JSON.parse(content), {
				folders: [{ uri: workspaceUri(AGENT).toString(), name: 'Refactor billing' }],
				settings: {},
			});
		});

		test('characters no file system takes and leading dots are replaced in the file name, not in the folder name', async () => {
			const file = await agentWindowFile(STORAGE, AGENT, '..a/b\\c:d*e?f"g<h>i|j');
			assert.equal(file.path.split('/').pop(), '_a_b_c_d_e_f_g_h_i_j.code-workspace');
			assert.equal((JSON.parse(text(file)!) as { folders: { name: string }[] }).folders[0]!.name, '..a/b\\c:d*e?f"g<h>i|j');
		});

		test('a long name is cut (80 characters in the file name); an empty one is named after the id', async () => {
			const long = await agentWindowFile(STORAGE, AGENT, 'n'.repeat(300));
			assert.equal(long.path.split('/').pop(), `${'n'.repeat(80)}.code-workspace`);
			const label = (JSON.parse(text(long)!) as { folders: { name: string }[] }).folders[0]!.name;
			assert.ok(label.length <= 120, `${label.length}`);
			const empty = await agentWindowFile(STORAGE, AGENT, '  \n ');
			assert.equal(empty.path.split('/').pop(), `${AGENT.replace(':', '_')}.code-workspace`);
			assert.equal((JSON.parse(text(empty)!) as { folders: { name: string }[] }).folders[0]!.name, AGENT);
		});

		test("a file of the agent's earlier name goes; other files in the folder stay", async () => {
			const old = await agentWindowFile(STORAGE, AGENT, 'Old name');
			const note = vscode.Uri.joinPath(FOLDER, 'notes.txt');
			fake.memoryFiles.set(note.toString(), new Uint8Array([1]));
			const other = vscode.Uri.joinPath(
				STORAGE,
				'agent-windows',
				encodeAgentAuthority('a0000000-0000-4000-8000-000000000001.x'),
				'X.code-workspace',
			);
			fake.memoryFiles.set(other.toString(), new Uint8Array([1]));
			const renamed = await agentWindowFile(STORAGE, AGENT, 'New name');
			assert.equal(text(old), undefined);
			assert.ok(text(renamed));
			assert.ok(fake.memoryFiles.has(note.toString()));
			assert.ok(fake.memoryFiles.has(other.toString()), "another agent's file stays");
			// Writing the same name again keeps it.
			await agentWindowFile(STORAGE, AGENT, 'New name');
			assert.ok(text(renamed));
		});
	});
});
