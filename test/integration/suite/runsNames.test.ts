import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsTestApi } from '../../../src/extension';
import type { RowSnapshot } from '../../../src/testing';
import {
	emu,
	restoreDevToken,
	testApi,
	waitFor,
	within,
	writtenText,
	endOfRunNotices,
	followedRunStatus,
	runChannels,
	storedEvents,
	followEnded,
} from '../support/cloudAgents';
import { devToken } from '../support/env';

interface RunBody {
	id: string;
	status: string;
}

const enc = encodeURIComponent;
/** The output channels the workbench holds a text model for (its Output view shows them), by path. */
const outputDocuments = (): string[] => vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'output').map((d) => d.uri.path);
const rows = async (): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', 'runs')) ?? [];

/** Issue 12, items 4, 5 and 10: runs have human names; the status bar and rows offer only valid actions. */
suite('Run names, status bar and run actions', () => {
	let api: CloudAgentsTestApi;
	let agentId: string;
	const agentName = `Release helper ${Date.now()}`;

	async function startRun(prompt: string): Promise<RunBody> {
		const res = await emu<RunBody>('POST', `/v2/agents/${enc(agentId)}/runs`, { prompt }, devToken());
		assert.equal(res.status, 202, JSON.stringify(res.body));
		return res.body;
	}

	async function cancelQuietly(runId: string): Promise<void> {
		await emu('DELETE', `/v2/agents/${enc(agentId)}/runs/${enc(runId)}`, undefined, devToken());
	}

	suiteSetup(async function () {
		this.timeout(30_000);
		api = await testApi();
		await restoreDevToken();
		const created = await emu<{ id: string }>('POST', '/v2/agents', { name: agentName }, devToken());
		assert.equal(created.status, 201, JSON.stringify(created.body));
		agentId = created.body.id;
		await waitFor('the agent to become idle', async () =>
			(await emu<{ status: string }>('GET', `/v2/agents/${enc(agentId)}`, undefined, devToken())).body.status === 'idle'
				? true
				: undefined,
		);
	});

	suiteTeardown(async () => {
		await vscode.commands.executeCommand('notifications.clearAll');
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
		if (agentId) {
			await emu('DELETE', `/v2/agents/${enc(agentId)}?delete_runtime=true`, undefined, devToken());
		}
	});

	test('a followed run is named by its agent and prompt in its output channel, the status bar and the end notification [web]', async function () {
		this.timeout(45_000);
		const run = await startRun('Summarise the release notes [[events:3]]');
		// Only ids: the follower looks the names up itself.
		await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.id });
		const title = `${agentName}: Summarise the release notes [[events:3]]`;
		assert.ok(runChannels(api).includes(`Cloud Agents: ${title}`), JSON.stringify(runChannels(api)));
		assert.equal((await within('the run to end', followEnded(api, agentId, run.id), 40_000)).status, 'succeeded');

		const bar = followedRunStatus(api);
		assert.ok(bar, 'the status bar shows the ended run');
		assert.ok(bar.text.includes(`${agentName}: Summarise`), bar.text);
		assert.ok(bar.text.includes('succeeded'), bar.text);
		assert.equal(bar.command, 'cloudAgents.runs.followedRunActions');
		const note = endOfRunNotices(api).at(-1);
		assert.ok(note, 'the end was announced');
		assert.ok(note.text.includes(agentName) && note.text.includes('Summarise the release notes'), note.text);
		assert.deepEqual(note.items, ['Open Result', 'Show Output']);
		// The channel's log file on disk carries the same name (VS Code names it after the channel).
		const written = await writtenText(api);
		assert.ok(
			written.some((w) => w.file.includes(agentName) && w.text.includes('run.completed')),
			`no output channel named after "${agentName}"`,
		);
		await api.runFollower.forget(agentId, run.id);
	});

	test('a cancelled run\'s notification offers its output, not "Open Result"', async function () {
		this.timeout(45_000);
		const run = await startRun('Wait for me [[hold]]');
		await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.id });
		await waitFor('a first event', async () => ((await storedEvents(api, agentId, run.id)).length > 0 ? true : undefined));
		// Automation passes ids: no confirmation.
		await vscode.commands.executeCommand('cloudAgents.runs.cancel', { automation: true, agentId, runId: run.id });
		assert.equal((await within('the run to end', followEnded(api, agentId, run.id), 20_000)).status, 'cancelled');
		assert.deepEqual(endOfRunNotices(api).at(-1)?.items, ['Show Output']);
		assert.deepEqual(api.runFollower.statusRunInfo?.actions, ['showOutput', 'dismiss']);
		await api.runFollower.forget(agentId, run.id);
	});

	test("the status bar offers a streaming run's actions; Stop Following through it hides it instead of showing a stale status", async function () {
		this.timeout(45_000);
		const run = await startRun('Hold on [[hold]]');
		try {
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agentId);
			await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.id });
			const info = api.runFollower.statusRunInfo;
			assert.equal(info?.runId, run.id);
			assert.deepEqual(info?.actions, ['showOutput', 'cancel', 'stopFollowing']);
			assert.ok(followedRunStatus(api)?.text.includes(agentName), followedRunStatus(api)?.text);

			// The followed run's row says so: Stop Following replaces the inline Follow (package.json menus).
			await vscode.commands.executeCommand('cloudAgents.runs.refresh');
			const row = await waitFor('the followed row', async () =>
				(await rows()).find((r) => r.id === `run/${agentId}/${run.id}` && r.contextValue?.includes(':followed')),
			);
			assert.match(row.contextValue ?? '', /^run:(queued|running):active.*:followed$/);

			const chosen = await vscode.commands.executeCommand('cloudAgents.runs.followedRunActions', {
				automation: true,
				action: 'stopFollowing',
			});
			assert.equal(chosen, 'stopFollowing');
			assert.equal((await within('following to stop', followEnded(api, agentId, run.id), 10_000)).reason, 'stopped');
			assert.equal(followedRunStatus(api), undefined, 'a run no longer followed is not shown as running');
			const after = await waitFor('the row without :followed', async () =>
				(await rows()).find((r) => r.id === `run/${agentId}/${run.id}` && !r.contextValue?.includes(':followed')),
			);
			assert.match(after.contextValue ?? '', /^run:(queued|running):active/);
		} finally {
			await cancelQuietly(run.id);
			await api.runFollower.forget(agentId, run.id);
		}
	});

	test('signing out suspends following (status bar hidden); signing in again resumes it', async function () {
		this.timeout(45_000);
		const run = await startRun('Keep going [[hold]]');
		try {
			await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.id });
			assert.ok(api.runFollower.stateOf(agentId, run.id)?.active ?? false);
			api.runFollower.suspendAll();
			await within('following to stop', followEnded(api, agentId, run.id), 10_000);
			assert.equal(api.runFollower.stateOf(agentId, run.id)?.active ?? false, false);
			assert.equal(followedRunStatus(api), undefined);
			assert.equal(await api.runFollower.resumeActive(), 1);
			assert.ok(api.runFollower.stateOf(agentId, run.id)?.active ?? false, 'following resumed');
			const bar = (): { text: string } | undefined => followedRunStatus(api);
			assert.ok(bar()?.text.includes(agentName), bar()?.text);
		} finally {
			await cancelQuietly(run.id);
			await within('the run to end', followEnded(api, agentId, run.id), 20_000).catch(() => undefined);
			await api.runFollower.forget(agentId, run.id);
		}
	});

	test("run output channels are bounded; an older run's history reopens from disk [web]", async function () {
		this.timeout(120_000);
		const runs: RunBody[] = [];
		for (let i = 0; i < 12; i++) {
			const run = await startRun(`Quick task ${i} [[events:1]] [[delay:20]]`);
			runs.push(run);
			await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.id });
			await within('the run to end', followEnded(api, agentId, run.id), 20_000);
		}
		// A channel the bound closes goes once the Output view does not show it (the oldest are not
		// shown: each follow showed the newest), so the view lists at most 10 run channels.
		await waitFor(`at most 10 run channels open (${runChannels(api).length} now)`, async () =>
			runChannels(api).length <= 10 ? true : undefined,
		);
		const first = runs[0]!;
		assert.equal(api.runFollower.stateOf(agentId, first.id)?.title, undefined, "the oldest run's channel was closed");
		const stored = await storedEvents(api, agentId, first.id);
		assert.ok(
			stored.some((e) => e.type === 'run.completed'),
			'its events stay on disk',
		);
		await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: first.id });
		assert.equal(api.runFollower.stateOf(agentId, first.id)?.title, `${agentName}: Quick task 0 [[events:1]] [[delay:20]]`);
		await waitFor('at most 10 run channels open after reopening', async () => (runChannels(api).length <= 10 ? true : undefined));
		for (const run of runs) {
			await api.runFollower.forget(agentId, run.id);
		}
		const quickTasks = (): string[] => runChannels(api).filter((name) => name.includes('Quick task'));
		await waitFor('the run channels closed', async () => (quickTasks().length === 0 ? true : undefined)).catch((err: unknown) => {
			throw new Error(
				`${String(err)}; open: ${JSON.stringify(quickTasks())}; output documents: ${JSON.stringify(outputDocuments())}`,
			);
		});
		assert.deepEqual(
			api.recorder.channelsDisposedWhileShown.filter((name) => name.includes('Quick task')),
			[],
			'disposed while the Output view showed them',
		);
	});

	test("a run's channel closed while the Output view shows it goes once the view has let go of it [web]", async function () {
		this.timeout(60_000);
		// A run that keeps talking: its channel is appended to every flush while it is closed.
		const prompt = 'Keep talking [[ticks:1000]] [[delay:20]]';
		const run = await startRun(prompt);
		const name = `Cloud Agents: ${agentName}: ${prompt}`;
		const document = (): vscode.TextDocument | undefined =>
			vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'output' && d.uri.path.endsWith(`-${name}`));
		try {
			await vscode.commands.executeCommand('cloudAgents.runs.follow', { automation: true, agentId, runId: run.id });
			// The Output view shows the channel (the workbench holds its text) and events are being appended to it.
			await waitFor('the channel shown with a few events', async () => ((document()?.lineCount ?? 0) > 5 ? true : undefined));
			assert.ok(api.runFollower.stateOf(agentId, run.id)?.active, 'the run still streams');

			// Forgetting the run (Delete Agent does) closes its channel while the view shows it.
			await api.runFollower.forget(agentId, run.id);
			await waitFor('the channel to be disposed', async () => (runChannels(api).includes(name) ? undefined : true), 20_000);

			assert.deepEqual(
				api.recorder.channelsDisposedWhileShown.filter((n) => n === name),
				[],
				'disposed while the Output view showed it',
			);
			assert.equal(document() === undefined, true, 'the Output view still shows the disposed channel');
		} finally {
			await cancelQuietly(run.id);
			await api.runFollower.forget(agentId, run.id);
		}
	});
});
