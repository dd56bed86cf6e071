import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ComputerSession } from '../../../../src/api/types';
import { ApiError } from '../../../../src/api';
import { ComputerPanel, computerTitle, type ComputerPanelHost } from '../../../../src/webviews/computer/computerPanel';
import { COMPUTER_STRING_KEYS, PASTE_MAX_CHARS } from '../../../../src/webviews/computer/protocol';
import { FakeWebviewPanel, fakeLog, fakePanels, until } from '../fakePanel';

/** A session as the service gives one, its socket at `url`. */
function session(url = 'wss://vnc.example:8443/s/1', protocols: unknown = ['binary', 'session.abc']): ComputerSession {
	return {
		agent_id: 'agt',
		runtime_id: 'rt',
		expires_at: '2030-01-01T00:05:00Z',
		channels: { vnc: { websocket_url: url, protocols } },
	} as unknown as ComputerSession;
}

/** The connect-src of a rendered page's CSP. */
function connectSrc(html: string): string {
	return /connect-src ([^;"]*)/.exec(html.replace(/&#39;/g, "'"))?.[1] ?? '';
}

/** src/webviews/computer/computerPanel.ts: the computer panel on the fake's webview (pages not run: their messages sent by the test). */
suite('webviews/computer/computerPanel', () => {
	let panels: FakeWebviewPanel[];
	let host: ComputerPanelHost & { minted: number; next: () => Promise<ComputerSession>; clipboard: string };
	let log: ReturnType<typeof fakeLog>;

	setup(() => {
		panels = fakePanels();
		log = fakeLog();
		host = {
			extensionUri: vscode.Uri.file('/ext'),
			log,
			minted: 0,
			clipboard: '',
			next: async () => session('wss://second.example/s/2'),
			mint(): Promise<ComputerSession> {
				this.minted++;
				return this.next();
			},
			readClipboard(): Thenable<string> {
				return Promise.resolve(this.clipboard);
			},
		};
	});

	const agent = { id: 'agt_1', name: 'Billing\nagent', runtimeId: 'rt_1' };

	test('create: a panel titled by the agent on one line, kept alive in the background, its page allowed only the session origin', () => {
		const panel = ComputerPanel.create(host, agent, session());
		assert.equal(panels.length, 1);
		const raw = panels[0]!;
		assert.equal(raw.viewType, 'cloudAgents.computer');
		assert.equal(raw.title, computerTitle('Billing\nagent'));
		assert.ok(!raw.title.includes('\n'));
		assert.equal((raw.createOptions as { retainContextWhenHidden: boolean }).retainContextWhenHidden, true);
		assert.equal(connectSrc(raw.webview.html).trim(), 'wss://vnc.example:8443');
		assert.ok(raw.webview.html.includes('dist/webviews/computer.js'));
		assert.equal(panel.agent, agent);
	});

	test('create with a session the page may not use: refused before any panel exists', () => {
		assert.throws(() => ComputerPanel.create(host, agent, session('ws://remote.example/s')), /ws|origin|loopback|wss/i);
		assert.throws(() => ComputerPanel.create(host, agent, session(undefined, [])), /subprotocols/);
		assert.throws(() => ComputerPanel.create(host, agent, { channels: {} } as unknown as ComputerSession), /no VNC channel/);
		assert.equal(panels.length, 0);
	});

	test('ready: the agent and every string of the page, then the session (never the service token beyond it)', async () => {
		ComputerPanel.create(host, agent, session());
		const raw = panels[0]!;
		raw.send({ type: 'ready' });
		await until(() => raw.posted.length === 2);
		const [first, second] = raw.posted as [
			{ type: string; agentName: string; strings: Record<string, string> },
			{ type: string; session: unknown },
		];
		assert.equal(first.type, 'agent');
		assert.equal(first.agentName, 'Billing agent');
		assert.deepEqual(Object.keys(first.strings).sort(), [...COMPUTER_STRING_KEYS].sort());
		assert.deepEqual(second, {
			type: 'session',
			session: {
				url: 'wss://vnc.example:8443/s/1',
				protocols: ['binary', 'session.abc'],
				expiresAtMs: Date.parse('2030-01-01T00:05:00Z'),
			},
		});
	});

	test('a restored panel: no session, no socket origin, the page told why', async () => {
		const restored = new FakeWebviewPanel('cloudAgents.computer', 'old title');
		ComputerPanel.restore(restored as unknown as vscode.WebviewPanel, host, { id: 'agt_2', name: 'Docs' });
		assert.equal(restored.title, 'Computer — Docs');
		assert.equal(connectSrc(restored.webview.html).trim(), "'none'");
		restored.send({ type: 'ready' });
		await until(() => restored.posted.length === 2);
		assert.deepEqual(restored.posted[1], {
			type: 'ended',
			reason: 'restored',
			message: 'The session ended when the window was reloaded. Reconnect opens a new one.',
		});
	});

	test('paste: the local clipboard sent, cut to the limit', async () => {
		ComputerPanel.create(host, agent, session());
		const raw = panels[0]!;
		host.clipboard = 'x'.repeat(PASTE_MAX_CHARS + 10);
		raw.send({ type: 'requestPaste' });
		await until(() => raw.posted.length === 1);
		assert.equal((raw.posted[0] as { text: string }).text.length, PASTE_MAX_CHARS);
	});

	test('reconnect: a new session minted and the page drawn again for its origin', async () => {
		ComputerPanel.create(host, agent, session());
		const raw = panels[0]!;
		raw.send({ type: 'reconnect' });
		await until(() => raw.htmls.length === 2);
		assert.equal(host.minted, 1);
		assert.deepEqual(raw.types(), ['minting']);
		assert.equal(connectSrc(raw.htmls[1]!).trim(), 'wss://second.example');
		raw.send({ type: 'ready' });
		await until(() => raw.posted.length === 3);
		assert.equal((raw.posted[2] as { session: { url: string } }).session.url, 'wss://second.example/s/2');
	});

	test('reconnect pressed twice while minting: one session', async () => {
		let release!: (s: ComputerSession) => void;
		host.next = () => new Promise((resolve) => (release = resolve));
		const panel = ComputerPanel.create(host, agent, session());
		const first = panel.reconnect();
		await until(() => host.minted === 1);
		const second = panel.reconnect();
		await second;
		release(session('wss://third.example/x'));
		await first;
		assert.equal(host.minted, 1);
		assert.equal(panels[0]!.htmls.length, 2);
	});

	test('reconnect failing: the page says why with the request id; the page stays as it was', async () => {
		host.next = () => Promise.reject(new ApiError(409, 'failed_precondition', 'runtime cobalt is paused', 'req_0123456789'));
		ComputerPanel.create(host, agent, session());
		const raw = panels[0]!;
		raw.send({ type: 'reconnect' });
		await until(() => raw.posted.length === 2);
		assert.deepEqual(raw.posted[1], {
			type: 'ended',
			reason: 'failed',
			message: 'Could not open a session: runtime cobalt is paused (request req_0123456789)',
		});
		assert.equal(raw.htmls.length, 1);
		assert.match(log.lines.at(-1)!, /^\[error\] computer agt_1: opening a session failed:/);
	});

	test('reconnect to a session the page may not use: refused in the page, not drawn', async () => {
		host.next = async () => session('ws://remote.example/s');
		ComputerPanel.create(host, agent, session());
		const raw = panels[0]!;
		raw.send({ type: 'reconnect' });
		await until(() => raw.posted.length === 2);
		const ended = raw.posted[1] as { type: string; reason: string; message: string };
		assert.equal(ended.reason, 'refused');
		assert.match(ended.message, /^The session was refused: /);
		assert.equal(raw.htmls.length, 1);
	});

	test('closed while minting: nothing drawn after', async () => {
		let release!: (s: ComputerSession) => void;
		host.next = () => new Promise((resolve) => (release = resolve));
		const panel = ComputerPanel.create(host, agent, session());
		const going = panel.reconnect();
		await until(() => host.minted === 1);
		panels[0]!.dispose();
		release(session());
		await going;
		assert.equal(panels[0]!.htmls.length, 1);
		await panel.reconnect();
		assert.equal(host.minted, 1, 'a closed panel mints nothing');
	});

	test('what the page reports is logged; a security failure reason on one line', async () => {
		ComputerPanel.create(host, agent, session());
		const raw = panels[0]!;
		raw.send({ type: 'connected', width: 1280, height: 800 });
		raw.send({ type: 'disconnected', clean: false, expired: true });
		raw.send({ type: 'securityFailure', status: 1, reason: 'bad\nthing' });
		raw.send({ type: 'connected', width: 'wide' });
		await until(() => log.lines.length === 4);
		assert.deepEqual([...log.lines].sort(), [
			'[info] computer agt_1: connected, desktop 1280×800',
			'[info] computer agt_1: disconnected (session expired)',
			'[warn] computer agt_1: security failure 1: bad ⏎ thing',
			'[warn] webview cloudAgents.computer: dropped a message from the page: "connected": field "width" is not a finite number',
		]);
	});
});
