import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import {
	ALL_VIEW_IDS,
	AUTH_PROVIDER_ID,
	COLLAPSE_ALL_VIEWS,
	COMMAND_IDS,
	DOCUMENT_SCHEMES,
	FILE_SYSTEM_SCHEMES,
	FS_SCHEME,
	IMAGE_SCHEME,
	RECORD_SCHEME,
	TAB_SCHEMES,
	TEST_HARNESS_ENV,
	TOOL_NAMES,
	WEBVIEW_TYPES,
} from '../../../src/ids';
import { type Body, Shell, activateShell } from '../../../src/shell/standIns';
import * as fake from '../support/vscodeFake';
import { until } from '../support/until';

/**
 * src/shell/standIns.ts: activation registers a stand-in for everything VS Code may call and
 * starts nothing; the first call (or the idle moment after activation) starts the body once, which
 * hands its providers to the stand-ins. On the `vscode` fake, with a body made here.
 */
suite('shell/standIns', () => {
	let context: vscode.ExtensionContext;
	let starts: number;
	let reported: string[];

	setup(() => {
		starts = 0;
		reported = [];
		context = {
			subscriptions: [] as vscode.Disposable[],
			extensionMode: fake.ExtensionMode.Production,
		} as unknown as vscode.ExtensionContext;
		fake.answer('window.createTreeView', (id: string, options: unknown) => ({ id, options, visible: false, dispose: () => undefined }));
	});
	teardown(() => {
		for (const d of context.subscriptions.splice(0).reverse()) {
			d.dispose();
		}
	});

	/** A body: registers `commands` (each answers `real <id> <args>`), and hands `providers` to the shell. */
	function bodyWith(
		commands: readonly string[],
		providers: (shell: Shell) => vscode.Disposable[] = () => [],
		extra: Partial<Body> = {},
	): () => (ctx: vscode.ExtensionContext, shell: Shell) => Body {
		return () => (_ctx, shell) => {
			starts++;
			for (const d of [
				...commands.map((id) => vscode.commands.registerCommand(id, (...args: unknown[]) => `real ${id} ${JSON.stringify(args)}`)),
				...providers(shell),
			]) {
				context.subscriptions.push(d);
			}
			return {
				restorePanel: async () => undefined,
				tools: { invoke: async () => new vscode.LanguageModelToolResult([]), prepare: async () => undefined },
				testApi: { session: 'the session' },
				clientLoaded: false,
				...extra,
			};
		};
	}

	/** The arguments of the first call of `name` (as the test knows them to be). */
	const first = <T>(name: string): T => fake.calls(name)[0] as unknown as T;

	const make = (load: () => (ctx: vscode.ExtensionContext, shell: Shell) => Body): Shell =>
		new Shell(context, load, (m) => reported.push(m));

	test('activation registers a stand-in for every command, view, scheme, panel type, tool and the Accounts menu, and starts nothing', () => {
		const shell = make(bodyWith([]));
		assert.equal(starts, 0);
		assert.equal(shell.isLoaded, false);
		assert.ok(COMMAND_IDS.every((id) => fake.registeredCommand(id)));
		const views = fake.calls('window.createTreeView') as Array<[string, { showCollapseAll: boolean }]>;
		assert.deepEqual(
			views.map(([id]) => id),
			[...ALL_VIEW_IDS],
		);
		for (const [id, options] of views) {
			assert.equal(options.showCollapseAll, COLLAPSE_ALL_VIEWS.has(id), id);
		}
		const fileSystems = fake.calls('workspace.registerFileSystemProvider') as Array<[string, unknown, unknown]>;
		assert.deepEqual(
			fileSystems.map(([scheme, , options]) => [scheme, options]),
			Object.entries(FILE_SYSTEM_SCHEMES).map(([scheme, o]) => [
				scheme,
				{ isCaseSensitive: o.isCaseSensitive, isReadonly: o.isReadonly },
			]),
		);
		// Copy is offered where the scheme's provider copies, and nowhere else (VS Code reads and writes there).
		assert.deepEqual(
			fileSystems.map(([scheme, provider]) => [scheme, typeof (provider as vscode.FileSystemProvider).copy]),
			Object.entries(FILE_SYSTEM_SCHEMES).map(([scheme, o]) => [scheme, o.copies === true ? 'function' : 'undefined']),
		);
		const documents = fake.calls('workspace.registerTextDocumentContentProvider') as Array<[string]>;
		assert.deepEqual(
			documents.map(([scheme]) => scheme),
			[...DOCUMENT_SCHEMES],
		);
		assert.deepEqual([...fileSystems.map(([s]) => s), ...documents.map(([s]) => s)].sort(), [...TAB_SCHEMES].sort());
		assert.deepEqual(
			fake.calls('window.registerWebviewPanelSerializer').map(([type]) => type),
			Object.values(WEBVIEW_TYPES),
		);
		assert.deepEqual(
			fake.calls('lm.registerTool').map(([name]) => name),
			[...TOOL_NAMES],
		);
		assert.deepEqual(
			fake.calls('authentication.registerAuthenticationProvider').map(([id, label, , options]) => [id, label, options]),
			[[AUTH_PROVIDER_ID, 'Cloud Agents', { supportsMultipleAccounts: false }]],
		);
		assert.deepEqual(fake.calls('window.createOutputChannel'), [['Cloud Agents', { log: true }]]);
		assert.equal(starts, 0, 'registering started nothing');
	});

	test("a command's stand-in starts the body once; the body's command runs with the same arguments, and the stand-ins are gone", async () => {
		const [a, b] = [COMMAND_IDS[0], COMMAND_IDS[1]];
		make(bodyWith(COMMAND_IDS));
		const row = { id: 'row' };
		assert.equal(await fake.registeredCommand(a)!(row, 2), `real ${a} ${JSON.stringify([row, 2])}`);
		assert.equal(starts, 1);
		assert.equal(await vscode.commands.executeCommand(b), `real ${b} []`);
		assert.equal(starts, 1, 'started once');
	});

	test("a view's first call starts the body; the view is the one created at activation, drawn by the body's provider, whose changes reach VS Code", async () => {
		const viewId = ALL_VIEW_IDS[0];
		const changes = new vscode.EventEmitter<unknown>();
		let view: unknown;
		make(
			bodyWith([], (shell) => {
				view = shell.treeView(
					viewId,
					{
						getTreeItem: (e: string) => new vscode.TreeItem(e),
						getChildren: () => ['a', 'b'],
						onDidChangeTreeData: changes.event,
					},
					{ showCollapseAll: COLLAPSE_ALL_VIEWS.has(viewId) },
				);
				return [];
			}),
		);
		const [, options] = first<[string, { treeDataProvider: vscode.TreeDataProvider<unknown> }]>('window.createTreeView');
		const standIn = options.treeDataProvider;
		const told: unknown[] = [];
		standIn.onDidChangeTreeData!((e) => told.push(e));
		assert.equal(starts, 0);
		assert.deepEqual(await standIn.getChildren(), ['a', 'b']);
		assert.equal(starts, 1);
		assert.equal((view as { id: string }).id, viewId, 'the view created at activation');
		assert.equal((await standIn.getTreeItem('a')).label, 'a');
		changes.fire('a');
		assert.deepEqual(told, ['a']);
		// A provider without the optional members: the item as it is, no parent.
		const item = new vscode.TreeItem('x');
		assert.equal(await standIn.resolveTreeItem!(item, 'a', new vscode.CancellationTokenSource().token), item);
		assert.equal(await standIn.getParent!('a'), undefined);
	});

	test('a file system call starts the body and goes to its provider; its change events pass on; once the body lets go, calls fail as Unavailable', async () => {
		const files = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
		const read: string[] = [];
		let registration: vscode.Disposable | undefined;
		make(
			bodyWith([], (shell) => {
				registration = shell.fileSystem(
					FS_SCHEME,
					{
						onDidChangeFile: files.event,
						readFile: (uri: vscode.Uri) => (read.push(uri.toString()), new Uint8Array([1, 2])),
						copy: (from: vscode.Uri, to: vscode.Uri) => void read.push(`copy ${from.path} ${to.path}`),
					} as unknown as vscode.FileSystemProvider,
					FILE_SYSTEM_SCHEMES[FS_SCHEME]!,
				);
				return [registration];
			}),
		);
		const [, standIn] = first<[string, vscode.FileSystemProvider]>('workspace.registerFileSystemProvider');
		const events: unknown[] = [];
		standIn.onDidChangeFile((e) => events.push(e));
		const uri = vscode.Uri.parse('cloud-agent://a1/x.txt');
		assert.deepEqual(await standIn.readFile(uri), new Uint8Array([1, 2]));
		assert.deepEqual(read, [uri.toString()]);
		await standIn.copy!(uri, vscode.Uri.parse('cloud-agent://a1/y.txt'), { overwrite: false });
		assert.deepEqual(read, [uri.toString(), 'copy /x.txt /y.txt']);
		files.fire([{ type: vscode.FileChangeType.Changed, uri }]);
		assert.equal(events.length, 1);
		registration!.dispose();
		assert.throws(() => standIn.readFile(uri), /Unavailable/);
	});

	test('a document, the Accounts menu, a restored panel and a tool call each start the body and reach it', async () => {
		const restored: unknown[] = [];
		const invoked: string[] = [];
		const contents = new vscode.EventEmitter<vscode.Uri>();
		make(
			bodyWith(
				[],
				(shell) => [
					shell.textDocuments(RECORD_SCHEME, {
						provideTextDocumentContent: (uri) => `record ${uri.path}`,
						onDidChange: contents.event,
					}),
					shell.authentication(AUTH_PROVIDER_ID, 'Cloud Agents', {
						onDidChangeSessions: new vscode.EventEmitter<never>().event,
						getSessions: async () => [{ id: 's1' } as vscode.AuthenticationSession],
						createSession: async () => ({ id: 's2' }) as vscode.AuthenticationSession,
						removeSession: async () => undefined,
					}),
				],
				{
					restorePanel: async (viewType, _panel, state) => void restored.push([viewType, state]),
					tools: {
						invoke: async (name) => (invoked.push(name), new vscode.LanguageModelToolResult([])),
						prepare: async () => undefined,
					},
				},
			),
		);
		const documents = fake.calls('workspace.registerTextDocumentContentProvider') as Array<
			[string, vscode.TextDocumentContentProvider]
		>;
		const records = documents.find(([scheme]) => scheme === RECORD_SCHEME)![1];
		const token = new vscode.CancellationTokenSource().token;
		assert.equal(await records.provideTextDocumentContent(vscode.Uri.parse(`${RECORD_SCHEME}:/run.md`), token), 'record /run.md');
		const changed: string[] = [];
		records.onDidChange!((uri) => changed.push(uri.path));
		contents.fire(vscode.Uri.parse(`${RECORD_SCHEME}:/run.md`));
		assert.deepEqual(changed, ['/run.md']);
		// The empty scheme was handed nothing by this body: an empty document, not a failure.
		const empty = documents.find(([scheme]) => scheme !== RECORD_SCHEME)![1];
		assert.equal(await empty.provideTextDocumentContent(vscode.Uri.parse('x:/y'), token), '');
		const [, , accounts] = first<[string, string, vscode.AuthenticationProvider]>('authentication.registerAuthenticationProvider');
		assert.deepEqual(await accounts.getSessions(undefined, {}), [{ id: 's1' }]);
		assert.deepEqual(await accounts.createSession([], {}), { id: 's2' });
		const [type, serializer] = first<[string, vscode.WebviewPanelSerializer]>('window.registerWebviewPanelSerializer');
		await serializer.deserializeWebviewPanel({} as vscode.WebviewPanel, { range: '7d' });
		assert.deepEqual(restored, [[type, { range: '7d' }]]);
		const [name, tool] = first<[string, vscode.LanguageModelTool<unknown>]>('lm.registerTool');
		await tool.invoke({ input: {} } as vscode.LanguageModelToolInvocationOptions<unknown>, token);
		assert.deepEqual(invoked, [name]);
		assert.equal(starts, 1, 'one body for all of them');
	});

	test('with nothing called, the body starts in the first idle moment after activation', async () => {
		const shell = make(bodyWith(COMMAND_IDS));
		shell.loadWhenIdle();
		assert.equal(shell.isLoaded, false, 'not within activate()');
		await until(() => shell.isLoaded, 'the body started');
		assert.equal(starts, 1);
		assert.deepEqual(shell.facts(), { bodyLoaded: true, clientLoaded: false });
	});

	test('a body that cannot start: said once and logged, the stand-ins come back, and later calls fail alike without starting it again', async () => {
		let attempts = 0;
		const shell = make(() => {
			attempts++;
			throw new Error('dist/main.js is missing');
		});
		const id = COMMAND_IDS[0];
		assert.equal(await fake.registeredCommand(id)!(), undefined);
		assert.deepEqual(reported, ['Cloud Agents could not start: dist/main.js is missing. Reload the window to try again.']);
		assert.ok(fake.channels.get('Cloud Agents')!.lines.some((l) => l.includes('Starting Cloud Agents failed')));
		assert.ok(fake.registeredCommand(id), 'the stand-in is back');
		assert.throws(() => shell.load(), /dist\/main\.js is missing/);
		const [, standIn] = first<[string, vscode.FileSystemProvider]>('workspace.registerFileSystemProvider');
		assert.throws(() => standIn.stat(vscode.Uri.parse('cloud-agent://a/x')), /dist\/main\.js is missing/);
		assert.equal(attempts, 1);
		assert.equal(reported.length, 1);
	});

	test('the body is refused what activation did not register as asked: an unknown view, a view drawn otherwise, an unknown scheme, a file system registered otherwise', () => {
		const shell = make(bodyWith([]));
		const rows = { getTreeItem: (e: string) => new vscode.TreeItem(e), getChildren: () => [] };
		assert.throws(() => shell.treeView('cloudAgents.nope', rows, { showCollapseAll: false }), /No view cloudAgents\.nope/);
		const collapsing = [...COLLAPSE_ALL_VIEWS][0]!;
		assert.throws(() => shell.treeView(collapsing, rows, { showCollapseAll: false }), /COLLAPSE_ALL_VIEWS/);
		const fs = {} as vscode.FileSystemProvider;
		assert.throws(() => shell.fileSystem('nope', fs, {}), /FILE_SYSTEM_SCHEMES/);
		assert.throws(() => shell.fileSystem(IMAGE_SCHEME, fs, { isCaseSensitive: true }), /FILE_SYSTEM_SCHEMES/);
		// A provider that copies where activation's stand-in offers no copy, and one that does not where it does.
		const copying = { copy: () => undefined } as unknown as vscode.FileSystemProvider;
		assert.throws(() => shell.fileSystem(IMAGE_SCHEME, copying, FILE_SYSTEM_SCHEMES[IMAGE_SCHEME]!), /FILE_SYSTEM_SCHEMES/);
		assert.throws(() => shell.fileSystem(FS_SCHEME, fs, FILE_SYSTEM_SCHEMES[FS_SCHEME]!), /FILE_SYSTEM_SCHEMES/);
		assert.throws(() => shell.textDocuments('nope', { provideTextDocumentContent: () => '' }), /DOCUMENT_SCHEMES/);
		assert.throws(() => shell.authentication('other', 'Other', {} as vscode.AuthenticationProvider), /not registered/);
	});

	suite('what activate() returns', () => {
		let saved: string | undefined;
		setup(() => {
			saved = process.env[TEST_HARNESS_ENV];
			delete process.env[TEST_HARNESS_ENV];
		});
		teardown(() => {
			if (saved === undefined) {
				delete process.env[TEST_HARNESS_ENV];
			} else {
				process.env[TEST_HARNESS_ENV] = saved;
			}
		});

		test('nothing in production without the harness; in development, members that start the body when read, and the facts of activation', async () => {
			assert.equal(activateShell(context, bodyWith([])), undefined);
			for (const d of context.subscriptions.splice(0)) {
				d.dispose();
			}
			(context as { extensionMode: number }).extensionMode = fake.ExtensionMode.Development;
			const api = activateShell(context, bodyWith([])) as { activation: unknown; session: unknown; then?: unknown };
			assert.deepEqual(api.activation, { bodyLoaded: false, clientLoaded: false });
			// A promise resolved with it reads `then`: no member, and no reason to start the body.
			assert.equal(await Promise.resolve(api).then(() => starts), 0);
			assert.equal(api.session, 'the session');
			assert.equal(starts, 1);
		});

		test('under the harness in production too', () => {
			process.env[TEST_HARNESS_ENV] = '/tmp/report.json';
			const api = activateShell(context, bodyWith([])) as { activation: unknown };
			assert.deepEqual(api.activation, { bodyLoaded: false, clientLoaded: false });
		});
	});
});
