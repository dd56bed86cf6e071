/**
 * Where a field of a JSON document is: the offsets of the member named by a field path
 * (`endpoint`, `repositories[2].branch`, or a JSON pointer `/repositories/2/branch`), so a server's
 * field-level error can be shown on it, and where `JSON.parse` refused a text. The document is
 * parsed by `jsonc-parser` (the parser VS Code uses), strictly: no comments, no trailing commas.
 */
import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser';

/** A span of the text: start offset and length. */
export interface Span {
	offset: number;
	length: number;
}

/** A step of a field path: a member name or an array index. */
export type FieldKey = string | number;

/** Splits a field path into member names and array indexes; undefined when it is not one. */
export function parseFieldPath(path: string): FieldKey[] | undefined {
	if (path.startsWith('/')) {
		return path
			.slice(1)
			.split('/')
			.map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
			.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
	}
	const keys: FieldKey[] = [];
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
 * not JSON. `exact` says whether the whole path was found. When not even the first step exists,
 * the span is the document's first character.
 */
export function locate(text: string, path: readonly FieldKey[]): { span: Span; exact: boolean } | undefined {
	const errors: ParseError[] = [];
	const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
	if (!root || errors.length > 0) {
		return undefined;
	}
	let node: Node = root;
	let depth = 0;
	for (const key of path) {
		const child = findNodeAtLocation(node, [key]);
		if (!child) {
			break;
		}
		node = child;
		depth++;
	}
	if (depth === 0) {
		return path.length === 0
			? { span: { offset: 0, length: root.offset + root.length }, exact: true }
			: { span: { offset: 0, length: Math.min(1, text.length) }, exact: false };
	}
	// An object member's value sits in a property node that spans its name too.
	const member = node.parent?.type === 'property' ? node.parent : node;
	return { span: { offset: member.offset, length: member.length }, exact: depth === path.length };
}

/**
 * What `JSON.parse` said about a text it refused: the reason without the place words V8 adds ("at
 * position 16", "(line 3 column 7)": they count from the start of the text parsed, which is not the
 * start of a document with a header line) and the offset it named in that text (its end for
 * "Unexpected end of JSON input"; when it named none and `text` is given, where jsonc-parser finds
 * the first error in it, else undefined).
 */
export function jsonSyntaxError(err: unknown, parsedLength: number, text?: string): { reason: string; offset: number | undefined } {
	const message = err instanceof Error ? err.message : String(err);
	const position = /\bat position (\d+)/.exec(message);
	const offset = position
		? Number(position[1])
		: /end of JSON input/i.test(message)
			? parsedLength
			: text === undefined
				? undefined
				: firstErrorOffset(text);
	const reason = message
		.replace(/\s*\(line \d+ column \d+\)/, '')
		.replace(/\s*at position \d+/, '')
		.replace(/\s*in JSON\b/, '')
		.trim();
	return { reason: reason === '' ? 'not valid JSON' : reason, offset };
}

/** Where jsonc-parser, strict, finds the first error of `text` (V8's "Unexpected token '}', … is not valid JSON" names no position). */
function firstErrorOffset(text: string): number | undefined {
	const errors: ParseError[] = [];
	parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
	return errors[0]?.offset;
}

/** The 1-based line and column of `offset` in `text` (a column counts UTF-16 code units, as editors do). */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
	const before = text.slice(0, Math.max(0, Math.min(offset, text.length)));
	const lineStart = before.lastIndexOf('\n') + 1;
	return { line: before.split('\n').length, column: before.length - lineStart + 1 };
}
