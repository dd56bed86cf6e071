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
	let bundle: string;
	let metafile: Metafile;
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
		const all = JSON.parse(readFileSync(meta, 'utf8')) as Metafile[];
		metafiles = all;
		const web = all.find((m) => Object.keys(m.outputs).some((o) => o.endsWith('web/extension.js')));
		assert.ok(web, 'a metafile of the web build');
		metafile = web;
	});

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
		const packages = Object.keys(metafile.inputs).filter((f) => f.includes('node_modules/undici/'));
		assert.deepEqual(packages, [], 'no undici module');
		const required = [...bundle.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]);
		assert.deepEqual([...new Set(required)], ['vscode']);
	});

	test('stands in for Node built-ins only in the modules still pending, each of which still imports one', () => {
		const importers = new Set<string>();
		for (const [file, input] of Object.entries(metafile.inputs)) {
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
	 * Loads the bundle as the web worker extension host does (the text as a function of module,
	 * exports and require), then, with `startBody`, evaluates the body as its start does (activation's
	 * stand-ins require src/shell/webMain.ts: src/shell/standIns.ts); returns the modules evaluated, in order.
	 */
	function loadRecording(startBody: boolean): string[] {
		// esbuild evaluates each lazily wrapped module through its `__esm` helper: record the first call of each.
		const head = 'var __esm = (fn, res, err) => function __init() {';
		assert.ok(bundle.includes(head), "esbuild's lazy module helper is in the bundle");
		assert.ok(bundle.includes('init_webMain()'), 'the body is evaluated when it starts, not at load');
		const evaluated: string[] = [];
		const recorded = `${bundle.replace(head, `${head}\n  if (fn) __evaluated.push(Object.getOwnPropertyNames(fn)[0]);`)}\n__start.body = () => init_webMain();`;
		const stub = makeVscodeStub(vscodeApiNames(ROOT));
		const mod = { exports: {} as Record<string, unknown> };
		const start: { body?: () => void } = {};
		// eslint-disable-next-line @typescript-eslint/no-implied-eval -- the bundle under test
		const load = new Function('module', 'exports', 'require', '__evaluated', '__start', recorded) as (...args: unknown[]) => void;
		load(mod, mod.exports, (id: string) => (id === 'vscode' ? stub : assert.fail(`the bundle required ${id}`)), evaluated, start);
		assert.equal(typeof mod.exports.activate, 'function');
		if (startBody) {
			start.body?.();
			assert.ok(evaluated.includes('src/api/errors.ts'), `modules are seen being evaluated (${evaluated.length})`);
		}
		return evaluated;
	}

	test("loading the bundle evaluates only what the Node build's activation holds (dist/extension.js: the stand-ins and the ids), none of the body", () => {
		const atActivation = new Set([...bytesIn(/dist\/extension\.js$/)].filter(([, n]) => n > 0).map(([input]) => input));
		const evaluated = loadRecording(false).filter((m) => m.startsWith('src/'));
		assert.deepEqual(
			evaluated.filter((m) => !atActivation.has(m)),
			[],
			'evaluated at load by the web build, after activation by the Node build',
		);
		assert.ok(!evaluated.includes('src/shell/main.ts'));
		// The body's start evaluates it (and no more: the tests below).
		assert.ok(loadRecording(true).includes('src/shell/main.ts'));
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
		const web = bytesIn(/dist\/web\/extension\.js$/);
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
		for (const line of bundle.split('\n')) {
			const marker = /^\/\/ ((src|node_modules)\/\S+)$/.exec(line);
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
