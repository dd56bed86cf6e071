/**
 * The "Token Savings" panel: account totals, a chart of saved tokens and bytes over time (uPlot,
 * in the page), per-runtime and per-method tables, recent events, a time-range and runtime filter,
 * refresh and CSV export. The extension reads and aggregates (src/webviews/savings/data.ts); the
 * page only draws what it is sent. Server text reaches the page single-line (`singleLine`) and the
 * page writes it with `textContent` only. The token never enters the page.
 */
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../api';
import { SAFETY } from '../../base/limits';
import { AUTH_PROVIDER_ID, WEBVIEW_TYPES } from '../../ids';
import { describeError, isAuthFailure, isCancellation } from '../../messages/errors';
import { singleLine } from '../../util/text';
import { escapeHtml } from '../html';
import type { PanelHost } from '../panel';
import { WebviewPanelBase, webviewPanelOptions } from '../panel';
import type { RangeId, RuntimeRef, RuntimeSummaryRow, SavingsData, SavingsFilter } from './data';
import { loadRuntimeSummaries, loadSavings } from './data';
import type { PageRuntimeRow, SavingsHostMessage, SavingsModel, SavingsPageFilter, SavingsPageMessage, SavingsStrings } from './protocol';
import { SAVINGS_RANGES, validateSavingsPageMessage } from './protocol';

/** What the panel needs from the extension. */
export interface SavingsPanelHost extends PanelHost {
	/** The signed-in client (reads the token per request; the token never leaves it). */
	client(): CloudAgentsClient;
	/** The name of the client's deployment when two or more are configured (the title says it); undefined with one. */
	deploymentName?(): string | undefined;
	/** Exports the filter's events as CSV (asks where, shows progress); resolves with a status text, or undefined when dismissed. */
	exportCsv(filter: SavingsFilter): Promise<string | undefined>;
}

/** The panel title: "Token Savings", and "(<deployment>)" after it when it names a deployment. */
export function savingsTitle(deploymentName?: string): string {
	const title = vscode.l10n.t('Token Savings');
	return deploymentName === undefined ? title : vscode.l10n.t('{0} ({1})', title, singleLine(deploymentName, 80));
}

function pageStrings(): SavingsStrings {
	return {
		loading: vscode.l10n.t('Reading savings events… {0} so far'),
		loaded: vscode.l10n.t('{0} events read at {1}.'),
		tokens: vscode.l10n.t('Saved tokens'),
		bytes: vscode.l10n.t('Saved bytes'),
		events: vscode.l10n.t('Events'),
		empty: vscode.l10n.t('No savings events in this range.'),
		other: vscode.l10n.t('(other)'),
		allRuntimes: vscode.l10n.t('All runtimes'),
		chartLabel: vscode.l10n.t('Chart of saved tokens and saved bytes per {0}: {1} tokens and {2} bytes in total over {3} buckets.'),
		noSummary: vscode.l10n.t('not available'),
		hour: vscode.l10n.t('hour'),
		day: vscode.l10n.t('day'),
		cancelled: vscode.l10n.t('Reading was cancelled; Refresh reads again.'),
	};
}

/** A range as the dashboard and the export name it. */
export function rangeLabel(range: RangeId): string {
	switch (range) {
		case '24h':
			return vscode.l10n.t('Last 24 hours');
		case '7d':
			return vscode.l10n.t('Last 7 days');
		case '30d':
			return vscode.l10n.t('Last 30 days');
		case '90d':
			return vscode.l10n.t('Last 90 days');
		case 'all':
			return vscode.l10n.t('All time');
	}
}

/** Static markup of ours (localised labels only; every server value arrives later as a message). */
function pageBody(): string {
	const t = (s: string): string => escapeHtml(s);
	const ranges = SAVINGS_RANGES.map((r) => `<option value="${r}">${t(rangeLabel(r))}</option>`).join('');
	const th = (label: string, numeric = false): string => `<th scope="col"${numeric ? ' class="num"' : ''}>${t(label)}</th>`;
	return `<div class="toolbar" role="toolbar" aria-label="${t(vscode.l10n.t('Token savings filters and actions'))}">
		<label for="range">${t(vscode.l10n.t('Time range'))}</label>
		<select id="range">${ranges}</select>
		<label for="runtime">${t(vscode.l10n.t('Runtime'))}</label>
		<select id="runtime"><option value="">${t(vscode.l10n.t('All runtimes'))}</option></select>
		<button id="refresh">${t(vscode.l10n.t('Refresh'))}</button>
		<button id="cancel" class="secondary" hidden>${t(vscode.l10n.t('Cancel'))}</button>
		<span class="spacer"></span>
		<button id="export" class="secondary" title="${t(vscode.l10n.t('Save the events of this filter as a CSV file'))}">${t(vscode.l10n.t('Export CSV…'))}</button>
	</div>
	<div id="status" class="message" role="status" aria-live="polite"></div>
	<ul id="notes" class="notes" aria-label="${t(vscode.l10n.t('Notes'))}" hidden></ul>
	<section aria-labelledby="totals-heading">
		<h2 id="totals-heading">${t(vscode.l10n.t('Totals'))}</h2>
		<div class="totals">
			<div class="card" id="range-card"><h3>${t(vscode.l10n.t('In the selected range'))}</h3><dl>
				<dt>${t(vscode.l10n.t('Saved tokens'))}</dt><dd id="range-tokens">–</dd>
				<dt>${t(vscode.l10n.t('Saved bytes'))}</dt><dd id="range-bytes">–</dd>
				<dt>${t(vscode.l10n.t('Events'))}</dt><dd id="range-events">–</dd></dl></div>
			<div class="card" id="account-card"><h3>${t(vscode.l10n.t('Account totals (all time, from the service)'))}</h3><dl>
				<dt>${t(vscode.l10n.t('Saved tokens'))}</dt><dd id="account-tokens">–</dd>
				<dt>${t(vscode.l10n.t('Saved bytes'))}</dt><dd id="account-bytes">–</dd>
				<dt>${t(vscode.l10n.t('Applied events'))}</dt><dd id="account-events">–</dd></dl></div>
		</div>
	</section>
	<section aria-labelledby="chart-heading">
		<h2 id="chart-heading">${t(vscode.l10n.t('Saved over time'))}</h2>
		<div id="chart" class="chart" role="img" aria-label="${t(vscode.l10n.t('Chart of saved tokens and bytes'))}"></div>
		<p id="chart-empty" class="muted" hidden>${t(vscode.l10n.t('No savings events in this range.'))}</p>
	</section>
	<section aria-labelledby="runtimes-heading">
		<h2 id="runtimes-heading">${t(vscode.l10n.t('By runtime'))}</h2>
		<div class="table-scroll"><table id="runtimes" aria-labelledby="runtimes-heading"><thead><tr>
			${th(vscode.l10n.t('Runtime'))}${th(vscode.l10n.t('Events in range'), true)}${th(vscode.l10n.t('Tokens in range'), true)}${th(vscode.l10n.t('Bytes in range'), true)}
			${th(vscode.l10n.t('Applied events (all time)'), true)}${th(vscode.l10n.t('Saved tokens (all time)'), true)}${th(vscode.l10n.t('Saved bytes (all time)'), true)}${th(vscode.l10n.t('Malformed events'), true)}
		</tr></thead><tbody></tbody></table></div>
	</section>
	<section aria-labelledby="methods-heading">
		<h2 id="methods-heading">${t(vscode.l10n.t('By method'))}</h2>
		<p class="muted">${t(vscode.l10n.t('An event that applied several methods counts under each.'))}</p>
		<div class="table-scroll"><table id="methods" aria-labelledby="methods-heading"><thead><tr>
			${th(vscode.l10n.t('Method'))}${th(vscode.l10n.t('Events'), true)}${th(vscode.l10n.t('Saved tokens'), true)}${th(vscode.l10n.t('Saved bytes'), true)}
		</tr></thead><tbody></tbody></table></div>
	</section>
	<section aria-labelledby="recent-heading">
		<h2 id="recent-heading">${t(vscode.l10n.t('Recent events'))}</h2>
		<div class="table-scroll"><table id="recent" aria-labelledby="recent-heading"><thead><tr>
			${th(vscode.l10n.t('Observed'))}${th(vscode.l10n.t('Runtime'))}${th(vscode.l10n.t('Methods'))}${th(vscode.l10n.t('Saved tokens'), true)}${th(vscode.l10n.t('Saved bytes'), true)}${th(vscode.l10n.t('Event'))}
		</tr></thead><tbody></tbody></table></div>
	</section>`;
}

/** The notes the page lists under the status line for how the reading ended. */
function notesOf(data: SavingsData): string[] {
	const notes: string[] = [];
	const n = (x: number): string => x.toLocaleString();
	if (data.capped) {
		notes.push(
			vscode.l10n.t(
				'Showing the newest {0} events: the dashboard reads at most {0} for one filter. Narrow the range or pick a runtime to see the rest.',
				n(data.events),
			),
		);
	}
	if (data.listingStopped !== undefined) {
		notes.push(vscode.l10n.t("The service's paging stopped early: {0}", singleLine(data.listingStopped, SAFETY.notificationMaxChars)));
	}
	if (data.aggregate.malformed > 0) {
		notes.push(
			data.aggregate.malformed === 1
				? vscode.l10n.t(
						'1 event carried malformed values (a count that is not a whole number, or no readable time); those values were ignored.',
					)
				: vscode.l10n.t(
						'{0} events carried malformed values (a count that is not a whole number, or no readable time); those values were ignored.',
						n(data.aggregate.malformed),
					),
		);
	}
	if (data.dropped > 0) {
		notes.push(
			data.dropped === 1
				? vscode.l10n.t('1 event could not be read and was left out.')
				: vscode.l10n.t('{0} events could not be read and were left out.', n(data.dropped)),
		);
	}
	if (data.runtimeFilterIgnored) {
		notes.push(vscode.l10n.t("This server ignored the runtime filter: other runtimes' events were left out here."));
	}
	return notes;
}

/** The page's model of one reading: server text single-line, times in seconds for the chart. */
export function savingsModel(data: SavingsData, summaries: readonly RuntimeSummaryRow[], runtimes: readonly RuntimeRef[]): SavingsModel {
	const a = data.aggregate;
	const text = (s: string): string => singleLine(s, SAFETY.labelMaxChars);
	const names = new Map(runtimes.map((r) => [r.id, r.name]));
	const rows = new Map<string, PageRuntimeRow>();
	for (const r of a.runtimes) {
		rows.set(r.runtimeId, {
			runtimeId: r.runtimeId,
			name: text(names.get(r.runtimeId) || r.runtimeName || r.runtimeId),
			inRange: { events: r.events, tokens: r.tokens, bytes: r.bytes },
		});
	}
	for (const s of summaries) {
		const row = rows.get(s.runtimeId) ?? {
			runtimeId: s.runtimeId,
			name: text(s.runtimeName || s.runtimeId),
			inRange: { events: 0, tokens: 0, bytes: 0 },
		};
		row.summary = s.summary
			? {
					applied: s.summary.applied_events,
					tokens: s.summary.saved_estimated_tokens,
					bytes: s.summary.saved_wire_bytes,
					malformed: s.summary.malformed_events,
				}
			: undefined;
		row.summaryError = s.error === undefined ? undefined : singleLine(s.error, SAFETY.descriptionMaxChars);
		rows.set(s.runtimeId, row);
	}
	const account = data.accountTotals;
	return {
		filter: { range: data.filter.range, runtimeId: data.filter.runtimeId ?? '' },
		unit: a.series.unit,
		series: { t: a.series.t.map((ms) => ms / 1000), tokens: a.series.tokens, bytes: a.series.bytes, events: a.series.events },
		account: account
			? { events: account.applied_events, tokens: account.saved_estimated_tokens, bytes: account.saved_wire_bytes }
			: undefined,
		range: { ...a.totals },
		methods: a.methods.map((m) => ({ method: text(m.method), events: m.events, tokens: m.tokens, bytes: m.bytes })),
		runtimes: [...rows.values()].sort(
			(x, y) => y.inRange.tokens - x.inRange.tokens || (y.summary?.tokens ?? 0) - (x.summary?.tokens ?? 0),
		),
		recent: a.recent.map((r) => ({
			id: text(r.eventId || r.id),
			observedMs: r.observedMs,
			runtime: text(names.get(r.runtimeId) || r.runtimeName || r.runtimeId),
			methods: text(r.methods.join(', ')),
			tokens: r.tokens,
			bytes: r.bytes,
		})),
		notes: notesOf(data),
		loadedAt: data.now,
	};
}

/** The one Token Savings panel. */
export class SavingsPanel extends WebviewPanelBase<SavingsPageMessage, SavingsHostMessage> {
	private filter: SavingsPageFilter;
	private runtimes: RuntimeRef[] | undefined;
	private reading: AbortController | undefined;
	/** True once the page said it is ready (it has been sent its texts and runtimes). */
	private started = false;

	/** Opens the panel. */
	static create(host: SavingsPanelHost, filter: SavingsPageFilter = { range: '7d', runtimeId: '' }): SavingsPanel {
		const panel = vscode.window.createWebviewPanel(
			WEBVIEW_TYPES.savings,
			savingsTitle(host.deploymentName?.()),
			vscode.ViewColumn.Active,
			webviewPanelOptions(host.extensionUri),
		);
		return new SavingsPanel(panel, host, filter);
	}

	/** Adopts a panel VS Code restores after a reload, with its saved filter. */
	static restore(panel: vscode.WebviewPanel, host: SavingsPanelHost, filter: SavingsPageFilter): SavingsPanel {
		panel.title = savingsTitle(host.deploymentName?.());
		return new SavingsPanel(panel, host, filter);
	}

	private constructor(
		panel: vscode.WebviewPanel,
		private readonly savings: SavingsPanelHost,
		filter: SavingsPageFilter,
	) {
		super(panel, savings, validateSavingsPageMessage);
		this.filter = filter;
		this.register({ dispose: () => this.reading?.abort() });
		// Signing in, out or as someone else (here or in another window) changes what the service
		// answers: read everything again, so an error of the old session (a sign-out's "missing
		// bearer token") does not stay after signing in, and the runtimes are the new session's.
		this.register(
			vscode.authentication.onDidChangeSessions((e) => {
				if (e.provider.id === AUTH_PROVIDER_ID && this.started && !this.isDisposed) {
					void this.start(true);
				}
			}),
		);
		this.render({
			title: savingsTitle(savings.deploymentName?.()),
			script: 'savings',
			styles: ['savings.css'],
			bundledCss: true,
			body: pageBody(),
		});
	}

	/** Reads the data again for the current filter (the Refresh button and command). */
	refresh(): Promise<void> {
		return this.load();
	}

	protected async onMessage(message: SavingsPageMessage): Promise<void> {
		switch (message.type) {
			case 'ready':
				this.started = true;
				return this.start(false);
			case 'setFilter': {
				// Only a runtime this panel offered (or '' for all): the page cannot make the extension ask for anything else.
				if (message.runtimeId !== '' && !(this.runtimes ?? []).some((r) => r.id === message.runtimeId)) {
					this.host.log.warn('webview savings: dropped a filter naming a runtime the panel did not offer');
					return;
				}
				this.filter = { range: message.range, runtimeId: message.runtimeId };
				return this.load();
			}
			case 'refresh':
				return this.load();
			case 'cancel':
				this.reading?.abort();
				return;
			case 'exportCsv': {
				const status = await this.savings.exportCsv(this.dataFilter());
				if (status !== undefined) {
					await this.post({ type: 'exported', message: status });
				}
				return;
			}
		}
	}

	/**
	 * Sends the page its texts, the runtimes of the filter and the filter, then reads the data.
	 * `fresh` lists the runtimes again (after a session change: the list read while signed out is
	 * empty, and then the filter's runtime is kept for when the list is back).
	 */
	private async start(fresh: boolean): Promise<void> {
		const runtimes = await this.listRuntimes(fresh);
		if (this.filter.runtimeId !== '' && runtimes.length > 0 && !runtimes.some((r) => r.id === this.filter.runtimeId)) {
			this.filter = { ...this.filter, runtimeId: '' };
		}
		await this.post({
			type: 'init',
			strings: pageStrings(),
			runtimes: runtimes.map((r) => ({ id: r.id, name: singleLine(r.name, SAFETY.labelMaxChars) })),
			filter: this.filter,
		});
		return this.load();
	}

	private dataFilter(): SavingsFilter {
		return { range: this.filter.range, runtimeId: this.filter.runtimeId === '' ? undefined : this.filter.runtimeId };
	}

	/** The runtimes for the filter and the per-runtime summaries (read once per panel; Refresh reads them again). */
	private async listRuntimes(fresh = false): Promise<RuntimeRef[]> {
		if (this.runtimes && !fresh) {
			return this.runtimes;
		}
		const out: RuntimeRef[] = [];
		try {
			for await (const r of this.savings.client().iterateRuntimes({ limit: 100 })) {
				out.push({ id: r.id, name: r.display_name || r.id });
				if (out.length >= SAFETY.savingsMaxRuntimeSummaries) {
					break;
				}
			}
		} catch (err) {
			this.host.log.warn(`webview savings: listing runtimes failed: ${describeError(err)}`);
		}
		this.runtimes = out;
		return out;
	}

	private async load(): Promise<void> {
		this.reading?.abort();
		const controller = new AbortController();
		this.reading = controller;
		const filter = this.dataFilter();
		await this.post({ type: 'loading', filter: this.filter });
		try {
			const client = this.savings.client();
			const runtimes = await this.listRuntimes();
			const wanted = filter.runtimeId === undefined ? runtimes : runtimes.filter((r) => r.id === filter.runtimeId);
			const [data, summaries] = await vscode.window.withProgress(
				{ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Reading token savings…') },
				() =>
					Promise.all([
						loadSavings(client, filter, {
							signal: controller.signal,
							onProgress: (p) => void this.post({ type: 'progress', events: p.events, pages: p.pages }),
						}),
						loadRuntimeSummaries(client, wanted, describeError, controller.signal),
					]),
			);
			if (this.reading !== controller || this.isDisposed) {
				return;
			}
			await this.post({ type: 'data', model: savingsModel(data, summaries, runtimes) });
		} catch (err) {
			if (this.reading !== controller || this.isDisposed) {
				return;
			}
			if (isCancellation(err) || controller.signal.aborted) {
				await this.post({ type: 'error', message: pageStrings().cancelled });
				return;
			}
			if (isAuthFailure(err)) {
				// Signed out (or the token was refused): a state the page explains, not a failure of ours.
				this.host.log.warn(`webview savings: not signed in: ${describeError(err)}`);
			} else {
				this.host.log.error('webview savings: reading failed:', err instanceof Error ? err : String(err));
			}
			// Signed out: the account's figures go from the page too (issue 42, item 5: they stayed under the banner).
			await this.post({
				type: isAuthFailure(err) ? 'signedOut' : 'error',
				message: singleLine(
					isAuthFailure(err)
						? vscode.l10n.t('Sign in to Cloud Agents to see the token savings: the panel reads them again once you have.')
						: vscode.l10n.t('Could not read the token savings: {0}', describeError(err)),
					SAFETY.notificationMaxChars,
				),
			});
		} finally {
			if (this.reading === controller) {
				this.reading = undefined;
			}
		}
	}
}
