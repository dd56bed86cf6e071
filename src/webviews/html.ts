/**
 * The one HTML document every webview renders: a strict CSP with a fresh nonce, the page's
 * stylesheets and its ES-module script, and a body that only holds static markup of ours (all
 * server data reaches the page as messages, never as HTML). Plain TypeScript (no `vscode`).
 */
import { contentSecurityPolicy, createNonce } from './csp';

/** What `renderWebviewHtml` needs; the URIs are `webview.asWebviewUri(...)` strings. */
export interface WebviewHtmlOptions {
	/** `webview.cspSource`. */
	cspSource: string;
	/** The document title (escaped here). */
	title: string;
	/** The page's script (`dist/webviews/<name>.js` as a webview URI), loaded as a module with the nonce. */
	scriptUri: string;
	/** Stylesheets (`media/webviews/*.css` as webview URIs). */
	styleUris: readonly string[];
	/** Origins the page may connect to (see `contentSecurityPolicy`). */
	connectSrc?: readonly string[];
	/** Static markup of ours placed in `<body>` before the script (never server text). */
	body?: string;
	/** A nonce to use instead of a fresh one (tests only). */
	nonce?: string;
}

/** The rendered document and the policy it carries. */
export interface RenderedHtml {
	html: string;
	nonce: string;
	csp: string;
}

/** Escapes text for an HTML text node or a double-quoted attribute. */
export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Renders the document; every call draws a fresh nonce unless one is given. */
export function renderWebviewHtml(options: WebviewHtmlOptions): RenderedHtml {
	const nonce = options.nonce ?? createNonce();
	const csp = contentSecurityPolicy({ cspSource: options.cspSource, nonce, connectSrc: options.connectSrc });
	const styles = options.styleUris.map((uri) => `<link rel="stylesheet" href="${escapeHtml(uri)}">`).join('\n\t');
	const html = `<!DOCTYPE html>
<html lang="en">
<head>
	<meta charset="UTF-8">
	<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
	<meta name="viewport" content="width=device-width, initial-scale=1.0">
	<title>${escapeHtml(options.title)}</title>
	${styles}
</head>
<body>
${options.body ?? ''}
	<script type="module" nonce="${nonce}" src="${escapeHtml(options.scriptUri)}"></script>
</body>
</html>`;
	return { html, nonce, csp };
}
