import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { encodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { EXTENSION_ID, FS_SCHEME } from '../../../src/ids';
import { closeAllEditors } from '../support/editors';
import { devToken, emulatorUrl } from '../support/env';
import { base64Decode, base64Encode } from '../../../src/base/bytes';

/** The emulator's API and admin API, straight over HTTP (outside the extension). */
async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
	const res = await fetch(`${emulatorUrl()}${path}`, {
		method,
		headers: { authorization: `Bearer ${devToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (!res.ok) {
		throw Object.assign(new Error(`${method} ${path}: ${res.status} ${text}`), { status: res.status });
	}
	return (text ? JSON.parse(text) : undefined) as T;
}
const admin = <T>(method: string, path: string, body?: unknown): Promise<T> => api<T>(method, `/_emulator${path}`, body);
/**
 * Requests the file system sent: routes under `/v2/agents/{agent_id}/workspace`. The signed-in
 * views and run followers of the same window talk to other routes meanwhile, so the total would
 * count their polling too.
 */
const requests = async (): Promise<number> => {
	const byRoute = (await admin<{ requests: { by_route: Record<string, number> } }>('GET', '/counters')).requests.by_route;
	return Object.entries(byRoute)
		.filter(([route]) => route.includes('/v2/agents/{agent_id}/workspace'))
		.reduce((sum, [, count]) => sum + count, 0);
};
const resetCounters = (): Promise<unknown> => admin('POST', '/counters/reset');
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const utf8 = new TextEncoder();
const b64 = (s: string | Uint8Array): string => base64Encode(typeof s === 'string' ? utf8.encode(s) : s);

suite('Agent workspace (cloud-agent://)', () => {
	let agentId: string;
	let agentName: string;
	const uri = (path = ''): vscode.Uri => vscode.Uri.from({ scheme: FS_SCHEME, authority: agentId, path: `/${path}` });
	/** The file's content on the emulator. */
	const serverText = async (path: string): Promise<string> =>
		new TextDecoder().decode(
			base64Decode(
				(await api<{ content_base64: string }>('POST', `/v2/agents/${agentId}/workspace`, { op: 'read', path })).content_base64,
			),
		);
	const serverHas = async (path: string): Promise<boolean> =>
		api('POST', `/v2/agents/${agentId}/workspace`, { op: 'stat', path }).then(
			() => true,
			(err: Error & { status?: number }) => {
				if (err.status === 404) {
					return false;
				}
				throw err;
			},
		);
	const agentWrites = (path: string, text: string): Promise<unknown> =>
		admin('POST', `/workspace/${agentId}/write`, { path, content_base64: b64(text) });
	let n = 0;
	/** A folder no test has used, seeded by the agent before anything lists it. */
	const freshFolder = async (files: Record<string, string>): Promise<string> => {
		const dir = `it-${Date.now().toString(36)}-${n++}`;
		for (const [name, text] of Object.entries(files)) {
			await agentWrites(`${dir}/${name}`, text);
		}
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		return dir;
	};
	const closeAll = async (): Promise<void> => {
		await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
		await closeAllEditors();
	};

	let autoSave: string | undefined;
	suiteSetup(async function () {
		this.timeout(60_000);
		// VS Code for the Web saves after a delay by default; these tests decide when to save.
		const files = vscode.workspace.getConfiguration('files');
		autoSave = files.inspect<string>('autoSave')?.globalValue;
		await files.update('autoSave', 'off', vscode.ConfigurationTarget.Global);
		await vscode.extensions.getExtension(EXTENSION_ID)?.activate();
		const agents = await api<{ agents?: Array<{ id: string; name: string }>; data?: Array<{ id: string; name: string }> }>(
			'GET',
			'/v2/agents?limit=100',
		);
		const billing = (agents.agents ?? agents.data ?? []).find((a) => a.name === 'Refactor billing module');
		assert.ok(billing, 'the demo seed has the billing agent');
		agentId = billing.id;
		agentName = billing.name;
		// Activation stores the dev token; wait until the file system can use it.
		for (let i = 0; ; i++) {
			try {
				await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
				await vscode.workspace.fs.readDirectory(uri());
				break;
			} catch (err) {
				if (i > 40) {
					throw err;
				}
				await sleep(250);
			}
		}
	});
	suiteTeardown(async () => {
		await vscode.workspace.getConfiguration('files').update('autoSave', autoSave, vscode.ConfigurationTarget.Global);
	});
	teardown(async () => {
		await admin('PUT', '/faults', { rules: [] });
		await closeAll();
	});

	test('adding the folder and showing its root costs 1 request; probes of .vscode files cost none', async () => {
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		await resetCounters();
		assert.equal((await vscode.workspace.fs.stat(uri())).type, vscode.FileType.Directory);
		const names = (await vscode.workspace.fs.readDirectory(uri())).map(([name]) => name);
		for (const expected of ['README.md', 'src', 'docs', 'package.json']) {
			assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`);
		}
		for (const probe of ['.vscode/settings.json', '.vscode/tasks.json', '.vscode/launch.json', '.vscode']) {
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs.stat(uri(probe))),
				(err: unknown) => err instanceof vscode.FileSystemError && err.code === 'FileNotFound',
			);
		}
		assert.equal(await requests(), 1);
	});

	test('"Open Agent Workspace" adds the folder "Agent: <name>" to a multi-root window', async function () {
		if (vscode.workspace.workspaceFile === undefined) {
			// In a single-folder browser window, adding a folder enters a new (untitled) workspace,
			// which reloads the page and would end this run: the Playwright test covers that path.
			this.skip();
		}
		const before = vscode.workspace.workspaceFolders?.length ?? 0;
		const changed = new Promise<void>((resolve) => {
			const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
				sub.dispose();
				resolve();
			});
		});
		await vscode.commands.executeCommand('cloudAgents.agents.openWorkspace', {
			automation: true,
			agentId,
			name: agentName,
			mode: 'add',
		});
		await changed;
		const folder = vscode.workspace.workspaceFolders?.find(
			(f) => f.uri.scheme === FS_SCHEME && f.uri.authority === encodeAgentAuthority(agentId) && f.uri.path === '/',
		);
		assert.ok(folder);
		assert.equal(folder.name, `Agent: ${agentName}`);
		vscode.workspace.updateWorkspaceFolders(before, 1);
	});

	test('stat, readDirectory, readFile, writeFile, copy, rename, createDirectory and delete round-trip to the emulator [web]', async () => {
		const dir = await freshFolder({ 'a.txt': 'alpha\n' });
		const fs = vscode.workspace.fs;
		assert.deepEqual(await fs.readDirectory(uri(dir)), [['a.txt', vscode.FileType.File]]);
		assert.equal(new TextDecoder().decode(await fs.readFile(uri(`${dir}/a.txt`))), 'alpha\n');
		const stat = await fs.stat(uri(`${dir}/a.txt`));
		assert.equal(stat.size, 6);
		assert.ok(stat.mtime > 0);

		await fs.writeFile(uri(`${dir}/sub/b.txt`), utf8.encode('beta\n'));
		assert.equal(await serverText(`${dir}/sub/b.txt`), 'beta\n');
		await fs.copy(uri(`${dir}/a.txt`), uri(`${dir}/a-copy.txt`));
		assert.equal(await serverText(`${dir}/a-copy.txt`), 'alpha\n');
		await fs.rename(uri(`${dir}/a.txt`), uri(`${dir}/renamed.txt`));
		assert.equal(await serverText(`${dir}/renamed.txt`), 'alpha\n');
		assert.equal(await serverHas(`${dir}/a.txt`), false);
		await assert.rejects(Promise.resolve(fs.rename(uri(`${dir}/renamed.txt`), uri(`${dir}/a-copy.txt`), { overwrite: false })));
		await fs.rename(uri(`${dir}/sub`), uri(`${dir}/moved`));
		assert.equal(await serverText(`${dir}/moved/b.txt`), 'beta\n');
		assert.equal(await serverHas(`${dir}/sub`), false);

		await fs.createDirectory(uri(`${dir}/empty`));
		assert.equal((await fs.stat(uri(`${dir}/empty`))).type, vscode.FileType.Directory);
		assert.ok((await fs.readDirectory(uri(dir))).some(([name, type]) => name === 'empty' && type === vscode.FileType.Directory));
		assert.equal(await serverHas(`${dir}/empty`), false, 'virtual until a file is written into it');
		await fs.writeFile(uri(`${dir}/empty/c.txt`), utf8.encode('gamma'));
		assert.equal(await serverHas(`${dir}/empty`), true);

		await fs.delete(uri(`${dir}/renamed.txt`));
		assert.equal(await serverHas(`${dir}/renamed.txt`), false);
		await fs.delete(uri(dir), { recursive: true });
		assert.equal(await serverHas(dir), false);
		await assert.rejects(
			Promise.resolve(fs.stat(uri(`${dir}/a-copy.txt`))),
			(err: unknown) => err instanceof vscode.FileSystemError && err.code === 'FileNotFound',
		);
	});

	test('request floors: expand a folder = 1, open a listed file = 1, save = 2', async () => {
		const dir = await freshFolder({ 'notes.md': 'one\n', 'other.md': 'two\n' });
		await vscode.workspace.fs.readDirectory(uri());
		await resetCounters();
		await vscode.workspace.fs.stat(uri(dir));
		await vscode.workspace.fs.readDirectory(uri(dir));
		assert.equal(await requests(), 1, 'expand');

		await resetCounters();
		const doc = await vscode.workspace.openTextDocument(uri(`${dir}/notes.md`));
		assert.equal(doc.getText(), 'one\n');
		assert.equal(await requests(), 1, 'open');

		await vscode.window.showTextDocument(doc);
		const edit = new vscode.WorkspaceEdit();
		edit.insert(doc.uri, new vscode.Position(1, 0), 'two\n');
		assert.ok(await vscode.workspace.applyEdit(edit));
		await sleep(1_200); // past the 1 s in which a read answers stat: the save must ask the service
		await resetCounters();
		assert.equal(await doc.save(), true);
		assert.equal(await requests(), 2, 'save');
		assert.equal(await serverText(`${dir}/notes.md`), 'one\ntwo\n');
	});

	test('a save after the agent changed the file raises the conflict instead of overwriting [web]', async () => {
		const dir = await freshFolder({ 'shared.md': 'original\n' });
		const doc = await vscode.workspace.openTextDocument(uri(`${dir}/shared.md`));
		await vscode.window.showTextDocument(doc);
		const edit = new vscode.WorkspaceEdit();
		edit.insert(doc.uri, new vscode.Position(0, 0), 'mine: ');
		assert.ok(await vscode.workspace.applyEdit(edit));
		await sleep(1_200);
		await agentWrites(`${dir}/shared.md`, 'the agent wrote this instead\n');
		assert.equal(await doc.save(), false);
		assert.equal(doc.isDirty, true);
		assert.equal(await serverText(`${dir}/shared.md`), 'the agent wrote this instead\n');
	});

	test('a save failing under injected 503s leaves the editor dirty and the server unchanged; a later save succeeds [web]', async () => {
		const dir = await freshFolder({ 'flaky.md': 'before\n' });
		const doc = await vscode.workspace.openTextDocument(uri(`${dir}/flaky.md`));
		await vscode.window.showTextDocument(doc);
		const edit = new vscode.WorkspaceEdit();
		edit.replace(doc.uri, new vscode.Range(0, 0, 1, 0), 'after\n');
		assert.ok(await vscode.workspace.applyEdit(edit));
		await admin('PUT', '/faults', { rules: [{ method: 'PUT', route: '/v2/agents/{agent_id}/workspace/files', status: 503 }] });
		assert.equal(await doc.save(), false);
		assert.equal(doc.isDirty, true);
		assert.equal(await serverText(`${dir}/flaky.md`), 'before\n');
		await admin('PUT', '/faults', { rules: [] });
		assert.equal(await doc.save(), true);
		assert.equal(doc.isDirty, false);
		assert.equal(await serverText(`${dir}/flaky.md`), 'after\n');
	});

	test('an over-limit write and a path escape are refused with no request sent', async () => {
		await resetCounters();
		await assert.rejects(
			Promise.resolve(vscode.workspace.fs.writeFile(uri('huge.bin'), new Uint8Array(32 * 1024 * 1024 + 1))),
			(err: unknown) => err instanceof Error && /32 MiB/.test(err.message),
		);
		await assert.rejects(
			Promise.resolve(
				vscode.workspace.fs.writeFile(
					vscode.Uri.from({ scheme: FS_SCHEME, authority: agentId, path: '/../escape.txt' }),
					utf8.encode('x'),
				),
			),
		);
		await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(uri(`${'d/'.repeat(2100)}x.txt`), utf8.encode('x'))));
		assert.equal(await requests(), 0);
		assert.equal(await serverHas('escape.txt'), false);
		assert.equal(await serverHas('huge.bin'), false);
	});

	test('"Search Workspace…" opens the file of the chosen match at its line', async () => {
		const expected = await api<{ matches: Array<{ path: string; line: number; column: number }> }>(
			'POST',
			`/v2/agents/${agentId}/workspace`,
			{ op: 'search', query: 'roundInvoice' },
		);
		assert.ok(expected.matches.length >= 2);
		const pick = 1;
		const target = expected.matches[pick];
		assert.ok(target);
		await vscode.commands.executeCommand('cloudAgents.workspace.search', { automation: true, agentId, query: 'roundInvoice', pick });
		const editor = vscode.window.activeTextEditor;
		assert.ok(editor);
		assert.equal(editor.document.uri.toString(), uri(target.path).toString());
		assert.equal(editor.selection.active.line, target.line - 1);
		assert.equal(editor.document.getText(editor.selection), 'roundInvoice');
	});

	test('"Go to File in Agent Workspace…" walks every file and opens the one asked for; an unknown path is rejected', async () => {
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		const files = await vscode.commands.executeCommand<string[]>('cloudAgents.workspace.goToFile', {
			automation: true,
			agentId,
			path: 'src/lib/util.ts',
		});
		const editor = vscode.window.activeTextEditor;
		assert.ok(editor);
		assert.equal(editor.document.uri.toString(), uri('src/lib/util.ts').toString());
		assert.ok(Array.isArray(files));
		for (const expected of ['README.md', 'src/index.ts', 'docs/guide.md', 'src/lib/util.ts']) {
			assert.ok(files.includes(expected), `${expected} in ${files.join(', ')}`);
		}
		assert.ok(
			files.every((f) => !f.startsWith('/')),
			'workspace paths, relative to the root',
		);
		await assert.rejects(
			Promise.resolve(
				vscode.commands.executeCommand('cloudAgents.workspace.goToFile', {
					automation: true,
					agentId,
					path: 'src/no-such-file.ts',
				}),
			),
			(err: unknown) => err instanceof Error && /no-such-file\.ts/.test(err.message),
		);
	});
});
