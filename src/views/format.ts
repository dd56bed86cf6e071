import * as vscode from 'vscode';
import type { EpochMillis } from '../api';
import { SAFETY, agentStatusClass, runStatusClass } from '../api';
import { plainText, singleLine } from '../util/text';
import { localTimeText, relativeTimeText } from './timeText';

export { formatBytes, formatMemoryMib } from './units';

/**
 * Presentation helpers shared by the four trees: status icons with colour, relative times,
 * plain-string tooltips and `safeTreeItem`, the one place where a row's label, description and
 * tooltip are made safe (server text: no control or bidi characters, one line, cut to the limits).
 */

/** A status icon in the colour that says whether the thing is fine, busy, paused or broken. */
export function statusIcon(
	kind: 'ok' | 'ready' | 'active' | 'waiting' | 'paused' | 'failed' | 'stopped' | 'warning' | 'unknown',
): vscode.ThemeIcon {
	switch (kind) {
		case 'ok':
			return new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('charts.green'));
		case 'ready':
			// Waiting for work, not "succeeded": a plain outline circle, no green check.
			return new vscode.ThemeIcon('circle-large-outline');
		case 'active':
			return new vscode.ThemeIcon('sync~spin', new vscode.ThemeColor('charts.blue'));
		case 'waiting':
			return new vscode.ThemeIcon('clock', new vscode.ThemeColor('charts.yellow'));
		case 'paused':
			return new vscode.ThemeIcon('debug-pause', new vscode.ThemeColor('charts.yellow'));
		case 'failed':
			return new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed'));
		case 'stopped':
			return new vscode.ThemeIcon('circle-slash', new vscode.ThemeColor('disabledForeground'));
		case 'warning':
			return new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'));
		case 'unknown':
			return new vscode.ThemeIcon('question');
	}
}

/** Icon of an agent status (provisioning, idle, running, error, deleting, or unknown). */
export function agentStatusIcon(status: string | undefined): vscode.ThemeIcon {
	// Compared by class (src/api runStatusClass/agentStatusClass): other servers spell statuses differently.
	switch (agentStatusClass(status)) {
		case 'ready':
			return statusIcon('ready');
		case 'busy':
			return statusIcon('active');
		case 'failed':
			return statusIcon('failed');
		default:
			return statusIcon('unknown');
	}
}

/** Icon of a run status (succeeded, failed, cancelled, running, waiting, or unknown), whatever the spelling. */
export function runStatusIcon(status: string | undefined): vscode.ThemeIcon {
	switch (runStatusClass(status)) {
		case 'succeeded':
			return statusIcon('ok');
		case 'running':
			return statusIcon('active');
		case 'waiting':
			return statusIcon('waiting');
		case 'failed':
			return statusIcon('failed');
		case 'cancelled':
			return statusIcon('stopped');
		default:
			return statusIcon('unknown');
	}
}

/** Icon of a runtime status; `degraded` wins over a healthy status. */
export function runtimeStatusIcon(status: string | undefined, degraded: boolean, inTransition: boolean): vscode.ThemeIcon {
	if (degraded) {
		return statusIcon('warning');
	}
	if (inTransition) {
		return statusIcon('active');
	}
	switch (status) {
		case 'running':
			return statusIcon('ok');
		case 'paused':
		case 'suspended':
			return statusIcon('paused');
		case 'creating':
		case 'deleting':
			return statusIcon('active');
		case 'error':
		case 'crashed':
		case 'unavailable':
			return statusIcon('failed');
		case 'shutdown':
			return statusIcon('stopped');
		default:
			return statusIcon('unknown');
	}
}

/**
 * "just now", "5 mins ago", "3 hrs ago", "2 days ago", or the date for older times
 * (src/views/timeText.ts), localised; undefined when there is no time.
 */
export function relativeTime(value: EpochMillis | undefined, now = Date.now()): string | undefined {
	return value === undefined ? undefined : relativeTimeText(value, now, vscode.l10n);
}

/** "Mar 7, 2026, 12:00 PM (3 days ago)": local date and time, then how long ago (src/views/timeText.ts); undefined when there is no time. */
export function localTime(value: EpochMillis | undefined, now = Date.now()): string | undefined {
	return value === undefined ? undefined : localTimeText(value, now, vscode.l10n, vscode.env.language);
}

/** Joins the present parts of a description with " · ". */
export function joinParts(...parts: Array<string | undefined | false>): string {
	return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(' · ');
}

/** Shortens server text to one line of at most `max` characters (neutralised: see src/util/text.ts). */
export function oneLine(text: string | null | undefined, max = 80): string {
	return singleLine(text, max);
}

/**
 * A tooltip of "label: value" lines as a plain string (VS Code shows it as text: no Markdown, no
 * links). Values are server text, each on one line; the whole is cut to `SAFETY.tooltipMaxChars`.
 */
export function plainTooltip(title: string | undefined, lines: Array<[string, string | number | boolean | null | undefined]>): string {
	const out = [singleLine(title, SAFETY.labelMaxChars)];
	for (const [label, value] of lines) {
		if (value === undefined || value === null || value === '') {
			continue;
		}
		out.push(`${label}: ${singleLine(String(value), SAFETY.descriptionMaxChars * 2)}`);
	}
	return plainText(out.join('\n'), SAFETY.tooltipMaxChars);
}

/**
 * Makes a row safe to show, in place (idempotent): the label and description on one line and cut
 * to `SAFETY.labelMaxChars` / `descriptionMaxChars`, the tooltip as plain text cut to
 * `tooltipMaxChars` (a MarkdownString tooltip becomes its plain value, never trusted). Every tree
 * of the extension returns its rows through this (`DescriptorTreeProvider.getTreeItem`, listTree.ts).
 */
export function safeTreeItem<T extends vscode.TreeItem>(item: T): T {
	if (typeof item.label === 'string') {
		item.label = singleLine(item.label, SAFETY.labelMaxChars);
	} else if (item.label !== undefined) {
		// Highlights index the original text; they would point at the wrong characters after cleaning.
		item.label = { label: singleLine(item.label.label, SAFETY.labelMaxChars) };
	}
	if (typeof item.description === 'string') {
		item.description = singleLine(item.description, SAFETY.descriptionMaxChars);
	}
	if (typeof item.tooltip === 'string') {
		item.tooltip = plainText(item.tooltip, SAFETY.tooltipMaxChars);
	} else if (item.tooltip instanceof vscode.MarkdownString) {
		item.tooltip = plainText(item.tooltip.value, SAFETY.tooltipMaxChars);
	}
	return item;
}

/** The clock time a person reads ("14:02:11"), in VS Code's display language. */
export function clockTime(epochMs: number): string {
	try {
		return new Date(epochMs).toLocaleTimeString(vscode.env.language, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
	} catch {
		return new Date(epochMs).toLocaleTimeString();
	}
}
