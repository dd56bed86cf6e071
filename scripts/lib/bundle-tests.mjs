// Builds what the integration harness installs or runs besides the extension itself:
//  - the test-runner extension (test/integration/runner-extension) with mocha and every
//    test/integration/suite/**/*.test.ts bundled in, packaged as its own .vsix;
//  - the Playwright UI tests (test/ui/*.ts), each bundled to an ES module the driver imports.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import * as esbuild from 'esbuild';
import { ROOT } from './harness.mjs';
import { WEB_TAG } from './lanes.mjs';

/** Files under `dir` whose names end with `suffix`, recursively, sorted by path. */
export function findFiles(dir, suffix) {
	let out = [];
	let entries;
	try {
		entries = readdirSync(dir, { withFileTypes: true });
	} catch {
		return out;
	}
	for (const e of entries) {
		const p = join(dir, e.name);
		if (e.isDirectory()) {
			out = out.concat(findFiles(p, suffix));
		} else if (e.name.endsWith(suffix)) {
			out.push(p);
		}
	}
	return out.sort();
}

/**
 * The `proxy` package (the network suite's forward proxy, test/support/proxy.ts) reads its own
 * package.json through `createRequire(import.meta.url)`, which a CommonJS bundle cannot resolve:
 * its dist/pkg.js becomes the package.json itself.
 * @type {import('esbuild').Plugin}
 */
const proxyPackageJson = {
	name: 'proxy-package-json',
	setup(build) {
		build.onLoad({ filter: /[\\/]node_modules[\\/]proxy[\\/]dist[\\/]pkg\.js$/ }, () => ({
			contents: `export default ${readFileSync(join(ROOT, 'node_modules', 'proxy', 'package.json'), 'utf8')};`,
			loader: 'js',
		}));
	},
};

/** Bundles the runner and the suites into `outDir` (an extension folder); returns the suite files. */
export async function buildRunnerExtension(outDir) {
	const src = join(ROOT, 'test', 'integration', 'runner-extension');
	const suites = findFiles(join(ROOT, 'test', 'integration', 'suite'), '.test.ts');
	rmSync(outDir, { recursive: true, force: true });
	mkdirSync(outDir, { recursive: true });
	cpSync(join(src, 'package.json'), join(outDir, 'package.json'));
	cpSync(join(src, 'README.md'), join(outDir, 'README.md'));
	cpSync(join(ROOT, 'LICENSE'), join(outDir, 'LICENSE'));
	const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node20.18', external: ['vscode'], logLevel: 'warning' };
	// dist/runner.js: the runner and mocha.
	await esbuild.build({
		...common,
		entryPoints: [join(src, 'src', 'runner.ts')],
		outfile: join(outDir, 'dist', 'runner.js'),
		// mocha's parallel mode (never used in the host) resolves worker files at run time.
		logOverride: { 'require-resolve-not-external': 'silent' },
	});
	// dist/suites.js: every suite, required in path order when the runner calls loadSuites().
	await esbuild.build({
		...common,
		stdin: {
			contents: [
				`exports.suiteFiles = ${JSON.stringify(suites.map((f) => relative(ROOT, f)))};`,
				'exports.loadSuites = function loadSuites() {',
				...suites.map((f) => `\trequire(${JSON.stringify(f)});`),
				'};',
			].join('\n'),
			resolveDir: ROOT,
			sourcefile: 'integration-suites.js',
			loader: 'js',
		},
		outfile: join(outDir, 'dist', 'suites.js'),
		sourcemap: 'inline',
		plugins: [proxyPackageJson],
	});
	return suites;
}

/**
 * The first line of a web lane's bundles (the runner's here, the extension's from
 * `esbuild.mjs --web-harness`): the lane's environment, empty until `writeHarnessEnv` fills it in
 * the lane's copy of the installed extensions.
 */
const HARNESS_ENV_LINE = /^globalThis\.__cloudAgentsHarnessEnv = .*;$/m;

/**
 * In the web runner's bundle, a Node built-in (imported by a suite's or a source module's code that
 * a [web] test does not reach) is a stand-in that throws, naming it, when its code is used: a [web]
 * test that needs Node fails with that message instead of the bundle failing to build.
 * @type {import('esbuild').Plugin}
 */
const nodeBuiltinsThrow = {
	name: 'node-builtins-throw',
	setup(build) {
		// The suites' platform is the browser's (support/hostPlatform.ts): undici is never loaded.
		build.onResolve({ filter: /\/support\/hostPlatform$/ }, () => ({
			path: join(ROOT, 'test', 'integration', 'support', 'hostPlatform.web.ts'),
		}));
		// node:assert/strict is the `assert` package's (the alias below).
		build.onResolve({ filter: /^node:/ }, (args) =>
			args.path === 'node:assert/strict' ? undefined : { path: args.path, namespace: 'node-absent' },
		);
		build.onLoad({ filter: /.*/, namespace: 'node-absent' }, (args) => ({
			contents: `module.exports = new Proxy({}, {
	get(_, key) {
		if (typeof key === 'symbol' || key === '__esModule' || key === 'then') return undefined;
		throw new Error(${JSON.stringify(`${args.path} is Node's: a [web] test cannot use it (VS Code for the Web's extension host is a web worker)`)} + ' (' + String(key) + ')');
	},
});`,
			loader: 'js',
		}));
	},
};

/**
 * The web lanes' runner (VS Code for the Web's extension host, a web worker): runner.web.ts and the
 * suites whose source carries WEB_TAG, one browser bundle with mocha's browser build; `node:assert/strict`
 * is the `assert` package's, `process` a shim over the lane's environment (processShim.web.ts).
 * Returns the suite files.
 */
export async function buildWebRunnerExtension(outDir) {
	const src = join(ROOT, 'test', 'integration', 'runner-extension');
	const suites = findFiles(join(ROOT, 'test', 'integration', 'suite'), '.test.ts').filter((f) =>
		readFileSync(f, 'utf8').includes(WEB_TAG),
	);
	rmSync(outDir, { recursive: true, force: true });
	mkdirSync(outDir, { recursive: true });
	const manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8'));
	delete manifest.main;
	manifest.name = `${manifest.name}-web`;
	manifest.browser = './dist/runner.web.js';
	writeFileSync(join(outDir, 'package.json'), JSON.stringify(manifest, null, '\t'));
	cpSync(join(src, 'README.md'), join(outDir, 'README.md'));
	cpSync(join(ROOT, 'LICENSE'), join(outDir, 'LICENSE'));
	const runner = join(src, 'src', 'runner.web.ts');
	await esbuild.build({
		bundle: true,
		platform: 'browser',
		format: 'cjs',
		target: 'es2022',
		mainFields: ['browser', 'module', 'main'],
		external: ['vscode'],
		logLevel: 'warning',
		stdin: {
			contents: [
				`const runner = require(${JSON.stringify(runner)});`,
				'runner.useSuites(function loadSuites() {',
				...suites.map((f) => `\trequire(${JSON.stringify(f)});`),
				'});',
				'module.exports = runner;',
			].join('\n'),
			resolveDir: ROOT,
			sourcefile: 'web-integration-suites.js',
			loader: 'js',
		},
		alias: { 'node:assert/strict': join(src, 'src', 'assertStrict.web.ts') },
		inject: [join(src, 'src', 'processShim.web.ts')],
		plugins: [nodeBuiltinsThrow],
		banner: { js: 'globalThis.__cloudAgentsHarnessEnv = {};' },
		outfile: join(outDir, 'dist', 'runner.web.js'),
	});
	return suites;
}

/**
 * Writes a web lane's environment into the first line of each bundle under `extensionsDir` that has
 * one (the lane's copy of the installed web build and web runner): what `process.env` reads there.
 */
export function writeHarnessEnv(extensionsDir, env) {
	const line = `globalThis.__cloudAgentsHarnessEnv = ${JSON.stringify(env)};`;
	let written = 0;
	for (const file of findFiles(extensionsDir, '.js')) {
		const text = readFileSync(file, 'utf8');
		if (text.startsWith('globalThis.__cloudAgentsHarnessEnv = ')) {
			writeFileSync(
				file,
				text.replace(HARNESS_ENV_LINE, () => line),
			);
			written++;
		}
	}
	if (written < 2) {
		throw new Error(
			`writeHarnessEnv: expected the web build and the web runner under ${extensionsDir}, found ${written} bundle(s) to write`,
		);
	}
}

/** Packages an extension folder into a .vsix with vsce. */
export function packageFolder(folder, vsixPath) {
	const r = spawnSync(
		process.execPath,
		[
			join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'),
			'package',
			'--no-dependencies',
			'--allow-missing-repository',
			'--skip-license',
			'-o',
			vsixPath,
		],
		{ cwd: folder, encoding: 'utf8' },
	);
	if (r.status !== 0) {
		throw new Error(`vsce package in ${folder} failed:\n${r.stdout}\n${r.stderr}`);
	}
	return vsixPath;
}

/** Bundles each test/ui/*.ts into `outDir/<name>.mjs` (and the page object into `outDir/support/`); returns [{ name, file }]. */
export async function buildUiTests(outDir) {
	const files = findFiles(join(ROOT, 'test', 'ui'), '.ts').filter((f) => relative(join(ROOT, 'test', 'ui'), f) === basename(f));
	rmSync(outDir, { recursive: true, force: true });
	if (files.length === 0) {
		return [];
	}
	await esbuild.build({
		// The page object is built too: the driver constructs it and hands it to each test.
		entryPoints: [...files, join(ROOT, 'test', 'ui', 'support', 'workbench.ts')],
		outbase: join(ROOT, 'test', 'ui'),
		outdir: outDir,
		outExtension: { '.js': '.mjs' },
		bundle: true,
		platform: 'node',
		format: 'esm',
		target: 'node20.18',
		packages: 'external',
		sourcemap: 'inline',
		logLevel: 'warning',
	});
	return files.map((f) => ({ name: basename(f, '.ts'), file: join(outDir, `${basename(f, '.ts')}.mjs`) }));
}
