import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../../../src/api';
import { type Deployment, deploymentNameWhenSeveral } from '../../../src/auth/deployments';
import { type PerDeployment, holdersOf } from '../../../src/auth/perDeployment';
import { FOLLOWED_RUNS_KEY, RUN_NOTIFIED_KEY } from '../../../src/ids';
import { runChannelName } from '../../../src/runFollowing/format';
import { type FollowerSession, RunFollower } from '../../../src/runFollowing/runFollower';
import { RunEventStore } from '../../../src/runFollowing/runStore';
import { flagFollowedRuns, followPerDeployment, runStoreRoot } from '../../../src/shell/deploymentFollowers';
import { type EmulatedDeployment, listedDeployments, twoEmulatorsPerSuite } from '../support/twoDeployments';
import * as fake from '../support/vscodeFake';

/**
 * src/shell/deploymentFollowers.ts (issue 47): run following per deployment, against two emulators
 * seeded alike (the demo's billing agent has one id on both). The default deployment's follower is
 * made as src/shell/main.ts makes it (its store under `runs/`, its keys as they always were, its
 * name when several deployments are configured); "Staging"'s is the holder's. The stores are on the
 * fake's in-memory file system, channels, notifications and status bar items on the fake. The
 * tests wait for the followers' state, never for time.
 */

const QUICK = '[[events:3]] [[delay:5]]';
const GLOBAL = vscode.Uri.parse('file:///global');

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

type TestSession = FollowerSession & { signedIn: boolean; changed: vscode.EventEmitter<void> };

function testSession(client: CloudAgentsClient): TestSession {
	const changed = new vscode.EventEmitter<void>();
	return { client, signedIn: true, onDidChange: changed.event, changed, reportError: () => false };
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

suite('shell/deploymentFollowers: each deployment follows its own runs (issue 47)', function () {
	this.timeout(20_000);
	let homeService: EmulatedDeployment;
	let stagingService: EmulatedDeployment;
	let agentId: string;
	let homeSession: TestSession;
	let stagingSession: TestSession;
	let byDefault: Deployment;
	let staging: Deployment;
	let changed: vscode.EventEmitter<void>;
	let globalState: MemoryMemento;
	let workspaceState: MemoryMemento;
	let statusItems: Map<string, { text: string; command: unknown; disposed: boolean }>;
	const disposables: vscode.Disposable[] = [];

	twoEmulatorsPerSuite(
		(h, s) => {
			[homeService, stagingService] = [h, s];
			[byDefault, staging] = [h.deployment, s.deployment];
		},
		{
			homeName: (apiUrl) => new URL(apiUrl).host,
			demoEachTest: true,
			client: { retry: { baseDelayMs: 1, maxDelayMs: 5 }, stream: { reconnectMinMs: 5, reconnectBaseMs: 5, reconnectMaxMs: 20 } },
		},
	);
	setup(() => {
		agentId = homeService.agentId;
		assert.equal(stagingService.agentId, agentId, 'the demo seed gives the billing agent one id on both services');
		homeSession = testSession(homeService.client);
		stagingSession = testSession(stagingService.client);
		fake.settings['cloudAgents.apiUrl'] = homeService.emu.url;
		fake.settings['cloudAgents.deployments'] = [{ name: 'Staging', apiUrl: stagingService.emu.url }];
		changed = new vscode.EventEmitter<void>();
		globalState = new MemoryMemento();
		workspaceState = new MemoryMemento();
		statusItems = new Map();
		fake.answer('window.createStatusBarItem', (id: string) => {
			const item = { text: '', tooltip: undefined, command: undefined as unknown, disposed: false, show() {}, hide() {} };
			const shown = Object.assign(item, { dispose: () => void (item.disposed = true) });
			statusItems.set(id, shown);
			return shown;
		});
	});
	teardown(() => {
		for (const d of disposables.splice(0).reverse()) {
			d.dispose();
		}
		changed.dispose();
	});

	const log = { info: () => undefined, warn: () => undefined, error: () => undefined } as unknown as vscode.LogOutputChannel;

	/** The default deployment's follower, as src/shell/main.ts makes it. */
	function homeFollower(): RunFollower {
		const f = new RunFollower({
			session: homeSession,
			store: new RunEventStore(runStoreRoot(GLOBAL, byDefault)),
			globalState,
			workspaceState,
			log,
			flushMs: 1,
			deploymentName: () => deploymentNameWhenSeveral(),
		});
		disposables.push(f);
		return f;
	}

	/** The other deployments' followers, as src/shell/featureEntry.ts makes them. */
	function others(): PerDeployment<TestSession, RunFollower> {
		const held = followPerDeployment(
			holdersOf(
				listedDeployments(
					() => [
						{ deployment: byDefault, session: homeSession },
						{ deployment: staging, session: stagingSession },
					],
					changed,
				),
			),
			{ globalStorageUri: GLOBAL, globalState, workspaceState, log, statusArg: () => ({ staging: true }), options: { flushMs: 1 } },
		);
		disposables.push(held);
		return held;
	}

	const channelText = (name: string): string => {
		const channel = fake.channels.get(runChannelName(name));
		assert.ok(channel, `a channel "${runChannelName(name)}" among ${[...fake.channels.keys()].join(', ')}`);
		return channel.lines.join('\n');
	};
	const notices = (): string[] =>
		[...fake.calls('window.showInformationMessage'), ...fake.calls('window.showWarningMessage')].map((c) => String(c[0]));

	test('a run followed on each deployment at once: each one’s events only in its own store, channel, status bar and notification, each named', async () => {
		const home = homeFollower();
		const held = others();
		const stagingFollower = held.get(staging.id);
		assert.ok(stagingFollower, 'Staging, signed in, has its follower');
		assert.equal(held.get(byDefault.id), undefined, 'the default deployment’s is the extension’s own');
		const homeRun = (await homeService.client.createRun(agentId, { prompt: `Tidy up ${QUICK}` })).id;
		const stagingRun = (await stagingService.client.createRun(agentId, { prompt: `Tidy up ${QUICK}` })).id;
		const heard = { home: [] as string[], staging: [] as string[] };
		home.onDidReceiveEvent((e) => heard.home.push(e.runId));
		stagingFollower.onDidReceiveEvent((e) => heard.staging.push(e.runId));
		await Promise.all([
			home.follow(agentId, homeRun, { agentName: 'Billing', prompt: 'Tidy up' }),
			stagingFollower.follow(agentId, stagingRun, { agentName: 'Billing', prompt: 'Tidy up' }),
		]);
		await Promise.all([
			until(home, () => home.stateOf(agentId, homeRun)?.outcome !== undefined),
			until(stagingFollower, () => stagingFollower.stateOf(agentId, stagingRun)?.outcome !== undefined),
		]);
		assert.deepEqual(home.stateOf(agentId, homeRun)?.outcome, { status: 'succeeded' });
		assert.deepEqual(stagingFollower.stateOf(agentId, stagingRun)?.outcome, { status: 'succeeded' });
		// Neither follower knows the other's run.
		assert.equal(home.stateOf(agentId, stagingRun), undefined);
		assert.equal(stagingFollower.stateOf(agentId, homeRun), undefined);
		assert.ok(heard.home.length >= 3 && heard.home.every((r) => r === homeRun), heard.home.join());
		assert.ok(heard.staging.length >= 3 && heard.staging.every((r) => r === stagingRun), heard.staging.join());
		// Each store: its own run's events, none of the other's; the default deployment's where it always was.
		const homeStore = new RunEventStore(vscode.Uri.joinPath(GLOBAL, 'runs'));
		const stagingStore = new RunEventStore(vscode.Uri.joinPath(GLOBAL, 'deployments', staging.id, 'runs'));
		assert.equal((await homeStore.read(agentId, homeRun)).length, heard.home.length);
		assert.equal((await homeStore.read(agentId, stagingRun)).length, 0);
		assert.equal((await stagingStore.read(agentId, stagingRun)).length, heard.staging.length);
		assert.equal((await stagingStore.read(agentId, homeRun)).length, 0);
		// Two runs of the same ids on the two services are two files.
		assert.notEqual(homeStore.fileOf(agentId, homeRun).toString(), stagingStore.fileOf(agentId, homeRun).toString());
		// Each channel is named after its deployment and holds its own run only.
		const homeText = channelText(`Billing: Tidy up (${byDefault.name})`);
		const stagingText = channelText('Billing: Tidy up (Staging)');
		assert.ok(homeText.includes(homeRun) && !homeText.includes(stagingRun), homeText);
		assert.ok(stagingText.includes(stagingRun) && !stagingText.includes(homeRun), stagingText);
		// Each end is announced once, naming its deployment; each deployment remembers its own announced ends.
		assert.deepEqual(
			notices().sort(),
			[`Billing: Tidy up (${byDefault.name}) — succeeded.`, 'Billing: Tidy up (Staging) — succeeded.'].sort(),
		);
		assert.deepEqual(globalState.get(RUN_NOTIFIED_KEY), [homeRun]);
		assert.deepEqual(globalState.get(`${RUN_NOTIFIED_KEY}.${staging.id}`), [stagingRun]);
		// Each status bar item says its deployment; Staging's click acts on Staging's run (its argument names it).
		assert.match(
			statusItems.get('cloudAgents.followedRun')!.text,
			new RegExp(`Billing: Tidy up \\(${byDefault.name.replace(/\./g, '\\.')}\\) — succeeded`),
		);
		const stagingItem = statusItems.get(`cloudAgents.followedRun.${staging.id}`)!;
		assert.match(stagingItem.text, /Billing: Tidy up \(Staging\) — succeeded/);
		assert.deepEqual((stagingItem.command as { arguments: unknown[] }).arguments, [{ staging: true }]);
	});

	test('Staging’s Runs rows say which of its runs its own follower streams, drawn again when that changes; a new sign-in’s follower flags them too', async () => {
		const held = others();
		const flags = new Map<string, (key: string, parentKey: string | undefined) => boolean>();
		let redraws = 0;
		disposables.push(
			flagFollowedRuns(held, (id) =>
				id === staging.id ? { setFlag: (name, test) => void flags.set(name, test), redrawRuns: () => void redraws++ } : undefined,
			),
		);
		const follower = held.get(staging.id)!;
		const followed = flags.get('followed');
		assert.ok(followed, 'Staging’s lists got the flag');
		const runId = (await stagingService.client.createRun(agentId, { prompt: `Tidy up ${QUICK}` })).id;
		assert.equal(followed(runId, agentId), false);
		await follower.follow(agentId, runId, { agentName: 'Billing', prompt: 'Tidy up' });
		assert.equal(followed(runId, agentId), true);
		assert.ok(redraws > 0, 'drawn again');
		await until(follower, () => follower.stateOf(agentId, runId)?.outcome !== undefined);
		assert.equal(followed(runId, agentId), false, 'ended: no longer followed');
		// Signed out and in again: the new follower's flag replaces the old one's.
		stagingSession.signedIn = false;
		changed.fire();
		flags.clear();
		stagingSession.signedIn = true;
		changed.fire();
		assert.ok(flags.get('followed') && held.get(staging.id) !== follower);
	});

	test('one deployment configured: no deployment name anywhere (channel, its text, status bar, notification)', async () => {
		delete fake.settings['cloudAgents.deployments'];
		const home = homeFollower();
		const runId = (await homeService.client.createRun(agentId, { prompt: `Tidy up ${QUICK}` })).id;
		await home.follow(agentId, runId, { agentName: 'Billing', prompt: 'Tidy up' });
		await until(home, () => home.stateOf(agentId, runId)?.outcome !== undefined);
		const host = byDefault.name;
		const channelNames = [...fake.channels.keys()];
		assert.deepEqual(channelNames, [runChannelName('Billing: Tidy up')]);
		const shown = [
			...channelNames,
			channelText('Billing: Tidy up'),
			statusItems.get('cloudAgents.followedRun')!.text,
			...notices(),
			home.stateOf(agentId, runId)!.title,
		];
		for (const text of shown) {
			assert.ok(!text.includes(host) && !text.includes('Staging'), `no deployment named in: ${text}`);
		}
		assert.deepEqual(notices(), ['Billing: Tidy up — succeeded.']);
		assert.equal(statusItems.get('cloudAgents.followedRun')!.text, '$(check) Billing: Tidy up — succeeded');
	});

	test('signing out of Staging stops its follows only: the default deployment’s run is followed to its end; signing in again resumes Staging’s', async () => {
		// Channels that say what VS Code's say when written to after they were disposed.
		const late: string[] = [];
		fake.answer('window.createOutputChannel', (name: string) => {
			let disposed = false;
			const write = (): void => void (disposed && late.push(name));
			return {
				name,
				append: write,
				appendLine: write,
				show: () => undefined,
				hide: () => undefined,
				dispose: () => void (disposed = true),
			};
		});
		const home = homeFollower();
		const held = others();
		const first = held.get(staging.id)!;
		const homeRun = (await homeService.client.createRun(agentId, { prompt: `Wait ${QUICK} [[hold]]` })).id;
		const stagingRun = (await stagingService.client.createRun(agentId, { prompt: `Wait ${QUICK} [[hold]]` })).id;
		await home.follow(agentId, homeRun, { agentName: 'Billing', prompt: 'Wait' });
		await first.follow(agentId, stagingRun, { agentName: 'Billing', prompt: 'Wait' });
		assert.deepEqual(
			workspaceState.get(`${FOLLOWED_RUNS_KEY}.${staging.id}`),
			[{ agentId, runId: stagingRun }],
			'Staging’s followed runs are kept apart from the default deployment’s',
		);
		assert.deepEqual(workspaceState.get(FOLLOWED_RUNS_KEY), [{ agentId, runId: homeRun }]);
		// The stopped stream's last flush (its "stopped following" line) comes after the disposal: the store is flushed right after it.
		const flushed = Object.getOwnPropertyDescriptor(RunEventStore.prototype, 'flushed')!;
		const stoppedFlushing = new Promise<void>((resolve) => {
			RunEventStore.prototype.flushed = function (this: RunEventStore) {
				if (held.get(staging.id) === undefined && this.fileOf('a', 'r').path.includes('/deployments/')) {
					resolve();
				}
				return (flushed.value as () => Promise<void>).call(this);
			};
		});
		disposables.push({ dispose: () => Object.defineProperty(RunEventStore.prototype, 'flushed', flushed) });
		// Sign-out of Staging (DeploymentSessions fires its change, then the session's own).
		stagingSession.signedIn = false;
		changed.fire();
		stagingSession.changed.fire();
		assert.equal(held.get(staging.id), undefined, 'Staging’s follower went with its sign-out');
		assert.deepEqual(first.following, [], 'its streams stopped');
		assert.equal(statusItems.get(`cloudAgents.followedRun.${staging.id}`)!.disposed, true, 'its status bar item went');
		await stoppedFlushing;
		assert.deepEqual(late, [], 'nothing written to a channel once it was disposed ("Channel has been closed")');
		assert.deepEqual(
			home.following.map((f) => f.runId),
			[homeRun],
			'the default deployment still follows its run',
		);
		await homeService.emu.admin('POST', `/runs/${encodeURIComponent(homeRun)}/release`);
		await until(home, () => home.stateOf(agentId, homeRun)?.outcome !== undefined);
		assert.deepEqual(home.stateOf(agentId, homeRun)?.outcome, { status: 'succeeded' });
		assert.ok(notices().some((n) => n.startsWith(`Billing: Wait (${byDefault.name}) — succeeded`)));
		assert.ok(!notices().some((n) => n.includes('(Staging)')), 'nothing of Staging announced while signed out');
		// Signing in to Staging again: a new follower follows its run again, from where it stopped.
		stagingSession.signedIn = true;
		changed.fire();
		const again = held.get(staging.id);
		assert.ok(again && again !== first, 'a new follower at the new sign-in');
		await until(again, () => again.following.some((f) => f.runId === stagingRun));
		await stagingService.emu.admin('POST', `/runs/${encodeURIComponent(stagingRun)}/release`);
		await until(again, () => again.stateOf(agentId, stagingRun)?.outcome !== undefined);
		assert.deepEqual(again.stateOf(agentId, stagingRun)?.outcome, { status: 'succeeded' });
		const stored = await new RunEventStore(runStoreRoot(GLOBAL, staging)).read(agentId, stagingRun);
		const seqs = stored.map((e) => e.seq);
		assert.deepEqual(
			seqs,
			[...new Set(seqs)].sort((a, b) => Number(a) - Number(b)),
			'its history whole, in order, never twice',
		);
		// Followed again without a name hint: its name read from Staging's service, with Staging's name after it.
		assert.ok(
			notices().some((n) => n.startsWith('Refactor billing module: Wait') && n.endsWith('(Staging) — succeeded.')),
			notices().join(' | '),
		);
	});
});
