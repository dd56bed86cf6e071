import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listOperations } from '../support/openapiValidator';
import { FLOWS, OPERATION_MAP, PENDING_OPERATIONS } from './operationMap';
import type { Surface } from './operationMap';

// Compiled to out/test/unit/spec/, so the repository root is four levels up.
const root = join(__dirname, '..', '..', '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	contributes: { commands: Array<{ command: string }>; views: Record<string, Array<{ id: string }>> };
};
const commands = new Set(manifest.contributes.commands.map((c) => c.command));
const views = new Set(Object.values(manifest.contributes.views).flat().map((v) => v.id));

/** The places an entry names, as a list. */
function surfaces(entry: Surface | readonly Surface[]): readonly Surface[] {
	return typeof entry === 'string' ? [entry] : entry;
}

suite('every operation of the service is reachable from the UI (test/unit/spec/operationMap.ts)', () => {
	const operations = listOperations();

	test('every operation of spec/openapi.yaml has an entry in OPERATION_MAP or PENDING_OPERATIONS', () => {
		const missing = operations.filter((op) => !(op.operationId in OPERATION_MAP) && !PENDING_OPERATIONS.includes(op.operationId))
			.map((op) => `${op.operationId} (${op.method} ${op.pathTemplate})`);
		assert.deepEqual(missing, [], `operations no command, view or flow reaches: ${missing.join(', ')}`);
	});

	test('no entry names an operation the spec does not have, and none is both mapped and pending', () => {
		const known = new Set(operations.map((op) => op.operationId));
		const stale = [...Object.keys(OPERATION_MAP), ...PENDING_OPERATIONS].filter((id) => !known.has(id));
		assert.deepEqual(stale, [], `entries for operations not in the spec: ${stale.join(', ')}`);
		const both = PENDING_OPERATIONS.filter((id) => id in OPERATION_MAP);
		assert.deepEqual(both, [], `mapped operations still listed as pending (remove them from PENDING_OPERATIONS): ${both.join(', ')}`);
		assert.equal(new Set(PENDING_OPERATIONS).size, PENDING_OPERATIONS.length, 'a pending operation is listed twice');
	});

	test('every entry names a command or view package.json contributes, or a documented flow', () => {
		const wrong: string[] = [];
		for (const [operationId, entry] of Object.entries(OPERATION_MAP)) {
			assert.ok(surfaces(entry).length > 0, `${operationId} names no place`);
			for (const surface of surfaces(entry)) {
				const ok = surface.startsWith('flow:') ? surface in FLOWS : commands.has(surface) || views.has(surface);
				if (!ok) {
					wrong.push(`${operationId} → ${surface}`);
				}
			}
		}
		assert.deepEqual(wrong, [], `entries naming no contributed command, view or flow: ${wrong.join(', ')}`);
	});

	test('the map and the pending list together cover the spec exactly once each', () => {
		assert.equal(Object.keys(OPERATION_MAP).length + PENDING_OPERATIONS.length, operations.length);
	});
});
