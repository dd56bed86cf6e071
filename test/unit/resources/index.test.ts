import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { COLLAPSE_ALL_VIEWS, VIEW_IDS } from '../../../src/ids';
import { LIST_DESCRIPTORS } from '../../../src/resources';

/**
 * The resource registry (src/resources/index.ts) and the manifest agree. The resource modules
 * import `vscode`, so this plain-Node test reads their source: every list descriptor of the folder
 * is registered in LIST_DESCRIPTORS and every resource's actions in resourceActions(), every `viewId`
 * a descriptor names is a contributed tree view, and every contributed tree view of ours is served
 * by exactly one descriptor. (A resource's own flows beside it, e.g. prompt.ts, have neither.)
 */

// Compiled to out/test/unit/resources/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');
const folder = join(root, 'src', 'resources');
const registry = readFileSync(join(folder, 'index.ts'), 'utf8');
/** A resource's own flows, beside it: no list and no actions of their own (the resource's actions call them). */
const flows = new Set(['prompt.ts', 'computer.ts']);
const modules = readdirSync(folder).filter((f) => f.endsWith('.ts') && f !== 'index.ts' && !flows.has(f));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	contributes: { views: Record<string, Array<{ id: string; type?: string; visibility?: string }>> };
};

/** The exported action objects of a module: `export const <name>Actions = {`. */
function actionsOf(source: string): string[] {
	return [...source.matchAll(/^export const (\w+Actions) = \{/gm)].map((m) => m[1]!);
}

/** The names listed in one of the registry's arrays. */
function registered(name: string): Set<string> {
	// An array (`export const NAME: … = [`) or a function returning one (`export const NAME = (): … => [`).
	const list = new RegExp(`^export const ${name}[^=]*=\\s*(?:\\(\\)[^=]*=>\\s*)?\\[([^\\]]*)\\]`, 'm').exec(registry)?.[1] ?? '';
	return new Set(
		list
			.split(',')
			.map((s) => s.trim())
			.filter((s) => s !== ''),
	);
}

/** The exported descriptor constants of a module: `export const <name>: ListDescriptor<…> = {`. */
function descriptorsOf(source: string): string[] {
	return [...source.matchAll(/^export const (\w+): ListDescriptor</gm)].map((m) => m[1]!);
}

suite('resource registry (src/resources)', () => {
	test('the views drawn with Collapse All (COLLAPSE_ALL_VIEWS, created at activation before any list) are exactly the views of group rows', () => {
		const grouped = LIST_DESCRIPTORS.filter((d) => d.groups && d.viewId).map((d) => d.viewId);
		assert.ok(grouped.length > 0);
		assert.deepEqual([...COLLAPSE_ALL_VIEWS].sort(), grouped.sort());
	});

	test('every list and every set of actions of the folder is registered', () => {
		assert.ok(modules.length >= 4, modules.join(', '));
		const lists = registered('LIST_DESCRIPTORS');
		const actions = registered('resourceActions');
		const missing: string[] = [];
		for (const file of modules) {
			const source = readFileSync(join(folder, file), 'utf8');
			const names = descriptorsOf(source);
			assert.ok(names.length + actionsOf(source).length > 0, `${file} exports no ListDescriptor and no actions`);
			for (const name of names) {
				if (!lists.has(name)) {
					missing.push(`${name} (${file}, LIST_DESCRIPTORS)`);
				}
			}
			for (const name of actionsOf(source)) {
				if (!actions.has(name)) {
					missing.push(`${name} (${file}, resourceActions)`);
				}
			}
		}
		assert.deepEqual(missing, [], `not registered: ${missing.join(', ')}`);
		for (const file of flows) {
			const source = readFileSync(join(folder, file), 'utf8');
			assert.equal(descriptorsOf(source).length + actionsOf(source).length, 0, `${file} is a flow, yet exports a list or actions`);
		}
	});

	test('the views descriptors name are exactly the contributed tree views, the Activity view aside (src/flows/activity.ts: no server list)', () => {
		const named: string[] = [];
		for (const file of modules) {
			for (const m of readFileSync(join(folder, file), 'utf8').matchAll(/^\tviewId: '([^']+)'/gm)) {
				named.push(m[1]!);
			}
		}
		const trees = Object.values(manifest.contributes.views)
			.flat()
			.filter((v) => v.type === undefined || v.type === 'tree')
			.map((v) => v.id)
			.filter((id) => id !== VIEW_IDS.activity);
		assert.deepEqual([...named].sort(), [...new Set(named)].sort(), 'a view served by two descriptors');
		assert.deepEqual([...named].sort(), [...trees].sort());
	});

	test('the lists read ahead (issue 44) are the top-level lists of the views that show expanded when the container opens', () => {
		const expanded = new Set(
			Object.values(manifest.contributes.views)
				.flat()
				.filter((v) => v.visibility !== 'collapsed')
				.map((v) => v.id),
		);
		const shown = LIST_DESCRIPTORS.filter((d) => d.viewId !== undefined && expanded.has(d.viewId) && d.parent === undefined);
		assert.ok(shown.length >= 2, shown.map((d) => d.key).join(', '));
		assert.deepEqual(
			LIST_DESCRIPTORS.filter((d) => d.readAhead).map((d) => d.key),
			shown.map((d) => d.key),
		);
	});

	test('the check reads the forms the modules use (a descriptor constant and its viewId)', () => {
		assert.deepEqual(
			descriptorsOf("export const imagesList: ListDescriptor<Image, { image: Image }> = {\n\tviewId: 'cloudAgents.images',"),
			['imagesList'],
		);
		assert.deepEqual(descriptorsOf('const notExported: ListDescriptor<X> = {'), []);
	});
});
