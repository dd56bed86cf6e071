// Bundles src/extension.ts into one CommonJS file, dist/extension.js, for the extension host.
//   node esbuild.mjs               development build with source maps
//   node esbuild.mjs --production  minified, no source maps (what `npm run package` ships)
//   node esbuild.mjs --watch       development build, rebuilt on change
import * as esbuild from 'esbuild';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').Plugin} */
const problemMatcher = {
	// Prints the lines the `$esbuild-watch` problem matcher of .vscode/tasks.json looks for.
	name: 'problem-matcher',
	setup(build) {
		build.onStart(() => {
			if (watch) { console.log('[watch] build started'); }
		});
		build.onEnd((result) => {
			for (const { text, location } of result.errors) {
				console.error(`✘ [ERROR] ${text}`);
				if (location) { console.error(`    ${location.file}:${location.line}:${location.column}:`); }
			}
			if (watch) { console.log('[watch] build finished'); }
		});
	},
};

/** @type {import('esbuild').BuildOptions} */
const options = {
	entryPoints: ['src/extension.ts'],
	outfile: 'dist/extension.js',
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
	define: { 'process.env.NODE_ENV': JSON.stringify(production ? 'production' : 'development') },
	plugins: [problemMatcher],
};

if (watch) {
	const ctx = await esbuild.context(options);
	await ctx.watch();
} else {
	if (production) {
		// A source map left over from a development build must not be shipped.
		const { rm } = await import('node:fs/promises');
		await rm('dist', { recursive: true, force: true });
	}
	await esbuild.build(options);
}
