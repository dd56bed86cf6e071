import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { WEBVIEW_TYPES } from '../../../src/ids';
import { emu, testApi, waitFor } from '../support/cloudAgents';

interface AgentBody {
	id: string;
	name: string;
}
interface SessionRow {
	id: string;
	agent_id: string;
}
interface State {
	agents: AgentBody[];
	computer_sessions: SessionRow[];
}

const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;

/** The open computer panels' tabs (a webview tab's viewType carries a workbench prefix). */
function computerTabs(): vscode.Tab[] {
	return vscode.window.tabGroups.all
		.flatMap((g) => g.tabs)
		.filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith(WEBVIEW_TYPES.computer));
}

suite('Computer panel (in the extension host)', () => {
	suiteSetup(async () => {
		await testApi();
	});

	teardown(async () => {
		await vscode.window.tabGroups.close(computerTabs());
	});

	test('Open Computer mints one session and opens one panel per agent; a second call reveals it without a new session [web]', async () => {
		const { agents, computer_sessions: before } = await state();
		const agent = agents.find((a) => a.name === 'Docs writer');
		assert.ok(agent, 'the demo seed has the docs agent (runtime running)');
		await vscode.commands.executeCommand('cloudAgents.agents.openComputer', { automation: true, agentId: agent.id });
		const tab = await waitFor('the computer panel', async () => computerTabs().find((t) => t.label === `Computer — ${agent.name}`));
		const mine = (await state()).computer_sessions.filter((s) => s.agent_id === agent.id);
		assert.equal(mine.length, before.filter((s) => s.agent_id === agent.id).length + 1, 'one session minted');

		await vscode.commands.executeCommand('cloudAgents.agents.openComputer', { automation: true, agentId: agent.id });
		assert.equal(computerTabs().length, 1, 'a second Open Computer reveals the open panel');
		assert.equal((await state()).computer_sessions.filter((s) => s.agent_id === agent.id).length, mine.length, 'and mints no session');

		await vscode.window.tabGroups.close(tab);
		await waitFor('the panel to close', async () => (computerTabs().length === 0 ? true : undefined));
	});

	test('an agent whose runtime is paused (409) gets an explanation and no panel', async () => {
		const { agents, computer_sessions: before } = await state();
		const agent = agents.find((a) => a.name === 'Sandbox explorer');
		assert.ok(agent, 'the demo seed has the sandbox agent');
		// The service's answer for a runtime that is not running, whatever other tests did to the
		// seed's runtimes before this one (a resume test may have woken this agent's runtime).
		await emu('PUT', '/_emulator/faults', {
			rules: [{ method: 'POST', route: '/v2/agents/{agent_id}/computer-sessions', status: 409, count: 1 }],
		});
		try {
			await vscode.commands.executeCommand('cloudAgents.agents.openComputer', { automation: true, agentId: agent.id });
		} finally {
			await emu('DELETE', '/_emulator/faults');
		}
		assert.equal(computerTabs().length, 0);
		assert.equal((await state()).computer_sessions.length, before.length);
	});
});
