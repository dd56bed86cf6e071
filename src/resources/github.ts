import * as vscode from 'vscode';
import type { GitHubAuthorizationRequest } from '../api';
import type { ListDescriptor } from '../views/descriptor';
import { joinParts, plainTooltip } from '../views/format';

/** When a pending request expires (ms since the epoch); undefined when it does not say. */
export function requestExpiry(request: GitHubAuthorizationRequest): number | undefined {
	const lifecycle = (request as Record<string, unknown>).lifecycle;
	const at =
		lifecycle !== null && typeof lifecycle === 'object' ? (lifecycle as Record<string, unknown>).expires_at_unix_seconds : undefined;
	return typeof at === 'number' && Number.isFinite(at) ? at * 1000 : undefined;
}

/** The request's https authorization URL; undefined for anything else (never opened). */
export function authorizationUrl(request: GitHubAuthorizationRequest): vscode.Uri | undefined {
	const lifecycle = (request as Record<string, unknown>).lifecycle;
	const url = lifecycle !== null && typeof lifecycle === 'object' ? (lifecycle as Record<string, unknown>).authorization_url : undefined;
	if (typeof url !== 'string') {
		return undefined;
	}
	try {
		const parsed = new URL(url);
		return parsed.protocol === 'https:' && parsed.username === '' && parsed.password === ''
			? vscode.Uri.parse(parsed.toString(), true)
			: undefined;
	} catch {
		return undefined;
	}
}

/** True for a request still pending and not expired at `now`. */
export function isOpenRequest(request: GitHubAuthorizationRequest, now = Date.now()): boolean {
	const status = ((request as Record<string, unknown>).lifecycle as Record<string, unknown> | undefined)?.status;
	const expiry = requestExpiry(request);
	return (status === undefined || status === 'pending') && (expiry === undefined || expiry > now);
}

/** Time left in words: "12 min left", "2 h left", "less than a minute left". */
export function timeLeft(expiryMs: number | undefined, now = Date.now()): string | undefined {
	if (expiryMs === undefined) {
		return undefined;
	}
	const min = Math.floor((expiryMs - now) / 60_000);
	if (min < 1) {
		return vscode.l10n.t('less than a minute left');
	}
	return min < 120 ? vscode.l10n.t('{0} min left', min) : vscode.l10n.t('{0} h left', Math.floor(min / 60));
}

let expiryTimer: ReturnType<typeof setTimeout> | undefined;
/** The longest a timer waits (setTimeout's bound). */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Refreshes the group when the next request expires (one timer for the view: set again at each
 * load), so an expired request drops off without a manual refresh.
 */
function refreshAtNextExpiry(requests: readonly GitHubAuthorizationRequest[]): void {
	if (expiryTimer) {
		clearTimeout(expiryTimer);
		expiryTimer = undefined;
	}
	const next = Math.min(...requests.map((r) => requestExpiry(r) ?? Infinity));
	if (!Number.isFinite(next)) {
		return;
	}
	const delay = Math.min(MAX_TIMER_MS, Math.max(1_000, next - Date.now() + 500));
	expiryTimer = setTimeout(() => {
		expiryTimer = undefined;
		void vscode.commands.executeCommand('cloudAgents.github.refreshRequests');
	}, delay);
}

/** What a GitHub request command receives. */
export interface GitHubRequestTarget {
	request: GitHubAuthorizationRequest;
}

const str = (r: GitHubAuthorizationRequest, name: string): string | undefined => {
	const v = (r as Record<string, unknown>)[name];
	return typeof v === 'string' ? v : undefined;
};

/**
 * Pending GitHub authorization requests (the Account view's "GitHub Requests" group): who asked,
 * why, how long is left; expired ones are left out and the group refreshes when the next one
 * expires. Rows `githubRequest:pending`; a click asks, then opens the https authorization URL.
 */
export const githubRequestsList: ListDescriptor<GitHubAuthorizationRequest, GitHubRequestTarget, unknown> = {
	key: 'githubRequests',
	kind: 'githubRequest',
	title: () => vscode.l10n.t('GitHub Requests'),
	commands: { refresh: 'cloudAgents.github.refreshRequests' },
	source: {
		list: async (ctx, request) => {
			const all = await ctx.client().listGitHubAuthorizationRequests({ signal: request.signal });
			const open = all.filter((r) => isOpenRequest(r));
			refreshAtNextExpiry(open);
			return { items: open.sort((a, b) => (requestExpiry(a) ?? Infinity) - (requestExpiry(b) ?? Infinity)), more: false };
		},
	},
	keyOf: (r) => r.request_id,
	fields: (request) => ({ request }),
	row: (r) => {
		const expiry = requestExpiry(r);
		const created = (r as Record<string, unknown>).created_at_unix_seconds;
		return {
			label: str(r, 'reason') || vscode.l10n.t('Access requested by {0}', str(r, 'requested_by') ?? '?'),
			description: joinParts(str(r, 'requested_by'), timeLeft(expiry)),
			icon: new vscode.ThemeIcon('github'),
			contextValue: authorizationUrl(r) ? 'githubRequest:pending:https' : 'githubRequest:pending',
			tooltip: plainTooltip(vscode.l10n.t('GitHub authorization request'), [
				[vscode.l10n.t('Requested by'), str(r, 'requested_by')],
				[vscode.l10n.t('Reason'), str(r, 'reason')],
				[vscode.l10n.t('Requested'), typeof created === 'number' ? new Date(created * 1000).toLocaleString() : undefined],
				[
					vscode.l10n.t('Expires'),
					expiry !== undefined ? `${new Date(expiry).toLocaleString()} (${timeLeft(expiry) ?? ''})` : undefined,
				],
				[vscode.l10n.t('Opens'), authorizationUrl(r)?.authority],
				[vscode.l10n.t('ID'), r.request_id],
			]),
			command: { command: 'cloudAgents.github.authorize', title: vscode.l10n.t('Authorize…') },
		};
	},
	empty: () => ({
		label: vscode.l10n.t('No pending GitHub requests'),
		tooltip: vscode.l10n.t('When an agent asks for access to GitHub, its request shows here until it is authorized or expires.'),
	}),
};
