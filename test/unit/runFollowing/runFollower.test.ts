import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { CloudAgentsClient, type EventRecord } from '../../../src/api';
import { FOLLOWED_RUNS_KEY, RUN_NOTIFIED_KEY } from '../../../src/ids';
import { nodeConnect } from '../../../src/platform/node/network';
import { runChannelName } from '../../../src/runFollowing/format';
import { type FollowerSession, RunFollower, type RunFollowerOptions, toRunRef } from '../../../src/runFollowing/runFollower';
import { RunEventStore } from '../../../src/runFollowing/runStore';
import { DEV_TOKEN, type TestEmulator, startTestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';

/**
 * src/runFollowing/runFollower.ts: following the emulator's scripted runs with a real CloudAgentsClient;
 * the run-event store on the fake's in-memory file system, channels and notifications on the fake.
 * The scripted runs step on the emulator's own short timers (`[[delay:N]]` ms); a `[[hold]]` run stays
 * running until the test releases it. The tests wait for the follower's state, never for time.
 */

const EVENTS_ROUTE = 'GET /v2/agents/{agent_id}/runs/{run_id}/events';
const QUICK = '[[events:3]] [[delay:5]]';

class MemoryMemento implements vscode.Memento {
	readonly values = new Map<string, unknown>();
	keys(): readonly string[] {
		return [...this.values.keys()];
	}
	get<T>(key: string, fallback?: T): T | undefined {
		return this.values.has(key) ? (this.values.get(key) as T) : fallback;
	}
	async update(key: string, value: unknown): Promise<void> {
		if (value === undefined) {
			this.values.delete(key);
		} else {
			this.values.set(key, value);
		}
	}
}

interface TestLog {
	lines: string[];
	info(m: string): void;
	warn(m: string): void;
	error(m: unknown): void;
}

suite('runFollowing/runFollower', function () {
	this.timeout(20_000);
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	/** Idle agents of the demo seed, one per concurrent run (an agent runs one at a time). */
	let agents: string[];
	let sessionEmitter: vscode.EventEmitter<void>;
	let session: FollowerSession & { signedIn: boolean; reported: unknown[] };
	let store: RunEventStore;
	let globalState: MemoryMemento;
	let workspaceState: MemoryMemento;
	let log: TestLog;
	const followers: RunFollower[] = [];

	suiteSetup(async () => {
		emu = await startTestEmulator();
		client = new CloudAgentsClient({
			connect: nodeConnect,
			baseUrl: emu.url,
			getToken: () => DEV_TOKEN,
			retry: { baseDelayMs: 1, maxDelayMs: 5 },
			stream: { reconnectMinMs: 5, reconnectBaseMs: 5, reconnectMaxMs: 20 },
		});
	});
	suiteTeardown(async () => {
		client.close();
		await emu.close();
	});
	setup(async () => {
		await emu.admin('POST', '/reset', { seed: 'demo' });
		const list = await client.listAgents({ limit: 100 });
		const names = ['Refactor billing module', 'Docs writer', 'Sandbox explorer'];
		agents = names.map((n) => list.items.find((a) => a.name === n)?.id ?? '');
		assert.ok(agents.length >= 3, 'the demo seed has idle agents');
		sessionEmitter = new vscode.EventEmitter<void>();
		session = {
			client,
			signedIn: true,
			onDidChange: sessionEmitter.event,
			reported: [],
			reportError(err: unknown) {
				this.reported.push(err);
				return true;
			},
		};
		store = new RunEventStore(vscode.Uri.parse('file:///global/runs'));
		globalState = new MemoryMemento();
		workspaceState = new MemoryMemento();
		const lines: string[] = [];
		log = {
			lines,
			info: (m) => lines.push(`info ${m}`),
			warn: (m) => lines.push(`warn ${m}`),
			error: (m) => lines.push(`error ${String(m)}`),
		};
	});
	teardown(() => {
		for (const f of followers.splice(0)) {
			f.dispose();
		}
	});

	function follower(options: Partial<RunFollowerOptions> = {}): RunFollower {
		const f = new RunFollower({
			session,
			store,
			globalState,
			workspaceState,
			log: log as unknown as vscode.LogOutputChannel,
			flushMs: 1,
			...options,
		});
		followers.push(f);
		return f;
	}

	async function startRun(agentId: string, prompt: string): Promise<string> {
		return (await client.createRun(agentId, { prompt })).id;
	}

	/** Resolves when `predicate` holds (checked now and on every change of the follower). */
	function until(f: RunFollower, predicate: () => boolean): Promise<void> {
		return new Promise((resolve) => {
			if (predicate()) {
				return resolve();
			}
			const sub = f.onDidChangeFollowing(() => {
				if (predicate()) {
					sub.dispose();
					resolve();
				}
			});
		});
	}

	/** Resolves once the follower has received an event of the run. */
	function firstEvent(f: RunFollower, runId: string): Promise<EventRecord> {
		return new Promise((resolve) => {
			const sub = f.onDidReceiveEvent((e) => {
				if (e.runId === runId) {
					sub.dispose();
					resolve(e.event);
				}
			});
		});
	}

	/** Answers the status bar item with one the test reads. */
	function statusItem(): {
		text: string;
		tooltip: unknown;
		command: unknown;
		shown: boolean;
		show(): void;
		hide(): void;
		dispose(): void;
	} {
		const item = {
			text: '',
			tooltip: undefined as unknown,
			command: undefined as unknown,
			shown: false,
			show(): void {
				item.shown = true;
			},
			hide(): void {
				item.shown = false;
			},
			dispose(): void {},
		};
		fake.answer('window.createStatusBarItem', () => item);
		return item;
	}

	/** Answers output channels with ones that count how often each is shown. */
	function countingChannels(): Map<string, { lines: string[]; shows: number }> {
		const made = new Map<string, { lines: string[]; shows: number }>();
		fake.answer('window.createOutputChannel', (name: string) => {
			const c = { lines: [] as string[], shows: 0 };
			made.set(name, c);
			return {
				name,
				append: (t: string) => c.lines.push(t),
				appendLine: (t: string) => c.lines.push(`${t}\n`),
				show: () => c.shows++,
				hide: () => undefined,
				dispose: () => undefined,
			};
		});
		return made;
	}

	const channelOf = (title: string): fake.FakeChannel => {
		const channel = fake.channels.get(runChannelName(title));
		assert.ok(channel, `a channel "${runChannelName(title)}" among ${[...fake.channels.keys()].join(', ')}`);
		return channel;
	};
	const channelText = (title: string): string => channelOf(title).lines.join('');
	const release = (runId: string): Promise<unknown> => emu.admin('POST', `/runs/${encodeURIComponent(runId)}/release`);
	const eventRequests = async (): Promise<number> => (await emu.counters()).requests.by_route[EVENTS_ROUTE] ?? 0;

	test('toRunRef reads {agentId, runId} or a runs-tree node, and nothing else', () => {
		assert.deepEqual(toRunRef({ agentId: 'a', runId: 'r' }), { agentId: 'a', runId: 'r' });
		assert.deepEqual(toRunRef({ agentId: 'a', run: { id: 'r' } }), { agentId: 'a', runId: 'r' });
		assert.deepEqual(toRunRef({ run: { id: 'r', agent_id: 'a' } }), { agentId: 'a', runId: 'r' });
		for (const bad of [undefined, null, 'a/r', 3, {}, { agentId: 'a' }, { agentId: '', runId: 'r' }, { agentId: 1, runId: 'r' }]) {
			assert.equal(toRunRef(bad), undefined, JSON.stringify(bad));
		}
	});

	test('follows a run to its end: its channel, its events once in order, on disk, the status, one end notice', async () => {
		const f = follower();
		const runId = await startRun(agents[0]!, `Tidy up ${QUICK}`);
		const seen: EventRecord[] = [];
		f.onDidReceiveEvent((e) => seen.push(e.event));
		await f.follow(agents[0]!, runId, { agentName: 'Billing', prompt: 'Tidy up' });
		assert.equal(f.stateOf(agents[0]!, runId)?.title, 'Billing: Tidy up');
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		const state = f.stateOf(agents[0]!, runId)!;
		assert.deepEqual(state.outcome, { status: 'succeeded' });
		assert.equal(state.ended, true);
		assert.equal(state.active, false);
		assert.deepEqual(f.following, []);
		const seqs = seen.map((e) => e.seq);
		assert.ok(seqs.length >= 3, `${seqs.length} events`);
		assert.deepEqual(
			seqs,
			[...new Set(seqs)].sort((a, b) => a - b),
			'in seq order, never twice',
		);
		await store.flushed();
		assert.deepEqual(
			(await store.read(agents[0]!, runId)).map((e) => e.seq),
			seqs,
		);
		const text = channelText('Billing: Tidy up');
		assert.ok(text.startsWith(`Billing: Tidy up — run ${runId} of agent ${agents[0]}`), text);
		assert.match(text, /run\.completed/);
		const notices = fake.calls('window.showInformationMessage');
		assert.deepEqual(notices, [['Billing: Tidy up — succeeded.', 'Open Result', 'Show Output']]);
		assert.deepEqual(globalState.get(RUN_NOTIFIED_KEY), [runId]);
		assert.equal(f.statusRunInfo?.runId, runId);
		assert.deepEqual(f.statusRunInfo?.actions, ['showOutput', 'openResult', 'dismiss']);
	});

	test("following a run notes it for the profile's other windows as it starts; its end is announced here once claimed, and not when another window has", async () => {
		const f = follower();
		const noted: string[] = [];
		const claimed: string[] = [];
		let claimAnswer = true;
		f.setEndClaim({
			claim: async (runId) => {
				claimed.push(runId);
				return claimAnswer;
			},
			following: async (runId) => {
				noted.push(runId);
			},
		});
		const mine = await startRun(agents[0]!, `Noted ${QUICK}`);
		await f.follow(agents[0]!, mine, { agentName: 'Billing', prompt: 'Noted' });
		assert.deepEqual(noted, [mine], 'noted as following starts, before the end');
		await until(f, () => f.stateOf(agents[0]!, mine)?.outcome !== undefined);
		assert.deepEqual(claimed, [mine]);
		assert.deepEqual(fake.calls('window.showInformationMessage'), [['Billing: Noted — succeeded.', 'Open Result', 'Show Output']]);
		claimAnswer = false;
		const theirs = await startRun(agents[0]!, `Claimed elsewhere ${QUICK}`);
		await f.follow(agents[0]!, theirs, { agentName: 'Billing', prompt: 'Claimed elsewhere' });
		await until(f, () => f.stateOf(agents[0]!, theirs)?.outcome !== undefined);
		assert.deepEqual(claimed, [mine, theirs]);
		assert.equal(fake.calls('window.showInformationMessage').length, 1, 'another window announced it');
	});

	test('following an ended run again (another window) shows its history from disk, asks for no events and is not announced twice', async () => {
		const first = follower();
		const runId = await startRun(agents[0]!, `Once ${QUICK}`);
		await first.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Once' });
		await until(first, () => first.stateOf(agents[0]!, runId)?.outcome !== undefined);
		await store.flushed();
		const stored = (await store.read(agents[0]!, runId)).length;
		first.dispose();
		const announced = fake.calls('window.showInformationMessage').length;
		assert.equal(announced, 1);
		await emu.admin('POST', '/counters/reset');

		const second = follower();
		await second.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Once' });
		const state = second.stateOf(agents[0]!, runId)!;
		assert.equal(state.ended, true);
		assert.deepEqual(state.outcome, { status: 'succeeded' });
		const channels = fake.calls('window.createOutputChannel').filter(([name]) => name === runChannelName('A: Once'));
		assert.equal(channels.length, 2, 'one channel per window');
		assert.match(channelText('A: Once'), new RegExp(`— ${stored} stored events, read from disk —`));
		assert.equal(await eventRequests(), 0);
		// The end was announced by the first window.
		await until(second, () => second.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.equal(fake.calls('window.showInformationMessage').length, announced);
	});

	test("without a hint the run's name comes from the service: the agent's name and the prompt", async () => {
		const f = follower();
		const name = (await client.getAgent(agents[1]!)).name;
		const runId = await startRun(agents[1]!, `Write docs ${QUICK}`);
		await f.follow(agents[1]!, runId);
		assert.ok(f.stateOf(agents[1]!, runId)!.title.startsWith(`${name}: Write docs`), f.stateOf(agents[1]!, runId)!.title);
		await until(f, () => f.stateOf(agents[1]!, runId)?.outcome !== undefined);
	});

	test('a failed run ends with a warning offering its output first', async () => {
		const f = follower();
		const runId = await startRun(agents[0]!, `Break [[fail]] [[delay:5]]`);
		await f.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Break' });
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.deepEqual(f.stateOf(agents[0]!, runId)?.outcome, { status: 'failed' });
		assert.deepEqual(fake.calls('window.showWarningMessage'), [['A: Break — failed.', 'Show Output', 'Open Result']]);
		assert.equal(fake.calls('window.showInformationMessage').length, 0);
	});

	test('stop ends following without the run ending; following a run twice shows it, with one stream', async () => {
		const channels = countingChannels();
		const f = follower();
		const runId = await startRun(agents[0]!, `Wait ${QUICK} [[hold]]`);
		await emu.admin('POST', '/counters/reset');
		const got = firstEvent(f, runId);
		await f.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Wait' });
		await got;
		await f.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Wait' });
		assert.equal(channels.get(runChannelName('A: Wait'))?.shows, 2);
		assert.equal(channels.size, 1);
		assert.equal(await eventRequests(), 1, 'one stream');
		assert.deepEqual(f.following, [{ agentId: agents[0], runId, status: f.stateOf(agents[0]!, runId)!.status }]);
		assert.equal(f.stop(agents[0]!, runId), true);
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.deepEqual(f.stateOf(agents[0]!, runId)?.outcome, { status: undefined, reason: 'stopped' });
		assert.equal(f.stateOf(agents[0]!, runId)?.ended, false);
		assert.equal(f.stop(agents[0]!, runId), false, 'nothing to stop');
		assert.match(channels.get(runChannelName('A: Wait'))!.lines.join(''), /— stopped following —/);
		assert.equal(f.statusRunInfo, undefined, 'a run no longer followed and not ended is not shown');
		assert.equal(fake.calls('window.showInformationMessage').length, 0);
		await release(runId);
	});

	test('a run the service does not know ends following as gone, told in the log, not as an error', async () => {
		const f = follower();
		await f.follow(agents[0]!, 'run_doesnotexist', { agentName: 'A', prompt: 'Gone' });
		await until(f, () => f.stateOf(agents[0]!, 'run_doesnotexist')?.outcome !== undefined);
		assert.deepEqual(f.stateOf(agents[0]!, 'run_doesnotexist')?.outcome, { status: undefined, reason: 'gone' });
		assert.ok(
			log.lines.some((l) => l.startsWith('warn Stopped following run run_doesnotexist: it or its agent no longer exists')),
			log.lines.join('\n'),
		);
		assert.match(channelText('A: Gone'), /the run or its agent no longer exists/);
		assert.equal(fake.calls('window.showErrorMessage').length, 0);
	});

	test('at most maxActive runs stream: following one more stops the oldest', async () => {
		const f = follower({ maxActive: 1 });
		const one = await startRun(agents[0]!, `One ${QUICK} [[hold]]`);
		const two = await startRun(agents[1]!, `Two ${QUICK} [[hold]]`);
		await f.follow(agents[0]!, one, { agentName: 'A', prompt: 'One' });
		await f.follow(agents[1]!, two, { agentName: 'B', prompt: 'Two' });
		await until(f, () => f.stateOf(agents[0]!, one)?.outcome !== undefined);
		assert.equal(f.stateOf(agents[0]!, one)?.outcome?.reason, 'stopped');
		assert.deepEqual(
			f.following.map((r) => r.runId),
			[two],
		);
		assert.ok(log.lines.includes(`info Stopped following run ${one}: at most 1 runs are followed at once.`), log.lines.join('\n'));
		await release(one);
		await release(two);
	});

	test('signing out stops every stream and remembers them; signing in resumes each after its last event, none twice', async () => {
		const item = statusItem();
		const f = follower();
		const runId = await startRun(agents[0]!, `Long ${QUICK} [[hold]]`);
		const seen: number[] = [];
		f.onDidReceiveEvent((e) => seen.push(e.event.seq));
		const got = firstEvent(f, runId);
		await f.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Long' });
		await got;
		assert.deepEqual(workspaceState.get(FOLLOWED_RUNS_KEY), [{ agentId: agents[0], runId }]);

		session.signedIn = false;
		sessionEmitter.fire();
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.deepEqual(f.following, []);
		assert.equal(item.text, '$(debug-disconnect) Cloud Agents: signed out');
		assert.equal(item.tooltip, 'Signed out: following 1 run stopped. Click to sign in; following resumes.');
		assert.deepEqual(item.command, { command: 'cloudAgents.signIn', title: 'Sign In' });
		assert.deepEqual(workspaceState.get(FOLLOWED_RUNS_KEY), [{ agentId: agents[0], runId }], 'still to follow after a reload');
		const before = seen.length;

		session.signedIn = true;
		sessionEmitter.fire();
		await until(f, () => f.stateOf(agents[0]!, runId)?.active === true);
		await release(runId);
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.deepEqual(f.stateOf(agents[0]!, runId)?.outcome, { status: 'succeeded' });
		assert.ok(seen.length > before, 'events after the resume');
		assert.deepEqual(
			seen,
			[...new Set(seen)].sort((a, b) => a - b),
			'resumed after the last event: none twice',
		);
		assert.equal(workspaceState.get(FOLLOWED_RUNS_KEY), undefined, 'an ended run is no longer remembered');
	});

	test('a window reloaded while following follows the remembered runs again at sign-in, without showing their channels', async () => {
		const runId = await startRun(agents[0]!, `Again ${QUICK} [[hold]]`);
		workspaceState.values.set(FOLLOWED_RUNS_KEY, [{ agentId: agents[0], runId }, { bogus: true }]);
		const channels = countingChannels();
		const f = follower();
		assert.deepEqual(f.following, []);
		sessionEmitter.fire();
		await until(f, () => f.stateOf(agents[0]!, runId)?.active === true);
		const title = f.stateOf(agents[0]!, runId)!.title;
		const channel = channels.get(runChannelName(title));
		assert.ok(channel && channel.lines.length > 0, 'the run has its channel');
		assert.equal(channel.shows, 0, 'not revealed');
		await release(runId);
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.equal(f.stateOf(agents[0]!, runId)?.outcome?.status, 'succeeded');
	});

	test('forget stops following and forgets the run in this window; its events stay on disk', async () => {
		const f = follower();
		const runId = await startRun(agents[0]!, `Forget ${QUICK} [[hold]]`);
		const got = firstEvent(f, runId);
		await f.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Forget' });
		await got;
		await f.forget(agents[0]!);
		assert.equal(f.stateOf(agents[0]!, runId), undefined);
		await store.flushed();
		assert.ok((await store.read(agents[0]!, runId)).length > 0);
		assert.equal(f.show(agents[0]!, runId), false);
		assert.deepEqual(f.following, []);
		assert.equal(workspaceState.get(FOLLOWED_RUNS_KEY), undefined);
		await release(runId);
	});

	test('a refused token pauses following with one report to the session; the status bar asks to sign in, and the run is kept to resume', async () => {
		const item = statusItem();
		const f = follower();
		const runId = await startRun(agents[0]!, `Auth ${QUICK} [[hold]]`);
		await emu.faults([{ route: '/v2/agents/{agent_id}/runs/{run_id}/events', status: 401 }]);
		await f.follow(agents[0]!, runId, { agentName: 'A', prompt: 'Auth' });
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		await emu.faults([]);
		assert.deepEqual(f.stateOf(agents[0]!, runId)?.outcome, { status: undefined, reason: 'unauthorized' });
		assert.equal(session.reported.length, 1);
		assert.equal((session.reported[0] as { status?: number }).status, 401);
		assert.equal(item.text, '$(debug-disconnect) Cloud Agents: sign in to resume');
		assert.deepEqual(item.command, { command: 'cloudAgents.signIn', title: 'Sign In' });
		assert.equal(item.shown, true);
		assert.match(channelText('A: Auth'), /— paused until you sign in again —/);
		assert.deepEqual(workspaceState.get(FOLLOWED_RUNS_KEY), [{ agentId: agents[0], runId }]);
		// Signing in again follows it from where it stopped.
		sessionEmitter.fire();
		await until(f, () => f.stateOf(agents[0]!, runId)?.active === true);
		await release(runId);
		await until(f, () => f.stateOf(agents[0]!, runId)?.outcome !== undefined);
		assert.deepEqual(f.stateOf(agents[0]!, runId)?.outcome, { status: 'succeeded' });
	});
});
