import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { MessageValidator } from '../../../src/webviews/messages';
import { PanelManager, type PageContent, WebviewPanelBase, webviewPanelOptions, webviewRoots } from '../../../src/webviews/panel';
import { FakeWebviewPanel, fakeLog, until } from './fakePanel';

type In = { type: 'hello'; name: string } | { type: 'boom' };
type Out = { type: 'echo'; text: string };

/** Accepts `{type: 'hello', name: string}` and `{type: 'boom'}`; anything else with a reason naming the type. */
const validate: MessageValidator<In> = (raw) => {
	const m = raw as { type?: unknown; name?: unknown };
	if (m?.type === 'hello' && typeof m.name === 'string') {
		return { ok: true, message: { type: 'hello', name: m.name } };
	}
	if (m?.type === 'boom') {
		return { ok: true, message: { type: 'boom' } };
	}
	return { ok: false, reason: `unknown message type ${JSON.stringify(m?.type)}` };
};

/** A panel of the base class: echoes "hello", throws on "boom". */
class TestPanel extends WebviewPanelBase<In, Out> {
	readonly handled: In[] = [];
	get closed(): boolean {
		return this.isDisposed;
	}
	static make(panel: FakeWebviewPanel, log = fakeLog()): TestPanel {
		return new TestPanel(panel as unknown as vscode.WebviewPanel, { extensionUri: vscode.Uri.file('/ext'), log }, validate);
	}
	draw(content: PageContent): void {
		this.render(content);
	}
	send(message: Out): Thenable<boolean> {
		return this.post(message);
	}
	protected async onMessage(message: In): Promise<void> {
		this.handled.push(message);
		if (message.type === 'boom') {
			throw new Error('handler failed');
		}
		await this.post({ type: 'echo', text: message.name });
	}
}

/** src/webviews/panel.ts: the panel base (render, validated messages, disposal) and the manager of one panel per key. */
suite('webviews/panel', () => {
	test('roots and options: scripts on, no command links or forms, resources only from dist/webviews and media', () => {
		const ext = vscode.Uri.file('/ext');
		assert.deepEqual(
			webviewRoots(ext).map((u) => u.path),
			['/ext/dist/webviews', '/ext/media'],
		);
		const options = webviewPanelOptions(ext, true);
		assert.equal(options.enableScripts, true);
		assert.equal(options.enableCommandUris, false);
		assert.equal(options.enableForms, false);
		assert.equal(options.retainContextWhenHidden, true);
		assert.equal(webviewPanelOptions(ext).retainContextWhenHidden, false);
	});

	test('a panel adopted by the base gets safe options, whatever it was made with', () => {
		const raw = new FakeWebviewPanel('t', 'T');
		raw.webview.options = { enableScripts: true, enableCommandUris: true };
		TestPanel.make(raw);
		assert.deepEqual(raw.webview.options, {
			enableScripts: true,
			enableCommandUris: false,
			enableForms: false,
			localResourceRoots: webviewRoots(vscode.Uri.file('/ext')),
		});
	});

	test('render: the page script and styles as webview URIs (base.css first), the CSP from the webview, a fresh nonce each time', () => {
		const raw = new FakeWebviewPanel('t', 'T');
		const panel = TestPanel.make(raw);
		const content = {
			title: 'A <title>',
			script: 'savings',
			styles: ['savings.css'],
			bundledCss: true,
			connectSrc: ['wss://vnc.example'],
		};
		panel.draw(content);
		panel.draw(content);
		const [first, second] = raw.htmls;
		assert.ok(first!.includes('src="https://webview.test/ext/dist/webviews/savings.js"'), first);
		const styles = [...first!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
		assert.deepEqual(styles, [
			'https://webview.test/ext/media/webviews/base.css',
			'https://webview.test/ext/media/webviews/savings.css',
			'https://webview.test/ext/dist/webviews/savings.css',
		]);
		assert.match(first!, /Content-Security-Policy/);
		assert.ok(first!.includes('https://webview.test'), 'the webview CSP source');
		assert.ok(first!.includes('wss://vnc.example'));
		assert.ok(first!.includes('<title>A &#60;title&#62;</title>'), 'the title escaped');
		const nonce = (html: string) => /nonce="([^"]+)"/.exec(html)?.[1];
		assert.ok(nonce(first!));
		assert.notEqual(nonce(first!), nonce(second!));
	});

	test("valid page messages reach the panel; others are dropped and logged by the validator's reason", async () => {
		const raw = new FakeWebviewPanel('cloudAgents.test', 'T');
		const log = fakeLog();
		const panel = TestPanel.make(raw, log);
		raw.send({ type: 'hello', name: 'Ada' });
		raw.send({ type: 'steal', secret: 'hunter2' });
		await until(() => raw.posted.length === 1);
		assert.deepEqual(panel.handled, [{ type: 'hello', name: 'Ada' }]);
		assert.deepEqual(raw.posted, [{ type: 'echo', text: 'Ada' }]);
		assert.deepEqual(log.lines, ['[warn] webview cloudAgents.test: dropped a message from the page: unknown message type "steal"']);
		assert.ok(!log.lines.join('').includes('hunter2'), 'never the content');
	});

	test("a handler's failure is logged, not thrown into the webview", async () => {
		const raw = new FakeWebviewPanel('cloudAgents.test', 'T');
		const log = fakeLog();
		TestPanel.make(raw, log);
		raw.send({ type: 'boom' });
		await until(() => log.lines.length === 1);
		assert.equal(log.lines[0], '[error] webview cloudAgents.test: handling "boom" failed: handler failed');
	});

	test('closing: the user closing the panel disposes the object (once); dispose() closes the panel; nothing is posted after', async () => {
		const raw = new FakeWebviewPanel('t', 'T');
		const panel = TestPanel.make(raw);
		let fired = 0;
		panel.onDidDispose(() => fired++);
		assert.equal(await panel.send({ type: 'echo', text: 'x' }), true);
		raw.dispose();
		assert.equal(panel.closed, true);
		assert.equal(fired, 1);
		panel.dispose();
		assert.equal(fired, 1);
		assert.equal(await panel.send({ type: 'echo', text: 'y' }), false);
		assert.equal(raw.posted.length, 1);
		const other = new FakeWebviewPanel('t', 'T');
		TestPanel.make(other).dispose();
		assert.equal(other.disposed, true);
		// Messages after closing reach nothing.
		other.send({ type: 'hello', name: 'late' });
		assert.deepEqual(other.posted, []);
	});

	test('reveal brings the panel to the front', () => {
		const raw = new FakeWebviewPanel('t', 'T');
		TestPanel.make(raw).reveal();
		assert.equal(raw.reveals, 1);
	});

	test('the manager: one panel per key, an open one revealed instead of made again', () => {
		const manager = new PanelManager<TestPanel>();
		let made = 0;
		const create = () => (made++, TestPanel.make(new FakeWebviewPanel('t', 'T')));
		const a = manager.show('a', create);
		assert.equal(manager.show('a', create), a);
		assert.equal(made, 1);
		assert.equal((a.panel as unknown as FakeWebviewPanel).reveals, 1);
		const b = manager.show('b', create);
		assert.deepEqual(manager.all(), [a, b]);
		// Closed by the user: forgotten, so the next show makes one.
		(a.panel as unknown as FakeWebviewPanel).dispose();
		assert.equal(manager.get('a'), undefined);
		manager.show('a', create);
		assert.equal(made, 3);
		manager.dispose();
		assert.equal(b.closed, true);
		assert.deepEqual(manager.all(), []);
	});

	test('the manager: a panel added for a key closes the older one; the older closing later does not drop the newer', () => {
		const manager = new PanelManager<TestPanel>();
		const older = manager.add('k', TestPanel.make(new FakeWebviewPanel('t', 'T')));
		const newer = manager.add('k', TestPanel.make(new FakeWebviewPanel('t', 'T')));
		assert.equal(older.closed, true);
		assert.equal(manager.get('k'), newer);
		assert.equal(manager.add('k', newer), newer, 'the same panel again is kept');
		assert.equal(newer.closed, false);
	});
});
