/**
 * The messages between the Token Savings panel (src/webviews/savings/savingsPanel.ts) and its page
 * (src/webviews/pages/savings/main.ts). Shared by both; imports neither vscode nor node.
 */
import type { MessageSpec } from '../messages';
import { messageValidator } from '../messages';

/** The time ranges the page offers (the same list as `RANGE_IDS` in data.ts, checked by a unit test). */
export const SAVINGS_RANGES = ['24h', '7d', '30d', '90d', 'all'] as const;
/** A time range. */
export type SavingsRange = (typeof SAVINGS_RANGES)[number];

/** Longest runtime id the page may send back (SAFETY.idMaxChars). */
const RUNTIME_ID_MAX = 255;

/** The page's filter: a range and a runtime id ('' for every runtime). */
export interface SavingsPageFilter {
	range: SavingsRange;
	runtimeId: string;
}

/** Sums of a group of events (saved tokens and bytes). */
export interface PageSums {
	events: number;
	tokens: number;
	bytes: number;
}

/** A runtime row: events in range and the runtime's all-time summary (server text made single-line). */
export interface PageRuntimeRow {
	runtimeId: string;
	name: string;
	inRange: PageSums;
	/** The runtime's savings summary (all time), when read. */
	summary?:
		| { applied?: number | undefined; tokens?: number | undefined; bytes?: number | undefined; malformed?: number | undefined }
		| undefined;
	/** Why the summary could not be read (with the request id). */
	summaryError?: string | undefined;
}

/** What the page draws for one filter; every string from the server is single-line text already. */
export interface SavingsModel {
	filter: SavingsPageFilter;
	unit: 'hour' | 'day';
	/** Bucket starts in seconds (uPlot's x values) and the sums per bucket. */
	series: { t: number[]; tokens: number[]; bytes: number[]; events: number[] };
	/** The service's totals of the whole account (all time), whatever the filter; undefined members were malformed. */
	account: { events?: number | undefined; tokens?: number | undefined; bytes?: number | undefined } | undefined;
	/** Sums over the events in the range. */
	range: PageSums;
	methods: Array<PageSums & { method: string }>;
	runtimes: PageRuntimeRow[];
	recent: Array<{
		id: string;
		observedMs: number;
		runtime: string;
		methods: string;
		tokens?: number | undefined;
		bytes?: number | undefined;
	}>;
	/** Notes for the user (cap reached, malformed values ignored, filter ignored by the server, …), localised. */
	notes: string[];
	/** When the data was read (Unix ms). */
	loadedAt: number;
}

/** The page's texts, localised by the extension. */
export const SAVINGS_STRING_KEYS = [
	'loading',
	'loaded',
	'tokens',
	'bytes',
	'events',
	'empty',
	'other',
	'allRuntimes',
	'chartLabel',
	'noSummary',
	'hour',
	'day',
	'cancelled',
] as const;

/** The localised texts of the page, by key (`{0}`, `{1}` filled in by the page). */
export type SavingsStrings = Record<(typeof SAVINGS_STRING_KEYS)[number], string>;

/** Extension → page. */
export type SavingsHostMessage =
	/** Sent first: texts, runtimes for the filter and the filter in use. */
	| { type: 'init'; strings: SavingsStrings; runtimes: Array<{ id: string; name: string }>; filter: SavingsPageFilter }
	/** Reading has started for this filter. */
	| { type: 'loading'; filter: SavingsPageFilter }
	/** Events read so far. */
	| { type: 'progress'; events: number; pages: number }
	/** The data for the filter. */
	| { type: 'data'; model: SavingsModel }
	/** Reading failed (text with the request id) or was cancelled. */
	| { type: 'error'; message: string }
	/** Not signed in (signed out, or the token refused): the page drops every figure of the account and says so. */
	| { type: 'signedOut'; message: string }
	/** An export ended (text for the status line). */
	| { type: 'exported'; message: string };

/** Page → extension. */
export type SavingsPageMessage =
	/** The page has loaded and listens. */
	| { type: 'ready' }
	/** Show this filter (reads the events again). */
	| { type: 'setFilter'; range: SavingsRange; runtimeId: string }
	/** Read the current filter again. */
	| { type: 'refresh' }
	/** Export the current filter's events as CSV (asks where). */
	| { type: 'exportCsv' }
	/** Stop the reading in progress. */
	| { type: 'cancel' };

/** The shape of every page message (see `messageValidator`). */
export const SAVINGS_PAGE_SPEC: MessageSpec = {
	ready: {},
	setFilter: { range: { kind: 'enum', values: SAVINGS_RANGES }, runtimeId: { kind: 'string', maxLength: RUNTIME_ID_MAX } },
	refresh: {},
	exportCsv: {},
	cancel: {},
};

/** Validates a message from the savings page (the panel also checks the runtime id is one it offered). */
export const validateSavingsPageMessage = messageValidator<SavingsPageMessage>(SAVINGS_PAGE_SPEC);

const HOST_TYPES: ReadonlySet<string> = new Set<SavingsHostMessage['type']>([
	'init',
	'loading',
	'progress',
	'data',
	'error',
	'signedOut',
	'exported',
]);

/** The page's check of a message from the extension (its type only: the extension is trusted). */
export function isSavingsHostMessage(message: { type: string }): message is SavingsHostMessage {
	return HOST_TYPES.has(message.type);
}

/** What the page saves with `setState`, and a restored panel is handed: the filter only. */
export type SavingsPageState = SavingsPageFilter;

/** Reads a saved page state (untrusted shape), or undefined. */
export function parseSavingsPageState(raw: unknown): SavingsPageState | undefined {
	if (raw === null || typeof raw !== 'object') {
		return undefined;
	}
	const s = raw as Record<string, unknown>;
	const range = SAVINGS_RANGES.find((r) => r === s.range);
	if (range === undefined) {
		return undefined;
	}
	const runtimeId = typeof s.runtimeId === 'string' && s.runtimeId.length <= RUNTIME_ID_MAX ? s.runtimeId : '';
	return { range, runtimeId };
}
