/**
 * A stand-in for the `vscode` module, for loading a built bundle in plain Node (the bundles test,
 * the bench's plain-Node load). Like the extension host's API object, it is a plain object whose own
 * properties are the API's top-level names (read from @types/vscode): esbuild's wrapper copies a
 * module's own properties, so a stand-in that only answered every name through a proxy would lose
 * them. Each name is a stand-in whose every property, call and `new` yields another stand-in.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The top-level names `declare module 'vscode'` exports (namespaces, classes, enums, functions, constants). */
export function vscodeApiNames(root: string): string[] {
	const dts = readFileSync(join(root, 'node_modules', '@types', 'vscode', 'index.d.ts'), 'utf8');
	const names = [...dts.matchAll(/^\texport (?:namespace|class|enum|const|let|var|function) ([A-Za-z_$][\w$]*)/gm)].map((m) => m[1]!);
	return [...new Set(names)];
}

/**
 * Builds the stand-in for `names`. Self-contained (its source, `makeVscodeStub.toString()`, is also
 * run in another Node process by the bench).
 */
export function makeVscodeStub(names: readonly string[]): Record<string, unknown> {
	const get = (_t: object, key: string | symbol): unknown => (key === Symbol.toPrimitive ? () => '' : stub);
	const stub: object = new Proxy(
		function vscode() {
			/* stand-in */
		},
		{ get, apply: () => stub, construct: () => stub },
	);
	const api: Record<string, unknown> = {};
	for (const name of names) {
		api[name] = stub;
	}
	return api;
}
