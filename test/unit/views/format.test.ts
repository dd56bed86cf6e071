import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { SAFETY } from '../../../src/api';
import { agentStatusIcon, joinParts, plainTooltip, runStatusIcon, runtimeStatusIcon, safeTreeItem } from '../../../src/views/format';

/** src/views/format.ts on the `vscode` fake (test/unit/support/vscodeFake.ts). */
suite('views/format', () => {
	test('run statuses map by class, whatever the spelling; an unknown one is a question mark', () => {
		assert.equal(runStatusIcon('succeeded').id, 'pass-filled');
		assert.equal(runStatusIcon('SUCCESS').id, runStatusIcon('succeeded').id);
		assert.equal(runStatusIcon('failed').id, 'error');
		assert.equal(runStatusIcon('cancelled').id, 'circle-slash');
		assert.equal(runStatusIcon('made_up_status').id, 'question');
		assert.equal(runStatusIcon(undefined).id, 'question');
	});

	test('an idle agent is ready (an outline, not a green check); an agent in error is failed', () => {
		assert.equal(agentStatusIcon('idle').id, 'circle-large-outline');
		assert.equal(agentStatusIcon('idle').color, undefined);
		assert.equal(agentStatusIcon('error').id, 'error');
	});

	test('a degraded runtime warns even when its status is running; a transition spins', () => {
		assert.equal(runtimeStatusIcon('running', true, false).id, 'warning');
		assert.equal(runtimeStatusIcon('running', false, true).id, 'sync~spin');
		assert.equal(runtimeStatusIcon('crashed', false, false).id, 'error');
		assert.equal(runtimeStatusIcon('running', false, false).id, 'pass-filled');
	});

	test('joinParts keeps the present parts only', () => {
		assert.equal(joinParts('a', undefined, false, '', 'b'), 'a · b');
		assert.equal(joinParts(), '');
	});

	test('plainTooltip drops empty values, puts each value on one line and cuts the whole', () => {
		const text = plainTooltip('Agent\nname', [
			['Status', 'idle'],
			['Note', 'line one\nline two'],
			['Empty', ''],
			['None', undefined],
			['Count', 0],
		]);
		const lines = text.split('\n');
		assert.equal(lines.length, 4, text);
		assert.ok(!lines[0]!.includes('\n'));
		assert.ok(
			lines.some((l) => l.startsWith('Count: 0')),
			text,
		);
		assert.ok(!text.includes('Empty'));
		const long = plainTooltip('t', [['x', 'y'.repeat(SAFETY.tooltipMaxChars * 3)]]);
		assert.ok(long.length <= SAFETY.tooltipMaxChars, `${long.length}`);
	});

	test('safeTreeItem: one-line, neutralised label and description; a Markdown tooltip becomes plain text', () => {
		const item = new vscode.TreeItem('evil\u202Ename\nsecond');
		item.description = 'x'.repeat(SAFETY.descriptionMaxChars + 50);
		item.tooltip = new vscode.MarkdownString('[click](command:rm)');
		const safe = safeTreeItem(item);
		assert.equal(safe, item);
		assert.equal(typeof safe.label, 'string');
		assert.ok(!(safe.label as string).includes('\u202E'));
		assert.ok(!(safe.label as string).includes('\n'));
		assert.ok((safe.description as string).length <= SAFETY.descriptionMaxChars);
		assert.equal(typeof safe.tooltip, 'string');
		assert.ok(!(safe.tooltip instanceof vscode.MarkdownString));
		assert.deepEqual(safeTreeItem(safe), safe, 'idempotent');
	});

	test('a label with highlights loses them (they would point at the wrong characters)', () => {
		const item = new vscode.TreeItem({ label: 'a\tb', highlights: [[0, 1]] });
		safeTreeItem(item);
		assert.deepEqual(Object.keys(item.label as object), ['label']);
	});
});
