// Bundles the extension for the extension host as three CommonJS files in dist/, so that activation
// loads only what draws the views and the HTTP client (undici, eventsource-parser: ~80% of the code)
// is loaded on first use:
//   dist/extension.js  src/extension.ts and everything it imports, except src/api (activation loads it);
//   dist/core.js       the light modules of src/api (errors, decode, validation, pagination, …) and src/base/ (limits, async, …),
//                      required by both other files, so every class (ApiError, …) exists once and
//                      `instanceof` holds across them (activation loads it);
//   dist/compareWorker.js  the comparison's worker thread (src/platform/node/compareWorker.ts), started on use;
//   dist/client.js     src/api/client.ts (with its endpoint groups, src/api/endpoints/), http.ts, the wire's
//                      halves (src/platform/node/network.ts with netErrors.ts; src/platform/web/fetchWire.ts,
//                      the browser's), githubResolver.ts and the event streams (sse.ts, sseStream.ts, runEventStream.ts)
//                      with undici and eventsource-parser; the first access to one of their exports
//                      (e.g. `new CloudAgentsClient`) requires it.
// In extension.js each import of a light module becomes `require('./core.js').<module>`, and each import
// of a heavy module a stub whose exports are getters that require ./client.js when first read. The
// sources are unchanged (tsc and the unit tests see plain modules). The build fails if undici or
// eventsource-parser would end up in extension.js or core.js.
//   node esbuild.mjs               development build with source maps
//   node esbuild.mjs --production  minified, no source maps (what `npm run package` ships)
//   node esbuild.mjs --watch       development build, rebuilt on change
//   node esbuild.mjs --single      everything in one dist/extension.js, as before the split (the
//                                  bench's activation baseline; combine with --production)
//   node esbuild.mjs --outdir=DIR  write to DIR instead of dist/ (the unit test of the split), and
//                                  the l10n bundle to DIR/l10n/ instead of l10n/
//   node esbuild.mjs --web-harness=FILE  only the web build, for the test harness's web lanes
//                                  (scripts/lib/bundle-tests.mjs), to FILE: `process.env` reads
//                                  the lane's environment, which the harness writes into the bundle's
//                                  first line (HARNESS_ENV_LINE) for each lane
//   node esbuild.mjs --metafile=FILE  also write esbuild's metafiles of the bundles (a JSON array) to
//                                  FILE: what each module adds to a bundle is
//                                  outputs['dist/extension.js'].inputs[file].bytesInOutput
// Every build but --web-harness also writes l10n/bundle.l10n.json (package.json `l10n`): the
// messages of src/'s `vscode.l10n.t` calls, which translators translate (scripts/lib/l10nBundle.mjs).
// Each webview page, src/webviews/pages/<name>/main.ts, is a separate browser bundle
// dist/webviews/<name>.js in ESM format (loaded with <script type="module" nonce=…>: @novnc/novnc has
// a top-level await, which esbuild refuses in iife format).
import * as esbuild from 'esbuild';
import { existsSync, readFileSync, readdirSync, realpathSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeL10nBundle, writeL10nBundleAside } from './scripts/lib/l10nBundle.mjs';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');
const single = process.argv.includes('--single');
const outdir = process.argv.find((a) => a.startsWith('--outdir='))?.slice('--outdir='.length) || 'dist';
const metafileOut = process.argv.find((a) => a.startsWith('--metafile='))?.slice('--metafile='.length);
const webHarness = process.argv.find((a) => a.startsWith('--web-harness='))?.slice('--web-harness='.length);
/**
 * The first line of a --web-harness bundle: its environment, empty here; the harness replaces the
 * line with the lane's (scripts/lib/bundle-tests.mjs `writeHarnessEnv`), as the Node lanes set
 * code-server's environment. The shipped web build reads an empty `process.env`.
 */
const HARNESS_ENV_LINE = 'globalThis.__cloudAgentsHarnessEnv = {};';

const ROOT = dirname(fileURLToPath(import.meta.url));
const API = join(ROOT, 'src', 'api');
/** The helpers every floor uses, below the client (README "Layers"). */
const BASE = join(ROOT, 'src', 'base');
/** The platforms' rooms: Node's extension host and the browser's (README "Where new code goes"). */
const PLATFORM_NODE = join(ROOT, 'src', 'platform', 'node');
const PLATFORM_WEB = join(ROOT, 'src', 'platform', 'web');
/**
 * The src/api modules (and the wire's halves of src/platform/) that go to dist/client.js, loaded on the first request: those that need undici
 * or eventsource-parser (with the GitHub look-up of Create Agent), and the decoders of the service's answers (decode.ts, records.ts,
 * runEventDecoder.ts), which nothing needs before an answer arrives. No dist/core.js module may import
 * one of them (core.js would hold a second copy). (clock.ts is in core.js: the views' countdown uses it.)
 */
const HEAVY = [
	'client.ts',
	'http.ts',
	'sse.ts',
	'sseStream.ts',
	'runEventStream.ts',
	'githubResolver.ts',
	'netErrors.ts',
	'decode.ts',
	'records.ts',
	'runEventDecoder.ts',
]
	.map((f) => join(API, f))
	// Each platform's half of the wire (src/platform/): Node's undici, the browser's fetch.
	.concat([join(PLATFORM_NODE, 'network.ts'), join(PLATFORM_WEB, 'fetchWire.ts')]);
/** Every other src/api module (not the index.ts facade) and the base floor below it (src/base/): dist/core.js. */
const CORE = [API, BASE]
	.flatMap((dir) =>
		readdirSync(dir)
			.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && f !== 'index.ts')
			.map((f) => join(dir, f)),
	)
	.filter((f) => !HEAVY.includes(f));
/** The name a module has in core.js / client.js exports: its file name as an identifier. */
const key = (file) => basename(file, '.ts').replace(/[^A-Za-z0-9_$]/g, '_');
/** Packages that only dist/client.js may contain. */
const HEAVY_PACKAGES = /^(undici|eventsource-parser)(\/|$)/;

/** @type {import('esbuild').Plugin} */
const problemMatcher = {
	// Prints the lines the `$esbuild-watch` problem matcher of .vscode/tasks.json looks for.
	name: 'problem-matcher',
	setup(build) {
		build.onStart(() => {
			if (watch) {
				console.log('[watch] build started');
			}
		});
		build.onEnd((result) => {
			for (const { text, location } of result.errors) {
				console.error(`✘ [ERROR] ${text}`);
				if (location) {
					console.error(`    ${location.file}:${location.line}:${location.column}:`);
				}
			}
			if (watch) {
				console.log('[watch] build finished');
			}
		});
	},
};

/** The absolute .ts file a relative import of a file under src/ names, or undefined. */
function sourceFile(args) {
	if (!args.path.startsWith('.') || !args.resolveDir) {
		return undefined;
	}
	const base = resolve(args.resolveDir, args.path);
	for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
		if (CORE.includes(candidate) || HEAVY.includes(candidate)) {
			return candidate;
		}
	}
	return undefined;
}

/** Export names of a heavy module (for the lazy stub's getters), read by esbuild itself. */
async function exportNames(file) {
	const r = await esbuild.build({
		entryPoints: [file],
		bundle: false,
		format: 'esm',
		write: false,
		metafile: true,
		outdir: 'out-names',
		logLevel: 'silent',
	});
	return Object.values(r.metafile.outputs)[0].exports;
}

/**
 * The code of a stand-in that evaluates a module on the first read of one of its exports (the
 * module `required`, whose export names `file` gives): the lazy loading of split() and of the web
 * build's plugins.
 */
async function lazyStandIn(file, required, comment) {
	const names = await exportNames(file);
	const lines = [
		`// ${comment}`,
		'let loaded;',
		`const load = () => (loaded ??= ${required});`,
		...names.map(
			(n) => `Object.defineProperty(exports, ${JSON.stringify(n)}, { enumerable: true, get: () => load()[${JSON.stringify(n)}] });`,
		),
	];
	return { contents: `${lines.join('\n')}\n`, loader: 'js', resolveDir: ROOT };
}

/**
 * Resolves src/api modules across the three files. `core`: imports of core modules become
 * `require('./core.js').<module>`. `lazy`: imports of heavy modules become a stub that requires
 * ./client.js on the first read of an export. `forbid`: undici and eventsource-parser are an error.
 * @returns {import('esbuild').Plugin}
 */
function split({ core = false, lazy = false, forbid = false }) {
	return {
		name: 'split',
		setup(build) {
			build.onResolve({ filter: /^\.\/(core|client)\.js$/, namespace: 'split' }, (args) => ({ path: args.path, external: true }));
			if (forbid) {
				build.onResolve({ filter: HEAVY_PACKAGES }, (args) => ({
					errors: [
						{
							text: `${args.path} must stay in dist/client.js (imported by ${args.importer}); import the client through src/api/index.ts`,
						},
					],
				}));
			}
			build.onResolve({ filter: /^\./ }, (args) => {
				const file = sourceFile(args);
				if (file === undefined || args.namespace === 'split') {
					return undefined;
				}
				if (core && CORE.includes(file)) {
					return { path: `core:${key(file)}`, namespace: 'split' };
				}
				if (lazy && HEAVY.includes(file)) {
					return { path: `client:${key(file)}`, namespace: 'split', pluginData: { file } };
				}
				return undefined;
			});
			build.onLoad({ filter: /^core:/, namespace: 'split' }, (args) => ({
				contents: `module.exports = require('./core.js').${args.path.slice('core:'.length)};\n`,
				loader: 'js',
				resolveDir: ROOT,
			}));
			build.onLoad({ filter: /^client:/, namespace: 'split' }, (args) => {
				const name = args.path.slice('client:'.length);
				return lazyStandIn(
					args.pluginData.file,
					`require('./client.js').${name}`,
					`${name}: loaded from ./client.js on the first read of an export.`,
				);
			});
		},
	};
}

/** A virtual entry point re-exporting each of `files` as a namespace named by `key`. */
function entry(name, files) {
	return {
		name: `${name}-entry`,
		setup(build) {
			build.onResolve({ filter: new RegExp(`^${name}-entry$`) }, () => ({ path: name, namespace: 'entry' }));
			build.onLoad({ filter: /.*/, namespace: 'entry' }, () => ({
				contents: files.map((f) => `export * as ${key(f)} from ${JSON.stringify(f)};`).join('\n'),
				loader: 'ts',
				resolveDir: API,
			}));
		},
	};
}

/**
 * jsonc-parser's `main` is a UMD file whose requires esbuild cannot follow (they go through the
 * factory's parameter and would fail at run time in dist/): its ES module build is bundled instead,
 * marked free of side effects so that a bundle using none of it (extension.js: activation) holds none.
 * @type {import('esbuild').Plugin}
 */
const jsoncParserEsm = {
	name: 'jsonc-parser-esm',
	setup(build) {
		build.onResolve({ filter: /^jsonc-parser$/ }, () => ({
			path: realpathSync(join(ROOT, 'node_modules', 'jsonc-parser', 'lib', 'esm', 'main.js')),
			sideEffects: false,
		}));
	},
};

/** @type {import('esbuild').BuildOptions} */
const common = {
	bundle: true,
	platform: 'node',
	format: 'cjs',
	target: 'node20.18',
	external: ['vscode'],
	minify: production,
	sourcemap: production ? false : 'linked',
	sourcesContent: false,
	legalComments: production ? 'none' : 'inline',
	logLevel: 'warning',
	// A name read from an import that has no such export is undefined at run time: an error here
	// (above all a member of `vscode` the virtual module does not know: vscodeApiModule).
	logOverride: { 'import-is-undefined': 'error' },
	define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
};

const PAGES = join(ROOT, 'src', 'webviews', 'pages');
/** The webview pages: every folder of src/webviews/pages with a main.ts. */
const pageNames = readdirSync(PAGES, { withFileTypes: true })
	.filter((d) => d.isDirectory() && readdirSync(join(PAGES, d.name)).includes('main.ts'))
	.map((d) => d.name);

/**
 * @novnc/novnc exports only its root (core/rfb.js); the pages import its modules by file
 * (`@novnc/novnc/core/rfb.js`, `…/core/util/logging.js`), resolved here inside the package.
 * @type {import('esbuild').Plugin}
 */
const novncFiles = {
	name: 'novnc-files',
	setup(build) {
		// The real path, as esbuild resolves noVNC's own relative imports: a symlinked node_modules
		// would otherwise give the same module two paths and the bundle two copies of it.
		build.onResolve({ filter: /^@novnc\/novnc\/core\/[A-Za-z0-9_/.-]+\.js$/ }, (args) => ({
			path: realpathSync(join(ROOT, 'node_modules', '@novnc', 'novnc', args.path.slice('@novnc/novnc/'.length))),
		}));
	},
};

/**
 * Notices kept at the top of a page bundle, even minified: where the source of bundled code under a
 * file-level copyleft licence can be had (MPL-2.0 §3.2).
 */
const PAGE_NOTICES = {
	computer:
		'/*! Includes noVNC 1.7.0 (https://github.com/novnc/noVNC), MPL-2.0; its source: https://www.npmjs.com/package/@novnc/novnc/v/1.7.0 */',
};

/** @type {import('esbuild').BuildOptions[]} */
const pageBuilds = pageNames.map((name) => ({
	banner: PAGE_NOTICES[name] ? { js: PAGE_NOTICES[name] } : undefined,
	bundle: true,
	platform: 'browser',
	format: 'esm',
	target: ['chrome120'],
	entryPoints: [join(PAGES, name, 'main.ts')],
	outfile: join(outdir, 'webviews', `${name}.js`),
	minify: production,
	sourcemap: production ? false : 'linked',
	sourcesContent: false,
	legalComments: production ? 'none' : 'inline',
	logLevel: 'warning',
	plugins: [problemMatcher, novncFiles],
}));

/** The entry of the commands loaded on first use (dist/features.js); the body requires it. */
const FEATURES = join(ROOT, 'src', 'shell', 'featureEntry.ts');
/** The extension's body (dist/main.js), which activation (src/extension.ts, dist/extension.js) requires after it returns. */
const BODY = join(ROOT, 'src', 'shell', 'main.ts');
/** The resource modules: one per resource, each with its lists and its actions (see `extensionBuilds`). */
const RESOURCES = join(ROOT, 'src', 'resources') + '/';
/** A module's name among extension.js's exports for features.js: its path under src/ as an identifier. */
const sharedKey = (file) =>
	`__src_${file
		.slice(join(ROOT, 'src').length + 1)
		.replace(/\.ts$/, '')
		.replace(/[^A-Za-z0-9_$]/g, '_')}`;

/**
 * `vscode` is provided by the host and loading it does nothing: an import of it whose bindings go
 * unused is dropped, so a module of which activation uses nothing leaves no code in extension.js.
 *
 * And the host's API object is never copied: esbuild turns a module's `import * as vscode from
 * 'vscode'` of an external CommonJS module into `__toESM(require("vscode"))`, which copies every
 * property of the API object (347 in code-server 4.139) as a getter; measured in the extension
 * host, 33 such copies (extension.js's modules) took about 29 ms of an activation, and one copy per
 * bundle still cost the stand-ins more than all their own code (plain Node, 260 properties: 0.6 ms
 * of a 1.7 ms load; issue 44). Here every module imports one virtual ES module with a named export
 * per top-level member of the API (`export const window = get("window")`, the names read from
 * @types/vscode), so `vscode.window` in a module is that binding, and a member no module of the
 * bundle uses is dropped (its read is marked pure). A member missing from @types/vscode is a build
 * error, not an undefined at run time.
 * @type {import('esbuild').Plugin}
 */
/** The top-level members `vscode` has (namespaces, classes, enums, values), as @types/vscode declares them. */
function vscodeApiMembers() {
	const dts = readFileSync(join(ROOT, 'node_modules', '@types', 'vscode', 'index.d.ts'), 'utf8');
	const names = new Set();
	// Members of `declare module 'vscode'` are exported with or without the keyword (`namespace comments`).
	for (const m of dts.matchAll(/^\t(?:export\s+)?(?:namespace|class|enum|const|let|var|function)\s+([A-Za-z_$][\w$]*)/gm)) {
		names.add(m[1]);
	}
	if (names.size < 50) {
		throw new Error(`vscode-api: found only ${names.size} members in @types/vscode`);
	}
	return [...names].sort();
}

/** The virtual `vscode` module: one named export per member, each read from the host's API object when the bundle loads. */
function vscodeApiModule() {
	const lines = ["const api = require('vscode');", 'const get = (name) => api[name];'];
	for (const name of vscodeApiMembers()) {
		lines.push(`export const ${name} = /* @__PURE__ */ get(${JSON.stringify(name)});`);
	}
	return `${lines.join('\n')}\n`;
}

const vscodeApi = {
	name: 'vscode-api',
	setup(build) {
		build.onResolve({ filter: /^vscode$/ }, (args) =>
			args.namespace === 'vscode-api'
				? { path: 'vscode', external: true, sideEffects: false }
				: { path: 'vscode', namespace: 'vscode-api', sideEffects: false },
		);
		build.onLoad({ filter: /^vscode$/, namespace: 'vscode-api' }, () => ({
			contents: vscodeApiModule(),
			loader: 'js',
			resolveDir: ROOT,
		}));
	},
};

/**
 * Activation's bundle (dist/extension.js, src/extension.ts: the stand-ins of src/shell/standIns.ts)
 * requires the body as ./main.js (external), loaded after activation; and it holds nothing of the
 * client's files (core.js, client.js): the build fails if it would require one.
 * @type {import('esbuild').Plugin}
 */
const bodyExternal = {
	name: 'body-external',
	setup(build) {
		build.onResolve({ filter: /\/main$/ }, (args) =>
			resolve(args.resolveDir, `${args.path}.ts`) === BODY ? { path: './main.js', external: true } : undefined,
		);
		build.onResolve({ filter: /^\./ }, (args) => {
			const file = sourceFile(args);
			return file === undefined
				? undefined
				: {
						errors: [
							{ text: `${args.importer} imports ${file}: activation (dist/extension.js) must not load the client's files` },
						],
					};
		});
	},
};

/**
 * main.js requires the features entry as ./features.js (external), so it is loaded on first use.
 * @type {import('esbuild').Plugin}
 */
const featuresExternal = {
	name: 'features-external',
	setup(build) {
		build.onResolve({ filter: /featureEntry$/ }, (args) =>
			resolve(args.resolveDir, `${args.path}.ts`) === FEATURES ? { path: './features.js', external: true } : undefined,
		);
	},
};

/**
 * Modules both extension.js and features.js use exist once, in extension.js: features.js reads them
 * from extension.js's exports (one copy of each class and of each module's state: `instanceof` on a
 * tree row holds, a registry is the same). `shared`: absolute .ts paths.
 * @returns {import('esbuild').Plugin}
 */
function fromExtension(shared) {
	return {
		name: 'from-extension',
		setup(build) {
			build.onResolve({ filter: /^\./ }, (args) => {
				if (!args.resolveDir || args.namespace === 'split') {
					return undefined;
				}
				const base = resolve(args.resolveDir, args.path);
				const file = [base, `${base}.ts`, join(base, 'index.ts')].find((f) => shared.has(f));
				return file === undefined ? undefined : { path: `extension:${sharedKey(file)}`, namespace: 'split' };
			});
			build.onLoad({ filter: /^extension:/, namespace: 'split' }, (args) => ({
				contents: `module.exports = require('./main.js').${args.path.slice('extension:'.length)};\n`,
				loader: 'js',
				resolveDir: ROOT,
			}));
			build.onResolve({ filter: /^\.\/main\.js$/, namespace: 'split' }, (args) => ({ path: args.path, external: true }));
		},
	};
}

/** The .ts files under src/ a build's metafile lists as inputs. */
function sourcesOf(metafile) {
	return new Set(
		Object.keys(metafile.inputs)
			.map((f) => resolve(ROOT, f))
			.filter((f) => f.startsWith(join(ROOT, 'src')) && f.endsWith('.ts')),
	);
}

/** The .ts files under src/ of which a build's output holds code (tree shaking may drop all of an imported module). */
function usedSourcesOf(metafile) {
	const used = new Set();
	for (const output of Object.values(metafile.outputs)) {
		for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
			const path = resolve(ROOT, file);
			if (bytesInOutput > 0 && path.startsWith(join(ROOT, 'src')) && path.endsWith('.ts')) {
				used.add(path);
			}
		}
	}
	return used;
}

/**
 * The .ts files under src/ the activation build reaches from src/extension.ts without passing
 * through a resource module. A resource module's imports serve its list descriptors (reached
 * through other paths too: src/views, src/util) and its actions, which activation drops; a flow
 * only an action calls (src/resources/prompt.ts, computer.ts and what they import) is therefore not
 * activation's: features.js keeps its own copy rather than reading it from extension.js, which
 * would put it there whole.
 */
function activationSourcesOf(metafile, roots = []) {
	const inSrc = (f) => f.startsWith(join(ROOT, 'src')) && f.endsWith('.ts');
	const byPath = new Map(Object.entries(metafile.inputs).map(([f, input]) => [resolve(ROOT, f), input]));
	const reached = new Set();
	const queue = [BODY, ...roots];
	while (queue.length > 0) {
		const file = queue.pop();
		if (reached.has(file) || !byPath.has(file)) {
			continue;
		}
		reached.add(file);
		if (file.startsWith(RESOURCES)) {
			continue;
		}
		for (const imported of byPath.get(file).imports) {
			if (!imported.external) {
				queue.push(resolve(ROOT, imported.path));
			}
		}
	}
	return new Set([...reached].filter(inSrc));
}

/**
 * The activation bundle and the features bundle, in two passes: the first finds which modules both
 * use (metafiles, nothing written); the second writes extension.js exporting those modules and
 * features.js importing them from it.
 * @returns {Promise<import('esbuild').BuildOptions[]>}
 */
async function extensionBuilds() {
	const extensionOptions = {
		...common,
		entryPoints: [BODY],
		outfile: join(outdir, 'main.js'),
		plugins: [problemMatcher, jsoncParserEsm, vscodeApi, split({ core: true, lazy: true, forbid: true }), featuresExternal],
	};
	const featuresOptions = {
		...common,
		entryPoints: [FEATURES],
		outfile: join(outdir, 'features.js'),
		plugins: [problemMatcher, jsoncParserEsm, vscodeApi, split({ core: true, lazy: true, forbid: true })],
	};
	const probe = { write: false, metafile: true, logLevel: 'silent', sourcemap: false, minify: false };
	const [e, f] = await Promise.all([esbuild.build({ ...extensionOptions, ...probe }), esbuild.build({ ...featuresOptions, ...probe })]);
	const inFeatures = sourcesOf(f.metafile);
	// The resource modules (src/resources) are not shared: extension.js keeps of them only what
	// activation reads (the list descriptors; esbuild drops the unused actions), features.js has its
	// own whole copy (descriptors and actions). The two copies of a descriptor are told apart by
	// nothing but identity, so the views and the action registry match lists by their `key`.
	// A module is shared when extension.js really holds code of it, not when it is merely imported:
	// what only a resource's actions import (a multi-step input) stays out of activation. Exporting
	// the shared modules whole can bring in more of their imports, so the set grows until it holds
	// every module of features.js that extension.js holds code of (no module is ever in both).
	// And only what activation reaches without passing through a resource module (see
	// activationSourcesOf), counting the modules already shared as reached.
	const sharedOf = (metafile, roots) => {
		const reached = activationSourcesOf(metafile, roots);
		return new Set(
			[...usedSourcesOf(metafile)].filter(
				(file) => inFeatures.has(file) && reached.has(file) && file !== FEATURES && !file.startsWith(RESOURCES),
			),
		);
	};
	let shared = sharedOf(e.metafile, []);
	for (;;) {
		const probeShared = await esbuild.build({
			...extensionOptions,
			...probe,
			entryPoints: ['extension-entry'],
			plugins: [...extensionOptions.plugins, exportsEntryOf(shared)],
		});
		const next = sharedOf(probeShared.metafile, [...shared]);
		if ([...next].every((file) => shared.has(file))) {
			break;
		}
		shared = new Set([...shared, ...next]);
	}
	return [
		{
			...common,
			entryPoints: ['src/extension.ts'],
			outfile: join(outdir, 'extension.js'),
			plugins: [problemMatcher, vscodeApi, bodyExternal],
		},
		{ ...extensionOptions, entryPoints: ['extension-entry'], plugins: [...extensionOptions.plugins, exportsEntryOf(shared)] },
		{ ...featuresOptions, plugins: [...featuresOptions.plugins, fromExtension(shared)] },
	];
}

/** The extension's entry: src/extension.ts's exports, and each shared module whole, under its `sharedKey`. */
function exportsEntryOf(shared) {
	return {
		name: 'extension-entry',
		setup(build) {
			build.onResolve({ filter: /^extension-entry$/ }, () => ({ path: 'extension', namespace: 'entry' }));
			build.onLoad({ filter: /.*/, namespace: 'entry' }, () => ({
				contents: [
					`export * from ${JSON.stringify(BODY)};`,
					...[...shared].sort().map((file) => `export * as ${sharedKey(file)} from ${JSON.stringify(file)};`),
				].join('\n'),
				loader: 'ts',
				resolveDir: ROOT,
			}));
		},
	};
}

/**
 * The comparison's worker thread (src/platform/node/compareWorker.ts; localSide.ts starts it from the file
 * next to its own bundle): Node built-ins only.
 * @type {import('esbuild').BuildOptions}
 */
const compareWorkerBuild = {
	...common,
	entryPoints: ['src/platform/node/compareWorker.ts'],
	outfile: join(outdir, 'compareWorker.js'),
	plugins: [problemMatcher, jsoncParserEsm],
};

/**
 * The src/ modules that still import a Node built-in the web build cannot have (VS Code for the
 * Web, issue 34; listed in scripts/web-pending.json): each gets an empty stand-in there, so its Node-only code fails where it is called,
 * not when the bundle loads. The list only shrinks: a Node built-in imported from any other module
 * (a package, undici above all, or another src/ file) fails the web build. Each entry is a seam to
 * build (the run store and the savings files under globalStorageUri through vscode.workspace.fs, the
 * comparison's local side, the local folders of artifacts and session history, known_hosts).
 */
const WEB_PENDING = JSON.parse(readFileSync(join(ROOT, 'scripts', 'web-pending.json'), 'utf8')).modules;

/** Node's built-in modules, with or without the `node:` prefix. */
const NODE_BUILTIN = new RegExp(`^(node:.*|(${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})(/.*)?)$`);

/**
 * The web build's rules: Node's room, src/platform/node/ (its platform with undici behind it, its
 * local folders with the comparison's worker thread), is left out by folder: an import of any of its
 * files is an empty module there (only the Node entry's `activate` and the features' entry reach it,
 * and neither runs it in the browser); a Node built-in from a WEB_PENDING module is an empty
 * stand-in; from anywhere else, an error.
 * @type {import('esbuild').Plugin}
 */
const webRules = {
	name: 'web-rules',
	setup(build) {
		// Not even resolved: its imports (undici, node:*) would be.
		build.onResolve({ filter: /^\.\.?\// }, (args) => {
			const file = args.resolveDir ? resolve(args.resolveDir, args.path) : '';
			return file.startsWith(PLATFORM_NODE + sep)
				? { path: file.slice(PLATFORM_NODE.length + 1), namespace: 'web-absent' }
				: undefined;
		});
		build.onLoad({ filter: /.*/, namespace: 'web-absent' }, () => ({ contents: 'module.exports = {};\n', loader: 'js' }));
		build.onResolve({ filter: NODE_BUILTIN }, (args) => {
			const importer = args.importer.startsWith(ROOT) ? args.importer.slice(ROOT.length + 1).replace(/\\/g, '/') : args.importer;
			if (WEB_PENDING.includes(importer)) {
				return { path: args.path, namespace: 'node-pending' };
			}
			return {
				errors: [
					{
						text: `${args.path} is a Node built-in: the web build (VS Code for the Web) cannot have it (imported by ${importer})`,
					},
				],
			};
		});
		build.onLoad({ filter: /.*/, namespace: 'node-pending' }, () => ({ contents: 'module.exports = {};\n', loader: 'js' }));
	},
};

/**
 * The web build's HTTP client on first use, as dist/client.js is in Node's build, but within the one
 * bundle (a web worker's extension host loads no second file): an import of a HEAVY module from any
 * other module becomes a stub whose exports are getters that, on the first read, require the module
 * itself, which esbuild then evaluates (with the HEAVY modules it imports) for the first time. So
 * loading the bundle does not evaluate the client, its decoders and eventsource-parser (issue 34:
 * web activation). HEAVY modules import one another directly.
 * @type {import('esbuild').Plugin}
 */
const webLazyClient = {
	name: 'web-lazy-client',
	setup(build) {
		build.onResolve({ filter: /^\./ }, (args) => {
			const file = sourceFile(args);
			if (file === undefined || !HEAVY.includes(file) || HEAVY.includes(args.importer) || args.namespace === 'web-client') {
				return undefined;
			}
			return { path: `web-client:${key(file)}`, namespace: 'web-client', pluginData: { file } };
		});
		build.onLoad({ filter: /^web-client:/, namespace: 'web-client' }, ({ pluginData: { file } }) =>
			lazyStandIn(file, `require(${JSON.stringify(file)})`, `${key(file)}: evaluated on the first read of an export.`),
		);
	},
};

/**
 * What the Node build evaluates only on first use: the src/ modules (and packages) of which
 * dist/features.js holds code and dist/extension.js none (a resource's actions and the flows only
 * they reach: Send Prompt, session history, multi-step inputs, the panels, the comparison's local
 * side, jsonc-parser), read from the two builds' metafiles (nothing written).
 */
async function featureOnlyInputs() {
	const probe = { ...common, write: false, metafile: true, logLevel: 'silent', sourcemap: false, minify: false };
	const plugins = [problemMatcher, jsoncParserEsm, vscodeApi, split({ core: true, lazy: true, forbid: true })];
	const [e, f] = await Promise.all([
		esbuild.build({
			...probe,
			entryPoints: [BODY],
			outfile: 'out-probe/main.js',
			plugins: [...plugins, featuresExternal],
		}),
		esbuild.build({ ...probe, entryPoints: [FEATURES], outfile: 'out-probe/features.js', plugins }),
	]);
	const held = (metafile) => {
		const files = new Set();
		for (const output of Object.values(metafile.outputs)) {
			for (const [file, { bytesInOutput }] of Object.entries(output.inputs)) {
				if (bytesInOutput > 0) {
					files.add(resolve(ROOT, file));
				}
			}
		}
		return files;
	};
	const atActivation = held(e.metafile);
	const files = [...held(f.metafile)].filter(
		(file) => !atActivation.has(file) && file !== FEATURES && !HEAVY.includes(file) && !CORE.includes(file),
	);
	const packageOf = (file) => /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.replace(/\\/g, '/'))?.[1];
	const activationPackages = new Set([...atActivation].map(packageOf).filter(Boolean));
	return {
		sources: new Set(files.filter((file) => file.startsWith(join(ROOT, 'src')))),
		packages: new Set(files.map(packageOf).filter((name) => name && !activationPackages.has(name))),
	};
}

/**
 * The web bundle evaluates at load what the Node build's activation does, and no more: an import of
 * a feature-only module (featureOnlyInputs) from any other module becomes a stand-in that evaluates
 * it on the first read of an export, as features.js is loaded on first use on Node. Without it,
 * evaluating a resource module (its list descriptors are activation's) evaluated everything its
 * actions import. Feature-only modules import one another directly.
 * @returns {import('esbuild').Plugin}
 */
function webLazyFeatures({ sources, packages }) {
	return {
		name: 'web-lazy-features',
		setup(build) {
			const lazy = (file) => ({ path: `web-feature:${file}`, namespace: 'web-feature', pluginData: { file } });
			const fromFeature = (importer) => sources.has(importer) || [...packages].some((p) => importer.includes(`/node_modules/${p}/`));
			// The features' side (the feature-only modules, featureEntry.ts and the copy below).
			const inFeatures = (args) =>
				args.namespace === 'web-features-resources' || args.importer === FEATURES || fromFeature(args.importer);
			build.onResolve({ filter: /^\./ }, (args) => {
				if (!args.resolveDir || args.namespace === 'web-feature') {
					return undefined;
				}
				const base = resolve(args.resolveDir, args.path);
				const candidates = [base, `${base}.ts`, join(base, 'index.ts')];
				if (inFeatures(args)) {
					// As on Node, the features have their own whole copy of the resource modules activation
					// reads (descriptors and actions: the views and the action registry match lists by key),
					// so the copy that activation evaluates keeps only its descriptors (esbuild drops the
					// unused actions). A feature-only resource module (prompt.ts…) stays one module.
					const resource = candidates.find(
						(f) => f.startsWith(RESOURCES) && f.endsWith('.ts') && !sources.has(f) && existsSync(f),
					);
					return resource === undefined ? undefined : { path: resource, namespace: 'web-features-resources' };
				}
				const file = candidates.find((f) => sources.has(f));
				return file === undefined ? undefined : lazy(file);
			});
			build.onLoad({ filter: /.*/, namespace: 'web-features-resources' }, ({ path }) => ({
				contents: readFileSync(path, 'utf8'),
				loader: 'ts',
				resolveDir: dirname(path),
			}));
			build.onResolve({ filter: /^[@a-z]/ }, async (args) => {
				const name = /^((?:@[^/]+\/)?[^/]+)/.exec(args.path)?.[1];
				if (!packages.has(name) || args.namespace === 'web-feature' || args.pluginData?.real || fromFeature(args.importer)) {
					return undefined;
				}
				const real = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, pluginData: { real: true } });
				return real.errors.length > 0 ? undefined : lazy(real.path);
			});
			build.onLoad({ filter: /^web-feature:/, namespace: 'web-feature' }, ({ pluginData: { file } }) =>
				lazyStandIn(
					file,
					`require(${JSON.stringify(file)})`,
					`${file.slice(ROOT.length + 1)}: evaluated on the first read of an export (features.js on Node).`,
				),
			);
		},
	};
}

/** The browser's start of the body (src/extension.web.ts requires it after activation). */
const WEB_BODY = join(ROOT, 'src', 'shell', 'webMain.ts');

/**
 * The web body's build (everything but activation's stand-ins): src/shell/webMain.ts and what it
 * imports, with no Node built-in (webRules) and no undici, its HTTP client and the commands'
 * modules evaluated on first use (webLazyClient, webLazyFeatures). Its entry exports `load()`,
 * which evaluates the body (esbuild wraps a module reached through `require` in a function it calls
 * then). Not written: its text goes into dist/web/extension.js (webBodyAsText), and, in a
 * development build, to dist/web/main.js beside it (for reading and the tests; never shipped).
 */
const webBodyOptions = (define) => ({
	...common,
	platform: 'browser',
	target: 'es2022',
	mainFields: ['browser', 'module', 'main'],
	entryPoints: ['web-body-entry'],
	outfile: join(outdir, 'web', 'main.js'),
	define,
	sourcemap: false,
	write: false,
	metafile: true,
	plugins: [
		problemMatcher,
		jsoncParserEsm,
		vscodeApi,
		webRules,
		webLazyClient,
		webLazyFeatures(featureOnly),
		{
			name: 'web-body-entry',
			setup(build) {
				build.onResolve({ filter: /^web-body-entry$/ }, () => ({ path: 'web-body-entry', namespace: 'web-body-entry' }));
				build.onLoad({ filter: /.*/, namespace: 'web-body-entry' }, () => ({
					contents: `exports.load = () => require(${JSON.stringify(WEB_BODY)});\n`,
					loader: 'js',
					resolveDir: ROOT,
				}));
			},
		},
	],
});

/** The web body builds' metafiles (for the notices and --metafile). */
const webBodyMetafiles = [];

/** The function declaration webBodyAsText appends to the web bundle; its only content is the body's text, as a comment. */
const WEB_BODY_HOLDER = '__cloudAgentsWebBody';
/**
 * How the body's text is written inside the comment, all ASCII (a bundle with one character beyond
 * Latin-1 is held by V8 as a two-byte string: twice the memory, and a slower scan, for the whole 630
 * KB): each `~` of the text as `~0`, then each comment end `*` `/` as `*~1/`. Reading it back
 * (WEB_BODY_DECODE) replaces each `~0` by `~` and drops each `~1`, in one pass from the start.
 */
const webBodyEncode = (text) => text.split('~').join('~0').split('*/').join('*~1/');
/** The decoding of webBodyEncode, as the bundle's start runs it (an expression of `text`). */
const WEB_BODY_DECODE = "text.replace(/~[01]/g, (m) => (m === '~0' ? '~' : ''))";

/**
 * The web entry's `require('./shell/webMain')` is the body's text (webBodyOptions), evaluated with
 * `new Function` when the body starts (the extension host evaluates our bundle the same way), so
 * loading dist/web/extension.js at activation compiles and evaluates only the stand-ins (issue 44).
 * The text is a comment, not a string: the bundle ends with a function __cloudAgentsWebBody whose
 * body is one block comment holding the text (written all in ASCII without a comment end:
 * webBodyEncode), appended after esbuild wrote the bundle
 * (its output keeps no comments) and after the code, so the bundle's source map holds; the start
 * reads it back with Function.prototype.toString, which gives a function's source text exactly.
 * Compiling the bundle costs V8 a scan of a comment instead of a string literal of 590 KB: a third
 * of the time (bench/README.md, "The activation section").
 * @returns {import('esbuild').Plugin}
 */
function webBodyAsText(define) {
	/** The body's text, from the last build. */
	let text;
	return {
		name: 'web-body-text',
		setup(build) {
			build.onResolve({ filter: /\/webMain$/ }, (args) =>
				resolve(args.resolveDir, `${args.path}.ts`) === WEB_BODY ? { path: 'web-body', namespace: 'web-body' } : undefined,
			);
			build.onLoad({ filter: /.*/, namespace: 'web-body' }, async () => {
				const body = await esbuild.build(webBodyOptions(define));
				webBodyMetafiles.push(body.metafile);
				text = body.outputFiles[0].text;
				if (!production) {
					const { mkdir, writeFile } = await import('node:fs/promises');
					await mkdir(join(outdir, 'web'), { recursive: true });
					await writeFile(join(outdir, 'web', 'main.js'), text);
				}
				return {
					contents: [
						'// The body (src/shell/webMain.ts and what it imports), evaluated when it starts: see esbuild.mjs webBodyAsText.',
						`const holder = ${WEB_BODY_HOLDER}.toString();`,
						"const text = holder.slice(holder.indexOf('/*') + 2, holder.lastIndexOf('*/'));",
						'const body = { exports: {} };',
						`new Function('module', 'exports', 'require', \`\${${WEB_BODY_DECODE}}\\n//# sourceURL=cloud-agents/web/main.js\`)(body, body.exports, require);`,
						'module.exports = body.exports.load();',
					].join('\n'),
					loader: 'js',
					resolveDir: ROOT,
					watchFiles: Object.keys(body.metafile.inputs)
						.filter((f) => !/^[a-z-]+:/.test(f))
						.map((f) => resolve(ROOT, f)),
				};
			});
			build.onEnd(async (result) => {
				if (result.errors.length > 0 || text === undefined) {
					return;
				}
				const { readFile, writeFile } = await import('node:fs/promises');
				const file = build.initialOptions.outfile;
				const code = await readFile(file, 'utf8');
				if (code.includes(`function ${WEB_BODY_HOLDER}(`)) {
					return;
				}
				const holder = `function ${WEB_BODY_HOLDER}(){/*${webBodyEncode(text)}*/}\n`;
				// Before a source map's comment, which stays the last line.
				const m = /\n\/\/# sourceMappingURL=[^\n]*\n?$/.exec(code);
				await writeFile(
					file,
					m
						? `${code.slice(0, m.index + 1)}${holder}${code.slice(m.index + 1)}`
						: `${code}${code.endsWith('\n') ? '' : '\n'}${holder}`,
				);
			});
		},
	};
}

/** What the Node build evaluates only on first use (the web build's lazy features follow it). */
const featureOnly = await featureOnlyInputs();

/**
 * The browser's extension host (package.json `browser`): one CommonJS bundle for the web worker,
 * dist/web/extension.js: activation's stand-ins, and the body as text (webBodyAsText), with no
 * Node built-in and no undici; `process.env` reads as empty (a web worker has no environment).
 * @type {import('esbuild').BuildOptions}
 */
const webDefine = { ...common.define, 'process.env': '{}' };
const webBuild = {
	...common,
	platform: 'browser',
	target: 'es2022',
	mainFields: ['browser', 'module', 'main'],
	entryPoints: ['src/extension.web.ts'],
	outfile: join(outdir, 'web', 'extension.js'),
	define: webDefine,
	plugins: [problemMatcher, jsoncParserEsm, vscodeApi, webRules, webBodyAsText(webDefine)],
};

/** @type {import('esbuild').BuildOptions[]} */
const builds = webHarness
	? [
			{
				...webBuild,
				outfile: webHarness,
				define: { ...webBuild.define, 'process.env': 'globalThis.__cloudAgentsHarnessEnv' },
				plugins: [
					problemMatcher,
					jsoncParserEsm,
					vscodeApi,
					webRules,
					webBodyAsText({ ...webBuild.define, 'process.env': 'globalThis.__cloudAgentsHarnessEnv' }),
				],
				banner: { js: HARNESS_ENV_LINE },
			},
		]
	: single
		? [
				{
					...common,
					entryPoints: ['src/extension.ts'],
					outfile: join(outdir, 'extension.js'),
					plugins: [problemMatcher, jsoncParserEsm, vscodeApi],
				},
				compareWorkerBuild,
				// The manifest's `browser` entry is the same file in both layouts.
				webBuild,
				...pageBuilds,
			]
		: [
				...(await extensionBuilds()),
				{
					...common,
					entryPoints: ['core-entry'],
					outfile: join(outdir, 'core.js'),
					plugins: [problemMatcher, jsoncParserEsm, entry('core', CORE), split({ forbid: true })],
				},
				{
					...common,
					entryPoints: ['client-entry'],
					outfile: join(outdir, 'client.js'),
					plugins: [problemMatcher, jsoncParserEsm, entry('client', HEAVY), split({ core: true })],
				},
				compareWorkerBuild,
				webBuild,
				...pageBuilds,
			];

/** The l10n bundle: l10n/ beside package.json, or DIR/l10n/ with --outdir=DIR (a test's build leaves the checkout alone). */
const l10nBundleFile = join(outdir === 'dist' ? ROOT : outdir, 'l10n', 'bundle.l10n.json');

if (watch) {
	// Once: the bundle is for translators; a running extension shows the sources' English without it.
	await writeL10nBundle(join(ROOT, 'src'), l10nBundleFile);
	for (const options of builds) {
		const ctx = await esbuild.context(options);
		await ctx.watch();
	}
} else if (webHarness) {
	// dist/ is left alone: the harness builds the .vsix from it meanwhile.
	await Promise.all(builds.map((options) => esbuild.build(options)));
} else {
	// A file left over from another build (a source map, or core.js / client.js after --single) must not be shipped.
	const { rm } = await import('node:fs/promises');
	await rm(outdir, { recursive: true, force: true });
	// The l10n export runs meanwhile, in a worker thread (scripts/lib/l10nBundle.mjs).
	const [results] = await Promise.all([
		Promise.all(builds.map((options) => esbuild.build({ ...options, metafile: true }))),
		writeL10nBundleAside(join(ROOT, 'src'), l10nBundleFile),
	]);
	await writeNotices([...results.map((r) => r.metafile), ...webBodyMetafiles]);
	if (metafileOut) {
		const { writeFile } = await import('node:fs/promises');
		await writeFile(metafileOut, JSON.stringify([...results.map((r) => r.metafile), ...webBodyMetafiles]));
	}
}

/**
 * dist/THIRD_PARTY_NOTICES.txt: the licence text of every npm package whose code a bundle holds
 * (read from the bundles' metafiles, so it always matches what ships; the minified bundles keep no
 * legal comments). Shipped in the vsix (.vscodeignore).
 */
async function writeNotices(metafiles) {
	const { readFile, writeFile } = await import('node:fs/promises');
	const packages = new Map();
	for (const metafile of metafiles) {
		for (const output of Object.values(metafile.outputs)) {
			for (const input of Object.keys(output.inputs)) {
				// A plugin's stand-in (`namespace:path`) is not a package's code: the module it stands in for is an input of its own.
				if (/^[a-z-]+:/.test(input)) {
					continue;
				}
				const m = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input.replace(/\\/g, '/'));
				if (m) {
					const dir = input.replace(/\\/g, '/').slice(0, m.index + m[0].length);
					packages.set(m[1], resolve(ROOT, dir));
				}
			}
		}
	}
	const sections = [];
	for (const [name, dir] of [...packages].sort(([a], [b]) => (a < b ? -1 : 1))) {
		const pkg = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8'));
		const licenceFile = readdirSync(dir).find((f) => /^(licen[sc]e|copying)(\.(md|txt|mit))?(-mit)?$/i.test(f));
		const text = licenceFile ? (await readFile(join(dir, licenceFile), 'utf8')).trim() : `License: ${pkg.license ?? 'see the package'}`;
		sections.push(`${name} ${pkg.version} (${pkg.license ?? 'unknown licence'})\n${pkg.homepage ?? ''}\n\n${text}`);
	}
	const header = 'Cloud Agents for VS Code bundles the following npm packages. Their licences follow.';
	await writeFile(join(outdir, 'THIRD_PARTY_NOTICES.txt'), [header, ...sections].join('\n\n' + '-'.repeat(78) + '\n\n') + '\n');
}
