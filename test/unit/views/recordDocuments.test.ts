import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SAFETY } from '../../../src/api';
import { IMAGE_SCHEME, RECORD_SCHEME } from '../../../src/ids';
import { deploymentId } from '../../../src/auth/deployments';
import {
	RecordDocuments,
	closeTabsOf,
	deploymentPartOfRecord,
	namedRecordUri,
	recordUri,
	runResultTitle,
	runResultUri,
	titledRecordUri,
	withDeploymentPart,
} from '../../../src/views/recordDocuments';
import * as fake from '../support/vscodeFake';

interface Doc {
	uri: vscode.Uri;
	languageId: string;
}

interface Tab {
	label: string;
	input: unknown;
	isDirty: boolean;
}

/** The open documents as `workspace.textDocuments` lists them. */
function openDocs(): Doc[] {
	return fake.workspace.textDocuments as Doc[];
}

/** Tabs in one group (`window.tabGroups.all`), and the active tab for `activeTabGroup`. */
function setTabs(tabs: Tab[], active?: Tab): void {
	fake.window.tabGroups.all = [{ tabs }];
	Object.assign(fake.window.tabGroups, { activeTabGroup: { activeTab: active, tabs } });
}

/** `openTextDocument` gives a document of `language` (plain text unless the test says) and opens it. */
function openAs(language: (uri: vscode.Uri) => string = () => 'plaintext'): void {
	fake.answer('workspace.openTextDocument', async (uri: vscode.Uri) => {
		const doc = openDocs().find((d) => d.uri.toString() === uri.toString()) ?? { uri, languageId: language(uri) };
		if (!openDocs().includes(doc)) {
			openDocs().push(doc);
		}
		return doc;
	});
	fake.answer('languages.setTextDocumentLanguage', async (doc: Doc, languageId: string) => {
		doc.languageId = languageId;
		return doc;
	});
}

/** src/views/recordDocuments.ts on the `vscode` fake. */
suite('views/recordDocuments', () => {
	let records: RecordDocuments;

	setup(() => {
		records = new RecordDocuments();
		setTabs([]);
	});

	teardown(() => {
		records.dispose();
		delete (fake.window.tabGroups as { activeTabGroup?: unknown }).activeTabGroup;
	});

	test('registers itself as the content provider of the record scheme; unknown records say they are gone', () => {
		const [scheme, provider] = fake.calls('workspace.registerTextDocumentContentProvider')[0]!;
		assert.equal(scheme, RECORD_SCHEME);
		assert.equal(provider, records);
		assert.match(records.provideTextDocumentContent(recordUri('runs', 'r1')), /no longer available/);
	});

	test('show holds the content, opens the document and shows it in a preview editor', async () => {
		openAs(() => 'json');
		const uri = recordUri('runs', 'r1.json');
		const doc = (await records.show(uri, '{"a":1}')) as unknown as Doc;
		assert.equal(doc.uri.toString(), uri.toString());
		assert.equal(records.provideTextDocumentContent(uri), '{"a":1}');
		const [shownDoc, options] = fake.calls('window.showTextDocument')[0]!;
		assert.equal(shownDoc, doc);
		assert.deepEqual(options, { preview: true });
	});

	test('the language applies to a plain-text document; another detected language stays unless forced', async () => {
		openAs((uri) => (uri.path.endsWith('.md') ? 'markdown' : 'plaintext'));
		const plain = (await records.show(recordUri('result'), 'text', 'markdown')) as unknown as Doc;
		assert.equal(plain.languageId, 'markdown');
		const detected = (await records.show(recordUri('notes.md'), 'text', 'json')) as unknown as Doc;
		assert.equal(detected.languageId, 'markdown', 'the extension decides');
		const forced = (await records.show(titledRecordUri('Result — bot: fix a.md', 'k'), 'x', 'json', {
			forceLanguage: true,
		})) as unknown as Doc;
		assert.equal(forced.languageId, 'json');
		assert.equal(fake.calls('languages.setTextDocumentLanguage').length, 2);
	});

	test('a language VS Code refuses leaves the document as it was', async () => {
		openAs();
		fake.answer('languages.setTextDocumentLanguage', async () => {
			throw new Error('unknown language');
		});
		const doc = (await records.show(recordUri('x'), 'text', 'klingon')) as unknown as Doc;
		assert.equal(doc.languageId, 'plaintext');
		assert.equal(fake.calls('window.showTextDocument').length, 1);
	});

	test('showing an open record with new content tells VS Code and waits for the document to change', async () => {
		openAs();
		const uri = recordUri('runs', 'r1');
		await records.show(uri, 'v1');
		const changes: string[] = [];
		records.onDidChange((u) => {
			changes.push(u.toString());
			// VS Code reads the content again and the open document changes.
			fake.fire.changeDoc.fire({ document: { uri: vscode.Uri.parse(u.toString()) }, contentChanges: [{ text: 'v2' }] });
		});
		await records.show(uri, 'v2');
		assert.deepEqual(changes, [uri.toString()]);
		assert.equal(records.provideTextDocumentContent(uri), 'v2');
		await records.show(uri, 'v2');
		assert.equal(changes.length, 1, 'the same content again: no change told');
	});

	test('a record that failed to open is not held; one that is open stays held', async () => {
		fake.answer('workspace.openTextDocument', async () => {
			throw new Error('cannot open');
		});
		const uri = recordUri('runs', 'r1');
		await assert.rejects(records.show(uri, 'content'), /cannot open/);
		assert.match(records.provideTextDocumentContent(uri), /no longer available/);
		openDocs().push({ uri, languageId: 'plaintext' });
		records.onDidChange((u) => fake.fire.changeDoc.fire({ document: { uri: u }, contentChanges: [{ text: 'content' }] }));
		await assert.rejects(records.show(uri, 'content'), /cannot open/);
		assert.equal(records.provideTextDocumentContent(uri), 'content');
	});

	test('closing a record document drops its content, unless it is still open (a language change)', async () => {
		openAs();
		const a = recordUri('a');
		const b = recordUri('b');
		await records.show(a, 'A');
		await records.show(b, 'B');
		// b's language changed: VS Code closes and reopens it (it stays in textDocuments).
		fake.fire.closeDoc.fire({ uri: b });
		assert.equal(records.provideTextDocumentContent(b), 'B');
		fake.workspace.textDocuments = openDocs().filter((d) => d.uri.toString() !== a.toString());
		fake.fire.closeDoc.fire({ uri: a });
		assert.match(records.provideTextDocumentContent(a), /no longer available/);
		fake.fire.closeDoc.fire({ uri: vscode.Uri.file('/b') });
		assert.equal(records.provideTextDocumentContent(b), 'B', 'another scheme: ignored');
	});

	test('a Markdown record meant to be read rendered opens a locked preview, not the source', async () => {
		openAs(() => 'markdown');
		const preview: Tab = {
			label: 'Preview Result',
			input: new vscode.TabInputWebview('mainThreadWebview-markdown.preview'),
			isDirty: false,
		};
		setTabs([preview], preview);
		const uri = titledRecordUri('Result.md', 'runs', 'r1');
		await records.show(uri, '# Done', 'markdown', { markdownPreview: true });
		const [command, target, column, options] = fake.calls('commands.executeCommand')[0]!;
		assert.equal(command, 'markdown.showPreview');
		assert.equal((target as vscode.Uri).toString(), uri.toString());
		assert.equal(column, undefined);
		assert.deepEqual(options, { locked: true });
		assert.equal(fake.calls('window.showTextDocument').length, 0);
	});

	test('the preview waits for its tab to become active when the command settles first', async () => {
		openAs(() => 'markdown');
		setTabs([]);
		fake.answer('commands.executeCommand', async () => {
			// The command ends; its tab appears a moment later.
			setImmediate(() => {
				const tab: Tab = { label: 'Preview', input: new vscode.TabInputWebview('markdown.preview'), isDirty: false };
				setTabs([tab], tab);
				fake.fire.tabs.fire({});
			});
		});
		const started = Date.now();
		await records.show(recordUri('r.md'), '# x', 'markdown', { markdownPreview: true });
		assert.ok(Date.now() - started < 2500, 'did not wait for the time-out');
		assert.equal(fake.calls('window.showTextDocument').length, 0);
	});

	test('without the Markdown preview the source shows, in a tab of its own (not a preview tab)', async () => {
		openAs(() => 'markdown');
		fake.answer('commands.executeCommand', async () => {
			throw new Error("command 'markdown.showPreview' not found");
		});
		await records.show(recordUri('r.md'), '# x', 'markdown', { markdownPreview: true });
		assert.deepEqual(fake.calls('window.showTextDocument')[0]![1], { preview: false });
	});

	test('forgetAll: every record goes, open documents are told, record tabs and their previews close', async () => {
		openAs();
		const a = titledRecordUri('Result — bot: fix', 'runs', 'a', 'r1');
		const b = recordUri('runtimes', 'rt1.json');
		await records.show(a, 'A');
		await records.show(b, 'B');
		const told: string[] = [];
		records.onDidChange((u) => told.push(u.toString()));
		const previewOfA: Tab = {
			label: 'Preview Result — bot: fix',
			input: new vscode.TabInputWebview('markdown.preview'),
			isDirty: false,
		};
		const otherPreview: Tab = { label: 'Preview README.md', input: new vscode.TabInputWebview('markdown.preview'), isDirty: false };
		const textOfB: Tab = { label: 'rt1.json', input: new vscode.TabInputText(b), isDirty: false };
		const file: Tab = { label: 'a.ts', input: new vscode.TabInputText(vscode.Uri.file('/a.ts')), isDirty: false };
		setTabs([previewOfA, otherPreview, textOfB, file]);
		await records.forgetAll();
		assert.deepEqual(told.sort(), [a.toString(), b.toString()].sort());
		assert.match(records.provideTextDocumentContent(a), /no longer available/);
		const closes = fake.calls('window.tabGroups.close');
		assert.deepEqual(closes[0], [[previewOfA], true]);
		assert.deepEqual(closes[1], [[textOfB], true]);
		assert.equal(closes.length, 2);
	});

	test('closeTabsOf: text, custom and diff tabs of the scheme (either side), never a dirty one; nothing to close, no call', async () => {
		const image = vscode.Uri.from({ scheme: IMAGE_SCHEME, path: '/chart.png' });
		const record = recordUri('x');
		const tabs: Tab[] = [
			{ label: 'custom', input: new vscode.TabInputCustom(image, 'imagePreview.previewEditor'), isDirty: false },
			{ label: 'diff-left', input: new vscode.TabInputTextDiff(image, vscode.Uri.file('/f')), isDirty: false },
			{ label: 'diff-right', input: new vscode.TabInputTextDiff(vscode.Uri.file('/f'), image), isDirty: false },
			{ label: 'dirty', input: new vscode.TabInputText(image), isDirty: true },
			{ label: 'record', input: new vscode.TabInputText(record), isDirty: false },
			{ label: 'terminal', input: undefined, isDirty: false },
		];
		setTabs(tabs);
		await closeTabsOf(IMAGE_SCHEME);
		assert.deepEqual(
			(fake.calls('window.tabGroups.close')[0]![0] as Tab[]).map((t) => t.label),
			['custom', 'diff-left', 'diff-right'],
		);
		setTabs([tabs[3]!, tabs[5]!]);
		await closeTabsOf(IMAGE_SCHEME);
		assert.equal(fake.calls('window.tabGroups.close').length, 1);
	});

	test('recordUri: each part one segment that cannot climb or split (/, \\, ., .. and empty replaced)', () => {
		const uri = recordUri('runs', '../../etc', 'a/b\\c', '.', '..', '', 'r1.json');
		assert.equal(uri.scheme, RECORD_SCHEME);
		assert.equal(uri.path, '/runs/.._.._etc/a_b_c/_/_/_/r1.json');
		assert.equal(recordUri('x\ny\u202E').path, '/x y');
		assert.ok(recordUri('z'.repeat(SAFETY.idMaxChars * 2)).path.length <= SAFETY.idMaxChars + 1);
	});

	test('titledRecordUri: the title is the only path segment; the key is in the query', () => {
		const a = titledRecordUri('Result — bot: fix a/b.ts', 'runs', 'a1', 'r1');
		assert.equal(a.path, '/Result — bot: fix a_b.ts');
		assert.equal(a.query, 'runs/a1/r1');
		const b = titledRecordUri('Result — bot: fix a/b.ts', 'runs', 'a1', 'r2');
		assert.notEqual(a.toString(), b.toString(), 'two records with one title stay apart');
	});

	test('runResultTitle: agent name, else its id; the prompt on one line and cut, else the run id', () => {
		assert.equal(runResultTitle('bot', { id: 'r1', agent_id: 'a1', prompt: 'fix the\nbug' }), 'Result — bot: fix the bug');
		assert.equal(runResultTitle(undefined, { id: 'r1', agent_id: 'a1', prompt: 'go' }), 'Result — a1: go');
		assert.equal(runResultTitle('', { id: 'r1', agent_id: '', prompt: 'go' }), 'Result — go');
		assert.equal(runResultTitle('bot', { id: 'r1', agent_id: 'a1', prompt: '  ' }), 'Result — bot: r1');
		const long = runResultTitle('bot', { id: 'r1', agent_id: 'a1', prompt: 'p'.repeat(100) });
		assert.ok(long.length < 'Result — bot: '.length + 42, long);
		const uri = runResultUri('a1', 'bot', { id: 'r1', agent_id: 'a1', prompt: 'go' });
		assert.equal(uri.path, '/Result — bot: go');
		assert.equal(uri.query, 'runs/a1/r1');
	});

	test("records of two deployments (issue 47): the default one's URI is what it was; another's carries its part and reads back", () => {
		const run = { id: 'run_1', agent_id: 'a.main', prompt: 'fix it' };
		const STAGING = deploymentId('https://staging.example.test');
		const PRODUCTION = deploymentId('https://production.example.test');
		const byDefault = runResultUri('a.main', 'bot', run);
		assert.equal(byDefault.toString(), titledRecordUri(runResultTitle('bot', run), 'runs', 'a.main', 'run_1').toString());
		assert.equal(byDefault.authority, '');
		assert.equal(runResultUri('a.main', 'bot', run, undefined).toString(), byDefault.toString());
		const onStaging = runResultUri('a.main', 'bot', run, STAGING);
		const onProduction = withDeploymentPart(titledRecordUri(runResultTitle('bot', run), 'runs', 'a.main', 'run_1'), PRODUCTION);
		assert.equal(new Set([byDefault, onStaging, onProduction].map((u) => u.toString())).size, 3);
		// Read back, also after VS Code's lower-casing of the authority.
		assert.equal(deploymentPartOfRecord(vscode.Uri.parse(onStaging.toString())), STAGING);
		assert.equal(deploymentPartOfRecord(vscode.Uri.parse(onProduction.toString().toLowerCase())), PRODUCTION);
		assert.equal(deploymentPartOfRecord(byDefault), undefined);
		assert.equal(onStaging.path, byDefault.path, 'the tab shows the same title');
	});

	test("a record of a deployment no longer configured says so; a configured one's, or the default's, says it is gone", () => {
		const STAGING_URL = 'https://staging.example.test';
		const STAGING = deploymentId(STAGING_URL);
		const uri = withDeploymentPart(recordUri('runtimes', 'rt1.json'), STAGING);
		fake.settings['cloudAgents.deployments'] = [];
		assert.match(records.provideTextDocumentContent(uri), new RegExp(`deployment ${STAGING}, which is no longer configured`));
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: STAGING_URL }];
		assert.match(records.provideTextDocumentContent(uri), /no longer available/);
		assert.match(records.provideTextDocumentContent(recordUri('runtimes', 'rt1.json')), /no longer available/);
	});

	test("forgetAll of the default deployment (its sign-out) leaves another deployment's records and tabs", async () => {
		openAs();
		const STAGING = deploymentId('https://staging.example.test');
		const mine = recordUri('runtimes', 'rt1.json');
		const theirs = withDeploymentPart(recordUri('runtimes', 'rt1.json'), STAGING);
		await records.show(mine, 'default');
		await records.show(theirs, 'staging');
		assert.equal(records.provideTextDocumentContent(theirs), 'staging');
		setTabs([
			{ label: 'rt1.json', input: new vscode.TabInputText(mine), isDirty: false },
			{ label: 'rt1.json', input: new vscode.TabInputText(theirs), isDirty: false },
		]);
		await records.forgetAll();
		assert.match(records.provideTextDocumentContent(mine), /no longer available/);
		assert.equal(records.provideTextDocumentContent(theirs), 'staging');
		const closed = fake.calls('window.tabGroups.close').flatMap((c) => c[0] as Tab[]);
		assert.deepEqual(
			closed.map((t) => (t.input as vscode.TabInputText).uri.toString()),
			[mine.toString()],
		);
	});

	test('one deployment configured (issue 47): no record tab names a deployment; its URI is the one shown', async () => {
		openAs();
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		for (const [uri, options] of [
			[titledRecordUri('Runtime web', 'runtimes', 'rt1'), { forceLanguage: true }],
			[titledRecordUri('notes.md', 'artifacts', 'a1', 'x1'), {}],
		] as const) {
			const doc = (await records.show(uri, 'text', 'json', options)) as unknown as Doc;
			assert.equal(doc.uri.toString(), uri.toString());
			assert.ok(!doc.uri.path.includes('api.example.test') && !doc.uri.path.includes('('), doc.uri.path);
		}
		assert.equal(namedRecordUri(recordUri('a.md'), undefined).toString(), recordUri('a.md').toString());
	});

	test("two deployments configured (issue 47): each record's tab names its deployment, the default one's included", async () => {
		openAs((uri) => (uri.path.endsWith('.md') ? 'markdown' : 'plaintext'));
		const STAGING_URL = 'https://staging.example.test';
		fake.settings['cloudAgents.apiUrl'] = 'https://api.example.test';
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: STAGING_URL }];
		const STAGING = deploymentId(STAGING_URL);
		const json = (await records.show(withDeploymentPart(titledRecordUri('Runtime web', 'runtimes', 'rt1'), STAGING), '{}', 'json', {
			forceLanguage: true,
		})) as unknown as Doc;
		assert.equal(json.uri.path, '/Runtime web (Staging)');
		assert.equal(json.uri.authority, STAGING);
		assert.equal(json.uri.query, 'runtimes/rt1', 'the same identity');
		assert.equal(records.provideTextDocumentContent(json.uri), '{}', 'held under the URI shown');
		// The default deployment's: named after its host.
		const mine = (await records.show(titledRecordUri('Runtime web', 'runtimes', 'rt1'), '{}', 'json', {
			forceLanguage: true,
		})) as unknown as Doc;
		assert.equal(mine.uri.path, '/Runtime web (api.example.test)');
		assert.equal(mine.uri.authority, '');
		// An artifact's extension still picks its language; a title's accidental one does not.
		const notes = (await records.show(
			withDeploymentPart(titledRecordUri('notes.md', 'artifacts', 'a1', 'x1'), STAGING),
			'# n',
		)) as unknown as Doc;
		assert.equal(notes.uri.path, '/notes (Staging).md');
		assert.equal(notes.languageId, 'markdown');
		const result = titledRecordUri('Result — bot: fix a.ts', 'runs', 'a1', 'r1');
		assert.equal(namedRecordUri(result, 'Staging', false).path, '/Result — bot: fix a.ts (Staging)');
		assert.equal(namedRecordUri(recordUri('runtimes', 'README'), 'Staging').path, '/runtimes/README (Staging)');
		assert.equal(namedRecordUri(recordUri('x.json'), 'A/B\\C').path, '/x (A_B_C).json', 'a name cannot split the path');
		// A sign-out of Staging closes its tabs (by their authority), named or not.
		setTabs([
			{ label: 'Runtime web (Staging)', input: new vscode.TabInputText(json.uri), isDirty: false },
			{ label: 'Runtime web (api.example.test)', input: new vscode.TabInputText(mine.uri), isDirty: false },
		]);
		await records.forgetAll(STAGING);
		assert.match(records.provideTextDocumentContent(json.uri), /no longer available/);
		assert.equal(records.provideTextDocumentContent(mine.uri), '{}');
	});

	test('dispose forgets every record and stops listening for closes', async () => {
		openAs();
		const uri = recordUri('a');
		await records.show(uri, 'A');
		records.dispose();
		assert.match(records.provideTextDocumentContent(uri), /no longer available/);
	});
});
