import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RECORD_SCHEME } from '../../../src/ids';
import { emu, testApi } from '../support/cloudAgents';
import { devToken } from '../support/env';

interface Totals {
	applied_events?: number;
	saved_wire_bytes?: number;
	saved_estimated_tokens?: number;
	events?: number;
	bytes_saved?: number;
	tokens_saved?: number;
}
interface Summary {
	applied_events: number;
	saved_wire_bytes: number;
	saved_estimated_tokens: number;
	malformed_events: number;
}
interface SummaryRecord {
	account_totals: { applied_events: number; saved_wire_bytes: number; saved_estimated_tokens: number };
	runtimes: Array<{
		runtime: string;
		runtime_id: string;
		applied_events?: number;
		saved_wire_bytes?: number;
		saved_estimated_tokens?: number;
		malformed_events?: number;
		error?: string;
	}>;
}

suite('Token savings', () => {
	suiteSetup(async () => {
		await testApi();
	});

	test("Show Token Savings Summary opens a read-only JSON record of the account totals and every runtime's summary, as the service reports them [variant]", async function () {
		this.timeout(30_000);
		const doc = await vscode.commands.executeCommand<vscode.TextDocument | undefined>('cloudAgents.savings.showSummary');
		assert.ok(doc, 'the command returned the document');
		assert.equal(doc.uri.scheme, RECORD_SCHEME, 'a read-only record, not an untitled document');
		assert.equal(doc.languageId, 'json');
		const record = JSON.parse(doc.getText()) as SummaryRecord;

		const totals = (await emu<{ data: { totals: Totals } }>('GET', '/v2/token-savings?page_size=1', undefined, devToken())).body.data
			.totals;
		assert.deepEqual(record.account_totals, {
			applied_events: totals.applied_events ?? totals.events,
			saved_wire_bytes: totals.saved_wire_bytes ?? totals.bytes_saved,
			saved_estimated_tokens: totals.saved_estimated_tokens ?? totals.tokens_saved,
		});

		const runtimes = (
			await emu<{ data: Array<{ id: string; display_name?: string; name?: string }> }>(
				'GET',
				'/v2/runtimes?limit=100',
				undefined,
				devToken(),
			)
		).body.data;
		assert.deepEqual(record.runtimes.map((r) => r.runtime_id).sort(), runtimes.map((r) => r.id).sort(), 'one row per runtime');
		let applied = 0;
		for (const row of record.runtimes) {
			const summary = (
				await emu<{ summary: Summary }>(
					'GET',
					`/v1/runtimes/${encodeURIComponent(row.runtime_id)}/tokensaver/savings?limit=1`,
					undefined,
					devToken(),
				)
			).body.summary;
			assert.equal(row.error, undefined);
			assert.deepEqual(
				[row.applied_events, row.saved_wire_bytes, row.saved_estimated_tokens, row.malformed_events],
				[summary.applied_events, summary.saved_wire_bytes, summary.saved_estimated_tokens, summary.malformed_events],
				`summary of ${row.runtime}`,
			);
			applied += summary.applied_events;
		}
		assert.equal(applied, record.account_totals.applied_events, "the runtimes' applied events add up to the account's");
		assert.ok(
			record.runtimes.some((r) => (r.malformed_events ?? 0) > 0),
			"the seed's malformed events show",
		);
		await vscode.commands.executeCommand('workbench.action.closeAllEditors');
	});

	test("the CSV export writes every event of the filter, one row each, with the service's sums [variant]", async function () {
		this.timeout(30_000);
		const dir = await mkdtemp(join(tmpdir(), 'savings-csv-'));
		try {
			const target = vscode.Uri.file(join(dir, 'savings.csv'));
			const status = await vscode.commands.executeCommand<string>('cloudAgents.savings.exportCsv', {
				automation: true,
				range: 'all',
				target,
			});
			const text = await readFile(target.fsPath, 'utf8');
			const lines = text.split('\r\n').filter(Boolean);
			assert.equal(
				lines[0],
				'"observed_at","event_id","id","runtime_name","runtime_id","methods","saved_estimated_tokens","saved_wire_bytes"',
			);
			const totals = (await emu<{ data: { totals: Totals } }>('GET', '/v2/token-savings?page_size=1', undefined, devToken())).body
				.data.totals;
			const events = totals.applied_events ?? totals.events ?? -1;
			assert.equal(lines.length - 1, events, 'one row per event');
			const tokens = lines.slice(1).reduce((sum, line) => sum + Number(line.split(',').at(-2)), 0);
			assert.equal(tokens, totals.saved_estimated_tokens ?? totals.tokens_saved);
			assert.match(status, new RegExp(`Exported ${events.toLocaleString()} events`));
			assert.deepEqual((await readdir(dir)).sort(), ['savings.csv'], 'no .part file left behind');
		} finally {
			await rm(dir, { recursive: true, force: true });
		}
	});
});
