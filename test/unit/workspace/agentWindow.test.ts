import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { agentWindowAuthority, restoreAgentWindowFolder } from '../../../src/workspace/agentWindow';
import { deploymentId } from '../../../src/auth/deployments';
import { encodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { agentWindowFile } from '../../../src/workspace/openWorkspace';
import * as fake from '../support/vscodeFake';

/** src/workspace/agentWindow.ts on the fake's workspace and in-memory file system. */

const AGENT = 'C19B1983-412F-41B5-81CC-EC71FA626645:Main';
const AUTHORITY = encodeAgentAuthority(AGENT);
const STORAGE = vscode.Uri.parse('file:///global/storage');
const fileIn = (...segments: string[]): vscode.Uri => vscode.Uri.joinPath(STORAGE, 'agent-windows', ...segments);

function log(): { warnings: string[]; warn(m: string): void } {
	const warnings: string[] = [];
	return { warnings, warn: (m) => warnings.push(m) };
}

suite('workspace/agentWindow', () => {
	suite('agentWindowAuthority', () => {
		test('the authority of a workspace file of ours, lower-cased', () => {
			assert.equal(agentWindowAuthority(STORAGE, fileIn(AUTHORITY, 'Main.code-workspace')), AUTHORITY.toLowerCase());
			assert.equal(agentWindowAuthority(STORAGE, fileIn(AUTHORITY.toUpperCase(), 'x.code-workspace')), AUTHORITY.toLowerCase());
			// A trailing slash on the storage folder changes nothing.
			assert.equal(
				agentWindowAuthority(vscode.Uri.parse('file:///global/storage/'), fileIn(AUTHORITY, 'M.code-workspace')),
				AUTHORITY.toLowerCase(),
			);
		});

		test("an agent window of another deployment's agent (issue 47): the authority with its deployment part", () => {
			const withPart = encodeAgentAuthority(AGENT, deploymentId('https://staging.example.test'));
			assert.equal(agentWindowAuthority(STORAGE, fileIn(withPart, 'Main.code-workspace')), withPart.toLowerCase());
			assert.equal(agentWindowAuthority(STORAGE, fileIn(`${AUTHORITY}.not-a-deployment`, 'Main.code-workspace')), undefined);
		});

		test('undefined for any other file', () => {
			const cases: Array<[string, vscode.Uri | undefined]> = [
				['no file', undefined],
				['another extension', fileIn(AUTHORITY, 'Main.json')],
				['too deep', fileIn(AUTHORITY, 'sub', 'Main.code-workspace')],
				['not deep enough', fileIn('Main.code-workspace')],
				['an authority naming no agent', fileIn('agent-!!', 'Main.code-workspace')],
				['another folder', vscode.Uri.joinPath(STORAGE, 'elsewhere', AUTHORITY, 'Main.code-workspace')],
				['another scheme', fileIn(AUTHORITY, 'Main.code-workspace').with({ scheme: 'vscode-userdata' })],
				['another authority', fileIn(AUTHORITY, 'Main.code-workspace').with({ authority: 'remote' })],
				['beside the storage', vscode.Uri.parse(`file:///global/storage-other/agent-windows/${AUTHORITY}/M.code-workspace`)],
			];
			for (const [what, file] of cases) {
				assert.equal(agentWindowAuthority(STORAGE, file), undefined, what);
			}
		});
	});

	suite('restoreAgentWindowFolder', () => {
		const folderAdded = (): unknown[] => fake.calls('workspace.updateWorkspaceFolders')[0] ?? [];
		const addedUri = (): string => (folderAdded()[2] as { uri: vscode.Uri }).uri.toString();
		const addedName = (): string => (folderAdded()[2] as { name: string }).name;

		test('an agent window without its folder gets it back, named as its file says', async () => {
			const file = await agentWindowFile(STORAGE, AGENT, 'Refactor billing');
			fake.workspace.workspaceFile = file;
			const l = log();
			assert.equal(await restoreAgentWindowFolder(STORAGE, l), true);
			assert.deepEqual(folderAdded().slice(0, 2), [0, 0]);
			assert.equal(addedUri(), `cloud-agent://${AUTHORITY.toLowerCase()}/`);
			assert.equal(addedName(), 'Refactor billing');
			assert.deepEqual(l.warnings, []);
		});

		test('a window with a folder, or not an agent window, is left alone', async () => {
			const file = await agentWindowFile(STORAGE, AGENT, 'Main');
			fake.workspace.workspaceFile = file;
			fake.workspace.workspaceFolders = [{ uri: vscode.Uri.parse(`cloud-agent://${AUTHORITY}/`), name: 'Main', index: 0 }];
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), false);
			fake.workspace.workspaceFolders = undefined;
			fake.workspace.workspaceFile = vscode.Uri.parse('file:///home/me/project.code-workspace');
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), false);
			fake.workspace.workspaceFile = undefined;
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), false);
			assert.equal(fake.calls('workspace.updateWorkspaceFolders').length, 0);
		});

		test('a folder that arrives while the file is read is not added twice', async () => {
			const file = await agentWindowFile(STORAGE, AGENT, 'Main');
			fake.workspace.workspaceFile = file;
			const fs = fake.workspace.fs;
			const original = Object.getOwnPropertyDescriptor(fs, 'readFile')!;
			const readFile = fs.readFile.bind(fs);
			fs.readFile = async (uri) => {
				fake.workspace.workspaceFolders = [{ uri: vscode.Uri.parse(`cloud-agent://${AUTHORITY}/`), name: 'Main', index: 0 }];
				return readFile(uri);
			};
			try {
				assert.equal(await restoreAgentWindowFolder(STORAGE, log()), false);
			} finally {
				Object.defineProperty(fs, 'readFile', original);
			}
			assert.equal(fake.calls('workspace.updateWorkspaceFolders').length, 0);
		});

		test("without a usable name in the file, the file's name names the folder", async () => {
			const write = (name: string, content: string): vscode.Uri => {
				const file = fileIn(AUTHORITY, name);
				fake.memoryFiles.set(file.toString(), new TextEncoder().encode(content));
				return file;
			};
			const cases: Array<[string, string]> = [
				['not JSON', '{ folders: '],
				['no folders', '{}'],
				['folders not a list', '{"folders": {}}'],
				['another agent only', JSON.stringify({ folders: [{ uri: 'cloud-agent://agent-other/', name: 'Other' }] })],
				['a folder without a name', JSON.stringify({ folders: [{ uri: `cloud-agent://${AUTHORITY}/` }] })],
				['null JSON', 'null'],
			];
			for (const [what, content] of cases) {
				fake.resetFake();
				fake.workspace.workspaceFile = write('From file name.code-workspace', content);
				assert.equal(await restoreAgentWindowFolder(STORAGE, log()), true, what);
				assert.equal(addedName(), 'From file name', what);
			}
			// A missing file too.
			fake.resetFake();
			fake.workspace.workspaceFile = fileIn(AUTHORITY, 'Gone.code-workspace');
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), true);
			assert.equal(addedName(), 'Gone');
		});

		test('the name given for this agent is taken (any case of its authority), kept to one line', async () => {
			const file = fileIn(AUTHORITY, 'x.code-workspace');
			const content = {
				folders: [
					{ uri: 'file:///elsewhere', name: 'Not this' },
					{ uri: `cloud-agent://${AUTHORITY.toUpperCase()}/`, name: 'Line one\nline two' },
				],
			};
			fake.memoryFiles.set(file.toString(), new TextEncoder().encode(JSON.stringify(content)));
			fake.workspace.workspaceFile = file;
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), true);
			assert.equal(addedName(), 'Line one line two');
		});

		test('a file over 64 KiB is not read for the name; an empty name falls back to the authority', async () => {
			const big = fileIn(AUTHORITY, 'Big.code-workspace');
			const padding = ' '.repeat(64 * 1024);
			fake.memoryFiles.set(
				big.toString(),
				new TextEncoder().encode(
					`${JSON.stringify({ folders: [{ uri: `cloud-agent://${AUTHORITY}/`, name: 'Inside' }] })}${padding}`,
				),
			);
			fake.workspace.workspaceFile = big;
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), true);
			assert.equal(addedName(), 'Big');
			fake.resetFake();
			const blank = fileIn(AUTHORITY, 'b.code-workspace');
			fake.memoryFiles.set(
				blank.toString(),
				new TextEncoder().encode(JSON.stringify({ folders: [{ uri: `cloud-agent://${AUTHORITY}/`, name: ' \n ' }] })),
			);
			fake.workspace.workspaceFile = blank;
			assert.equal(await restoreAgentWindowFolder(STORAGE, log()), true);
			assert.equal(addedName(), AUTHORITY.toLowerCase());
		});

		test('VS Code refusing the folder is logged and returns false', async () => {
			fake.workspace.workspaceFile = await agentWindowFile(STORAGE, AGENT, 'Main');
			fake.answer('workspace.updateWorkspaceFolders', () => false);
			const l = log();
			assert.equal(await restoreAgentWindowFolder(STORAGE, l), false);
			assert.equal(l.warnings.length, 1);
			assert.match(l.warnings[0]!, /refused to put the agent's folder back/);
		});
	});
});
