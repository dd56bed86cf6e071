/**
 * One home per concept (issue 32), read from the source so it stays true: a rule that has one
 * home in src/ is not written again elsewhere.
 * - The plain-JSON-object check (`typeof v === 'object'`, not null, not an array) is
 *   `isJsonObject` in src/api/validation.ts (and `membersOf` beside it); no other file spells it.
 * - A local file is opened for reading by the rules of src/platform/node/fileRead.ts only: no other
 *   file opens with O_NOFOLLOW or reads a descriptor itself.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

// Compiled to out/test/unit/build/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') && !path.endsWith('.gen.ts') ? [path] : [];
	});
}

const sources = filesUnder(join(root, 'src')).map((path) => ({
	path: relative(root, path).split('\\').join('/'),
	text: readFileSync(path, 'utf8'),
}));

/** `typeof X === 'object'` (or `!==`): X's text, else undefined. */
function typeofObjectOperand(node: ts.Node, file: ts.SourceFile): string | undefined {
	if (!ts.isBinaryExpression(node)) {
		return undefined;
	}
	const op = node.operatorToken.kind;
	if (op !== ts.SyntaxKind.EqualsEqualsEqualsToken && op !== ts.SyntaxKind.ExclamationEqualsEqualsToken) {
		return undefined;
	}
	for (const [a, b] of [
		[node.left, node.right],
		[node.right, node.left],
	]) {
		if (ts.isTypeOfExpression(a!) && ts.isStringLiteral(b!) && b.text === 'object') {
			return a.expression.getText(file);
		}
	}
	return undefined;
}

/**
 * Each plain-object check in `text`, as `path:line`: a `typeof X === 'object'` test within a
 * logical expression (`&&`, `||`, `!`, a conditional's test) that also asks `Array.isArray(X)` of
 * the same X.
 */
export function plainObjectChecks(path: string, text: string): string[] {
	if (!text.includes("'object'") || !text.includes('Array.isArray')) {
		return [];
	}
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
	const found: string[] = [];
	const visit = (node: ts.Node): void => {
		const operand = typeofObjectOperand(node, file);
		if (operand !== undefined) {
			// The whole logical expression the test is part of.
			let whole: ts.Node = node;
			while (
				(ts.isBinaryExpression(whole.parent) &&
					[ts.SyntaxKind.AmpersandAmpersandToken, ts.SyntaxKind.BarBarToken].includes(whole.parent.operatorToken.kind)) ||
				ts.isParenthesizedExpression(whole.parent) ||
				(ts.isPrefixUnaryExpression(whole.parent) && whole.parent.operator === ts.SyntaxKind.ExclamationToken)
			) {
				whole = whole.parent;
			}
			let asksArray = false;
			const look = (n: ts.Node): void => {
				if (
					ts.isCallExpression(n) &&
					n.expression.getText(file) === 'Array.isArray' &&
					n.arguments.length === 1 &&
					n.arguments[0]!.getText(file) === operand
				) {
					asksArray = true;
				}
				ts.forEachChild(n, look);
			};
			look(whole);
			if (asksArray) {
				found.push(`${path}:${file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1}`);
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

suite('one home per concept (issue 32)', () => {
	test('the plain-JSON-object check is isJsonObject (src/api/validation.ts) and nowhere else', function () {
		this.timeout(30_000); // parses the files that name both 'object' and Array.isArray
		const found = sources.filter((s) => s.path !== 'src/api/validation.ts').flatMap((s) => plainObjectChecks(s.path, s.text));
		assert.deepEqual(found, [], `use isJsonObject or membersOf from src/api/validation.ts:\n  ${found.join('\n  ')}`);
		assert.equal(plainObjectChecks('src/api/validation.ts', readFileSync(join(root, 'src/api/validation.ts'), 'utf8')).length, 1);
	});

	test('local files are opened and read by src/platform/node/fileRead.ts only (one set of rules, two drivers)', () => {
		const found = sources
			.filter((s) => s.path !== 'src/platform/node/fileRead.ts')
			.flatMap((s) =>
				s.text
					.split('\n')
					.flatMap((line, i) =>
						/O_NOFOLLOW|\b(openSync|readSync|fstatSync)\(|\bfs\.(open|read|fstat)\(/.test(line) ? [`${s.path}:${i + 1}`] : [],
					),
			);
		assert.deepEqual(found, [], `open and read local files through src/platform/node/fileRead.ts:\n  ${found.join('\n  ')}`);
	});

	test('the plain-object scan finds the check in its spellings and leaves other object tests alone', () => {
		const sample = [
			"const a = v !== null && typeof v === 'object' && !Array.isArray(v);",
			"if (o.x === null || typeof o.x !== 'object' || Array.isArray(o.x)) { f(); }",
			"const b = (w && typeof w === 'object' && !Array.isArray(w)) ? w : {};",
			'const c = value !== null &&',
			"\ttypeof value === 'object' &&",
			'\t!Array.isArray(value);',
			"const d = e !== null && typeof e === 'object';",
			"const g = typeof k === 'object' && Array.isArray(other);",
		].join('\n');
		assert.deepEqual(plainObjectChecks('sample.ts', sample), ['sample.ts:1', 'sample.ts:2', 'sample.ts:3', 'sample.ts:5']);
	});
});
