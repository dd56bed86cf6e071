/**
 * A webview panel of the `vscode` fake for the panel tests (not a test file): it keeps the HTML
 * rendered, the messages posted to the page, and lets a test send the page's messages, close the
 * panel as the user would, and see reveals. `fakePanels()` answers `window.createWebviewPanel`.
 */
import * as vscode from 'vscode';
import * as fake from '../support/vscodeFake';

export class FakeWebviewPanel {
	readonly posted: unknown[] = [];
	/** Every HTML document set, in order. */
	readonly htmls: string[] = [];
	reveals = 0;
	disposed = false;
	/** False: `postMessage` answers false (the page is gone). */
	pageAlive = true;
	private readonly received = new fake.EventEmitter<unknown>();
	private readonly closed = new fake.EventEmitter<void>();
	readonly onDidDispose = this.closed.event;
	readonly onDidChangeViewState = new fake.EventEmitter<unknown>().event;
	visible = true;
	active = true;
	readonly webview: {
		options: unknown;
		html: string;
		cspSource: string;
		asWebviewUri(uri: vscode.Uri): vscode.Uri;
		postMessage(message: unknown): Thenable<boolean>;
		onDidReceiveMessage: vscode.Event<unknown>;
	};

	constructor(
		readonly viewType: string,
		public title: string,
		readonly createOptions?: unknown,
	) {
		const htmls = this.htmls;
		let html = '';
		this.webview = {
			options: undefined,
			get html(): string {
				return html;
			},
			set html(value: string) {
				html = value;
				htmls.push(value);
			},
			cspSource: 'https://webview.test',
			asWebviewUri: (uri) => vscode.Uri.from({ scheme: 'https', authority: 'webview.test', path: uri.path }),
			postMessage: (message) => {
				this.posted.push(message);
				return Promise.resolve(this.pageAlive);
			},
			onDidReceiveMessage: this.received.event as vscode.Event<unknown>,
		};
	}

	/** The page sends `message`. */
	send(message: unknown): void {
		this.received.fire(message);
	}

	reveal(): void {
		this.reveals++;
	}

	/** Closes the panel (as the user's close, or `dispose()`): fires onDidDispose once. */
	dispose(): void {
		if (this.disposed) {
			return;
		}
		this.disposed = true;
		this.closed.fire();
	}

	/** The types of the messages posted so far. */
	types(): string[] {
		return this.posted.map((m) => (m as { type: string }).type);
	}
}

/** Answers `window.createWebviewPanel` with FakeWebviewPanels; the list holds them in order. */
export function fakePanels(): FakeWebviewPanel[] {
	const made: FakeWebviewPanel[] = [];
	fake.answer('window.createWebviewPanel', (viewType: string, title: string, _column: unknown, options: unknown) => {
		const panel = new FakeWebviewPanel(viewType, title, options);
		made.push(panel);
		return panel;
	});
	return made;
}

/** A log channel that keeps its lines (`lines`), as the panels' host log. */
export function fakeLog(): vscode.LogOutputChannel & { lines: string[] } {
	const lines: string[] = [];
	const log =
		(level: string) =>
		(message: string, ...rest: unknown[]) =>
			void lines.push(`[${level}] ${[message, ...rest.map((r) => (r instanceof Error ? r.message : String(r)))].join(' ')}`);
	return {
		lines,
		info: log('info'),
		warn: log('warn'),
		error: log('error'),
		debug: log('debug'),
		trace: log('trace'),
	} as unknown as vscode.LogOutputChannel & {
		lines: string[];
	};
}

/** Waits until `check` holds (a condition, never a time). */
export async function until(check: () => boolean): Promise<void> {
	const deadline = Date.now() + 10_000;
	while (!check() && Date.now() < deadline) {
		await new Promise((r) => setImmediate(r));
	}
	if (!check()) {
		throw new Error('the condition never held');
	}
}
