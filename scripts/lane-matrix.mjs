// Writes the counts of test/README.md's lane matrix from the tests' own tags (scripts/lib/lanes.mjs),
// keeping each row's reason; `--check` only says whether the README is up to date (exit 1 if not).
// A row without a reason is an error: a test's lanes are a decision, and the matrix says why.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './lib/harness.mjs';
import { MATRIX_END, MATRIX_START, laneMatrix, matrixMarkdown, matrixReasons, withMatrix } from './lib/lanes.mjs';

const path = join(ROOT, 'test', 'README.md');
const readme = readFileSync(path, 'utf8');
const rows = laneMatrix(ROOT);
const reasons = matrixReasons(readme.slice(readme.indexOf(MATRIX_START), readme.indexOf(MATRIX_END)));
const missing = rows.filter((r) => !reasons.get(r.name)).map((r) => r.name);
const next = withMatrix(readme, matrixMarkdown(rows, reasons));
if (process.argv.includes('--check')) {
	if (next !== readme || missing.length > 0) {
		console.error(
			`test/README.md's lane matrix is out of date${missing.length ? ` (no reason for ${missing.join(', ')})` : ''}: npm run lanes`,
		);
		process.exit(1);
	}
} else {
	writeFileSync(path, next);
	if (missing.length > 0) {
		console.error(`give a reason in test/README.md's lane matrix for: ${missing.join(', ')}`);
		process.exit(1);
	}
}
