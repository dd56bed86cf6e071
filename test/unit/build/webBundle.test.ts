/**
 * The web build (esbuild.mjs `webBuild`: dist/web/extension.js, for VS Code for the Web's extension
 * host, a web worker): no undici, nothing required but `vscode`, and Node built-ins only as the
 * empty stand-ins of the modules scripts/web-pending.json lists (issue 34: the list only shrinks),
 * and no Node-only global in the code of any other module.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeVscodeStub, vscodeApiNames } from '../support/vscodeStub';

const ROOT = join(__dirname, '..', '..', '..', '..');

interface Metafile {
	inputs: Record<string, { imports: Array<{ path: string; original?: string }> }>;
	outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }>;
}

/** A global the browser's extension host does not have; `allowedOn` tells a guarded use on its line. */
const NODE_GLOBALS: ReadonlyArray<{ name: string; use: RegExp; allowedOn?: RegExp }> = [
	{ name: 'Buffer', use: /(?<![.\w$])Buffer\b/ },
	{ name: '__dirname / __filename', use: /(?<![.\w$])__(dirname|filename)\b/ },
	{ name: 'setImmediate', use: /(?<![.\w$])(setImmediate|clearImmediate)\b/ },
	{ name: 'require.cache / require.resolve', use: /(?<![.\w$])require\.(cache|resolve)\b/ },
	// A browser's setTimeout returns a number: a timer's unref only as `?.unref()`.
	{ name: 'a timer unref without ?.', use: /(?<!\?)\.unref\(\)/ },
	// A use after a check of the extension host (`typeof process`, a desktop window) is never reached in a browser.
	{ name: 'process', use: /(?<![.\w$])process\./, allowedOn: /typeof process|UIKind\.Desktop &&/ },
];

suite('build: the web bundle (VS Code for the Web)', function () {
	this.timeout(120_000);
	let out: string;
	/** dist/web/extension.js: activation's stand-ins, with the body as text. */
	let bundle: string;
	/** The body's text (a development build writes it to dist/web/main.js too). */
	let body: string;
	/** The web build's metafiles: the bundle's and the body's. */
	let webMetafiles: Metafile[];
	let metafiles: Metafile[];
	const pending = (JSON.parse(readFileSync(join(ROOT, 'scripts', 'web-pending.json'), 'utf8')) as { modules: string[] }).modules;

	suiteSetup(() => {
		out = mkdtempSync(join(tmpdir(), 'ca-web-'));
		const meta = join(out, 'meta.json');
		// A development build: its `// src/…` markers tell which module each line of code is from.
		const r = spawnSync(process.execPath, [join(ROOT, 'esbuild.mjs'), `--outdir=${join(out, 'dist')}`, `--metafile=${meta}`], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		assert.equal(r.status, 0, `esbuild.mjs failed:\n${r.stdout}\n${r.stderr}`);
		bundle = readFileSync(join(out, 'dist', 'web', 'extension.js'), 'utf8');
		body = readFileSync(join(out, 'dist', 'web', 'main.js'), 'utf8');
		const all = JSON.parse(readFileSync(meta, 'utf8')) as Metafile[];
		metafiles = all;
		webMetafiles = all.filter((m) => Object.keys(m.outputs).some((o) => /web\/(extension|main)\.js$/.test(o)));
		assert.equal(webMetafiles.length, 2, 'the metafiles of the web bundle and of its body');
	});

	/** Every input of the web build (the bundle's and the body's). */
	const webInputs = (): Array<[string, { imports: Array<{ path: string; original?: string }> }]> =>
		webMetafiles.flatMap((m) => Object.entries(m.inputs));

	/** The bytes each input has in the outputs whose path matches `outputPattern`, over every build's metafile. */
	const bytesIn = (outputPattern: RegExp): Map<string, number> => {
		const bytes = new Map<string, number>();
		for (const m of metafiles) {
			for (const [output, { inputs }] of Object.entries(m.outputs)) {
				if (outputPattern.test(output)) {
					for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
						bytes.set(input, (bytes.get(input) ?? 0) + bytesInOutput);
					}
				}
			}
		}
		return bytes;
	};

	suiteTeardown(() => {
		rmSync(out, { recursive: true, force: true });
	});

	test('holds no undici and requires nothing but vscode', () => {
		const packages = webInputs()
			.map(([f]) => f)
			.filter((f) => f.includes('node_modules/undici/'));
		assert.deepEqual(packages, [], 'no undici module');
		const required = [...bundle.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
		assert.deepEqual([...new Set(required)], ['vscode']);
	});

	test('stands in for Node built-ins only in the modules still pending, each of which still imports one', () => {
		const importers = new Set<string>();
		for (const [file, input] of webInputs()) {
			if (input.imports.some((i) => i.path.startsWith('node-pending:'))) {
				importers.add(file);
			}
		}
		const outside = [...importers].filter((f) => !pending.includes(f));
		assert.deepEqual(outside, [], 'a module outside scripts/web-pending.json imports a Node built-in');
		const done = pending.filter((f) => !importers.has(f) && !/\bfrom 'node:|import\('node:/.test(readFileSync(join(ROOT, f), 'utf8')));
		assert.deepEqual(done, [], 'these modules import no Node built-in any more: take them off scripts/web-pending.json');
	});

	/**
	 * The body's text as the bundle's start reads it (esbuild.mjs webBodyAsText): the source text of
	 * the function the bundle ends with, between its comment's ends, each `~0` read as `~` and each
	 * `~1` (between `*` and `/`) taken out.
	 */
	function bodyFromBundle(): string {
		const stub = makeVscodeStub(vscodeApiNames(ROOT));
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the bundle under test
		const load = new Function('module', 'exports', 'require', `${bundle}\n;return __cloudAgentsWebBody;`) as (
			...args: unknown[]
		) => unknown;
		const holder = load({ exports: {} }, {}, () => stub) as () => void;
		const source = Function.prototype.toString.call(holder);
		return source.slice(source.indexOf('/*') + 2, source.lastIndexOf('*/')).replace(/~[01]/g, (m) => (m === '~0' ? '~' : ''));
	}

	/**
	 * Loads the bundle as the web worker extension host does (the text as a function of module,
	 * exports and require), then, with `startBody`, evaluates the body's text as its start does
	 * (esbuild.mjs webBodyAsText: `new Function` over it, then its `load()`); returns the modules the
	 * body evaluated, in order (esbuild's lazy module helper records each first init).
	 */
	function loadRecording(startBody: boolean): string[] {
		const stub = makeVscodeStub(vscodeApiNames(ROOT));
		const requireStub = (id: string): unknown => (id === 'vscode' ? stub : assert.fail(`the bundle required ${id}`));
		const mod = { exports: {} as Record<string, unknown> };
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the bundle under test
		const loadBundle = new Function('module', 'exports', 'require', bundle) as (...args: unknown[]) => void;
		loadBundle(mod, mod.exports, requireStub);
		assert.equal(typeof mod.exports.activate, 'function');
		if (!startBody) {
			return [];
		}
		const head = 'var __esm = (fn, res, err) => function __init() {';
		assert.ok(body.includes(head), "esbuild's lazy module helper is in the body");
		const evaluated: string[] = [];
		const recorded = body.replace(head, `${head}\n  if (fn) __evaluated.push(Object.getOwnPropertyNames(fn)[0]);`);
		const started = { exports: {} as { load?: () => { startWeb?: unknown } } };
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the body under test
		const loadBody = new Function('module', 'exports', 'require', '__evaluated', recorded) as (...args: unknown[]) => void;
		loadBody(started, started.exports, requireStub, evaluated);
		assert.deepEqual(
			evaluated.filter((m) => m.startsWith('src/')),
			[],
			'evaluating the text evaluates no module of the body yet',
		);
		assert.equal(typeof started.exports.load?.().startWeb, 'function');
		assert.ok(evaluated.includes('src/api/errors.ts'), `modules are seen being evaluated (${evaluated.length})`);
		return evaluated;
	}

	test("the bundle holds only what the Node build's activation holds (dist/extension.js: the stand-ins and the ids) and the body as text, evaluated when it starts", () => {
		const atActivation = new Set([...bytesIn(/dist\/extension\.js$/)].filter(([, n]) => n > 0).map(([input]) => input));
		const inBundle = [...bytesIn(/dist\/web\/extension\.js$/)]
			.filter(([input, n]) => n > 0 && input.startsWith('src/'))
			.map(([input]) => input);
		// The browser's own entry and its activation report are not Node's.
		const webOnly = (m: string): boolean => m === 'src/extension.web.ts' || m.startsWith('src/platform/web/');
		assert.deepEqual(
			inBundle.filter((m) => !atActivation.has(m) && !webOnly(m)),
			[],
			'in the web bundle as code, after activation in the Node build',
		);
		assert.ok(!inBundle.includes('src/shell/main.ts'), 'the body is not code of the bundle');
		assert.match(
			bundle,
			/\nfunction __cloudAgentsWebBody\(\)\{\/\*/,
			'the body as text: a comment in a function appended to the bundle',
		);
		assert.equal(bodyFromBundle(), body, "the text read back from the bundle is the body's");
		loadRecording(false);
		// The body's start evaluates it (and no more: the tests below).
		assert.ok(loadRecording(true).includes('src/shell/main.ts'));
	});

	test('the bundle assigns module.exports itself: no esbuild interop defining a getter per export while it loads', () => {
		const code = bundle.slice(0, bundle.indexOf('\nfunction __cloudAgentsWebBody()'));
		assert.ok(!code.includes('__toCommonJS') && !code.includes('"__esModule"'), 'the entry is an ES module: esbuild adds __toCommonJS');
		assert.match(code, /\nmodule\.exports = \{ activate, deactivate \};$/);
		const mod = { exports: {} as Record<string, unknown> };
		const stub = makeVscodeStub(vscodeApiNames(ROOT));
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the bundle under test
		const load = new Function('module', 'exports', 'require', bundle) as (...args: unknown[]) => void;
		load(mod, mod.exports, () => stub);
		assert.deepEqual(Object.keys(mod.exports).sort(), ['activate', 'deactivate']);
	});

	test('the body is written in the bundle without a comment end and read back exactly, its tildes and comment ends too', () => {
		// The encoding (esbuild.mjs webBodyEncode) writes both anew: the round trip is tested on them.
		assert.ok(body.includes('*/') && body.includes('~'), 'the body holds a comment end and a tilde');
		assert.ok(!bundle.slice(bundle.indexOf('function __cloudAgentsWebBody(){/*') + 34, bundle.lastIndexOf('*/}')).includes('*/'));
		assert.equal(bodyFromBundle(), body);
	});

	test('starting the body evaluates none of the HTTP client (client, transport, decoders, event streams) until it is first used', () => {
		const client = loadRecording(true).filter((m) =>
			/^src\/api\/(client|http|sse|sseStream|runEventStream|fetchWire|decode|records|runEventDecoder|netErrors|githubResolver)\.ts$|^src\/api\/endpoints\/|eventsource-parser/.test(
				m,
			),
		);
		assert.deepEqual(client, []);
	});

	test("starting the body evaluates no module the Node build's body leaves to first use (dist/features.js: a resource's actions, their flows and panels)", () => {
		// What the Node build's activation and body hold code of: dist/extension.js, dist/main.js and dist/core.js.
		const atActivation = new Set([...bytesIn(/dist\/(extension|main|core)\.js$/)].filter(([, n]) => n > 0).map(([input]) => input));
		const evaluated = loadRecording(true);
		// A folder's index.ts that only re-exports has no code of its own in either build.
		const reExportsOnly = (m: string): boolean =>
			/\/index\.ts$/.test(m) &&
			readFileSync(join(ROOT, m), 'utf8')
				.replace(/\/\*[\s\S]*?\*\//g, '')
				.split(';')
				.map((st) => st.trim())
				.every((st) => st === '' || /^export (type )?(\*|\{[^}]*\}) from '[^']+'$/.test(st.replace(/\s+/g, ' ')));
		// The browser's own start (src/shell/webMain.ts) and platform (src/platform/web/) are not Node's.
		const webOnly = (m: string): boolean => m === 'src/shell/webMain.ts' || m.startsWith('src/platform/web/');
		const early = evaluated.filter((m) => m.startsWith('src/') && !atActivation.has(m) && !reExportsOnly(m) && !webOnly(m));
		assert.deepEqual(early, [], 'evaluated by the web build when the body starts, on first use by the Node build');
		assert.ok(!evaluated.some((m) => m.includes('jsonc-parser')), 'jsonc-parser (model provider documents) waits for first use');
	});

	test("a resource module evaluates with the body only what the Node build's body holds of it (its list descriptors); its actions are in the features' own copy", () => {
		const node = bytesIn(/dist\/main\.js$/);
		const web = bytesIn(/dist\/web\/main\.js$/);
		const shared = [...node].filter(([input, n]) => input.startsWith('src/resources/') && n > 0);
		assert.ok(shared.length >= 10, `resource modules in dist/main.js: ${shared.length}`);
		const over: string[] = [];
		for (const [input, n] of shared) {
			const atLoad = web.get(input) ?? 0;
			const copy = [...web].find(([k]) => k.startsWith('web-features-resources:') && k.endsWith(input))?.[1] ?? 0;
			// Both are development builds of the same source: the same descriptors, give or take the
			// wrapper that evaluates the module when the body starts (an init call per import); a
			// resource's actions would be several times its descriptors.
			if (atLoad > n * 1.25 + 400) {
				over.push(`${input}: ${atLoad} bytes in the web bundle's body copy, ${n} in dist/main.js`);
			}
			assert.ok(copy > 0, `${input}: the features' copy is in the web bundle`);
		}
		assert.deepEqual(over, []);
	});

	test('the code of every other module uses no Node-only global (Buffer, __dirname, setImmediate, require.cache, process) nor a bare timer unref', () => {
		const found: string[] = [];
		let module = '';
		for (const line of [...bundle.split('\n'), ...body.split('\n')]) {
			// Each module's code follows a marker line of its own (`// src/…`, `// node_modules/…`, `// <define:…>`).
			const marker = /^\/\/ (\S+)$/.exec(line);
			if (marker) {
				module = marker[1] ?? '';
				continue;
			}
			if (!module.startsWith('src/') || pending.includes(module) || line.trimStart().startsWith('//')) {
				continue;
			}
			for (const g of NODE_GLOBALS) {
				if (g.use.test(line) && !(g.allowedOn?.test(line) ?? false)) {
					found.push(`${module}: ${g.name}: ${line.trim().slice(0, 120)}`);
				}
			}
		}
		assert.deepEqual(found, []);
	});
});
