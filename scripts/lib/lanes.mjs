// The lanes of `npm run test:integration` and which tests each runs (issue 41): the one place that
// says so. A test declares the lanes it needs where it is written, by tags in its title (or a
// suite's): every in-host test runs in `standard`; `[variant]` adds the variant profile (what depends
// on the service's choices at the description's "not shown" points); `[web]` adds VS Code for the
// Web's extension host (what differs on the web platform: the fetch wire and its stream, the stores
// and file sinks on vscode.workspace.fs, secrets, the browser's local folder side, the web bundle's
// activation, and one journey per surface). UI tests run in `standard-ui`; `[variant]` ones in the
// variant lane too. test/README.md's matrix (suite × lane, with the reason for each row) is checked
// against what this module reads from the sources (test/unit/scripts/lib/lanes.test.ts).
import { readFileSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import ts from 'typescript';

export const VARIANT_TAG = '[variant]';
export const WEB_TAG = '[web]';

/**
 * The lanes, in the order the run starts them. `tags`: a test runs in the lane when its title path
 * holds every one (none: every test of its kind). `kind`: in-host suites or UI tests.
 */
export const LANES = Object.freeze([
	{ lane: 'standard', kind: 'in-host', profile: 'standard', web: false, tags: [] },
	{ lane: 'standard-ui', kind: 'ui', profile: 'standard', web: false, tags: [] },
	{ lane: 'variant', kind: 'in-host', profile: 'variant', web: false, tags: [VARIANT_TAG] },
	{ lane: 'variant', kind: 'ui', profile: 'variant', web: false, tags: [VARIANT_TAG] },
	{ lane: 'standard-web', kind: 'in-host', profile: 'standard', web: true, tags: [WEB_TAG] },
]);

/** The lanes (by name, each once) that run a test of `kind` with this title path. */
export function lanesOf(kind, titlePath) {
	const title = titlePath.join(' ');
	return [...new Set(LANES.filter((l) => l.kind === kind && l.tags.every((t) => title.includes(t))).map((l) => l.lane))];
}

/** The string of a title argument: a literal or a template without substitutions; undefined otherwise. */
function literal(node) {
	if (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))) {
		return node.text;
	}
	return undefined;
}

/**
 * The tests of one in-host suite file, each as its title path (suite titles then the test's), read
 * from the source (mocha's tdd `suite(…)` / `test(…)` calls whose title is a literal).
 */
export function suiteTests(file) {
	const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
	const tests = [];
	const visit = (node, path) => {
		if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && ['suite', 'test'].includes(node.expression.text)) {
			const title = literal(node.arguments[0]);
			if (title === undefined) {
				throw new Error(`${file}: a ${node.expression.text}() whose title is not a literal cannot be placed in a lane`);
			}
			if (node.expression.text === 'test') {
				tests.push([...path, title]);
				return;
			}
			for (const arg of node.arguments.slice(1)) {
				ts.forEachChild(arg, (child) => visit(child, [...path, title]));
			}
			return;
		}
		ts.forEachChild(node, (child) => visit(child, path));
	};
	visit(source, []);
	return tests;
}

/** The title of a UI test file (its default export's `title`). */
export function uiTitle(file) {
	const text = readFileSync(file, 'utf8');
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
	let title;
	const visit = (node) => {
		if (title === undefined && ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'title') {
			title = literal(node.initializer);
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	if (title === undefined) {
		throw new Error(`${file}: no literal title`);
	}
	return title;
}

/** The columns of the matrix: each lane a test can be placed in, in order. */
export const MATRIX_LANES = Object.freeze(['standard', 'standard-ui', 'variant', 'standard-web']);

/**
 * The matrix: one row per in-host suite file and per UI test, with how many of its tests each lane
 * runs. `root` is the repository.
 */
export function laneMatrix(root) {
	const rows = [];
	const suiteDir = join(root, 'test', 'integration', 'suite');
	for (const name of readdirSync(suiteDir)
		.filter((f) => f.endsWith('.test.ts'))
		.sort()) {
		const file = join(suiteDir, name);
		const tests = suiteTests(file);
		const counts = Object.fromEntries(MATRIX_LANES.map((l) => [l, 0]));
		for (const t of tests) {
			for (const l of lanesOf('in-host', t)) {
				counts[l]++;
			}
		}
		rows.push({ kind: 'in-host', file: relative(root, file), name, tests: tests.length, counts });
	}
	const uiDir = join(root, 'test', 'ui');
	for (const name of readdirSync(uiDir)
		.filter((f) => f.endsWith('.ts'))
		.sort()) {
		const counts = Object.fromEntries(MATRIX_LANES.map((l) => [l, 0]));
		for (const l of lanesOf('ui', [uiTitle(join(uiDir, name))])) {
			counts[l]++;
		}
		rows.push({ kind: 'ui', file: relative(root, join(uiDir, name)), name: basename(name), tests: 1, counts });
	}
	return rows;
}

/** A cell of the matrix: "all", "—", or "N of M". */
export function cell(count, total) {
	if (count === 0) {
		return '—';
	}
	return count === total ? 'all' : `${count} of ${total}`;
}

/** The markers around the matrix in test/README.md. */
export const MATRIX_START = '<!-- lane matrix: scripts/lane-matrix.mjs writes the counts; the reasons are ours -->';
export const MATRIX_END = '<!-- end of the lane matrix -->';

const IN_HOST_COLUMNS = ['standard', 'variant', 'standard-web'];
const UI_COLUMNS = ['standard-ui', 'variant'];

/** The reasons written in a matrix text, by suite or UI test file name. */
export function matrixReasons(text) {
	const reasons = new Map();
	for (const line of text.split('\n')) {
		const m = /^\| `([^`]+)` \|.*\| ([^|]*) \|$/.exec(line);
		if (m) {
			reasons.set(m[1], m[2].trim());
		}
	}
	return reasons;
}

/** The matrix as Markdown (two tables: in-host suites, UI tests), each row with its reason from `reasons`. */
export function matrixMarkdown(rows, reasons) {
	const line = (cells) => `| ${cells.join(' | ')} |`;
	const out = [
		line(['In-host suite', 'tests', ...IN_HOST_COLUMNS.map((c) => `\`${c}\``), 'why these lanes']),
		line(['---', '---', ...IN_HOST_COLUMNS.map(() => '---'), '---']),
	];
	for (const r of rows.filter((x) => x.kind === 'in-host')) {
		out.push(
			line([`\`${r.name}\``, String(r.tests), ...IN_HOST_COLUMNS.map((c) => cell(r.counts[c], r.tests)), reasons.get(r.name) ?? '']),
		);
	}
	out.push(
		'',
		line(['UI test', ...UI_COLUMNS.map((c) => `\`${c}\``), 'why these lanes']),
		line(['---', ...UI_COLUMNS.map(() => '---'), '---']),
	);
	for (const r of rows.filter((x) => x.kind === 'ui')) {
		out.push(line([`\`${r.name}\``, ...UI_COLUMNS.map((c) => cell(r.counts[c], r.tests)), reasons.get(r.name) ?? '']));
	}
	return out.join('\n');
}

/** `readme` with the text between the matrix markers replaced by `matrix`. */
export function withMatrix(readme, matrix) {
	const start = readme.indexOf(MATRIX_START);
	const end = readme.indexOf(MATRIX_END);
	if (start < 0 || end < start) {
		throw new Error('test/README.md has no lane matrix markers');
	}
	return `${readme.slice(0, start + MATRIX_START.length)}\n${matrix}\n${readme.slice(end)}`;
}
