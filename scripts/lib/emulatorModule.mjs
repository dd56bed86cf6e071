// Loads a module of the emulator's TypeScript sources (emulator/src/<name>.ts) in plain Node: bundled
// with esbuild into .cache/emulator/<name>.cjs (npm packages stay external), then required. Used by
// `npm run emulator` (main) and `npm start` (seed: the demo's local checkout).
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Bundles emulator/src/<name>.ts and requires it (running its top-level code). */
export async function loadEmulatorModule(name) {
	const outfile = join(root, '.cache', 'emulator', `${name}.cjs`);
	await build({
		entryPoints: [join(root, 'emulator', 'src', `${name}.ts`)],
		outfile,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		packages: 'external',
		sourcemap: 'linked',
		logLevel: 'warning',
	});
	return createRequire(import.meta.url)(outfile);
}
