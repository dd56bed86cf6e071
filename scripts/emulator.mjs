// Bundles emulator/src/main.ts with esbuild into .cache/emulator/main.js and runs it in this
// process, passing the command-line flags through: `npm run emulator -- --port 8787`.
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const outfile = join(root, '.cache', 'emulator', 'main.js');

await build({
	entryPoints: [join(root, 'emulator', 'src', 'main.ts')],
	outfile,
	bundle: true,
	platform: 'node',
	format: 'cjs',
	target: 'node20',
	packages: 'external',
	sourcemap: 'linked',
	logLevel: 'warning',
});

// main.js parses process.argv.slice(2), which already holds the flags given after `--`.
createRequire(import.meta.url)(outfile);
