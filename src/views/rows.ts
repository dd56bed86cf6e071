/**
 * The rows of a list (listTree.ts draws them): a record's row, built from its descriptor, and the
 * rows that are no record (a message, "Load more…").
 */
import * as vscode from 'vscode';
import { fromUnixMillis } from '../api';
import type { ListDescriptor, RowContext } from './descriptor';
import { joinParts, relativeTime, safeTreeItem } from './format';

/** A row that is a message, not a record: empty, error, "Select an agent", and so on. */
export class MessageNode extends vscode.TreeItem {
	constructor(
		id: string,
		label: string,
		options: { icon?: vscode.ThemeIcon; command?: vscode.Command; tooltip?: string; contextValue?: string; description?: string } = {},
	) {
		super(label, vscode.TreeItemCollapsibleState.None);
		this.id = id;
		this.iconPath = options.icon;
		this.command = options.command;
		this.tooltip = options.tooltip;
		this.description = options.description;
		this.contextValue = options.contextValue ?? 'message';
	}
}

/** The "Load more…" row at the end of a list that has more pages. */
export class LoadMoreNode extends vscode.TreeItem {
	constructor(viewKey: string, command: string) {
		super(vscode.l10n.t('Load more…'), vscode.TreeItemCollapsibleState.None);
		this.id = `${viewKey}/loadMore`;
		this.iconPath = new vscode.ThemeIcon('ellipsis');
		this.contextValue = 'loadMore';
		this.command = { command, title: vscode.l10n.t('Load More') };
	}
}

/**
 * A row of a record, built from its descriptor. Besides the TreeItem it carries the record, its
 * parent and the descriptor's `fields` as its own properties (`{agentId, run}` for a run), so a
 * command run on the row reads the same members an automation object has (a field named like a
 * member of the row, such as `id` or `label`, is only in `target`).
 */
export class RecordNode<T = unknown, F extends object = object> extends vscode.TreeItem {
	/** The fields a command receives for this row (the descriptor's `fields`). */
	target!: F;
	constructor(
		readonly descriptor: ListDescriptor<T, F, unknown>,
		/** The record shown (replaced in place by `setRecord` when a read brings a new copy of it). */
		public record: T,
		/** The parent record, when the list has one. */
		readonly parentRecord: unknown,
		/** The row this one hangs under (subtrees). */
		readonly parentNode: vscode.TreeItem | undefined,
		private readonly ctx: RowContext<unknown>,
		hasChildren: boolean,
		/** Set on a row as last loaded (rowCache.ts), not yet refreshed: when it was loaded. Shown dimmed and marked. */
		readonly cachedAt?: number,
	) {
		super('', hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
		this.id = rowId(descriptor, descriptor.keyOf(record), ctx.parentKey);
		this.update();
		this.setFields();
	}

	/**
	 * Shows a newer copy of the same record (same key): its look and the fields a command receives,
	 * on this very row object, so VS Code keeps the row's handle (and an open context menu its row).
	 */
	setRecord(record: T): void {
		this.record = record;
		this.setFields();
		this.update();
	}

	private setFields(): void {
		this.target = this.descriptor.fields(this.record, this.ctx.parentKey);
		// The fields as own properties, never over a member of the row itself (`id`, `label`, …).
		for (const [name, value] of Object.entries(this.target)) {
			if (!(name in this) || Object.prototype.hasOwnProperty.call(this.fieldNames, name)) {
				this.fieldNames[name] = true;
				Reflect.set(this, name, value);
			}
		}
	}

	/** Names of the fields set as own properties (so a newer copy of the record may set them again). */
	private readonly fieldNames: Record<string, true> = Object.create(null) as Record<string, true>;

	/** Reads the row's look again from its record (names of other records, flags and times may have changed). */
	update(): void {
		const spec = this.descriptor.row(this.record, this.ctx);
		this.label = spec.label;
		this.description = spec.description;
		this.iconPath = spec.icon;
		let tooltip = spec.tooltip;
		const cachedAt = this.cachedAt;
		if (cachedAt !== undefined) {
			// Never a stale row as fresh: "cached" first in the description, the icon dimmed, the tooltip says so.
			this.description = joinParts(vscode.l10n.t('cached'), spec.description);
			this.iconPath = spec.icon && new vscode.ThemeIcon(spec.icon.id, new vscode.ThemeColor('disabledForeground'));
			const built = tooltip;
			const note = (): string =>
				vscode.l10n.t('As last loaded {0}, not refreshed yet.', relativeTime(fromUnixMillis(cachedAt)) ?? '');
			tooltip = () => `${note()}\n${typeof built === 'function' ? built() : (built ?? '')}`;
		}
		// A tooltip built on hover is built again on the next hover after an update.
		if (typeof tooltip === 'function') {
			lazyTooltips.set(this, tooltip);
			this.tooltip = undefined;
		} else {
			lazyTooltips.delete(this);
			this.tooltip = tooltip;
		}
		this.contextValue = spec.contextValue;
		this.command = spec.command && {
			command: spec.command.command,
			title: spec.command.title,
			arguments: spec.command.arguments ?? [this],
		};
	}
}

/** Tooltips built on request (RowSpec.tooltip as a function), by row. */
const lazyTooltips = new WeakMap<vscode.TreeItem, () => string>();

/**
 * Fills in a row's tooltip when its descriptor builds it on request (`resolveTreeItem`, on hover;
 * the test seam's rows), made safe as every row is. Returns the row.
 */
export function resolveTooltip(item: vscode.TreeItem): vscode.TreeItem {
	const build = lazyTooltips.get(item);
	if (build !== undefined && item.tooltip === undefined) {
		item.tooltip = build();
		lazyTooltips.delete(item);
	}
	return safeTreeItem(item);
}

/** The id of a record's row: `<kind>/<parent key>/<key>`, or `<kind>/<key>` without a parent. */
export function rowId(descriptor: { kind: string }, key: string, parentKey: string | undefined): string {
	return parentKey === undefined ? `${descriptor.kind}/${key}` : `${descriptor.kind}/${parentKey}/${key}`;
}
