// The parts of @novnc/novnc 1.7.0 the pages use (the package ships no types). See its docs/API.md.
declare module '@novnc/novnc/core/rfb.js' {
	export interface RfbOptions {
		shared?: boolean;
		credentials?: { username?: string; password?: string; target?: string };
		repeaterID?: string;
		wsProtocols?: string[];
	}
	export default class RFB extends EventTarget {
		constructor(target: HTMLElement, urlOrChannel: string | WebSocket, options?: RfbOptions);
		viewOnly: boolean;
		focusOnClick: boolean;
		clipViewport: boolean;
		dragViewport: boolean;
		scaleViewport: boolean;
		resizeSession: boolean;
		showDotCursor: boolean;
		background: string;
		qualityLevel: number;
		compressionLevel: number;
		readonly capabilities: { power: boolean };
		disconnect(): void;
		sendCtrlAltDel(): void;
		sendKey(keysym: number, code: string | null, down?: boolean): void;
		focus(options?: FocusOptions): void;
		blur(): void;
		clipboardPasteFrom(text: string): void;
	}
}

declare module '@novnc/novnc/core/util/logging.js' {
	export function initLogging(level?: 'debug' | 'info' | 'warn' | 'error' | 'none'): void;
}
