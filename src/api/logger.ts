/**
 * A small logging interface the client writes debug lines to. VS Code's LogOutputChannel
 * satisfies it. The client never passes a token to it: headers go through redactHeaders first and
 * every message goes through the transport's scrubber.
 */
export interface Logger {
	debug(message: string, ...args: unknown[]): void;
	warn?(message: string, ...args: unknown[]): void;
}

/** A logger that drops everything. */
export const NULL_LOGGER: Logger = { debug: () => undefined };

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);

/** A copy of the headers with credentials replaced by `<redacted>`. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
	const out: Record<string, string> = {};
	for (const [name, value] of Object.entries(headers)) {
		if (value === undefined) {
			continue;
		}
		out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? '<redacted>' : Array.isArray(value) ? value.join(', ') : value;
	}
	return out;
}

/** Removes bearer credentials and the given secrets from free text (error messages, log lines). */
export function scrub(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
	let out = text.replace(/(bearer\s+)[^\s"',;]+/gi, '$1<redacted>');
	for (const secret of secrets) {
		if (secret && secret.length >= 4) {
			out = out.split(secret).join('<redacted>');
		}
	}
	return out;
}
