/**
 * Local files and the `cloud-agent:` file system against a hostile server: crafted artifact ids and
 * names, unusable listing names, trees too deep or too big to walk, and an mtime going backwards.
 * The suite points `cloudAgents.apiUrl` at the hostile server and restores the emulator after.
 */
import * as assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as vscode from 'vscode';
import { SAFETY } from '../../../src/api';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { parseWorkspaceUri, workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { AGENT_ID, agent, artifact } from '../../hostile/fixtures';
import { type HostileServer, type RouteHandler, json } from '../../hostile/server';
import { type HostileTree, type RawEntry, deepTree, wideTree, workspaceRoutes } from '../../unit/workspace/fs/hostileWorkspace';
import { testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { type HostileSession, useHostileServer } from '../support/hostile';

const MTIME = 1_760_000_000_000;
/** A 1×1 transparent PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

suite('Hostile server: local files and the agent workspace', () => {
	let api: CloudAgentsTestApi;
	let server: HostileServer;
	let hostile: HostileSession;

	const uri = (path = ''): vscode.Uri => workspaceUri(AGENT_ID, path);
	const workspaceRequests = (): number =>
		server.requestsTo('* /v2/agents/*/workspace').length + server.requestsTo('* /v2/agents/*/workspace/files').length;
	/** Serves `tree` through the workspace routes, plus `routes`, plus what the views ask for. */
	const use = (tree: HostileTree, routes: Record<string, RouteHandler> = {}): void => {
		server.use({
			description: 'hostile file-system suite',
			routes: {
				'GET /v2/me': (_req, res) => json(res, 200, { id: 'user_hostile', email: 'hostile@example.invalid' }),
				'GET /v2/agents': (_req, res) => json(res, 200, { agents: [agent()] }),
				...routes,
				...workspaceRoutes(tree),
			},
		});
	};

	suiteSetup(async function () {
		this.timeout(60_000);
		api = await testApi();
		hostile = await useHostileServer(
			api,
			{ description: 'starting', routes: {} },
			{ settings: { 'files.autoSave': 'off' }, signIn: 'store' },
		);
		server = hostile.server;
		use({ list: () => undefined, file: () => undefined });
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
	});

	suiteTeardown(async function () {
		this.timeout(60_000);
		await closeAllEditors();
		await hostile.restore();
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		await vscode.commands.executeCommand('notifications.clearAll');
	});

	setup(async () => {
		server.requests.length = 0;
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
	});

	teardown(async () => {
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
		await closeAllEditors();
	});

	test('"Open Artifact" with a crafted id and name writes nothing outside the extension\'s storage', async () => {
		const marker = `cloud-agents-pwned-${randomBytes(6).toString('hex')}`;
		const craftedId = `${'../'.repeat(40)}tmp/${marker}`;
		const crafted = artifact({ id: craftedId, name: '../../evil.txt', media_type: 'image/png', size: PNG.byteLength });
		use(
			{ list: () => undefined, file: () => undefined },
			{
				'GET /v2/agents/*/artifacts/**': (_req, res) => json(res, 200, { ...crafted, content_base64: PNG.toString('base64') }),
			},
		);
		const written = await vscode.commands.executeCommand<vscode.Uri | undefined>('cloudAgents.artifacts.open', {
			automation: true,
			agentId: AGENT_ID,
			artifactId: 'art_hostile0001',
		});
		const outside = readdirSync(tmpdir()).filter((name) => name.startsWith(marker));
		assert.deepEqual(outside, [], `written outside the storage folder: ${outside.join(', ')}`);
		assert.equal(existsSync(`/tmp/${marker}`), false);
		assert.ok(server.requestsTo('GET /v2/agents/*/artifacts/**').length >= 1, 'the crafted artifact was fetched');
		if (written) {
			// Shown (the client let the id through): from memory, under one path segment made safe.
			assert.equal(written.scheme, 'cloud-agents-image', 'nothing written to disk');
			assert.equal(written.path, '/.._.._evil.txt', 'the artifact name, made safe, is one segment');
			assert.ok(!written.path.split('/').includes('..'));
		}
	});

	test('a listing with "a/b", "..", ".", "", duplicates and control characters shows only the valid entries', async () => {
		const entries: RawEntry[] = [
			{ name: 'good.txt', type: 'file', size: 5, mtime_unix_ms: MTIME },
			{ name: 'a/b', type: 'file', size: 5, mtime_unix_ms: MTIME },
			{ name: '..', type: 'directory', size: 0, mtime_unix_ms: MTIME },
			{ name: '.', type: 'directory', size: 0, mtime_unix_ms: MTIME },
			{ name: '', type: 'file', size: 5, mtime_unix_ms: MTIME },
			{ name: 'good.txt', type: 'directory', size: 0, mtime_unix_ms: MTIME },
			{ name: 'x\u0007y', type: 'file', size: 5, mtime_unix_ms: MTIME },
			{ name: 'sub', type: 'directory', size: 0, mtime_unix_ms: MTIME },
		];
		use({
			list: (p) => (p === '' ? entries : p === 'sub' ? [] : undefined),
			file: (p) => (p === 'good.txt' ? { content: Buffer.from('good\n'), mtime: MTIME } : undefined),
		});
		const listed = await vscode.workspace.fs.readDirectory(uri());
		assert.deepEqual(listed, [
			['good.txt', vscode.FileType.File],
			['sub', vscode.FileType.Directory],
		]);
		assert.equal(Buffer.from(await vscode.workspace.fs.readFile(uri('good.txt'))).toString(), 'good\n');
	});

	test('copy and move of a 100-level tree stop with an error naming the limit, after a bounded number of requests; delete is one request', async function () {
		this.timeout(60_000);
		const changed: string[] = [];
		use({ ...deepTree('deep', 100), write: (p) => changed.push(`write ${p}`), remove: (p) => changed.push(`delete ${p}`) });
		const ops = (op: string): number =>
			server
				.requestsTo('POST /v2/agents/*/workspace')
				.filter((r) => (JSON.parse(r.body.toString('utf8')) as { op?: string }).op === op).length;
		for (const op of ['copy', 'rename'] as const) {
			// Each operation from an empty cache: a listing the copy left is reused by the move only
			// while it is younger than the cache's reuse window (2 s), so the two together send
			// between one and two walks' worth of listings depending on how long the copy took.
			// One operation's count does not depend on the clock.
			await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
			server.requests.length = 0;
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs[op](uri('deep'), uri(`deep-${op}`), { overwrite: false })),
				(err: unknown) =>
					err instanceof vscode.FileSystemError &&
					err.message.includes(`more than ${SAFETY.walkMaxDepth} folder levels deep`) &&
					/Nothing was changed/.test(err.message),
			);
			const seen = server.requests.map((r) => `${r.method} ${r.path} ${r.body.toString('utf8')}`).join(', ');
			// The walk lists the source and the 32 levels below it, one folder at a time, and stops at
			// the 33rd level's folder, which it sees in the last listing and does not list.
			assert.equal(ops('list'), SAFETY.walkMaxDepth + 1, `${op}: ${ops('list')} listings`);
			// Three stats: VS Code's of the target before it calls the provider, then ours of the source
			// and the target (nothing cached after the clear; a missing target is not remembered).
			assert.equal(ops('stat'), 3, `${op}: ${ops('stat')} stats: ${seen}`);
			assert.equal(workspaceRequests(), ops('list') + ops('stat'), `${op}: only listings and stats: ${seen}`);
		}
		assert.deepEqual(changed, []);

		server.requests.length = 0;
		await vscode.workspace.fs.delete(uri('deep'), { recursive: true, useTrash: false });
		assert.deepEqual(changed, ['delete deep']);
		assert.equal(server.requestsTo('DELETE /v2/agents/*/workspace/files').length, 1);
		assert.ok(workspaceRequests() <= 3, `${workspaceRequests()} requests`);
	});

	test('copy of a 50,000-entry folder stops with an error naming the limit before writing anything', async function () {
		this.timeout(60_000);
		const changed: string[] = [];
		use({ ...wideTree('huge', 50_000), write: (p) => changed.push(`write ${p}`), remove: (p) => changed.push(`delete ${p}`) });
		await assert.rejects(
			Promise.resolve(vscode.workspace.fs.copy(uri('huge'), uri('huge-copy'), { overwrite: false })),
			(err: unknown) => err instanceof vscode.FileSystemError && /more than \d+ files and folders/.test(err.message),
		);
		assert.deepEqual(changed, []);
		assert.ok(workspaceRequests() <= 15, `${workspaceRequests()} requests`);
	});

	test('"Search Workspace…" skips matches with escaping paths and repairs bad positions', async () => {
		use({
			list: (p) => (p === '' ? [{ name: 'ok.txt', type: 'file', size: 6, mtime_unix_ms: MTIME }] : undefined),
			file: (p) => (p === 'ok.txt' ? { content: Buffer.from('needle'), mtime: MTIME } : undefined),
			search: () => [
				{ path: '../../../etc/passwd', line: 1, column: 1, preview: 'root:x:0:0' },
				{ path: 'a\\..\\..\\b', line: 1, column: 1 },
				{ path: 42, line: 1, column: 1 },
				{ path: 'ok.txt', line: 'one', column: -5, preview: 'needle' },
			],
		});
		const opened = await vscode.commands.executeCommand<vscode.Uri | undefined>('cloudAgents.workspace.search', {
			automation: true,
			agentId: AGENT_ID,
			query: 'needle',
			pick: 0,
		});
		// Compared by agent and path: the command opens under whichever authority the window uses for the agent.
		assert.ok(opened, 'a match was opened');
		assert.deepEqual(parseWorkspaceUri(opened), { agentId: AGENT_ID, path: '/ok.txt' });
		const editor = vscode.window.activeTextEditor;
		assert.ok(editor, 'an editor is open');
		assert.deepEqual(parseWorkspaceUri(editor.document.uri), { agentId: AGENT_ID, path: '/ok.txt' });
		assert.equal(editor?.selection.active.line, 0);
	});

	test('an mtime going backwards on an open, edited file makes the save a conflict, not a silent overwrite', async function () {
		this.timeout(30_000);
		let current: { content: Buffer; mtime: number } = { content: Buffer.from('original\n'), mtime: MTIME };
		const writes: string[] = [];
		use({
			list: (p) =>
				p === '' ? [{ name: 'open.md', type: 'file', size: current.content.byteLength, mtime_unix_ms: current.mtime }] : undefined,
			file: (p) => (p === 'open.md' ? current : undefined),
			write: (p, c) => {
				writes.push(p);
				current = { content: c, mtime: current.mtime + 1 };
			},
		});
		const doc = await vscode.workspace.openTextDocument(uri('open.md'));
		assert.equal(doc.getText(), 'original\n');
		await vscode.window.showTextDocument(doc);
		const edit = new vscode.WorkspaceEdit();
		edit.insert(doc.uri, new vscode.Position(0, 0), 'mine: ');
		assert.ok(await vscode.workspace.applyEdit(edit));
		const opened = (await vscode.workspace.fs.stat(doc.uri)).mtime;
		// The agent replaced the file; its mtime went backwards (same size, so only the mtime tells).
		current = { content: Buffer.from('theirs!!\n'), mtime: MTIME - 3_600_000 };
		// A condition, not a time: for 1 s after a read the provider answers stat from it, and any stat
		// VS Code made meanwhile renewed that second (a fixed 1.2 s sleep then saved over the change).
		// The provider reports a change as a higher mtime, whichever way the service's mtime moved.
		await waitFor("the provider to report the agent's change", async () =>
			(await vscode.workspace.fs.stat(doc.uri)).mtime > opened ? true : undefined,
		);
		assert.equal(await doc.save(), false, 'the save must stop at the conflict');
		assert.equal(doc.isDirty, true);
		assert.deepEqual(writes, [], "nothing was written over the agent's version");
		assert.equal(current.content.toString(), 'theirs!!\n');
		// Leave no dirty editor or save-conflict prompt behind for the teardown to close under it.
		await vscode.commands.executeCommand('workbench.action.files.revert');
		await vscode.commands.executeCommand('notifications.clearAll');
		await waitFor('the reverted document to be clean', async () => (doc.isDirty ? undefined : true));
	});
});
