// Lint for the whole repository. TypeScript gets typescript-eslint's type-checked rules (errors for
// real bugs: floating promises, unsafe any flows, non-exhaustive switches); scripts get ESLint's
// recommended rules. No formatting rules. src/api/ must stay free of `vscode` (README "Developing": the layers).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** Node's globals for .js/.mjs scripts (the `globals` package is not a dependency). */
const nodeGlobals = Object.fromEntries(
	[
		'process',
		'console',
		'Buffer',
		'URL',
		'URLSearchParams',
		'fetch',
		'Response',
		'Request',
		'Headers',
		'AbortController',
		'AbortSignal',
		'TextDecoder',
		'TextEncoder',
		'structuredClone',
		'queueMicrotask',
		'setTimeout',
		'clearTimeout',
		'setInterval',
		'clearInterval',
		'setImmediate',
		'clearImmediate',
		'globalThis',
		'performance',
		'require',
		'module',
		'exports',
		'__dirname',
		'__filename',
		'crypto',
		'EventTarget',
		'Event',
		'Blob',
		'FormData',
		'WebSocket',
		'DOMException',
		'navigator',
	].map((name) => [name, 'readonly']),
);

export default tseslint.config(
	{
		ignores: [
			'**/node_modules/**',
			'out/**',
			'dist/**',
			'.cache/**',
			'.vscode-test/**',
			'test-results/**',
			'bench/.tmp/**',
			'src/api/schema.gen.ts',
			'**/*.d.ts',
			'**/dist/**',
		],
	},
	{
		linterOptions: { reportUnusedDisableDirectives: 'warn' },
	},
	js.configs.recommended,
	{
		files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
		languageOptions: { globals: nodeGlobals, ecmaVersion: 2023, sourceType: 'module' },
		rules: {
			'no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
			'no-empty': ['error', { allowEmptyCatch: true }],
		},
	},
	{
		files: ['**/*.cjs'],
		languageOptions: { sourceType: 'commonjs' },
	},
	{
		files: ['**/*.ts', '**/*.mts', '**/*.cts'],
		extends: [...tseslint.configs.recommendedTypeChecked],
		languageOptions: {
			parserOptions: {
				projectService: true,
				tsconfigRootDir: import.meta.dirname,
			},
		},
		rules: {
			'@typescript-eslint/no-floating-promises': 'error',
			'@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
			'@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
			'@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'separate-type-imports' }],
			'@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
			'@typescript-eslint/only-throw-error': 'error',
			'@typescript-eslint/require-await': 'off',
			'@typescript-eslint/no-unsafe-enum-comparison': 'off',
			// Braces where a body sits on its own line (the goto-fail bug); one-line guards may omit them.
			curly: ['error', 'multi-line'],
			eqeqeq: ['error', 'always', { null: 'ignore' }],
			'no-throw-literal': 'off',
			'no-undef': 'off',
		},
	},
	{
		// Tests assert on loosely typed JSON and use mocha's `this`; keep the bug-finding rules.
		files: ['test/**/*.ts', 'bench/**/*.ts'],
		rules: {
			'@typescript-eslint/no-unsafe-assignment': 'off',
			'@typescript-eslint/no-unsafe-member-access': 'off',
			'@typescript-eslint/no-non-null-assertion': 'off',
		},
	},
	{
		// Issue 41: "close all" asks whether to save a document left unsaved — a dialog nobody answers
		// in a test, so the teardown times out and the restore after it waits behind the dialog. The
		// suites close editors with closeAllEditors() (test/integration/support/editors.ts), which
		// reverts such a document first.
		files: ['test/integration/suite/**/*.ts'],
		rules: {
			'no-restricted-syntax': [
				'error',
				...['workbench.action.closeAllEditors', 'workbench.action.closeAllGroups'].flatMap((command) => [
					{
						selector: `Literal[value='${command}']`,
						message: `Call closeAllEditors() from test/integration/support/editors.ts instead of '${command}': it reverts an unsaved document first, so no "save?" dialog waits for an answer.`,
					},
					{
						selector: `TemplateElement[value.cooked='${command}']`,
						message: `Call closeAllEditors() from test/integration/support/editors.ts instead of '${command}': it reverts an unsaved document first, so no "save?" dialog waits for an answer.`,
					},
				]),
			],
		},
	},
	{
		// The API client is plain Node: no `vscode`, not even as a type (this core rule also sees
		// `import type`), and nothing from the layers above it. The wire's halves in the platforms'
		// rooms are the client's too.
		files: ['src/api/**/*.ts', 'src/platform/node/network.ts', 'src/platform/web/fetchWire.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: [{ name: 'vscode', message: 'src/api/ must not depend on vscode: take an AbortSignal and a Logger instead.' }],
					patterns: [
						{
							group: [
								'vscode/*',
								'**/extension',
								'**/shell/**',
								'**/flows/**',
								'**/views/**',
								'**/runFollowing/**',
								'**/workspace/**',
								'**/auth/**',
								'**/platform/**',
							],
							message: 'src/api/ sits at the bottom of the dependency graph.',
						},
					],
				},
			],
		},
	},
	{
		// The base floor (src/base/), below the client: what every floor uses. No `vscode`, and
		// nothing of src/ outside it.
		files: ['src/base/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: [{ name: 'vscode', message: 'src/base/ must not depend on vscode.' }],
					patterns: [
						{ group: ['vscode/*'], message: 'src/base/ must not depend on vscode.' },
						{ regex: '^\\.\\./', message: 'src/base/ imports nothing of src/ outside it: it is the floor below the client.' },
					],
				},
			],
		},
	},
	{
		// The comparison engine (issue 21) is unit-tested against the emulator without VS Code: no
		// `vscode`, not even as a type, and nothing from the layers that use it. Its local folder is a
		// seam (localFiles.ts), filled by each platform (src/platform/node/nodeLocalFiles.ts,
		// src/platform/web/workspaceLocalFiles.ts).
		files: ['src/compare/**/*.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: [{ name: 'vscode', message: 'src/compare/ must not depend on vscode: src/changes/ draws what it finds.' }],
					patterns: [
						{
							group: [
								'vscode/*',
								'**/extension',
								'**/shell/**',
								'**/flows/**',
								'**/views/**',
								'**/runFollowing/**',
								'**/workspace/**',
								'**/auth/**',
								'**/changes/**',
								'**/platform/**',
							],
							message:
								'src/compare/ takes only src/api and src/util; the UI layer (src/changes/) calls it, and each platform fills its local-folder seam (src/platform/).',
						},
					],
				},
			],
		},
	},
	{
		// The list model of the views is plain TypeScript, unit-tested in Node without VS Code
		// (test/unit/views/listModel.test.ts): no `vscode`, not even as a type, so none of the views'
		// other modules either (they use it); from below it only takes src/api and util/text.
		files: ['src/views/listModel.ts'],
		rules: {
			'no-restricted-imports': [
				'error',
				{
					paths: [{ name: 'vscode', message: 'src/views/listModel.ts must not depend on vscode: listTree.ts draws its rows.' }],
					patterns: [
						{
							group: ['vscode/*'],
							message: 'src/views/listModel.ts must not depend on vscode.',
						},
						{
							regex: '^\\.{1,2}/(?!api(/|$)|util/text$)',
							message: 'src/views/listModel.ts imports only src/api and src/util/text (the other modules use vscode).',
						},
					],
				},
			],
		},
	},
);
