/**
 * Where a member of a JSON text is: the offsets of the member named by a field path
 * (`endpoint`, `repositories[2].branch`, or a JSON pointer `/repositories/2/branch`), so a server's
 * field-level error can be shown on it. A small scanner (strict JSON, no comments); plain Node.
 */

/** A span of the text: start offset and length. */
export interface Span {
	offset: number;
	length: number;
}

type Key = string | number;

/** Splits a field path into member names and array indexes; undefined when it is not one. */
export function parseFieldPath(path: string): Key[] | undefined {
	if (path.startsWith('/')) {
		return path
			.slice(1)
			.split('/')
			.map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
			.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
	}
	const keys: Key[] = [];
	const re = /([^.[\]]+)|\[(\d+)\]/g;
	let m: RegExpExecArray | null;
	let consumed = 0;
	while ((m = re.exec(path)) !== null) {
		keys.push(m[2] !== undefined ? Number(m[2]) : m[1]!);
		consumed += m[0].length;
	}
	const dots = (path.match(/\./g) ?? []).length;
	return keys.length > 0 && consumed + dots === path.length ? keys : undefined;
}

/**
 * The span of the member at `path` in `text` (its name and value for an object member, the value
 * for an array item), or of the deepest existing member on the way, or undefined when the text is
 * not JSON. `exact` says whether the whole path was found.
 */
export function locate(text: string, path: readonly Key[]): { span: Span; exact: boolean } | undefined {
	let i = 0;
	const ws = (): void => {
		while (i < text.length && ' \t\r\n'.includes(text[i]!)) {
			i++;
		}
	};
	const fail = (): never => {
		throw new SyntaxError(`JSON: unexpected input at ${i}`);
	};
	const str = (): string => {
		if (text[i] !== '"') {
			fail();
		}
		const start = i;
		i++;
		while (i < text.length && text[i] !== '"') {
			i += text[i] === '\\' ? 2 : 1;
		}
		if (i >= text.length) {
			fail();
		}
		i++;
		return JSON.parse(text.slice(start, i)) as string;
	};
	// Skips one value; when `want` still has keys, descends and reports what it finds through `found`.
	let found: { span: Span; exact: boolean } | undefined;
	const value = (want: readonly Key[] | undefined, memberStart: number): void => {
		ws();
		const c = text[i];
		if (c === '{') {
			i++;
			ws();
			if (text[i] === '}') {
				i++;
			} else {
				for (;;) {
					ws();
					const keyStart = i;
					const key = str();
					ws();
					if (text[i] !== ':') {
						fail();
					}
					i++;
					const match = want !== undefined && want.length > 0 && want[0] === key;
					value(match ? want.slice(1) : undefined, keyStart);
					ws();
					if (text[i] === ',') {
						i++;
						continue;
					}
					if (text[i] === '}') {
						i++;
						break;
					}
					fail();
				}
			}
		} else if (c === '[') {
			i++;
			ws();
			if (text[i] === ']') {
				i++;
			} else {
				for (let n = 0; ; n++) {
					ws();
					const itemStart = i;
					const match = want !== undefined && want.length > 0 && want[0] === n;
					value(match ? want.slice(1) : undefined, itemStart);
					ws();
					if (text[i] === ',') {
						i++;
						continue;
					}
					if (text[i] === ']') {
						i++;
						break;
					}
					fail();
				}
			}
		} else if (c === '"') {
			str();
		} else {
			const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
			if (!m) {
				fail();
			}
			i += m![0].length;
		}
		if (want !== undefined) {
			const span = { offset: memberStart, length: i - memberStart };
			// The deepest member reached wins; the exact one over any other.
			if (want.length === 0) {
				found = { span, exact: true };
			} else if (!found) {
				found = { span, exact: false };
			}
		}
	};
	try {
		value(path, 0);
		ws();
		if (i !== text.length) {
			fail();
		}
	} catch {
		return undefined;
	}
	if (found && !found.exact && found.span.offset === 0) {
		// Only the root matched: point at the start of the document rather than all of it.
		found = { span: { offset: 0, length: Math.min(1, text.length) }, exact: false };
	}
	return found;
}

/**
 * What `JSON.parse` said about a text it refused: the reason without the place words V8 adds ("at
 * position 16", "(line 3 column 7)": they count from the start of the text parsed, which is not the
 * start of a document with a header line) and the offset it named in that text (its end for
 * "Unexpected end of JSON input"; undefined when it named none).
 */
export function jsonSyntaxError(err: unknown, parsedLength: number): { reason: string; offset: number | undefined } {
	const message = err instanceof Error ? err.message : String(err);
	const position = /\bat position (\d+)/.exec(message);
	const offset = position ? Number(position[1]) : /end of JSON input/i.test(message) ? parsedLength : undefined;
	const reason = message
		.replace(/\s*\(line \d+ column \d+\)/, '')
		.replace(/\s*at position \d+/, '')
		.replace(/\s*in JSON\b/, '')
		.trim();
	return { reason: reason === '' ? 'not valid JSON' : reason, offset };
}

/** The 1-based line and column of `offset` in `text` (a column counts UTF-16 code units, as editors do). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
	const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
	const lineStart = before.lastIndexOf('\n') + 1;
	return { line: before.split('\n').length, column: before.length - lineStart + 1 };
}
