import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ActivityEvent } from '../../../src/activity/events';
import type { CloudAgentsTestApi } from '../../../src/extension';
import {
	advanceClock,
	createIdleAgent,
	emu,
	holdClock,
	messagesShown,
	releaseRun,
	restoreDevToken,
	startAgentRun,
	testApi,
	waitFor,
} from '../support/cloudAgents';
import { devToken, emulatorProfile } from '../support/env';

/**
 * Issue 45 in the extension host: the watcher over the account (the extension's own Activity,
 * through the test API) against the lane's emulator — an entry for each kind of event, whoever
 * started the work (ends, waits for a person, …); the setting's three values; sign-out and an outage pause it and the first look
 * after reports what ended meanwhile; a 429's Retry-After is honoured. The watcher is asked with
 * `checkNow` (Check Activity Now) rather than waited for.
 */
/** The agents a test made, removed with their runtimes after it (later suites list the demo's runtimes in view). */
const made: string[] = [];
async function idleAgent(prefix: string): Promise<string> {
	const id = await createIdleAgent(prefix);
	made.push(id);
	return id;
}
async function removeAgents(): Promise<void> {
	for (const id of made.splice(0)) {
		await emu('DELETE', `/v2/agents/${encodeURIComponent(id)}?delete_runtime=true`, undefined, devToken());
	}
}

suite('Activity: the watcher over the account (issue 45) [web]', () => {
	let api: CloudAgentsTestApi;
	const SETTING = 'activity.notifications';

	suiteSetup(async () => {
		api = await testApi();
		api.activity.start();
		await waitFor('Activity to watch the account', async () => (api.activity.state !== undefined ? true : undefined));
		await api.activity.checkNow();
	});

	teardown(async () => {
		await vscode.workspace.getConfiguration('cloudAgents').update(SETTING, undefined, vscode.ConfigurationTarget.Global);
		await emu('DELETE', '/_emulator/faults');
		await removeAgents();
	});

	const entryOf = (pred: (e: ActivityEvent) => boolean): ActivityEvent | undefined =>
		api.activity.entries().find((x) => pred(x.event))?.event;

	/** A run started through the API (not from the window), seen running, then ended by `end`. */
	async function runThatEnds(agentId: string, prompt: string, end: (runId: string) => Promise<void>): Promise<string> {
		const run = await startAgentRun(agentId, prompt);
		await api.activity.checkNow();
		await end(run.id);
		await waitFor(`run ${run.id} to end`, async () => {
			const r = await emu<{ status: string }>(
				'GET',
				`/v2/agents/${encodeURIComponent(agentId)}/runs/${encodeURIComponent(run.id)}`,
				undefined,
				devToken(),
			);
			return ['running', 'in_progress', 'queued', 'pending', 'blocked', 'RUNNING', 'QUEUED'].includes(r.body.status)
				? undefined
				: true;
		});
		return run.id;
	}

	test('each kind: runs that end (succeeded, cancelled, failed), an open GitHub request with its reason and link, a crashed runtime; each an unread entry [variant]', async () => {
		const agentId = await idleAgent('activity-kinds');
		const cancel = (runId: string) =>
			emu('DELETE', `/v2/agents/${encodeURIComponent(agentId)}/runs/${encodeURIComponent(runId)}`, undefined, devToken()).then(
				() => undefined,
			);
		const ok = await runThatEnds(agentId, 'fine [[hold]]', releaseRun);
		const cancelled = await runThatEnds(agentId, 'stopped [[hold]]', cancel);
		const failed = await runThatEnds(agentId, 'broken [[hold]] [[fail]]', releaseRun);
		const request = await emu<{ request_id: string }>('POST', '/_emulator/github/authorization-requests', {
			requested_by: 'activity-kinds',
			reason: 'Push the fix branch',
			authorization_url: 'https://github.com/login/oauth/authorize?client_id=in-host',
		});
		const runtimes = await emu<{ runtimes?: Array<{ id: string; status: string }>; data?: Array<{ id: string; status: string }> }>(
			'GET',
			'/v2/runtimes?limit=100',
			undefined,
			devToken(),
		);
		const runtime = (runtimes.body.runtimes ?? runtimes.body.data ?? [])[0];
		assert.ok(runtime, 'a runtime to crash');
		try {
			await emu('PUT', `/_emulator/runtimes/${encodeURIComponent(runtime.id)}/status`, { status: 'crashed' });
			// A look reads one of the other lists in turn (GitHub requests, runtimes, image builds): three looks read them all.
			for (let i = 0; i < 3; i++) {
				await api.activity.checkNow();
			}
			const outcomes = [ok, cancelled, failed].map((id) => entryOf((e) => e.runId === id)?.outcome);
			assert.deepEqual(outcomes, ['succeeded', 'cancelled', 'failed']);
			const ask = entryOf((e) => e.kind === 'githubAuthorization' && e.requestId === request.body.request_id);
			// The variant leaves the optional reason out of its listing: the entry then says only who asks.
			assert.equal(ask?.reason, emulatorProfile() === 'standard' ? 'Push the fix branch' : undefined);
			assert.equal(ask?.authorizationUrl, 'https://github.com/login/oauth/authorize?client_id=in-host');
			const crash = entryOf((e) => e.kind === 'runtimeFailed' && e.runtimeId === runtime.id);
			assert.ok(crash, 'the crashed runtime is an entry');
			assert.match(crash.status ?? '', /crashed/i);
			for (const key of [ok, cancelled, failed]) {
				assert.equal(api.activity.entries().find((e) => e.event.runId === key)?.read, false);
			}
		} finally {
			await emu('PUT', `/_emulator/runtimes/${encodeURIComponent(runtime.id)}/status`, { status: runtime.status });
			await emu('DELETE', `/_emulator/github/authorization-requests/${encodeURIComponent(request.body.request_id)}`);
		}
	});

	test('an image build that ends is an entry with its outcome, as the service worded it [variant]', async function () {
		this.timeout(60_000);
		const name = `activity-build-${Date.now()}`;
		// Held, the emulator clock keeps the build pending until the test moves it on.
		const releaseClock = await holdClock();
		let buildId: string | undefined;
		try {
			const started = await vscode.commands.executeCommand<{ id: string }>('cloudAgents.imageBuilds.start', {
				automation: true,
				request: { display_name: name, dockerfile: 'FROM scratch\n' },
				rethrow: true,
			});
			buildId = started.id;
			// A look reads one of the other lists in turn: three looks see the build pending.
			for (let i = 0; i < 3; i++) {
				await api.activity.checkNow();
			}
			await advanceClock(10);
		} finally {
			await releaseClock();
		}
		const ended = await waitFor('the build to end', async () => {
			await api.activity.checkNow();
			return entryOf((e) => e.kind === 'buildEnded' && e.buildId === buildId);
		});
		assert.equal(ended.outcome, 'succeeded');
		assert.match(ended.status ?? '', /succeeded|ready/i);
		// The image it built goes (the Account view of later suites lists the demo's images).
		const built = (await emu<{ builds: Array<{ id: string; image_id?: string }> }>('GET', '/_emulator/state')).body.builds.find(
			(b) => b.id === buildId,
		);
		if (built?.image_id) {
			await vscode.commands.executeCommand('cloudAgents.images.delete', { automation: true, imageId: built.image_id, rethrow: true });
		}
	});

	test("the setting's three values: all announces a success, attention only a failure, none nothing; every end is kept", async () => {
		const agentId = await idleAgent('activity-setting');
		const name = (await emu<{ name: string }>('GET', `/v2/agents/${encodeURIComponent(agentId)}`, undefined, devToken())).body.name;
		const said = async (): Promise<string[]> => [
			...(await messagesShown('information', new RegExp(name))),
			...(await messagesShown('warning', new RegExp(name))),
		];
		const config = vscode.workspace.getConfiguration('cloudAgents');
		await config.update(SETTING, 'all', vscode.ConfigurationTarget.Global);
		await runThatEnds(agentId, 'all [[hold]]', releaseRun);
		await api.activity.checkNow();
		assert.deepEqual(await said(), [`${name}: run succeeded`]);
		await config.update(SETTING, 'attention', vscode.ConfigurationTarget.Global);
		await runThatEnds(agentId, 'quiet success [[hold]]', releaseRun);
		await runThatEnds(agentId, 'loud failure [[hold]] [[fail]]', releaseRun);
		await api.activity.checkNow();
		assert.equal((await said()).length, 2, 'attention: the failure only');
		assert.match((await said())[1] ?? '', /run failed/);
		await config.update(SETTING, 'none', vscode.ConfigurationTarget.Global);
		await runThatEnds(agentId, 'silent failure [[hold]] [[fail]]', releaseRun);
		await api.activity.checkNow();
		assert.equal((await said()).length, 2, 'none: nothing more');
		assert.equal(
			api.activity.entries().filter((e) => e.event.agentId === agentId && e.event.kind === 'runEnded').length,
			4,
			'every end is kept',
		);
	});

	test('signed out: nothing watched, no entries; signed in again, the first look reports the run that ended meanwhile', async () => {
		const agentId = await idleAgent('activity-signout');
		const run = await startAgentRun(agentId, 'ends while signed out [[hold]]');
		await api.activity.checkNow();
		try {
			// The server cannot revoke the token (the dev token stays good for the sign-in after): signed out here all the same.
			await emu('PUT', '/_emulator/faults', { rules: [{ method: 'DELETE', route: '/v2/auth/token', status: 503 }] });
			await vscode.commands.executeCommand('cloudAgents.signOut', { confirm: false });
			await emu('DELETE', '/_emulator/faults');
			assert.equal(api.session.signedIn, false);
			await waitFor('Activity to stop', async () => (api.activity.state === undefined ? true : undefined));
			assert.deepEqual(api.activity.entries(), []);
			await releaseRun(run.id);
		} finally {
			await restoreDevToken();
		}
		await waitFor('Activity to watch again', async () => (api.activity.state !== undefined ? true : undefined));
		await waitFor('the run that ended while signed out', async () => {
			await api.activity.checkNow();
			return entryOf((e) => e.runId === run.id);
		});
	});

	test('waits for a person: a run, then its agent, under waiting words; each one entry, announced under "attention" [variant]', async () => {
		const agentId = await idleAgent('activity-waiting');
		const name = (await emu<{ name: string }>('GET', `/v2/agents/${encodeURIComponent(agentId)}`, undefined, devToken())).body.name;
		const agentPath = `/_emulator/agents/${encodeURIComponent(agentId)}`;
		await vscode.workspace.getConfiguration('cloudAgents').update(SETTING, 'attention', vscode.ConfigurationTarget.Global);
		const run = await startAgentRun(agentId, 'asks first [[hold]]');
		await api.activity.checkNow();
		const waits = (): ActivityEvent[] =>
			api.activity
				.entries()
				.map((x) => x.event)
				.filter((e) => e.agentId === agentId && (e.kind === 'runWaiting' || e.kind === 'agentWaiting'));
		try {
			assert.deepEqual(waits(), [], 'running is not waiting');
			// The agents list dates records to the second: the clock moves on, so the agent's record
			// shows the change at the next look (within the same second only the minute's re-check would).
			await advanceClock(2);
			await emu('PUT', `${agentPath}/runs/${encodeURIComponent(run.id)}/status`, { status: 'input_required' });
			const runWaits = await waitFor('the run waiting for a person', async () => {
				await api.activity.checkNow();
				return waits().find((e) => e.kind === 'runWaiting');
			});
			assert.equal(runWaits.runId, run.id);
			assert.equal(runWaits.status, 'input_required', "the service's word, as it wrote it");
			await emu('PUT', `${agentPath}/status`, { status: 'awaiting_approval' });
			const agentWaits = await waitFor('the agent waiting for a person', async () => {
				await api.activity.checkNow();
				return waits().find((e) => e.kind === 'agentWaiting');
			});
			assert.equal(agentWaits.agentName, name);
			// Further looks while both still wait add nothing: each wait is one entry, announced once.
			await api.activity.checkNow();
			await api.activity.checkNow();
			assert.deepEqual(
				waits()
					.map((e) => e.kind)
					.sort(),
				['agentWaiting', 'runWaiting'],
			);
			assert.deepEqual(await messagesShown('warning', new RegExp(`${name}.*waits for you`)), [
				`${name}: run waits for you (input_required)`,
				`${name} waits for you (awaiting_approval)`,
			]);
			assert.equal(api.activity.entries().find((x) => x.event.key === runWaits.key)?.read, false);
		} finally {
			await emu('PUT', `${agentPath}/status`, { status: 'running' });
			await emu('PUT', `${agentPath}/runs/${encodeURIComponent(run.id)}/status`, { status: 'running' });
			await releaseRun(run.id);
		}
	});

	test('a 429 with Retry-After: the watcher waits as long as the service asked before its next look', async () => {
		await emu('PUT', '/_emulator/faults', { rules: [{ method: 'GET', route: '/v2/agents', status: 429, retry_after: 120, count: 1 }] });
		await api.activity.checkNow();
		assert.equal(api.activity.state, 'rateLimited');
		const next = api.activity.lastPoll?.nextInMs ?? 0;
		assert.ok(next >= 120_000, `the next look in ${next} ms`);
		await emu('DELETE', '/_emulator/faults');
		await api.activity.checkNow();
		assert.equal(api.activity.state, 'watching');
	});
});

/** Node's extension host only: the outage's admin listener is another origin, which the browser's fetch may not reach. */
suite('Activity through an outage (issue 45)', () => {
	let api: CloudAgentsTestApi;
	teardown(removeAgents);
	suiteSetup(async () => {
		api = await testApi();
		api.activity.start();
		await waitFor('Activity to watch the account', async () => (api.activity.state !== undefined ? true : undefined));
	});
	const entryOf = (pred: (e: ActivityEvent) => boolean): ActivityEvent | undefined =>
		api.activity.entries().find((x) => pred(x.event))?.event;

	test('an outage pauses the watcher (unreachable); after it, the first look reports the run that ended during it', async () => {
		const agentId = await idleAgent('activity-outage');
		const run = await startAgentRun(agentId, 'ends during an outage [[hold]]');
		await api.activity.checkNow();
		// Refused connections (the admin listener answers throughout, on its own port).
		const outage = await emu<{ admin_url: string }>('POST', '/_emulator/outage', { mode: 'refuse', seconds: 60 });
		const admin = (method: string, path: string): Promise<Response> => fetch(`${outage.body.admin_url}/_emulator${path}`, { method });
		try {
			await waitFor(
				'the watcher to find the service away',
				async () => {
					await api.activity.checkNow();
					return api.activity.state === 'unreachable' || api.activity.state === 'failing' ? true : undefined;
				},
				60_000,
			);
			assert.equal((await admin('POST', `/runs/${encodeURIComponent(run.id)}/release`)).status, 200);
		} finally {
			await admin('DELETE', '/outage');
		}
		await waitFor(
			'the run that ended during the outage',
			async () => {
				await api.activity.checkNow();
				return entryOf((e) => e.runId === run.id);
			},
			30_000,
		);
		assert.equal(api.activity.state, 'watching');
	});
});
