import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { decodeAgentAuthority, encodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { FS_SCHEME } from '../../../src/ids';
import { WorkspaceFeature } from '../../../src/workspace/workspaceFeature';
import { emu, restoreDevToken, seedAgent, testApi, waitFor } from '../support/cloudAgents';
import { addFolder, removeFolder } from '../support/folders';

const WORKSPACE_ROUTE = '/v2/agents/{agent_id}/workspace';

/**
 * Issue 20 (2): "The agent's folder in the Explorer goes silently empty after sign-out or when the
 * service is unreachable, and stays empty after signing in again until Refresh Explorer." VS Code
 * shows a failed listing as an empty folder; a failed root stat as an error on the folder. So the
 * file system must fail with an `Unavailable` FileSystemError that says why (never list `[]`), and
 * announce the root (onDidChangeFile) when the folder becomes unavailable and again once the
 * session or the service is back, so the Explorer reads it again by itself.
 */
suite('Agent workspace while signed out or the service is unavailable', () => {
	let agentId: string;
	let root: vscode.Uri;
	/** Root events of the agent's folder (Created and Changed) seen by a watcher, in order. */
	let rootEvents: string[];
	let watcher: vscode.FileSystemWatcher | undefined;
	let added = false;

	const isRoot = (uri: vscode.Uri): boolean =>
		uri.scheme === FS_SCHEME && decodeAgentAuthority(uri.authority) === agentId && uri.path.replace(/\/+$/, '') === '';
	const listing = async (): Promise<string[]> => (await vscode.workspace.fs.readDirectory(root)).map(([name]) => name);
	/** Waits until a root event arrives after the first `seen` ones. */
	const rootEventAfter = (seen: number, what: string): Promise<true> =>
		waitFor(what, () => Promise.resolve(rootEvents.length > seen ? true : undefined), 20_000);
	const unavailable =
		(pattern: RegExp) =>
		(err: unknown): boolean => {
			assert.ok(err instanceof vscode.FileSystemError, `a FileSystemError, not ${String(err)}`);
			assert.equal(err.code, 'Unavailable', err.message);
			assert.match(err.message, pattern);
			return true;
		};
	const addAgentFolder = async (): Promise<void> => {
		added = (await addFolder(root, 'Agent: unavailable test')) || added;
	};

	suiteSetup(async function () {
		this.timeout(60_000);
		await testApi();
		await restoreDevToken();
		const billing = await seedAgent('Refactor billing module');
		agentId = billing.id;
		root = vscode.Uri.from({ scheme: FS_SCHEME, authority: encodeAgentAuthority(agentId), path: '/' });
		rootEvents = [];
		// Outside the workspace folders a watcher still sees the provider's events (VS Code forwards them all).
		watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(root, '**'));
		const record = (kind: string) => (uri: vscode.Uri) => {
			if (isRoot(uri)) {
				rootEvents.push(kind);
			}
		};
		watcher.onDidCreate(record('created'));
		watcher.onDidChange(record('changed'));
	});
	suiteTeardown(async () => {
		watcher?.dispose();
		await emu('DELETE', '/_emulator/faults');
		await restoreDevToken();
		if (added) {
			// Confirmed before the next suite, which may add a folder and wait for the next change event.
			await removeFolder(root);
		}
		await vscode.commands.executeCommand('notifications.clearAll');
	});
	teardown(async () => {
		await emu('DELETE', '/_emulator/faults');
	});

	test('signed out, an agent folder fails with "Signed out of Cloud Agents…" (not an empty listing); signing in announces its root and lists the files', async function () {
		this.timeout(60_000);
		const api = await testApi();
		await addAgentFolder();
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		assert.ok((await listing()).includes('README.md'));

		let seen = rootEvents.length;
		await api.session.deleteToken();
		try {
			// The sign-out announces the open folder's root, which now fails with the reason at once.
			await rootEventAfter(seen, 'the root to be announced at the sign-out');
			await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(root)), unavailable(/^Signed out of Cloud Agents: sign in/));
			await assert.rejects(listing(), unavailable(/^Signed out of Cloud Agents: sign in to see this agent's files\.$/));
			await assert.rejects(
				Promise.resolve(vscode.workspace.fs.readFile(vscode.Uri.joinPath(root, 'README.md'))),
				unavailable(/^Signed out of Cloud Agents/),
			);
		} finally {
			seen = rootEvents.length;
			await restoreDevToken();
		}
		await rootEventAfter(seen, 'the root to be announced after signing in');
		assert.ok(rootEvents.slice(seen).includes('created'), `events after the sign-in: ${rootEvents.slice(seen).join(', ')}`);
		assert.equal((await vscode.workspace.fs.stat(root)).type, vscode.FileType.Directory);
		assert.ok((await listing()).includes('README.md'));
	});

	test('a workspace feature loaded after activation read the sign-in state takes the next sign-out as one (it loads on first use)', async function () {
		this.timeout(60_000);
		await addAgentFolder();
		const api = await testApi();
		// A feature of its own (not registered: the extension's stand-in serves the extension's), over
		// a session whose sign-in state is already read, as when the feature loads after activation.
		const changed = new vscode.EventEmitter<void>();
		let signedIn = true;
		const session = (initialized: boolean) => ({
			client: api.session.client,
			apiUrl: api.session.apiUrl,
			get signedIn() {
				return signedIn;
			},
			initialized,
			onDidChange: changed.event,
		});
		const log = { warn: (): void => undefined };
		const late = new WorkspaceFeature({ session: session(true), log });
		// And one created before the state is read (at activation): the first change only records it.
		const early = new WorkspaceFeature({ session: session(false), log });
		try {
			signedIn = false;
			changed.fire();
			assert.equal(late.cache.unavailableError(agentId)?.reason, 'signedOut', 'the sign-out marks the open folder at once');
			assert.equal(early.cache.unavailableError(agentId), undefined, "activation's first change only records the state");
		} finally {
			late.dispose();
			early.dispose();
			changed.dispose();
		}
	});

	test('the service failing (503): an agent folder fails naming the host, and comes back by itself once the service answers [web]', async function () {
		this.timeout(60_000);
		await addAgentFolder();
		const fault = await emu('PUT', '/_emulator/faults', {
			rules: [{ method: 'POST', route: WORKSPACE_ROUTE, status: 503, retry_after: 0 }],
		});
		assert.equal(fault.status, 200);
		// After the fault: no listing from before it (reused for 2 s) answers the one below.
		await vscode.commands.executeCommand('_cloudAgents.workspace.clearCache');
		let seen = rootEvents.length;
		const host = new URL(vscode.workspace.getConfiguration('cloudAgents').get<string>('apiUrl') ?? '').host;
		await assert.rejects(
			listing(),
			unavailable(new RegExp(`^The Cloud Agents service at ${host.replace(/\./g, '\\.')} is unavailable \\(`)),
		);
		await rootEventAfter(seen, 'the root to be announced as unavailable');
		await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(root)), unavailable(/is unavailable/));

		// The service answers again: nothing here asks, the folder's own retry (2 s) brings it back.
		seen = rootEvents.length;
		await emu('DELETE', '/_emulator/faults');
		await rootEventAfter(seen, 'the root to be announced when the service answers again');
		assert.equal((await vscode.workspace.fs.stat(root)).type, vscode.FileType.Directory);
		assert.ok((await listing()).includes('README.md'));
	});
});
