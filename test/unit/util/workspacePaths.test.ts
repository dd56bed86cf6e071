import * as assert from 'node:assert/strict';
import { baseName, isSameOrBelow, joinPath, normalizeWorkspacePath, parentPath, WorkspacePathError } from '../../../src/util/paths';

suite('util/paths: workspace paths', () => {
	test('normalises URI paths to workspace paths (leading slash, empty and "." segments dropped)', () => {
		assert.equal(normalizeWorkspacePath('/'), '');
		assert.equal(normalizeWorkspacePath(''), '');
		assert.equal(normalizeWorkspacePath('/src/lib/util.ts'), 'src/lib/util.ts');
		assert.equal(normalizeWorkspacePath('//src/./lib//util.ts/'), 'src/lib/util.ts');
		assert.equal(normalizeWorkspacePath('/naïve ✓.md'), 'naïve ✓.md');
	});

	test('refuses escapes from the root, backslashes and NUL with a stable problem code', () => {
		const problem = (p: string): string | undefined => {
			try {
				normalizeWorkspacePath(p);
				return undefined;
			} catch (err) {
				assert.ok(err instanceof WorkspacePathError);
				return err.problem;
			}
		};
		assert.equal(problem('/../etc/passwd'), 'escape');
		assert.equal(problem('/src/../../x'), 'escape');
		assert.equal(problem('/src/..'), 'escape');
		assert.equal(problem('/a\\b'), 'backslash');
		assert.equal(problem('/a\0b'), 'nul');
		assert.equal(problem('/src/..x/ok'), undefined, '"..x" is an ordinary name');
	});

	test('refuses paths over 4,096 UTF-8 bytes and accepts exactly 4,096', () => {
		assert.equal(normalizeWorkspacePath(`/${'a'.repeat(4096)}`).length, 4096);
		assert.throws(
			() => normalizeWorkspacePath(`/${'a'.repeat(4097)}`),
			(err: unknown) => err instanceof WorkspacePathError && err.problem === 'too_long',
		);
		// 2,049 two-byte characters are 4,098 bytes.
		assert.throws(() => normalizeWorkspacePath(`/${'é'.repeat(2049)}`), WorkspacePathError);
	});

	test('parent, base name, join and ancestry', () => {
		assert.equal(parentPath('a/b/c'), 'a/b');
		assert.equal(parentPath('a'), '');
		assert.equal(baseName('a/b/c'), 'c');
		assert.equal(joinPath('', 'x'), 'x');
		assert.equal(joinPath('a', 'x'), 'a/x');
		assert.ok(isSameOrBelow('a/b', 'a'));
		assert.ok(isSameOrBelow('a', 'a'));
		assert.ok(!isSameOrBelow('ab', 'a'));
		assert.ok(isSameOrBelow('anything', ''));
	});
});
