import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { LazyFeatures, type LoadedFeatures } from '../../../src/shell/lazy';
import { encodeAgentAuthority } from '../../../src/workspace/fs/agentUri';
import { LazyFileSystemProvider } from '../../../src/workspace/fs/lazyProvider';
import { COMMAND_IDS, FS_SCHEME } from '../../../src/ids';
import type { WorkspaceFeature } from '../../../src/workspace/workspaceFeature';
import type { ToolHandlers } from '../../../src/chat/lazyTools';
import type { AuthFlows } from '../../../src/auth/authProvider';
import type { DeploymentSessions } from '../../../src/auth/deploymentSessions';
import { restoreDevToken, seedAgent, testApi } from '../support/cloudAgents';

/** Loaded features of a test: its commands, and nothing behind the rest (these tests do not reach it). */
function loadedWith(disposables: vscode.Disposable[]): LoadedFeatures {
	return {
		disposables,
		restorePanel: async () => undefined,
		openRunResult: async () => undefined,
		workspace: undefined as unknown as WorkspaceFeature,
		chatTools: undefined as unknown as ToolHandlers,
		modelProviders: undefined as unknown as vscode.FileSystemProvider,
		auth: undefined as unknown as AuthFlows,
		deployments: undefined as unknown as DeploymentSessions,
	};
}

/**
 * Commands whose code loads on first use (src/shell/lazy.ts): a stand-in per id until the first
 * invocation, which loads the code once and runs the real command with the same arguments.
 */
suite('Commands loaded on first use', () => {
	const log = { info: (): void => undefined, error: (): void => undefined };
	const ids = ['_cloudAgents.test.lazyA', '_cloudAgents.test.lazyB'];

	test('the first command loads the code once; the real command gets the same arguments and its result goes back', async () => {
		let loads = 0;
		const seen: unknown[][] = [];
		const features = new LazyFeatures(
			ids,
			(): LoadedFeatures => {
				loads++;
				return loadedWith(
					ids.map((id) =>
						vscode.commands.registerCommand(id, (...args: unknown[]) => {
							seen.push(args);
							return `${id}:${args.length}`;
						}),
					),
				);
			},
			log,
		);
		try {
			assert.equal(features.isLoaded, false);
			assert.equal(loads, 0, 'registering the stand-ins loads nothing');
			const stubs = new Set(await vscode.commands.getCommands(false));
			assert.ok(
				ids.every((id) => stubs.has(id)),
				'a stand-in answers for each id',
			);
			const row = { id: 'row-1', nested: { n: 1 } };
			const result = await vscode.commands.executeCommand('_cloudAgents.test.lazyA', row, 7);
			assert.equal(result, '_cloudAgents.test.lazyA:2');
			assert.equal(loads, 1);
			assert.equal(features.isLoaded, true);
			assert.equal(seen[0]![0], row, 'the tree row reaches the real command as the same object');
			assert.equal(seen[0]![1], 7);
			assert.equal(await vscode.commands.executeCommand('_cloudAgents.test.lazyB'), '_cloudAgents.test.lazyB:0');
			assert.equal(loads, 1, 'a second command does not load again');
		} finally {
			features.dispose();
		}
		const left = new Set(await vscode.commands.getCommands(false));
		assert.deepEqual(
			ids.filter((id) => left.has(id)),
			[],
			'disposing removes the real commands',
		);
	});

	test('when loading fails the stand-ins stay, and the next invocation tries again', async () => {
		let attempts = 0;
		const reported: string[] = [];
		const features = new LazyFeatures(
			ids,
			(): LoadedFeatures => {
				attempts++;
				if (attempts === 1) {
					throw new Error('dist/features.js is missing');
				}
				return loadedWith(ids.map((id) => vscode.commands.registerCommand(id, () => 'real')));
			},
			log,
			(message) => reported.push(message),
		);
		try {
			assert.equal(await vscode.commands.executeCommand('_cloudAgents.test.lazyA'), undefined);
			assert.equal(features.isLoaded, false);
			assert.deepEqual(reported, ['Cloud Agents could not load its commands: dist/features.js is missing']);
			const registered = new Set(await vscode.commands.getCommands(false));
			assert.ok(
				ids.every((id) => registered.has(id)),
				'the stand-ins are back',
			);
			assert.equal(await vscode.commands.executeCommand('_cloudAgents.test.lazyA'), 'real');
			assert.equal(attempts, 2);
		} finally {
			features.dispose();
		}
	});

	test('the extension: every contributed command answers before and after its code is loaded', async () => {
		const api = await testApi();
		const before = new Set(await vscode.commands.getCommands(true));
		assert.deepEqual(
			COMMAND_IDS.filter((id) => !before.has(id)),
			[],
		);
		api.features.load();
		assert.equal(api.features.isLoaded, true);
		const after = new Set(await vscode.commands.getCommands(true));
		assert.deepEqual(
			COMMAND_IDS.filter((id) => !after.has(id)),
			[],
			'every stand-in was replaced by a real command',
		);
		assert.ok(
			new Set(await vscode.commands.getCommands(false)).has('_cloudAgents.chat.prepare'),
			"the loaded code's test seam is there",
		);
	});
});

/**
 * The `cloud-agent:` file system is registered at activation as a stand-in (src/workspace/fs/lazyProvider.ts)
 * that loads the workspace feature (with the commands, dist/features.js) on VS Code's first call
 * and hands it every call. Here under a scheme of its own, over a provider that keeps files in a map.
 */
suite('The file system stand-in (lazy): loads on the first call, then forwards', () => {
	const scheme = 'cloud-agents-lazy-test';
	const at = (path: string): vscode.Uri => vscode.Uri.from({ scheme, path });
	const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
	const errors: string[] = [];
	const log = { error: (message: string | Error): void => void errors.push(String(message)) };

	/** A provider over a map (files only, and "/" as the one folder), recording each call. */
	function mapProvider(calls: string[]): vscode.FileSystemProvider & { emitter: vscode.EventEmitter<vscode.FileChangeEvent[]> } {
		const files = new Map<string, Uint8Array>();
		const emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
		const file = (uri: vscode.Uri): Uint8Array => files.get(uri.path) ?? assert.fail(`${uri.path} read before written`);
		return {
			emitter,
			onDidChangeFile: emitter.event,
			watch: (uri) => {
				calls.push(`watch ${uri.path}`);
				return new vscode.Disposable(() => undefined);
			},
			stat: (uri) => {
				calls.push(`stat ${uri.path}`);
				if (uri.path === '/') {
					return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
				}
				const f = files.get(uri.path);
				if (!f) {
					throw vscode.FileSystemError.FileNotFound(uri);
				}
				return { type: vscode.FileType.File, ctime: 0, mtime: 0, size: f.byteLength };
			},
			readDirectory: (uri) => {
				calls.push(`readDirectory ${uri.path}`);
				return [...files.keys()].map((p): [string, vscode.FileType] => [p.slice(1), vscode.FileType.File]);
			},
			createDirectory: (uri) => void calls.push(`createDirectory ${uri.path}`),
			readFile: (uri) => {
				calls.push(`readFile ${uri.path}`);
				return file(uri);
			},
			writeFile: (uri, content, options) => {
				calls.push(
					`writeFile ${uri.path} ${new TextDecoder().decode(content)} create=${options.create} overwrite=${options.overwrite}`,
				);
				files.set(uri.path, content);
			},
			delete: (uri, options) => {
				calls.push(`delete ${uri.path} recursive=${options.recursive}`);
				files.delete(uri.path);
			},
			rename: (from, to, options) => {
				calls.push(`rename ${from.path} ${to.path} overwrite=${options.overwrite}`);
				files.set(to.path, file(from));
				files.delete(from.path);
			},
			copy: (from, to, options) => {
				calls.push(`copy ${from.path} ${to.path} overwrite=${options.overwrite}`);
				files.set(to.path, file(from));
			},
		};
	}

	test('registering loads nothing; the first call loads the provider once and every call reaches it with its arguments', async () => {
		const calls: string[] = [];
		const real = mapProvider(calls);
		let loads = 0;
		const standIn = new LazyFileSystemProvider(
			() => {
				loads++;
				return real;
			},
			log,
			{ copies: true },
		);
		const registration = vscode.workspace.registerFileSystemProvider(scheme, standIn, { isCaseSensitive: true });
		try {
			assert.equal(loads, 0, 'registering loads nothing');
			assert.equal(standIn.isLoaded, false);
			await vscode.workspace.fs.writeFile(at('/a.txt'), bytes('one'));
			assert.equal(loads, 1);
			assert.equal(standIn.isLoaded, true);
			assert.equal(new TextDecoder().decode(await vscode.workspace.fs.readFile(at('/a.txt'))), 'one');
			assert.equal((await vscode.workspace.fs.stat(at('/a.txt'))).size, 3);
			assert.deepEqual(await vscode.workspace.fs.readDirectory(at('/')), [['a.txt', vscode.FileType.File]]);
			await vscode.workspace.fs.copy(at('/a.txt'), at('/b.txt'), { overwrite: false });
			await vscode.workspace.fs.rename(at('/b.txt'), at('/c.txt'), { overwrite: true });
			await vscode.workspace.fs.createDirectory(at('/dir'));
			await vscode.workspace.fs.delete(at('/c.txt'), { recursive: false, useTrash: false });
			const watcher = standIn.watch(at('/'), { recursive: true, excludes: [] });
			watcher.dispose();
			assert.equal(loads, 1, 'loaded once');
			// VS Code adds stats of its own between ours: what matters is that each call arrived as made.
			for (const call of [
				'writeFile /a.txt one create=true overwrite=true',
				'readFile /a.txt',
				'stat /a.txt',
				'readDirectory /',
				'copy /a.txt /b.txt overwrite=false',
				'rename /b.txt /c.txt overwrite=true',
				'createDirectory /dir',
				'delete /c.txt recursive=false',
				'watch /',
			]) {
				assert.ok(calls.includes(call), `${call} did not reach the provider: ${JSON.stringify(calls)}`);
			}
			// The provider's change events come out of the stand-in as they are.
			const seen: vscode.FileChangeEvent[][] = [];
			const sub = standIn.onDidChangeFile((e) => seen.push(e));
			const changes = [{ type: vscode.FileChangeType.Changed, uri: at('/a.txt') }];
			real.emitter.fire(changes);
			sub.dispose();
			assert.deepEqual(seen, [changes]);
			// VS Code's errors of the provider come back as they were thrown.
			await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(at('/missing.txt'))), (err: unknown) => {
				assert.ok(err instanceof vscode.FileSystemError, String(err));
				assert.equal(err.code, 'FileNotFound');
				return true;
			});
		} finally {
			registration.dispose();
			standIn.dispose();
		}
	});

	test('a failed load fails the call as Unavailable and says why in the log; the next call loads again', async () => {
		const calls: string[] = [];
		let attempts = 0;
		errors.length = 0;
		const standIn = new LazyFileSystemProvider(() => {
			attempts++;
			if (attempts === 1) {
				throw new Error('dist/features.js is missing');
			}
			return mapProvider(calls);
		}, log);
		const registration = vscode.workspace.registerFileSystemProvider(scheme, standIn, { isCaseSensitive: true });
		try {
			await assert.rejects(Promise.resolve(vscode.workspace.fs.stat(at('/'))), (err: unknown) => {
				assert.ok(err instanceof vscode.FileSystemError, String(err));
				assert.equal(err.code, 'Unavailable');
				assert.match(err.message, /could not load its agent workspace file system: dist\/features\.js is missing/);
				return true;
			});
			assert.equal(standIn.isLoaded, false);
			assert.ok(
				errors.some((e) => e.includes('Loading the agent workspace file system failed')),
				JSON.stringify(errors),
			);
			assert.equal((await vscode.workspace.fs.stat(at('/'))).type, vscode.FileType.Directory);
			assert.equal(attempts, 2);
			assert.ok(standIn.isLoaded);
		} finally {
			registration.dispose();
			standIn.dispose();
		}
	});

	test('the extension: its cloud-agent: file system answers through the stand-in, from the workspace feature of the loaded commands', async function () {
		this.timeout(30_000);
		const api = await testApi();
		await restoreDevToken();
		const agent = await seedAgent('Refactor billing module');
		const root = vscode.Uri.from({ scheme: FS_SCHEME, authority: encodeAgentAuthority(agent.id), path: '/' });
		assert.equal((await vscode.workspace.fs.stat(root)).type, vscode.FileType.Directory);
		assert.equal(api.features.isLoaded, true, "the file system's first call loaded the features");
	});
});
