import * as assert from 'node:assert/strict';
import { CloudAgentsClient } from '../../../src/api';
import { type WelcomeProbeDeps, hostOf, registerWelcomeProbe, setReachability } from '../../../src/flows/welcomeProbe';
import { nodeConnect } from '../../../src/platform/node/network';
import { type TestEmulator, clientOfDeadPort, startTestEmulator } from '../support/emulator';
import * as fake from '../support/vscodeFake';

/** src/flows/welcomeProbe.ts: HEAD /healthz at the emulator (or a dead port) while the signed-out welcome shows. */
suite('flows/welcomeProbe', () => {
	let emu: TestEmulator;
	suiteSetup(async () => {
		emu = await startTestEmulator();
	});
	suiteTeardown(async () => {
		await emu?.close();
	});

	const reachability = (): unknown[] =>
		fake
			.calls('commands.executeCommand')
			.filter((c) => c[0] === 'setContext' && c[1] === 'cloudAgents.serverReachable')
			.map((c) => c[2]);
	const heads = async (): Promise<number> =>
		Object.entries((await emu.counters()).requests.by_route)
			.filter(([route]) => /^HEAD \/healthz/.test(route))
			.reduce((n, [, c]) => n + c, 0);

	function setup(client: CloudAgentsClient, apiUrl: string, state: { signedIn: boolean; visible: boolean }) {
		const visibility = new fake.EventEmitter<void>();
		const sessionChanged = new fake.EventEmitter<void>();
		const logged: string[] = [];
		const view = {
			get visible() {
				return state.visible;
			},
			onDidChangeVisibility: visibility.event,
		};
		const deps = {
			session: {
				get signedIn() {
					return state.signedIn;
				},
				client,
				apiUrl,
				onDidChange: sessionChanged.event,
			},
			log: { info: (m: string) => logged.push(m) },
			agentsView: () => view,
		} as unknown as WelcomeProbeDeps;
		const disposables = registerWelcomeProbe(deps);
		return { visibility, sessionChanged, logged, disposables };
	}

	test('hostOf: the host and port only (no path, no credentials); what is not a URL as it is', () => {
		assert.equal(hostOf('https://user:secret@api.example.test:8443/v2?x=1'), 'api.example.test:8443');
		assert.equal(hostOf('not a url'), 'not a url');
	});

	test('setReachability sets the context key the welcome reads', async () => {
		await setReachability(true);
		await setReachability(false);
		assert.deepEqual(reachability(), ['reachable', 'unreachable']);
	});

	test('the welcome shows while signed out: one probe at a time, and the key says reachable', async () => {
		const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => undefined });
		try {
			const state = { signedIn: false, visible: true };
			const p = setup(client, emu.url, state);
			const before = await heads();
			p.visibility.fire();
			p.visibility.fire();
			p.visibility.fire();
			await waitFor(() => reachability().length === 1);
			assert.deepEqual(reachability(), ['reachable']);
			assert.equal((await heads()) - before, 1);
			p.disposables.forEach((d) => void d.dispose());
		} finally {
			client.close();
		}
	});

	test('nothing is probed while signed in or while the view is hidden', async () => {
		const client = new CloudAgentsClient({ connect: nodeConnect, baseUrl: emu.url, getToken: () => undefined });
		try {
			const state = { signedIn: true, visible: true };
			const p = setup(client, emu.url, state);
			const before = await heads();
			p.visibility.fire();
			state.signedIn = false;
			state.visible = false;
			p.visibility.fire();
			assert.equal((await heads()) - before, 0);
			assert.deepEqual(reachability(), []);
			p.disposables.forEach((d) => void d.dispose());
		} finally {
			client.close();
		}
	});

	test('a server out of reach: the key says unreachable and the log names the host, not the URL', async () => {
		const dead = await clientOfDeadPort();
		try {
			const url = `http://user:pw@127.0.0.1:${dead.port}/base`;
			const p = setup(dead.client, url, { signedIn: false, visible: true });
			p.sessionChanged.fire();
			await waitFor(() => reachability().length === 2);
			assert.deepEqual(reachability(), [undefined, 'unreachable'], 'a session change clears the key first');
			assert.equal(p.logged.length, 1);
			assert.ok(p.logged[0]!.startsWith(`The service at 127.0.0.1:${dead.port} is not reachable: `), p.logged[0]);
			assert.ok(!p.logged[0]!.includes('pw@'));
			p.disposables.forEach((d) => void d.dispose());
		} finally {
			dead.client.close();
		}
	});
});

/** Waits (turns of the event loop, never a clock) until `done`; mocha's time-out ends a wait that never comes true. */
async function waitFor(done: () => boolean): Promise<void> {
	while (!done()) {
		await new Promise<void>((r) => setImmediate(r));
	}
}
