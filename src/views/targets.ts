import * as vscode from 'vscode';
import type { ResolveOptions, ScmTargets } from './actions';
import type { ListDescriptor } from './descriptor';
import { joinParts } from './format';
import type { ListScope } from './index';
import { RecordNode } from './rows';
import { argString, pickItem, pickWhenLoaded } from './ui';

/**
 * What the resolver needs: the lists of the deployment it resolves in (their loaded rows, the
 * selection, the descriptors' context: the default deployment's views, or another deployment's lists
 * when the command runs on its row) and globalState.
 */
export interface TargetDeps {
	views: ListScope;
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

// ---------------------------------------------------------------------- Source Control

/** How `resolveLink` asks and tells. */
export interface LinkResolveOptions {
	/** The quick pick's title (the command's name). */
	title: string;
	/** The quick pick's placeholder. */
	placeHolder: string;
	/** Tells the person that there is no link (the kit's `info`: an automation caller's goes to the log). */
	tell(this: void, message: string): void;
}

/**
 * The one place where a Source Control command finds the link it acts on (a LinkAction):
 * 1. a source control or resource group of ours (scm/title, a group's menu, the status bar's
 *    "Partly compared"): its link;
 * 2. an id: `{link}` (one that is no longer there is an error);
 * 3. a resource state or a local file URI: the link of its file;
 * 4. nothing (the palette): the only link, a pick among several, or, with none, says so.
 */
export async function resolveLink<L, F>(scm: ScmTargets<L, F>, arg: unknown, options: LinkResolveOptions): Promise<L | undefined> {
	const control = scm.linkOfControl(arg);
	if (control !== undefined) {
		return control;
	}
	const id = argString(arg, 'link');
	if (id !== undefined) {
		const link = scm.linkById(id);
		if (link === undefined) {
			throw new Error(vscode.l10n.t('No link {0}.', id));
		}
		return link;
	}
	const first = resolveFiles(scm, [arg])[0];
	if (first !== undefined) {
		return scm.linkOfFile(first);
	}
	const all = scm.links();
	if (all.length <= 1) {
		if (all.length === 0) {
			options.tell(scm.noLinks());
		}
		return all[0];
	}
	const picked = await vscode.window.showQuickPick(
		all.map((link) => pickItem(scm.pickText(link), { link })),
		{ title: options.title, placeHolder: options.placeHolder },
	);
	return picked?.link;
}

/**
 * The one place where a Source Control command finds the files it acts on (a FilesAction), from
 * every argument VS Code or a caller passes: a resource state (the one clicked) and the selection
 * (an array of them, the second argument), a resource group of ours (its files), a local file URI,
 * or ids `{link, paths}`. Each file once, in the order given; none when the arguments name none.
 */
export function resolveFiles<L, F>(scm: ScmTargets<L, F>, args: readonly unknown[]): F[] {
	const out = new Map<string, F>();
	const add = (files: readonly F[]): void => {
		for (const f of files) {
			const key = scm.keyOf(f);
			if (!out.has(key)) {
				out.set(key, f);
			}
		}
	};
	const visit = (arg: unknown, depth: number): void => {
		if (Array.isArray(arg)) {
			if (depth === 0) {
				arg.slice(0, SELECTION_MAX).forEach((a) => visit(a, 1));
			}
			return;
		}
		const link = scm.linkOfControl(arg);
		if (link !== undefined) {
			for (const state of resourceStatesOf(arg)) {
				add(scm.filesOfUri(state.resourceUri, link));
			}
			return;
		}
		const uri = arg instanceof vscode.Uri ? arg : resourceUriOf(arg);
		if (uri) {
			add(scm.filesOfUri(uri));
			return;
		}
		const id = argString(arg, 'link');
		const named = id === undefined ? undefined : scm.linkById(id);
		const paths = fieldOf(arg, 'paths');
		if (named !== undefined && Array.isArray(paths)) {
			add(
				scm.filesOf(
					named,
					paths.slice(0, SELECTION_MAX).filter((p): p is string => typeof p === 'string'),
				),
			);
		}
	};
	for (const arg of args) {
		visit(arg, 0);
	}
	return [...out.values()];
}

/** The most resource states (or paths) one command takes. */
const SELECTION_MAX = 10_000;

/** The resource states of a resource group (none for anything else). */
function resourceStatesOf(arg: unknown): readonly vscode.SourceControlResourceState[] {
	const states = fieldOf(arg, 'resourceStates');
	return Array.isArray(states)
		? states.filter((s: unknown): s is vscode.SourceControlResourceState => resourceUriOf(s) !== undefined)
		: [];
}

/** The `resourceUri` of a resource state, when `arg` is one. */
function resourceUriOf(arg: unknown): vscode.Uri | undefined {
	const uri = fieldOf(arg, 'resourceUri');
	return uri instanceof vscode.Uri ? uri : undefined;
}

/** A field of an object argument, whatever passed it (ids and resource states are read from anything). */
function fieldOf(arg: unknown, name: string): unknown {
	return arg !== null && typeof arg === 'object' ? Reflect.get(arg, name) : undefined;
}
