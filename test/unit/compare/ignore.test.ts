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
import { LOCAL_SIDES } from '../support/localFolders';

/** Whether `rules` leave out `rel`, once the .gitignore files of its folder and above are read (as the engine does before testing a folder's entries). */
async function ignored(rules: IgnoreRules, rel: string, isDir: boolean): Promise<boolean> {
	await rules.prepare(rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '');
	return rules.ignores(rel, isDir);
}

for (const [side, localOf] of LOCAL_SIDES) {
	suite(`compare/ignore: .gitignore, files.exclude and the always-ignored names (the ${side} local side)`, () => {
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
			const rules = await IgnoreRules.load(localOf(root), {});
			assert.equal(await ignored(rules, 'a.log', false), true);
			assert.equal(await ignored(rules, 'x/y/a.log', false), true);
			assert.equal(await ignored(rules, 'build', true), true);
			assert.equal(await ignored(rules, 'src/build', true), true);
			assert.equal(await ignored(rules, 'src/build/out.js', false), true, 'inside an ignored folder');
			assert.equal(await ignored(rules, 'build', false), false, 'build/ matches folders only');
			assert.equal(await ignored(rules, 'top-only.txt', false), true);
			assert.equal(await ignored(rules, 'sub/top-only.txt', false), false);
			assert.equal(await ignored(rules, 'secret.md', false), true);
			assert.equal(await ignored(rules, 'secret-ok.md', false), false);
			assert.equal(await ignored(rules, 'src/index.ts', false), false);
		});

		test('a nested .gitignore applies below its own folder only, and can negate a rule from above', async () => {
			const rules = await IgnoreRules.load(localOf(root), {});
			assert.equal(await ignored(rules, 'pkg/keep.log', false), false, 'negated in pkg/.gitignore');
			assert.equal(await ignored(rules, 'pkg/other.log', false), true);
			assert.equal(await ignored(rules, 'keep.log', false), true, 'the negation does not reach above pkg/');
			assert.equal(await ignored(rules, 'pkg/generated', true), true);
			assert.equal(await ignored(rules, 'pkg/sub/generated/x.ts', false), true);
			assert.equal(await ignored(rules, 'generated/x.ts', false), false);
			assert.equal(await ignored(rules, 'pkg/a.tmp', false), true);
			assert.equal(await ignored(rules, 'a.tmp', false), false);
			assert.equal(await ignored(rules, 'pkg/deep/local-only.txt', false), true);
			assert.equal(await ignored(rules, 'pkg/local-only.txt', false), false);
		});

		test('a .gitignore over 256 KiB is not applied', async () => {
			const rules = await IgnoreRules.load(localOf(root), {});
			assert.equal(await ignored(rules, 'big/a.txt', false), false);
		});

		test('files.exclude globs (converted to gitignore lines) apply; a glob without a slash matches at the top only', async () => {
			assert.deepEqual(excludeGlobToGitignore('**/*.pyc'), ['**/*.pyc']);
			assert.deepEqual(excludeGlobToGitignore('**/{a,b}.txt'), ['**/a.txt', '**/b.txt']);
			assert.deepEqual(excludeGlobToGitignore('out'), ['/out']);
			const rules = await IgnoreRules.load(localOf(root), {
				exclude: ['**/*.pyc', '**/.idea', 'out', 'docs/**/*.bak', '**/{x,y}.dat'],
			});
			assert.equal(await ignored(rules, 'm.pyc', false), true);
			assert.equal(await ignored(rules, 'a/b/m.pyc', false), true);
			assert.equal(await ignored(rules, 'a/.idea', true), true);
			assert.equal(await ignored(rules, 'out', true), true);
			assert.equal(await ignored(rules, 'src/out', true), false);
			assert.equal(await ignored(rules, 'docs/a/b.bak', false), true);
			assert.equal(await ignored(rules, 'src/b.bak', false), false);
			assert.equal(await ignored(rules, 'q/y.dat', false), true);
			assert.equal(await ignored(rules, 'q/z.dat', false), false);
			const none = await IgnoreRules.load(localOf(root), {});
			assert.equal(await ignored(none, 'm.pyc', false), false);
		});

		test('a folder whose .gitignore files were not read yet cannot be tested (an error, never a silent "not ignored")', async () => {
			const rules = await IgnoreRules.load(localOf(root), {});
			assert.throws(() => rules.ignores('pkg/keep.log', false), /not prepared/);
			await rules.prepare('pkg');
			assert.equal(rules.ignores('pkg/keep.log', false), false);
		});

		test('always ignored: .git/, node_modules/, .svn/, .hg/, .DS_Store, __pycache__/, .venv/ at any depth, without any setting', async () => {
			assert.deepEqual([...ALWAYS_IGNORED], ['.git/', 'node_modules/', '.svn/', '.hg/', '.DS_Store', '__pycache__/', '.venv/']);
			const rules = await IgnoreRules.load(undefined, {});
			for (const dir of ['.git', 'node_modules', '.svn', '.hg', '__pycache__', '.venv']) {
				assert.equal(await ignored(rules, dir, true), true, dir);
				assert.equal(await ignored(rules, `a/${dir}`, true), true, dir);
				assert.equal(await ignored(rules, `a/${dir}/x/y.js`, false), true, dir);
			}
			assert.equal(await ignored(rules, '.DS_Store', false), true);
			assert.equal(await ignored(rules, 'a/.DS_Store', false), true);
			assert.equal(await ignored(rules, '.gitignore', false), false);
			assert.equal(await ignored(rules, 'src/git.ts', false), false);
		});
	});
}
