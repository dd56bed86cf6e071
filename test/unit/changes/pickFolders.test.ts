import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { pickAgentFolder, pickLocalFolder } from '../../../src/changes/pickFolders';
import * as fake from '../support/vscodeFake';
import { workspaceSuite } from '../api/endpoints/recorder';

/**
 * src/changes/pickFolders.ts on the `vscode` fake: the agent-side folder from the emulator's
 * workspace (a fake QuickPick chooses once its items have loaded), the local folder from the
 * workspace folders or a dialog.
 */
type Item = vscode.QuickPickItem & { folder?: string };

/** Answers `window.createQuickPick` with a pick that, once loaded, accepts what `choose` picks (undefined: hides). */
function quickPickChoosing(choose: (items: Item[]) => Item | undefined): { shown: () => Item[]; title: () => string | undefined } {
	let loaded: Item[] = [];
	let title: string | undefined;
	fake.answer('window.createQuickPick', () => {
		const accept = new fake.EventEmitter<void>();
		const hide = new fake.EventEmitter<void>();
		let busy = false;
		const pick = {
			items: [] as Item[],
			selectedItems: [] as Item[],
			activeItems: [] as Item[],
			placeholder: undefined as string | undefined,
			matchOnDetail: false,
			enabled: true,
			set title(t: string | undefined) {
				title = t;
			},
			get busy() {
				return busy;
			},
			set busy(b: boolean) {
				busy = b;
				if (!b) {
					loaded = pick.items;
					const chosen = choose(pick.items);
					void Promise.resolve().then(() => {
						if (chosen) {
							pick.selectedItems = [chosen];
							accept.fire();
						} else {
							hide.fire();
						}
					});
				}
			},
			onDidAccept: accept.event,
			onDidHide: hide.event,
			show: () => undefined,
			dispose: () => undefined,
		};
		return pick;
	});
	return { shown: () => loaded, title: () => title };
}

function fakeListing(entries: Array<{ name: string; type: string }>): CloudAgentsClient {
	return {
		async *iterateWorkspace() {
			yield* entries;
		},
	} as unknown as CloudAgentsClient;
}

suite('changes/pickFolders', () => {
	let client: CloudAgentsClient;
	let agentId: string;
	workspaceSuite((s) => ({ client, agentId } = s));

	test("pickAgentFolder offers the workspace root first, then the agent's top-level folders (not its files)", async () => {
		const top = await client.listWorkspaceAll(agentId, '');
		const dirs = top.filter((e) => e.type === 'directory').map((e) => e.name);
		assert.ok(dirs.length > 0, 'the seed has folders');
		const pick = quickPickChoosing((items) => items.find((i) => i.folder === dirs[0]));
		const folder = await pickAgentFolder(client, agentId, 'Billing', 'Compare');
		assert.equal(folder, dirs[0]);
		assert.equal(pick.title(), 'Compare');
		assert.equal(pick.shown()[0]!.folder, '');
		assert.equal(pick.shown()[0]!.description, 'Billing');
		assert.deepEqual(
			pick
				.shown()
				.slice(1)
				.map((i) => i.folder),
			dirs,
		);
	});

	test('pickAgentFolder answers the root as an empty path, and undefined when the pick is dismissed', async () => {
		quickPickChoosing((items) => items[0]);
		assert.equal(await pickAgentFolder(client, agentId, 'Billing', 't'), '');
		quickPickChoosing(() => undefined);
		assert.equal(await pickAgentFolder(client, agentId, 'Billing', 't'), undefined);
	});

	test('pickAgentFolder leaves out names that are not one plain path segment, and shows icon syntax as typed', async () => {
		const pick = quickPickChoosing(() => undefined);
		await pickAgentFolder(
			fakeListing([
				{ name: 'ok', type: 'directory' },
				{ name: '..', type: 'directory' },
				{ name: '.', type: 'directory' },
				{ name: 'a/b', type: 'directory' },
				{ name: 'a\\b', type: 'directory' },
				{ name: 'nul\0x', type: 'directory' },
				{ name: '$(alert) urgent', type: 'directory' },
				{ name: 'file.txt', type: 'file' },
			]),
			'a1',
			'Agent\nwith a line break',
			't',
		);
		const shown = pick.shown();
		assert.deepEqual(
			shown.slice(1).map((i) => i.folder),
			['ok', '$(alert) urgent'],
		);
		assert.ok(!shown[0]!.description!.includes('\n'));
		assert.ok(!shown[2]!.label.startsWith('$(alert)'), shown[2]!.label);
	});

	test('pickAgentFolder reads at most 2,000 entries of a huge listing', async () => {
		let read = 0;
		const huge = {
			async *iterateWorkspace() {
				for (let i = 0; i < 10_000; i++) {
					read++;
					yield { name: `d${i}`, type: 'directory' };
				}
			},
		} as unknown as CloudAgentsClient;
		const pick = quickPickChoosing(() => undefined);
		await pickAgentFolder(huge, 'a1', 'A', 't');
		assert.equal(pick.shown().length, 1 + 2_000);
		assert.ok(read <= 2_001, `${read}`);
	});

	test('pickLocalFolder puts the workspace folder named like the agent folder first, leaves out those it cannot compare', async () => {
		const folders = ['/w/alpha', '/w/Billing', '/w/remote'].map((p, index) => ({
			uri: vscode.Uri.file(p),
			name: p.split('/').pop()!,
			index,
		}));
		fake.workspace.workspaceFolders = folders;
		fake.answer('window.showQuickPick', async (items: Item[]) => items[0]);
		const chosen = await pickLocalFolder('src/billing', 'Compare', (uri) => !uri.path.endsWith('remote'));
		assert.equal(chosen?.path, '/w/Billing');
		const [items, options] = fake.calls('window.showQuickPick')[0] as [Item[], { title: string }];
		assert.deepEqual(
			items.map((i) => i.label),
			['Billing', 'alpha', '$(folder-opened) Choose a Folder…'],
		);
		assert.equal(options.title, 'Compare');
		assert.deepEqual(fake.calls('window.showOpenDialog'), []);
	});

	test('pickLocalFolder: "Choose a Folder…" opens a folder dialog; dismissing the pick opens nothing', async () => {
		fake.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w/a'), name: 'a', index: 0 }];
		fake.answer('window.showQuickPick', async (items: Item[]) => items[items.length - 1]);
		fake.answer('window.showOpenDialog', async () => [vscode.Uri.file('/elsewhere')]);
		assert.equal((await pickLocalFolder('x', 't', () => true))?.path, '/elsewhere');
		const [options] = fake.calls('window.showOpenDialog')[0] as [{ canSelectFolders: boolean; canSelectFiles: boolean }];
		assert.equal(options.canSelectFolders, true);
		assert.equal(options.canSelectFiles, false);

		fake.answer('window.showQuickPick', async () => undefined);
		assert.equal(await pickLocalFolder('x', 't', () => true), undefined);
		assert.equal(fake.calls('window.showOpenDialog').length, 1);
	});

	test('pickLocalFolder without a folder it can compare goes straight to the dialog; a cancelled dialog is undefined', async () => {
		fake.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w/a'), name: 'a', index: 0 }];
		assert.equal(await pickLocalFolder('x', 't', () => false), undefined);
		assert.deepEqual(fake.calls('window.showQuickPick'), []);
		assert.equal(fake.calls('window.showOpenDialog').length, 1);
	});
});
