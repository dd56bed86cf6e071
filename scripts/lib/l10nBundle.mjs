// The l10n bundle (issue 42, item 16): the message of every `vscode.l10n.t(...)` call in src/, as
// @vscode/l10n-dev's export finds them, written as l10n/bundle.l10n.json (package.json `l10n`). It is
// what a translator translates into l10n/bundle.l10n.<lang>.json; VS Code itself shows the English
// of the sources without it. esbuild.mjs writes it at every build (so `npm run package` ships it);
// it is generated, not committed (.gitignore). test/unit/l10n.test.ts checks it against its own scan.
import { mkdirSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';

/** How src/ imports the API, the only spelling it uses (l10n.test.ts fails on a call the export would miss). */
const VSCODE_IMPORT = /^import (type )?\* as vscode from 'vscode';$/gm;

/**
 * The bundle of the .ts files under `srcDir`: message → message, in source order. The files go to
 * the export as one: it compiles its tree-sitter queries again for each file (about 70 ms each, 4 s
 * over src/), and once more for each import of `vscode` in a file, so their import lines are dropped
 * and one is put first (0.5 s in all, most of it loading its parser).
 */
export async function l10nBundle(srcDir) {
	// Loaded here, not at the top: only a build needs it, and it takes ~0.2 s to load.
	const { getL10nJson } = (await import('@vscode/l10n-dev')).default;
	const sources = readdirSync(srcDir, { recursive: true })
		.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
		.sort()
		.map((f) => readFileSync(join(srcDir, f), 'utf8'))
		.filter((text) => text.includes('l10n'));
	const contents = `import * as vscode from 'vscode';\n${sources.map((text) => text.replace(VSCODE_IMPORT, '')).join('\n')}`;
	return getL10nJson([{ extension: '.ts', contents }]);
}

/**
 * Writes the bundle of `srcDir` to `file`: through a temporary file renamed over it, so a reader
 * (a unit test's build runs beside `npm run build`) never sees half of it.
 */
export async function writeL10nBundle(srcDir, file) {
	const bundle = await l10nBundle(srcDir);
	mkdirSync(dirname(file), { recursive: true });
	const tmp = `${file}.${process.pid}.tmp`;
	writeFileSync(tmp, `${JSON.stringify(bundle, null, '\t')}\n`);
	renameSync(tmp, file);
	return bundle;
}

/**
 * writeL10nBundle in a worker thread: the export's parsing is synchronous, and on the build's main
 * thread it would hold up esbuild's plugins (every import of src/ goes through one) until it is done.
 */
export function writeL10nBundleAside(srcDir, file) {
	return new Promise((resolve, reject) => {
		const worker = new Worker(new URL(import.meta.url), { workerData: { l10nBundle: { srcDir, file } } });
		worker.once('message', resolve);
		worker.once('error', reject);
		worker.once('exit', (code) => reject(new Error(`the l10n bundle's worker exited with code ${code}`)));
	});
}

if (!isMainThread && workerData?.l10nBundle) {
	const { srcDir, file } = workerData.l10nBundle;
	const bundle = await writeL10nBundle(srcDir, file);
	parentPort.postMessage(Object.keys(bundle).length);
}
