/**
 * The page side of a webview: the typed VS Code API (messages to the extension, persisted state)
 * and a listener for the extension's messages. Runs in the webview (browser), not the extension.
 */

/** The object `acquireVsCodeApi()` returns, typed by the page's state and its outgoing messages. */
export interface HostApi<State, Out> {
	postMessage(message: Out): void;
	getState(): State | undefined;
	setState(state: State): void;
}

declare function acquireVsCodeApi(): HostApi<unknown, unknown>;

let api: HostApi<unknown, unknown> | undefined;

/** The page's VS Code API (acquired once: a second `acquireVsCodeApi()` throws). */
export function hostApi<State, Out>(): HostApi<State, Out> {
	api ??= acquireVsCodeApi();
	return api as HostApi<State, Out>;
}

/**
 * Calls `handler` with each message from the extension whose `type` is one `isKnown` accepts.
 * Only the extension can post into a webview, but the page still checks the shape it relies on.
 */
export function onHostMessage<In extends { type: string }>(
	isKnown: (message: { type: string }) => message is In,
	handler: (message: In) => void,
): void {
	window.addEventListener('message', (event: MessageEvent<unknown>) => {
		const data = event.data;
		if (
			data !== null &&
			typeof data === 'object' &&
			typeof (data as { type?: unknown }).type === 'string' &&
			isKnown(data as { type: string })
		) {
			handler(data as In);
		}
	});
}

/** The element with this id, of this type; throws when the page's markup lacks it (a bug of ours). */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
	const el = document.getElementById(id);
	if (!(el instanceof type)) {
		throw new Error(`page markup: #${id} is missing`);
	}
	return el;
}
