import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient, EventRecord } from '../../../src/api';
import { CONTEXT_KEYS, SEARCH_HINT_KEY } from '../../../src/ids';
import { workspaceUri } from '../../../src/workspace/fs/workspaceFs';
import { WorkspaceFeature, type WorkspaceRunEvent } from '../../../src/workspace/workspaceFeature';
import type { TestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';
import { testLog, type TestSession, testSession, workspaceEmulatorPerSuite } from './workspaceFeatureDeps';

/**
 * src/workspace/workspaceFeature.ts over a real WorkspaceCache and client of the emulator; the
 * window (folders, editors, notifications, context keys) is the vscode fake.
 */

class MemoryMemento {
	readonly values = new Map<string, unknown>();
	get<T>(key: string): T | undefined {
		return this.values.get(key) as T | undefined;
	}
	async update(key: string, value: unknown): Promise<void> {
		this.values.set(key, value);
	}
	keys(): string[] {
		return [...this.values.keys()];
	}
}

const folder = (uri: vscode.Uri, name: string, index = 0): vscode.WorkspaceFolder => ({ uri, name, index });
/** Resolves once `predicate` holds, checking it after each turn of the event loop. */
function until(predicate: () => boolean): Promise<void> {
	return new Promise((resolve) => {
		const check = (): void => (predicate() ? resolve() : void setImmediate(check));
		check();
	});
}
const isCode = (code: string) => (err: unknown) => err instanceof vscode.FileSystemError && err.code === code;

suite('workspace/workspaceFeature', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let session: TestSession;
	let log: ReturnType<typeof testLog>;
	let feature: WorkspaceFeature | undefined;

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w), { demoEachTest: true });
	setup(() => {
		session = testSession(client, emu.url);
		log = testLog();
	});
	teardown(() => {
		feature?.dispose();
		feature = undefined;
	});

	function start(extra: Partial<ConstructorParameters<typeof WorkspaceFeature>[0]> = {}): WorkspaceFeature {
		feature = new WorkspaceFeature({ session, log, ...extra });
		return feature;
	}

	/** The value the feature last set for the agent-workspace context key. */
	const agentWorkspaceKey = (): unknown =>
		fake
			.calls('commands.executeCommand')
			.filter(([id, key]) => id === 'setContext' && key === CONTEXT_KEYS.agentWorkspace)
			.at(-1)?.[2];

	/** Resolves with the provider's next batch of changes. */
	const nextChanges = (f: WorkspaceFeature): Promise<vscode.FileChangeEvent[]> =>
		new Promise((resolve) => {
			const sub = f.provider.onDidChangeFile((e) => {
				sub.dispose();
				resolve(e);
			});
		});

	suite('the window it is in', () => {
		test('the agent-workspace context key is true only while every folder is an agent workspace', () => {
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'Agent: Billing')];
			start();
			assert.equal(agentWorkspaceKey(), true);
			fake.workspace.workspaceFolders = [
				folder(workspaceUri(agentId), 'Agent: Billing'),
				folder(vscode.Uri.parse('file:///mine'), 'mine', 1),
			];
			fake.fire.folders.fire({ added: [], removed: [] });
			assert.equal(agentWorkspaceKey(), false);
			fake.workspace.workspaceFolders = [];
			fake.fire.folders.fire({ added: [], removed: [] });
			assert.equal(agentWorkspaceKey(), false);
		});

		test("contextAgentId: the active agent editor's agent, else the only agent folder's; undefined when unclear", () => {
			const other = 'a0000000-0000-4000-8000-000000000001.other';
			const f = start();
			assert.equal(f.contextAgentId(), undefined);
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'A'), folder(vscode.Uri.parse('file:///mine'), 'mine', 1)];
			assert.equal(f.contextAgentId(), agentId);
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'A'), folder(workspaceUri(other), 'B', 1)];
			assert.equal(f.contextAgentId(), undefined, 'two agent folders');
			fake.window.activeTextEditor = { document: { uri: workspaceUri(other, 'src/x.ts') } } as never;
			assert.equal(f.contextAgentId(), other);
			fake.window.activeTextEditor = { document: { uri: vscode.Uri.parse('file:///mine/a.ts') } } as never;
			assert.equal(f.contextAgentId(), undefined, 'a local editor says nothing; two agent folders');
		});

		test("uriFor spells the agent's folder as the window has it", () => {
			const spelled = workspaceUri(agentId).with({ authority: workspaceUri(agentId).authority.toUpperCase() });
			fake.workspace.workspaceFolders = [folder(spelled, 'A')];
			assert.equal(start().uriFor(agentId, 'README.md').toString(), spelled.with({ path: '/README.md' }).toString());
		});
	});

	suite('the search hint', () => {
		test('once per machine, when an agent folder opens; its buttons run Go to File and Search Workspace', async () => {
			const state = new MemoryMemento();
			const ran: string[] = [];
			fake.answer('window.showInformationMessage', async (_text: string, goToFile: string) => goToFile);
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'A')];
			start({
				globalState: state as unknown as vscode.Memento,
				searchActions: { goToFile: () => ran.push('goToFile'), search: () => ran.push('search') },
			});
			const [text, ...buttons] = fake.calls('window.showInformationMessage')[0]!;
			assert.match(
				String(text),
				/^VS Code's search cannot read agent files; use Go to File \((Ctrl|Cmd)\+P\) and Search Workspace \(\1\+Shift\+F\) of Cloud Agents\.$/,
			);
			assert.deepEqual(buttons, ['Go to File', 'Search Workspace']);
			assert.equal(state.get(SEARCH_HINT_KEY), true);
			await until(() => ran.length > 0);
			assert.deepEqual(ran, ['goToFile']);
			// Another agent folder, in this window or the next: no hint.
			feature!.dispose();
			start({ globalState: state as unknown as vscode.Memento });
			fake.fire.folders.fire({ added: [folder(workspaceUri(agentId), 'A')], removed: [] });
			assert.equal(fake.calls('window.showInformationMessage').length, 1);
		});

		test('with local folders too, the hint says the keys search only those; no state, no hint', () => {
			const state = new MemoryMemento();
			fake.answer('window.showInformationMessage', async () => undefined);
			start({ globalState: state as unknown as vscode.Memento });
			assert.equal(fake.calls('window.showInformationMessage').length, 0, 'no agent folder yet');
			fake.workspace.workspaceFolders = [folder(vscode.Uri.parse('file:///mine'), 'mine'), folder(workspaceUri(agentId), 'A', 1)];
			fake.fire.folders.fire({ added: [folder(workspaceUri(agentId), 'A', 1)], removed: [] });
			const [text, ...buttons] = fake.calls('window.showInformationMessage')[0]!;
			assert.match(String(text), /in this window (Ctrl|Cmd)\+P and \1\+Shift\+F search only your other folders/);
			assert.deepEqual(buttons, [], 'no buttons without the actions');
			feature!.dispose();
			fake.resetFake();
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'A')];
			start();
			assert.equal(fake.calls('window.showInformationMessage').length, 0);
		});
	});

	suite("followed runs' events", () => {
		function withRuns(): vscode.EventEmitter<WorkspaceRunEvent> {
			const runs = new vscode.EventEmitter<WorkspaceRunEvent>();
			start({ runEvents: runs.event });
			return runs;
		}
		const event = (seq: number, type: string, data: Record<string, unknown>): EventRecord => ({ seq, type, data });

		test('a file.changed event makes the cache forget the file and the file system announce it', async () => {
			const runs = withRuns();
			const f = feature!;
			await f.provider.readFile(workspaceUri(agentId, 'README.md'));
			await client.writeWorkspaceFile(agentId, 'README.md', new TextEncoder().encode('changed by the agent\n'));
			const changes = nextChanges(f);
			runs.fire({ agentId, runId: 'run_1', event: event(1, 'file.changed', { path: 'README.md', change: 'modified' }) });
			assert.deepEqual(
				(await changes).map((c) => [c.type, c.uri.path]),
				[[vscode.FileChangeType.Changed, '/README.md']],
			);
			assert.equal(new TextDecoder().decode(await f.provider.readFile(workspaceUri(agentId, 'README.md'))), 'changed by the agent\n');
		});

		test('a change of an unusable path is logged and ignored', () => {
			const runs = withRuns();
			runs.fire({ agentId, runId: 'run_1', event: event(1, 'file.changed', { path: '../../etc/passwd', change: 'modified' }) });
			assert.equal(log.warnings.length, 1);
			assert.match(log.warnings[0]!, /^Ignored a file change for an unusable path: /);
		});

		test('saving an agent file while a run of the agent is active warns once per file per run; not after it ended', () => {
			const runs = withRuns();
			const doc = { uri: workspaceUri(agentId, 'src/index.ts') };
			const save = (d: { uri: vscode.Uri }): void => fake.fire.willSaveDoc.fire({ document: d });
			save(doc);
			assert.equal(fake.calls('window.showWarningMessage').length, 0, 'no run seen');
			runs.fire({ agentId, runId: 'run_A', event: event(1, 'run.status', { status: 'running' }) });
			save(doc);
			save(doc);
			save({ uri: vscode.Uri.parse('file:///mine/src/index.ts') });
			assert.deepEqual(fake.calls('window.showWarningMessage'), [
				[
					'The agent is running (run_A) and may be editing src/index.ts too. Your save went ahead; if the agent changes the file, VS Code will ask you to compare.',
				],
			]);
			save({ uri: workspaceUri(agentId, 'README.md') });
			assert.equal(fake.calls('window.showWarningMessage').length, 2, 'another file: warned once more');
			runs.fire({ agentId, runId: 'run_A', event: event(2, 'run.completed', { status: 'succeeded' }) });
			save({ uri: workspaceUri(agentId, 'package.json') });
			assert.equal(fake.calls('window.showWarningMessage').length, 2, 'the run ended');
			runs.fire({ agentId, runId: 'run_B', event: event(1, 'log', { text: 'working' }) });
			save(doc);
			assert.equal(fake.calls('window.showWarningMessage').length, 3, 'a new run warns again');
		});
	});

	suite('large files', () => {
		test('a file over the setting asks first; "Open Anyway" reads it and opens it', async () => {
			await client.writeWorkspaceFile(agentId, 'big.bin', new Uint8Array(1536 * 1024).fill(65));
			fake.settings['cloudAgents.workspace.largeFileWarningMb'] = 1;
			let ask: () => void = () => undefined;
			const asked = new Promise<void>((resolve) => (ask = resolve));
			fake.answer('window.showWarningMessage', async (_m: string, _o: unknown, open: string) => {
				ask();
				return open;
			});
			const f = start();
			const uri = workspaceUri(agentId, 'big.bin');
			await f.provider.stat(uri);
			await assert.rejects(f.provider.readFile(uri), isCode('NoPermissions'));
			await asked;
			const [message, options] = fake.calls('window.showWarningMessage')[0]! as [string, { modal: boolean; detail: string }];
			assert.equal(message, 'big.bin is 1.5 MB. Opening it downloads the whole file from the agent workspace.');
			assert.equal(options.modal, true);
			assert.match(options.detail, /cloudAgents\.workspace\.largeFileWarningMb/);
			await until(() => fake.calls('commands.executeCommand').some(([id]) => id === 'vscode.open'));
			const open = fake.calls('commands.executeCommand').find(([id]) => id === 'vscode.open')!;
			assert.equal((open[1] as vscode.Uri).toString(), uri.toString());
			assert.equal((await f.provider.readFile(uri)).byteLength, 1536 * 1024);
		});
	});

	suite('signing in and out', () => {
		test('signing out fails every open agent folder with "signed out" at once; signing in lists them again', async () => {
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'A')];
			const f = start();
			await f.provider.readDirectory(workspaceUri(agentId));
			session.change({ signedIn: false });
			await assert.rejects(
				f.provider.stat(workspaceUri(agentId)),
				(err: unknown) => isCode('Unavailable')(err) && /[Ss]igned out/.test((err as Error).message),
			);
			const changes = nextChanges(f);
			session.change({ signedIn: true });
			assert.ok(
				(await changes).some((c) => c.uri.path === '/'),
				'the root is announced again',
			);
			assert.equal((await f.provider.stat(workspaceUri(agentId))).type, vscode.FileType.Directory);
		});

		test("the session's first reading only records the state: open folders are not listed again", async () => {
			fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'A')];
			session.initialized = false;
			const f = start();
			let changes = nextChanges(f);
			session.change({ initialized: true });
			f.cache.invalidate(agentId, 'x.txt', 'created');
			assert.deepEqual(
				(await changes).map((c) => c.uri.path),
				['/x.txt'],
				'no root change from the first reading',
			);
			// A real change after it does list the folder again.
			changes = nextChanges(f);
			session.change({ apiUrl: `${emu.url}/` });
			assert.ok((await changes).some((c) => c.uri.path === '/'));
		});
	});
});

suite('workspace/workspaceFeature: a server whose workspace interface differs', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let agentId: string;
	let feature: WorkspaceFeature;

	workspaceEmulatorPerSuite((w) => ({ emu, client, agentId } = w), { profile: 'variant-strict' });
	teardown(() => feature.dispose());

	test('one error notice naming the folder, with the request id; Retry lets the next listing ask again', async () => {
		fake.workspace.workspaceFolders = [folder(workspaceUri(agentId), 'Agent: Billing')];
		let retry: () => void = () => undefined;
		const answered = new Promise<void>((resolve) => (retry = resolve));
		fake.answer('window.showErrorMessage', async (_m: string, button: string) => {
			setImmediate(retry);
			return button;
		});
		const log = testLog();
		feature = new WorkspaceFeature({ session: testSession(client, emu.url), log });
		const failed = await feature.provider.readDirectory(workspaceUri(agentId)).then(
			() => undefined,
			(err: unknown) => err,
		);
		assert.ok(isCode('Unavailable')(failed), String(failed));
		await answered;
		const [message, button] = fake.calls('window.showErrorMessage')[0]! as [string, string];
		assert.match(
			message,
			/^Agent workspace "Billing": This server's workspace interface differs: .* \(request [^)]+\)\. Its files are not asked for again until you retry\.$/,
		);
		assert.equal(button, 'Retry');
		assert.equal(log.warnings.length, 1);
		assert.equal(feature.cache.interfaceError(agentId), undefined, 'Retry cleared it');
		// A second failure is a second notice only after the retry.
		await feature.provider.readDirectory(workspaceUri(agentId)).catch(() => undefined);
		await until(() => fake.calls('window.showErrorMessage').length === 2);
	});
});
