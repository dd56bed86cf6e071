/**
 * The unit tests mirror the source (issue 43; test/README.md): a module of src/ with logic of its
 * own has its unit test at the same path, `src/a/b.ts` → `test/unit/a/b.test.ts`, and the files of
 * test/unit/ that test no one module (journeys across modules, the build's checks, the contract
 * against the emulator) sit apart. Read from the tree, so it stays true:
 * - at least MIN_MIRRORED of the modules with logic have a same-path test;
 * - every test file of test/unit/ is at a mirrored path (of src/, emulator/src/, scripts/lib/, bench/
 *   or test/unit/support/) or in a folder of scenarios (SCENARIO_FOLDERS).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as ts from 'typescript';

// Compiled to out/test/unit/build/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');

/** The share of src/'s modules with logic that must have a same-path unit test. */
const MIN_MIRRORED = 0.8;

/** The folders of test/unit/ whose files test no single module: each says why. */
const SCENARIO_FOLDERS: Readonly<Record<string, string>> = {
	'test/unit/scenarios/': 'journeys across modules: the client against the emulator and the hostile server, outages, other servers',
	'test/unit/build/': 'checks of the build and the tree: bundles, sizes, layers, homes, this file',
	'test/unit/emulator/': "the emulator's own tests (emulator/src/): its contract against spec/openapi.yaml, its profiles and surfaces",
	'test/unit/support/': "the test harness's own tests (the network infrastructure, the OpenAPI validator)",
};

/** The files at the top of test/unit/ that check the whole extension rather than a module (each with why). */
const TOP_LEVEL_CHECKS: Readonly<Record<string, string>> = {
	'test/unit/l10n.test.ts': 'every user-visible literal goes through vscode.l10n (all of src/)',
	'test/unit/manifest.test.ts': "package.json's contributions against the code (all of src/)",
};

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : [path];
	});
}

const rel = (path: string): string => relative(root, path).split('\\').join('/');

/**
 * True when the module has logic of its own: a function, method, accessor or constructor with a
 * body (a file of types, re-exports and constants has none).
 */
function hasLogic(text: string, path: string): boolean {
	const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
	let found = false;
	const visit = (node: ts.Node): void => {
		if (found) {
			return;
		}
		if (
			(ts.isFunctionDeclaration(node) ||
				ts.isFunctionExpression(node) ||
				ts.isArrowFunction(node) ||
				ts.isMethodDeclaration(node) ||
				ts.isConstructorDeclaration(node) ||
				ts.isGetAccessorDeclaration(node) ||
				ts.isSetAccessorDeclaration(node)) &&
			node.body !== undefined
		) {
			found = true;
			return;
		}
		ts.forEachChild(node, visit);
	};
	visit(file);
	return found;
}

const modules = filesUnder(join(root, 'src'))
	.filter((p) => p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.endsWith('.gen.ts'))
	.map((p) => ({ path: rel(p), text: readFileSync(p, 'utf8') }))
	.filter((m) => hasLogic(m.text, m.path));

/** `src/a/b.ts` → `test/unit/a/b.test.ts`. */
const mirrorOf = (path: string): string => `test/unit/${path.slice('src/'.length, -'.ts'.length)}.test.ts`;

suite('unit tests mirror the source (issue 43)', () => {
	test(`at least ${MIN_MIRRORED * 100}% of src/'s modules with logic have a unit test at the same path`, () => {
		const without = modules.filter((m) => !existsSync(join(root, mirrorOf(m.path)))).map((m) => m.path);
		const share = (modules.length - without.length) / modules.length;
		assert.ok(modules.length > 100, `found ${modules.length} modules with logic: the walk of src/ is broken`);
		assert.ok(
			share >= MIN_MIRRORED,
			`${modules.length - without.length} of ${modules.length} modules with logic (${(share * 100).toFixed(1)}%) have a same-path unit test; without one:\n  ${without.join('\n  ')}`,
		);
	});

	test('a module without logic (types, re-exports, constants) is not counted, a module with a function is', () => {
		assert.equal(hasLogic("export type A = { a: string };\nexport { b } from './b';\nexport const C = 3;", 'x.ts'), false);
		assert.equal(hasLogic('export const f = (a: number) => a + 1;', 'x.ts'), true);
		assert.equal(hasLogic('export class K { get v() { return 1; } }', 'x.ts'), true);
		assert.equal(hasLogic('export declare function g(): void;', 'x.ts'), false);
	});

	test('every unit test file is at a mirrored path or among the scenarios', () => {
		const tests = filesUnder(join(root, 'test', 'unit'))
			.filter((p) => p.endsWith('.test.ts'))
			.map(rel);
		const stray = tests.filter((t) => {
			if (Object.keys(SCENARIO_FOLDERS).some((f) => t.startsWith(f)) || t in TOP_LEVEL_CHECKS) {
				return false;
			}
			const inner = t.slice('test/unit/'.length, -'.test.ts'.length);
			const candidates = [
				`src/${inner}.ts`,
				`emulator/src/${inner.replace(/^emulator\//, '')}.ts`,
				`scripts/${inner.replace(/^scripts\//, '')}.mjs`,
				`bench/${inner.replace(/^bench\//, '')}.ts`,
				`test/unit/${inner}.ts`,
			];
			return !candidates.some((c) => existsSync(join(root, c)));
		});
		assert.deepEqual(stray, [], 'a unit test that mirrors no module: move it to its module’s path or to test/unit/scenarios/');
	});
});
