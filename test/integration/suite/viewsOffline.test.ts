import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { RowSnapshot } from '../../../src/testing';
import type { CloudAgentsTestApi } from '../../../src/extension';
import { createIdleAgent, emu, restoreDevToken, seedAgent, testApi, waitFor } from '../support/cloudAgents';
import { devToken } from '../support/env';

/**
 * The views while the service does not answer (src/views/connectivity.ts, listTree.ts), against the
 * emulator's outage switch (`POST /_emulator/outage`: refuse or reset every API connection for N s;
 * the admin listener at `admin_url` stays up). The Agents and Runs views are shown (the Cloud Agents
 * container open), as a person watching them has them.
 */

type Outage = { active: boolean; admin_url: string; counts: { reset_requests: number } };

const rows = async (key: string): Promise<RowSnapshot[]> =>
	(await vscode.commands.executeCommand<RowSnapshot[]>('_cloudAgents.views.rows', key)) ?? [];
let api: CloudAgentsTestApi;
/** The "reconnecting" status bar item as the user sees it: shown while the views are offline. */
const status = async (): Promise<{ online: boolean; visible: boolean; text: string; tooltip: string; command: string | undefined }> => {
	const item = api.recorder.statusBarItem('cloudAgents.connection');
	return {
		online: item === undefined,
		visible: item !== undefined,
		text: item?.text ?? '',
		tooltip: item?.tooltip ?? '',
		command: item?.command,
	};
};
/** The seconds the offline row counts down to the next attempt ("Offline — retrying in N s"), undefined while an attempt runs. */
const countdown = async (): Promise<number | undefined> => {
	const m = OFFLINE_LABEL.exec((await rows('agents'))[0]?.label ?? '');
	return m?.[2] === undefined ? undefined : Number(m[2]);
};
const recordIds = (list: RowSnapshot[]): Array<string | undefined> =>
	list.filter((r) => !['offline', 'loadMore', 'message', 'empty'].includes(r.contextValue ?? '')).map((r) => r.id);
/**
 * How long the outage of the first test lasts: longer than the first automatic attempt after going
 * offline (retryDelayMs(0) is 4-5 s), so the views stay offline through a failed attempt and come
 * back by themselves at a later one. (Longer outages only repeat the same doubling waits.)
 */
const OUTAGE_SECONDS = 10;
const OFFLINE_LABEL = /^Offline( — retrying in (\d+) s| — retrying now…)?$/;

/** An admin call on the admin listener (up through every outage). */
async function admin<T>(adminUrl: string, method: string, path: string, body?: unknown): Promise<T> {
	const res = await fetch(`${adminUrl}${path}`, {
		method,
		headers: body === undefined ? {} : { 'content-type': 'application/json' },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	assert.ok(res.ok, `${method} ${path}: HTTP ${res.status}`);
	return (await res.json()) as T;
}

suite('Views while the service is unreachable', () => {
	let adminUrl: string;
	let agentId: string;

	suiteSetup(async function () {
		this.timeout(60_000);
		api = await testApi();
		await restoreDevToken();
		adminUrl = (await emu<Outage>('GET', '/_emulator/outage')).body.admin_url.replace(/\/+$/, '');
		// An agent with runs, selected so that the Runs view lists them.
		agentId = (await seedAgent('Refactor billing module')).id;
		assert.ok(agentId, 'the demo seed has an agent with runs');
		await vscode.commands.executeCommand('workbench.view.extension.cloudAgents');
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agentId);
		await vscode.commands.executeCommand('cloudAgents.refresh');
	});

	teardown(async function () {
		this.timeout(30_000);
		await admin(adminUrl, 'DELETE', '/_emulator/outage');
		// Leave the views as the next suite expects them: loaded, online.
		await vscode.commands.executeCommand('cloudAgents.refresh');
		await waitFor('online again', async () => ((await status()).online ? true : undefined), 20_000);
	});

	suiteTeardown(async () => {
		await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', undefined);
	});

	test('during an outage Agents and Runs keep their rows under "Offline — retrying in N s" and the status bar says reconnecting; when it ends they come back by themselves [web]', async function () {
		this.timeout(120_000);
		const agentsBefore = recordIds(await rows('agents'));
		const runsBefore = recordIds(await rows('runs'));
		assert.ok(
			agentsBefore.length > 0 && runsBefore.length > 0,
			`rows before: ${agentsBefore.length} agents, ${runsBefore.length} runs`,
		);
		assert.equal((await status()).visible, false, 'no status bar item while online');

		const started = Date.now();
		await admin(adminUrl, 'POST', '/_emulator/outage', { mode: 'refuse', seconds: OUTAGE_SECONDS });
		// A person presses Refresh: every read is refused.
		await vscode.commands.executeCommand('cloudAgents.refresh');

		for (const [key, before] of [
			['agents', agentsBefore],
			['runs', runsBefore],
		] as const) {
			const list = await rows(key);
			assert.equal(list[0]?.contextValue, 'offline', `${key}: the offline row first (${JSON.stringify(list[0])})`);
			assert.match(list[0].label, OFFLINE_LABEL);
			assert.equal(list[0].command, 'cloudAgents.retryConnection', 'a click retries now');
			assert.match(
				list[0].tooltip ?? '',
				/Cannot reach the Cloud Agents service since .+: .*(refused|ECONNREFUSED|could not be reached from this browser)/i,
			);
			assert.deepEqual(recordIds(list), before, `${key}: the rows are kept`);
			assert.ok(!list.some((r) => r.contextValue === 'error' || r.contextValue === 'retry'), `${key}: no error row`);
		}
		const offline = await status();
		assert.equal(offline.visible, true);
		assert.equal(offline.text, '$(sync~spin) Cloud Agents: reconnecting');
		assert.equal(offline.command, 'cloudAgents.retryConnection');
		assert.match(offline.tooltip, /since \d{1,2}:\d{2}:\d{2}/);
		assert.match(offline.tooltip, /refused|ECONNREFUSED|could not be reached from this browser/i);

		// No click: the outage outlasts the first automatic attempt (the backoff waits 4-5 s, then 8-10 s)
		// and the views come back at the first attempt after it ends (at about 15 s). Meanwhile the row
		// counts down, and an attempt that fails sets a longer wait: the count goes up once.
		const seen: number[] = [];
		await waitFor(
			'the views online again',
			async () => {
				const [agents, runs, s, n] = [await rows('agents'), await rows('runs'), await status(), await countdown()];
				if (n !== undefined && seen.at(-1) !== n) seen.push(n);
				return agents[0]?.contextValue !== 'offline' && runs[0]?.contextValue !== 'offline' && !s.visible ? true : undefined;
			},
			60_000,
		);
		const risen = seen.findIndex((n, i) => i > 0 && n > (seen[i - 1] as number));
		assert.ok(risen > 0, `an automatic attempt failed during the outage and set a longer wait (countdown seen: ${seen.join(', ')})`);
		assert.ok(
			seen.slice(0, risen).every((n, i, a) => i === 0 || n < (a[i - 1] as number)),
			`the countdown counts down (${seen.join(', ')})`,
		);
		const back = Date.now() - started;
		assert.ok(back >= OUTAGE_SECONDS * 1000, `not before the outage ended (${back} ms)`);
		assert.deepEqual(recordIds(await rows('agents')), agentsBefore);
		assert.deepEqual(recordIds(await rows('runs')), runsBefore);
		const s = await status();
		assert.equal(s.online, true);
		assert.equal(s.visible, false, 'the status bar item is gone');
	});

	test('the offline row tells whether rows are kept below it: an empty list never reads "the rows below" (issue 33)', async function () {
		this.timeout(90_000);
		const empty = await createIdleAgent('offline-no-runs');
		try {
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', empty);
			await waitFor('the Runs view empty for the new agent', async () =>
				recordIds(await rows('runs')).length === 0 ? true : undefined,
			);
			await admin(adminUrl, 'POST', '/_emulator/outage', { mode: 'refuse', seconds: 60 });
			await vscode.commands.executeCommand('cloudAgents.refresh');
			const runs = await rows('runs');
			assert.equal(runs[0]?.contextValue, 'offline', JSON.stringify(runs[0]));
			assert.equal(recordIds(runs).length, 0, 'no run rows');
			assert.doesNotMatch(runs[0].tooltip ?? '', /rows below/, 'no rows are below it');
			assert.match(runs[0].tooltip ?? '', /Nothing could be loaded yet; the list loads by itself when the service answers again/);
			const agents = await rows('agents');
			assert.equal(agents[0]?.contextValue, 'offline');
			assert.match(agents[0].tooltip ?? '', /The rows below are as last loaded/, 'the agents are kept below it');
		} finally {
			await admin(adminUrl, 'DELETE', '/_emulator/outage');
			await vscode.commands.executeCommand('_cloudAgents.views.selectAgent', agentId);
			await emu('DELETE', `/v2/agents/${encodeURIComponent(empty)}?delete_runtime=true`, undefined, devToken());
		}
	});

	test('Retry Connection Now (the offline row clicked) tries at once during the outage, and brings the views back at once after it', async function () {
		this.timeout(90_000);
		await admin(adminUrl, 'POST', '/_emulator/outage', { mode: 'reset', seconds: 60 });
		await vscode.commands.executeCommand('cloudAgents.refresh');
		assert.equal((await rows('agents'))[0]?.contextValue, 'offline');
		const before = await status();
		assert.equal(before.online, false);
		const next = await countdown();
		assert.ok((next ?? 0) >= 2, `the next attempt is ${next} s away`);
		const resetsBefore = (await admin<Outage>(adminUrl, 'GET', '/_emulator/outage')).counts.reset_requests;

		await vscode.commands.executeCommand('_cloudAgents.views.click', 'agents', 'agents/offline');
		const after = await status();
		assert.equal(after.online, false, 'still out');
		const resets = (await admin<Outage>(adminUrl, 'GET', '/_emulator/outage')).counts.reset_requests;
		assert.ok(resets > resetsBefore, `the attempt reached the emulator (${resetsBefore} → ${resets} requests reset)`);
		assert.equal((await rows('agents'))[0]?.contextValue, 'offline');

		// The service is back (long before the 60 s outage would end): one click and everything is back, no waiting out the backoff.
		await admin(adminUrl, 'DELETE', '/_emulator/outage');
		const t0 = Date.now();
		await vscode.commands.executeCommand('_cloudAgents.views.click', 'agents', 'agents/offline');
		await waitFor(
			'the views online again',
			async () => {
				const [agents, runs, s] = [await rows('agents'), await rows('runs'), await status()];
				return agents[0]?.contextValue !== 'offline' && runs[0]?.contextValue !== 'offline' && s.online && !s.visible
					? true
					: undefined;
			},
			10_000,
		);
		assert.ok(Date.now() - t0 < 10_000);
	});
});
