// Builds what the integration harness installs or runs besides the extension itself:
//  - the test-runner extension (test/integration/runner-extension) with mocha and every
//    test/integration/suite/**/*.test.ts bundled in, packaged as its own .vsix;
//  - the Playwright UI tests (test/ui/*.ts), each bundled to an ES module the driver imports.
import { cpSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import * as esbuild from 'esbuild';
import { ROOT } from './harness.mjs';

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
