import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { LazyFeatures, type LoadedFeatures } from '../../../src/commands/lazy';
import { COMMAND_IDS } from '../../../src/ids';
import { testApi } from '../support/cloudAgents';

/**
 * Commands whose code loads on first use (src/commands/lazy.ts): a stand-in per id until the first
 * invocation, which loads the code once and runs the real command with the same arguments.
 */
suite('Commands loaded on first use', () => {
	const log = { info: (): void => undefined, error: (): void => undefined };
	const ids = ['_cloudAgents.test.lazyA', '_cloudAgents.test.lazyB'];
	const viewTypes = ['cloudAgents.test.lazyPanel'];

	test('the first command loads the code once; the real command gets the same arguments and its result goes back', async () => {
		let loads = 0;
		const seen: unknown[][] = [];
		const features = new LazyFeatures(
			ids,
			viewTypes,
			(): LoadedFeatures => {
				loads++;
				return {
					disposables: ids.map((id) =>
						vscode.commands.registerCommand(id, (...args: unknown[]) => {
							seen.push(args);
							return `${id}:${args.length}`;
						}),
					),
					restorePanel: async () => undefined,
					openRunResult: async () => undefined,
					exportSavings: async () => '',
					changesShown: () => undefined,
				};
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
			[],
			(): LoadedFeatures => {
				attempts++;
				if (attempts === 1) {
					throw new Error('dist/features.js is missing');
				}
				return {
					disposables: ids.map((id) => vscode.commands.registerCommand(id, () => 'real')),
					restorePanel: async () => undefined,
					openRunResult: async () => undefined,
					exportSavings: async () => '',
					changesShown: () => undefined,
				};
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
			new Set(await vscode.commands.getCommands(false)).has('_cloudAgents.savings.exportTo'),
			"the loaded code's test seam is there",
		);
	});
});
