/**
 * The base of every webview panel and the manager that keeps one panel per key. A panel renders
 * through `renderWebviewHtml` (strict CSP, fresh nonce), loads only `dist/webviews/<name>.js` and
 * `media/webviews/*.css` through `asWebviewUri`, and hands its subclass only the messages its
 * protocol's validator accepts; every other message is dropped and logged.
 */
import * as vscode from 'vscode';
import { Disposable } from '../util/lifecycle';
import { renderWebviewHtml } from './html';
import type { MessageValidator } from './messages';

/** What every panel needs from the extension. */
export interface PanelHost {
	/** `context.extensionUri`: the root of `dist/webviews/` and `media/`. */
	extensionUri: vscode.Uri;
	/** Where dropped messages and page failures are logged. */
	log: vscode.LogOutputChannel;
}

/** A feature with webview panels: its registrations and how it restores one of its panels. */
export interface PanelFeature {
	disposables: vscode.Disposable[];
	restorePanel: (panel: vscode.WebviewPanel, state: unknown) => Promise<void>;
}

/** The folders a webview may load from (its `localResourceRoots`): the page bundles and media. */
export function webviewRoots(extensionUri: vscode.Uri): vscode.Uri[] {
	return [vscode.Uri.joinPath(extensionUri, 'dist', 'webviews'), vscode.Uri.joinPath(extensionUri, 'media')];
}

/**
 * Options for `createWebviewPanel` and for a restored panel's `webview.options`: scripts on,
 * resources only from `webviewRoots`, no command links. `retainContextWhenHidden` keeps a live page
 * (a VNC socket) running while its tab is in the background.
 */
export function webviewPanelOptions(
	extensionUri: vscode.Uri,
	retainContextWhenHidden = false,
): vscode.WebviewPanelOptions & vscode.WebviewOptions {
	return {
		enableScripts: true,
		enableCommandUris: false,
		enableForms: false,
		localResourceRoots: webviewRoots(extensionUri),
		retainContextWhenHidden,
	};
}

/** What one render of a page loads. */
export interface PageContent {
	/** The document title (usually the panel title). */
	title: string;
	/** The page bundle: `dist/webviews/<script>.js` (one esbuild entry per page, src/webviews/pages/<script>/main.ts). */
	script: string;
	/** Stylesheets under `media/webviews/`; `base.css` (theme variables) is always loaded first. */
	styles?: readonly string[];
	/**
	 * True when the page's bundle imports CSS (a library's stylesheet): esbuild writes it to
	 * `dist/webviews/<script>.css`, loaded after `styles`.
	 */
	bundledCss?: boolean;
	/** Origins the page may connect to; none by default. Check socket URLs with `webSocketOrigin` first. */
	connectSrc?: readonly string[];
	/** Static markup of ours for `<body>` (never server text: that goes in messages). */
	body?: string;
}

/**
 * A webview panel speaking a typed protocol: `In` the messages from the page (validated), `Out`
 * the messages to it. Disposing the object disposes the panel and vice versa; `onDidDispose` fires
 * once either way.
 */
export abstract class WebviewPanelBase<In extends { type: string }, Out extends { type: string }> extends Disposable {
	private readonly _onDidDispose = new vscode.EventEmitter<void>();
	/** Fires once when the panel closes (by the user or `dispose()`). */
	readonly onDidDispose = this._onDidDispose.event;

	/**
	 * @param panel a panel made with `webviewPanelOptions` (new, or handed over by a serializer)
	 * @param validate the protocol's validator of page messages
	 */
	protected constructor(
		readonly panel: vscode.WebviewPanel,
		protected readonly host: PanelHost,
		private readonly validate: MessageValidator<In>,
	) {
		super();
		panel.webview.options = {
			enableScripts: true,
			enableCommandUris: false,
			enableForms: false,
			localResourceRoots: webviewRoots(host.extensionUri),
		};
		this.register(panel.webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
		this.register(panel.onDidDispose(() => this.dispose()));
	}

	/** Renders the page (a fresh nonce each time; the page reloads and its socket, if any, closes). */
	protected render(content: PageContent): void {
		const webview = this.panel.webview;
		const uri = (...segments: string[]) => webview.asWebviewUri(vscode.Uri.joinPath(this.host.extensionUri, ...segments)).toString();
		const styles = ['base.css', ...(content.styles ?? [])].map((name) => uri('media', 'webviews', name));
		if (content.bundledCss) {
			styles.push(uri('dist', 'webviews', `${content.script}.css`));
		}
		webview.html = renderWebviewHtml({
			cspSource: webview.cspSource,
			title: content.title,
			scriptUri: uri('dist', 'webviews', `${content.script}.js`),
			styleUris: styles,
			connectSrc: content.connectSrc,
			body: content.body,
		}).html;
	}

	/** Sends a message to the page; false when the page is gone (or not loaded yet). */
	protected post(message: Out): Thenable<boolean> {
		if (this.isDisposed) {
			return Promise.resolve(false);
		}
		return this.panel.webview.postMessage(message);
	}

	/** Handles one validated page message; a thrown error or rejection is logged. */
	protected abstract onMessage(message: In): void | Promise<void>;

	/** Brings the panel to the front. */
	reveal(): void {
		this.panel.reveal();
	}

	private receive(raw: unknown): void {
		const result = this.validate(raw);
		if (!result.ok) {
			// The reason names the type and field, never the content.
			this.host.log.warn(`webview ${this.panel.viewType}: dropped a message from the page: ${result.reason}`);
			return;
		}
		Promise.resolve()
			.then(() => this.onMessage(result.message))
			.catch((err: unknown) =>
				this.host.log.error(
					`webview ${this.panel.viewType}: handling "${result.message.type}" failed:`,
					err instanceof Error ? err : String(err),
				),
			);
	}

	override dispose(): void {
		if (this.isDisposed) {
			return;
		}
		super.dispose();
		this.panel.dispose();
		this._onDidDispose.fire();
		this._onDidDispose.dispose();
	}
}

/** Keeps at most one panel per key (an agent id, "savings"): `show` reveals an open one. */
export class PanelManager<P extends WebviewPanelBase<{ type: string }, { type: string }>> extends Disposable {
	private readonly panels = new Map<string, P>();

	/** The open panel for `key`, if any. */
	get(key: string): P | undefined {
		return this.panels.get(key);
	}

	/** Every open panel. */
	all(): P[] {
		return [...this.panels.values()];
	}

	/** Reveals the panel for `key`, or makes one with `create` and keeps it until it closes. */
	show(key: string, create: () => P): P {
		const open = this.panels.get(key);
		if (open) {
			open.reveal();
			return open;
		}
		return this.add(key, create());
	}

	/** Tracks a panel made elsewhere (a serializer's restored panel); an older panel for the key is closed. */
	add(key: string, panel: P): P {
		const previous = this.panels.get(key);
		if (previous && previous !== panel) {
			previous.dispose();
		}
		this.panels.set(key, panel);
		panel.onDidDispose(() => {
			if (this.panels.get(key) === panel) {
				this.panels.delete(key);
			}
		});
		return panel;
	}

	override dispose(): void {
		for (const panel of [...this.panels.values()]) {
			panel.dispose();
		}
		this.panels.clear();
		super.dispose();
	}
}
