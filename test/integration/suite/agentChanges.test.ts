/**
 * Issue 21: an agent's workspace linked to a local folder, in Source Control. Against the emulator
 * (both profiles): what the groups list is checked against the emulator's own record of what the
 * agent's runs changed (`/_emulator/workspace/{id}/changes`) and its files (`…/files`); what a
 * refresh reads, against its counters of workspace reads by path.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { ApplyAnswer } from '../../../src/changes/apply';
import type { ChangeFile } from '../../../src/changes/changesActions';
import { confirmSend } from '../../../src/changes/send';
import type { ComparisonAnswer } from '../../../src/changes/changesFeature';
import type { Difference } from '../../../src/compare/types';
import { parseWorkspaceUri, workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { emu, messagesShown, restoreDevToken, shownChanges, testApi, waitFor, within, followEnded } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { devToken, emulatorProfile, words } from '../support/env';

interface GroundFile {
	path: string;
	size: number;
	mtime_unix_ms: number;
	sha256: string;
	content_base64?: string;
}
interface NetChange {
	path: string;
	change: 'created' | 'modified' | 'deleted';
}

const enc = encodeURIComponent;
const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
const KIND: Record<NetChange['change'], Difference['kind']> = { created: 'added', modified: 'modified', deleted: 'deleted' };

async function ok<T>(what: string, call: Promise<{ status: number; body: T }>): Promise<T> {
	const res = await call;
	assert.ok(res.status >= 200 && res.status < 300, `${what}: HTTP ${res.status} ${JSON.stringify(res.body)}`);
	return res.body;
}

/** Every file of the agent's workspace, with contents (the emulator's ground truth). */
async function groundFiles(agentId: string): Promise<GroundFile[]> {
	return (await ok('files', emu<{ files: GroundFile[] }>('GET', `/_emulator/workspace/${enc(agentId)}/files?content=true`))).files;
}

/** The net changes of one run (from the emulator's record of its file.changed events). */
async function runChanges(agentId: string, runId: string): Promise<NetChange[]> {
	return (await ok('changes', emu<{ net: NetChange[] }>('GET', `/_emulator/workspace/${enc(agentId)}/changes?run_id=${enc(runId)}`))).net;
}

/** Starts a run with `prompt` and waits until it succeeded; its id. */
async function runToEnd(agentId: string, prompt: string): Promise<string> {
	const run = await ok('run', emu<{ id: string }>('POST', `/v2/agents/${enc(agentId)}/runs`, { prompt }, devToken()));
	await waitFor(
		`run ${run.id} to succeed`,
		async () => {
			const r = await emu<{ status?: string; data?: { status?: string } }>(
				'GET',
				`/v2/agents/${enc(agentId)}/runs/${enc(run.id)}`,
				undefined,
				devToken(),
			);
			const status = r.body.status ?? r.body.data?.status;
			if (status === words().run.failed || status === words().run.cancelled) {
				throw new Error(`run ${run.id} ended ${status}`);
			}
			return status === words().run.succeeded ? true : undefined;
		},
		60_000,
	);
	return run.id;
}

async function agentWrites(agentId: string, path: string, text: string): Promise<void> {
	await ok(
		'write',
		emu('POST', `/_emulator/workspace/${enc(agentId)}/write`, { path, content_base64: Buffer.from(text).toString('base64') }),
	);
}

async function workspaceReads(): Promise<Record<string, number>> {
	return (await ok('counters', emu<{ workspace: { reads_by_path: Record<string, number> } }>('GET', '/_emulator/counters'))).workspace
		.reads_by_path;
}

/** One agent with a workspace, a local folder holding the same files, and their link. */
interface Fixture {
	agentId: string;
	local: string;
	link: string;
}

/** The standard profile reads our workspace operations; the variant's workspace interface differs (README, Assumptions). */
const standardWorkspace = emulatorProfile() === 'standard';

if (!standardWorkspace) {
	suite('[variant] Agent changes on a server whose workspace interface differs (issue 21)', () => {
		test('linking says the interface differs, keeps no link and writes nothing locally', async function () {
			this.timeout(60_000);
			await testApi();
			await restoreDevToken();
			const created = await ok(
				'agent',
				emu<{ id: string }>('POST', '/v2/agents', { name: `changes-variant-${Date.now()}` }, devToken()),
			);
			const local = await mkdtemp(join(tmpdir(), 'ca-link-variant-'));
			await writeFile(join(local, 'mine.txt'), 'mine\n');
			try {
				const answer = await vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.compareWithLocal', {
					automation: true,
					agentId: created.id,
					localFolder: local,
				});
				assert.match(answer.error ?? 'no error: an empty comparison', /workspace interface differs/);
				assert.deepEqual(answer.differences, []);
				assert.deepEqual(await readdir(local), ['mine.txt']);
				assert.equal(await readFile(join(local, 'mine.txt'), 'utf8'), 'mine\n');
				assert.equal(
					await vscode.commands.executeCommand('cloudAgents.changes.refresh', { automation: true }),
					undefined,
					'no link was kept',
				);
			} finally {
				await vscode.commands.executeCommand('notifications.clearAll');
				await emu('DELETE', `/v2/agents/${enc(created.id)}?delete_runtime=true`, undefined, devToken());
				await rm(local, { recursive: true, force: true });
			}
		});
	});
}

(standardWorkspace ? suite : suite.skip)('Agent changes in Source Control (issue 21)', () => {
	const fixtures: Fixture[] = [];

	suiteSetup(async function () {
		this.timeout(60_000);
		await testApi();
		await restoreDevToken();
		const files = vscode.workspace.getConfiguration('files');
		await files.update('autoSave', 'off', vscode.ConfigurationTarget.Global);
	});

	suiteTeardown(async function () {
		this.timeout(60_000);
		await closeAllEditors();
		for (const f of fixtures) {
			await vscode.commands
				.executeCommand('cloudAgents.changes.unlink', { automation: true, link: f.link })
				.then(undefined, () => undefined);
			await emu('DELETE', `/v2/agents/${enc(f.agentId)}?delete_runtime=true`, undefined, devToken());
			await rm(f.local, { recursive: true, force: true });
		}
	});

	/**
	 * A new agent whose workspace holds `files` (plus what a new workspace has), a local folder
	 * with the same files (both with a `.gitignore` ignoring `build/`), linked: the link finds nothing.
	 */
	async function fixture(files: Record<string, string>): Promise<Fixture> {
		const created = await ok('agent', emu<{ id: string }>('POST', '/v2/agents', { name: `changes-${Date.now()}` }, devToken()));
		const agentId = created.id;
		await waitFor('the agent to be idle', async () => {
			const a = await emu<{ status?: string; data?: { status?: string } }>(
				'GET',
				`/v2/agents/${enc(agentId)}`,
				undefined,
				devToken(),
			);
			return (a.body.status ?? a.body.data?.status) === words().agentIdle ? true : undefined;
		});
		for (const [path, text] of Object.entries({ ...files, '.gitignore': 'build/\n' })) {
			await agentWrites(agentId, path, text);
		}
		const local = await mkdtemp(join(tmpdir(), 'ca-link-'));
		for (const f of await groundFiles(agentId)) {
			await mkdir(dirname(join(local, f.path)), { recursive: true });
			await writeFile(join(local, f.path), Buffer.from(f.content_base64 ?? '', 'base64'));
		}
		const answer = await vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.compareWithLocal', {
			automation: true,
			agentId,
			agentName: 'Changes test agent',
			localFolder: local,
		});
		assert.deepEqual(answer.differences, [], 'a folder holding the same files differs in nothing');
		const f = { agentId, local, link: answer.link };
		fixtures.push(f);
		return f;
	}

	const refresh = (f: Fixture): Thenable<ComparisonAnswer> =>
		vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.refresh', { automation: true, link: f.link });

	/** The agent group as [path, kind] pairs, in path order. */
	const agentGroup = (a: ComparisonAnswer): Array<[string, string]> =>
		a.differences
			.filter((d) => d.group === 'agent')
			.sort(byPath)
			.map((d) => [d.path, d.kind]);
	const expected = (net: NetChange[]): Array<[string, string]> => [...net].sort(byPath).map((c) => [c.path, KIND[c.change]]);

	test("after a run, the agent's group lists exactly what it added, modified and deleted; ignored files stay out", async function () {
		this.timeout(120_000);
		const f = await fixture({ 'src/a.txt': 'alpha\n', 'src/b.txt': 'beta\n', 'docs/c.md': '# c\n', 'docs/d.md': '# d\n' });
		const runId = await runToEnd(f.agentId, '[[changes:6]] change six files');
		const net = await runChanges(f.agentId, runId);
		assert.deepEqual(
			new Set(net.map((c) => c.change)),
			new Set(['created', 'modified', 'deleted']),
			`the run changed files of every kind: ${JSON.stringify(net)}`,
		);
		// Ignored by the local .gitignore, and always ignored: never listed, whatever their dates.
		await agentWrites(f.agentId, 'build/out.txt', 'built\n');
		await agentWrites(f.agentId, 'node_modules/m/index.js', 'module.exports = 1;\n');
		const answer = await refresh(f);
		assert.deepEqual(agentGroup(answer), expected(net));
		assert.ok(
			!answer.differences.some((d) => d.path.startsWith('build/') || d.path.startsWith('node_modules/')),
			JSON.stringify(answer),
		);
		// The agent side as listed is the emulator's.
		const truth = new Map((await groundFiles(f.agentId)).map((g) => [g.path, g]));
		for (const d of answer.differences) {
			if (d.kind !== 'deleted') {
				assert.equal(d.agent?.size, truth.get(d.path)?.size, d.path);
			} else {
				assert.equal(truth.has(d.path), false, d.path);
				assert.ok(existsSync(join(f.local, d.path)), d.path);
			}
		}
	});

	test('a refresh after a run that changed 3 files reads exactly those 3', async function () {
		this.timeout(120_000);
		const f = await fixture({
			'one.txt': 'one one one\n',
			'two.txt': 'two two two\n',
			'three.txt': 'three three\n',
			'four.txt': 'four four\n',
		});
		const runId = await runToEnd(f.agentId, '[[changes:3:same-size]] same-size edits');
		const net = await runChanges(f.agentId, runId);
		assert.equal(net.length, 3, JSON.stringify(net));
		await emu('POST', '/_emulator/counters/reset');
		const answer = await refresh(f);
		assert.deepEqual(agentGroup(answer), expected(net));
		assert.deepEqual(
			Object.keys(await workspaceReads()).sort(),
			net.map((c) => c.path).sort(),
			'only the 3 files of equal size were read',
		);
	});

	test('a followed run of the agent refreshes the link by itself when it ends: its files appear with no action', async function () {
		this.timeout(120_000);
		const api = await testApi();
		const f = await fixture({ 'auto/a.txt': 'a\n' });
		const run = await ok(
			'run',
			emu<{ id: string }>('POST', `/v2/agents/${enc(f.agentId)}/runs`, { prompt: '[[changes:2:created]] add two' }, devToken()),
		);
		await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId: f.agentId, runId: run.id });
		await within('the run to end', followEnded(api, f.agentId, run.id), 60_000);
		const net = await runChanges(f.agentId, run.id);
		assert.equal(net.length, 2, JSON.stringify(net));
		const shown = await waitFor(
			"the link's source control to show the run's files",
			async () => {
				const d = shownChanges(api, f.link, f.local);
				return d && d.length === net.length ? d : undefined;
			},
			20_000,
		);
		assert.deepEqual(
			shown.map((d) => [d.path, d.kind]),
			expected(net),
		);
	});

	test('a file opens as a diff with the local and the agent contents', async function () {
		this.timeout(120_000);
		const f = await fixture({ 'diff/me.txt': 'local and agent\n' });
		await runToEnd(f.agentId, '[[write:diff/me.txt]] change it');
		const answer = await refresh(f);
		assert.deepEqual(agentGroup(answer), [['diff/me.txt', 'modified']]);
		// What a click on the row runs: its command with the file's local URI.
		await vscode.commands.executeCommand('cloudAgents.changes.openChanges', vscode.Uri.file(join(f.local, 'diff/me.txt')));
		const input = await waitFor('the diff tab', async () => {
			const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
			return tab?.input instanceof vscode.TabInputTextDiff ? { tab, input: tab.input } : undefined;
		});
		assert.match(input.tab.label, /me\.txt \(local ↔ Changes test agent\)/);
		assert.equal(input.input.original.fsPath, join(f.local, 'diff/me.txt'));
		assert.equal(parseWorkspaceUri(input.input.modified).path.replace(/^\//, ''), 'diff/me.txt');
		const left = await vscode.workspace.openTextDocument(input.input.original);
		const right = await vscode.workspace.openTextDocument(input.input.modified);
		assert.equal(left.getText(), 'local and agent\n');
		const truth = (await groundFiles(f.agentId)).find((g) => g.path === 'diff/me.txt');
		assert.equal(right.getText(), Buffer.from(truth?.content_base64 ?? '', 'base64').toString('utf8'));
		assert.notEqual(right.getText(), left.getText());
		await closeAllEditors();
	});

	test("the agent's copy opens even when its folder was listed through cloud-agent: before the agent wrote the file", async function () {
		this.timeout(120_000);
		const f = await fixture({ 'fresh/old.txt': 'old\n' });
		// This window lists the folder (the file system caches the listing and answers stat from it)…
		const names = (await vscode.workspace.fs.readDirectory(workspaceUri(f.agentId, 'fresh'))).map(([name]) => name);
		assert.deepEqual(names, ['old.txt']);
		// …then the agent writes a file no followed run announces.
		await agentWrites(f.agentId, 'fresh/new.txt', 'written by the agent\n');
		const answer = await refresh(f);
		assert.deepEqual(
			answer.differences.map((d) => [d.path, d.kind]),
			[['fresh/new.txt', 'added']],
		);
		const doc = await vscode.workspace.openTextDocument(workspaceUri(f.agentId, 'fresh/new.txt'));
		assert.equal(doc.getText(), 'written by the agent\n');
	});

	test("apply one, a selection and all: the local files equal the agent's byte for byte, and Undo restores a text file", async function () {
		this.timeout(150_000);
		const f = await fixture({ 'p/one.txt': 'first\n', 'p/two.txt': 'second\n', 'p/three.txt': 'third\n', 'p/four.txt': 'fourth\n' });
		const runId = await runToEnd(f.agentId, '[[changes:6]] change six files');
		await runToEnd(f.agentId, '[[write:p/one.txt]] and this one');
		const answer = await refresh(f);
		const truth = async (): Promise<Map<string, GroundFile>> => new Map((await groundFiles(f.agentId)).map((g) => [g.path, g]));
		const localEqualsAgent = async (path: string): Promise<void> => {
			const g = (await truth()).get(path);
			if (!g) {
				assert.equal(existsSync(join(f.local, path)), false, `${path} is deleted locally`);
				return;
			}
			assert.equal(sha(await readFile(join(f.local, path))), g.sha256, `${path} equals the agent's byte for byte`);
		};
		assert.ok((await runChanges(f.agentId, runId)).length > 0);
		// One: a text file the agent modified; Undo in its editor brings the local text back.
		assert.ok(
			answer.differences.some((d) => d.path === 'p/one.txt' && d.kind === 'modified'),
			JSON.stringify(answer),
		);
		const applied = await vscode.commands.executeCommand<ApplyAnswer>('cloudAgents.changes.applyToLocal', {
			automation: true,
			link: f.link,
			paths: ['p/one.txt'],
		});
		assert.deepEqual(applied, { applied: ['p/one.txt'], refused: [] });
		await localEqualsAgent('p/one.txt');
		const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(join(f.local, 'p/one.txt')));
		await vscode.window.showTextDocument(doc);
		await vscode.commands.executeCommand('undo');
		assert.equal(doc.getText(), 'first\n', 'Undo restores the local text');
		await vscode.commands.executeCommand('workbench.action.files.revert');
		await closeAllEditors();
		// A selection: one added and one deleted file.
		const rest = answer.differences.filter((d) => d.group === 'agent' && d.path !== 'p/one.txt');
		const added = rest.find((d) => d.kind === 'added') ?? assert.fail('no added file');
		const deleted = rest.find((d) => d.kind === 'deleted') ?? assert.fail('no deleted file');
		// An automation caller has decided: no question, though a local file is deleted.
		const selection = await vscode.commands.executeCommand<ApplyAnswer>('cloudAgents.changes.applyToLocal', {
			automation: true,
			link: f.link,
			paths: [added.path, deleted.path],
		});
		assert.deepEqual([...selection.applied].sort(), [added.path, deleted.path].sort());
		await localEqualsAgent(added.path);
		await localEqualsAgent(deleted.path);
		// All: every remaining difference.
		const all = await vscode.commands.executeCommand<ApplyAnswer>('cloudAgents.changes.applyAllToLocal', {
			automation: true,
			link: f.link,
		});
		assert.ok(all.applied.length >= 1 && all.refused.length === 0, JSON.stringify(all));
		for (const d of answer.differences) {
			await localEqualsAgent(d.path);
		}
		assert.deepEqual(agentGroup(await refresh(f)), [], 'nothing differs after Apply All');
	});

	test('Undo after Apply, then save: the file is back in the list without a Refresh; applied again, it leaves', async function () {
		this.timeout(120_000);
		const f = await fixture({ 'u/undo.txt': 'mine\n' });
		await runToEnd(f.agentId, '[[write:u/undo.txt]] change it');
		assert.deepEqual(agentGroup(await refresh(f)), [['u/undo.txt', 'modified']]);
		const api = await testApi();
		const shown = async (): Promise<ReturnType<typeof shownChanges>> => shownChanges(api, f.link, f.local);
		const apply = (): Thenable<ApplyAnswer> =>
			vscode.commands.executeCommand<ApplyAnswer>('cloudAgents.changes.applyToLocal', {
				automation: true,
				link: f.link,
				paths: ['u/undo.txt'],
			});
		assert.deepEqual(await apply(), { applied: ['u/undo.txt'], refused: [] });
		assert.deepEqual(await shown(), [], 'applied: the file left the list');
		const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(join(f.local, 'u/undo.txt')));
		await vscode.window.showTextDocument(doc);
		await vscode.commands.executeCommand('undo');
		assert.equal(doc.getText(), 'mine\n', 'Undo restores the local text');
		assert.ok(await doc.save(), 'saved');
		const back = await waitFor('the file back in the list', async () => {
			const d = await shown();
			return d?.some((x) => x.path === 'u/undo.txt') ? d : undefined;
		});
		assert.deepEqual(
			back.map((d) => [d.path, d.group, d.kind]),
			[['u/undo.txt', 'agent', 'modified']],
		);
		assert.deepEqual(await apply(), { applied: ['u/undo.txt'], refused: [] });
		assert.deepEqual(await shown(), [], 'applied again: the file left the list again');
		await closeAllEditors();
	});

	test('send to agent writes the local version; an agent-side change since the listing is a conflict, not an overwrite', async function () {
		this.timeout(150_000);
		const f = await fixture({ 's/mine.txt': 'mine\n', 's/theirs.txt': 'theirs\n' });
		await runToEnd(f.agentId, '[[write:s/mine.txt]] [[write:s/theirs.txt]] edit both');
		assert.deepEqual(agentGroup(await refresh(f)), [
			['s/mine.txt', 'modified'],
			['s/theirs.txt', 'modified'],
		]);
		await writeFile(join(f.local, 's/mine.txt'), 'my own version\n');
		const sent = await vscode.commands.executeCommand<{ sent: string[]; conflicts: string[] }>('cloudAgents.changes.sendToAgent', {
			automation: true,
			link: f.link,
			paths: ['s/mine.txt'],
		});
		assert.deepEqual(sent, { sent: ['s/mine.txt'], conflicts: [] });
		const after = (await groundFiles(f.agentId)).find((g) => g.path === 's/mine.txt');
		assert.equal(Buffer.from(after?.content_base64 ?? '', 'base64').toString('utf8'), 'my own version\n');
		// The agent changes theirs.txt again after it was listed: sending is refused.
		await agentWrites(f.agentId, 's/theirs.txt', 'the agent again\n');
		const refused = await vscode.commands.executeCommand<{ sent: string[]; conflicts: string[] }>('cloudAgents.changes.sendToAgent', {
			automation: true,
			link: f.link,
			paths: ['s/theirs.txt'],
		});
		assert.deepEqual(refused, { sent: [], conflicts: ['s/theirs.txt'] });
		const kept = (await groundFiles(f.agentId)).find((g) => g.path === 's/theirs.txt');
		assert.equal(Buffer.from(kept?.content_base64 ?? '', 'base64').toString('utf8'), 'the agent again\n', 'nothing was written');
	});

	test('Compare Everything on a folder that differs in nothing says so, as a person runs it (issue 42, item 10)', async function () {
		this.timeout(120_000);
		const f = await fixture({ 'n/same.txt': 'same\n' });
		// As a Source Control menu runs it for a person: the link's id, no automation marker.
		const answer = await vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.compareEverything', { link: f.link });
		assert.deepEqual(answer.differences, []);
		const said = await waitFor('Compare Everything to say that nothing differs', async () => {
			const shown = await messagesShown('information', /nothing differs/);
			return shown.length > 0 ? shown : undefined;
		});
		assert.match(said[0] ?? '', /Changes test agent/, 'the message names the link');
	});

	test('Compare Everything adds the other differences: a local edit and a local-only file; ignored files stay out', async function () {
		this.timeout(120_000);
		const f = await fixture({ 'e/old.txt': 'old checkout\n', 'e/same.txt': 'same\n' });
		await writeFile(join(f.local, 'e/old.txt'), 'edited here\n');
		await writeFile(join(f.local, 'e/only-here.txt'), 'local only\n');
		await mkdir(join(f.local, 'build'), { recursive: true });
		await writeFile(join(f.local, 'build/local-out.txt'), 'ignored\n');
		const refreshed = await refresh(f);
		assert.deepEqual(refreshed.differences, [], 'a refresh looks only at what the agent changed');
		const answer = await vscode.commands.executeCommand<ComparisonAnswer>('cloudAgents.changes.compareEverything', {
			automation: true,
			link: f.link,
		});
		assert.deepEqual(answer.differences.map((d) => [d.path, d.group, d.kind]).sort(), [
			['e/old.txt', 'other', 'modified'],
			['e/only-here.txt', 'other', 'deleted'],
		]);
	});

	test("Send to Agent's question names every file it counts: replaced, deleted and created again (issue 42, item 13)", async () => {
		// A group of eight: three the agent modified (replaced), three it added (deleted there), two it deleted (created again).
		const source = { localUriOf: (path: string) => vscode.Uri.file(`/nowhere-open/${path}`) } as unknown as ChangeFile['source'];
		const file = (path: string, kind: Difference['kind']): ChangeFile => ({ source, d: { path, kind, group: 'agent' } });
		const files = [
			...['m1.md', 'm2.md', 'm3.md'].map((p) => file(p, 'modified')),
			...['a1.md', 'a2.md', 'a3.md'].map((p) => file(p, 'added')),
			...['d1.md', 'd2.md'].map((p) => file(p, 'deleted')),
		];
		let asked: { message: string; detail: string } | undefined;
		const kit = {
			confirm: async (message: string, detail: string | undefined): Promise<boolean> => {
				asked = { message, detail: detail ?? '' };
				return false;
			},
		};
		assert.equal(await confirmSend(files, kit), false);
		assert.match(asked?.message ?? '', /8 files/);
		for (const f of files) {
			assert.ok(asked?.detail.includes(f.d.path), `the question names ${f.d.path}: ${asked?.detail}`);
		}
		assert.match(asked?.detail ?? '', /Creates d1\.md, d2\.md again in the agent workspace \(the agent deleted them\)/);
	});
});
