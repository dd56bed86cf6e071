#!/usr/bin/env node
// Fails when src/api/schema.gen.ts does not match what openapi-typescript generates from
// spec/openapi.yaml. Runs the same CLI invocation as `npm run spec:types`, into a temp file.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const spec = path.join(root, 'spec', 'openapi.yaml');
const committed = path.join(root, 'src', 'api', 'schema.gen.ts');
const STALE = 'src/api/schema.gen.ts is stale: run npm run spec:types';

const require = createRequire(path.join(root, 'package.json'));
const pkgJson = require.resolve('openapi-typescript/package.json');
const pkg = JSON.parse(readFileSync(pkgJson, 'utf8'));
const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin['openapi-typescript'];
const cli = path.join(path.dirname(pkgJson), bin);

const dir = mkdtempSync(path.join(tmpdir(), 'spec-types-'));
const fresh = path.join(dir, 'schema.gen.ts');
if (!existsSync(spec)) {
	console.error(`check-spec-types: ${spec} not found`);
	process.exit(1);
}
try {
	// Same arguments as the spec:types script; the path is relative to the repo root so any
	// path-dependent output matches.
	const run = spawnSync(process.execPath, [cli, 'spec/openapi.yaml', '-o', fresh], {
		cwd: root,
		encoding: 'utf8',
	});
	if (run.status !== 0) {
		process.stderr.write(run.stdout + run.stderr);
		console.error('check-spec-types: openapi-typescript failed on spec/openapi.yaml');
		process.exit(1);
	}
	if (!existsSync(committed)) {
		console.error(`${STALE} (the file is missing)`);
		process.exit(1);
	}
	const normalize = (text) => text.replace(/\r\n/g, '\n');
	const want = normalize(readFileSync(fresh, 'utf8'));
	const have = normalize(readFileSync(committed, 'utf8'));
	if (want !== have) {
		const a = have.split('\n');
		const b = want.split('\n');
		let line = 0;
		while (line < a.length && line < b.length && a[line] === b[line]) line++;
		console.error(STALE);
		console.error(`  first difference at line ${line + 1}:`);
		console.error(`    committed: ${JSON.stringify(a[line] ?? '<end of file>')}`);
		console.error(`    generated: ${JSON.stringify(b[line] ?? '<end of file>')}`);
		process.exit(1);
	}
	console.log('src/api/schema.gen.ts is up to date with spec/openapi.yaml');
} finally {
	rmSync(dir, { recursive: true, force: true });
}
