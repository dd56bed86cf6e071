import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ApiError, type CloudAgentsClient } from '../../../src/api';
import { workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { goToWorkspaceFile, openWalkedFile } from '../../../src/workspace/goToFile';
import type { WorkspaceFeature } from '../../../src/workspace/workspaceFeature';
import type { TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import { testFeature, testSession, workspaceEmulatorPerSuite } from './workspaceFeatureDeps';

/** src/workspace/goToFile.ts: the walk of the emulator's demo workspace through a real WorkspaceFeature; the pick is a fake. */

/** The demo billing agent's files (emulator/src/seed.ts DEMO_BILLING_BASELINE plus what its runs changed) include these. */
const SOME_FILES = ['README.md', 'package.json', 'src/index.ts', 'docs/api/endpoints.md'];

suite('workspace/goToFile', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let feature: WorkspaceFeature;

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w), { demoEachTest: true });
	setup(async () => {
		await emu.faults([]);
		feature = testFeature(testSession(client, emu.url));
	});
	teardown(() => feature.dispose());

	/** Deletes every top-level entry of the workspace but `keep`. */
	async function keepOnly(keep: string[]): Promise<void> {
		for (const [name] of await feature.cache.readDirectory(agentId, '')) {
			if (!keep.includes(name)) {
				await feature.cache.delete(agentId, name, { recursive: true });
			}
		}
	}

	const opened = (): string[] => fake.calls('window.showTextDocument').map(([uri]) => (uri as vscode.Uri).toString());

	suite('openWalkedFile (automation)', () => {
		test('opens a walked file (the path normalised) and returns every file walked', async () => {
			const files = await openWalkedFile(feature, agentId, '/src//index.ts');
			for (const f of SOME_FILES) {
				assert.ok(files.includes(f), `${f} in ${files.join(', ')}`);
			}
			assert.ok(!files.includes('src'), 'folders are not listed');
			assert.deepEqual(opened(), [workspaceUri(agentId, 'src/index.ts').toString()]);
			assert.deepEqual(fake.calls('window.showTextDocument')[0]![1], { preview: true });
		});

		test('a path that is not a walked file is an error saying how many were listed; nothing opens', async () => {
			const files = (await feature.cache.walkFiles(agentId)).files;
			await assert.rejects(
				openWalkedFile(feature, agentId, 'nope.txt'),
				new Error(`"nope.txt" is not a file in the workspace of agent ${agentId} (${files.length} files listed).`),
			);
			// A folder is not a file.
			await assert.rejects(openWalkedFile(feature, agentId, 'src'), /"src" is not a file/);
			assert.deepEqual(opened(), []);
		});

		test('one file listed is said in the singular', async () => {
			await keepOnly(['README.md']);
			await assert.rejects(
				openWalkedFile(feature, agentId, 'x'),
				new Error(`"x" is not a file in the workspace of agent ${agentId} (1 file listed).`),
			);
		});

		test('a path escaping the root is refused before the walk', async () => {
			await emu.admin('POST', '/counters/reset');
			await assert.rejects(openWalkedFile(feature, agentId, '../outside'), (err: Error) => err.name === 'WorkspacePathError');
			assert.equal((await emu.counters()).requests.total, 0);
		});
	});

	suite('goToWorkspaceFile (the pick)', () => {
		test('the pick, titled with the name, fills with every file (name, and folder as description) and opens the one chosen', async () => {
			const inputs = fake.installQuickInputs();
			const result = goToWorkspaceFile(feature, agentId, 'Billing');
			const pick = await inputs.nextPick();
			assert.equal(pick.title, 'Go to File in Billing');
			assert.equal(pick.matchOnDescription, true);
			await pick.until(() => pick.busy === false);
			const walked = (await feature.cache.walkFiles(agentId)).files;
			assert.equal(pick.items.length, walked.length);
			assert.equal(pick.placeholder, `Type to filter ${walked.length} files`);
			const index = pick.items.find((i) => i.label === 'index.ts' && i.description === 'src');
			assert.ok(index, JSON.stringify(pick.items.map((i) => [i.label, i.description])));
			const readme = pick.items.find((i) => i.label === 'README.md');
			assert.equal(readme?.description, undefined, 'a top-level file has no folder');
			pick.accept(index);
			const uri = await result;
			assert.equal(uri?.toString(), workspaceUri(agentId, 'src/index.ts').toString());
			assert.deepEqual(opened(), [uri.toString()]);
			assert.equal(pick.disposed, true);
		});

		test('dismissing the pick resolves undefined and opens nothing; Enter with nothing chosen keeps it open', async () => {
			const inputs = fake.installQuickInputs();
			const result = goToWorkspaceFile(feature, agentId, 'Billing');
			const pick = await inputs.nextPick();
			await pick.until(() => pick.busy === false);
			pick.accept(undefined);
			assert.equal(pick.disposed, false);
			pick.hide();
			assert.equal(await result, undefined);
			assert.deepEqual(opened(), []);
		});

		test('one file, and no file, are said as such', async () => {
			await keepOnly(['README.md']);
			let inputs = fake.installQuickInputs();
			let result = goToWorkspaceFile(feature, agentId, 'Billing');
			let pick = await inputs.nextPick();
			await pick.until(() => pick.busy === false);
			assert.equal(pick.placeholder, 'Type to filter 1 file');
			pick.hide();
			await result;
			await keepOnly([]);
			inputs = fake.installQuickInputs();
			result = goToWorkspaceFile(feature, agentId, 'Billing');
			pick = await inputs.nextPick();
			await pick.until(() => pick.busy === false);
			assert.equal(pick.placeholder, 'The agent workspace has no files');
			assert.deepEqual(pick.items, []);
			pick.hide();
			assert.equal(await result, undefined);
		});

		test("a walk that fails closes the pick and rejects with the service's error", async () => {
			await emu.faults([{ route: '/v2/agents/{agent_id}/workspace', status: 403 }]);
			const inputs = fake.installQuickInputs();
			const result = goToWorkspaceFile(feature, agentId, 'Billing');
			const pick = await inputs.nextPick();
			await assert.rejects(result, (err: unknown) => err instanceof ApiError && err.status === 403);
			assert.equal(pick.disposed, true);
			assert.deepEqual(opened(), []);
		});
	});
});
