/**
 * The matches of a workspace search as the pick shows them: server answers checked (a usable path,
 * positions from 1, text previews) and cut to the documented maximum. No `vscode` import, so the
 * unit tests check it on its own.
 */
import { LIMITS, isJsonObject } from '../../api';
import type { WorkspaceSearchMatch, WorkspaceSearchResult } from '../../api';
import { normalizeWorkspacePath } from '../../util/paths';

/** One match the pick can open: a normalised workspace path, 1-based line and column, a preview. */
export interface UsableMatch {
	path: string;
	line: number;
	column: number;
	preview: string;
}

/** A search match from the server with a usable path and position, or undefined. */
export function usableMatch(m: WorkspaceSearchMatch): UsableMatch | undefined {
	if (!isJsonObject(m) || typeof m.path !== 'string') {
		return undefined;
	}
	let path: string;
	try {
		path = normalizeWorkspacePath(m.path);
	} catch {
		return undefined;
	}
	const position = (n: unknown): number => (typeof n === 'number' && Number.isSafeInteger(n) && n >= 1 ? n : 1);
	return { path, line: position(m.line), column: position(m.column), preview: typeof m.preview === 'string' ? m.preview : '' };
}

/**
 * The usable matches of a search answer: at most `LIMITS.searchMaxResults.max` are considered,
 * unusable paths dropped; `truncated` when the server said so or sent more than that maximum.
 */
export function usableMatches(result: Pick<WorkspaceSearchResult, 'matches' | 'truncated'>): {
	matches: UsableMatch[];
	truncated: boolean;
} {
	const all: unknown = result.matches;
	const list = Array.isArray(all) ? (all as WorkspaceSearchMatch[]) : [];
	const matches = list
		.slice(0, LIMITS.searchMaxResults.max)
		.map(usableMatch)
		.filter((m) => m !== undefined);
	const truncated = Boolean(result.truncated) || list.length > LIMITS.searchMaxResults.max;
	return { matches, truncated };
}
