import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// Which lanes run which tests (scripts/lib/lanes.mjs, issue 41): read from the tests' own tags, and
// test/README.md's matrix kept equal to what the sources say, each row with its reason.

interface Row {
	kind: 'in-host' | 'ui';
	name: string;
	tests: number;
	counts: Record<string, number>;
}
interface LanesModule {
	lanesOf(kind: 'in-host' | 'ui', titlePath: string[]): string[];
	suiteTests(file: string): string[][];
	uiTitle(file: string): string;
	laneMatrix(root: string): Row[];
	matrixMarkdown(rows: Row[], reasons: Map<string, string>): string;
	matrixReasons(text: string): Map<string, string>;
	withMatrix(readme: string, matrix: string): string;
	MATRIX_START: string;
	MATRIX_END: string;
}

// Compiled to out/test/unit/scripts/lib/, so the repository root is five levels up.
const ROOT = join(__dirname, '..', '..', '..', '..', '..');

suite('scripts/lib/lanes', () => {
	let m: LanesModule;
	let dir: string;
	suiteSetup(async () => {
		m = (await import(pathToFileURL(join(ROOT, 'scripts', 'lib', 'lanes.mjs')).href)) as LanesModule;
		dir = mkdtempSync(join(tmpdir(), 'lanes-'));
	});
	suiteTeardown(() => rmSync(dir, { recursive: true, force: true }));

	test('every in-host test runs in standard; [variant] adds the variant lane, [web] the web lane, wherever in the title path', () => {
		assert.deepEqual(m.lanesOf('in-host', ['Views', 'lists agents']), ['standard']);
		assert.deepEqual(m.lanesOf('in-host', ['Views [variant]', 'lists agents']), ['standard', 'variant']);
		assert.deepEqual(m.lanesOf('in-host', ['Views', '[variant] lists agents [web]']), ['standard', 'variant', 'standard-web']);
		assert.deepEqual(m.lanesOf('in-host', ['Views', 'lists agents [web]']), ['standard', 'standard-web']);
		assert.deepEqual(m.lanesOf('ui', ['a journey']), ['standard-ui']);
		assert.deepEqual(m.lanesOf('ui', ['a journey [variant]']), ['standard-ui', 'variant']);
		// No web lane for UI tests (those are test:web's), no variant-web lane at all.
		assert.deepEqual(m.lanesOf('ui', ['a journey [variant] [web]']), ['standard-ui', 'variant']);
	});

	test("a suite file's tests are read with their suites' titles; a title that is not a literal is refused", () => {
		const file = join(dir, 'x.test.ts');
		writeFileSync(
			file,
			[
				"suite('Outer [variant]', () => {",
				'\tsetup(() => undefined);',
				"\ttest('one [web]', async () => undefined);",
				'\tsuite("inner", function () { test(`two`, () => { const test = (s: string) => s; test(\'not a test call of mocha\'); }); });',
				'});',
			].join('\n'),
		);
		const tests = m.suiteTests(file);
		assert.deepEqual(tests, [
			['Outer [variant]', 'one [web]'],
			['Outer [variant]', 'inner', 'two'],
		]);
		writeFileSync(file, "const name = 'x';\nsuite(name, () => { test('a', () => undefined); });\n");
		assert.throws(() => m.suiteTests(file), /not a literal/);
	});

	test("test/README.md's matrix is what the tests' tags say, and every row gives its reason (npm run lanes writes the counts)", () => {
		const readme = readFileSync(join(ROOT, 'test', 'README.md'), 'utf8');
		const matrix = readme.slice(readme.indexOf(m.MATRIX_START), readme.indexOf(m.MATRIX_END));
		const reasons = m.matrixReasons(matrix);
		const rows = m.laneMatrix(ROOT);
		assert.ok(rows.length > 40, `${rows.length} rows`);
		const missing = rows.filter((r) => !reasons.get(r.name)).map((r) => r.name);
		assert.deepEqual(missing, [], 'rows without a reason');
		assert.equal(m.withMatrix(readme, m.matrixMarkdown(rows, reasons)), readme, 'the matrix is out of date: npm run lanes');
	});

	test('a tag moved in a source changes its row (the check can fail)', () => {
		const rows = m.laneMatrix(ROOT);
		const reasons = new Map(rows.map((r) => [r.name, 'because']));
		const before = m.matrixMarkdown(rows, reasons);
		const changed = rows.map((r, i) => (i === 0 ? { ...r, counts: { ...r.counts, variant: r.counts.variant === 0 ? 1 : 0 } } : r));
		assert.notEqual(m.matrixMarkdown(changed, reasons), before);
	});

	test('the web lane runs few enough tests to stay a lane of its own journeys (no suite whole unless every test differs there)', () => {
		const rows = m.laneMatrix(ROOT).filter((r) => r.kind === 'in-host');
		const web = rows.reduce((n, r) => n + (r.counts['standard-web'] ?? 0), 0);
		const all = rows.reduce((n, r) => n + r.tests, 0);
		assert.ok(web * 4 < all, `${web} of ${all} in-host tests in the web lane`);
	});
});
