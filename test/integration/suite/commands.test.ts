import * as assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { RECORD_SCHEME } from '../../../src/ids';
import { counters, emu, holdClock, messagesShown, restoreDevToken, runChannels, testApi, waitFor } from '../support/cloudAgents';
import { closeAllEditors } from '../support/editors';
import { devToken, words } from '../support/env';

interface AgentBody {
	id: string;
	name: string;
	status: string;
	runtime_id?: string;
}
interface RunBody {
	id: string;
	agent_id?: string;
	status: string;
	prompt?: string;
	result?: string;
	parent_run_id?: string;
	dsh_session_id?: string;
	event_count?: number;
}
interface RuntimeBody {
	id: string;
	display_name: string;
	status: string;
	desired_status?: string;
	revision: number;
	vnc_credentials?: Array<{ id: string }>;
}
interface ArtifactBody {
	id: string;
	agent_id: string;
	run_id: string;
	name: string;
	size: number;
	media_type?: string;
}
interface State {
	agents: AgentBody[];
	runs: RunBody[];
	runtimes: RuntimeBody[];
	artifacts: ArtifactBody[];
}

const RUNS_ROUTE = 'POST /v2/agents/{agent_id}/runs';
const FOLLOW_UPS_ROUTE = 'POST /v2/agents/{agent_id}/runs/{run_id}/follow-ups';
/** The run statuses the emulator ends runs with. */
const TERMINAL = ['succeeded', 'failed', 'cancelled'];
const enc = encodeURIComponent;

const state = async (): Promise<State> => (await emu<State>('GET', '/_emulator/state')).body;
const route = async (key: string): Promise<number> => (await counters()).requests.by_route[key] ?? 0;
const mutations = async (kind: string): Promise<number> => (await counters()).mutations.by_kind[kind] ?? 0;
const run = async <T>(command: string, ...args: unknown[]): Promise<T> => vscode.commands.executeCommand<T>(command, ...args);

async function runOf(runId: string): Promise<RunBody | undefined> {
	return (await state()).runs.find((r) => r.id === runId);
}

async function waitForRunStatus(runId: string, statuses: string[], timeoutMs = 20_000): Promise<RunBody> {
	return waitFor(
		`run ${runId} to be ${statuses.join(' or ')}`,
		async () => {
			const r = await runOf(runId);
			return r && statuses.includes(r.status) ? r : undefined;
		},
		timeoutMs,
	);
}

/** Creates an agent through the command and waits until the emulator has it idle. */
async function createIdleAgent(name: string): Promise<AgentBody> {
	const agent = await run<AgentBody | undefined>('cloudAgents.agents.create', { automation: true, name });
	assert.ok(agent?.id, 'the create command returned the agent');
	await waitFor(`agent ${name} to become idle`, async () =>
		(await state()).agents.find((a) => a.id === agent.id)?.status === 'idle' ? true : undefined,
	);
	return agent;
}

async function deleteAgentQuietly(agentId: string | undefined): Promise<void> {
	if (agentId) {
		await emu('DELETE', `/v2/agents/${enc(agentId)}?delete_runtime=true`, undefined, devToken());
	}
}

/**
 * Asserts that a command opened a read-only record (not an untitled document that asks to save on
 * close) titled `title` (the URI path) for the record `key` (the URI query), shown in the active
 * editor, or for Markdown results rendered in the active Markdown preview.
 */
function assertRecord(doc: vscode.TextDocument | undefined, title: string | RegExp, key: string): asserts doc is vscode.TextDocument {
	assert.ok(doc, 'the command returned the document');
	assert.equal(doc.uri.scheme, RECORD_SCHEME);
	if (typeof title === 'string') {
		assert.equal(doc.uri.path, `/${title}`);
	} else {
		assert.match(doc.uri.path, title);
	}
	assert.equal(doc.uri.query, key);
	assert.equal(doc.isUntitled, false, 'not an untitled document');
	assert.equal(doc.isDirty, false, 'nothing to save');
}

/** Waits until `doc` is shown: in the active editor, or as the active Markdown preview (which the workbench opens a moment after the command, later on a busy machine). */
async function assertShown(doc: vscode.TextDocument, shown: 'editor' | 'preview' = 'editor'): Promise<void> {
	const what = (): string => {
		const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
		if (shown === 'editor') {
			return vscode.window.activeTextEditor?.document.uri.toString() === doc.uri.toString()
				? ''
				: `the active editor is ${tab?.label}`;
		}
		return tab?.input instanceof vscode.TabInputWebview && tab.input.viewType.includes('markdown.preview')
			? ''
			: `the active tab is ${tab?.label}`;
	};
	await waitFor(`the record shown as ${shown === 'editor' ? 'the active editor' : 'a Markdown preview'}`, async () =>
		what() === '' ? true : undefined,
	).catch(() => assert.fail(`shown as ${shown === 'editor' ? 'the active editor' : 'a Markdown preview'}: ${what()}`));
}

/** Closes the editors the tests opened; records are read-only, so none may ask to save. */
async function closeEditors(): Promise<void> {
	const dirty = vscode.window.tabGroups.all
		.flatMap((g) => g.tabs)
		.filter((t) => t.isDirty)
		.map((t) => t.label);
	assert.deepEqual(dirty, [], 'no editor has unsaved changes (closing it would ask to save)');
	await closeAllEditors();
}

suite('Commands', () => {
	const created: string[] = [];

	suiteSetup(async function () {
		this.timeout(30_000);
		await testApi();
		await restoreDevToken();
	});

	suiteTeardown(async function () {
		this.timeout(30_000);
		await emu('DELETE', '/_emulator/faults');
		for (const id of created) {
			await deleteAgentQuietly(id);
		}
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		await closeEditors();
	});

	suite('agents', () => {
		test('create adds the agent on the service (name trimmed) and to the Agents view [variant]', async function () {
			this.timeout(20_000);
			const name = `cmd-create-${Date.now()}`;
			const agent = await run<AgentBody | undefined>('cloudAgents.agents.create', { automation: true, name: `  ${name}  ` });
			assert.ok(agent);
			created.push(agent.id);
			const onService = (await state()).agents.find((a) => a.id === agent.id);
			assert.equal(onService?.name, name);
			const rows = await run<Array<{ id: string }>>('_cloudAgents.views.rows', 'agents');
			assert.ok(
				rows.some((r) => r.id === `agent/${agent.id}`),
				'the new agent is a row of the Agents view',
			);
		});

		test('create refuses a name over 255 bytes before sending anything', async function () {
			const before = await mutations('agents.create');
			const beforeRoute = await route('POST /v2/agents');
			const result = await run<unknown>('cloudAgents.agents.create', { automation: true, name: 'é'.repeat(128) });
			assert.equal(result, undefined);
			assert.equal(await mutations('agents.create'), before);
			assert.equal(await route('POST /v2/agents'), beforeRoute, 'no request was sent');
		});

		test('rename changes the name on the service', async function () {
			this.timeout(20_000);
			const agent = await createIdleAgent(`cmd-rename-${Date.now()}`);
			created.push(agent.id);
			const renamed = await run<AgentBody | undefined>('cloudAgents.agents.rename', {
				automation: true,
				agentId: agent.id,
				name: 'Renamed by the test',
			});
			assert.equal(renamed?.name, 'Renamed by the test');
			assert.equal((await state()).agents.find((a) => a.id === agent.id)?.name, 'Renamed by the test');
		});

		test('delete with "Delete Agent and Runtime" waits until the runtime is gone [variant]', async function () {
			this.timeout(30_000);
			const agent = await createIdleAgent(`cmd-delete-${Date.now()}`);
			const runtimeId = (await state()).agents.find((a) => a.id === agent.id)?.runtime_id;
			assert.ok(runtimeId);
			const ok = await run<boolean>('cloudAgents.agents.delete', { automation: true, agentId: agent.id, deleteRuntime: true });
			assert.equal(ok, true);
			// The command returned only once the runtime disappeared from the listing.
			const s = await state();
			assert.equal(
				s.agents.some((a) => a.id === agent.id),
				false,
				'the agent is gone',
			);
			assert.equal(
				s.runtimes.some((r) => r.id === runtimeId),
				false,
				'the runtime is gone',
			);
			const res = await emu('GET', `/v2/agents/${enc(agent.id)}`, undefined, devToken());
			assert.equal(res.status, 404);
		});

		test('delete without the runtime keeps the runtime [variant]', async function () {
			this.timeout(30_000);
			const agent = await createIdleAgent(`cmd-delete-keep-${Date.now()}`);
			const runtimeId = (await state()).agents.find((a) => a.id === agent.id)?.runtime_id;
			await run<boolean>('cloudAgents.agents.delete', { automation: true, agentId: agent.id, deleteRuntime: false });
			const s = await state();
			assert.equal(
				s.agents.some((a) => a.id === agent.id),
				false,
			);
			assert.equal(
				s.runtimes.some((r) => r.id === runtimeId),
				true,
				'the runtime stays',
			);
			// Clean up: a second agent on the kept runtime, deleted with the runtime.
			const cleanup = await emu<AgentBody>(
				'POST',
				'/v2/agents',
				{ name: 'cleanup', runtime_id: runtimeId, harness_id: 'cleanup' },
				devToken(),
			);
			if (cleanup.status === 201) {
				await waitFor('the cleanup agent to become idle', async () =>
					(await state()).agents.find((a) => a.id === cleanup.body.id)?.status === 'idle' ? true : undefined,
				);
				await deleteAgentQuietly(cleanup.body.id);
			}
		});

		test("delete stops following the agent's runs and closes their output channels", async function () {
			this.timeout(30_000);
			const api = await testApi();
			const agent = await createIdleAgent(`cmd-delete-followed-${Date.now()}`);
			created.push(agent.id);
			const started = await emu<RunBody>('POST', `/v2/agents/${enc(agent.id)}/runs`, { prompt: 'Keep going [[hold]]' }, devToken());
			assert.equal(started.status, 202);
			const runId = started.body.id;
			try {
				await run('cloudAgents.runs.follow', { automation: true, agentId: agent.id, runId });
				const title = api.runFollower.stateOf(agent.id, runId)?.title;
				assert.ok(title && api.runFollower.stateOf(agent.id, runId)?.active, 'the run is followed');
				assert.ok(
					runChannels(api).some((name) => name.includes(title)),
					'its output channel is open',
				);
				assert.equal(
					await run<boolean>('cloudAgents.agents.delete', { automation: true, agentId: agent.id, deleteRuntime: true }),
					true,
				);
				assert.equal(api.runFollower.stateOf(agent.id, runId), undefined, "the deleted agent's run is no longer known");
				await waitFor('its output channel to close', async () =>
					runChannels(api).some((name) => name.includes(title)) ? undefined : true,
				);
				const aboutIt = (await messagesShown('error', /Could not follow/)).filter((text) => text.includes(agent.name));
				assert.deepEqual(aboutIt, [], 'no "Could not follow" about its run after the delete');
			} finally {
				await api.runFollower.forget(agent.id);
			}
		});
	});

	suite('runs and Send Prompt', () => {
		let agent: AgentBody;

		suiteSetup(async function () {
			this.timeout(30_000);
			agent = await createIdleAgent(`cmd-runs-${Date.now()}`);
			created.push(agent.id);
		});

		teardown(async function () {
			this.timeout(20_000);
			// Leave no active run behind for the next test.
			for (const r of (await state()).runs.filter(
				(x) => x.agent_id === agent.id && (x.status === 'queued' || x.status === 'running'),
			)) {
				await emu('DELETE', `/v2/agents/${enc(agent.id)}/runs/${enc(r.id)}`, undefined, devToken());
				await waitForRunStatus(r.id, ['cancelled', 'succeeded', 'failed']);
			}
		});

		test('a prompt over 65,536 bytes is refused and no request is sent', async function () {
			const before = await route(RUNS_ROUTE);
			const result = await run<unknown>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'x'.repeat(65_537),
			});
			assert.equal(result, undefined);
			assert.equal(await route(RUNS_ROUTE), before, 'POST runs counter unchanged');
		});

		test('Send Prompt creates a run that the Runs view shows [variant]', async function () {
			this.timeout(30_000);
			const before = await mutations('runs.create');
			const sent = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Say hello [[events:2]]',
			});
			assert.ok(sent?.id);
			assert.equal(await mutations('runs.create'), before + 1);
			assert.equal((await runOf(sent.id))?.prompt, 'Say hello [[events:2]]');
			const rows = await run<Array<{ id: string }>>('_cloudAgents.views.rows', 'runs');
			assert.ok(
				rows.some((r) => r.id === `run/${agent.id}/${sent.id}`),
				'the Runs view follows the agent and shows the run',
			);
			await waitForRunStatus(sent.id, ['succeeded']);
		});

		test('with a run active (409), onConflict "followUp" steers it: no second run [variant]', async function () {
			this.timeout(30_000);
			const held = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Hold on [[hold]]',
			});
			assert.ok(held?.id);
			await waitForRunStatus(held.id, ['running']);
			const runsBefore = (await state()).runs.filter((r) => r.agent_id === agent.id).length;
			const eventsBefore = (await runOf(held.id))?.event_count ?? 0;
			const createsBefore = await mutations('runs.create');
			const followUpsBefore = await mutations('runs.follow_up');

			const steered = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Also check the README',
				onConflict: 'followUp',
			});
			assert.equal(steered?.id, held.id, 'the follow-up went to the active run');
			assert.equal(await mutations('runs.follow_up'), followUpsBefore + 1);
			assert.equal(await mutations('runs.create'), createsBefore, 'no run was created');
			assert.equal((await state()).runs.filter((r) => r.agent_id === agent.id).length, runsBefore);
			assert.ok(((await runOf(held.id))?.event_count ?? 0) > eventsBefore, 'the follow-up arrived in the run as an event');
		});

		test('with a run active, onConflict "cancelAndSend" cancels it, waits, then creates the run [variant]', async function () {
			this.timeout(30_000);
			const held = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Hold again [[hold]]',
			});
			assert.ok(held?.id);
			const sent = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Start over [[events:1]]',
				onConflict: 'cancelAndSend',
			});
			assert.ok(sent?.id);
			assert.notEqual(sent.id, held.id);
			assert.equal((await runOf(held.id))?.status, 'cancelled');
			assert.equal((await runOf(sent.id))?.prompt, 'Start over [[events:1]]');
			await waitForRunStatus(sent.id, ['succeeded']);
		});

		test('with a run active, onConflict "cancel" sends nothing', async function () {
			this.timeout(30_000);
			const held = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Hold once more [[hold]]',
			});
			assert.ok(held?.id);
			await waitForRunStatus(held.id, ['running']);
			const creates = await mutations('runs.create');
			const followUps = await mutations('runs.follow_up');
			const result = await run<unknown>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'never sent',
				onConflict: 'cancel',
			});
			assert.equal(result, undefined);
			assert.equal(await mutations('runs.create'), creates);
			assert.equal(await mutations('runs.follow_up'), followUps);
			assert.equal((await runOf(held.id))?.status, 'running');
		});

		test('on an agent whose runtime is in error (409, no active run) the refusal comes back after one try: no follow-up, no second create [variant]', async function () {
			this.timeout(30_000);
			const s = await state();
			const broken = s.agents.find((a) => s.runtimes.some((r) => r.id === a.runtime_id && r.status === 'error'));
			assert.ok(broken, 'the seed has an agent on a runtime in error');
			assert.ok(!s.runs.some((r) => r.agent_id === broken.id && !TERMINAL.includes(r.status)), 'with no active run');
			const creates = await route(RUNS_ROUTE);
			const followUps = await route(FOLLOW_UPS_ROUTE);
			await assert.rejects(
				run('cloudAgents.runs.sendPrompt', {
					automation: true,
					agentId: broken.id,
					prompt: 'not for a runtime in error',
					onConflict: 'followUp',
				}),
				(err: unknown) => {
					assert.match(String((err as Error).message), /is error/);
					return true;
				},
			);
			assert.equal(await route(RUNS_ROUTE), creates + 1, 'one create: the runtime, not an ended run, refused it');
			assert.equal(await route(FOLLOW_UPS_ROUTE), followUps, 'no follow-up to a run that is not there');
		});

		test('cancel sets the run cancelled; resume starts a new run in the same session [variant]', async function () {
			this.timeout(30_000);
			const held = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Wait for me [[hold]]',
			});
			assert.ok(held?.id);
			await run('cloudAgents.runs.cancel', { automation: true, agentId: agent.id, runId: held.id });
			const cancelled = await waitForRunStatus(held.id, ['cancelled']);

			const resumed = await run<RunBody | undefined>('cloudAgents.runs.resume', {
				automation: true,
				agentId: agent.id,
				runId: held.id,
			});
			assert.ok(resumed?.id);
			assert.notEqual(resumed.id, held.id);
			const onService = await runOf(resumed.id);
			assert.equal(onService?.parent_run_id, held.id);
			assert.equal(onService?.dsh_session_id, cancelled.dsh_session_id);
			await waitForRunStatus(resumed.id, ['succeeded']);
		});

		test('follow-up on a finished run starts a new run that continues it', async function () {
			this.timeout(30_000);
			const runs = (await state()).runs.filter((r) => r.agent_id === agent.id && r.status === 'succeeded');
			const parent = runs[runs.length - 1]!;
			const next = await run<RunBody | undefined>('cloudAgents.runs.followUp', {
				automation: true,
				agentId: agent.id,
				runId: parent.id,
				prompt: 'And now the tests [[events:1]]',
			});
			assert.ok(next?.id);
			assert.notEqual(next.id, parent.id);
			assert.equal((await runOf(next.id))?.parent_run_id, parent.id);
			await waitForRunStatus(next.id, ['succeeded']);
		});

		test("open result shows the run's result in a read-only Markdown record [variant]", async function () {
			this.timeout(20_000);
			const done = (await state()).runs.find((r) => r.agent_id === agent.id && r.status === 'succeeded' && r.result);
			assert.ok(done?.result);
			const doc = await run<vscode.TextDocument | undefined>('cloudAgents.runs.openResult', {
				automation: true,
				agentId: agent.id,
				runId: done.id,
			});
			const start = (done.prompt ?? '').slice(0, 20).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			assertRecord(doc, new RegExp(`^/Result — (${agent.name}|${agent.id}): ${start}`), `runs/${agent.id}/${done.id}`);
			await assertShown(doc, 'preview');
			assert.equal(doc.languageId, 'markdown');
			const text = doc.getText();
			assert.ok(text.includes(`## Result\n\n${done.result}\n`), "the document carries the emulator's result text");
			// Headed by what the run was asked, not its id (issue 42, item 15); the id on a line of its own.
			// (Markdown's own characters in it escaped: `[` reads `\[`.)
			const heading = (text.split('\n')[0] ?? '').replace(/\\/g, '');
			assert.ok(heading.startsWith(`# ${(done.prompt ?? '').slice(0, 20)}`), heading);
			assert.ok(!(text.split('\n')[0] ?? '').includes(done.id), 'the heading is not the run id');
			assert.ok(text.includes(`- Run: ${done.id}\n`), text);
			// The status as the service words it (the emulator's state keeps the standard word).
			assert.ok(text.includes(`- Status: ${words().run.succeeded}\n`), text);
			// Times as the user reads them: local date and time, then how long ago; not the wire's ISO text.
			for (const label of ['Created', 'Updated']) {
				const line = new RegExp(`^- ${label}: (.*)$`, 'm').exec(text)?.[1];
				assert.ok(line, `a ${label} line in ${text}`);
				assert.doesNotMatch(line, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, `${label}: ${line}`);
				assert.match(line, /\((just now|\d+ (min|mins|hr|hrs|day|days) ago)\)$/, `${label}: ${line}`);
			}
			await closeEditors();
		});

		test('open result again after the run changed shows the fresh record in the same document', async function () {
			this.timeout(30_000);
			const held = await run<RunBody | undefined>('cloudAgents.runs.sendPrompt', {
				automation: true,
				agentId: agent.id,
				prompt: 'Hold for the record [[hold]]',
			});
			assert.ok(held?.id);
			await waitForRunStatus(held.id, ['running']);
			const title = new RegExp(`^/Result — (${agent.name}|${agent.id}): Hold for the record \\[\\[hold\\]\\]$`);
			const key = `runs/${agent.id}/${held.id}`;
			const first = await run<vscode.TextDocument | undefined>('cloudAgents.runs.openResult', {
				automation: true,
				agentId: agent.id,
				runId: held.id,
			});
			assertRecord(first, title, key);
			await assertShown(first, 'preview');
			assert.ok(first.getText().includes(`- Status: ${words().run.held}\n`), first.getText());

			await run('cloudAgents.runs.cancel', { automation: true, agentId: agent.id, runId: held.id });
			await waitForRunStatus(held.id, ['cancelled']);
			const second = await run<vscode.TextDocument | undefined>('cloudAgents.runs.openResult', {
				automation: true,
				agentId: agent.id,
				runId: held.id,
			});
			assertRecord(second, title, key);
			await assertShown(second, 'preview');
			assert.equal(second, first, 'the same document, updated in place');
			assert.ok(second.getText().includes(`- Status: ${words().run.cancelled}\n`), second.getText());
			assert.equal(second.getText().includes(`- Status: ${words().run.held}`), false);
			await closeEditors();
		});
	});

	suite('artifacts', () => {
		let agent: AgentBody;
		let runId: string;
		let dir: string;

		suiteSetup(async function () {
			this.timeout(30_000);
			dir = await mkdtemp(join(tmpdir(), 'cloud-agents-artifacts-'));
			agent = await createIdleAgent(`cmd-artifacts-${Date.now()}`);
			created.push(agent.id);
			const res = await emu<RunBody>(
				'POST',
				`/v2/agents/${enc(agent.id)}/runs`,
				{ prompt: 'Produce nothing [[events:1]]' },
				devToken(),
			);
			assert.equal(res.status, 202);
			runId = res.body.id;
			await waitForRunStatus(runId, ['succeeded', 'failed']);
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agent.id);
		});

		suiteTeardown(async () => {
			await rm(dir, { recursive: true, force: true });
			await closeEditors();
		});

		test('upload, open, save and delete an artifact [variant]', async function () {
			this.timeout(30_000);
			const content = `notes from the test ${Date.now()}\nline two\n`;
			const file = join(dir, 'notes.txt');
			await writeFile(file, content);
			const artifact = await run<ArtifactBody | undefined>('cloudAgents.artifacts.upload', {
				automation: true,
				agentId: agent.id,
				runId,
				file,
				name: 'test-notes.txt',
			});
			assert.ok(artifact?.id);
			const onService = (await state()).artifacts.find((a) => a.id === artifact.id);
			assert.equal(onService?.name, 'test-notes.txt');
			assert.equal(onService?.run_id, runId);
			assert.equal(onService?.size, Buffer.byteLength(content));
			const withContent = await emu<{ content_base64: string }>(
				'GET',
				`/v2/agents/${enc(agent.id)}/artifacts/${enc(artifact.id)}?${words().artifactContentQuery}`,
				undefined,
				devToken(),
			);
			assert.equal(Buffer.from(withContent.body.content_base64, 'base64').toString('utf8'), content);
			const rows = await run<Array<{ id: string }>>('_cloudAgents.views.rows', 'artifacts');
			assert.ok(
				rows.some((r) => r.id === `artifact/${agent.id}/${artifact.id}`),
				'the Artifacts view shows the upload',
			);

			const doc = await run<vscode.TextDocument | undefined>('cloudAgents.artifacts.open', {
				automation: true,
				agentId: agent.id,
				artifactId: artifact.id,
			});
			assertRecord(doc, 'test-notes.txt', `artifacts/${agent.id}/${artifact.id}`);
			await assertShown(doc);
			assert.equal(doc.getText(), content, "the document carries the emulator's content");
			assert.equal(doc.languageId, 'plaintext');

			const target = join(dir, 'saved.txt');
			await run('cloudAgents.artifacts.save', { automation: true, agentId: agent.id, artifactId: artifact.id, target });
			assert.equal(await readFile(target, 'utf8'), content);

			const deleted = await run<boolean>('cloudAgents.artifacts.delete', {
				automation: true,
				agentId: agent.id,
				artifactId: artifact.id,
			});
			assert.equal(deleted, true);
			assert.equal(
				(await state()).artifacts.some((a) => a.id === artifact.id),
				false,
			);
			await closeEditors();
		});

		test('an image artifact opens in the image preview from memory, its tab named by the artifact', async function () {
			this.timeout(20_000);
			const png = Buffer.from(
				'89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
					'1f15c4890000000d49444154789c6300010000050001' +
					'0d0a2db40000000049454e44ae426082',
				'hex',
			);
			const file = join(dir, 'dot.png');
			await writeFile(file, png);
			const artifact = await run<ArtifactBody | undefined>('cloudAgents.artifacts.upload', {
				automation: true,
				agentId: agent.id,
				runId,
				file,
			});
			assert.equal(artifact?.name, 'dot.png');
			assert.equal((await state()).artifacts.find((a) => a.id === artifact.id)?.media_type, 'image/png');
			const opened = await run<vscode.Uri | undefined>('cloudAgents.artifacts.open', {
				automation: true,
				agentId: agent.id,
				artifactId: artifact.id,
			});
			assert.ok(opened instanceof vscode.Uri, 'opened from a URI');
			// Issue 12, item 8: no breadcrumbs into global storage; the path is the artifact's name only.
			assert.equal(opened.scheme, 'cloud-agents-image');
			assert.equal(opened.path, '/dot.png');
			assert.deepEqual(Buffer.from(await vscode.workspace.fs.readFile(opened)), png);
			const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
			assert.equal(tab?.label, 'dot.png');
			assert.equal(
				(tab?.input as { uri?: vscode.Uri } | undefined)?.uri?.toString(),
				opened.toString(),
				'the image preview shows it',
			);
			await assert.rejects(Promise.resolve(vscode.workspace.fs.writeFile(opened, new Uint8Array([1]))), 'read-only');
			await run('cloudAgents.artifacts.delete', { automation: true, agentId: agent.id, artifactId: artifact.id });
			await closeEditors();
		});

		test('an artifact name that breaks the pattern is refused before sending', async function () {
			const file = join(dir, 'bad.txt');
			await writeFile(file, 'x');
			const before = await mutations('artifacts.create');
			const beforeRoute = await route('POST /v2/agents/{agent_id}/artifacts');
			const result = await run<unknown>('cloudAgents.artifacts.upload', {
				automation: true,
				agentId: agent.id,
				runId,
				file,
				name: '../escape',
			});
			assert.equal(result, undefined);
			assert.equal(await mutations('artifacts.create'), before);
			assert.equal(await route('POST /v2/agents/{agent_id}/artifacts'), beforeRoute);
		});
	});

	suite('runtimes', () => {
		const resumable = async (): Promise<RuntimeBody[]> =>
			(await state()).runtimes.filter((r) => (r.status === 'paused' || r.status === 'suspended') && r.desired_status === r.status);

		// A resumed runtime is running 2 s later on the emulator clock, and that transition bumps its
		// revision again: the clock is held while a test reads the revision the resume left.

		test("resume sends expected_revision and the runtime's revision goes up by one [variant]", async function () {
			this.timeout(20_000);
			const releaseClock = await holdClock();
			try {
				const runtime = (await resumable())[0];
				assert.ok(runtime, 'the demo seed has a paused or suspended runtime');
				const resumed = await run<RuntimeBody | undefined>('cloudAgents.runtimes.resume', {
					automation: true,
					runtimeId: runtime.id,
				});
				assert.equal(resumed?.revision, runtime.revision + 1);
				assert.equal((await state()).runtimes.find((r) => r.id === runtime.id)?.revision, runtime.revision + 1);
			} finally {
				await releaseClock();
			}
		});

		test('a stale revision gets 409; the command re-reads the runtime and resumes with the fresh revision', async function () {
			this.timeout(20_000);
			const releaseClock = await holdClock();
			try {
				const runtime = (await resumable())[0];
				assert.ok(runtime, 'a second paused or suspended runtime');
				const reads = await route('GET /v2/runtimes');
				const resumes = await route('POST /v2/runtimes/{runtime_id}/resume');
				const resumed = await run<RuntimeBody | undefined>('cloudAgents.runtimes.resume', {
					automation: true,
					runtimeId: runtime.id,
					expectedRevision: runtime.revision - 1,
					onConflict: 'retry',
				});
				assert.equal(resumed?.revision, runtime.revision + 1);
				assert.equal(await route('POST /v2/runtimes/{runtime_id}/resume'), resumes + 2, 'one 409, then one success');
				assert.ok((await route('GET /v2/runtimes')) > reads + 1, 'the runtime was read again after the 409');
				assert.equal((await state()).runtimes.find((r) => r.id === runtime.id)?.revision, runtime.revision + 1);
			} finally {
				await releaseClock();
			}
		});

		test('show details opens the whole record as JSON; VNC credentials are listed [variant]', async function () {
			this.timeout(20_000);
			const s = await state();
			// A runtime that is not changing status, so the record stays the same while the test reads it.
			const runtime = s.runtimes.find((r) => (r.vnc_credentials?.length ?? 0) > 0 && r.status === r.desired_status);
			assert.ok(runtime);
			const doc = await run<vscode.TextDocument | undefined>('cloudAgents.runtimes.showDetails', {
				automation: true,
				runtimeId: runtime.id,
			});
			assertRecord(doc, `Runtime ${runtime.display_name}`, `runtimes/${runtime.id}`);
			await assertShown(doc);
			assert.equal(doc.languageId, 'json');
			const record = JSON.parse(doc.getText()) as RuntimeBody;
			assert.equal(record.id, runtime.id);
			assert.equal(record.revision, runtime.revision);
			const listed = await emu<{ data: RuntimeBody[] }>('GET', '/v2/runtimes?limit=100', undefined, devToken());
			assert.deepEqual(
				record,
				listed.body.data.find((r) => r.id === runtime.id),
				'the whole record as the service returns it',
			);
			const credentials = await run<Array<{ id: string }>>('cloudAgents.runtimes.listVncCredentials', {
				automation: true,
				runtimeId: runtime.id,
				quiet: true,
			});
			assert.deepEqual(credentials.map((c) => c.id).sort(), runtime.vnc_credentials!.map((c) => c.id).sort());
			await closeEditors();
		});
	});
});
