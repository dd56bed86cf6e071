import * as vscode from 'vscode';

/**
 * Whether the workbench holds a text model for the output channel named `name` (an extension's
 * channel, whichever extension made it): it does while its Output view shows the channel, and the
 * extension host then has an `output:` document for it (`extension-output-<extension>-#<n>-<name>`).
 */
export function workbenchShowsChannel(name: string): boolean {
	return vscode.workspace.textDocuments.some((doc) => isChannelDocument(doc.uri, name));
}

function isChannelDocument(uri: vscode.Uri, name: string): boolean {
	const path = uri.path;
	if (uri.scheme !== 'output' || !path.startsWith('extension-output-') || !path.endsWith(`-${name}`)) {
		return false;
	}
	return /-#\d+-$/.test(path.slice(0, path.length - name.length));
}

/**
 * Shows and closes output channels without racing the workbench. The workbench loads the text of
 * the channel its Output view shows, and applies each append to it, asynchronously: it reads the
 * channel's file, then edits the text model. A channel disposed in the middle of that makes the
 * workbench fail on its own: an append then lands on a disposed model ("Model is disposed!"), a load
 * finds its listeners gone ("Cannot read properties of undefined (reading 'add')"); seen in the web
 * worker host, where reading the file takes longest. A model the view lets go of while its channel
 * is still open cancels its pending edits cleanly. So a closed channel gets no further append
 * (`isClosed`), and it is disposed only while the workbench holds no model for it and is not about
 * to load one: at once when the view does not show it and no reveal of it is on its way; else once
 * the view has let go of it (its `output:` document closed). `hide` also closes the Output view when
 * it shows the channel (now, or once a reveal on its way has shown it).
 */
export class ChannelCloser implements vscode.Disposable {
	/** Channels revealed here whose `output:` document has not opened since: the workbench is about to load them. */
	private readonly revealing = new Set<vscode.OutputChannel>();
	/** Closed channels the workbench still shows or is about to, disposed once it lets go of them (`hide`: close the view). */
	private readonly waiting = new Map<vscode.OutputChannel, { hide: boolean }>();
	private readonly closed = new WeakSet<vscode.OutputChannel>();
	private readonly listeners: vscode.Disposable[] = [
		vscode.workspace.onDidOpenTextDocument((doc) => this.opened(doc.uri)),
		vscode.workspace.onDidCloseTextDocument(() => this.disposeReleased()),
	];

	/** Shows `channel` in the Output view (as `channel.show`), remembering that the workbench is about to load it. */
	reveal(channel: vscode.OutputChannel, preserveFocus: boolean): void {
		if (this.closed.has(channel)) {
			return;
		}
		if (!workbenchShowsChannel(channel.name)) {
			this.revealing.add(channel);
		}
		channel.show(preserveFocus);
	}

	/** Closes `channel`: nothing may be appended to it from now on; it is disposed as soon as that is safe. */
	close(channel: vscode.OutputChannel, options: { hide?: boolean } = {}): void {
		if (this.closed.has(channel)) {
			return;
		}
		this.closed.add(channel);
		const hide = options.hide === true;
		if (this.revealing.has(channel)) {
			// Hidden once it shows: closing the view before a reveal on its way has opened it would leave
			// the channel loaded in the hidden view, which never lets go of it.
			this.waiting.set(channel, { hide });
			return;
		}
		if (!workbenchShowsChannel(channel.name)) {
			channel.dispose();
			return;
		}
		if (hide) {
			channel.hide();
		}
		this.waiting.set(channel, { hide });
	}

	/** Whether `channel` was closed here (appending to it would race its disposal). */
	isClosed(channel: vscode.OutputChannel): boolean {
		return this.closed.has(channel);
	}

	private opened(uri: vscode.Uri): void {
		for (const channel of this.revealing) {
			if (isChannelDocument(uri, channel.name)) {
				this.revealing.delete(channel);
				// A reveal on its way showed a channel closed meanwhile: now the view can be closed.
				if (this.waiting.get(channel)?.hide) {
					channel.hide();
				}
			}
		}
	}

	private disposeReleased(): void {
		for (const channel of this.waiting.keys()) {
			if (!this.revealing.has(channel) && !workbenchShowsChannel(channel.name)) {
				this.waiting.delete(channel);
				channel.dispose();
			}
		}
	}

	/** Disposes every channel still waiting (the extension is deactivated: the window goes with them). */
	dispose(): void {
		for (const listener of this.listeners.splice(0)) {
			listener.dispose();
		}
		for (const channel of this.waiting.keys()) {
			channel.dispose();
		}
		this.waiting.clear();
		this.revealing.clear();
	}
}
