/**
 * Token savings: "Open Token Savings" (the dashboard panel, one per window, restored after a
 * reload with its filter), its CSV export, and "Show Token Savings Summary" (the account totals
 * and each runtime's savings summary as a read-only JSON record, no chart needed).
 */
import * as vscode from 'vscode';
import { SAFETY } from '../api';
import { describeError } from '../messages/errors';
import { isAbsoluteLocalPath } from '../util/fileNames';
import { plainText } from '../util/text';
import { titledRecordUri } from '../views/recordDocuments';
import { shownDeploymentName } from '../auth/deployments';
import { type PanelFeature, PanelManager } from '../webviews/panel';
import type { CsvSink, RangeId, SavingsFilter } from '../webviews/savings/data';
import { RANGE_IDS, exportSavingsCsv, loadRuntimeSummaries } from '../webviews/savings/data';
import { parseSavingsPageState } from '../webviews/savings/protocol';
import type { SavingsPanelHost } from '../webviews/savings/savingsPanel';
import { SavingsPanel, rangeLabel } from '../webviews/savings/savingsPanel';
import type { FlowCommand } from '../views/registry';
import type { Services } from '../views/actions';
import { isAutomation, showInfo, toAbortSignal } from '../views/ui';

/** What a chunk of csvFileSink becomes once copied into the file's bytes. */
const EMPTY = new Uint8Array(0);

/**
 * A CSV sink for any URI the save dialog gives (file:, vscode-remote:, a browser's own file
 * systems), through vscode.workspace.fs in both extension hosts. It has no append, so the chunks
 * are kept (UTF-8, at most SAFETY.savingsCsvMaxBytes: past that the export fails and nothing is
 * written) and written at the end to `<file>.part`, which is renamed over the file: a failed
 * export never leaves half a file in place of an old one.
 */
function csvFileSink(target: vscode.Uri): CsvSink & { commit(): Promise<void>; abandon(): Promise<void> } {
	const encoder = new TextEncoder();
	const part = target.with({ path: `${target.path}.part` });
	let chunks: Uint8Array[] = [];
	let size = 0;
	let partWritten = false;
	return {
		write: async (chunk) => {
			const bytes = encoder.encode(chunk);
			size += bytes.byteLength;
			if (size > SAFETY.savingsCsvMaxBytes) {
				chunks = [];
				throw new Error(
					vscode.l10n.t(
						'The CSV export is larger than {0} MiB, so nothing was written. Export a shorter range, or one runtime.',
						SAFETY.savingsCsvMaxBytes / (1024 * 1024),
					),
				);
			}
			chunks.push(bytes);
		},
		commit: async () => {
			const all = new Uint8Array(size);
			let at = 0;
			for (let i = 0; i < chunks.length; i++) {
				const c = chunks[i]!;
				all.set(c, at);
				at += c.byteLength;
				// Each chunk let go once copied: the collector may free it while the rest is joined.
				chunks[i] = EMPTY;
			}
			chunks = [];
			partWritten = true;
			await vscode.workspace.fs.writeFile(part, all);
			await vscode.workspace.fs.rename(part, target, { overwrite: true });
			partWritten = false;
		},
		abandon: async () => {
			chunks = [];
			if (partWritten) {
				await vscode.workspace.fs.delete(part, { useTrash: false });
			}
		},
	};
}

/**
 * Asks where to save, then streams the filter's events from the service into the file as CSV with
 * a cancellable progress notification. Returns the status text, or undefined when dismissed.
 */
async function exportCsv(deps: Services, filter: SavingsFilter): Promise<string | undefined> {
	const day = new Date().toISOString().slice(0, 10);
	const base = vscode.workspace.workspaceFolders?.[0]?.uri.scheme === 'file' ? vscode.workspace.workspaceFolders[0].uri : undefined;
	const name = `token-savings-${filter.range}-${day}.csv`;
	const target = await vscode.window.showSaveDialog({
		title: vscode.l10n.t('Export Token Savings as CSV'),
		saveLabel: vscode.l10n.t('Export'),
		filters: { [vscode.l10n.t('CSV files')]: ['csv'] },
		defaultUri: base ? vscode.Uri.joinPath(base, name) : undefined,
	});
	if (!target) {
		return undefined;
	}
	return exportTo(deps, filter, target);
}

/**
 * "Export Token Savings as CSV…" from the palette: a range, then where to save (the panel's Export
 * button does the same for the panel's filter). For automation, `{automation: true, range?,
 * runtimeId?, target}` (`target` a file URI or an absolute path) writes without asking and returns
 * the status text; the range defaults to all time.
 */
async function exportCommand(deps: Services, arg: unknown): Promise<string | undefined> {
	if (isAutomation(arg)) {
		const range = arg.range === undefined ? 'all' : RANGE_IDS.find((r) => r === arg.range);
		if (range === undefined) {
			throw new Error(vscode.l10n.t('range: one of {0}', RANGE_IDS.join(', ')));
		}
		const runtimeId = typeof arg.runtimeId === 'string' && arg.runtimeId !== '' ? arg.runtimeId : undefined;
		const target =
			arg.target instanceof vscode.Uri
				? arg.target
				: typeof arg.target === 'string' && isAbsoluteLocalPath(arg.target)
					? vscode.Uri.file(arg.target)
					: undefined;
		if (target === undefined) {
			throw new Error(vscode.l10n.t('target: a file URI or an absolute path'));
		}
		return exportTo(deps, { range, runtimeId }, target);
	}
	const picked = await vscode.window.showQuickPick(
		[...RANGE_IDS].reverse().map((range) => ({ label: rangeLabel(range), range })),
		{ title: vscode.l10n.t('Export Token Savings as CSV'), placeHolder: vscode.l10n.t('Which events?') },
	);
	return picked && exportCsv(deps, { range: picked.range, runtimeId: undefined });
}

/** Streams the filter's events as CSV into `target` with a cancellable progress notification; returns the status text. */
async function exportTo(deps: Services, filter: SavingsFilter, target: vscode.Uri): Promise<string> {
	const sink = csvFileSink(target);
	try {
		const result = await vscode.window.withProgress(
			{ location: vscode.ProgressLocation.Notification, title: vscode.l10n.t('Exporting token savings'), cancellable: true },
			async (progress, token) => {
				const abort = toAbortSignal(token);
				try {
					return await exportSavingsCsv(deps.session.client, filter, sink, {
						signal: abort.signal,
						onProgress: (p) =>
							progress.report({
								message:
									p.events === 1
										? vscode.l10n.t('1 event read')
										: vscode.l10n.t('{0} events read', p.events.toLocaleString()),
							}),
					});
				} finally {
					abort.dispose();
				}
			},
		);
		await sink.commit();
		const capped = result.capped ? ` ${vscode.l10n.t('(stopped at {0} events)', SAFETY.savingsMaxEvents.toLocaleString())}` : '';
		const status =
			vscode.l10n.t(
				'Exported {0} events to {1}.',
				result.rows.toLocaleString(),
				// A file of the machine VS Code runs on by its path (issue 42, item 13: a raw vscode-remote://
				// URI); one of another file system with its scheme, which says where it is.
				target.scheme === 'file' ? target.fsPath : target.scheme === 'vscode-remote' ? target.path : target.toString(),
			) + capped;
		void showInfo(status);
		return status;
	} catch (err) {
		await sink.abandon().catch(() => undefined);
		throw err;
	}
}

/** The JSON record of "Show Token Savings Summary": the account totals and every runtime's summary. */
async function summaryRecord(deps: Services, signal: AbortSignal): Promise<Record<string, unknown>> {
	const client = deps.session.client;
	const runtimes: Array<{ id: string; name: string }> = [];
	for await (const r of client.iterateRuntimes({ limit: 100 })) {
		runtimes.push({ id: r.id, name: r.display_name || r.id });
		if (runtimes.length >= SAFETY.savingsMaxRuntimeSummaries) {
			break;
		}
	}
	const [account, rows] = await Promise.all([
		client.listTokenSavings({ limit: 1, signal }),
		loadRuntimeSummaries(client, runtimes, describeError, signal),
	]);
	return {
		read_at: new Date().toISOString(),
		account_totals: account.totals ?? null,
		runtimes: rows.map((r) => ({
			runtime: r.runtimeName,
			runtime_id: r.runtimeId,
			...(r.summary ?? {}),
			...(r.error !== undefined ? { error: r.error } : {}),
		})),
	};
}

/** The token-savings commands (for `registerFlows`) and how to restore the panel; the caller owns the disposables. */
export function savingsFeature(deps: Services): PanelFeature & { commands: FlowCommand[] } {
	const panels = new PanelManager<SavingsPanel>();
	const host: SavingsPanelHost = {
		extensionUri: deps.context.extensionUri,
		log: deps.log,
		client: () => deps.session.client,
		// The default deployment's savings: the title names it when several are configured.
		deploymentName: () => shownDeploymentName(undefined),
		exportCsv: (filter) =>
			exportCsv(deps, filter).catch((err: unknown) => {
				deps.log.error('Exporting token savings failed:', err instanceof Error ? err : String(err));
				return vscode.l10n.t('The export failed: {0}', describeError(err));
			}),
	};
	/** Restores a panel VS Code brings back after a reload (src/shell/lazy.ts registers the serializer). */
	const restore = async (panel: vscode.WebviewPanel, raw: unknown): Promise<void> => {
		const state = parseSavingsPageState(raw) ?? { range: '7d' as RangeId, runtimeId: '' };
		panels.add('savings', SavingsPanel.restore(panel, host, state));
	};
	return {
		restorePanel: restore,
		disposables: [panels],
		commands: [
			{
				id: 'cloudAgents.savings.open',
				run: async (arg?: unknown) => {
					const range =
						isAutomation(arg) && typeof arg.range === 'string' ? parseSavingsPageState({ range: arg.range })?.range : undefined;
					const open = panels.get('savings');
					if (open) {
						open.reveal();
						return undefined;
					}
					panels.show('savings', () => SavingsPanel.create(host, { range: range ?? '7d', runtimeId: '' }));
					return undefined;
				},
			},
			{ id: 'cloudAgents.savings.exportCsv', run: (arg?: unknown) => exportCommand(deps, arg) },
			{
				id: 'cloudAgents.savings.showSummary',
				run: async () => {
					const record = await vscode.window.withProgress(
						{
							location: vscode.ProgressLocation.Notification,
							title: vscode.l10n.t('Reading token savings'),
							cancellable: true,
						},
						async (_progress, token) => {
							const abort = toAbortSignal(token);
							try {
								return await summaryRecord(deps, abort.signal);
							} finally {
								abort.dispose();
							}
						},
					);
					// JSON.stringify escapes control characters; plainText also drops bidi and invisible ones.
					return deps.records.show(
						titledRecordUri(vscode.l10n.t('Token Savings Summary'), 'token-savings', 'summary'),
						`${plainText(JSON.stringify(record, null, 2), SAFETY.documentMaxChars)}\n`,
						'json',
						{ forceLanguage: true },
					);
				},
			},
		],
	};
}
