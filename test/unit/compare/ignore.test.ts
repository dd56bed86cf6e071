/**
 * Ignore rules of a comparison (issue 21): the root and nested `.gitignore` files (a nested one
 * applies below its folder, negation included), `files.exclude` globs, the always-ignored names,
 * and the bounds on `.gitignore` files.
 */
import * as assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ALWAYS_IGNORED, IgnoreRules, MAX_GITIGNORE_BYTES, excludeGlobToGitignore } from '../../../src/compare/ignore';

suite('compare/ignore: .gitignore, files.exclude and the always-ignored names', () => {
	let root: string;

	suiteSetup(async () => {
		root = await mkdtemp(join(tmpdir(), 'ca-compare-ignore-'));
		await writeFile(join(root, '.gitignore'), '# root rules\n*.log\nbuild/\n/top-only.txt\nsecret*\n!secret-ok.md\n');
		await mkdir(join(root, 'pkg', 'deep'), { recursive: true });
		await writeFile(join(root, 'pkg', '.gitignore'), '!keep.log\ngenerated/\n*.tmp\n');
		await writeFile(join(root, 'pkg', 'deep', '.gitignore'), 'local-only.txt\n');
		await mkdir(join(root, 'big'), { recursive: true });
		await writeFile(join(root, 'big', '.gitignore'), `${'#'.repeat(MAX_GITIGNORE_BYTES)}\n*.txt\n`);
	});
	suiteTeardown(async () => {
		await rm(root, { recursive: true, force: true });
	});

	test('the root .gitignore applies at every depth; a leading slash anchors; negation un-ignores', async () => {
		const rules = await IgnoreRules.load(root, {});
		assert.equal(rules.ignores('a.log', false), true);
		assert.equal(rules.ignores('x/y/a.log', false), true);
		assert.equal(rules.ignores('build', true), true);
		assert.equal(rules.ignores('src/build', true), true);
		assert.equal(rules.ignores('src/build/out.js', false), true, 'inside an ignored folder');
		assert.equal(rules.ignores('build', false), false, 'build/ matches folders only');
		assert.equal(rules.ignores('top-only.txt', false), true);
		assert.equal(rules.ignores('sub/top-only.txt', false), false);
		assert.equal(rules.ignores('secret.md', false), true);
		assert.equal(rules.ignores('secret-ok.md', false), false);
		assert.equal(rules.ignores('src/index.ts', false), false);
	});

	test('a nested .gitignore applies below its own folder only, and can negate a rule from above', async () => {
		const rules = await IgnoreRules.load(root, {});
		assert.equal(rules.ignores('pkg/keep.log', false), false, 'negated in pkg/.gitignore');
		assert.equal(rules.ignores('pkg/other.log', false), true);
		assert.equal(rules.ignores('keep.log', false), true, 'the negation does not reach above pkg/');
		assert.equal(rules.ignores('pkg/generated', true), true);
		assert.equal(rules.ignores('pkg/sub/generated/x.ts', false), true);
		assert.equal(rules.ignores('generated/x.ts', false), false);
		assert.equal(rules.ignores('pkg/a.tmp', false), true);
		assert.equal(rules.ignores('a.tmp', false), false);
		assert.equal(rules.ignores('pkg/deep/local-only.txt', false), true);
		assert.equal(rules.ignores('pkg/local-only.txt', false), false);
	});

	test('a .gitignore over 256 KiB is not applied', async () => {
		const rules = await IgnoreRules.load(root, {});
		assert.equal(rules.ignores('big/a.txt', false), false);
	});

	test('files.exclude globs (converted to gitignore lines) apply; a glob without a slash matches at the top only', async () => {
		assert.deepEqual(excludeGlobToGitignore('**/*.pyc'), ['**/*.pyc']);
		assert.deepEqual(excludeGlobToGitignore('**/{a,b}.txt'), ['**/a.txt', '**/b.txt']);
		assert.deepEqual(excludeGlobToGitignore('out'), ['/out']);
		const rules = await IgnoreRules.load(root, { exclude: ['**/*.pyc', '**/.idea', 'out', 'docs/**/*.bak', '**/{x,y}.dat'] });
		assert.equal(rules.ignores('m.pyc', false), true);
		assert.equal(rules.ignores('a/b/m.pyc', false), true);
		assert.equal(rules.ignores('a/.idea', true), true);
		assert.equal(rules.ignores('out', true), true);
		assert.equal(rules.ignores('src/out', true), false);
		assert.equal(rules.ignores('docs/a/b.bak', false), true);
		assert.equal(rules.ignores('src/b.bak', false), false);
		assert.equal(rules.ignores('q/y.dat', false), true);
		assert.equal(rules.ignores('q/z.dat', false), false);
		const none = await IgnoreRules.load(root, {});
		assert.equal(none.ignores('m.pyc', false), false);
	});

	test('always ignored: .git/, node_modules/, .svn/, .hg/, .DS_Store, __pycache__/, .venv/ at any depth, without any setting', async () => {
		assert.deepEqual([...ALWAYS_IGNORED], ['.git/', 'node_modules/', '.svn/', '.hg/', '.DS_Store', '__pycache__/', '.venv/']);
		const rules = await IgnoreRules.load(undefined, {});
		for (const dir of ['.git', 'node_modules', '.svn', '.hg', '__pycache__', '.venv']) {
			assert.equal(rules.ignores(dir, true), true, dir);
			assert.equal(rules.ignores(`a/${dir}`, true), true, dir);
			assert.equal(rules.ignores(`a/${dir}/x/y.js`, false), true, dir);
		}
		assert.equal(rules.ignores('.DS_Store', false), true);
		assert.equal(rules.ignores('a/.DS_Store', false), true);
		assert.equal(rules.ignores('.gitignore', false), false);
		assert.equal(rules.ignores('src/git.ts', false), false);
	});
});
