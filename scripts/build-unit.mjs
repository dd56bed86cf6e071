// Emits out/ for the unit tests and the bench as `tsc -p .` does (one CommonJS file per TypeScript
// file of src, test, emulator and bench, at the mirrored path, with a source map), but with esbuild's
// transform: about 2 s instead of tsc's 35 s on the CI machine, so `npm test`'s unit tests start at
// once instead of after the compile (issue 41). It checks no type: `npm run typecheck` (tsc
// --noEmit, beside it in `test:static`) does; `npm run build:tests` is still tsc's own emit.
//   node scripts/build-unit.mjs
import * as esbuild from 'esbuild';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** tsconfig.json's `include` and `exclude`, as relative paths. */
const INCLUDE = ['src', 'test', 'emulator', 'bench'];
const EXCLUDE = ['src/webviews/pages'];

const entryPoints = INCLUDE.flatMap((dir) =>
	readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
		.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts'))
		.map((e) => relative(ROOT, join(e.parentPath, e.name)).split('\\').join('/'))
		.filter((f) => !EXCLUDE.some((x) => f.startsWith(`${x}/`)) && !f.split('/').includes('node_modules')),
);

await esbuild.build({
	absWorkingDir: ROOT,
	entryPoints,
	outdir: 'out',
	outbase: '.',
	bundle: false,
	format: 'cjs',
	platform: 'node',
	target: 'node20',
	sourcemap: true,
	// tsc emits "use strict" in every module (a write to a frozen object throws, as in the tests' asserts).
	banner: { js: '"use strict";' },
	logLevel: 'warning',
});
