import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Agent } from '../../../src/api';
import { computerPanelFeature, openComputer, type ComputerDeps } from '../../../src/resources/computer';
import { FakeWebviewPanel, fakeLog, fakePanels } from '../webviews/fakePanel';
import * as fake from '../support/vscodeFake';
import { emulatorPerSuite } from './kit';

/** src/resources/computer.ts: Open Computer against the emulator, one panel per agent, closed on sign-out, restored after a reload. */
suite('resources/computer', () => {
	const env = emulatorPerSuite();
	let agents: Agent[];
	let deps: ComputerDeps & { session: { signedIn: boolean; onDidChange: vscode.Event<void> } };
	let changed: fake.EventEmitter<void>;
	let panels: FakeWebviewPanel[];
	let owned: vscode.Disposable[];

	setup(async () => {
		agents = (await env.client.listAgents({ limit: 100 })).items;
		panels = fakePanels();
		changed = new fake.EventEmitter<void>();
		// A context of its own per test: the panels are kept per context.
		const context = { extensionUri: vscode.Uri.file('/ext'), subscriptions: [] } as unknown as vscode.ExtensionContext;
		deps = {
			context,
			log: fakeLog(),
			client: () => env.client,
			session: { signedIn: true, onDidChange: changed.event as vscode.Event<void> },
		};
		owned = computerPanelFeature(deps).disposables;
	});
	teardown(() => {
		for (const d of owned) {
			d.dispose();
		}
	});

	const agent = (name: string): Agent => agents.find((a) => a.name === name)!;
	const sessions = async (): Promise<number> => (await env.emu.counters()).mutations.by_kind['computer_sessions.create'] ?? 0;

	test('opens a panel on a minted session, with progress; a second open reveals it, minting nothing', async () => {
		const billing = agent('Refactor billing module');
		assert.equal(await openComputer(billing, deps), undefined);
		assert.equal(panels.length, 1);
		assert.equal(panels[0]!.title, 'Computer — Refactor billing module');
		assert.equal(
			(fake.calls('window.withProgress')[0]![0] as { title: string }).title,
			'Opening the computer of Refactor billing module',
		);
		assert.match(panels[0]!.webview.html, /connect-src ws:\/\/127\.0\.0\.1:\d+/);
		await openComputer(billing, deps);
		assert.equal(panels.length, 1);
		assert.equal(panels[0]!.reveals, 1);
		assert.equal(await sessions(), 1);
		// Another agent: a panel of its own.
		await openComputer(agent('CI triage'), deps);
		assert.equal(panels.length, 2);
	});

	test('a runtime that is not running (409): what helps, by its status, with the request id; no panel', async () => {
		await openComputer(agent('Sandbox explorer'), deps);
		assert.equal(panels.length, 0);
		const [message] = fake.calls('window.showWarningMessage')[0]! as [string];
		assert.match(
			message,
			/^The computer of Sandbox explorer cannot open now: its runtime cobalt-sandbox is paused\. Resume it \(Resume Runtime in the Runtimes view\), then try again\. \(request [^)]+\)$/,
		);
	});

	test('other failures are thrown to the command', async () => {
		const billing = agent('Refactor billing module');
		await assert.rejects(
			openComputer({ ...billing, id: `${billing.id.split('.')[0]!}.ghost` }, deps),
			(err: Error & { status?: number }) => err.status === 404,
		);
		assert.equal(panels.length, 0);
	});

	test('signing out closes every computer panel', async () => {
		await openComputer(agent('Refactor billing module'), deps);
		await openComputer(agent('CI triage'), deps);
		changed.fire();
		assert.deepEqual(
			panels.map((p) => p.disposed),
			[false, false],
			'a change that is not a sign-out keeps them',
		);
		deps.session.signedIn = false;
		changed.fire();
		assert.deepEqual(
			panels.map((p) => p.disposed),
			[true, true],
		);
	});

	test('restoring after a reload: a saved state gets its panel back (no session); an unreadable one is closed', async () => {
		const feature = computerPanelFeature(deps);
		const good = new FakeWebviewPanel('cloudAgents.computer', 'x');
		await feature.restorePanel(good as unknown as vscode.WebviewPanel, {
			agentId: 'agt_9',
			agentName: 'Docs writer',
			scale: 'fit',
			viewOnly: false,
		});
		assert.equal(good.title, 'Computer — Docs writer');
		assert.equal(good.disposed, false);
		const bad = new FakeWebviewPanel('cloudAgents.computer', 'x');
		await feature.restorePanel(bad as unknown as vscode.WebviewPanel, { agentName: 'no id' });
		assert.equal(bad.disposed, true);
		assert.equal(await sessions(), 0);
		// The restored panel is the agent's: opening the agent reveals it.
		await openComputer({ ...agent('Docs writer'), id: 'agt_9' }, deps);
		assert.equal(good.reveals, 1);
		assert.equal(panels.length, 0);
	});

	test("several deployments (issue 47): another deployment's agent gets a panel of its own, minted through its client, titled with its name; sign-outs close their own", async () => {
		const billing = agent('Refactor billing module');
		const minted: string[] = [];
		/** The emulator's client as another deployment's: each mint recorded. */
		const stagingClient = new Proxy(env.client, {
			get: (target, key, receiver) =>
				key === 'createComputerSession'
					? (...args: Parameters<typeof env.client.createComputerSession>) => {
							minted.push(args[0]);
							return target.createComputerSession(...args);
						}
					: (Reflect.get(target, key, receiver) as unknown),
		});
		const stagingChanged = new fake.EventEmitter<void>();
		const staging = {
			...deps,
			client: () => stagingClient,
			session: { signedIn: true, onDidChange: stagingChanged.event as vscode.Event<void> },
			deployment: { id: 'staging-0123456789ab', shownName: 'Staging' },
		};
		await openComputer(billing, { ...deps, deployment: { id: undefined, shownName: 'api.example.test' } });
		await openComputer(billing, staging);
		assert.deepEqual(
			panels.map((p) => p.title),
			['Computer — Refactor billing module (api.example.test)', 'Computer — Refactor billing module (Staging)'],
		);
		assert.deepEqual(minted, [billing.id], "Staging's panel was minted through its own client, the default one's not");
		await openComputer(billing, staging);
		assert.equal(panels[1]!.reveals, 1, 'opening it again reveals its own panel');
		staging.session.signedIn = false;
		stagingChanged.fire();
		assert.deepEqual(
			panels.map((p) => p.disposed),
			[false, true],
			'signing out of Staging closes its panel only',
		);
		await openComputer(billing, { ...staging, session: { signedIn: true, onDidChange: stagingChanged.event as vscode.Event<void> } });
		deps.session.signedIn = false;
		changed.fire();
		assert.deepEqual(
			panels.map((p) => p.disposed),
			[true, true, false],
			"signing out of the default deployment leaves Staging's",
		);
	});

	test("restoring another deployment's panel after a reload: on that deployment, titled with its name; one no longer configured is closed", async () => {
		const asked: string[] = [];
		// The panels are kept per context: the setup's go, these are made with the deployments.
		for (const d of owned) {
			d.dispose();
		}
		const feature = computerPanelFeature({
			...deps,
			// With several configured the default deployment's panels are named after it too.
			deployment: { id: undefined, shownName: 'api.example.test' },
			deploymentOf: (id) => {
				asked.push(id);
				return id === 'staging-0123456789ab'
					? { client: () => env.client, session: deps.session, deployment: { id, shownName: 'Staging' } }
					: undefined;
			},
		});
		owned = feature.disposables;
		const state = { agentId: 'agt_9', agentName: 'Docs writer', scale: 'fit', viewOnly: false };
		const theirs = new FakeWebviewPanel('cloudAgents.computer', 'x');
		await feature.restorePanel(theirs as unknown as vscode.WebviewPanel, { ...state, deployment: 'staging-0123456789ab' });
		assert.equal(theirs.title, 'Computer — Docs writer (Staging)');
		assert.equal(theirs.disposed, false);
		const gone = new FakeWebviewPanel('cloudAgents.computer', 'x');
		await feature.restorePanel(gone as unknown as vscode.WebviewPanel, { ...state, deployment: 'removed-0123456789ab' });
		assert.equal(gone.disposed, true);
		assert.deepEqual(asked, ['staging-0123456789ab', 'removed-0123456789ab']);
		// The default deployment's agent of the same id is another panel.
		const mine = new FakeWebviewPanel('cloudAgents.computer', 'x');
		await feature.restorePanel(mine as unknown as vscode.WebviewPanel, state);
		assert.equal(mine.title, 'Computer — Docs writer (api.example.test)');
		assert.equal(theirs.disposed, false);
	});

	test('disposing the feature closes the panels; the next open starts afresh', async () => {
		await openComputer(agent('Refactor billing module'), deps);
		for (const d of owned) {
			d.dispose();
		}
		assert.equal(panels[0]!.disposed, true);
		owned = computerPanelFeature(deps).disposables;
		await openComputer(agent('Refactor billing module'), deps);
		assert.equal(panels.length, 2);
	});
});
