import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ListContext, ListDescriptor, RowContext, RowSpec } from '../../../src/views/descriptor';
import { LoadMoreNode, MessageNode, RecordNode, resolveTooltip, rowId } from '../../../src/views/rows';

interface Run {
	id: string;
	status: string;
	note?: string;
}

interface RunFields {
	agentId: string | undefined;
	run: Run;
	/** A field named like a member of the row: only in `target`. */
	id: string;
}

const ctxBase: ListContext = { client: () => assert.fail('no client'), lookup: () => undefined, flag: () => false };

/** A descriptor of runs whose row the test shapes through `look`. */
function runs(look: (run: Run, ctx: RowContext<unknown>) => RowSpec): ListDescriptor<Run, RunFields, unknown> {
	return {
		key: 'runs',
		kind: 'run',
		source: { list: async () => ({ items: [], more: false }) },
		keyOf: (run) => run.id,
		row: look,
		fields: (run, parentKey) => ({ agentId: parentKey, run, id: `field-${run.id}` }),
	};
}

const plain = runs((run) => ({ label: `Run ${run.id}`, description: run.status, contextValue: `run:${run.status}` }));

function node(
	descriptor: ListDescriptor<Run, RunFields, unknown>,
	run: Run,
	options: { parentKey?: string; hasChildren?: boolean; cachedAt?: number } = {},
): RecordNode<Run, RunFields> {
	const ctx: RowContext<unknown> = { ...ctxBase, parent: undefined, parentKey: options.parentKey };
	return new RecordNode<Run, RunFields>(descriptor, run, undefined, undefined, ctx, options.hasChildren ?? false, options.cachedAt);
}

/** A row's tooltip as text, read afresh (not narrowed by an earlier assertion). */
function tooltipOf(item: vscode.TreeItem): string {
	return typeof item.tooltip === 'string' ? item.tooltip : assert.fail(`no text tooltip: ${typeof item.tooltip}`);
}

/** src/views/rows.ts on the `vscode` fake. */
suite('views/rows', () => {
	test('rowId: <kind>/<key> without a parent, <kind>/<parent>/<key> with one (an empty parent key still counts)', () => {
		assert.equal(rowId({ kind: 'run' }, 'r1', undefined), 'run/r1');
		assert.equal(rowId({ kind: 'run' }, 'r1', 'a1'), 'run/a1/r1');
		assert.equal(rowId({ kind: 'run' }, 'r1', ''), 'run//r1');
	});

	test('a message row: its id and options, contextValue "message" unless given, never expandable', () => {
		const icon = new vscode.ThemeIcon('info');
		const bare = new MessageNode('runs/empty', 'No runs');
		assert.equal(bare.id, 'runs/empty');
		assert.equal(bare.label, 'No runs');
		assert.equal(bare.contextValue, 'message');
		assert.equal(bare.collapsibleState, vscode.TreeItemCollapsibleState.None);
		assert.equal(bare.command, undefined);
		const full = new MessageNode('runs/error', 'Could not load', {
			icon,
			tooltip: 'why',
			description: 'desc',
			contextValue: 'error',
			command: { command: 'cloudAgents.refreshRuns', title: 'Retry' },
		});
		assert.equal(full.iconPath, icon);
		assert.equal(full.tooltip, 'why');
		assert.equal(full.description, 'desc');
		assert.equal(full.contextValue, 'error');
		assert.equal(full.command?.command, 'cloudAgents.refreshRuns');
	});

	test('"Load more…" row: id under the view key, its command, the ellipsis icon', () => {
		const more = new LoadMoreNode('agents', 'cloudAgents.loadMoreAgents');
		assert.equal(more.id, 'agents/loadMore');
		assert.equal(more.label, 'Load more…');
		assert.equal(more.contextValue, 'loadMore');
		assert.deepEqual(more.command, { command: 'cloudAgents.loadMoreAgents', title: 'Load More' });
		assert.equal((more.iconPath as vscode.ThemeIcon).id, 'ellipsis');
	});

	test('a record row takes its look from the descriptor, its id from kind, parent key and key', () => {
		const row = node(plain, { id: 'r1', status: 'running' }, { parentKey: 'a1' });
		assert.equal(row.id, 'run/a1/r1');
		assert.equal(row.label, 'Run r1');
		assert.equal(row.description, 'running');
		assert.equal(row.contextValue, 'run:running');
		assert.equal(row.collapsibleState, vscode.TreeItemCollapsibleState.None);
		assert.equal(row.cachedAt, undefined);
		assert.equal(
			node(plain, { id: 'r2', status: 'idle' }, { hasChildren: true }).collapsibleState,
			vscode.TreeItemCollapsibleState.Collapsed,
		);
	});

	test('the fields are own properties of the row, except one named like a member of the row (only in target)', () => {
		const run = { id: 'r1', status: 'idle' };
		const row = node(plain, run, { parentKey: 'a1' });
		const props = row as unknown as Record<string, unknown>;
		assert.equal(props.agentId, 'a1');
		assert.equal(props.run, run);
		assert.equal(row.id, 'run/a1/r1', 'the field `id` does not replace the row id');
		assert.deepEqual(row.target, { agentId: 'a1', run, id: 'field-r1' });
	});

	test('setRecord shows a newer copy on the same row object: look, fields and target', () => {
		const row = node(plain, { id: 'r1', status: 'running' }, { parentKey: 'a1' });
		const newer = { id: 'r1', status: 'succeeded' };
		row.setRecord(newer);
		assert.equal(row.record, newer);
		assert.equal(row.description, 'succeeded');
		assert.equal(row.contextValue, 'run:succeeded');
		assert.equal((row as unknown as Record<string, unknown>).run, newer, 'a field set before is set again');
		assert.equal(row.target.run, newer);
		assert.equal(row.id, 'run/a1/r1');
	});

	test('a click command receives the row itself unless the descriptor gives arguments', () => {
		const withCommand = runs((run) => ({
			label: run.id,
			contextValue: 'run',
			command: { command: 'cloudAgents.refresh', title: 'Open', arguments: run.note ? [run.note] : undefined },
		}));
		const row = node(withCommand, { id: 'r1', status: 'idle' });
		assert.deepEqual(row.command?.arguments, [row]);
		assert.equal(row.command?.command, 'cloudAgents.refresh');
		const given = node(withCommand, { id: 'r2', status: 'idle', note: 'x' });
		assert.deepEqual(given.command?.arguments, ['x']);
		assert.equal(node(plain, { id: 'r3', status: 'idle' }).command, undefined);
	});

	test('a tooltip given as a function is built only on request, once, made safe; an update builds it again', () => {
		let built = 0;
		const lazy = runs((run) => ({
			label: run.id,
			contextValue: 'run',
			tooltip: () => {
				built++;
				return `Status: ${run.status}\u202E [x](command:evil)`;
			},
		}));
		const row = node(lazy, { id: 'r1', status: 'idle' });
		assert.equal(row.tooltip, undefined);
		assert.equal(built, 0, 'not built with the row');
		resolveTooltip(row);
		assert.equal(built, 1);
		assert.equal(typeof row.tooltip, 'string');
		assert.ok(tooltipOf(row).startsWith('Status: idle'), tooltipOf(row));
		assert.ok(!tooltipOf(row).includes('\u202E'), 'bidi control removed');
		resolveTooltip(row);
		assert.equal(built, 1, 'built once');
		row.setRecord({ id: 'r1', status: 'failed' });
		assert.equal(row.tooltip, undefined, 'an update leaves the tooltip to be built on the next hover');
		resolveTooltip(row);
		assert.equal(built, 2);
		assert.ok(tooltipOf(row).startsWith('Status: failed'));
	});

	test('a string tooltip replaces a lazy one; resolveTooltip then leaves it as set', () => {
		let lazyNow = true;
		const switching = runs((run) => ({
			label: run.id,
			contextValue: 'run',
			tooltip: lazyNow ? () => 'lazy' : 'plain',
		}));
		const row = node(switching, { id: 'r1', status: 'idle' });
		lazyNow = false;
		row.update();
		assert.equal(row.tooltip, 'plain');
		assert.equal(resolveTooltip(row).tooltip, 'plain');
	});

	test('a row as last loaded is marked: "cached" first, the icon dimmed, the tooltip says when', () => {
		const look = runs((run) => ({
			label: run.id,
			description: run.status,
			icon: new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('testing.iconPassed')),
			tooltip: 'Run details',
			contextValue: 'run',
		}));
		const row = node(look, { id: 'r1', status: 'idle' }, { cachedAt: Date.now() - 5 * 60_000 });
		assert.equal(row.description, 'cached · idle');
		const icon = row.iconPath as vscode.ThemeIcon;
		assert.equal(icon.id, 'pass-filled');
		assert.equal(icon.color?.id, 'disabledForeground');
		assert.equal(row.tooltip, undefined, 'the tooltip is built on hover');
		const tooltip = resolveTooltip(row).tooltip as string;
		const [first, second] = tooltip.split('\n');
		assert.match(first!, /^As last loaded .+, not refreshed yet\.$/);
		assert.equal(second, 'Run details');
		// No description and no icon of its own: only "cached", and no icon.
		const bare = node(plain, { id: 'r2', status: '' }, { cachedAt: Date.now() });
		assert.equal(bare.description, 'cached');
		assert.equal(bare.iconPath, undefined);
	});
});
