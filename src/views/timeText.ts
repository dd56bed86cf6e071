/**
 * "3 days ago" for a decoded time (no `vscode` import at run time, so plain-Node unit tests run it;
 * format.ts passes `vscode.l10n` as the translator). It takes only `EpochMillis`, the type the
 * decoders in src/api produce, so a wire number in seconds cannot reach it unconverted.
 */
import type * as vscode from 'vscode';
import type { EpochMillis } from '../api';

/**
 * Fills a message's `{0}` placeholders and localises it: `vscode.l10n` in the extension. The
 * parameters are named `l10n` so that the calls read `l10n.t('…')`, which is what the l10n bundle's
 * export (scripts/lib/l10nBundle.mjs) looks for: the messages below are in the bundle translators get.
 */
export type L10n = Pick<typeof vscode.l10n, 't'>;

/** Fills `{0}` without translating (tests, and any caller without a translator). */
export const untranslated: L10n = {
	t: (message: string | { message: string }, ...args: unknown[]): string =>
		(typeof message === 'string' ? message : message.message).replace(/\{(\d+)\}/g, (m, i: string) => {
			const arg = args[Number(i)];
			return typeof arg === 'number' || typeof arg === 'string' ? String(arg) : m;
		}),
};

/**
 * "just now" (under 45 s, or in the future: clocks disagree), "1 min ago", "5 mins ago",
 * "1 hr ago", "3 hrs ago", "1 day ago", "3 days ago", and the date (YYYY-MM-DD, UTC) from 30
 * days on. The words are VS Code's own short ones (its `fromNow`).
 */
export function relativeTimeText(t: EpochMillis, now: number, l10n: L10n = untranslated): string {
	const s = Math.max(0, Math.round((now - t) / 1000));
	if (s < 45) {
		return l10n.t('just now');
	}
	const m = Math.round(s / 60);
	if (m < 60) {
		return m === 1 ? l10n.t('1 min ago') : l10n.t('{0} mins ago', m);
	}
	const h = Math.round(m / 60);
	if (h < 24) {
		return h === 1 ? l10n.t('1 hr ago') : l10n.t('{0} hrs ago', h);
	}
	const d = Math.round(h / 24);
	if (d < 30) {
		return d === 1 ? l10n.t('1 day ago') : l10n.t('{0} days ago', d);
	}
	return new Date(t).toISOString().slice(0, 10);
}

/**
 * A time as the user reads a record: the local date and time, then how long ago ("Mar 7, 2026,
 * 12:00 PM (3 days ago)"); from 30 days on only the local date and time (the relative part would be
 * the date again). `locale` is VS Code's display language (format.ts passes `vscode.env.language`).
 */
export function localTimeText(t: EpochMillis, now: number, l10n: L10n = untranslated, locale?: string): string {
	let local: string;
	try {
		local = new Date(t).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
	} catch {
		// An unknown locale tag: the runtime's own.
		local = new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
	}
	const ago = relativeTimeText(t, now, l10n);
	return /^\d{4}-\d{2}-\d{2}$/.test(ago) ? local : `${local} (${ago})`;
}
