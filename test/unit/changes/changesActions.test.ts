import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent } from '../../../src/api';
import { type ChangeFile, type ChangesHost, type ComparisonAnswer, changesActions } from '../../../src/changes/changesActions';
import type { LinkSource } from '../../../src/changes/linkSource';
import type { CompareMode, Difference } from '../../../src/compare/types';
import { workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import type { ActionKit } from '../../../src/views/actions';
import type { ListDescriptor } from '../../../src/views/descriptor';
import * as fake from '../support/vscodeFake';

/**
 * src/changes/changesActions.ts: the Source Control actions run with a kit and a host made here
 * (their links are small stand-ins of LinkSource: what a link compares is linkSource.test.ts's).
 */
type Run = (target: unknown, kit: ActionKit) => Promise<unknown>;
interface Actions {
	[name: string]: { run: Run; targetArg?: (arg: unknown) => unknown; command: string };
}

/** Agent ids are a runtime UUID and a harness name (src/api/validation.ts). */
const AGENT = '0f8fad5b-d9cb-469f-a165-70867728950e-claude';
const OTHER = '7c9e6679-7425-40de-944b-e07fc1f90ae7-codex';
const agent = { id: AGENT, name: 'Billing' } as Agent;

function stubSource(differences: Difference[] = [], over: Partial<Record<string, unknown>> = {}) {
	const root = vscode.Uri.file('/w/local');
	const calls: Array<[CompareMode, boolean]> = [];
	const s = {
		link: { id: 'link-1', agentId: AGENT, agentFolder: '', agentName: 'Billing', localFolder: root.toString() },
		incomplete: undefined as string | undefined,
		lastStats: undefined,
		calls,
		label: () => 'Billing ↔ local',
		all: () => differences,
		localUriOf: (p: string) => vscode.Uri.joinPath(root, p),
		agentUriOf: (p: string) => workspaceUri(AGENT, p),
		diffOf: (d: Difference) => ({
			left: vscode.Uri.joinPath(root, d.path),
			right: workspaceUri(AGENT, d.path),
			title: `${d.path} (local ↔ Billing)`,
		}),
		refresh: async (mode: CompareMode, options?: { signal?: AbortSignal }) => {
			calls.push([mode, options?.signal !== undefined]);
			return { differences, stats: { n: 1 }, baseline: {} };
		},
		...over,
	};
	return s;
}

suite('changes/changesActions', () => {
	let told: { info: string[]; warn: string[]; logged: string[]; linked: unknown[]; unlinked: unknown[] };
	let source: ReturnType<typeof stubSource>;
	let existed: boolean;
	let reachable: boolean;
	setup(() => {
		told = { info: [], warn: [], logged: [], linked: [], unlinked: [] };
		source = stubSource();
		existed = false;
		reachable = true;
	});

	const host = (): ChangesHost =>
		({
			targets: {},
			log: { warn: () => undefined },
			deploymentOf: () => undefined,
			localFiles: () => (reachable ? {} : undefined),
			link: async (spec: unknown) => {
				told.linked.push(spec);
				return { source, existed };
			},
			unlink: async (s: unknown) => void told.unlinked.push(s),
		}) as unknown as ChangesHost;
	const kit = (over: Partial<ActionKit> = {}): ActionKit =>
		({
			arg: undefined,
			automation: false,
			title: 'Compare with Local Folder…',
			log: { warn: (m: string) => told.logged.push(m) },
			info: (m: string) => told.info.push(m),
			warn: (m: string) => told.warn.push(m),
			progress: async <R>(_t: string, work: (s: AbortSignal, r: (m: string) => void) => Promise<R>) =>
				work(new AbortController().signal, () => undefined),
			...over,
		}) as unknown as ActionKit;
	const actions = (): Actions => changesActions(host(), {} as ListDescriptor<Agent, { agent: Agent }, unknown>) as unknown as Actions;
	const files = (...ds: Difference[]): ChangeFile[] => ds.map((d) => ({ source: source as unknown as LinkSource, d }));
	const automation = (arg: Record<string, unknown>) => kit({ automation: true, arg });

	test("an agent's folder in the Explorer names its agent; any other argument is passed on", () => {
		const { compareWithLocal } = actions();
		assert.equal(compareWithLocal!.targetArg!(workspaceUri(OTHER, 'src')), OTHER);
		assert.equal(compareWithLocal!.targetArg!('agent-3'), 'agent-3');
		assert.equal(compareWithLocal!.command, 'cloudAgents.changes.compareWithLocal');
	});

	test('automation: links the given agent folder (slashes trimmed) to the given local path, compares, answers the differences', async () => {
		const d: Difference = { path: 'a.ts', kind: 'modified', group: 'agent' };
		source = stubSource([d]);
		const answer = (await actions().compareWithLocal!.run(
			{ agent },
			automation({ agentFolder: '/src/', localFolder: '/tmp/here' }),
		)) as ComparisonAnswer;
		assert.deepEqual(told.linked, [
			{ agentId: AGENT, agentName: 'Billing', agentFolder: 'src', localFolder: vscode.Uri.file('/tmp/here').toString() },
		]);
		assert.deepEqual(source.calls, [['link', true]]);
		assert.deepEqual(answer, { link: 'link-1', differences: [d], stats: { n: 1 }, incomplete: undefined });
		assert.deepEqual(fake.calls('commands.executeCommand'), [], 'automation opens no view');
	});

	test("automation's localFolder may be a URI (a scheme of two letters or more); a drive letter is a path", async () => {
		await actions().compareWithLocal!.run({ agent }, automation({ localFolder: 'vscode-vfs://github/x/y' }));
		await actions().compareWithLocal!.run({ agent }, automation({ localFolder: 'C:/work' }));
		const [uri, path] = told.linked as Array<{ localFolder: string; agentFolder: string }>;
		assert.equal(uri!.localFolder, 'vscode-vfs://github/x/y');
		assert.equal(uri!.agentFolder, '', 'automation without agentFolder: the root');
		assert.equal(vscode.Uri.parse(path!.localFolder).scheme, 'file');
	});

	test('a new link whose first comparison fails is not kept; automation gets the error in its answer, a person the rejection', async () => {
		source = stubSource([], {
			refresh: async () => {
				throw new Error('boom\nsecond line');
			},
		});
		const answer = (await actions().compareWithLocal!.run({ agent }, automation({ localFolder: '/x' }))) as ComparisonAnswer;
		assert.equal(answer.error, 'boom second line');
		assert.deepEqual(answer.differences, []);
		assert.equal(told.unlinked.length, 1);
		assert.match(told.logged[0]!, /^Comparison failed: boom/);

		existed = true;
		fake.answer('window.showQuickPick', async (items: unknown[]) => items[0]);
		fake.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w/local'), name: 'local', index: 0 }];
		await assert.rejects(actions().compareWithLocal!.run({ agent }, kit({ arg: workspaceUri(AGENT, 'src') })), /boom/);
		assert.equal(told.unlinked.length, 1, 'an existing link stays');
	});

	test('a local folder this host cannot read is refused before anything is linked', async () => {
		reachable = false;
		const answer = (await actions().compareWithLocal!.run({ agent }, automation({ localFolder: '/x' }))) as ComparisonAnswer;
		assert.match(answer.error!, /cannot read the folder file:\/\/\/x/);
		assert.deepEqual(told.linked, []);
	});

	test('a person: the agent folder from the Explorer, the local folder picked, then the Source Control view opens', async () => {
		fake.workspace.workspaceFolders = [{ uri: vscode.Uri.file('/w/src'), name: 'src', index: 0 }];
		fake.answer('window.showQuickPick', async (items: unknown[]) => items[0]);
		await actions().compareWithLocal!.run({ agent }, kit({ arg: workspaceUri(AGENT, '/src') }));
		assert.deepEqual(told.linked, [
			{ agentId: AGENT, agentName: 'Billing', agentFolder: 'src', localFolder: vscode.Uri.file('/w/src').toString() },
		]);
		assert.deepEqual(fake.calls('commands.executeCommand')[0], ['workbench.view.scm']);
		fake.answer('window.showQuickPick', async () => undefined);
		assert.equal(await actions().compareWithLocal!.run({ agent }, kit({ arg: workspaceUri(AGENT, '/src') })), undefined);
		assert.equal(told.linked.length, 1, 'a dismissed pick links nothing');
	});

	test('Refresh warns when partial; Compare Everything that finds nothing says so', async () => {
		source.incomplete = 'Compared the first 10000 files only.';
		await actions().refresh!.run(source, kit());
		assert.deepEqual(told.warn, ['Compared the first 10000 files only.']);
		assert.deepEqual(source.calls, [['refresh', false]]);
		source.incomplete = undefined;
		await actions().compareEverything!.run(source, kit());
		assert.deepEqual(source.calls[1], ['everything', true]);
		assert.match(told.info[0]!, /^Billing ↔ local: nothing differs\./);
		await actions().refresh!.run(source, kit());
		assert.equal(told.info.length, 1, 'a refresh that finds nothing says nothing');
	});

	test('Unlink forgets the link and says that no file changed', async () => {
		assert.equal(await actions().unlink!.run(source, kit()), true);
		assert.deepEqual(told.unlinked, [source]);
		assert.match(told.info[0]!, /^Unlinked Billing ↔ local: .*no file was changed/);
	});

	test('Open All Changes: one multi-file diff of every difference; none says so', async () => {
		await actions().openAllChanges!.run(source, kit());
		assert.deepEqual(told.info, ['Billing ↔ local: no differences.']);
		const d: Difference = { path: 'a.ts', kind: 'modified', group: 'agent' };
		source = stubSource([d]);
		await actions().openAllChanges!.run(source, kit());
		const [id, title, resources] = fake.calls('commands.executeCommand')[0] as [string, string, vscode.Uri[][]];
		assert.equal(id, 'vscode.changes');
		assert.equal(title, 'Changes: Billing ↔ local');
		assert.equal(resources.length, 1);
		assert.equal(resources[0]![0]!.path, '/w/local/a.ts');
		assert.equal(resources[0]![2]!.scheme, 'cloud-agent');
	});

	test('Open Changes opens at most 20 diffs', async () => {
		const many = Array.from({ length: 25 }, (_, i): Difference => ({ path: `f${i}.ts`, kind: 'modified', group: 'agent' }));
		await actions().openChanges!.run(files(...many), kit());
		const diffs = fake.calls('commands.executeCommand');
		assert.equal(diffs.length, 20);
		assert.equal(diffs[0]![0], 'vscode.diff');
		assert.equal(diffs[0]![3], 'f0.ts (local ↔ Billing)');
	});

	test("Open Agent's Version / Open Local File: a side without the file says so, the other opens it", async () => {
		const deleted: Difference = { path: 'gone.ts', kind: 'deleted', group: 'agent' };
		const added: Difference = { path: 'new.ts', kind: 'added', group: 'agent' };
		await actions().openAgentVersion!.run(files(deleted, added), kit());
		assert.deepEqual(told.info, ['gone.ts is not in the agent workspace.']);
		const opened = fake.calls('commands.executeCommand');
		assert.equal(opened.length, 1);
		assert.equal((opened[0]![1] as vscode.Uri).scheme, 'cloud-agent');
		await actions().openLocalFile!.run(files(deleted, added), kit());
		assert.equal(told.info[1], 'new.ts is not in the local folder.');
		assert.equal((fake.calls('commands.executeCommand')[1]![1] as vscode.Uri).path, '/w/local/gone.ts');
	});
});
