import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The list registry (src/views/lists/index.ts) and the manifest agree. The descriptor modules
 * import `vscode`, so this plain-Node test reads their source: every module of the folder is
 * registered in LIST_DESCRIPTORS, every `viewId` a descriptor names is a contributed tree view,
 * and every contributed tree view of ours is served by exactly one descriptor.
 */

// Compiled to out/test/unit/views/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');
const folder = join(root, 'src', 'views', 'lists');
const registry = readFileSync(join(folder, 'index.ts'), 'utf8');
const modules = readdirSync(folder).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	contributes: { views: Record<string, Array<{ id: string; type?: string }>> };
};

/** The exported descriptor constants of a module: `export const <name>: ListDescriptor<…> = {`. */
function descriptorsOf(source: string): string[] {
	return [...source.matchAll(/^export const (\w+): ListDescriptor</gm)].map((m) => m[1]!);
}

suite('list registry (src/views/lists)', () => {
	test('every descriptor module of the folder is registered in LIST_DESCRIPTORS', () => {
		assert.ok(modules.length >= 4, modules.join(', '));
		const list = /LIST_DESCRIPTORS[^=]*=\s*\[([^\]]*)\]/.exec(registry)?.[1] ?? '';
		const registered = new Set(
			list
				.split(',')
				.map((s) => s.trim())
				.filter((s) => s !== ''),
		);
		const missing: string[] = [];
		for (const file of modules) {
			const names = descriptorsOf(readFileSync(join(folder, file), 'utf8'));
			assert.ok(names.length > 0, `${file} exports no ListDescriptor`);
			for (const name of names) {
				if (!registered.has(name)) {
					missing.push(`${name} (${file})`);
				}
			}
		}
		assert.deepEqual(missing, [], `descriptors not in LIST_DESCRIPTORS: ${missing.join(', ')}`);
	});

	test('the views descriptors name are exactly the contributed tree views', () => {
		const named: string[] = [];
		for (const file of modules) {
			for (const m of readFileSync(join(folder, file), 'utf8').matchAll(/^\tviewId: '([^']+)'/gm)) {
				named.push(m[1]!);
			}
		}
		const trees = Object.values(manifest.contributes.views)
			.flat()
			.filter((v) => v.type === undefined || v.type === 'tree')
			.map((v) => v.id);
		assert.deepEqual([...named].sort(), [...new Set(named)].sort(), 'a view served by two descriptors');
		assert.deepEqual([...named].sort(), [...trees].sort());
	});

	test('the check reads the forms the modules use (a descriptor constant and its viewId)', () => {
		assert.deepEqual(
			descriptorsOf("export const imagesList: ListDescriptor<Image, { image: Image }> = {\n\tviewId: 'cloudAgents.images',"),
			['imagesList'],
		);
		assert.deepEqual(descriptorsOf('const notExported: ListDescriptor<X> = {'), []);
	});
});
