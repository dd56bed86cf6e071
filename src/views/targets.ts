import * as vscode from 'vscode';
import type { ResolveOptions } from './actions';
import type { ListDescriptor } from './descriptor';
import { joinParts } from './format';
import type { CloudAgentViews } from './index';
import { RecordNode } from './listTree';
import { argString, pickItem, pickWhenLoaded } from './ui';

/** What the resolver needs: the views (their loaded rows, the selection, the descriptors' context) and globalState. */
export interface TargetDeps {
	views: CloudAgentViews;
	context: vscode.ExtensionContext;
}

/** A record found, with the key of its parent (the agent of a run), when its list has one. */
interface Found<T> {
	record: T;
	parentKey: string | undefined;
}

/**
 * The one place where a command finds what it acts on, the same way for every list descriptor
 * (src/resources) that declares a `target`:
 * 1. a row of that list (tree click, context menu, inline button), or of a list `options.alsoOn`
 *    names (the same records with the same fields): its fields;
 * 2. a link or another command: the id as a string argument, or an automation object naming it
 *    (`{agentId}`, `{agentId, runId}`): read through `target.get` (the loaded row first when the
 *    descriptor says `preferLoaded`); a record under a parent takes the parent from the same
 *    object, else the selection, else asks for it (offering the parents `target.parentFilter` keeps);
 * 3. with `useSelection`, the record selected in the UI (the agent the Runs view follows);
 * 4. the palette: a quick pick (busy while loading; recently used first), narrowed by `filter`.
 * Resolves with the descriptor's fields (`{agent}`, `{agentId, run}`, …), or undefined when the
 * user dismissed a pick.
 */
export async function resolveTarget<T, F extends object, P>(
	deps: TargetDeps,
	descriptor: ListDescriptor<T, F, P>,
	arg: unknown,
	options: ResolveOptions<T>,
): Promise<F | undefined> {
	if (arg instanceof RecordNode && (arg.descriptor.key === descriptor.key || options.alsoOn?.some((d) => d.key === arg.descriptor.key))) {
		return arg.target as F;
	}
	const found = await findRecord(deps, descriptor, arg, options);
	return found && descriptor.fields(found.record, found.parentKey);
}

async function findRecord<T, P>(
	deps: TargetDeps,
	descriptor: ListDescriptor<T, object, P>,
	arg: unknown,
	options: ResolveOptions<T>,
): Promise<Found<T> | undefined> {
	if (arg instanceof RecordNode && arg.descriptor.key === descriptor.key) {
		return {
			record: arg.record as T,
			parentKey: arg.parentRecord === undefined || !descriptor.parent ? undefined : descriptor.parent.of.keyOf(arg.parentRecord as P),
		};
	}
	const spec = descriptor.target;
	if (!spec) {
		throw new Error(`the list ${descriptor.key} declares no target`);
	}
	const ctx = deps.views.ctx;
	const id = typeof arg === 'string' ? arg : argString(arg, spec.idField);
	const parentSpec = descriptor.parent;
	// The parent: named in the same object (read only when its record is needed: to pick from
	// its records), else the selection, else a pick.
	let parentKey = parentSpec?.of.target ? argString(arg, parentSpec.of.target.idField) : undefined;
	let parentRecord: P | undefined;
	if (parentSpec && (parentKey === undefined || !id)) {
		const parent = await findRecord(deps, parentSpec.of, typeof arg === 'string' ? undefined : arg, {
			title: options.title,
			useSelection: true,
			filter: spec.parentFilter,
		});
		if (!parent) {
			return undefined;
		}
		parentRecord = parent.record;
		parentKey = parentSpec.of.keyOf(parent.record);
	}
	if (id) {
		const provider = deps.views.providerOf(descriptor);
		const loaded =
			spec.preferLoaded &&
			(!parentSpec || parentKey === (provider.parent === undefined ? undefined : parentSpec.of.keyOf(provider.parent)))
				? provider.find(id)
				: undefined;
		const record = loaded ?? (await spec.get(ctx, id, parentKey));
		if (record === undefined) {
			throw new Error(spec.notFound?.(id) ?? vscode.l10n.t('{0} {1} was not found.', descriptor.kind, id));
		}
		return { record, parentKey };
	}
	if (options.useSelection) {
		const selected = deps.views.selected(descriptor);
		if (selected !== undefined) {
			return { record: selected, parentKey };
		}
	}
	if (options.pick) {
		const picked = await options.pick();
		return picked === undefined ? undefined : { record: picked, parentKey };
	}
	const recent = spec.recentKey ? recentIds(deps.context, spec.recentKey) : [];
	const filter = options.filter ?? ((): boolean => true);
	const loading = (): Promise<Array<vscode.QuickPickItem & { record: T }>> =>
		spec.choices(ctx, parentKey).then((items) => {
			const rank = (item: T): number => {
				const i = recent.indexOf(descriptor.keyOf(item));
				return i < 0 ? recent.length : i;
			};
			return items
				.filter(filter)
				.sort((a, b) => rank(a) - rank(b))
				.map((record) => {
					const text = spec.pickText(record);
					const isRecent = recent.includes(descriptor.keyOf(record));
					return pickItem(
						{ ...text, description: isRecent ? joinParts(text.description, vscode.l10n.t('recently used')) : text.description },
						{ record },
					);
				});
		});
	const pick = await pickWhenLoaded(loading, {
		title: options.title,
		placeHolder: spec.placeholder(parentRecord),
		matchOnDetail: spec.matchOnDetail ?? true,
	});
	return pick ? { record: pick.record, parentKey } : undefined;
}

/** Ids used recently (a globalState list of strings), most recent first. */
function recentIds(context: vscode.ExtensionContext, key: string): string[] {
	const ids = context.globalState.get<unknown>(key);
	return Array.isArray(ids) ? ids.filter((x): x is string => typeof x === 'string') : [];
}
