import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { savingsFeature } from '../../../src/flows/savings';
import { registerFlows } from '../../../src/views/registry';
import type { Services } from '../../../src/views/actions';
import { DEV_TOKEN, type TestEmulator, startWorkspaceEmulator } from '../support/emulator';
import { collected } from '../support/leaks';
import * as fake from '../support/vscodeFake';

/**
 * src/flows/savings.ts: the token-savings commands as registered on the `vscode` fake, reading the
 * emulator's demo savings through a real client; the CSV goes to the fake's in-memory file system.
 */
suite('flows/savings', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let disposables: vscode.Disposable[];
	let shownRecords: Array<[vscode.Uri, string]>;
	suiteSetup(async () => {
		({ emu, client } = await startWorkspaceEmulator());
	});
	suiteTeardown(async () => {
		client?.close();
		await emu?.close();
	});
	setup(() => {
		shownRecords = [];
		const deps = {
			session: { client, signedIn: true, apiUrl: emu.url },
			log: {
				error: (m: string, ...a: unknown[]) => void collected.push(m, ...a.map(String)),
				info: (m: string) => void collected.push(m),
				warn: (m: string) => void collected.push(m),
			},
			context: { extensionUri: vscode.Uri.file('/ext') },
			records: {
				show: async (uri: vscode.Uri, text: string) => {
					shownRecords.push([uri, text]);
					return undefined;
				},
			},
		} as unknown as Services;
		// As the shell registers them (src/shell/features.ts).
		const feature = savingsFeature(deps);
		disposables = [...feature.disposables, ...registerFlows(feature.commands, deps.log, { onUnauthorized: deps.onUnauthorized })];
	});
	teardown(() => {
		for (const d of disposables) {
			d.dispose();
		}
	});

	const run = (id: string, arg?: unknown): Promise<unknown> => Promise.resolve(fake.registeredCommand(id)!(arg));
	const errors = (): string[] => fake.calls('window.showErrorMessage').map((c) => c[0] as string);

	test('automation export: the events as CSV written whole to the target (through a .part file), the status says how many and where', async () => {
		const target = vscode.Uri.file('/out/savings.csv');
		const status = (await run('cloudAgents.savings.exportCsv', { automation: true, target: target.fsPath })) as string;
		const bytes = fake.memoryFiles.get(target.toString());
		assert.ok(bytes, `nothing written: ${errors().join(' | ')}`);
		assert.equal(fake.memoryFiles.has(`${target.toString()}.part`), false);
		const lines = new TextDecoder().decode(bytes).trimEnd().split(/\r?\n/);
		const rows = lines.length - 1;
		assert.ok(rows > 0, 'the demo seed has savings events');
		assert.equal(status, `Exported ${rows.toLocaleString()} events to ${target.fsPath}.`);
		assert.deepEqual(fake.calls('window.showInformationMessage')[0], [status]);
	});

	test('automation export refuses a range it does not know and a target that is not a file URI or an absolute path', async () => {
		assert.equal(await run('cloudAgents.savings.exportCsv', { automation: true, range: 'forever', target: '/out/x.csv' }), undefined);
		assert.equal(await run('cloudAgents.savings.exportCsv', { automation: true, target: 'relative/x.csv' }), undefined);
		const shown = errors();
		assert.equal(shown.length, 2);
		assert.match(shown[0]!, /range: one of /);
		assert.match(shown[1]!, /target: a file URI or an absolute path/);
		assert.equal(fake.memoryFiles.size, 0);
	});

	test('a failed export leaves no file and no .part behind', async () => {
		await emu.faults([{ method: 'GET', route: '/v2/token-savings', status: 400 }]);
		try {
			const target = vscode.Uri.file('/out/failed.csv');
			fake.memoryFiles.set(target.toString(), new TextEncoder().encode('old export'));
			await run('cloudAgents.savings.exportCsv', { automation: true, target });
			assert.equal(errors().length, 1);
			assert.equal(new TextDecoder().decode(fake.memoryFiles.get(target.toString())), 'old export', 'the old file stays');
			assert.equal(fake.memoryFiles.has(`${target.toString()}.part`), false);
		} finally {
			await emu.faults([]);
		}
	});

	test('a person picks the range, then where to save; dismissing either writes nothing', async () => {
		assert.equal(await run('cloudAgents.savings.exportCsv'), undefined);
		const [items] = fake.calls('window.showQuickPick')[0] as [Array<{ range: string }>];
		assert.ok(items.length > 1);
		fake.answer('window.showQuickPick', async (list: Array<{ range: string }>) => list[0]);
		assert.equal(await run('cloudAgents.savings.exportCsv'), undefined);
		const [options] = fake.calls('window.showSaveDialog')[0] as [{ filters: Record<string, string[]> }];
		assert.deepEqual(Object.values(options.filters), [['csv']]);
		assert.equal(fake.memoryFiles.size, 0);
	});

	test('the summary: account totals and every runtime, as a read-only JSON record', async () => {
		await run('cloudAgents.savings.showSummary');
		assert.equal(shownRecords.length, 1, errors().join(' | '));
		const [, text] = shownRecords[0]!;
		const record = JSON.parse(text) as { account_totals: unknown; runtimes: Array<{ runtime_id: string }>; read_at: string };
		assert.ok(record.account_totals !== undefined);
		assert.ok(Array.isArray(record.runtimes) && record.runtimes.length > 0);
		assert.ok(!Number.isNaN(Date.parse(record.read_at)));
		assert.ok(!text.includes(DEV_TOKEN));
	});
});
