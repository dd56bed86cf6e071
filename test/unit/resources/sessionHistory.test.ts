import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { type Agent, ValidationError } from '../../../src/api';
import { sessionHistoryActions, type SessionHistoryResult } from '../../../src/resources/sessionHistory';
import { automation } from '../../../src/views/automation';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite, fakeKit } from './kit';

/** src/resources/sessionHistory.ts: Show Session History against the emulator, stored in the fake's workspace.fs. */
suite('resources/sessionHistory', () => {
	const env = emulatorPerSuite();
	let agents: Agent[];
	let context: vscode.ExtensionContext;

	setup(async () => {
		agents = (await env.client.listAgents({ limit: 100 })).items;
		// A context of its own per test: the histories (last session, channels) are kept per context.
		context = { globalStorageUri: vscode.Uri.parse('memfs:/global'), subscriptions: [] } as unknown as vscode.ExtensionContext;
	});
	teardown(() => {
		for (const d of context.subscriptions) {
			d.dispose();
		}
	});

	const agent = (name: string): Agent => {
		const a = agents.find((x) => x.name === name);
		assert.ok(a, `no agent ${name}`);
		return a;
	};
	const show = async (a: Agent, arg?: unknown): Promise<SessionHistoryResult> => {
		const { kit } = fakeKit({ client: env.client, arg, automation: arg !== undefined, extra: { context } });
		return await sessionHistoryActions.show.run({ agent: a }, kit);
	};
	const channelOf = (a: Agent): fake.FakeChannel => {
		const channel = fake.channels.get(`Cloud Agents Session: ${a.name}`);
		assert.ok(channel, `no channel; channels: ${[...fake.channels.keys()].join(', ')}`);
		return channel;
	};
	const storedLines = (result: SessionHistoryResult): string[] => {
		const data = fake.memoryFiles.get(result.file!);
		assert.ok(data, `nothing stored at ${result.file}; files: ${[...fake.memoryFiles.keys()].join(', ')}`);
		return new TextDecoder().decode(data).split('\n').filter(Boolean);
	};

	test('first call: the session replayed into its channel and stored as JSON Lines', async () => {
		const sandbox = agent('Sandbox explorer');
		const replay = await env.client.getAgentEvents(sandbox.id, {});
		const result = await show(sandbox);
		assert.equal(result.via, 'replay');
		assert.equal(result.agentId, sandbox.id);
		assert.equal(result.sessionId, replay.session_id);
		assert.equal(result.stored, 0);
		assert.equal(result.added, replay.events.length);
		assert.ok(result.added > 50, `${result.added}`);
		assert.ok(result.file!.startsWith('memfs:/global/sessions/'), result.file);
		assert.ok(result.file!.endsWith(`/session-${replay.session_id}.jsonl`), result.file);
		const lines = storedLines(result);
		assert.equal(lines.length, result.added);
		assert.deepEqual(
			lines.map((l) => (JSON.parse(l) as { seq: number }).seq),
			replay.events.map((e) => e.seq).sort((a, b) => a - b),
		);
		const text = channelOf(sandbox).lines.join('');
		assert.ok(text.includes('48 sample queries') || text.includes('sample queries parsed'), text.slice(0, 400));
		assert.ok(fake.calls('window.withProgress').length === 1);
	});

	test('second call: the stored events are not added again; the header names the file', async () => {
		const sandbox = agent('Sandbox explorer');
		const first = await show(sandbox);
		const second = await show(sandbox);
		assert.equal(second.stored, first.added);
		assert.equal(second.added, 0);
		assert.equal(storedLines(second).length, first.added, 'nothing stored twice');
		const lines = channelOf(sandbox).lines;
		assert.ok(
			lines.some((l) => l.startsWith(`Session ${first.sessionId} of Sandbox explorer; stored in ${first.file}`)),
			lines.slice(0, 3).join('\n'),
		);
	});

	test('a torn line in the stored file is skipped, and the events after it still count', async () => {
		const sandbox = agent('Sandbox explorer');
		const first = await show(sandbox);
		const bytes = fake.memoryFiles.get(first.file!)!;
		fake.memoryFiles.set(first.file!, new Uint8Array([...bytes, ...new TextEncoder().encode('{"seq": 999, "type": "tor\n')]));
		const second = await show(sandbox);
		assert.equal(second.stored, first.added);
		assert.equal(second.added, 0);
	});

	test('an agent with no session yet: said in its channel, nothing stored', async () => {
		const legacy = agent('Legacy migration');
		const result = await show(legacy);
		assert.deepEqual(result, { agentId: legacy.id, sessionId: undefined, file: undefined, stored: 0, added: 0, via: 'none' });
		assert.ok(channelOf(legacy).lines.includes('The agent Legacy migration has no session yet.'), channelOf(legacy).lines.join('\n'));
		assert.equal(fake.memoryFiles.size, 0);
	});

	test("over the output cap (422): the session run's event stream instead, every event once", async () => {
		const sandbox = agent('Sandbox explorer');
		const replay = await env.client.getAgentEvents(sandbox.id, {});
		await env.emu.faults([{ method: 'GET', route: '/v2/agents/{agent_id}/events', status: 422 }]);
		const result = await show(sandbox);
		assert.equal(result.via, 'stream');
		assert.equal(result.sessionId, replay.session_id);
		assert.equal(result.added, replay.events.length);
		assert.equal(new Set(storedLines(result)).size, replay.events.length);
		assert.ok(
			channelOf(sandbox).lines.some((l) =>
				l.startsWith('(The history is larger than one answer can carry: reading the event stream of run '),
			),
		);
	});

	test('a 422 for an agent whose runs have no session: the error goes to the caller', async () => {
		const legacy = agent('Legacy migration');
		await env.emu.faults([{ method: 'GET', route: '/v2/agents/{agent_id}/events', status: 422 }]);
		await assert.rejects(show(legacy), (err: Error & { status?: number; requestId?: string }) => {
			assert.equal(err.status, 422);
			return true;
		});
	});

	test('other failures are not mistaken for the cap: a 404 is thrown, nothing streamed', async () => {
		const sandbox = agent('Sandbox explorer');
		const ghost = { ...sandbox, id: `${sandbox.id.split('.')[0]!}.ghost` };
		await assert.rejects(show(ghost), (err: Error & { status?: number }) => err.status === 404);
		assert.equal(fake.memoryFiles.size, 0);
	});

	test('an agent id no service could have: refused before anything is sent', async () => {
		const before = (await env.emu.counters()).requests.total;
		await assert.rejects(show({ ...agent('Sandbox explorer'), id: 'agt missing' }), ValidationError);
		assert.equal((await env.emu.counters()).requests.total, before);
	});

	test('quiet automation: no output channel, the events still stored', async () => {
		const sandbox = agent('Sandbox explorer');
		const result = await show(sandbox, automation({ agentId: sandbox.id, quiet: true }));
		assert.ok(result.added > 0);
		assert.equal(fake.calls('window.createOutputChannel').length, 0);
		assert.equal(storedLines(result).length, result.added);
	});
});
