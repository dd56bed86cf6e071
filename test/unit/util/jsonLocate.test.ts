import assert from 'node:assert/strict';
import { locate, parseFieldPath } from '../../../src/util/jsonLocate';

suite('locating a member of a JSON text (src/util/jsonLocate.ts)', () => {
	const text = '{\n\t"display_name": "A",\n\t"endpoint": "http://x",\n\t"repos": [ {"branch": "main"}, {"branch": "b a d"} ]\n}\n';

	test('field paths: dotted with indexes, and JSON pointers', () => {
		assert.deepEqual(parseFieldPath('repos[1].branch'), ['repos', 1, 'branch']);
		assert.deepEqual(parseFieldPath('/repos/1/branch'), ['repos', 1, 'branch']);
		assert.deepEqual(parseFieldPath('endpoint'), ['endpoint']);
	});

	test('a top-level member spans its name and value; a nested one its own', () => {
		const endpoint = locate(text, ['endpoint']);
		assert.ok(endpoint?.exact);
		assert.equal(text.slice(endpoint.span.offset, endpoint.span.offset + endpoint.span.length), '"endpoint": "http://x"');
		const branch = locate(text, ['repos', 1, 'branch']);
		assert.ok(branch?.exact);
		assert.equal(text.slice(branch.span.offset, branch.span.offset + branch.span.length), '"branch": "b a d"');
	});

	test('a member that is not there: the deepest one on the way, or the start; text that is not JSON: nothing', () => {
		const missing = locate(text, ['repos', 1, 'nope']);
		assert.equal(missing?.exact, false);
		assert.equal(text.slice(missing.span.offset, missing.span.offset + 3), '{"b');
		const top = locate(text, ['model']);
		assert.deepEqual(top, { span: { offset: 0, length: 1 }, exact: false });
		assert.equal(locate('{"a": ', ['a']), undefined);
	});
});
