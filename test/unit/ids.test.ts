/**
 * The strings shared between code and package.json (src/ids.ts): the derived context keys of the
 * list views, the prompt-source check, the command titles read from a manifest of any shape, and the
 * invariants of the id tables (distinct, in the extension's namespace, valid URI schemes). Whether
 * the manifest contributes each id: manifest.test.ts.
 */
import * as assert from 'node:assert/strict';
import {
	ALL_VIEW_IDS,
	COMMAND_IDS,
	CONTEXT_KEYS,
	EMPTY_SCHEME,
	FOLLOWED_RUNS_KEY,
	FS_SCHEME,
	IMAGE_SCHEME,
	LINKS_KEY,
	PROMPT_SOURCE_SCHEMES,
	RECORD_SCHEME,
	RUN_NOTIFIED_KEY,
	SEARCH_HINT_KEY,
	TAB_SCHEMES,
	TOOLS,
	TOOL_NAMES,
	VIEW_IDS,
	emptyViewContextKey,
	isPromptSource,
	manifestCommandTitles,
	waitingViewContextKey,
} from '../../src/ids';

const distinct = (values: readonly string[]): boolean => new Set(values).size === values.length;

suite('ids: view context keys', () => {
	test('each view has its own empty and waiting keys, derived from its id', () => {
		assert.equal(emptyViewContextKey(VIEW_IDS.agents), 'cloudAgents.agents.empty');
		assert.equal(waitingViewContextKey(VIEW_IDS.runs), 'cloudAgents.runs.waiting');
		const keys = ALL_VIEW_IDS.flatMap((id) => [emptyViewContextKey(id), waitingViewContextKey(id)]);
		assert.ok(distinct(keys), 'two views share a key');
	});

	test('no derived key is a view id or another context key (a when clause would read the wrong one)', () => {
		const others = new Set<string>([...ALL_VIEW_IDS, ...Object.values(CONTEXT_KEYS)]);
		for (const id of ALL_VIEW_IDS) {
			for (const key of [emptyViewContextKey(id), waitingViewContextKey(id)]) {
				assert.ok(!others.has(key), key);
			}
		}
	});
});

suite('ids: prompt sources', () => {
	test('files, untitled and remote documents and our agent workspace and records are sources', () => {
		for (const scheme of ['file', 'untitled', 'vscode-remote', FS_SCHEME, RECORD_SCHEME]) {
			assert.equal(isPromptSource(scheme), true, scheme);
		}
	});

	test('anything else is not: an image, the empty side of a diff, other case, empty, inherited names', () => {
		for (const scheme of [IMAGE_SCHEME, EMPTY_SCHEME, 'FILE', 'File', '', ' file', 'file:', 'constructor', '__proto__', 'has']) {
			assert.equal(isPromptSource(scheme), false, scheme);
		}
	});
});

suite('ids: command titles from a manifest', () => {
	test('keeps the well-formed entries, in order, and skips each malformed one on its own', () => {
		const manifest = {
			contributes: {
				commands: [
					{ command: 'a.one', title: 'One' },
					null,
					'a.two',
					{ command: 'a.three' },
					{ command: 'a.four', title: { original: 'Four' } },
					{ command: 'a.five', title: { value: 5 } },
					{ command: ['a.six'], title: 'Six' },
					{ command: 'a.seven', title: { value: 'Sieben', original: 'Seven' } },
					{ title: 'Eight' },
					{ command: 'a.nine', title: '' },
				],
			},
		};
		assert.deepEqual(
			[...manifestCommandTitles(manifest)],
			[
				['a.one', 'One'],
				['a.seven', 'Sieben'],
				['a.nine', ''],
			],
		);
	});

	test('a manifest whose commands are not an array, or whose contributes is not an object, has no titles', () => {
		for (const manifest of [
			{ contributes: { commands: { 0: { command: 'a.one', title: 'One' }, length: 1 } } },
			{ contributes: 'commands' },
			{ contributes: null },
			{ contributes: [{ command: 'a.one', title: 'One' }] },
			[],
			42,
		]) {
			assert.equal(manifestCommandTitles(manifest).size, 0, JSON.stringify(manifest));
		}
	});
});

suite('ids: the tables', () => {
	test('commands, views, tools and context and state keys are distinct and in the extension’s namespace', () => {
		for (const [name, values] of [
			['COMMAND_IDS', COMMAND_IDS],
			['ALL_VIEW_IDS', ALL_VIEW_IDS],
			['CONTEXT_KEYS', Object.values(CONTEXT_KEYS)],
			['state keys', [LINKS_KEY, SEARCH_HINT_KEY, RUN_NOTIFIED_KEY, FOLLOWED_RUNS_KEY]],
		] as const) {
			assert.ok(distinct(values), `${name} has a duplicate`);
			for (const v of values) {
				assert.match(v, /^cloudAgents\.[A-Za-z.]+$/, `${name}: ${v}`);
			}
		}
		assert.ok(distinct(TOOL_NAMES));
		for (const v of TOOL_NAMES) {
			assert.match(v, /^cloudAgents_[A-Za-z]+$/, v);
		}
	});

	test('the tools and views code names are contributed ones, each named once', () => {
		const tools = Object.values(TOOLS);
		assert.ok(distinct(tools));
		for (const t of tools) {
			assert.ok((TOOL_NAMES as readonly string[]).includes(t), t);
		}
		const views = Object.values(VIEW_IDS);
		assert.ok(distinct(views));
		for (const v of views) {
			assert.ok((ALL_VIEW_IDS as readonly string[]).includes(v), v);
		}
	});

	test('the tab and prompt-source schemes are distinct, lower-case URI schemes', () => {
		assert.ok(distinct(TAB_SCHEMES));
		for (const scheme of [...TAB_SCHEMES, ...PROMPT_SOURCE_SCHEMES]) {
			assert.match(scheme, /^[a-z][a-z0-9+.-]*$/, scheme);
		}
	});
});
