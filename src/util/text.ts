/**
 * Server text made safe to show: the one place that decides how untrusted strings from the service
 * reach labels, descriptions, tooltips, quick picks, notifications, output channels and documents.
 * Plain functions (no vscode), so unit tests run in plain Node.
 *
 * Every function removes terminal escape sequences, control characters (C0 and C1, except a newline
 * where the context allows several lines, and a tab), bidirectional overrides, embeddings, isolates
 * and marks (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C) and invisible characters used for
 * spoofing (zero-width space, word joiner, invisible operators, BOM, soft hyphen), and cuts the text
 * to a length with "…". Zero-width joiner and non-joiner are kept: scripts and emoji need them and
 * they cannot reorder or hide text.
 */
import { SAFETY } from '../base/limits';

/** The mark that ends text that was cut. */
export const ELLIPSIS = '…';

/** The visible mark that stands for a line break in single-line output (`outputLine`). */
export const NEWLINE_MARK = '⏎';

// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), other two-character escapes, and C1 CSI.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-_]|\u009b[0-?]*[ -/]*[@-~]/g;
/** Line breaks of any convention: CRLF, CR, NEL (U+0085), line and paragraph separators, VT, FF. */
// eslint-disable-next-line no-control-regex
const LINE_BREAK = /\r\n|[\r\u0085\u2028\u2029\u000b\u000c]/g;
/** C0 and C1 control characters other than tab and newline, and DEL. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000e-\u001f\u007f-\u009f]/g;
/** Bidirectional embeddings, overrides, isolates and marks. */
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g;
/** Invisible characters that can hide or disguise text (ZWJ/ZWNJ are kept: scripts need them). */
const INVISIBLE = /[\u200b\u2060-\u2064\ufeff\u00ad\u180e\u206a-\u206f]/g;
/** Lone surrogates (from cutting elsewhere, or sent on purpose) render as boxes or break encoders. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text or anything else: strings as they are, other values (numbers, null) as their string form. */
function asString(value: unknown): string {
	if (typeof value === 'string') {
		return value;
	}
	if (value === undefined || value === null) {
		return '';
	}
	return typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint' ? String(value) : '';
}

/** Cuts `text` to at most `max` characters (code points kept whole), ending with "…" when cut. */
export function cut(text: string, max: number): string {
	if (!(max > 0)) {
		return '';
	}
	if (text.length <= max) {
		return text;
	}
	let end = max - ELLIPSIS.length;
	// Never split a surrogate pair.
	if (end > 0 && /[\ud800-\udbff]/.test(text.charAt(end - 1))) {
		end--;
	}
	return `${text.slice(0, Math.max(0, end))}${ELLIPSIS}`;
}

/** Removes escape sequences, controls (keeping `\n` and `\t`), bidi and invisible characters; line breaks become `\n`. */
function neutralise(value: unknown): string {
	return asString(value)
		.replace(ANSI, '')
		.replace(LINE_BREAK, '\n')
		.replace(CONTROL, '')
		.replace(BIDI, '')
		.replace(INVISIBLE, '')
		.replace(LONE_SURROGATE, '\ufffd');
}

/**
 * Server text for a context that may show several lines (tooltips, documents, modal details):
 * neutralised (see the module comment), line breaks as `\n`, cut to `max` characters.
 */
export function plainText(value: unknown, max: number = SAFETY.tooltipMaxChars): string {
	return cut(neutralise(value), max);
}

/**
 * Server text for a one-line context (tree labels and descriptions, quick-pick items, status
 * bar): neutralised, runs of white space (line breaks included) become one space, trimmed, cut to
 * `max`. `newline` replaces line breaks instead when given (e.g. `NEWLINE_MARK`).
 */
export function singleLine(value: unknown, max: number = SAFETY.labelMaxChars, newline?: string): string {
	let text = neutralise(value);
	if (newline !== undefined) {
		text = text.replace(/[ \t]*\n[ \t]*/g, ` ${newline} `);
	}
	return cut(text.replace(/\s+/g, ' ').trim(), max);
}

/**
 * Breaks the link syntax VS Code turns into clickable links in notification messages
 * (`[label](https:…|command:…|file:…)`; backslash escapes are not honoured there) and bare
 * `command:` URIs: `](` becomes `] (` and `command:` becomes `command: `.
 */
export function unlink(text: string): string {
	return text.replace(/\]\s*\(/g, '] (').replace(/(command):(?=\S)/gi, '$1: ');
}

/**
 * Server text in a notification message (`showInformation/Warning/ErrorMessage`, modal or not):
 * one line, neutralised, no link syntax left that VS Code would render as a clickable link, cut
 * to `SAFETY.notificationMaxChars`. Apply it to the whole message, after interpolation.
 */
export function notificationText(value: unknown, max: number = SAFETY.notificationMaxChars): string {
	return cut(unlink(singleLine(value, Number.MAX_SAFE_INTEGER)), max);
}

/**
 * Server text that becomes one line of an output channel: line breaks shown as `⏎` (so text cannot
 * start a line of its own and fake an event header), neutralised, cut to `max`.
 */
export function outputLine(value: unknown, max: number = SAFETY.outputLineMaxChars): string {
	return singleLine(value, max, NEWLINE_MARK);
}

/**
 * Server text in a quick-pick item or the status bar, where `$(name)` renders a theme icon: one
 * line, neutralised, cut to `max`, with `$(` escaped so it shows as typed.
 */
export function iconSafe(value: unknown, max: number = SAFETY.labelMaxChars): string {
	// VS Code renders `\$(name)` as the literal text `$(name)`.
	return singleLine(value, max).replace(/\$\(/g, '\\$(');
}

/**
 * Server text inside a Markdown document (run results): several lines, neutralised, and every
 * character that can start a link, image, autolink, raw HTML or entity (`\ [ ] < &`) escaped with
 * a backslash, so the preview shows the text but nothing in it becomes a link (no command URIs,
 * no remote images). Headings, lists and emphasis still render.
 */
export function markdownText(value: unknown, max: number = SAFETY.documentMaxChars): string {
	return plainText(value, max).replace(/[\\[\]<&]/g, '\\$&');
}

/**
 * Removes ANSI escape sequences and control characters except tab and newline (and the bidi and
 * invisible characters listed in the module comment), without cutting.
 */
export function stripControls(value: unknown): string {
	return neutralise(value);
}

/**
 * A server value (a status) as one token of a tree row's `contextValue`: lower case, letters,
 * digits, `_` and `-` only, at most 32 characters, else `unknown`. A crafted status such as
 * `running:hasResult` can then never switch on menu items meant for another state.
 */
export function contextToken(value: unknown): string {
	const t = typeof value === 'string' ? value.toLowerCase() : '';
	return /^[a-z0-9_-]{1,32}$/.test(t) ? t : 'unknown';
}
