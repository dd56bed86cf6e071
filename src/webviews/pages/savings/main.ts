/**
 * The Token Savings page: draws what the extension sends (totals, chart, tables) and sends back
 * the filter, refresh, cancel and export. Every value from the service is written with
 * `textContent` (never HTML). The page saves its filter with `setState`, so a reload restores it.
 */
import 'uplot/dist/uPlot.min.css';
import type { SavingsHostMessage, SavingsModel, SavingsPageMessage, SavingsPageState, SavingsStrings } from '../../savings/protocol';
import { SAVINGS_RANGES, isSavingsHostMessage, parseSavingsPageState } from '../../savings/protocol';
import { byId, hostApi, onHostMessage } from '../shared/host';
import { SavingsChart, bytesText } from './chart';

const host = hostApi<SavingsPageState, SavingsPageMessage>();
const rangeSelect = byId('range', HTMLSelectElement);
const runtimeSelect = byId('runtime', HTMLSelectElement);
const refreshButton = byId('refresh', HTMLButtonElement);
const cancelButton = byId('cancel', HTMLButtonElement);
const exportButton = byId('export', HTMLButtonElement);
const statusLine = byId('status', HTMLDivElement);
const notesList = byId('notes', HTMLUListElement);
const chartBox = byId('chart', HTMLDivElement);
const chartEmpty = byId('chart-empty', HTMLParagraphElement);

let strings: SavingsStrings | undefined;
let state: SavingsPageState = parseSavingsPageState(host.getState()) ?? { range: '7d', runtimeId: '' };
let chart: SavingsChart | undefined;
let lastModel: SavingsModel | undefined;

function text(key: keyof SavingsStrings, ...args: string[]): string {
	let template = strings?.[key] ?? key;
	args.forEach((arg, i) => {
		template = template.replace(`{${i}}`, arg);
	});
	return template;
}

function show(message: string, kind: 'info' | 'error' = 'info'): void {
	statusLine.textContent = message;
	statusLine.className = kind === 'info' ? 'message' : 'message error';
	statusLine.setAttribute('role', kind === 'error' ? 'alert' : 'status');
}

const num = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString());

function setText(id: string, value: string): void {
	byId(id, HTMLElement).textContent = value;
}

/** One table row of cells (text only); numeric cells right-aligned. */
function row(cells: Array<{ text: string; numeric?: boolean; header?: boolean; title?: string }>): HTMLTableRowElement {
	const tr = document.createElement('tr');
	for (const c of cells) {
		const cell = document.createElement(c.header ? 'th' : 'td');
		if (c.header) {
			cell.setAttribute('scope', 'row');
		}
		cell.textContent = c.text;
		if (c.numeric) {
			cell.className = 'num';
		}
		if (c.title) {
			cell.title = c.title;
		}
		tr.append(cell);
	}
	return tr;
}

function fillTable(id: string, rows: HTMLTableRowElement[], emptyText: string, columns: number): void {
	const body = byId(id, HTMLTableElement).tBodies[0]!;
	if (rows.length === 0) {
		const tr = document.createElement('tr');
		const td = document.createElement('td');
		td.colSpan = columns;
		td.className = 'muted';
		td.textContent = emptyText;
		tr.append(td);
		rows = [tr];
	}
	body.replaceChildren(...rows);
}

function when(ms: number): string {
	return new Date(ms).toLocaleString();
}

function drawModel(model: SavingsModel): void {
	lastModel = model;
	setText('range-tokens', num(model.range.tokens));
	setText('range-bytes', bytesText(model.range.bytes));
	setText('range-events', num(model.range.events));
	setText('account-tokens', num(model.account?.tokens));
	setText('account-bytes', model.account?.bytes === undefined ? '–' : bytesText(model.account.bytes));
	setText('account-events', num(model.account?.events));
	notesList.replaceChildren(
		...model.notes.map((n) => {
			const li = document.createElement('li');
			li.textContent = n;
			return li;
		}),
	);
	notesList.hidden = model.notes.length === 0;

	const labels = { tokens: text('tokens'), bytes: text('bytes') };
	chart ??= new SavingsChart(chartBox, labels);
	chart.draw(model.series, labels);
	chartEmpty.hidden = model.range.events > 0;
	chartBox.setAttribute(
		'aria-label',
		text(
			'chartLabel',
			text(model.unit),
			model.range.tokens.toLocaleString(),
			bytesText(model.range.bytes),
			String(model.series.t.length),
		),
	);

	fillTable(
		'runtimes',
		model.runtimes.map((r) =>
			row([
				{ text: r.name, header: true, title: r.runtimeId },
				{ text: num(r.inRange.events), numeric: true },
				{ text: num(r.inRange.tokens), numeric: true },
				{ text: bytesText(r.inRange.bytes), numeric: true },
				{ text: r.summary ? num(r.summary.applied) : text('noSummary'), numeric: true, title: r.summaryError },
				{ text: r.summary ? num(r.summary.tokens) : '–', numeric: true },
				{ text: r.summary?.bytes === undefined ? '–' : bytesText(r.summary.bytes), numeric: true },
				{ text: r.summary ? num(r.summary.malformed) : '–', numeric: true },
			]),
		),
		text('empty'),
		8,
	);
	fillTable(
		'methods',
		model.methods.map((m) =>
			row([
				{ text: m.method === '' ? text('other') : m.method, header: true },
				{ text: num(m.events), numeric: true },
				{ text: num(m.tokens), numeric: true },
				{ text: bytesText(m.bytes), numeric: true },
			]),
		),
		text('empty'),
		4,
	);
	fillTable(
		'recent',
		model.recent.map((r) =>
			row([
				{ text: when(r.observedMs), header: true },
				{ text: r.runtime },
				{ text: r.methods },
				{ text: num(r.tokens), numeric: true },
				{ text: r.bytes === undefined ? '–' : bytesText(r.bytes), numeric: true },
				{ text: r.id },
			]),
		),
		text('empty'),
		6,
	);
}

function setBusy(busy: boolean): void {
	cancelButton.hidden = !busy;
	document.body.setAttribute('aria-busy', String(busy));
}

function sendFilter(): void {
	const range = SAVINGS_RANGES.find((r) => r === rangeSelect.value) ?? '7d';
	state = { range, runtimeId: runtimeSelect.value };
	host.setState(state);
	host.postMessage({ type: 'setFilter', range, runtimeId: state.runtimeId });
}

/**
 * Shows `filter` in the selects and saves it: the filter the extension reads is the one the page
 * shows. An `init` the extension posted while the page's own change was on its way would otherwise
 * leave the selects on the old filter above the new filter's data, and the next change would send
 * that old range back (the extension's 'loading' and 'data' that follow carry the filter it reads).
 */
function showFilter(filter: SavingsPageState): void {
	state = filter;
	host.setState(state);
	rangeSelect.value = state.range;
	runtimeSelect.value = state.runtimeId;
}

/** Drops every figure of the account (signed out): the totals read "–", no chart, no notes, empty tables. */
function clearModel(): void {
	lastModel = undefined;
	for (const id of ['range-tokens', 'range-bytes', 'range-events', 'account-tokens', 'account-bytes', 'account-events']) {
		setText(id, '–');
	}
	notesList.replaceChildren();
	notesList.hidden = true;
	chart?.destroy();
	chart = undefined;
	chartBox.replaceChildren();
	chartEmpty.hidden = true;
	for (const id of ['runtimes', 'methods', 'recent']) {
		byId(id, HTMLTableElement).tBodies[0]!.replaceChildren();
	}
}

function handle(message: SavingsHostMessage): void {
	switch (message.type) {
		case 'init': {
			strings = message.strings;
			const options = message.runtimes.map((r) => {
				const option = document.createElement('option');
				option.value = r.id;
				option.textContent = r.name;
				return option;
			});
			runtimeSelect.replaceChildren(runtimeSelect.options[0]!, ...options);
			runtimeSelect.options[0]!.textContent = text('allRuntimes');
			showFilter(message.filter);
			return;
		}
		case 'loading':
			showFilter(message.filter);
			setBusy(true);
			show(text('loading', '0'));
			return;
		case 'progress':
			show(text('loading', message.events.toLocaleString()));
			return;
		case 'data':
			showFilter(message.model.filter);
			setBusy(false);
			drawModel(message.model);
			show(text('loaded', message.model.range.events.toLocaleString(), when(message.model.loadedAt)));
			return;
		case 'error':
			setBusy(false);
			show(message.message, 'error');
			return;
		case 'signedOut':
			setBusy(false);
			clearModel();
			show(message.message, 'error');
			return;
		case 'exported':
			show(message.message);
			return;
	}
}

rangeSelect.addEventListener('change', sendFilter);
runtimeSelect.addEventListener('change', sendFilter);
refreshButton.addEventListener('click', () => host.postMessage({ type: 'refresh' }));
cancelButton.addEventListener('click', () => host.postMessage({ type: 'cancel' }));
exportButton.addEventListener('click', () => host.postMessage({ type: 'exportCsv' }));
rangeSelect.value = state.range;

// A theme change re-reads the chart colours (VS Code changes the body's class and the variables).
new MutationObserver(() => {
	if (lastModel) {
		chart?.redraw();
	}
}).observe(document.body, { attributes: true, attributeFilter: ['class'] });

onHostMessage(isSavingsHostMessage, handle);
host.postMessage({ type: 'ready' });
