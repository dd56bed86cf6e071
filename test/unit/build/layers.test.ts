/**
 * The rules of the layers (README "Developing"), read from the source so they stay true:
 * - only the framework (src/views/) resolves command targets: no `resolveTarget(` elsewhere;
 * - no code of ours reaches our own code through a command id (`executeCommand('cloudAgents.…')`
 *   or `executeCommand('_cloudAgents.…')`): services are passed as objects;
 * - server records are read through src/api only: no `as Record<string, unknown>` outside it, but
 *   for the webview message validators (messages from our own pages, not from the server);
 * - the test harness's commands are registered in src/testing.ts only;
 * - the framework never imports a resource (src/views → src/resources).
 */
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// Compiled to out/test/unit/build/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');
const src = join(root, 'src');

function filesUnder(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		return statSync(path).isDirectory() ? filesUnder(path) : path.endsWith('.ts') ? [path] : [];
	});
}

const sources = filesUnder(src).map((path) => ({ path: relative(root, path).split('\\').join('/'), text: readFileSync(path, 'utf8') }));

/** Where a pattern occurs, as `file:line`, in the files `include` keeps. */
function occurrences(pattern: RegExp, include: (path: string) => boolean): string[] {
	const out: string[] = [];
	for (const { path, text } of sources.filter((s) => include(s.path))) {
		text.split('\n').forEach((line, i) => {
			if (pattern.test(line)) {
				out.push(`${path}:${i + 1}`);
			}
		});
	}
	return out;
}

suite('layers: the rules the README states, read from src/', () => {
	test('the source is there to read', () => {
		assert.ok(sources.length > 50, `${sources.length} files`);
		assert.ok(sources.some((s) => s.path === 'src/views/targets.ts'));
	});

	test('only the framework resolves command targets', () => {
		assert.deepEqual(
			occurrences(/resolveTarget\(/, (p) => !p.startsWith('src/views/')),
			[],
		);
	});

	test('no internal call goes through one of our command ids', () => {
		assert.deepEqual(
			occurrences(/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./, () => true),
			[],
		);
	});

	test('no cast of a server record outside src/api', () => {
		// The webview protocols validate messages from our own pages (never server records).
		const allowed = new Set(['src/webviews/messages.ts', 'src/webviews/computer/protocol.ts', 'src/webviews/savings/protocol.ts']);
		assert.deepEqual(
			occurrences(/as Record<string, unknown>/, (p) => !p.startsWith('src/api/') && !allowed.has(p)),
			[],
		);
	});

	test("the test harness's commands are registered in src/testing.ts only", () => {
		assert.deepEqual(
			occurrences(/registerCommand\(\s*['"`]_cloudAgents\./, (p) => p !== 'src/testing.ts'),
			[],
		);
		assert.ok(occurrences(/registerCommand\(\s*['"`]_cloudAgents\./, (p) => p === 'src/testing.ts').length > 0);
	});

	test('the framework imports no resource', () => {
		assert.deepEqual(
			occurrences(/from '\.\.\/resources/, (p) => p.startsWith('src/views/')),
			[],
		);
	});

	test('the checks see what they look for', () => {
		assert.ok(
			/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./.test(
				"vscode.commands.executeCommand<string>('_cloudAgents.views.rows')",
			),
		);
		assert.ok(/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./.test("executeCommand('cloudAgents.signIn')"));
		assert.ok(!/executeCommand\s*(<[^>]*>)?\(\s*['"`]_?cloudAgents\./.test("executeCommand('setContext', 'cloudAgents.loaded', true)"));
	});
});
