/**
 * src/activity/watcher.ts: the poll loop over the emulator (both profiles) with a real
 * CloudAgentsClient, time on a fake clock (the watcher's timers; the emulator's runs step on their
 * own short real timers and the tests wait for the run's state, never for time), and a loopback
 * server for hostile answers (endless page chains, huge pages, 429 with Retry-After, flapping).
 */
import * as assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import * as vscode from 'vscode';
import { CloudAgentsClient } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';
import type { ActivityEvent } from '../../../src/activity/events';
import {
	AGENT_MAX_ITEMS,
	AGENT_MAX_PAGES,
	ActivityWatcher,
	EVENTS_PER_POLL,
	FAST_POLL_MS,
	IDLE_POLL_MS,
	IDLE_REQUESTS_PER_MINUTE,
	RUN_READS_PER_POLL,
	RUNTIME_MAX_PAGES,
	UNREACHABLE_FIRST_MS,
	type WatcherClient,
} from '../../../src/activity/watcher';
import { CLIENT_PROFILES, DEV_TOKEN, type TestEmulator, clientOfDeadPort, isVariant, startTestEmulator } from '../support/emulator';
import { FakeClock } from '../support/fakeClock';
import { type Served, serve } from '../support/serve';

const T0 = Date.now();

/** Waits (real time, bounded) until `check` answers something truthy: the emulator's runs move on their own timers. */
async function eventually<T>(check: () => Promise<T | undefined | false>, what: string, timeoutMs = 15_000): Promise<T> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		const value = await check();
		if (value) {
			return value;
		}
		if (Date.now() > end) {
			assert.fail(`never: ${what}`);
		}
		await new Promise((r) => setTimeout(r, 20));
	}
}

function clientOf(url: string, token = DEV_TOKEN): CloudAgentsClient {
	return new CloudAgentsClient({ connect: nodeConnect, baseUrl: url, getToken: () => token, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
}

/** A watcher whose events are collected; polls only when the test says (or the fake clock fires its timer). */
function watch(
	client: () => WatcherClient | undefined,
	clock: FakeClock,
	extra: { since?: number; onDidChangeSignIn?: vscode.Event<unknown> } = {},
): { watcher: ActivityWatcher; events: ActivityEvent[] } {
	const events: ActivityEvent[] = [];
	const watcher = new ActivityWatcher({ client, clock, manualStart: true, ...extra });
	watcher.onDidEvents((batch) => events.push(...batch));
	return { watcher, events };
}

const disposables: Array<{ dispose(): unknown }> = [];
teardown(() => {
	for (const d of disposables.splice(0)) {
		d.dispose();
	}
});

for (const profile of CLIENT_PROFILES) {
	suite(`activity watcher against the emulator (${profile})`, () => {
		let emu: TestEmulator;
		let client: CloudAgentsClient;
		suiteSetup(async () => {
			emu = await startTestEmulator({ profile });
			client = clientOf(emu.url);
		});
		suiteTeardown(async () => {
			client.close();
			await emu.close();
		});
		teardown(async () => {
			await emu.admin('POST', '/reset');
		});

		async function docsWriter(): Promise<string> {
			const page = await client.listAgents({ limit: 100 });
			const agent = page.items.find((a) => a.name === 'Docs writer');
			assert.ok(agent, 'the demo seed has the Docs writer agent');
			return agent.id;
		}

		async function ended(agentId: string, runId: string): Promise<string> {
			return eventually(async () => {
				const run = await client.getRun(agentId, runId);
				return ['running', 'in_progress', 'queued', 'pending', 'blocked'].includes(run.status ?? '') ? undefined : run.status;
			}, `run ${runId} ended`);
		}

		test('signed out during a look (the token gone before the session says so): the look sends nothing more', async () => {
			const clock = new FakeClock(T0);
			let signedIn = true;
			// The first listing answers, then the account is gone: the client would send the rest without a token.
			const signingOut = new Proxy(client, {
				get: (target, key, receiver) =>
					key === 'listAgents'
						? async (...args: Parameters<CloudAgentsClient['listAgents']>) => {
								const page = await target.listAgents(...args);
								signedIn = false;
								return page;
							}
						: (Reflect.get(target, key, receiver) as unknown),
			});
			const { watcher } = watch(() => (signedIn ? signingOut : undefined), clock);
			disposables.push(watcher);
			await emu.admin('POST', '/counters/reset');
			await watcher.pollNow();
			const counters = await emu.counters();
			assert.deepEqual(
				Object.keys(counters.requests.by_route ?? {}).filter((r) => !r.startsWith('GET /v2/agents ') && r !== 'GET /v2/agents'),
				[],
				`only the agents' listing was sent: ${JSON.stringify(counters.requests.by_route)}`,
			);
			assert.equal(watcher.state, 'signedOut');
		});

		test('a run started elsewhere that ends is one event with its agent and the service word; runs that ended before are not', async () => {
			const clock = new FakeClock(T0);
			const { watcher, events } = watch(() => client, clock);
			disposables.push(watcher);
			await watcher.pollNow();
			assert.equal(watcher.state, 'watching');
			assert.deepEqual(
				events.filter((e) => e.kind === 'runEnded'),
				[],
				'the seed’s old runs ended before the watcher started',
			);
			const agentId = await docsWriter();
			const run = await client.createRun(agentId, { prompt: '[[hold]] write the docs' });
			await watcher.pollNow();
			assert.equal(watcher.lastPoll?.nextInMs, FAST_POLL_MS, 'something runs: fast');
			assert.equal(events.filter((e) => e.runId === run.id).length, 0);
			await emu.admin('POST', `/runs/${run.id}/release`);
			const word = await ended(agentId, run.id);
			await watcher.pollNow();
			const mine = events.filter((e) => e.runId === run.id);
			assert.equal(mine.length, 1);
			assert.equal(mine[0]?.kind, 'runEnded');
			assert.equal(mine[0]?.outcome, 'succeeded');
			assert.equal(mine[0]?.status, word);
			assert.equal(mine[0]?.agentName, 'Docs writer');
			await watcher.pollNow();
			await watcher.pollNow();
			assert.equal(events.filter((e) => e.runId === run.id).length, 1, 'never twice');
		});

		test('a cancelled run is an event with the cancelled outcome; a failed one with failed', async () => {
			const clock = new FakeClock(T0);
			const { watcher, events } = watch(() => client, clock);
			disposables.push(watcher);
			const agentId = await docsWriter();
			await watcher.pollNow();
			const held = await client.createRun(agentId, { prompt: '[[hold]] slow' });
			await watcher.pollNow();
			await client.cancelRun(agentId, held.id);
			await ended(agentId, held.id);
			await watcher.pollNow();
			const failing = await client.createRun(agentId, { prompt: '[[hold]] [[fail]] broken' });
			await watcher.pollNow();
			await emu.admin('POST', `/runs/${failing.id}/release`);
			await ended(agentId, failing.id);
			await watcher.pollNow();
			assert.deepEqual(
				events.filter((e) => e.kind === 'runEnded').map((e) => [e.runId, e.outcome]),
				[
					[held.id, 'cancelled'],
					[failing.id, 'failed'],
				],
			);
		});

		test('an open GitHub authorization request is an event with the reason and its https link; a crashed runtime too', async () => {
			const clock = new FakeClock(T0);
			const { watcher, events } = watch(() => client, clock);
			disposables.push(watcher);
			await watcher.pollNow();
			const seedRequests = events.filter((e) => e.kind === 'githubAuthorization').length;
			assert.ok(seedRequests >= 1, 'the seed’s open requests wait for a person: shown at the first look');
			const opened = await emu.admin<{ request_id: string }>('POST', '/github/authorization-requests', {
				requested_by: 'agent:Docs writer',
				reason: 'Open a pull request with the docs',
			});
			const runtimes = await client.listRuntimes({ limit: 100 });
			const atlas = runtimes.items.find((r) => r.display_name === 'atlas-dev');
			assert.ok(atlas);
			await emu.admin('PUT', `/runtimes/${atlas.id}/status`, { status: 'crashed' });
			// The other lists are read one a poll, in turn: three polls read each once.
			for (let i = 0; i < 3; i++) {
				await watcher.pollNow();
			}
			const request = events.find((e) => e.requestId === opened.request_id);
			assert.ok(request, 'the opened request is an event');
			// The variant leaves out the optional reason.
			assert.equal(request.reason, isVariant(profile) ? undefined : 'Open a pull request with the docs');
			assert.match(request?.authorizationUrl ?? '', /^https:\/\/github\.com\//);
			const crash = events.filter((e) => e.kind === 'runtimeFailed');
			assert.deepEqual(
				crash.map((e) => [e.runtimeId, e.runtimeName, e.status]),
				[[atlas.id, 'atlas-dev', 'crashed']],
				'the seed’s runtime in error since before the watcher started is not news',
			);
		});

		test('catch-up: a run that ends while the service is out of reach is reported by the first poll after', async () => {
			const clock = new FakeClock(T0);
			let offline = false;
			const dead = await clientOfDeadPort();
			const { watcher, events } = watch(() => (offline ? dead.client : client), clock);
			disposables.push(watcher, { dispose: () => dead.client.close() });
			const agentId = await docsWriter();
			const run = await client.createRun(agentId, { prompt: '[[hold]] long' });
			await watcher.pollNow();
			offline = true;
			await watcher.pollNow();
			assert.equal(watcher.state, 'unreachable');
			assert.equal(watcher.lastPoll?.nextInMs, UNREACHABLE_FIRST_MS);
			await watcher.pollNow();
			assert.equal(watcher.lastPoll?.nextInMs, UNREACHABLE_FIRST_MS * 2, 'the pause grows');
			await emu.admin('POST', `/runs/${run.id}/release`);
			await ended(agentId, run.id);
			offline = false;
			await watcher.pollNow();
			assert.equal(watcher.state, 'watching');
			assert.deepEqual(
				events.filter((e) => e.runId === run.id).map((e) => e.kind),
				['runEnded'],
			);
		});

		test('since: after a reload, the first poll reports what ended after the given time', async () => {
			const agentId = await docsWriter();
			const run = await client.createRun(agentId, { prompt: '[[events:2]] [[delay:5]] quick' });
			await ended(agentId, run.id);
			const { watcher: late, events: none } = watch(() => client, new FakeClock(Date.now() + 1_000));
			disposables.push(late);
			await late.pollNow();
			assert.equal(none.filter((e) => e.runId === run.id).length, 0, 'without since: ended before the watcher');
			const { watcher, events } = watch(() => client, new FakeClock(Date.now() + 1_000), { since: T0 - 1_000 });
			disposables.push(watcher);
			await watcher.pollNow();
			assert.deepEqual(
				events.filter((e) => e.runId === run.id).map((e) => e.kind),
				['runEnded'],
			);
		});
	});
}

suite('activity watcher: cost, pauses and stopping', () => {
	let emu: TestEmulator;
	suiteSetup(async () => {
		emu = await startTestEmulator();
	});
	suiteTeardown(async () => {
		await emu.close();
	});
	teardown(async () => {
		await emu.admin('POST', '/reset');
	});

	test('all idle: one poll a minute of two requests, timers driven by the fake clock', async () => {
		await emu.admin('POST', '/reset', { seed: 'empty' });
		const client = clientOf(emu.url);
		const clock = new FakeClock(T0);
		const watcher = new ActivityWatcher({ client: () => client, clock });
		disposables.push(watcher, { dispose: () => client.close() });
		assert.deepEqual(
			clock.pending().map((t) => t.ms),
			[0],
			'the first poll is due at once',
		);
		await clock.advance(0);
		await clock.waitForTimer((t) => t.ms === IDLE_POLL_MS);
		const first = watcher.lastPoll?.requests ?? 0;
		assert.equal(first, 4, 'the first poll reads every list once');
		await emu.admin('POST', '/counters/reset');
		for (let minute = 0; minute < 10; minute++) {
			const before = watcher.lastPoll;
			await clock.advance(IDLE_POLL_MS);
			await eventually(
				async () => watcher.lastPoll !== before && clock.pending().some((t) => t.ms === IDLE_POLL_MS),
				'the next poll',
			);
		}
		const counters = await emu.counters();
		assert.equal(counters.requests.total, 20, `two requests a minute over ten minutes: ${JSON.stringify(counters.requests.by_route)}`);
	});

	test('signed out: no poll and no timer until the sign-in changes; a 401 also stops it', async () => {
		const client = clientOf(emu.url);
		const clock = new FakeClock(T0);
		const signIn = new vscode.EventEmitter<void>();
		let signedIn = false;
		const { watcher } = watch(() => (signedIn ? client : undefined), clock, { onDidChangeSignIn: signIn.event });
		disposables.push(watcher, signIn, { dispose: () => client.close() });
		await watcher.pollNow();
		assert.equal(watcher.state, 'signedOut');
		assert.deepEqual(clock.pending(), []);
		signedIn = true;
		signIn.fire();
		await eventually(async () => watcher.state === 'watching', 'polling after sign-in');

		const revoked = clientOf(emu.url, 'ca_not_a_token_0123456789');
		const { watcher: refused } = watch(() => revoked, new FakeClock(T0));
		disposables.push(refused, { dispose: () => revoked.close() });
		await refused.pollNow();
		assert.equal(refused.state, 'signedOut');
	});

	test('one poll at a time: a second pollNow joins the first; dispose stops it and leaves no timer', async () => {
		const client = clientOf(emu.url);
		const clock = new FakeClock(T0);
		const { watcher } = watch(() => client, clock);
		disposables.push({ dispose: () => client.close() });
		await emu.admin('POST', '/counters/reset');
		const a = watcher.pollNow();
		const b = watcher.pollNow();
		assert.equal(a, b);
		await a;
		const counters = await emu.counters();
		assert.equal(counters.requests.by_route['GET /v2/agents'], 1);
		assert.equal(clock.pending().length, 1);
		watcher.dispose();
		assert.deepEqual(clock.pending(), []);
		assert.equal(watcher.state, 'disposed');
		await watcher.pollNow();
		assert.equal((await emu.counters()).requests.by_route['GET /v2/agents'], 1, 'no request after dispose');
	});
});

// ---------------------------------------------------------------- a hostile server

interface Hostile {
	agents?: (cursor: string | null, n: number) => { agents: unknown[]; next_cursor?: string };
	runs?: (agentId: string, n: number) => unknown[];
	runtimes?: (n: number) => unknown;
	requests?: (n: number) => unknown[];
	status?: (path: string) => { status: number; headers?: Record<string, string> } | undefined;
}

function hostileServer(h: Hostile): Promise<Served & { hits: Map<string, number> }> {
	const hits = new Map<string, number>();
	const count = (key: string): number => {
		const n = (hits.get(key) ?? 0) + 1;
		hits.set(key, n);
		return n;
	};
	const served = serve((req: IncomingMessage, res: ServerResponse) => {
		const url = new URL(req.url ?? '/', 'http://x');
		const json = (body: unknown): void => {
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify(body));
		};
		const forced = h.status?.(url.pathname);
		if (forced) {
			count(url.pathname);
			res.writeHead(forced.status, { 'content-type': 'application/json', ...forced.headers });
			res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
			return;
		}
		const runs = /^\/v2\/agents\/([^/]+)\/runs$/.exec(url.pathname);
		if (url.pathname === '/v2/agents') {
			json(h.agents?.(url.searchParams.get('cursor'), count('agents')) ?? { agents: [] });
		} else if (runs) {
			json(h.runs?.(decodeURIComponent(runs[1] ?? ''), count(`runs:${runs[1]}`)) ?? []);
		} else if (url.pathname === '/v2/runtimes') {
			json(h.runtimes?.(count('runtimes')) ?? { data: [], pagination: { next_cursor: null, has_more: false } });
		} else if (url.pathname === '/v2/github/authorization-requests') {
			json({ data: { requests: h.requests?.(count('requests')) ?? [] } });
		} else if (url.pathname === '/v2/images/builds') {
			count('builds');
			json({ data: [], pagination: { next_cursor: null, has_more: false } });
		} else {
			res.writeHead(404).end();
		}
	});
	return served.then((s) => ({ ...s, hits }));
}

const agentRecord = (i: number, status = 'idle'): Record<string, unknown> => ({
	id: `00000000-0000-4000-8000-000000000001.h${i}`,
	name: `Agent ${i}`,
	status,
	runtime_id: '00000000-0000-4000-8000-000000000001',
	created_at_unix_seconds: Math.floor(T0 / 1000) - 100,
	updated_at_unix_seconds: Math.floor(T0 / 1000) - 50,
});

suite('activity watcher against a hostile server', () => {
	let served: (Served & { hits: Map<string, number> }) | undefined;
	teardown(async () => {
		await served?.close();
		served = undefined;
	});
	const total = (): number => [...(served?.hits.values() ?? [])].reduce((a, b) => a + b, 0);

	test('a page chain that never ends costs at most AGENT_MAX_PAGES requests a poll and keeps at most AGENT_MAX_ITEMS agents', async () => {
		served = await hostileServer({
			agents: (_cursor, n) => ({ agents: Array.from({ length: 100 }, (_, i) => agentRecord(n * 1000 + i)), next_cursor: `c${n}` }),
		});
		const client = clientOf(served.baseUrl);
		const { watcher } = watch(() => client, new FakeClock(T0));
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		assert.equal(watcher.state, 'watching');
		assert.ok((served.hits.get('agents') ?? 0) <= AGENT_MAX_PAGES, `agent pages: ${served.hits.get('agents')}`);
		assert.ok((watcher.snapshot?.agents.size ?? 0) <= AGENT_MAX_ITEMS);
		assert.ok(total() <= AGENT_MAX_PAGES + 3 + RUN_READS_PER_POLL + RUNTIME_MAX_PAGES, `requests: ${total()}`);
	});

	test('500 idle agents in 5 pages: the next look waits long enough to cost at most IDLE_REQUESTS_PER_MINUTE a minute', async () => {
		served = await hostileServer({
			agents: (cursor) => {
				const page = cursor ? Number(cursor.slice(1)) : 0;
				return {
					agents: Array.from({ length: 100 }, (_, i) => agentRecord(page * 100 + i)),
					...(page < 4 ? { next_cursor: `p${page + 1}` } : {}),
				};
			},
		});
		const client = clientOf(served.baseUrl);
		const { watcher } = watch(() => client, new FakeClock(T0));
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		await watcher.pollNow();
		const look = watcher.lastPoll!;
		assert.equal(served.hits.get('agents'), 10, 'five pages a look');
		assert.equal(look.requests, 6, 'five pages of agents and one other list');
		assert.equal(look.nextInMs, 180_000, 'six requests at two a minute');
		assert.ok((look.requests / 180_000) * 60_000 <= IDLE_REQUESTS_PER_MINUTE);
	});

	test('a huge page of busy agents: their runs are read at most RUN_READS_PER_POLL a poll', async () => {
		served = await hostileServer({
			agents: () => ({ agents: Array.from({ length: 5_000 }, (_, i) => agentRecord(i, 'running')) }),
			runs: (agentId) => [{ id: `run-${agentId}`, agent_id: agentId, status: 'running', created_at: new Date(T0).toISOString() }],
		});
		const client = clientOf(served.baseUrl);
		const { watcher } = watch(() => client, new FakeClock(T0));
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		const runReads = (): number => [...served!.hits.entries()].filter(([k]) => k.startsWith('runs:')).reduce((a, [, n]) => a + n, 0);
		assert.equal(runReads(), RUN_READS_PER_POLL);
		assert.equal(watcher.snapshot?.agents.size, AGENT_MAX_ITEMS);
		await watcher.pollNow();
		assert.equal(runReads(), RUN_READS_PER_POLL * 2);
	});

	test('an agent whose id the client refuses to send is skipped, not retried forever; the others are watched', async () => {
		served = await hostileServer({
			agents: () => ({ agents: [{ ...agentRecord(1, 'running'), id: '../../etc' }, agentRecord(2, 'running')] }),
			runs: (agentId) => [{ id: 'run-ok', agent_id: agentId, status: 'running', created_at: new Date(T0).toISOString() }],
		});
		const client = clientOf(served.baseUrl);
		const { watcher } = watch(() => client, new FakeClock(T0));
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		await watcher.pollNow();
		assert.equal(watcher.state, 'watching');
		assert.equal(watcher.snapshot?.runs.get('run-ok')?.agentId, agentRecord(2).id);
	});

	test('429 with Retry-After: the next poll waits as long as the server asked', async () => {
		served = await hostileServer({
			status: (path) => (path === '/v2/agents' ? { status: 429, headers: { 'retry-after': '120' } } : undefined),
		});
		const client = clientOf(served.baseUrl);
		const clock = new FakeClock(T0);
		const { watcher } = watch(() => client, clock);
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		assert.equal(watcher.state, 'rateLimited');
		assert.equal(watcher.lastPoll?.nextInMs, 120_000);
		assert.deepEqual(
			clock.pending().map((t) => t.ms),
			[120_000],
		);
	});

	test('a run that ends is read at the next look, before the re-checks of the many runs still going (RUN_READS_PER_POLL a look)', async () => {
		const iso = (n: number): string => new Date(T0 + n * 1_000).toISOString();
		// 50 busy agents, each with a run going; agent 40's run ends after the first look.
		let ended = false;
		const target = agentRecord(40, 'running').id as string;
		served = await hostileServer({
			agents: () => ({
				agents: Array.from({ length: 50 }, (_, i) =>
					i === 40 && ended
						? { ...agentRecord(i, 'idle'), updated_at_unix_seconds: Math.floor(T0 / 1000) + 60 }
						: agentRecord(i, 'running'),
				),
			}),
			runs: (agentId) => [
				{
					id: `run-${agentId}`,
					agent_id: agentId,
					status: agentId === target && ended ? 'succeeded' : 'running',
					created_at: iso(0),
					updated_at: iso(agentId === target && ended ? 60 : 0),
				},
			],
		});
		const client = clientOf(served.baseUrl);
		const { watcher, events } = watch(() => client, new FakeClock(T0));
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		assert.ok(RUN_READS_PER_POLL < 40, 'agent 40 is not among the first look’s reads');
		ended = true;
		await watcher.pollNow();
		assert.deepEqual(
			events.filter((e) => e.kind === 'runEnded').map((e) => e.runId),
			[`run-${target}`],
			'reported by the look that saw its agent change',
		);
	});

	test('flapping statuses are announced once: a run that ends and runs again, a runtime that crashes again and again', async () => {
		const iso = (n: number): string => new Date(T0 + n * 1_000).toISOString();
		served = await hostileServer({
			agents: (_c, n) => ({
				agents: [{ ...agentRecord(1, n % 2 ? 'running' : 'idle'), updated_at_unix_seconds: Math.floor(T0 / 1000) + n }],
			}),
			runs: (agentId, n) => [{ id: 'run-flap', agent_id: agentId, status: n % 2 ? 'running' : 'succeeded', updated_at: iso(n) }],
			runtimes: (n) => ({
				data: [
					{
						id: '00000000-0000-4000-8000-000000000001',
						display_name: 'flappy',
						status: n % 2 ? 'running' : 'crashed',
						updated_at: iso(n),
					},
				],
				pagination: { next_cursor: null, has_more: false },
			}),
		});
		const client = clientOf(served.baseUrl);
		const { watcher, events } = watch(() => client, new FakeClock(T0));
		disposables.push(watcher, { dispose: () => client.close() });
		for (let i = 0; i < 24; i++) {
			await watcher.pollNow();
		}
		assert.equal(events.filter((e) => e.kind === 'runEnded').length, 1);
		assert.equal(events.filter((e) => e.kind === 'runtimeFailed').length, 1);
	});

	test('a flood of new requests fires at most EVENTS_PER_POLL events a poll and counts the rest', async () => {
		served = await hostileServer({
			requests: () =>
				Array.from({ length: 100 }, (_, i) => ({
					request_id: `req-${i}`,
					requested_by: 'agent:x',
					created_at_unix_seconds: Math.floor(T0 / 1000) + i,
					lifecycle: {
						status: 'pending',
						authorization_url: 'https://github.com/x',
						expires_at_unix_seconds: Math.floor(T0 / 1000) + 3_600,
					},
				})),
		});
		const client = clientOf(served.baseUrl);
		const batches: number[] = [];
		const { watcher } = watch(() => client, new FakeClock(T0));
		watcher.onDidEvents((batch) => batches.push(batch.length));
		disposables.push(watcher, { dispose: () => client.close() });
		await watcher.pollNow();
		assert.deepEqual(batches, [EVENTS_PER_POLL]);
		assert.equal(watcher.lastPoll?.dropped, 100 - EVENTS_PER_POLL);
		for (let i = 0; i < 3; i++) {
			await watcher.pollNow();
		}
		assert.deepEqual(batches, [EVENTS_PER_POLL], 'the dropped ones do not come back');
	});
});
