/**
 * The matches of a workspace search as the pick shows them: what a server's answer may hold and
 * what of it the user gets to open.
 */
import assert from 'node:assert/strict';
import { LIMITS } from '../../../../src/api';
import type { WorkspaceSearchMatch } from '../../../../src/api';
import { usableMatch, usableMatches } from '../../../../src/workspace/fs/searchMatches';

const match = (overrides: Record<string, unknown>): WorkspaceSearchMatch => ({
	path: 'src/a.ts',
	line: 3,
	column: 7,
	preview: 'const a = 1;',
	...overrides,
});

suite('fs/searchMatches', () => {
	test('paths are normalised; escapes, NULs and backslashes drop the match', () => {
		assert.equal(usableMatch(match({ path: '/src//./a.ts' }))?.path, 'src/a.ts');
		for (const path of ['../etc/passwd', 'src/../../x', 'a\u0000b', 'src\\a.ts', 42, undefined]) {
			assert.equal(usableMatch(match({ path })), undefined, JSON.stringify(path));
		}
		assert.equal(usableMatch(null as unknown as WorkspaceSearchMatch), undefined);
	});

	test('positions that are not whole numbers from 1 become 1; a preview that is not text becomes empty', () => {
		for (const bad of [0, -4, 2.5, '3', Number.MAX_SAFE_INTEGER + 2, null]) {
			const m = usableMatch(match({ line: bad, column: bad, preview: { html: '<b>' } }));
			assert.deepEqual([m?.line, m?.column, m?.preview], [1, 1, ''], JSON.stringify(bad));
		}
	});

	test('at most the documented maximum is considered, and more than it counts as truncated', () => {
		const many = Array.from({ length: LIMITS.searchMaxResults.max + 5 }, (_v, i) => match({ line: i + 1 }));
		const { matches, truncated } = usableMatches({ matches: many, truncated: false });
		assert.equal(matches.length, LIMITS.searchMaxResults.max);
		assert.equal(truncated, true);
		assert.deepEqual(usableMatches({ matches: [match({}), match({ path: '..' })], truncated: false }), {
			matches: [{ path: 'src/a.ts', line: 3, column: 7, preview: 'const a = 1;' }],
			truncated: false,
		});
		assert.equal(usableMatches({ matches: [match({})], truncated: true }).truncated, true, "the server's own flag is kept");
		assert.deepEqual(usableMatches({ matches: 'nope' as unknown as WorkspaceSearchMatch[], truncated: false }).matches, []);
	});
});
