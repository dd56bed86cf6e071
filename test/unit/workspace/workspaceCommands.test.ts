import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { type Deployment, deploymentId, normaliseApiUrl } from '../../../src/auth/deployments';
import { workspaceAddressOf, workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { agentWindowFile } from '../../../src/workspace/openWorkspace';
import type * as vscodeTypes from 'vscode';
import { registerFlows } from '../../../src/views/registry';
import { type WorkspaceCommands, registerWorkspace } from '../../../src/workspace/workspaceCommands';
import type { TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import { testLog, type TestSession, testSession, workspaceEmulatorPerSuite } from './workspaceFeatureDeps';

/**
 * src/workspace/workspaceCommands.ts: the three commands as VS Code runs them (the fake's registry),
 * over a real WorkspaceFeature and client of the emulator; the picks and dialogs are fakes.
 */

const GET_AGENT = 'GET /v2/agents/{agent_id}';
const BILLING = 'Refactor billing module';

suite('workspace/workspaceCommands', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let session: TestSession;
	let log: ReturnType<typeof testLog>;
	let commands: WorkspaceCommands | undefined;

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w), { demoEachTest: true });
	setup(() => {
		session = testSession(client, emu.url);
		log = testLog();
	});
	const registered: vscodeTypes.Disposable[] = [];
	teardown(() => {
		commands?.dispose();
		commands = undefined;
		registered.splice(0).forEach((d) => void d.dispose());
	});

	/** The feature, its commands registered as the shell registers them (src/shell/features.ts). */
	function start(storageUri?: vscode.Uri): WorkspaceCommands {
		commands = registerWorkspace({ session, log, storageUri });
		registered.push(...registerFlows(commands.commands, log));
		return commands;
	}

	function run(id: string, ...args: unknown[]): Promise<unknown> {
		const command = fake.registeredCommand(id);
		assert.ok(command, `${id} is registered`);
		return Promise.resolve(command(...args));
	}

	const getAgentRequests = async (): Promise<number> => (await emu.counters()).requests.by_route[GET_AGENT] ?? 0;
	const modalMessage = (): unknown => fake.calls('window.showInformationMessage')[0]?.[0];

	test('says its three commands; registered, disposing their registrations removes them', () => {
		start();
		assert.deepEqual(
			commands!.commands.map((c) => c.id),
			['cloudAgents.agents.openWorkspace', 'cloudAgents.workspace.search', 'cloudAgents.workspace.goToFile'],
		);
		registered.splice(0).forEach((d) => void d.dispose());
		for (const id of commands!.commands.map((c) => c.id)) {
			assert.equal(fake.registeredCommand(id), undefined, `${id} is gone`);
		}
	});

	suite('Open Agent Workspace', () => {
		test('an id with a name and mode opens without asking anything', async () => {
			start();
			await emu.admin('POST', '/counters/reset');
			await run('cloudAgents.agents.openWorkspace', { agentId, name: 'Billing', mode: 'add' });
			assert.deepEqual(fake.calls('workspace.updateWorkspaceFolders'), [
				[0, 0, { uri: workspaceUri(agentId), name: 'Agent: Billing' }],
			]);
			assert.equal(await getAgentRequests(), 0);
		});

		test("a tree node's agent names the modal; an id alone is named by the service", async () => {
			start();
			await run('cloudAgents.agents.openWorkspace', { agent: { id: agentId, name: 'From the tree' } });
			assert.equal(modalMessage(), 'Open the workspace of "From the tree"');
			fake.resetFake();
			start();
			await emu.admin('POST', '/counters/reset');
			await run('cloudAgents.agents.openWorkspace', { agentId });
			assert.equal(modalMessage(), `Open the workspace of "${BILLING}"`);
			assert.equal(await getAgentRequests(), 1);
		});

		test('an agent the service does not know is named by its id, and the failure is logged', async () => {
			start();
			const unknown = 'a0000000-0000-4000-8000-000000000001.nobody';
			await run('cloudAgents.agents.openWorkspace', { agentId: unknown });
			assert.equal(modalMessage(), `Open the workspace of "${unknown}"`);
			assert.ok(
				log.warnings.some((w) => w.startsWith(`Reading the name of agent ${unknown} failed:`)),
				log.warnings.join('\n'),
			);
		});

		test('without an argument a pick of the agents asks which; dismissing it does nothing', async () => {
			start();
			const inputs = fake.installQuickInputs();
			let result = run('cloudAgents.agents.openWorkspace');
			let pick = await inputs.nextPick();
			await pick.until(() => pick.busy === false);
			assert.equal(pick.placeholder, 'Open the workspace of which agent?');
			const billing = pick.items.find((i) => i.label === BILLING);
			assert.equal(billing?.detail, agentId);
			pick.accept(billing);
			await result;
			assert.equal(modalMessage(), `Open the workspace of "${BILLING}"`);
			result = run('cloudAgents.agents.openWorkspace');
			pick = await inputs.nextPick();
			pick.hide();
			await result;
			assert.equal(fake.calls('window.showInformationMessage').length, 1);
		});
	});

	suite('Search Workspace', () => {
		test('automation with agent, query and pick asks nothing: no name is read, the match opens', async () => {
			start();
			await emu.admin('POST', '/counters/reset');
			const uri = await run('cloudAgents.workspace.search', { agentId, query: 'quetzalcoatl', pick: 0 });
			assert.equal((uri as vscode.Uri).toString(), workspaceUri(agentId, 'README.md').toString());
			assert.equal(await getAgentRequests(), 0);
		});

		test("the window's only agent folder is the agent, and its folder's name titles the pick", async () => {
			fake.workspace.workspaceFolders = [{ uri: workspaceUri(agentId), name: 'Agent: Billing', index: 0 }];
			start();
			let title: string | undefined;
			fake.answer('window.showQuickPick', async (_items: unknown, o: vscode.QuickPickOptions) => ((title = o.title), undefined));
			await emu.admin('POST', '/counters/reset');
			assert.equal(await run('cloudAgents.workspace.search', { query: 'quetzalcoatl' }), undefined);
			assert.match(title ?? '', /^Search Agent: Billing: "quetzalcoatl" — \d+ match(es)?$/);
			assert.equal(await getAgentRequests(), 0);
		});

		test('a folder named "/" does not name the agent: the service does', async () => {
			fake.workspace.workspaceFolders = [{ uri: workspaceUri(agentId), name: '/', index: 0 }];
			start();
			let title: string | undefined;
			fake.answer('window.showQuickPick', async (_items: unknown, o: vscode.QuickPickOptions) => ((title = o.title), undefined));
			await run('cloudAgents.workspace.search', { query: 'quetzalcoatl' });
			assert.ok(title?.startsWith(`Search ${BILLING}: `), title);
		});

		test('a failure is shown once as an error, not thrown', async () => {
			start();
			assert.equal(await run('cloudAgents.workspace.search', { agentId, query: 'x'.repeat(300), pick: 0 }), undefined);
			assert.equal(fake.calls('window.showErrorMessage').length, 1);
			assert.match(String(fake.calls('window.showErrorMessage')[0]![0]), /query/);
			assert.equal(log.errors.length, 1);
		});
	});

	suite('Go to File', () => {
		test('automation with a path opens the file and returns every walked file', async () => {
			start();
			const files = (await run('cloudAgents.workspace.goToFile', { agentId, path: 'src/index.ts' })) as string[];
			assert.ok(files.includes('README.md'));
			assert.equal(
				(fake.calls('window.showTextDocument')[0]![0] as vscode.Uri).toString(),
				workspaceUri(agentId, 'src/index.ts').toString(),
			);
		});

		test('a failure comes back to an automation caller; anyone else sees it shown', async () => {
			start();
			await assert.rejects(
				run('cloudAgents.workspace.goToFile', { agentId, path: 'missing.txt', automation: true }),
				/"missing.txt" is not a file/,
			);
			assert.equal(fake.calls('window.showErrorMessage').length, 0);
			assert.equal(await run('cloudAgents.workspace.goToFile', { agentId, path: 'missing.txt' }), undefined);
			assert.equal(fake.calls('window.showErrorMessage').length, 1);
			assert.match(String(fake.calls('window.showErrorMessage')[0]![0]), /"missing.txt" is not a file/);
		});

		test("a cloud-agent: URI (the Explorer's menu) names the agent; the pick is titled with its name", async () => {
			start();
			const inputs = fake.installQuickInputs();
			const result = run('cloudAgents.workspace.goToFile', workspaceUri(agentId, 'src'));
			const pick = await inputs.nextPick();
			assert.equal(pick.title, `Go to File in ${BILLING}`);
			await pick.until(() => pick.busy === false);
			pick.accept(pick.items.find((i) => i.label === 'README.md'));
			assert.equal(((await result) as vscode.Uri).toString(), workspaceUri(agentId, 'README.md').toString());
		});

		test('with no agent in view, a pick of the agents asks which', async () => {
			start();
			const inputs = fake.installQuickInputs();
			const result = run('cloudAgents.workspace.goToFile');
			const agents = await inputs.nextPick();
			await agents.until(() => agents.busy === false);
			assert.equal(agents.placeholder, 'Go to a file in the workspace of which agent?');
			agents.accept(agents.items.find((i) => i.label === BILLING));
			const files = await inputs.nextPick();
			assert.equal(files.title, `Go to File in ${BILLING}`);
			files.hide();
			assert.equal(await result, undefined);
		});
	});

	test('an agent window opened without its folder gets it back when the commands are created', async () => {
		const storage = vscode.Uri.parse('file:///global/storage');
		fake.workspace.workspaceFile = await agentWindowFile(storage, agentId, 'Billing');
		start(storage);
		await new Promise<void>((resolve) => {
			const check = (): void => (fake.calls('workspace.updateWorkspaceFolders').length > 0 ? resolve() : void setImmediate(check));
			check();
		});
		const [, , folder] = fake.calls('workspace.updateWorkspaceFolders')[0] as [number, number, { name: string }];
		assert.equal(folder.name, 'Billing');
	});

	suite('another deployment (issue 47)', () => {
		const STAGING_URL = 'https://staging.example.test';
		const STAGING = deploymentId(normaliseApiUrl(STAGING_URL));

		/**
		 * The commands with a second deployment, "Staging". Its session's client is the emulator's too:
		 * these tests look at the addresses the commands build (test/unit/workspace/deploymentWorkspace.test.ts
		 * has two services with different files).
		 */
		function startWithStaging(rowDeployment?: (arg: unknown) => string | undefined): WorkspaceCommands {
			const byDefault: Deployment = { id: deploymentId(normaliseApiUrl(emu.url)), name: 'home', apiUrl: emu.url, isDefault: true };
			const staging: Deployment = { id: STAGING, name: 'Staging', apiUrl: STAGING_URL, isDefault: false };
			const all = [
				{ deployment: byDefault, session },
				{ deployment: staging, session: testSession(client, STAGING_URL) },
			];
			commands = registerWorkspace({
				session,
				log,
				deployments: { all, onDidChange: new vscode.EventEmitter<void>().event },
				rowDeployment,
			});
			registered.push(...registerFlows(commands.commands, log));
			return commands;
		}

		test("Go to File on a URI of another deployment's agent picks and opens its files at that deployment's address", async () => {
			startWithStaging();
			const inputs = fake.installQuickInputs();
			const result = run('cloudAgents.workspace.goToFile', workspaceUri(agentId, 'src', STAGING));
			const pick = await inputs.nextPick();
			await pick.until(() => pick.busy === false);
			pick.accept(pick.items.find((i) => i.label === 'README.md'));
			assert.equal(((await result) as vscode.Uri).toString(), workspaceUri(agentId, 'README.md', STAGING).toString());
		});

		test('automation names the deployment (any case of its name, or its id); an unknown one is an error', async () => {
			startWithStaging();
			await run('cloudAgents.workspace.goToFile', { automation: true, agentId, path: 'README.md', deployment: 'staging' });
			const opened = fake.calls('window.showTextDocument')[0]![0] as vscode.Uri;
			assert.deepEqual(workspaceAddressOf(opened), { agentId, deploymentPart: STAGING });
			const found = await run('cloudAgents.workspace.search', { agentId, query: 'quetzalcoatl', pick: 0, deployment: STAGING });
			assert.equal((found as vscode.Uri).toString(), workspaceUri(agentId, 'README.md', STAGING).toString());
			await assert.rejects(
				run('cloudAgents.workspace.goToFile', { automation: true, agentId, path: 'README.md', deployment: 'nowhere' }),
				/No deployment named "nowhere" is configured/,
			);
		});

		test('Open Agent Workspace with a deployment adds the folder at its address; without one, at the default address', async () => {
			startWithStaging();
			await run('cloudAgents.agents.openWorkspace', { agentId, name: 'Billing', mode: 'add', deployment: 'Staging' });
			await run('cloudAgents.agents.openWorkspace', { agentId, name: 'Billing', mode: 'add' });
			const added = fake.calls('workspace.updateWorkspaceFolders').map((c) => (c[2] as { uri: vscode.Uri }).uri.toString());
			assert.deepEqual(added, [workspaceUri(agentId, '', STAGING).toString(), workspaceUri(agentId).toString()]);
		});

		test("Go to File on a row of another deployment's list walks that deployment's agent; on a default row, the default's", async () => {
			const stagingRow = { agent: { id: agentId, name: 'Billing' } };
			const defaultRow = { agent: { id: agentId, name: 'Billing' } };
			startWithStaging((arg) => (arg === stagingRow ? STAGING : undefined));
			const inputs = fake.installQuickInputs();
			const opened: string[] = [];
			for (const row of [stagingRow, defaultRow]) {
				const result = run('cloudAgents.workspace.goToFile', row);
				const pick = await inputs.nextPick();
				await pick.until(() => pick.busy === false);
				pick.accept(pick.items.find((i) => i.label === 'README.md'));
				opened.push(((await result) as vscode.Uri).toString());
			}
			assert.deepEqual(opened, [
				workspaceUri(agentId, 'README.md', STAGING).toString(),
				workspaceUri(agentId, 'README.md').toString(),
			]);
		});

		test("Search Workspace on the active editor of another deployment's agent searches there and opens the match at its address", async () => {
			startWithStaging();
			fake.window.activeTextEditor = { document: { uri: workspaceUri(agentId, 'src/index.ts', STAGING) } } as never;
			const found = await run('cloudAgents.workspace.search', { query: 'quetzalcoatl', pick: 0 });
			assert.equal((found as vscode.Uri).toString(), workspaceUri(agentId, 'README.md', STAGING).toString());
		});
	});
});
