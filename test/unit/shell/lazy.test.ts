import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type LoadedFeatures, LazyFeatures } from '../../../src/shell/lazy';
import * as fake from '../support/vscodeFake';

/**
 * src/shell/lazy.ts: stand-in commands on the `vscode` fake, and a
 * `loadCode` made here that registers the real commands as the features' bundle does.
 */
suite('shell/lazy', () => {
	let logged: string[];
	let reported: string[];
	let loads: number;
	let features: LazyFeatures | undefined;
	setup(() => {
		logged = [];
		reported = [];
		loads = 0;
	});
	teardown(() => features?.dispose());

	/** The features' code: registers the real `ids` (each answers `real <id> <args>`). */
	const realCode = (ids: string[]) => (): LoadedFeatures => {
		loads++;
		return {
			disposables: ids.map((id) => vscode.commands.registerCommand(id, (...args: unknown[]) => `real ${id} ${JSON.stringify(args)}`)),
			restorePanel: async () => undefined,
		} as unknown as LoadedFeatures;
	};
	const make = (ids: string[], loadCode: () => LoadedFeatures): LazyFeatures => {
		features = new LazyFeatures(ids, loadCode, { info: (m) => logged.push(m), error: (m) => logged.push(String(m)) }, (m) =>
			reported.push(m),
		);
		return features;
	};

	test('a stand-in per id; nothing loads until one runs, which loads once and runs the real command with the same arguments', async () => {
		const lazy = make(['ext.a', 'ext.b'], realCode(['ext.a', 'ext.b']));
		assert.equal(lazy.isLoaded, false);
		assert.equal(lazy.current, undefined);
		assert.ok(fake.registeredCommand('ext.a') && fake.registeredCommand('ext.b'));
		const row = { id: 'row' };
		assert.equal(await fake.registeredCommand('ext.a')!(row, 2), `real ext.a ${JSON.stringify([row, 2])}`);
		assert.equal(lazy.isLoaded, true);
		assert.equal(await vscode.commands.executeCommand('ext.b'), 'real ext.b []');
		assert.equal(loads, 1);
		assert.match(logged[0]!, /^Loaded the commands' code in \d+\.\d ms$/);
	});

	test('a failed load says so once per attempt, keeps the stand-ins, and a later attempt can succeed', async () => {
		let fail = true;
		const lazy = make(['ext.a'], () => {
			if (fail) {
				throw new Error('bundle missing');
			}
			return realCode(['ext.a'])();
		});
		assert.equal(await fake.registeredCommand('ext.a')!(), undefined);
		assert.deepEqual(reported, ['Cloud Agents could not load its commands: bundle missing']);
		assert.equal(lazy.isLoaded, false);
		assert.ok(fake.registeredCommand('ext.a'), 'the stand-in is back');
		fail = false;
		assert.equal(await fake.registeredCommand('ext.a')!('x'), 'real ext.a ["x"]');
	});

	test('dispose takes away the stand-ins before a load, and the real commands after one', () => {
		const before = make(['ext.a'], realCode(['ext.a']));
		before.dispose();
		assert.equal(fake.registeredCommand('ext.a'), undefined);
		const after = make(['ext.b'], realCode(['ext.b']));
		after.load();
		assert.equal(after.load(), after.current, 'loads once');
		after.dispose();
		assert.equal(fake.registeredCommand('ext.b'), undefined);
		features = undefined;
	});
});
