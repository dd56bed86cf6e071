/**
 * Send to Agent (issue 21): a local file's content (or its absence) written to the agent's
 * workspace, guarded by the conflict check: the agent-side copy must still be what was listed
 * (same presence, size and mtime), else nothing is written and AgentChangedError says so. Plain
 * Node, no `vscode`.
 */
import { ApiError, type CloudAgentsClient } from '../api';
import type { FileFacts } from './types';

/** The agent's copy changed since it was listed: a conflict, not an overwrite. */
export class AgentChangedError extends Error {
	override readonly name = 'AgentChangedError';
	constructor(
		/** The agent-side path. */
		readonly path: string,
		/** What is there now (undefined: absent). */
		readonly now: FileFacts | undefined,
	) {
		super(`The agent's copy of ${path} changed since it was listed; nothing was sent.`);
	}
}

/** The agent-side file's facts, or undefined when there is none (404). */
export async function statAgentFile(
	client: CloudAgentsClient,
	agentId: string,
	agentPath: string,
	signal?: AbortSignal,
): Promise<FileFacts | undefined> {
	try {
		const entry = await client.statWorkspace(agentId, agentPath, { signal });
		return { size: entry.size, mtime: entry.mtime_unix_ms };
	} catch (err) {
		if (err instanceof ApiError && err.status === 404) {
			return undefined;
		}
		throw err;
	}
}

function same(a: FileFacts | undefined, b: FileFacts | undefined): boolean {
	return a === undefined || b === undefined ? a === b : a.size === b.size && a.mtime === b.mtime;
}

/**
 * Writes `content` to `agentPath` (undefined: deletes it) when the agent's copy is still `expected`
 * (undefined: expected absent); the new facts (re-stat after a write), undefined after a delete.
 * Throws AgentChangedError, having written nothing, when the agent's copy is not what was listed.
 */
export async function sendToAgent(
	client: CloudAgentsClient,
	agentId: string,
	agentPath: string,
	content: Uint8Array | undefined,
	expected: FileFacts | undefined,
	signal?: AbortSignal,
): Promise<FileFacts | undefined> {
	const now = await statAgentFile(client, agentId, agentPath, signal);
	if (!same(now, expected)) {
		throw new AgentChangedError(agentPath, now);
	}
	if (content === undefined) {
		if (now !== undefined) {
			await client.deleteWorkspacePath(agentId, agentPath, { signal });
		}
		return undefined;
	}
	await client.writeWorkspaceFile(agentId, agentPath, content, { signal });
	return statAgentFile(client, agentId, agentPath, signal);
}
