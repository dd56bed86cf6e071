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

/** The characters of an RFC 6750 bearer token (`b64token`: letters, digits, `-._~+/`, then `=` padding). */
const TOKEN_SHAPE = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * Whether a word after "Bearer" looks like a credential rather than prose: the token alphabet, at
 * least 8 characters, and a digit, one of `_.~+/=`, a capital after the first letter, or 20
 * characters or more. "token", "rejected:", "<API_KEY>" and "wrong-key" are words; `ca_dev_01…`,
 * `ghp_…`, a JWT (`eyJ…`) or 32 hex digits are tokens.
 */
export function looksLikeToken(word: string): boolean {
	if (word.length < 8 || !TOKEN_SHAPE.test(word)) {
		return false;
	}
	return word.length >= 20 || /[0-9_.~+/=]/.test(word) || /.[A-Z]/.test(word);
}

/**
 * Removes credentials from free text (error messages, log lines): every one of `secrets` (the
 * tokens the client sent) wherever it appears, and a token-shaped word after "Bearer" (a credential
 * the client never sent, e.g. another one the server echoes). Ordinary words after "bearer" stay,
 * so "missing bearer token: send Authorization: Bearer <API_KEY>" reads as the server wrote it.
 */
export function scrub(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
	let out = text;
	for (const secret of secrets) {
		if (secret && secret.length >= 4) {
			out = out.split(secret).join('<redacted>');
		}
	}
	return out.replace(/(bearer\s+)([^\s"',;]+)/gi, (match, lead: string, word: string) => {
		// Sentence punctuation after the word is not part of it ("…: Bearer abc123.").
		const core = word.replace(/[.:!?)\]}>]+$/, '');
		return looksLikeToken(core) ? `${lead}<redacted>${word.slice(core.length)}` : match;
	});
}
