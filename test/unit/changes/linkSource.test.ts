import * as assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { CloudAgentsClient } from '../../../src/api';
import { LinkSource, type LinkSourceDeps, SCM_ID, cannotCompareWith, describeDifference } from '../../../src/changes/linkSource';
import { LinkStore } from '../../../src/changes/linkStore';
import type { Difference } from '../../../src/compare/types';
import { EMPTY_SCHEME, FS_SCHEME } from '../../../src/ids';
import { nodeConnect } from '../../../src/platform/node/network';
import { NodeLocalFiles } from '../../../src/platform/node/nodeLocalFiles';
import { DEV_TOKEN, clientOfDeadPort, startWorkspaceEmulator, type TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';

/**
 * src/changes/linkSource.ts: one link's source control, comparing a temporary local folder (Node's
 * local side) with a folder of the emulator's agent workspace (a real client); the `vscode` fake's
 * SCM and file watcher are small recording objects made here.
 */
interface FakeGroup {
	id: string;
	label: string;
	resourceStates: vscode.SourceControlResourceState[];
	hideWhenEmpty?: boolean;
	dispose(): void;
}
interface FakeScm {
	id: string;
	label: string;
	rootUri: vscode.Uri;
	inputBox: { visible: boolean; enabled: boolean; placeholder: string; value: string };
	groups: FakeGroup[];
	count?: number;
	statusBarCommands?: Array<{ title: string; tooltip?: string; command: string }>;
	quickDiffProvider?: { provideOriginalResource(uri: vscode.Uri): vscode.Uri | undefined };
	disposed: boolean;
}

class Memento {
	private readonly values = new Map<string, unknown>();
	get<T>(key: string): T | undefined {
		return this.values.get(key) as T | undefined;
	}
	async update(key: string, value: unknown): Promise<void> {
		this.values.set(key, value);
	}
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);

suite('changes/linkSource', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let dir: string;
	let scms: FakeScm[];
	let sources: LinkSource[];
	let told: { decorations: string[][]; agentChanged: string[][]; reported: unknown[]; warned: string[] };

	suiteSetup(async () => {
		({ emu, client, agentId } = await startWorkspaceEmulator());
		await client.writeWorkspaceFile(agentId, 'linked/same.txt', enc('same'));
		await client.writeWorkspaceFile(agentId, 'linked/changed.txt', enc('agent text'));
		await client.writeWorkspaceFile(agentId, 'linked/agent-only.txt', enc('only here'));
	});
	suiteTeardown(async () => {
		client?.close();
		await emu?.close();
	});

	setup(async () => {
		dir = await mkdtemp(join(tmpdir(), 'ca-linksource-'));
		await writeFile(join(dir, 'same.txt'), 'same');
		await writeFile(join(dir, 'changed.txt'), 'local text!');
		await writeFile(join(dir, 'local-only.txt'), 'mine');
		scms = [];
		sources = [];
		told = { decorations: [], agentChanged: [], reported: [], warned: [] };
		fake.answer('scm.createSourceControl', (id: string, label: string, rootUri: vscode.Uri) => {
			const scm: FakeScm = {
				id,
				label,
				rootUri,
				inputBox: { visible: true, enabled: true, placeholder: '', value: '' },
				groups: [],
				disposed: false,
			};
			Object.assign(scm, {
				createResourceGroup: (gid: string, glabel: string) => {
					const g: FakeGroup = { id: gid, label: glabel, resourceStates: [], dispose: () => undefined };
					scm.groups.push(g);
					return g;
				},
				dispose: () => (scm.disposed = true),
			});
			scms.push(scm);
			return scm;
		});
		fake.answer('workspace.createFileSystemWatcher', () => ({
			onDidChange: new fake.EventEmitter<vscode.Uri>().event,
			onDidCreate: new fake.EventEmitter<vscode.Uri>().event,
			onDidDelete: new fake.EventEmitter<vscode.Uri>().event,
			dispose: () => undefined,
		}));
	});
	teardown(async () => {
		sources.forEach((s) => s.dispose());
		await rm(dir, { recursive: true, force: true });
	});

	function makeSource(
		over: Partial<LinkSourceDeps> = {},
		link: Partial<{ agentName: string; agentFolder: string; localFolder: string }> = {},
	): { source: LinkSource; scm: FakeScm; store: LinkStore } {
		const store = new LinkStore(new Memento() as unknown as vscode.Memento, vscode.Uri.file('/storage'), 1000);
		const source = new LinkSource(
			{
				id: 'link-1',
				agentId,
				agentName: link.agentName ?? 'Billing',
				agentFolder: link.agentFolder ?? 'linked',
				localFolder: link.localFolder ?? vscode.Uri.file(dir).toString(),
			},
			{
				client: () => client,
				store,
				log: { warn: (m: string) => told.warned.push(m) } as unknown as vscode.LogOutputChannel,
				decorationsChanged: (uris) => told.decorations.push(uris.map((u) => u.toString())),
				localFiles: new NodeLocalFiles(dir),
				exclude: () => [],
				agentFileChanged: (a, p, c) => told.agentChanged.push([a, p, c]),
				connectivity: { report: (err) => told.reported.push(err) },
				...over,
			},
		);
		sources.push(source);
		return { source, scm: scms[scms.length - 1]!, store };
	}
	const summary = (ds: Difference[]): string[] => ds.map((d) => `${d.kind} ${d.path}`);

	test("before a comparison: its own id, labelled '‹agent›/‹folder› ↔ ‹local folder›', nothing claimed, the input box says so", () => {
		const { source, scm } = makeSource({}, { agentName: 'Bill\ning' });
		assert.equal(scm.id, `${SCM_ID}.link-1`);
		const localName = dir.split('/').pop()!;
		assert.equal(source.label(), `Bill ing/linked ↔ ${localName}`);
		assert.equal(scm.label, source.label());
		assert.deepEqual(
			scm.groups.map((g) => [g.id, g.label]),
			[
				['agent', 'Changed by the agent'],
				['other', 'Other differences'],
			],
		);
		assert.equal(scm.groups[0]!.hideWhenEmpty, true, 'no "0" beside a group that holds nothing true');
		assert.equal(scm.inputBox.visible, true);
		assert.equal(scm.inputBox.enabled, false);
		assert.equal(scm.inputBox.placeholder, 'Not compared yet: Refresh to compare.');
		assert.equal(scm.count, 0);
		assert.deepEqual(source.all(), []);
	});

	test('the first comparison lists the agent-side candidates; Compare Everything adds the local-only file; in path order, by group', async () => {
		const { source, scm, store } = makeSource();
		assert.ok(await source.refresh('link'));
		assert.deepEqual(summary(source.all()), ['added agent-only.txt', 'modified changed.txt']);
		assert.ok(await source.refresh('everything'));
		assert.deepEqual(summary(source.all()), ['added agent-only.txt', 'modified changed.txt', 'deleted local-only.txt']);
		assert.equal(source.differenceOf(source.localUriOf('local-only.txt'))?.group, 'other');
		const [agentGroup, otherGroup] = scm.groups;
		const inGroups = [...agentGroup!.resourceStates, ...otherGroup!.resourceStates].map((r) => r.resourceUri.path).sort();
		assert.deepEqual(
			inGroups,
			['agent-only.txt', 'changed.txt', 'local-only.txt'].map((n) => vscode.Uri.file(join(dir, n)).path),
		);
		assert.equal(scm.count, agentGroup!.resourceStates.length);
		assert.equal(scm.inputBox.visible, false);
		assert.equal(agentGroup!.hideWhenEmpty, false);
		assert.equal(scm.statusBarCommands, undefined);
		const row = [...agentGroup!.resourceStates, ...otherGroup!.resourceStates].find((r) =>
			r.resourceUri.path.endsWith('local-only.txt'),
		)!;
		assert.deepEqual(row.command?.arguments, [row.resourceUri], 'a row names its file by URI only');
		assert.equal(row.decorations?.strikeThrough, true);
		assert.match(row.contextValue!, /^(agent|other):deleted$/);
		assert.ok(await store.baseline('link-1'));
		assert.equal(told.decorations.length, 2);
		assert.ok(told.agentChanged.some(([, p]) => p === 'linked/agent-only.txt'));
		assert.deepEqual(source.differenceOf(vscode.Uri.file(join(dir, 'changed.txt')))?.kind, 'modified');
	});

	test('diffs, decorations and quick diff: the empty side for a file one side lacks, the letter and colour by kind', async () => {
		const { source, scm } = makeSource();
		await source.refresh('everything');
		const [added, modified, deleted] = source.all();
		const a = source.diffOf(added!);
		assert.equal(a.left.scheme, EMPTY_SCHEME);
		assert.equal(a.left.path, '/agent-only.txt');
		assert.equal(a.right.scheme, FS_SCHEME);
		assert.equal(a.title, 'agent-only.txt (local ↔ Billing)');
		const d = source.diffOf(deleted!);
		assert.equal(d.left.path, vscode.Uri.file(join(dir, 'local-only.txt')).path);
		assert.equal(d.right.scheme, EMPTY_SCHEME);
		const decoration = source.decorationOf(source.localUriOf('changed.txt')) as unknown as fake.FileDecoration;
		assert.equal(decoration.badge, 'M');
		assert.equal(decoration.color?.id, 'gitDecoration.modifiedResourceForeground');
		assert.equal(decoration.tooltip, describeDifference(modified!));
		assert.equal(source.decorationOf(source.localUriOf('same.txt')), undefined);
		assert.equal(scm.quickDiffProvider!.provideOriginalResource(source.localUriOf('changed.txt'))?.scheme, FS_SCHEME);
		assert.equal(scm.quickDiffProvider!.provideOriginalResource(source.localUriOf('local-only.txt')), undefined);
	});

	test('localUriOf refuses a path out of the folder', () => {
		const { source } = makeSource();
		assert.throws(() => source.localUriOf('../outside.txt'));
		assert.equal(source.localUriOf('a/b.txt').path, vscode.Uri.file(join(dir, 'a', 'b.txt')).path);
	});

	test('a folder this host cannot read: files() and a comparison fail, saying so', async () => {
		const { source } = makeSource({ localFiles: undefined });
		const expected = cannotCompareWith(source.localRoot);
		assert.match(expected, /cannot read the folder/);
		assert.throws(() => source.files(), { message: expected });
		await assert.rejects(source.refresh('link'), { message: expected });
	});

	test('a comparison that cannot reach the service: the status bar and input box say it failed, connectivity is told', async () => {
		const dead = await clientOfDeadPort();
		try {
			const { source, scm } = makeSource({ client: () => dead.client });
			await assert.rejects(source.refresh('link'));
			assert.ok(source.failure);
			assert.equal(scm.statusBarCommands?.[0]?.title, '$(error) Comparison failed');
			assert.equal(scm.statusBarCommands?.[0]?.tooltip, source.failure);
			assert.match(scm.inputBox.placeholder, /^Not compared, Refresh to try again\. The comparison failed: /);
			assert.equal(told.reported.length, 1);
			assert.deepEqual(source.all(), []);
		} finally {
			dead.client.close();
		}
	});

	test('after a comparison succeeded, a failed one keeps the groups and says they are as last compared', async () => {
		const dead = await clientOfDeadPort();
		let current: CloudAgentsClient = client;
		try {
			const { source, scm } = makeSource({ client: () => current });
			await source.refresh('link');
			const before = summary(source.all());
			current = dead.client;
			await assert.rejects(source.refresh('everything'));
			assert.deepEqual(summary(source.all()), before);
			assert.equal(scm.groups[0]!.label, 'Changed by the agent — as last compared; comparing again failed');
			current = client;
			await source.refresh('everything');
			assert.equal(source.failure, undefined);
			assert.equal(scm.groups[0]!.label, 'Changed by the agent');
		} finally {
			dead.client.close();
		}
	});

	test('never two comparisons at once: calls while one runs share the one queued after it', async () => {
		let started = 0;
		const counting = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => DEV_TOKEN,
		});
		try {
			const { source } = makeSource({
				client: () => {
					started++;
					return counting;
				},
			});
			const first = source.refresh('link');
			const second = source.refresh('refresh');
			const third = source.refresh('everything');
			assert.notEqual(first, second);
			assert.equal(second, third);
			const [r1, r2] = await Promise.all([first, second]);
			assert.ok(r1 && r2);
			assert.equal(started, 2, 'two comparisons, not three');
		} finally {
			counting.close();
		}
	});

	test('settled files leave the list; a recheck brings one back when it differs again, and drops one that now matches', async () => {
		const { source } = makeSource();
		await source.refresh('everything');
		source.settled(['changed.txt']);
		assert.deepEqual(summary(source.all()), ['added agent-only.txt', 'deleted local-only.txt']);
		await source.recheck(['changed.txt']);
		assert.deepEqual(summary(source.all()), ['added agent-only.txt', 'modified changed.txt', 'deleted local-only.txt']);

		await writeFile(join(dir, 'changed.txt'), 'agent text');
		await source.recheck(['changed.txt']);
		assert.deepEqual(summary(source.all()), ['added agent-only.txt', 'deleted local-only.txt']);

		await rm(join(dir, 'local-only.txt'));
		await source.recheck(['local-only.txt', 'never-listed.txt']);
		assert.deepEqual(summary(source.all()), ['added agent-only.txt']);
	});

	test('describeDifference says who changed what', () => {
		assert.equal(describeDifference({ path: 'a', kind: 'added', group: 'agent' }), 'Changed by the agent: only in the agent workspace');
		assert.equal(
			describeDifference({ path: 'a', kind: 'deleted', group: 'agent' }),
			'Changed by the agent: deleted in the agent workspace',
		);
		assert.equal(describeDifference({ path: 'a', kind: 'deleted', group: 'other' }), 'Other difference: only in the local folder');
		assert.equal(describeDifference({ path: 'a', kind: 'modified', group: 'other' }), 'Other difference: contents differ');
	});
});
