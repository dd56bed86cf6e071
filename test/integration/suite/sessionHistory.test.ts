import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { SessionHistoryResult } from '../../../src/resources/sessionHistory';
import { counters, emu, restoreDevToken, testApi } from '../support/cloudAgents';
import { devToken } from '../support/env';

/**
 * "Show Session History" (src/resources/sessionHistory.ts) against the emulator inside VS Code, in
 * both profiles (the replay's items differ): the session's events are stored as JSON Lines, a
 * second call adds nothing twice, and a replay over the output cap (422) is read from the run's
 * event stream instead.
 */

interface State {
	runs: Array<{ id: string; agent_id: string; dsh_session_id?: string; created_ms: number; event_count: number }>;
}
const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const run = <T>(command: string, ...args: unknown[]): Thenable<T> => vscode.commands.executeCommand<T>(command, ...args);
const ROUTE = 'GET /v2/agents/{agent_id}/events';

/** The events the service replays for an agent now (as the API answers them). */
async function replayed(agentId: string): Promise<number> {
	const answer = await emu<{ events: unknown[] }>('GET', `/v2/agents/${encodeURIComponent(agentId)}/events`, undefined, devToken());
	assert.equal(answer.status, 200);
	return answer.body.events.length;
}

/** The stored lines of `file` (a path, or a URI where the store is not on `file:`, as in VS Code for the Web). */
const lines = async (file: string): Promise<Array<{ seq: number }>> =>
	new TextDecoder()
		.decode(
			await vscode.workspace.fs.readFile(
				/^[a-z][a-z0-9+.-]+:/i.test(file) && !/^[a-z]:[\\/]/i.test(file) ? vscode.Uri.parse(file) : vscode.Uri.file(file),
			),
		)
		.split('\n')
		.filter((l) => l.trim() !== '')
		.map((l) => JSON.parse(l) as { seq: number });

suite('Agent session history [variant]', () => {
	let agents: string[];

	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
		// Agents whose newest run has a session, the longest session first.
		const s = await state();
		const newest = new Map<string, State['runs'][number]>();
		for (const r of s.runs) {
			if (r.dsh_session_id && (newest.get(r.agent_id)?.created_ms ?? -1) < r.created_ms) {
				newest.set(r.agent_id, r);
			}
		}
		agents = [...newest.values()].sort((a, b) => b.event_count - a.event_count).map((r) => r.agent_id);
		assert.ok(agents.length >= 2, 'two agents with sessions in the seed');
	});

	test('the session is stored as JSON Lines in order; a second call stores nothing twice [web]', async function () {
		this.timeout(60_000);
		const agentId = agents[0]!;
		const expected = await replayed(agentId);
		assert.ok(expected > 0);
		const before = (await counters()).requests.by_route[ROUTE] ?? 0;
		const first = await run<SessionHistoryResult>('cloudAgents.agents.showSessionHistory', {
			automation: true,
			agentId,
			quiet: true,
			rethrow: true,
		});
		assert.equal(first.via, 'replay');
		assert.ok(first.sessionId && first.file);
		const stored = await lines(first.file);
		assert.equal(stored.length, first.stored + first.added);
		assert.ok(stored.length >= expected, `${stored.length} stored, ${expected} replayed`);
		assert.deepEqual(
			stored.map((e) => e.seq),
			[...stored.map((e) => e.seq)].sort((a, b) => a - b),
			'in sequence order',
		);
		assert.equal(new Set(stored.map((e) => e.seq)).size, stored.length, 'no event twice');
		const second = await run<SessionHistoryResult>('cloudAgents.agents.showSessionHistory', {
			automation: true,
			agentId,
			quiet: true,
			rethrow: true,
		});
		assert.equal(second.added, 0);
		assert.equal(second.stored, stored.length);
		assert.equal((await lines(first.file)).length, stored.length);
		assert.equal((await counters()).requests.by_route[ROUTE], before + 2);
	});

	test("a replay over the output cap (422) is read from the run's event stream instead", async function () {
		this.timeout(60_000);
		const agentId = agents[1]!;
		const s = await state();
		const sessionRun = s.runs.filter((r) => r.agent_id === agentId && r.dsh_session_id).sort((a, b) => b.created_ms - a.created_ms)[0]!;
		await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/agents/{agent_id}/events', status: 422, count: 1 }] });
		try {
			const result = await run<SessionHistoryResult>('cloudAgents.agents.showSessionHistory', {
				automation: true,
				agentId,
				quiet: true,
				rethrow: true,
			});
			assert.equal(result.via, 'stream');
			assert.equal(result.sessionId, sessionRun.dsh_session_id);
			const stored = await lines(result.file!);
			await emu('DELETE', '/_emulator/faults');
			// Every event the service has for the session (the replay, now within the cap, says how many).
			assert.equal(stored.length, await replayed(agentId), 'every event of the session run');
			assert.ok(stored.length >= sessionRun.event_count - 1);
			assert.equal(new Set(stored.map((e) => e.seq)).size, stored.length);
		} finally {
			await emu('DELETE', '/_emulator/faults');
		}
	});
});
