/** "Search Workspace…": the service's text search over an agent workspace, a pick of the matches, the chosen one opened at its position. */
import * as vscode from 'vscode';
import { LIMITS, SAFETY, utf8Length } from '../api';
import { iconSafe, notificationText } from '../util/text';
import { usableMatches } from './fs/searchMatches';
import type { AgentWorkspaces } from './deploymentWorkspace';

/** What to search: the query (asked when missing), and for automation the match to open without UI. */
export interface SearchRequest {
	query?: string;
	/** Index of the match to open without showing the pick. */
	pick?: number;
	/** The agent's name, for the titles of the query box and the pick (the id when not given). */
	name?: string;
}

/**
 * Searches an agent's workspace and opens the chosen match with its text selected. Resolves with
 * the opened URI, undefined when the user cancelled or nothing matched. A workspace whose
 * interface differs is not asked (its error is thrown).
 */
export async function searchAgentWorkspace(
	feature: AgentWorkspaces,
	agentId: string,
	request: SearchRequest = {},
): Promise<vscode.Uri | undefined> {
	const name = request.name ?? agentId;
	const query = request.query ?? (await askQuery(name));
	if (!query) {
		return undefined;
	}
	// A server whose workspace interface differs is not asked again (until a retry).
	const stopped = feature.cache.interfaceError(agentId);
	if (stopped) {
		throw stopped;
	}
	// The client validates the query (1 to 256 bytes) before sending anything.
	const result = await feature.client.searchWorkspace(agentId, query);
	// At most the documented maximum of matches is shown; unusable paths and positions are dropped.
	const { matches: usable, truncated } = usableMatches(result);
	// Server text in the pick: one line, cut, `$(icon)` shown as typed.
	const matches = usable.map((m, index) => ({
		label: iconSafe(`${m.path}:${m.line}`, SAFETY.labelMaxChars),
		description: iconSafe(vscode.l10n.t('column {0}', m.column), SAFETY.descriptionMaxChars),
		detail: iconSafe(m.preview.trim(), SAFETY.descriptionMaxChars),
		index,
		match: m,
	}));
	let chosen: (typeof matches)[number] | undefined;
	if (request.pick !== undefined) {
		chosen = matches[request.pick];
		if (!chosen) {
			throw new Error(
				matches.length === 1
					? vscode.l10n.t('There is no match number {0} for "{1}" (1 found).', request.pick, query)
					: vscode.l10n.t('There is no match number {0} for "{1}" ({2} found).', request.pick, query, matches.length),
			);
		}
	} else {
		if (matches.length === 0) {
			void vscode.window.showInformationMessage(
				notificationText(vscode.l10n.t('No matches for "{0}" in the agent workspace.', query)),
			);
			return undefined;
		}
		// The query stays in sight: the pick's title says what was searched where (issue 42, item 11).
		chosen = await vscode.window.showQuickPick(matches, {
			title: vscode.l10n.t('Search {0}: "{1}" — {2}', name, query, matchesText(matches.length, truncated)),
			placeHolder: vscode.l10n.t('Type to filter the matches'),
			matchOnDetail: true,
		});
	}
	if (!chosen) {
		return undefined;
	}
	const { match } = chosen;
	const uri = feature.uriFor(agentId, match.path);
	const line = Math.max(0, match.line - 1);
	const column = Math.max(0, match.column - 1);
	const selection = new vscode.Range(line, column, line, column + query.length);
	await vscode.window.showTextDocument(uri, { selection, preview: true });
	return uri;
}

/**
 * The query's box, titled with the agent's name. Enter on an empty box says what it needs and keeps
 * the box (it used to close without a word); over the service's limit is said as it is typed.
 * Resolves with the query, undefined when dismissed.
 */
function askQuery(name: string): Promise<string | undefined> {
	const box = vscode.window.createInputBox();
	box.title = vscode.l10n.t('Search {0}', name);
	box.prompt = vscode.l10n.t('Search the agent workspace');
	box.placeholder = vscode.l10n.t('Text to find (at most {0} bytes)', LIMITS.searchQueryBytes.max);
	const tooLong = (value: string): string | undefined => {
		const bytes = utf8Length(value);
		return bytes > LIMITS.searchQueryBytes.max
			? vscode.l10n.t('At most {0} bytes (this is {1}).', LIMITS.searchQueryBytes.max, bytes)
			: undefined;
	};
	return new Promise<string | undefined>((resolve) => {
		let answer: string | undefined;
		const subs = [
			box.onDidChangeValue((value) => {
				box.validationMessage = tooLong(value);
			}),
			box.onDidAccept(() => {
				if (box.value === '') {
					box.validationMessage = vscode.l10n.t('Type the text to find.');
					return;
				}
				if (tooLong(box.value) === undefined) {
					answer = box.value;
					box.hide();
				}
			}),
			box.onDidHide(() => {
				for (const d of subs) {
					d.dispose();
				}
				box.dispose();
				resolve(answer);
			}),
		];
		box.show();
	});
}

/** How many matches ("1 match", "3 matches"), and whether more exist. */
function matchesText(n: number, truncated: boolean): string {
	if (truncated) {
		return n === 1
			? vscode.l10n.t('1 match (truncated: more exist, refine the query)')
			: vscode.l10n.t('{0} matches (truncated: more exist, refine the query)', n);
	}
	return n === 1 ? vscode.l10n.t('1 match') : vscode.l10n.t('{0} matches', n);
}
