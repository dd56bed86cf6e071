/**
 * src/activity/activity.ts: Activity composed for a session over the emulator — a run started
 * elsewhere that ends becomes an unread entry and one announcement across windows (two Activity
 * instances sharing a profile's globalState and claims), the setting's three values, a run this
 * window follows left to the run follower, sign-out and another account. Time on a fake clock (the
 * tests poll with checkNow); the emulator's runs end when the test releases them.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { CloudAgentsClient } from '../../../src/api';
import { nodeConnect } from '../../../src/platform/node/network';
import { nodeClaimStore } from '../../../src/platform/node/claimFiles';
import { Activity, type ActivitySession, announceLevel, needsAttention, worthAnnouncing } from '../../../src/activity/activity';
import { type ActivityEvent, runEndedKey } from '../../../src/activity/events';
import { HISTORY_KEY_PREFIX, describeEvent, historyKey } from '../../../src/activity/history';
import { DEV_TOKEN, type TestEmulator, startTestEmulator } from '../support/emulator';
import { FakeClock } from '../support/fakeClock';
import { type EmulatedDeployment, twoEmulatorsPerSuite } from '../support/twoDeployments';
import * as fake from '../support/vscodeFake';

class Memento {
	readonly values = new Map<string, unknown>();
	get<T>(key: string, fallback?: T): T | undefined {
		return (this.values.has(key) ? this.values.get(key) : fallback) as T | undefined;
	}
	async update(key: string, value: unknown): Promise<void> {
		this.values.set(key, value === undefined ? undefined : JSON.parse(JSON.stringify(value)));
	}
}

/** A session as Activity reads it: signed in to `account` at the emulator, or signed out. */
class FakeSession implements ActivitySession {
	private readonly changed = new vscode.EventEmitter<void>();
	readonly onDidChange = this.changed.event;
	signedIn = true;
	account = 'account-1';
	constructor(
		readonly client: CloudAgentsClient,
		readonly apiUrl: string,
	) {}
	get cacheScope(): { apiUrl: string; account: string } | undefined {
		return this.signedIn ? { apiUrl: this.apiUrl, account: this.account } : undefined;
	}
	set(change: { signedIn?: boolean; account?: string }): void {
		Object.assign(this, change);
		this.changed.fire();
	}
}

const event = (over: Partial<ActivityEvent>): ActivityEvent => ({ key: 'k', kind: 'runEnded', at: 0, ...over });

suite('activity: what is announced (pure)', () => {
	test('attention: what failed or waits for a person; the setting reads all unless attention or none', () => {
		assert.equal(needsAttention(event({ outcome: 'succeeded' })), false);
		assert.equal(needsAttention(event({ outcome: 'failed' })), true);
		assert.equal(needsAttention(event({ outcome: 'cancelled' })), false);
		assert.equal(needsAttention(event({ kind: 'githubAuthorization' })), true);
		assert.equal(needsAttention(event({ kind: 'runtimeFailed' })), true);
		assert.equal(needsAttention(event({ kind: 'buildEnded', outcome: 'succeeded' })), false);
		assert.equal(worthAnnouncing(event({ outcome: 'succeeded' }), 'all'), true);
		assert.equal(worthAnnouncing(event({ outcome: 'succeeded' }), 'attention'), false);
		assert.equal(worthAnnouncing(event({ outcome: 'failed' }), 'attention'), true);
		assert.equal(worthAnnouncing(event({ outcome: 'failed' }), 'none'), false);
		assert.equal(announceLevel(), 'all');
		fake.settings['cloudAgents.activity.notifications'] = 'attention';
		assert.equal(announceLevel(), 'attention');
		fake.settings['cloudAgents.activity.notifications'] = 'loud';
		assert.equal(announceLevel(), 'all', 'an unknown value reads as the default');
	});
});

suite('activity: the watcher, history and announcements of the signed-in account (emulator)', () => {
	let emu: TestEmulator;
	let client: CloudAgentsClient;
	let claimsDir: string;
	const disposables: vscode.Disposable[] = [];

	suiteSetup(async () => {
		emu = await startTestEmulator({ profile: 'standard' });
		client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => DEV_TOKEN });
	});
	suiteTeardown(async () => {
		client.close();
		await emu.close();
	});
	setup(() => {
		claimsDir = mkdtempSync(join(tmpdir(), 'ca-claims-'));
	});
	teardown(async () => {
		for (const d of disposables.splice(0)) {
			d.dispose();
		}
		rmSync(claimsDir, { recursive: true, force: true });
		await emu.admin('POST', '/reset');
	});

	/** A window's Activity: its own session, the profile's globalState and claims; what it announced. */
	function windowOf(
		globalState: Memento,
		options: { followed?: (runId: string) => boolean; session?: FakeSession } = {},
	): { activity: Activity; announced: ActivityEvent[]; session: FakeSession } {
		const session = options.session ?? new FakeSession(client, emu.url);
		const announced: ActivityEvent[] = [];
		const activity = new Activity({
			session,
			globalState,
			claims: nodeClaimStore(claimsDir),
			log: { info: () => undefined, warn: () => undefined },
			isFollowed: (_agentId, runId) => options.followed?.(runId) ?? false,
			present: (events) => announced.push(...events),
			clock: new FakeClock(Date.now()),
		});
		disposables.push(activity);
		activity.start();
		return { activity, announced, session };
	}

	async function docsWriter(): Promise<string> {
		const agent = (await client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Docs writer');
		assert.ok(agent);
		return agent.id;
	}

	/** Starts a held run elsewhere (through the API, as another machine would), lets `windows` see it running, then ends it. */
	async function runThatEnds(windows: Activity[], fail = false): Promise<string> {
		const agentId = await docsWriter();
		const run = await client.createRun(agentId, { prompt: fail ? '[[hold]] [[fail]] broken' : '[[hold]] write the docs' });
		await Promise.all(windows.map((w) => w.checkNow()));
		await emu.admin('POST', `/runs/${run.id}/release`);
		await ended(agentId, run.id);
		return run.id;
	}

	/** Asks the emulator until the run has ended (its steps run on the emulator's own short timers), at most 15 s. */
	async function ended(agentId: string, runId: string): Promise<void> {
		const end = Date.now() + 15_000;
		while (Date.now() < end) {
			const status = (await client.getRun(agentId, runId)).status ?? '';
			if (!['running', 'in_progress', 'queued', 'pending', 'blocked'].includes(status)) {
				return;
			}
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		assert.fail(`run ${runId} never ended`);
	}

	test('a run started elsewhere that ends: one unread entry, one announcement across two windows, the badge count and read state shared', async () => {
		const profile = new Memento();
		const a = windowOf(profile);
		const b = windowOf(profile);
		await Promise.all([a.activity.checkNow(), b.activity.checkNow()]);
		const before = a.activity.unreadCount;
		let changes = 0;
		disposables.push(a.activity.onDidChange(() => changes++));
		const runId = await runThatEnds([a.activity, b.activity]);
		await Promise.all([a.activity.checkNow(), b.activity.checkNow()]);
		const entry = a.activity.entries().find((e) => e.event.runId === runId);
		assert.ok(entry, 'the run is an entry');
		assert.equal(entry.event.kind, 'runEnded');
		assert.equal(entry.event.outcome, 'succeeded');
		assert.equal(entry.event.agentName, 'Docs writer');
		assert.equal(entry.read, false);
		assert.equal(a.activity.unreadCount, before + 1);
		assert.ok(changes > 0, 'the view is told');
		const announcements = (): ActivityEvent[] => [...a.announced, ...b.announced].filter((e) => e.runId === runId);
		await Promise.all([a.activity.checkNow(), b.activity.checkNow()]);
		assert.equal(announcements().length, 1, 'one notification in all');
		// Read in one window: the other reads it back from the profile's storage.
		assert.equal(a.activity.markRead(entry.event.key), true);
		fake.fire.windowState.fire({ focused: true });
		assert.equal(b.activity.get(entry.event.key)?.read, true);
		a.activity.markAllRead();
		assert.equal(a.activity.unreadCount, 0);
		await a.activity.checkNow();
		assert.equal(
			a.announced.filter((e) => e.runId === runId).length + b.announced.filter((e) => e.runId === runId).length,
			1,
			'never twice',
		);
	});

	test('the setting: attention announces a failed run and not a succeeded one; none announces nothing; both are kept', async () => {
		const w = windowOf(new Memento());
		await w.activity.checkNow();
		fake.settings['cloudAgents.activity.notifications'] = 'attention';
		const runs = (): Array<[string | undefined, string | undefined]> =>
			w.announced.filter((e) => e.kind === 'runEnded').map((e) => [e.runId, e.outcome]);
		const ok = await runThatEnds([w.activity]);
		await w.activity.checkNow();
		const failed = await runThatEnds([w.activity], true);
		await w.activity.checkNow();
		assert.deepEqual(runs(), [[failed, 'failed']]);
		fake.settings['cloudAgents.activity.notifications'] = 'none';
		const before = w.announced.length;
		const quiet = await runThatEnds([w.activity], true);
		await w.activity.checkNow();
		assert.equal(w.announced.length, before, 'none: nothing more announced');
		assert.ok(
			[ok, failed, quiet].every((id) => w.activity.entries().some((e) => e.event.runId === id)),
			'every end is kept',
		);
	});

	/** Two windows of one profile, both looking; a held run started that the first one follows. */
	async function followedInFirstWindow(prompt: string) {
		const profile = new Memento();
		let followedRun = '';
		const mine = windowOf(profile, { followed: (runId) => runId === followedRun });
		const other = windowOf(profile);
		await Promise.all([mine.activity.checkNow(), other.activity.checkNow()]);
		const agentId = await docsWriter();
		const run = await client.createRun(agentId, { prompt });
		followedRun = run.id;
		return { mine, other, agentId, run };
	}

	test('a run this window follows is left to the run follower, whose claim keeps every other window quiet', async () => {
		const { mine, other, agentId, run } = await followedInFirstWindow('[[hold]] followed here');
		// The follower announces the end and claims it first.
		assert.equal(await mine.activity.claimRunEnd(run.id), true);
		await emu.admin('POST', `/runs/${run.id}/release`);
		await ended(agentId, run.id);
		await mine.activity.checkNow();
		await other.activity.checkNow();
		assert.equal([...mine.announced, ...other.announced].filter((e) => e.runId === run.id).length, 0);
		assert.equal(await other.activity.claimRunEnd(run.id), false, 'claimed once');
	});

	test("a run another window follows: its end is left to that window's follower even when this window's Activity sees it first", async () => {
		const { mine, other, agentId, run } = await followedInFirstWindow('[[hold]] followed in the first window');
		// Following starts in the first window (the follower notes it); the other window sees it running.
		await mine.activity.noteFollowing(run.id);
		await other.activity.checkNow();
		await emu.admin('POST', `/runs/${run.id}/release`);
		await ended(agentId, run.id);
		// The other window looks first (the follower's stream is late): it keeps the entry, announces nothing.
		await other.activity.checkNow();
		assert.ok(
			other.activity.entries().some((e) => e.event.runId === run.id),
			'the end is an entry in the other window',
		);
		assert.deepEqual(
			other.announced.filter((e) => e.runId === run.id),
			[],
		);
		assert.equal(await mine.activity.claimRunEnd(run.id), true, "the follower's window announces it");
		await mine.activity.checkNow();
		assert.equal([...mine.announced, ...other.announced].filter((e) => e.runId === run.id).length, 0);
	});

	test('signed out: no entries and nothing watched; another account has its own history; back to the first, its entries return', async () => {
		const profile = new Memento();
		const w = windowOf(profile);
		await w.activity.checkNow();
		const runId = await runThatEnds([w.activity]);
		await w.activity.checkNow();
		assert.ok(w.activity.entries().some((e) => e.event.runId === runId));
		w.session.set({ signedIn: false });
		assert.deepEqual(w.activity.entries(), []);
		assert.equal(w.activity.unreadCount, 0);
		assert.equal(w.activity.state, undefined, 'nothing watched');
		w.session.set({ signedIn: true, account: 'account-2' });
		assert.ok(!w.activity.entries().some((e) => e.event.runId === runId), "another account's history");
		w.session.set({ account: 'account-1' });
		assert.ok(w.activity.entries().some((e) => e.event.runId === runId));
	});

	test('nothing is watched before start() (activation leaves it to the warm-up), nor while suspended', async () => {
		const session = new FakeSession(client, emu.url);
		const activity = new Activity({
			session,
			globalState: new Memento(),
			claims: nodeClaimStore(claimsDir),
			log: { info: () => undefined, warn: () => undefined },
			isFollowed: () => false,
			present: () => undefined,
		});
		disposables.push(activity);
		session.set({ account: 'x' });
		assert.equal(activity.state, undefined);
		activity.start();
		assert.notEqual(activity.state, undefined);
		// Suspended (a suite that counts a server's requests): nothing watched until resumed.
		const resume = activity.suspend();
		assert.equal(activity.state, undefined);
		resume.dispose();
		assert.notEqual(activity.state, undefined);
	});
});

suite('activity: several deployments, a watcher each (issue 47, two emulators)', () => {
	type Service = EmulatedDeployment & { session: FakeSession };
	let home: Service;
	let staging: Service;
	let claimsDir: string;
	const disposables: vscode.Disposable[] = [];

	const service = (s: EmulatedDeployment): Service => ({ ...s, session: new FakeSession(s.client, s.emu.url) });
	twoEmulatorsPerSuite((h, s) => ([home, staging] = [service(h), service(s)]), { profile: 'standard', client: {} });
	setup(() => {
		claimsDir = mkdtempSync(join(tmpdir(), 'ca-claims-'));
		home.session = new FakeSession(home.client, home.emu.url);
		staging.session = new FakeSession(staging.client, staging.emu.url);
	});
	teardown(async () => {
		for (const d of disposables.splice(0)) {
			d.dispose();
		}
		rmSync(claimsDir, { recursive: true, force: true });
		await Promise.all([home.emu.admin('POST', '/reset'), staging.emu.admin('POST', '/reset')]);
	});

	/** A window's Activity over `configured` (the default deployment's session its own); what it announced. */
	function windowOf(
		profile: Memento,
		configured: Service[],
	): { activity: Activity; announced: ActivityEvent[]; changed: vscode.EventEmitter<void> } {
		const announced: ActivityEvent[] = [];
		const activity = new Activity({
			session: home.session,
			globalState: profile,
			claims: nodeClaimStore(claimsDir),
			log: { info: () => undefined, warn: () => undefined },
			isFollowed: () => false,
			present: (events) => announced.push(...events),
			clock: new FakeClock(Date.now()),
		});
		const changed = new vscode.EventEmitter<void>();
		disposables.push(activity, changed);
		activity.start();
		disposables.push(activity.watchDeployments({ all: configured, onDidChange: changed.event }));
		return { activity, announced, changed };
	}

	/** Starts a held run of the Docs writer on `s`, lets `activity` see it running, ends it; its id. */
	async function runThatEnds(s: Service, activity: Activity): Promise<string> {
		const agentId = (await s.client.listAgents({ limit: 100 })).items.find((a) => a.name === 'Docs writer')!.id;
		const run = await s.client.createRun(agentId, { prompt: '[[hold]] write the docs' });
		await activity.checkNow();
		await s.emu.admin('POST', `/runs/${run.id}/release`);
		const end = Date.now() + 15_000;
		while (['running', 'in_progress', 'queued', 'pending', 'blocked'].includes((await s.client.getRun(agentId, run.id)).status ?? '')) {
			assert.ok(Date.now() < end, `run ${run.id} never ended`);
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		await activity.checkNow();
		return run.id;
	}

	test('a run ending on each deployment: one entry each, naming its deployment, announced so; keys and histories apart', async () => {
		const profile = new Memento();
		const w = windowOf(profile, [home, staging]);
		await w.activity.checkNow();
		const onHome = await runThatEnds(home, w.activity);
		const onStaging = await runThatEnds(staging, w.activity);
		const ends = w.activity.entries().filter((e) => e.event.kind === 'runEnded');
		assert.deepEqual(
			ends.map((e) => [e.event.runId, e.event.deployment]).sort(),
			[
				[onHome, '127.0.0.1'],
				[onStaging, 'Staging'],
			].sort(),
		);
		const theirs = ends.find((e) => e.event.runId === onStaging)!;
		assert.equal(theirs.event.key, `${staging.deployment.id}/${runEndedKey(onStaging)}`);
		assert.equal(theirs.event.deploymentId, staging.deployment.id);
		assert.match(describeEvent(theirs.event), /: run succeeded · Staging$/);
		assert.deepEqual(
			w.announced
				.filter((e) => e.kind === 'runEnded')
				.map((e) => [e.runId, e.deployment])
				.sort(),
			[
				[onHome, '127.0.0.1'],
				[onStaging, 'Staging'],
			].sort(),
		);
		// Each deployment's history under its own key; read state by the key the list gives.
		assert.equal([...profile.values.keys()].filter((k) => k.startsWith(HISTORY_KEY_PREFIX)).length, 2);
		const unread = w.activity.unreadCount;
		assert.equal(w.activity.markRead(theirs.event.key), true);
		assert.equal(w.activity.get(theirs.event.key)?.read, true);
		assert.equal(w.activity.unreadCount, unread - 1);
		assert.equal(
			w.activity.entries().find((e) => e.event.runId === onHome)?.read,
			false,
			"the default deployment's entry stays unread",
		);
		// Signed out of Staging: its watcher stops and its entries leave the list; the default's stay.
		staging.session.set({ signedIn: false });
		w.changed.fire();
		assert.ok(!w.activity.entries().some((e) => e.event.runId === onStaging));
		assert.ok(w.activity.entries().some((e) => e.event.runId === onHome));
	});

	test("one deployment: entries as before (no name, keys unprefixed); the default deployment's old history is read as it was", async () => {
		const profile = new Memento();
		const old = { key: runEndedKey('run-old'), kind: 'runEnded', at: Date.now() - 60_000, runId: 'run-old', outcome: 'succeeded' };
		profile.values.set(historyKey({ apiUrl: home.emu.url, account: 'account-1' }), { v: 1, entries: [{ event: old, read: false }] });
		const w = windowOf(profile, [home]);
		await w.activity.checkNow();
		const onHome = await runThatEnds(home, w.activity);
		const entries = w.activity.entries();
		assert.ok(
			entries.some((e) => e.event.key === runEndedKey('run-old')),
			'the history kept before deployments',
		);
		const mine = entries.find((e) => e.event.runId === onHome)!;
		assert.equal(mine.event.key, runEndedKey(onHome));
		assert.ok(entries.every((e) => e.event.deployment === undefined && e.event.deploymentId === undefined));
		assert.ok(w.announced.every((e) => e.deployment === undefined));
		assert.doesNotMatch(describeEvent(mine.event), /·/);
	});
});
