#!/usr/bin/env node
// `npm run bench`: compiles src/, test/, emulator/ and bench/ with `tsc -p .` into out/ (the same
// build as `npm run build:tests`, so the hostile section runs the current tests), then runs
// out/bench/run.js with --expose-gc (heap figures sample after gc). Arguments select sections
// (api, workspace, savings, compare, soak, activation, firstRows, vnc, hostile); only a run of all of them rewrites bench/RESULTS.md.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const build = spawnSync(process.execPath, [tsc, '-p', root], { stdio: 'inherit' });
const entry = join(root, 'out', 'bench', 'run.js');
if (build.status !== 0) {
	if (!existsSync(entry)) {
		process.exit(build.status ?? 1);
	}
	console.error('bench: tsc reported errors; running the emitted JavaScript anyway');
}
const run = spawnSync(process.execPath, ['--expose-gc', entry, ...process.argv.slice(2)], { stdio: 'inherit', cwd: root });
process.exit(run.status ?? 1);
