// Loads a module of the emulator's TypeScript sources (emulator/src/<name>.ts) in plain Node: bundled
// with esbuild into .cache/emulator/<name>.cjs (npm packages stay external), then required. Used by
// `npm run emulator` (main) and `npm start` (seed: the demo's local checkout).
// Several processes may load the same module at once (the test harness starts its lanes' emulators
// side by side): each bundles into a file of its own and renames it into place, which is atomic, so
// no process ever requires a file another is still writing; within one process a module is bundled once.
import { build } from 'esbuild';
import { renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const loading = new Map();

/** Bundles emulator/src/<name>.ts and requires it (running its top-level code). */
export function loadEmulatorModule(name) {
	if (!loading.has(name)) {
		loading.set(name, bundleAndRequire(name));
	}
	return loading.get(name);
}

async function bundleAndRequire(name) {
	const outfile = join(root, '.cache', 'emulator', `${name}.cjs`);
	const partial = `${outfile}.${process.pid}-${Math.random().toString(36).slice(2)}.tmp`;
	await build({
		entryPoints: [join(root, 'emulator', 'src', `${name}.ts`)],
		outfile: partial,
		bundle: true,
		platform: 'node',
		format: 'cjs',
		target: 'node20',
		packages: 'external',
		// Inline: a linked map would be named after the temporary file.
		sourcemap: 'inline',
		logLevel: 'warning',
	});
	renameSync(partial, outfile);
	return createRequire(import.meta.url)(outfile);
}
