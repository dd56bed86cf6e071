import assert from 'node:assert/strict';
import { jsonSyntaxError, lineColumn, locate, parseFieldPath } from '../../../src/util/jsonFields';

suite('locating a member of a JSON text (src/util/jsonFields.ts)', () => {
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

	test('an array item spans its value; a path through a scalar stops at its member; strict JSON only', () => {
		const slice = (t: string, found: ReturnType<typeof locate>): string | undefined =>
			found && t.slice(found.span.offset, found.span.offset + found.span.length);
		const item = locate(text, ['repos', 0]);
		assert.equal(item?.exact, true);
		assert.equal(slice(text, item), '{"branch": "main"}');
		const through = locate(text, ['endpoint', 'host']);
		assert.equal(through?.exact, false);
		assert.equal(slice(text, through), '"endpoint": "http://x"');
		// A number names an array item, never an object member, as in the service's field paths.
		assert.equal(locate('{"0": 1}', [0])?.exact, false);
		const escaped = '{"a\\"b": [1, 2]}';
		assert.equal(slice(escaped, locate(escaped, ['a"b', 1])), '2');
		assert.deepEqual(locate(' [1] ', []), { span: { offset: 0, length: 4 }, exact: true });
		assert.deepEqual(locate('  {"a": 1}', ['b']), { span: { offset: 0, length: 1 }, exact: false });
		assert.equal(locate('{"a": 1, // note\n"b": 2}', ['b']), undefined);
		assert.equal(locate('{"a": 1,}', ['a']), undefined);
	});
});

suite('where JSON.parse refused a text (issue 20, item 9: the line of a document with a header)', () => {
	const refusal = (text: string): unknown => {
		try {
			JSON.parse(text);
		} catch (err) {
			return err;
		}
		assert.fail('parsed');
	};

	test('the offset V8 names, in this Node and in the message forms of other versions; the place words dropped', () => {
		const body = '{\n\t"a": 1,\n\t"b" 2\n}\n';
		const { reason, offset } = jsonSyntaxError(refusal(body), body.length);
		assert.equal(offset, body.indexOf('2'));
		assert.doesNotMatch(reason, /position|line \d|column/);
		assert.deepEqual(
			jsonSyntaxError(new SyntaxError(`Expected ':' after property name in JSON at position 16 (line 3 column 6)`), 30),
			{
				reason: "Expected ':' after property name",
				offset: 16,
			},
		);
		assert.deepEqual(jsonSyntaxError(new SyntaxError('Unexpected end of JSON input'), 30), {
			reason: 'Unexpected end of JSON input',
			offset: 30,
		});
		assert.deepEqual(jsonSyntaxError(new SyntaxError('odd'), 30), { reason: 'odd', offset: undefined });
	});

	test('a refusal that names no position (V8: "Unexpected token \'}\', … is not valid JSON") is placed where the text goes wrong', () => {
		const text = '{\n\t"model": \n}';
		const { offset } = jsonSyntaxError(refusal(text), text.length, text);
		assert.equal(offset, text.indexOf('}'), 'the value that is missing: at the closing brace (line 3), not the start');
		assert.deepEqual(lineColumn(text, offset), { line: 3, column: 1 });
	});

	test("a body after a header line: the line counted in the whole document is the body's line + 1", () => {
		const header = '// cloud-agents model provider: mp_x\n';
		const body = '{\n\t"a": 1,\n\t"b" 2\n}\n';
		const { offset } = jsonSyntaxError(refusal(body), body.length);
		// "b" 2 is the body's line 3, the document's line 4; the 2 is column 6 (a tab, "b", a space).
		assert.deepEqual(lineColumn(header + body, header.length + offset!), { line: 4, column: 6 });
		assert.deepEqual(lineColumn('abc', 0), { line: 1, column: 1 });
		assert.deepEqual(lineColumn('a\nbc', 3), { line: 2, column: 2 });
	});
});
