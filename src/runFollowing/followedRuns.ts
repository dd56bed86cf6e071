/**
 * The runs a window follows, as it keeps them in its workspace state so that a reload (or the next
 * start) follows them again: run ids only, never a token, a title or an event. Without `vscode`
 * (the unit tests read it in plain Node).
 */
import { SAFETY } from '../api';

/** One run a window follows: its agent's id and its own. */
export interface FollowedRunKey {
	agentId: string;
	runId: string;
}

/** Most runs a window remembers to follow again (the newest are kept). */
export const MAX_REMEMBERED_RUNS = 50;

function isId(value: unknown): value is string {
	return typeof value === 'string' && value.length > 0 && value.length <= SAFETY.idMaxChars;
}

/**
 * Reads what the workspace state holds (written by an earlier window, or anything else): the
 * well-formed entries, without duplicates, at most `MAX_REMEMBERED_RUNS` (the last ones); anything
 * else gives an empty list.
 */
export function parseFollowedRuns(value: unknown): FollowedRunKey[] {
	if (!Array.isArray(value)) {
		return [];
	}
	const runs: FollowedRunKey[] = [];
	for (const entry of value.slice(-MAX_REMEMBERED_RUNS) as unknown[]) {
		if (entry === null || typeof entry !== 'object') {
			continue;
		}
		const { agentId, runId } = entry as { agentId?: unknown; runId?: unknown };
		if (isId(agentId) && isId(runId) && !runs.some((r) => r.agentId === agentId && r.runId === runId)) {
			runs.push({ agentId, runId });
		}
	}
	return runs;
}

/** What is written to the workspace state: ids only, without duplicates, the last `MAX_REMEMBERED_RUNS`. */
export function followedRunsToStore(runs: readonly FollowedRunKey[]): FollowedRunKey[] {
	return parseFollowedRuns(runs.map((r) => ({ agentId: r.agentId, runId: r.runId })));
}
