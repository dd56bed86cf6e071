import * as assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { searchAgentWorkspace } from '../../../src/workspace/searchWorkspace';
import type { WorkspaceFeature } from '../../../src/workspace/workspaceFeature';
import type { TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import { testFeature, testSession, workspaceEmulatorPerSuite } from './workspaceFeatureDeps';

/** src/workspace/searchWorkspace.ts: the service's search (the emulator's), the query box and the pick (fakes). */

/** The demo seed's search word (emulator/src/seed.ts DEMO_SEARCH_WORD): in README.md. */
const WORD = 'quetzalcoatl';

interface PickItem extends vscode.QuickPickItem {
	index: number;
}

suite('workspace/searchWorkspace', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let feature: WorkspaceFeature;

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w), { demoEachTest: true });
	setup(() => {
		feature = testFeature(testSession(client, emu.url));
	});
	teardown(() => feature.dispose());

	const write = (path: string, content: string): Promise<unknown> =>
		feature.cache.writeFile(agentId, path, new TextEncoder().encode(content), { create: true, overwrite: true });

	/** What showTextDocument was given: the URI and the selection. */
	function openedAt(): { uri: string; selection: vscode.Range } {
		const calls = fake.calls('window.showTextDocument');
		assert.equal(calls.length, 1);
		const [uri, options] = calls[0] as [vscode.Uri, { selection: vscode.Range; preview: boolean }];
		assert.equal(options.preview, true);
		return { uri: uri.toString(), selection: options.selection };
	}

	test("automation: `pick` opens that match without UI, the query's text selected at its line and column", async () => {
		await write('notes/find.txt', `first line\n   say ${WORD} here\n`);
		const { matches } = await client.searchWorkspace(agentId, WORD);
		const at = matches.findIndex((m) => m.path.endsWith('notes/find.txt'));
		assert.ok(at >= 0, JSON.stringify(matches));
		const uri = await searchAgentWorkspace(feature, agentId, { query: WORD, pick: at });
		assert.equal(uri?.toString(), workspaceUri(agentId, 'notes/find.txt').toString());
		const { selection } = openedAt();
		assert.deepEqual(
			[selection.start.line, selection.start.character, selection.end.line, selection.end.character],
			[1, 7, 1, 7 + WORD.length],
		);
		assert.equal(fake.calls('window.showQuickPick').length, 0);
	});

	test('automation: a match number past the matches is an error counting them', async () => {
		await write('only.txt', 'zanzibarian\n');
		await assert.rejects(
			searchAgentWorkspace(feature, agentId, { query: 'zanzibarian', pick: 1 }),
			new Error('There is no match number 1 for "zanzibarian" (1 found).'),
		);
		await write('two.txt', 'zanzibarian\n');
		await assert.rejects(
			searchAgentWorkspace(feature, agentId, { query: 'zanzibarian', pick: 7 }),
			new Error('There is no match number 7 for "zanzibarian" (2 found).'),
		);
		assert.equal(fake.calls('window.showTextDocument').length, 0);
	});

	test('the pick is titled with the name, the query and the count; each match is path:line, its column and preview', async () => {
		await write('a.txt', `  ${WORD} in a  \n`);
		let offered: PickItem[] = [];
		let options: vscode.QuickPickOptions | undefined;
		fake.answer('window.showQuickPick', async (items: PickItem[], o: vscode.QuickPickOptions) => {
			offered = items;
			options = o;
			return items.find((i) => i.label === 'a.txt:1');
		});
		const uri = await searchAgentWorkspace(feature, agentId, { query: WORD, name: 'Billing' });
		const { matches } = await client.searchWorkspace(agentId, WORD);
		assert.equal(offered.length, matches.length);
		assert.ok(matches.length >= 2, `${matches.length}`);
		assert.equal(options?.title, `Search Billing: "${WORD}" — ${matches.length} matches`);
		assert.equal(options?.matchOnDetail, true);
		const a = offered.find((i) => i.label === 'a.txt:1');
		assert.equal(a?.description, 'column 3');
		assert.equal(a?.detail, `${WORD} in a`, 'the preview is trimmed');
		assert.equal(uri?.toString(), workspaceUri(agentId, 'a.txt').toString());
		assert.equal(openedAt().selection.start.character, 2);
	});

	test('one match is said in the singular; dismissing the pick opens nothing', async () => {
		await write('one.txt', 'xylophonically\n');
		let title: string | undefined;
		fake.answer('window.showQuickPick', async (_items: unknown, o: vscode.QuickPickOptions) => {
			title = o.title;
			return undefined;
		});
		assert.equal(await searchAgentWorkspace(feature, agentId, { query: 'xylophonically' }), undefined);
		assert.equal(title, `Search ${agentId}: "xylophonically" — 1 match`, 'without a name the id titles the pick');
		assert.equal(fake.calls('window.showTextDocument').length, 0);
	});

	test('no match: an information message, no pick, nothing opened', async () => {
		assert.equal(await searchAgentWorkspace(feature, agentId, { query: 'no-such-text-anywhere' }), undefined);
		assert.deepEqual(fake.calls('window.showInformationMessage')[0], [
			'No matches for "no-such-text-anywhere" in the agent workspace.',
		]);
		assert.equal(fake.calls('window.showQuickPick').length, 0);
	});

	test('the query box: titled with the name; Enter on nothing says what it needs; over 256 bytes is refused as typed', async () => {
		const inputs = fake.installQuickInputs();
		fake.answer('window.showQuickPick', async (items: PickItem[]) => items[0]);
		const result = searchAgentWorkspace(feature, agentId, { name: 'Billing' });
		const box = await inputs.nextBox();
		assert.equal(box.title, 'Search Billing');
		assert.equal(box.placeholder, 'Text to find (at most 256 bytes)');
		box.accept();
		assert.equal(box.validationMessage, 'Type the text to find.');
		assert.equal(box.shown, true);
		box.type('é'.repeat(129)); // 258 bytes
		assert.equal(box.validationMessage, 'At most 256 bytes (this is 258).');
		box.accept();
		assert.equal(box.shown, true, 'a query over the limit is not taken');
		box.type('é'.repeat(128));
		assert.equal(box.validationMessage, undefined);
		box.type(WORD);
		box.accept();
		const uri = await result;
		assert.equal(box.shown, false);
		assert.equal(box.disposed, true);
		assert.ok(uri, 'the first match opened');
		assert.equal(fake.calls('window.showTextDocument').length, 1);
	});

	test('dismissing the query box sends nothing and resolves undefined', async () => {
		const inputs = fake.installQuickInputs();
		const result = searchAgentWorkspace(feature, agentId);
		const box = await inputs.nextBox();
		assert.equal(box.title, `Search ${agentId}`);
		await emu.admin('POST', '/counters/reset');
		box.type('something');
		box.hide();
		assert.equal(await result, undefined);
		assert.equal((await emu.counters()).requests.total, 0);
	});

	test('a query over the limit given by automation is refused by the client before sending', async () => {
		await emu.admin('POST', '/counters/reset');
		await assert.rejects(
			searchAgentWorkspace(feature, agentId, { query: 'x'.repeat(257), pick: 0 }),
			(err: Error) => err.name === 'ValidationError',
		);
		assert.equal((await emu.counters()).requests.total, 0);
	});
});
