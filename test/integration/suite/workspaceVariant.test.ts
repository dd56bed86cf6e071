import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { decodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { FS_SCHEME } from '../../../src/ids';
import { counters, emu, messagesShown, testApi } from '../support/cloudAgents';
import { devToken } from '../support/env';

/** Workspace operations the emulator received since the last counter reset (views poll other routes meanwhile). */
async function workspaceRequests(): Promise<number> {
	const byRoute = (await counters()).requests.by_route;
	return Object.entries(byRoute)
		.filter(([route]) => route.includes('/v2/agents/{agent_id}/workspace'))
		.reduce((sum, [, n]) => sum + n, 0);
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
/** The "interface differs" error messages shown so far. */
const notices = (): Promise<string[]> => messagesShown('error', /^Agent workspace .*workspace interface differs/);

/**
 * Runs against the standard emulator and (tagged `[variant]`) again against the variant profile,
 * whose agent ids are upper case with a `:` and whose workspace operations have another shape.
 */
suite('Agent workspace on a server that chose differently', () => {
	let agentId: string;
	/** Whether this server reads our workspace operation body (decided straight over HTTP, outside the extension). */
	let standardInterface: boolean;

	suiteSetup(async function () {
		this.timeout(60_000);
		const api = await testApi();
		const agents = await api.session.client.listAgents({ limit: 100 });
		const billing = agents.items.find((a) => a.name === 'Refactor billing module');
		assert.ok(billing, 'the demo seed has the billing agent');
		agentId = billing.id;
		const probe = await emu<{ entries?: unknown }>(
			'POST',
			`/v2/agents/${encodeURIComponent(agentId)}/workspace`,
			{ op: 'list', path: '' },
			devToken(),
		);
		standardInterface = probe.status === 200 && Array.isArray(probe.body?.entries);
	});
	teardown(async () => {
		await vscode.commands.executeCommand('notifications.clearAll');
	});

	test('[variant] an agent opens as a folder by its exact id; a differing workspace interface is one clear error, never an empty folder', async function () {
		this.timeout(60_000);
		if (vscode.workspace.workspaceFile === undefined) {
			// Adding a folder to a single-folder browser window reloads the page and would end this run.
			this.skip();
		}
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		const noticesBefore = (await notices()).length;
		const before = vscode.workspace.workspaceFolders?.length ?? 0;
		const added = new Promise<void>((resolve) => {
			const sub = vscode.workspace.onDidChangeWorkspaceFolders(() => {
				sub.dispose();
				resolve();
			});
		});
		await vscode.commands.executeCommand('cloudAgents.agents.openWorkspace', {
			automation: true,
			agentId,
			name: 'variant test',
			mode: 'add',
		});
		await added;
		try {
			const folder = vscode.workspace.workspaceFolders?.find(
				(f) => f.uri.scheme === FS_SCHEME && decodeAgentAuthority(f.uri.authority) === agentId,
			);
			assert.ok(
				folder,
				`a folder for ${agentId} among ${(vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString()).join(', ')}`,
			);
			// VS Code lower-cases authorities when it writes a URI out (workspace files, reloads): the id survives.
			const reparsed = vscode.Uri.parse(folder.uri.toString());
			assert.equal(reparsed.authority, reparsed.authority.toLowerCase());
			assert.equal(decodeAgentAuthority(reparsed.authority), agentId);
			if (/[A-Z]/.test(agentId)) {
				// What the id as the authority (before this encoding) became after the same round trip.
				const raw = vscode.Uri.parse(vscode.Uri.from({ scheme: FS_SCHEME, authority: agentId, path: '/' }).toString());
				assert.notEqual(decodeAgentAuthority(raw.authority), agentId, 'VS Code lower-cases an authority that carries the id as is');
			}

			if (standardInterface) {
				assert.equal((await vscode.workspace.fs.stat(reparsed)).type, vscode.FileType.Directory);
				const names = (await vscode.workspace.fs.readDirectory(reparsed)).map(([name]) => name);
				assert.ok(names.includes('README.md'), `README.md in ${names.join(', ')}`);
				assert.equal(
					(await notices()).length,
					noticesBefore,
					'no "interface differs" message on a server that reads our operations',
				);
				return;
			}

			const err = await Promise.resolve(vscode.workspace.fs.readDirectory(reparsed)).then(
				() => assert.fail('the listing of a server whose interface differs must not succeed (an empty folder)'),
				(e: unknown) => e,
			);
			assert.ok(err instanceof vscode.FileSystemError, String(err));
			assert.equal(err.code, 'Unavailable');
			assert.match(err.message, /This server's workspace interface differs: /);
			const requestId = /request ([^\]\s]+)\]/.exec(err.message)?.[1];
			assert.ok(requestId && requestId !== 'unknown', `a request id in: ${err.message}`);

			// Let VS Code's own probes of the new folder settle, then nothing more reaches the server.
			await sleep(500);
			await emu('POST', '/_emulator/counters/reset');
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs.readDirectory(folder.uri)),
				(e: unknown) => e instanceof vscode.FileSystemError && /interface differs/.test(e.message),
			);
			// The root itself now carries the error (VS Code shows a failed root listing as an empty folder).
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs.stat(folder.uri)),
				(e: unknown) => e instanceof vscode.FileSystemError && /interface differs/.test(e.message),
			);
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, 'README.md'))),
				(e: unknown) => e instanceof vscode.FileSystemError && /interface differs/.test(e.message),
			);
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, 'src/index.ts'))),
				(e: unknown) => e instanceof vscode.FileSystemError && /interface differs/.test(e.message),
			);
			for (const probe of ['.vscode/settings.json', '.vscode/tasks.json', '.vscode/launch.json', '.vscode']) {
				await assert.rejects(
					Promise.resolve(vscode.workspace.fs.stat(vscode.Uri.joinPath(folder.uri, probe))),
					(e: unknown) => e instanceof vscode.FileSystemError && e.code === 'FileNotFound',
					probe,
				);
			}
			assert.equal(await workspaceRequests(), 0, 'no workspace operation is sent once the interface is known to differ');

			const shown = (await notices()).slice(noticesBefore);
			assert.equal(shown.length, 1, `one message, not one per call: ${shown.join(' | ')}`);
			// Named after the agent as its folder is (issue 42, item 15), not by its id.
			assert.ok(shown[0]?.startsWith('Agent workspace "variant test":'), shown[0]);
			assert.ok(!shown[0]?.includes(agentId), shown[0]);
			assert.ok(shown[0]?.includes(requestId), shown[0]);
			assert.match(shown[0] ?? '', /workspace interface differs/);
		} finally {
			const index = (vscode.workspace.workspaceFolders ?? []).findIndex(
				(f) => f.uri.scheme === FS_SCHEME && decodeAgentAuthority(f.uri.authority) === agentId,
			);
			if (index >= before) {
				vscode.workspace.updateWorkspaceFolders(index, 1);
			}
		}
	});
});
