import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../../src/api';
import { describeError } from '../../../../src/messages/errors';
import { loadRuntimeSummaries, loadSavings, type SavingsFilter } from '../../../../src/webviews/savings/data';
import type { SavingsModel } from '../../../../src/webviews/savings/protocol';
import { SavingsPanel, rangeLabel, savingsModel, savingsTitle, type SavingsPanelHost } from '../../../../src/webviews/savings/savingsPanel';
import { startWorkspaceEmulator, type TestEmulator } from '../../support/emulator';
import * as fake from '../../support/vscodeFake';
import { FakeWebviewPanel, fakeLog, fakePanels, until } from '../fakePanel';

/** src/webviews/savings/savingsPanel.ts: the Token Savings panel against the emulator's demo savings (the page's messages sent by the test). */
suite('webviews/savings/savingsPanel', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let panels: FakeWebviewPanel[];
	let log: ReturnType<typeof fakeLog>;
	let exports: SavingsFilter[];
	let exportAnswer: string | undefined;
	let host: SavingsPanelHost;
	let runtimes: Array<{ id: string; name: string }>;

	suiteSetup(async () => {
		({ emu, client } = await startWorkspaceEmulator());
		runtimes = (await client.listRuntimes({ limit: 100 })).items.map((r) => ({ id: r.id, name: r.display_name }));
	});
	suiteTeardown(async () => {
		await emu.close();
	});
	setup(async () => {
		await emu.admin('DELETE', '/faults');
		panels = fakePanels();
		log = fakeLog();
		exports = [];
		exportAnswer = 'Saved 12 events to /tmp/x.csv';
		host = {
			extensionUri: vscode.Uri.file('/ext'),
			log,
			client: () => client,
			exportCsv: async (filter) => (exports.push(filter), exportAnswer),
		};
	});
	teardown(async () => {
		await emu.admin('DELETE', '/faults');
	});

	const runtimeId = (name: string): string => runtimes.find((r) => r.name === name)!.id;
	const posted = (raw: FakeWebviewPanel, type: string): unknown[] => raw.posted.filter((m) => (m as { type: string }).type === type);
	const dataOf = (raw: FakeWebviewPanel): SavingsModel[] => posted(raw, 'data').map((m) => (m as { model: SavingsModel }).model);
	const ready = async (raw: FakeWebviewPanel, datas = 1): Promise<void> => {
		raw.send({ type: 'ready' });
		await until(() => dataOf(raw).length >= datas);
	};

	test('create: the panel titled, its page and styles; ranges named', () => {
		SavingsPanel.create(host);
		const raw = panels[0]!;
		assert.equal(raw.viewType, 'cloudAgents.savings');
		assert.equal(raw.title, savingsTitle());
		assert.ok(raw.webview.html.includes('dist/webviews/savings.js'));
		assert.ok(raw.webview.html.includes('media/webviews/savings.css'));
		assert.ok(raw.webview.html.includes(`<option value="24h">${rangeLabel('24h')}</option>`));
		assert.equal(rangeLabel('all'), 'All time');
	});

	test('several deployments (issue 47): the title names the deployment the host gives; none with one', () => {
		SavingsPanel.create({ ...host, deploymentName: () => undefined });
		SavingsPanel.create({ ...host, deploymentName: () => 'api.example.test' });
		assert.deepEqual(
			panels.map((p) => p.title),
			['Token Savings', 'Token Savings (api.example.test)'],
		);
		const restored = new FakeWebviewPanel('cloudAgents.savings', 'x');
		SavingsPanel.restore(
			restored as unknown as vscode.WebviewPanel,
			{ ...host, deploymentName: () => 'api.example.test' },
			{ range: '7d', runtimeId: '' },
		);
		assert.equal(restored.title, 'Token Savings (api.example.test)');
	});

	test('ready: the texts, the runtimes and the filter, then the reading: loading, progress, the data', async () => {
		SavingsPanel.create(host);
		const raw = panels[0]!;
		await ready(raw);
		const types = raw.types();
		assert.equal(types[0], 'init');
		assert.equal(types[1], 'loading');
		assert.equal(types.at(-1), 'data');
		const init = raw.posted[0] as { runtimes: Array<{ id: string; name: string }>; filter: unknown; strings: Record<string, string> };
		assert.deepEqual(init.runtimes, runtimes);
		assert.deepEqual(init.filter, { range: '7d', runtimeId: '' });
		assert.equal(init.strings.cancelled, 'Reading was cancelled; Refresh reads again.');
		const model = dataOf(raw)[0]!;
		assert.deepEqual(model.filter, { range: '7d', runtimeId: '' });
		assert.ok(model.range.events > 0, JSON.stringify(model.range));
		assert.ok(model.account && (model.account.events ?? 0) >= model.range.events);
		// Runtime rows by tokens saved in range, named as the Runtimes view names them.
		const tokens = model.runtimes.map((r) => r.inRange.tokens);
		assert.deepEqual(
			tokens,
			[...tokens].sort((a, b) => b - a),
		);
		assert.ok(model.runtimes.every((r) => runtimes.some((x) => x.name === r.name)));
	});

	test('a filter for a runtime offered: read for that runtime only; for one not offered: dropped, nothing read', async () => {
		SavingsPanel.create(host);
		const raw = panels[0]!;
		await ready(raw);
		const atlas = runtimeId('atlas-dev');
		raw.send({ type: 'setFilter', range: '30d', runtimeId: atlas });
		await until(() => dataOf(raw).length === 2);
		const model = dataOf(raw)[1]!;
		assert.deepEqual(model.filter, { range: '30d', runtimeId: atlas });
		assert.ok(
			model.recent.every((r) => r.runtime === 'atlas-dev'),
			JSON.stringify(model.recent.slice(0, 3)),
		);
		const before = raw.posted.length;
		raw.send({ type: 'setFilter', range: '30d', runtimeId: 'rt_not_offered' });
		await until(() => log.lines.length > 0);
		assert.deepEqual(log.lines, ['[warn] webview savings: dropped a filter naming a runtime the panel did not offer']);
		assert.equal(raw.posted.length, before);
	});

	test('restored with a filter naming a runtime that is gone: the filter falls back to every runtime', async () => {
		const raw = new FakeWebviewPanel('cloudAgents.savings', 'old');
		SavingsPanel.restore(raw as unknown as vscode.WebviewPanel, host, { range: '24h', runtimeId: 'rt_gone' });
		assert.equal(raw.title, 'Token Savings');
		await ready(raw);
		assert.deepEqual((raw.posted[0] as { filter: unknown }).filter, { range: '24h', runtimeId: '' });
		assert.deepEqual(dataOf(raw)[0]!.filter, { range: '24h', runtimeId: '' });
	});

	test('Export CSV: the current filter handed to the host; its status posted; dismissed posts nothing', async () => {
		SavingsPanel.create(host, { range: '90d', runtimeId: '' });
		const raw = panels[0]!;
		raw.send({ type: 'exportCsv' });
		await until(() => posted(raw, 'exported').length === 1);
		assert.deepEqual(exports, [{ range: '90d', runtimeId: undefined }]);
		assert.deepEqual(posted(raw, 'exported'), [{ type: 'exported', message: 'Saved 12 events to /tmp/x.csv' }]);
		exportAnswer = undefined;
		raw.send({ type: 'exportCsv' });
		await until(() => exports.length === 2);
		assert.equal(posted(raw, 'exported').length, 1);
	});

	test("a failed reading: the page told why, with the service's request id", async () => {
		await emu.faults([{ method: 'GET', route: '/v2/token-savings', status: 403 }]);
		SavingsPanel.create(host);
		const raw = panels[0]!;
		raw.send({ type: 'ready' });
		await until(() => posted(raw, 'error').length === 1);
		const { message } = posted(raw, 'error')[0] as { message: string };
		assert.match(message, /^Could not read the token savings: .*\(request [^)]+\)$/);
		assert.match(log.lines.at(-1)!, /^\[error\] webview savings: reading failed:/);
	});

	test('signed out (401): the page told to sign in, not an error; a session change reads everything again', async () => {
		await emu.faults([{ method: 'GET', route: '/v2/token-savings', status: 401 }]);
		SavingsPanel.create(host);
		const raw = panels[0]!;
		raw.send({ type: 'ready' });
		await until(() => posted(raw, 'signedOut').length === 1);
		assert.equal(
			(posted(raw, 'signedOut')[0] as { message: string }).message,
			'Sign in to Cloud Agents to see the token savings: the panel reads them again once you have.',
		);
		assert.match(log.lines.at(-1)!, /^\[warn\] webview savings: not signed in:/);
		await emu.admin('DELETE', '/faults');
		fake.fire.sessions.fire({ provider: { id: 'github' } });
		fake.fire.sessions.fire({ provider: { id: 'cloudAgents' } });
		await until(() => dataOf(raw).length === 1);
		assert.equal(posted(raw, 'init').length, 2, 'started again once, for our provider only');
	});

	test('Cancel while reading: the reading stops and the page says Refresh reads again', async () => {
		await emu.faults([{ method: 'GET', route: '/v2/token-savings', hold: true }]);
		SavingsPanel.create(host);
		const raw = panels[0]!;
		raw.send({ type: 'ready' });
		await until(() => posted(raw, 'loading').length === 1);
		raw.send({ type: 'cancel' });
		await until(() => posted(raw, 'error').length === 1);
		assert.deepEqual(posted(raw, 'error')[0], { type: 'error', message: 'Reading was cancelled; Refresh reads again.' });
		assert.equal(dataOf(raw).length, 0);
	});

	test('closing the panel while reading: nothing posted after', async () => {
		await emu.faults([{ method: 'GET', route: '/v2/token-savings', hold: true }]);
		const panel = SavingsPanel.create(host);
		const raw = panels[0]!;
		raw.send({ type: 'ready' });
		await until(() => posted(raw, 'loading').length === 1);
		raw.dispose();
		assert.equal(raw.disposed, true);
		const count = raw.posted.length;
		await emu.admin('DELETE', '/faults');
		await panel.refresh();
		assert.equal(raw.posted.length, count);
	});

	test('savingsModel: names from the runtimes list, times in seconds, notes for a capped, stopped or partial reading', async () => {
		const refs = runtimes.map((r) => ({ ...r, name: `${r.name}!` }));
		const data = await loadSavings(client, { range: 'all' });
		const summaries = await loadRuntimeSummaries(client, refs, describeError);
		const model = savingsModel(data, summaries, refs);
		assert.deepEqual(
			model.series.t,
			data.aggregate.series.t.map((ms) => ms / 1000),
		);
		assert.ok(model.runtimes.length > 0);
		assert.ok(model.runtimes.every((r) => r.name.endsWith('!')));
		assert.ok(model.runtimes.some((r) => r.summary !== undefined));
		assert.deepEqual(model.notes, []);
		const odd = savingsModel(
			{
				...data,
				capped: true,
				listingStopped: 'the cursor\nrepeated',
				dropped: 2,
				runtimeFilterIgnored: true,
				aggregate: { ...data.aggregate, malformed: 1 },
			},
			[{ runtimeId: 'rt_x', runtimeName: 'x\ny', error: 'boom', summary: undefined }],
			refs,
		);
		assert.equal(odd.notes.length, 5);
		assert.match(odd.notes[0]!, /^Showing the newest [\d,.\s]+ events/);
		assert.equal(odd.notes[1], "The service's paging stopped early: the cursor repeated", 'on one line');
		assert.match(odd.notes[2]!, /^1 event carried malformed values/);
		assert.equal(odd.notes[3], '2 events could not be read and were left out.');
		const extra = odd.runtimes.find((r) => r.runtimeId === 'rt_x')!;
		assert.equal(extra.name, 'x y');
		assert.equal(extra.summaryError, 'boom');
		assert.deepEqual(extra.inRange, { events: 0, tokens: 0, bytes: 0 });
	});
});
