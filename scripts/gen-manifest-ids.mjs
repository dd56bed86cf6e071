#!/usr/bin/env node
// Writes src/manifestIds.gen.ts from package.json: the contributed command ids, view ids and
// language-model tool names as `as const` tuples, so `CommandId`, `ViewId` and `ToolName` (src/ids.ts)
// are typed from the manifest itself.
//   node scripts/gen-manifest-ids.mjs          rewrite the file (npm run ids:gen)
//   node scripts/gen-manifest-ids.mjs --check  exit 1 when the file is stale
// test/unit/manifest.test.ts also fails when the file disagrees with package.json.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'src', 'manifestIds.gen.ts');
const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));

const commands = manifest.contributes.commands.map((c) => c.command);
const views = Object.values(manifest.contributes.views)
	.flat()
	.map((v) => v.id);
const tools = (manifest.contributes.languageModelTools ?? []).map((t) => t.name);
const list = (ids) => ids.map((id) => `\t${JSON.stringify(id).replace(/"/g, "'")},\n`).join('');
const text = `// Generated from package.json by scripts/gen-manifest-ids.mjs (npm run ids:gen): do not edit.

/** Every command package.json contributes, in its order. */
export const MANIFEST_COMMAND_IDS = [
${list(commands)}] as const;

/** Every view package.json contributes, in its order. */
export const MANIFEST_VIEW_IDS = [
${list(views)}] as const;

/** Every language-model tool package.json contributes, in its order. */
export const MANIFEST_TOOL_NAMES = [
${list(tools)}] as const;
`;

if (process.argv.includes('--check')) {
	let current = '';
	try {
		current = readFileSync(target, 'utf8');
	} catch {
		// Missing counts as stale.
	}
	if (current !== text) {
		console.error('src/manifestIds.gen.ts is stale: run npm run ids:gen');
		process.exit(1);
	}
} else {
	writeFileSync(target, text);
}
