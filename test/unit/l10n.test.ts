/**
 * Localisation (issue 42, item 16): every text a person reads can be translated without touching
 * the code. package.json's texts are `%key%` references to package.nls.json; the code's go through
 * `vscode.l10n.t`, whose messages the build exports to l10n/bundle.l10n.json (esbuild.mjs,
 * scripts/lib/l10nBundle.mjs). A translator adds package.nls.<lang>.json and
 * l10n/bundle.l10n.<lang>.json. This fails on a literal that bypasses either.
 *
 * The scan of src/ reads the sources with TypeScript's parser and looks where a text reaches the
 * screen: the message functions (VS Code's and our wrappers in src/views/ui.ts and
 * src/messages/errors.ts), progress titles and messages, input boxes and quick picks, status bar items,
 * tree items, validators, the HTML of the webviews. Not scanned: src/api/ and the wire's halves in
 * the platforms' rooms (src/platform/node/network.ts, src/platform/web/fetchWire.ts), which may not
 * import vscode, and the webview pages (src/webviews/pages/), whose texts the extension hands them
 * translated. The modules without vscode (src/api/, the comparison engine, the workspace file
 * system's errors) cannot call l10n.t: their English is left as it is (where such a text is in a
 * place scanned here, ALLOWED says so).
 */
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as ts from 'typescript';
import { NLS_REFERENCE, readNls, readRawManifest } from './support/manifest';
import { WIRE_HALVES } from './support/wireHalves';

// Compiled to out/test/unit/, so the repository root is three levels up.
const root = join(__dirname, '..', '..', '..');

type Json = Record<string, unknown>;

const asList = (v: unknown): Json[] => (Array.isArray(v) ? (v as Json[]) : []);
const asObject = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

/**
 * The contribution points a person reads nothing of but through other entries: a menu item shows
 * its command's title (or its submenu's label), a keybinding its command's.
 */
const NO_TEXT = new Set(['menus', 'keybindings']);

/** What the Settings editor shows of a setting. */
const SETTING_TEXTS = [
	'description',
	'markdownDescription',
	'deprecationMessage',
	'markdownDeprecationMessage',
	'enumDescriptions',
	'markdownEnumDescriptions',
	'enumItemLabels',
];

/**
 * The fields of package.json a person reads, as [where, value], by contribution point; undefined
 * for a contribution point this does not know (the test then asks to be taught it). A language-model
 * tool's `modelDescription` and the descriptions of its `inputSchema` are left literal: they are the
 * prompt a model reads (which it was tuned on), not text shown to a person; `displayName` and
 * `userDescription` are what the chat shows.
 */
function userVisibleFields(manifest: Json): Array<[string, unknown]> | undefined {
	const out: Array<[string, unknown]> = [];
	const take = (where: string, entry: Json, fields: string[]): void => {
		for (const field of fields.filter((f) => f in entry)) {
			const value = entry[field];
			if (Array.isArray(value)) {
				value.forEach((v, i) => out.push([`${where}.${field}[${i}]`, v]));
			} else {
				out.push([`${where}.${field}`, value]);
			}
		}
	};
	take('', manifest, ['displayName', 'description']);
	const contributes = asObject(manifest.contributes);
	for (const [point, value] of Object.entries(contributes)) {
		const at = `contributes.${point}`;
		switch (point) {
			case 'commands':
				asList(value).forEach((c, i) => take(`${at}[${i}]`, c, ['title', 'shortTitle', 'category']));
				break;
			case 'viewsContainers':
				Object.entries(asObject(value)).forEach(([where, list]) =>
					asList(list).forEach((c, i) => take(`${at}.${where}[${i}]`, c, ['title'])),
				);
				break;
			case 'views':
				Object.entries(asObject(value)).forEach(([where, list]) =>
					asList(list).forEach((v, i) => take(`${at}.${where}[${i}]`, v, ['name', 'contextualTitle'])),
				);
				break;
			case 'viewsWelcome':
				asList(value).forEach((w, i) => take(`${at}[${i}]`, w, ['contents']));
				break;
			case 'configuration':
				(Array.isArray(value) ? asList(value) : [asObject(value)]).forEach((c, i) => {
					take(`${at}[${i}]`, c, ['title']);
					for (const [name, p] of Object.entries(asObject(c.properties))) {
						take(`${at}[${i}].${name}`, asObject(p), SETTING_TEXTS);
					}
				});
				break;
			case 'authentication':
				asList(value).forEach((a, i) => take(`${at}[${i}]`, a, ['label']));
				break;
			case 'submenus':
				asList(value).forEach((s, i) => take(`${at}[${i}]`, s, ['label']));
				break;
			case 'resourceLabelFormatters':
				asList(value).forEach((f, i) => take(`${at}[${i}].formatting`, asObject(f.formatting), ['workspaceSuffix']));
				break;
			case 'languageModelTools':
				asList(value).forEach((t, i) => take(`${at}[${i}]`, t, ['displayName', 'userDescription']));
				break;
			case 'walkthroughs':
				asList(value).forEach((w, i) => {
					take(`${at}[${i}]`, w, ['title', 'description']);
					asList(w.steps).forEach((s, j) => {
						take(`${at}[${i}].steps[${j}]`, s, ['title', 'description']);
						take(`${at}[${i}].steps[${j}].media`, asObject(s.media), ['altText']);
					});
				});
				break;
			default:
				if (!NO_TEXT.has(point)) {
					return undefined;
				}
		}
	}
	return out;
}

/** Every `%key%` reference anywhere in `value`. */
function referencesIn(value: unknown): string[] {
	if (typeof value === 'string') {
		const key = NLS_REFERENCE.exec(value)?.[1];
		return key === undefined ? [] : [key];
	}
	if (typeof value === 'object' && value !== null) {
		return Object.values(value).flatMap(referencesIn);
	}
	return [];
}

/** A literal found where a person reads it. */
interface Finding {
	file: string;
	line: number;
	/** Where it goes: the function, constructor or property. */
	sink: string;
	/** Its text: the static parts of a template, `${…}` for each substitution. */
	text: string;
}

/** What the scan of a source file finds. */
interface Scan {
	/** User-visible literals that bypass l10n.t. */
	literals: Finding[];
	/** The message of each `l10n.t(...)` call. */
	messages: string[];
	/** Messages the bundle's export cannot see: `l10n.t` with no literal message, or passed as a value; another `.t('…')`. */
	unseen: Finding[];
}

/**
 * Calls whose arguments from the first index to the last (inclusive) are read by a person: VS
 * Code's (by their name, whatever object they are reached through) and our wrappers of them.
 */
const CALL_SINKS: ReadonlyMap<string, [number, number]> = new Map([
	['showInformationMessage', [0, Infinity]],
	['showWarningMessage', [0, Infinity]],
	['showErrorMessage', [0, Infinity]],
	['showQuickPick', [0, 0]],
	['setStatusBarMessage', [0, 0]],
	['createOutputChannel', [0, 0]],
	['createWebviewPanel', [1, 1]],
	['createSourceControl', [1, 1]],
	['createResourceGroup', [1, 1]],
	['registerAuthenticationProvider', [1, 1]],
	// src/views/ui.ts
	['showInfo', [0, Infinity]],
	['showWarning', [0, Infinity]],
	['showModalWarning', [0, Infinity]],
	['showModalQuestion', [0, Infinity]],
	['confirmUnlessTold', [1, 3]],
	// src/messages/errors.ts
	['showUnreachable', [0, 0]],
	['showApiError', [2, 2]],
]);

/** Constructors whose argument at the index is read by a person. */
const NEW_SINKS: ReadonlyMap<string, number> = new Map([
	['TreeItem', 0],
	['MarkdownString', 0],
	['Diagnostic', 1],
]);

/**
 * Properties (in an object literal, or assigned) a person reads: of message items, progress, input
 * boxes and quick picks and their items, status bar items, tree items, chat tools' invocations.
 */
const PROPERTY_SINKS = new Set([
	'title',
	'placeHolder',
	'placeholder',
	'prompt',
	'validationMessage',
	'tooltip',
	'text',
	'label',
	'description',
	'detail',
	'message',
	'invocationMessage',
]);

/** Functions (as properties) whose returned text is shown as an input's validation message. */
const VALIDATORS = new Set(['validateInput', 'validate']);

type Literal = ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateExpression;

/** The literals an expression shows as written: itself, or the branches, operands or elements it is made of. */
function literalsOf(node: ts.Expression): Literal[] {
	if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
		return [node];
	}
	if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) || ts.isSpreadElement(node)) {
		return literalsOf(node.expression);
	}
	if (ts.isConditionalExpression(node)) {
		return [...literalsOf(node.whenTrue), ...literalsOf(node.whenFalse)];
	}
	if (ts.isArrayLiteralExpression(node)) {
		return node.elements.flatMap(literalsOf);
	}
	const joins = [
		ts.SyntaxKind.PlusToken,
		ts.SyntaxKind.QuestionQuestionToken,
		ts.SyntaxKind.BarBarToken,
		ts.SyntaxKind.AmpersandAmpersandToken,
	];
	if (ts.isBinaryExpression(node) && joins.includes(node.operatorToken.kind)) {
		return [...literalsOf(node.left), ...literalsOf(node.right)];
	}
	return [];
}

/** What a literal shows: its text, or a template's static parts with `${…}` for each substitution. */
function staticText(literal: Literal): string {
	return ts.isTemplateExpression(literal)
		? [literal.head.text, ...literal.templateSpans.map((s) => s.literal.text)].join('${…}')
		: literal.text;
}

/** True when a text has words to translate: a letter, once codicons (`$(sync~spin)`) and placeholders are taken out. */
function hasWords(text: string): boolean {
	return /\p{L}/u.test(text.replace(/\$\([\w~-]+\)/g, '').replace(/\$\{…\}|\{\d+\}/g, ''));
}

/**
 * The texts of a literal that is HTML markup (a webview's page, src/webviews/*): its text between
 * tags, and the attributes a person reads (`title`, `aria-label`, `placeholder`, `alt`).
 */
function markupTexts(text: string): string[] {
	if (!/<[a-zA-Z!/]/.test(text)) {
		return [];
	}
	const between = [...text.matchAll(/>([^<>]*)</g)].map((m) => m[1]!.trim());
	const attributes = [...text.matchAll(/\b(?:title|aria-label|placeholder|alt)="([^"]*)"/g)].map((m) => m[1]!);
	return [...between, ...attributes].filter(hasWords);
}

/** `vscode.l10n` or `l10n` (a parameter given `vscode.l10n`, as src/views/timeText.ts's). */
function isL10n(node: ts.Expression): boolean {
	return (ts.isIdentifier(node) && node.text === 'l10n') || (ts.isPropertyAccessExpression(node) && node.name.text === 'l10n');
}

/** The name a call or `new` is known by: `showInformationMessage` of `vscode.window.showInformationMessage`. */
function calleeName(node: ts.Expression): string {
	return ts.isPropertyAccessExpression(node) ? node.name.text : ts.isIdentifier(node) ? node.text : '';
}

/** The expressions a validator function returns (not those of functions nested in it). */
function returnedBy(fn: ts.Expression): ts.Expression[] {
	if (!ts.isArrowFunction(fn) && !ts.isFunctionExpression(fn)) {
		return [];
	}
	if (!ts.isBlock(fn.body)) {
		return [fn.body];
	}
	const found: ts.Expression[] = [];
	const visit = (node: ts.Node): void => {
		if (ts.isReturnStatement(node) && node.expression) {
			found.push(node.expression);
		}
		if (!ts.isFunctionLike(node)) {
			ts.forEachChild(node, visit);
		}
	};
	ts.forEachChild(fn.body, visit);
	return found;
}

/** Scans one source file (`file` names it in the findings). */
function scanSource(file: string, text: string): Scan {
	const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
	const scan: Scan = { literals: [], messages: [], unseen: [] };
	const line = (node: ts.Node): number => source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
	const report = (expr: ts.Expression | undefined, sink: string): void => {
		for (const literal of expr === undefined ? [] : literalsOf(expr)) {
			const shown = staticText(literal);
			if (hasWords(shown)) {
				scan.literals.push({ file, line: line(literal), sink, text: shown });
			}
		}
	};
	const unseen = (node: ts.Node, sink: string): void => {
		scan.unseen.push({ file, line: line(node), sink, text: node.getText(source) });
	};
	const visitCall = (node: ts.CallExpression): void => {
		const callee = node.expression;
		const first = node.arguments[0];
		if (ts.isPropertyAccessExpression(callee) && callee.name.text === 't') {
			if (!isL10n(callee.expression)) {
				if (first !== undefined && literalsOf(first).length > 0) {
					unseen(node, 'a translator other than l10n.t');
				}
			} else if (first !== undefined && (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first))) {
				scan.messages.push(first.text);
			} else {
				unseen(node, 'l10n.t without a literal message');
			}
		}
		const [from, to] = CALL_SINKS.get(calleeName(callee)) ?? [0, -1];
		node.arguments.slice(from, to + 1).forEach((arg) => report(arg, calleeName(callee)));
	};
	const visit = (node: ts.Node): void => {
		if (ts.isCallExpression(node)) {
			visitCall(node);
		} else if (ts.isNewExpression(node)) {
			const index = NEW_SINKS.get(calleeName(node.expression));
			report(index === undefined ? undefined : node.arguments?.[index], `new ${calleeName(node.expression)}`);
		} else if (ts.isPropertyAssignment(node) && (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name))) {
			if (PROPERTY_SINKS.has(node.name.text)) {
				report(node.initializer, node.name.text);
			}
			if (VALIDATORS.has(node.name.text)) {
				returnedBy(node.initializer).forEach((r) => report(r, node.name.getText(source)));
			}
		} else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken) {
			if (ts.isPropertyAccessExpression(node.left) && PROPERTY_SINKS.has(node.left.name.text)) {
				report(node.right, node.left.name.text);
			}
		} else if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) {
			scan.literals.push(...markupTexts(staticText(node)).map((shown) => ({ file, line: line(node), sink: 'HTML', text: shown })));
		} else if (ts.isPropertyAccessExpression(node) && node.name.text === 't' && isL10n(node.expression)) {
			if (!ts.isCallExpression(node.parent) || node.parent.expression !== node) {
				unseen(node, 'l10n.t passed as a value (its calls are not spelled l10n.t)');
			}
		}
		ts.forEachChild(node, visit);
	};
	visit(source);
	return scan;
}

/** The files of src/ the scan reads (see the header: not src/api/ and the wire's halves, not the webview pages). */
function sourceFiles(): string[] {
	return readdirSync(join(root, 'src'), { recursive: true, encoding: 'utf8' })
		.map((f) => `src/${f.split('\\').join('/')}`)
		.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && !f.endsWith('.gen.ts'))
		.filter(
			(f) =>
				!f.startsWith('src/api/') && !f.startsWith('src/base/') && !WIRE_HALVES.includes(f) && !f.startsWith('src/webviews/pages/'),
		)
		.sort();
}

/**
 * Literals that are shown as they are, on purpose: each with why. A new entry needs a reason of
 * the same kind (a name, an example value to type, a module that cannot reach l10n.t), not "later".
 */
const ALLOWED: ReadonlyArray<{ file: string; text: string; why: string }> = [
	{ file: 'src/shell/standIns.ts', text: 'Cloud Agents', why: 'the product name (the log channel)' },
	...['api.example.com', '/v1/*', 'Authorization', 'api_key', 'Bearer ${credential}', '${credential}', '/home/agent/.config/token'].map(
		(text) => ({ file: 'src/resources/secretStubs.ts', text, why: 'an example of what to type (a host, path, header or template)' }),
	),
	{
		file: 'src/compare/engine.ts',
		text: 'Listing local ${…}…',
		why: 'the comparison engine imports no vscode (plain Node and browser): its progress and notes are English, as src/api’s errors',
	},
];

let scans: Map<string, Scan>;
const scanAll = (): Map<string, Scan> =>
	(scans ??= new Map(sourceFiles().map((f) => [f, scanSource(f, readFileSync(join(root, f), 'utf8'))] as const)));
const where = (f: Finding): string => `${f.file}:${f.line} (${f.sink}) ${JSON.stringify(f.text)}`;

suite('localisation (issue 42, item 16)', () => {
	test('package.json: every text a person reads is a %key% of package.nls.json, which has no key nothing refers to', () => {
		const manifest = asObject(readRawManifest(root));
		const nls = readNls(root);
		const fields = userVisibleFields(manifest);
		assert.ok(fields, `contributes has a point this test does not know: ${Object.keys(asObject(manifest.contributes)).join(', ')}`);
		assert.ok(fields.length > 100, `${fields.length} fields`);
		const literal = fields.filter(([, v]) => typeof v !== 'string' || NLS_REFERENCE.exec(v)?.[1] === undefined);
		assert.deepEqual(literal, [], 'texts written in package.json instead of package.nls.json');
		const referred = referencesIn(manifest);
		assert.deepEqual(
			referred.filter((k) => typeof nls[k] !== 'string' || nls[k] === ''),
			[],
			'keys package.nls.json does not define',
		);
		assert.deepEqual(
			Object.keys(nls).filter((k) => !referred.includes(k)),
			[],
			'keys of package.nls.json nothing refers to',
		);
		// A translation may leave keys out (VS Code shows the English), but no key of its own.
		for (const file of readdirSync(root).filter((f) => /^package\.nls\.[\w-]+\.json$/.test(f))) {
			const translated = JSON.parse(readFileSync(join(root, file), 'utf8')) as Record<string, unknown>;
			assert.deepEqual(
				Object.keys(translated).filter((k) => !(k in nls)),
				[],
				`${file}: keys package.nls.json does not have`,
			);
		}
	});

	test('src/: no text a person reads bypasses vscode.l10n.t (messages, progress, input boxes, quick picks, status bar, tree items, validators, webview HTML)', () => {
		const found = [...scanAll().values()].flatMap((s) => s.literals);
		const allowed = (f: Finding): boolean => ALLOWED.some((a) => a.file === f.file && a.text === f.text);
		assert.deepEqual(found.filter((f) => !allowed(f)).map(where), [], 'wrap these in vscode.l10n.t (with {0} for arguments)');
		assert.deepEqual(
			ALLOWED.filter((a) => !found.some((f) => f.file === a.file && f.text === a.text)),
			[],
			'allowed literals no longer found: remove them from ALLOWED',
		);
	});

	test('src/: every vscode.l10n.t message is a literal, called as l10n.t (what the bundle’s export finds)', () => {
		const unseen = [...scanAll().values()].flatMap((s) => s.unseen);
		assert.deepEqual(unseen.map(where), []);
		const messages = new Set([...scanAll().values()].flatMap((s) => s.messages));
		assert.ok(messages.size > 800, `${messages.size} messages`);
	});

	test('the l10n bundle the build writes (scripts/lib/l10nBundle.mjs) holds exactly the l10n.t messages of src/', async function () {
		this.timeout(60_000);
		const lib = pathToFileURL(join(root, 'scripts', 'lib', 'l10nBundle.mjs')).href;
		const { l10nBundle } = (await import(lib)) as { l10nBundle: (srcDir: string) => Promise<Record<string, unknown>> };
		const bundle = await l10nBundle(join(root, 'src'));
		// The scan skips src/api/ and the pages, which hold no l10n.t call (they cannot import vscode).
		const messages = new Set([...scanAll().values()].flatMap((s) => s.messages));
		assert.deepEqual(Object.keys(bundle).sort(), [...messages].sort());
		assert.ok(
			Object.entries(bundle).every(([k, v]) => k === v),
			'message → message',
		);
		const manifest = asObject(readRawManifest(root));
		assert.equal(manifest.l10n, './l10n', 'package.json `l10n` names the folder of the bundles');
		assert.ok(existsSync(join(root, '.vscodeignore')));
		const ignore = readFileSync(join(root, '.vscodeignore'), 'utf8');
		for (const shipped of ['package.nls.json', 'l10n/bundle.l10n.json']) {
			assert.match(ignore, new RegExp(`^!${shipped.replace(/[.]/g, '\\.')}$`, 'm'), `the vsix ships ${shipped}`);
		}
	});

	test('the scan catches a literal at each kind of place, and lets l10n.t, codicons and punctuation through', () => {
		const code = [
			"import * as vscode from 'vscode';",
			"vscode.window.showInformationMessage('Agent deleted.', 'Undo');",
			"showModalWarning(vscode.l10n.t('Delete {0}?', name), 'It cannot be undone.', vscode.l10n.t('Delete'));",
			'void vscode.window.withProgress({ title: `Deleting ${name}…`, location }, work);',
			"box.placeholder = cond ? vscode.l10n.t('Name') : 'Name of the agent';",
			"item.text = '$(sync~spin)';",
			'item.tooltip = `${a} · ${b}`;',
			"const row = new vscode.TreeItem('Load more…');",
			"const input = { validate: (v: string) => (v === '' ? 'Type a name.' : undefined) };",
			'format(value, vscode.l10n.t);',
			'vscode.l10n.t(message);',
			"other.t('Hello');",
			"l10n.t('{0} mins ago', m);",
			'const body = `<button title="${t(vscode.l10n.t(\'Reload\'))}">Save</button><div aria-label="Remote desktop">${t(x)}</div>`;',
		].join('\n');
		const scan = scanSource('example.ts', code);
		assert.deepEqual(
			scan.literals.map((f) => `${f.line} ${f.sink} ${f.text}`),
			[
				'2 showInformationMessage Agent deleted.',
				'2 showInformationMessage Undo',
				'3 showModalWarning It cannot be undone.',
				'4 title Deleting ${…}…',
				'5 placeholder Name of the agent',
				'8 new TreeItem Load more…',
				'9 validate Type a name.',
				'14 HTML Save',
				'14 HTML Remote desktop',
			],
		);
		assert.deepEqual(
			scan.unseen.map((f) => `${f.line} ${f.sink}`),
			[
				'10 l10n.t passed as a value (its calls are not spelled l10n.t)',
				'11 l10n.t without a literal message',
				'12 a translator other than l10n.t',
			],
		);
		assert.deepEqual(scan.messages, ['Delete {0}?', 'Delete', 'Name', '{0} mins ago', 'Reload']);
	});
});
