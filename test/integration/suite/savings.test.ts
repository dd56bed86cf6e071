import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { RECORD_SCHEME } from '../../../src/ids';
import { emu, messagesShown, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
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

/**
 * A file system of this test's own (a scheme that is not `file:`, as vscode-remote: or a browser's
 * file systems are): flat, in memory. With `failWrites`, a write keeps half of the bytes and
 * throws, as a full disk would.
 */
class MemoryFs implements vscode.FileSystemProvider {
	readonly files = new Map<string, Uint8Array>();
	readonly folders = new Set<string>(['/']);
	failWrites = false;
	private readonly emitter = new vscode.EventEmitter<vscode.FileChangeEvent[]>();
	readonly onDidChangeFile = this.emitter.event;
	watch(): vscode.Disposable {
		// Nothing changes but through this provider.
		return new vscode.Disposable(() => undefined);
	}
	stat(uri: vscode.Uri): vscode.FileStat {
		const file = this.files.get(uri.path);
		if (file) {
			return { type: vscode.FileType.File, ctime: 0, mtime: Date.now(), size: file.byteLength };
		}
		if (this.folders.has(uri.path)) {
			return { type: vscode.FileType.Directory, ctime: 0, mtime: 0, size: 0 };
		}
		throw vscode.FileSystemError.FileNotFound(uri);
	}
	readDirectory(uri: vscode.Uri): Array<[string, vscode.FileType]> {
		const prefix = uri.path.endsWith('/') ? uri.path : `${uri.path}/`;
		return [...this.files.keys()]
			.filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
			.map((p) => [p.slice(prefix.length), vscode.FileType.File]);
	}
	createDirectory(uri: vscode.Uri): void {
		this.folders.add(uri.path);
	}
	readFile(uri: vscode.Uri): Uint8Array {
		const file = this.files.get(uri.path);
		if (!file) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		return file;
	}
	writeFile(uri: vscode.Uri, content: Uint8Array): void {
		if (this.failWrites) {
			this.files.set(uri.path, content.slice(0, content.byteLength >> 1));
			throw vscode.FileSystemError.Unavailable('no space left on the device');
		}
		this.files.set(uri.path, content);
	}
	delete(uri: vscode.Uri): void {
		if (!this.files.delete(uri.path)) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
	}
	rename(from: vscode.Uri, to: vscode.Uri): void {
		const file = this.readFile(from);
		this.files.delete(from.path);
		this.files.set(to.path, file);
	}
}

/** The CSV's lines without the header, and the account's events and saved tokens as the service reports them. */
async function exportedRows(text: string): Promise<{ rows: string[]; events: number; tokens: number | undefined; sum: number }> {
	const lines = text.split('\r\n').filter(Boolean);
	assert.equal(
		lines[0],
		'"observed_at","event_id","id","runtime_name","runtime_id","methods","saved_estimated_tokens","saved_wire_bytes"',
	);
	const totals = (await emu<{ data: { totals: Totals } }>('GET', '/v2/token-savings?page_size=1', undefined, devToken())).body.data
		.totals;
	const rows = lines.slice(1);
	return {
		rows,
		events: totals.applied_events ?? totals.events ?? -1,
		tokens: totals.saved_estimated_tokens ?? totals.tokens_saved,
		sum: rows.reduce((sum, line) => sum + Number(line.split(',').at(-2)), 0),
	};
}

suite('Token savings', () => {
	suiteSetup(async () => {
		await testApi();
	});

	test("Show Token Savings Summary opens a read-only JSON record of the account totals and every runtime's summary, as the service reports them [variant]", async function () {
		this.timeout(30_000);
		// A runtime an earlier suite's Delete Agent is still removing (1.5 s on the emulator clock) is in
		// the summary's listing and gone from the test's a moment later: wait until none is on its way out.
		await waitFor(
			'no runtime being deleted',
			async () =>
				(await emu<{ runtimes: Array<{ delete_at?: number }> }>('GET', '/_emulator/state')).body.runtimes.every(
					(r) => r.delete_at === undefined,
				) || undefined,
		);
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
		await closeAllEditors();
	});

	test("the CSV export writes every event of the filter, one row each, with the service's sums [variant] [web]", async function () {
		this.timeout(30_000);
		// A folder of the window's workspace (file: in Node's extension host, vscode-remote: in the browser's).
		const root = vscode.workspace.workspaceFolders?.[0]?.uri;
		assert.ok(root, 'the test window has a workspace folder');
		const dir = vscode.Uri.joinPath(root, `savings-csv-${Date.now().toString(36)}`);
		await vscode.workspace.fs.createDirectory(dir);
		try {
			const target = vscode.Uri.joinPath(dir, 'savings.csv');
			const status = await vscode.commands.executeCommand<string>('cloudAgents.savings.exportCsv', {
				automation: true,
				range: 'all',
				target,
			});
			const { rows, events, tokens, sum } = await exportedRows(new TextDecoder().decode(await vscode.workspace.fs.readFile(target)));
			assert.equal(rows.length, events, 'one row per event');
			assert.equal(sum, tokens);
			assert.match(status, new RegExp(`Exported ${events.toLocaleString()} events`));
			assert.deepEqual(
				(await vscode.workspace.fs.readDirectory(dir)).map(([name]) => name).sort(),
				['savings.csv'],
				'no .part file left behind',
			);
		} finally {
			await vscode.workspace.fs.delete(dir, { recursive: true, useTrash: false });
		}
	});

	suite("into a file system that is not file: (vscode-remote:, a browser's)", () => {
		const scheme = `ca-savings-${Math.random().toString(36).slice(2, 8)}`;
		let memory: MemoryFs;
		let registration: vscode.Disposable;
		setup(() => {
			memory = new MemoryFs();
			registration = vscode.workspace.registerFileSystemProvider(scheme, memory, { isCaseSensitive: true });
		});
		teardown(() => {
			registration.dispose();
		});

		test('the export writes the whole CSV there through the file system, over an older file, and leaves no .part file [web]', async function () {
			this.timeout(30_000);
			memory.files.set('/savings.csv', new TextEncoder().encode('an older export\r\n'));
			const target = vscode.Uri.from({ scheme, path: '/savings.csv' });
			const status = await vscode.commands.executeCommand<string>('cloudAgents.savings.exportCsv', {
				automation: true,
				range: 'all',
				target,
			});
			const { rows, events, tokens, sum } = await exportedRows(new TextDecoder().decode(memory.files.get('/savings.csv')));
			assert.equal(rows.length, events, 'one row per event');
			assert.equal(sum, tokens);
			assert.match(status, new RegExp(`Exported ${events.toLocaleString()} events to ${scheme}:`));
			assert.deepEqual([...memory.files.keys()], ['/savings.csv'], 'no .part file left behind');
		});

		test('a write that fails leaves the older file as it was, and no .part file [web]', async function () {
			this.timeout(30_000);
			const older = new TextEncoder().encode('an older export\r\n');
			memory.files.set('/savings.csv', older);
			memory.failWrites = true;
			const status = await vscode.commands.executeCommand<string | undefined>('cloudAgents.savings.exportCsv', {
				automation: true,
				range: 'all',
				target: vscode.Uri.from({ scheme, path: '/savings.csv' }),
			});
			assert.equal(status, undefined, 'no status: the export failed');
			await waitFor('the failure shown', async () => {
				const shown = await messagesShown('error', /no space left on the device/);
				return shown.length > 0 ? shown : undefined;
			});
			assert.deepEqual(memory.files.get('/savings.csv'), older, 'the older export is untouched');
			assert.deepEqual([...memory.files.keys()], ['/savings.csv'], 'the half-written file is gone');
		});
	});
});
