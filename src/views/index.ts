import * as vscode from 'vscode';
import { ApiError, SAFETY } from '../api';
import type { CloudAgentsClient } from '../api';
import { Disposable } from '../util/lifecycle';
import { singleLine } from '../util/text';
import { Connectivity } from './connectivity';
import type { AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';
import { GroupedTreeProvider } from './groupTree';
import { DescriptorTreeProvider } from './listTree';
import { RecordNode } from './rows';
import type { ListHost } from './listTree';
import type { RowCache } from './rowCache';
import { type Registrations, directRegistrations } from '../util/registrations';

export { DescriptorTreeProvider, pageSize } from './listTree';
export { RecordNode } from './rows';
export type { AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';
export type { Action, ActionKit, RecordAction, ResourceAction, ResourceActions, Services } from './actions';

/** What the views need from the session: sign-in state, its change event and the shared client. */
export interface ViewSession {
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
	readonly client: CloudAgentsClient;
}

/** A view of the container: the tree VS Code draws and what draws its rows (a list's, or a view of group rows). */
export interface ShownView {
	readonly view: vscode.TreeView<vscode.TreeItem>;
	readonly rows: vscode.TreeDataProvider<vscode.TreeItem>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyProvider = DescriptorTreeProvider<any, any, any>;

/**
 * The tree views of the Cloud Agents container, one per descriptor of the registry
 * (`LIST_DESCRIPTORS`, src/resources/index.ts, handed in by src/extension.ts) that names a view id, each with the subtrees of the
 * descriptors nested under its rows. A list whose parent is a `selection` follows the record
 * selected in its parent's view (Runs and Artifacts follow the agent selected in Agents); each
 * list keeps its own paging, scroll and refresh.
 */
export class CloudAgentViews extends Disposable {
	private readonly providers = new Map<AnyListDescriptor, AnyProvider>();
	/** The same providers by their list's key (a descriptor may be a copy: see esbuild.mjs). */
	private readonly providersByKey = new Map<string, AnyProvider>();
	private readonly views = new Map<AnyListDescriptor, vscode.TreeView<vscode.TreeItem>>();
	/** Per list key, how many times its selection was set (restoreSelection: was a row selected meanwhile?). */
	private readonly selectionChanges = new Map<string, number>();
	/** Every view by its list's key, with what draws its rows (group views included). */
	private readonly shown = new Map<string, ShownView>();
	private readonly flags = new Map<string, (key: string, parentKey: string | undefined) => boolean>();
	private readonly client: () => CloudAgentsClient;
	/** What the descriptors' functions use: the client, other lists' records, flags. */
	readonly ctx: ListContext;
	/** Whether the service answers, shared by every list (connectivity.ts). */
	readonly connectivity: Connectivity;

	constructor(
		session: ViewSession,
		log: vscode.LogOutputChannel,
		reportError: (err: unknown) => void,
		/** Every list of the extension (src/resources/index.ts), in the order of their views. */
		lists: readonly AnyListDescriptor[],
		/** The shared connectivity (the extension's, which the client reports to); else one of the views' own. */
		connectivity?: Connectivity,
		/** The rows as last loaded, shown marked until the first answer (rowCache.ts); none without it. */
		rowCache?: RowCache,
		/** The window's memory (workspaceState): the selected agent comes back after a reload; none without it. */
		private readonly memory?: vscode.Memento,
		/** Where the tree views come from (the activation's stand-ins in the extension: src/shell/standIns.ts). */
		registrations: Registrations = directRegistrations,
	) {
		super();
		if (connectivity) {
			this.connectivity = connectivity;
		} else {
			const own = new Connectivity();
			this.connectivity = own;
			this.register({ dispose: () => own.dispose() });
		}
		const host: ListHost = {
			get signedIn() {
				return session.signedIn;
			},
			onDidChange: session.onDidChange,
			log,
			reportError,
			connectivity: this.connectivity,
			rowCache,
		};
		const client = (): CloudAgentsClient => session.client;
		this.client = client;
		this.ctx = {
			client,
			lookup: <U>(descriptor: ListDescriptor<U, object, unknown>, key: string): U | undefined =>
				this.providersByKey.get(descriptor.key)?.find(key) as U | undefined,
			flag: (name, key, parentKey) => this.flags.get(name)?.(key, parentKey) ?? false,
		};
		for (const descriptor of lists) {
			if (descriptor.parent?.as === 'children' || descriptor.groups) {
				continue;
			}
			const children = lists.filter((d) => d.parent?.as === 'children' && d.parent.of.key === descriptor.key);
			const provider = this.register(
				new DescriptorTreeProvider(descriptor, this.hostOf(descriptor, host, reportError), this.ctx, children),
			);
			this.providers.set(descriptor, provider);
			this.providersByKey.set(descriptor.key, provider);
		}
		for (const [descriptor, provider] of this.providers) {
			if (descriptor.viewId) {
				const view = this.register(
					registrations.treeView<vscode.TreeItem>(descriptor.viewId, provider, { showCollapseAll: false }),
				);
				provider.attach(view);
				this.views.set(descriptor, view);
				this.shown.set(descriptor.key, { view, rows: provider });
			}
		}
		// Views of group rows (Account): each group is a list above, shown under its group row.
		for (const descriptor of lists) {
			if (descriptor.groups && descriptor.viewId) {
				const groupLists = descriptor.groups.map((d) => this.providerOf(d));
				const grouped = this.register(
					new GroupedTreeProvider(
						descriptor as ListDescriptor<unknown, object, undefined>,
						this.ctx,
						groupLists,
						() => session.signedIn,
					),
				);
				const view = this.register(registrations.treeView<vscode.TreeItem>(descriptor.viewId, grouped, { showCollapseAll: true }));
				grouped.attach(view);
				this.shown.set(descriptor.key, { view, rows: grouped });
			}
		}
		// Selecting a row drives the lists that follow its kind (Runs and Artifacts follow Agents).
		for (const [descriptor, view] of this.views) {
			if (lists.some((d) => d.parent?.as === 'selection' && d.parent.of.key === descriptor.key)) {
				this.register(
					view.onDidChangeSelection((e) => {
						const node = e.selection.find(
							(n): n is RecordNode => n instanceof RecordNode && n.descriptor.key === descriptor.key,
						);
						if (node) {
							this.select(descriptor, node.record);
						}
					}),
				);
			}
		}

		this.register(
			session.onDidChange(() => {
				if (!session.signedIn) {
					for (const descriptor of this.views.keys()) {
						this.select(descriptor, undefined);
					}
				}
			}),
		);
		this.register(
			vscode.workspace.onDidChangeConfiguration((e) => {
				if (e.affectsConfiguration('cloudAgents.pageSize')) {
					this.resetAll();
				}
			}),
		);
		this.restoreSelections(session);
	}

	/**
	 * The host of a list: a list that follows another view's selection (Runs, Artifacts) drops that
	 * selection when its listing answers 404 (the agent was deleted meanwhile, here or elsewhere):
	 * "Select an agent" rather than "Could not load: agent … not found" (issue 42, item 6: a
	 * selection kept across a reload outlived its agent).
	 */
	private hostOf(descriptor: AnyListDescriptor, host: ListHost, reportError: (err: unknown) => void): ListHost {
		const of = descriptor.parent?.as === 'selection' ? descriptor.parent.of : undefined;
		if (!of) {
			return host;
		}
		// The host as it is (each member read from it when used), with its own reportError: a 404 of the selected record
		// drops the selection.
		return {
			get signedIn() {
				return host.signedIn;
			},
			get onDidChange() {
				return host.onDidChange;
			},
			get log() {
				return host.log;
			},
			get connectivity() {
				return host.connectivity;
			},
			get rowCache() {
				return host.rowCache;
			},
			reportError: (err: unknown): void => {
				reportError(err);
				if (err instanceof ApiError && err.status === 404 && this.selected(of) !== undefined) {
					setTimeout(() => this.select(of, undefined), 0);
				}
			},
		};
	}

	/**
	 * The agent selected before a reload is selected again once signed in (issue 42, item 6: the Runs
	 * view said "Select an agent" after every reload); one that is gone is forgotten.
	 */
	private restoreSelections(session: ViewSession): void {
		const memory = this.memory;
		if (!memory) {
			return;
		}
		const restore = (): void => {
			for (const descriptor of this.views.keys()) {
				const id = memory.get<unknown>(selectionKey(descriptor.key));
				if (typeof id === 'string' && id !== '' && this.selected(descriptor) === undefined) {
					void this.restoreSelection(descriptor, id);
				}
			}
		};
		if (session.signedIn) {
			restore();
			return;
		}
		const first = session.onDidChange(() => {
			if (session.signedIn) {
				first.dispose();
				restore();
			}
		});
		this.register(first);
	}

	/**
	 * Selects the record a reload kept (`id`), unless a row is selected while it is looked up: that
	 * selection stands (the kept agent, fetched because it was not among the loaded rows, was selected
	 * after the user's click, and the Runs view followed it, issue 41). A kept record no longer there
	 * is forgotten, unless a row was selected meanwhile (the memory then holds that row).
	 */
	async restoreSelection(descriptor: AnyListDescriptor, id: string): Promise<void> {
		const changes = (): number => this.selectionChanges.get(descriptor.key) ?? 0;
		const before = changes();
		let selectedMeanwhile = false;
		const stillWanted = (): boolean => {
			selectedMeanwhile = changes() !== before;
			return !selectedMeanwhile;
		};
		const record = await this.selectById(descriptor, id, stillWanted).catch(() => {
			stillWanted();
			return undefined;
		});
		if (record === undefined && !selectedMeanwhile && this.memory) {
			await this.memory.update(selectionKey(descriptor.key), undefined);
		}
	}

	/** The provider of a list (top-level; a subtree's rows are served by its parent's provider). */
	providerOf<T, F extends object, P>(descriptor: ListDescriptor<T, F, P>): DescriptorTreeProvider<T, F, P> {
		const provider =
			this.providersByKey.get(descriptor.key) ??
			(descriptor.parent?.as === 'children' ? this.providersByKey.get(descriptor.parent.of.key) : undefined);
		if (!provider) {
			throw new Error(`no list ${descriptor.key}`);
		}
		return provider as DescriptorTreeProvider<T, F, P>;
	}

	/** The view of a list (or of group rows) and what draws its rows, when it is a view. */
	viewOf(descriptor: AnyListDescriptor): ShownView | undefined {
		return this.shown.get(descriptor.key);
	}

	/**
	 * Sets a flag the rows read through `ctx.flag` (e.g. `followed` for runs whose events stream);
	 * whoever changes what it says redraws the list.
	 */
	setFlag(name: string, test: (key: string, parentKey: string | undefined) => boolean): void {
		this.flags.set(name, test);
	}

	/** Redraws every list from the records held. */
	redrawAll(): void {
		for (const provider of this.providers.values()) {
			provider.redraw();
		}
	}

	/** The record selected in a list's view that the lists following it show (the agent of Runs). */
	selected<T>(descriptor: ListDescriptor<T, object, unknown>): T | undefined {
		for (const [d, provider] of this.providers) {
			if (d.parent?.as === 'selection' && d.parent.of.key === descriptor.key) {
				return provider.parent as T | undefined;
			}
		}
		return undefined;
	}

	/** Makes the lists that follow `descriptor`'s view show the records of `record` (or nothing) and names it in their descriptions. */
	select<T>(descriptor: ListDescriptor<T, object, unknown>, record: T | undefined): void {
		this.selectionChanges.set(descriptor.key, (this.selectionChanges.get(descriptor.key) ?? 0) + 1);
		if (record !== undefined) {
			this.providersByKey.get(descriptor.key)?.rememberName(record);
		}
		const description =
			record !== undefined
				? singleLine(descriptor.name?.(record) || descriptor.keyOf(record), SAFETY.descriptionMaxChars)
				: undefined;
		if (this.memory && [...this.providers.keys()].some((d) => d.parent?.as === 'selection' && d.parent.of.key === descriptor.key)) {
			void this.memory.update(selectionKey(descriptor.key), record === undefined ? undefined : descriptor.keyOf(record));
		}
		for (const [d, provider] of this.providers) {
			if (d.parent?.as === 'selection' && d.parent.of.key === descriptor.key) {
				provider.setParent(record);
				const view = this.views.get(d);
				if (view) {
					view.description = description;
				}
			}
		}
	}

	/** Re-reads the lists that follow the selection of `descriptor`'s view (the Runs and Artifacts of the selected agent). */
	async refreshFollowing<T>(descriptor: ListDescriptor<T, object, unknown>): Promise<void> {
		const reads: Promise<void>[] = [];
		for (const [d, provider] of this.providers) {
			if (d.parent?.as === 'selection' && d.parent.of.key === descriptor.key) {
				reads.push(provider.refresh());
			}
		}
		await Promise.all(reads);
	}

	/** Selects a record of `descriptor` by id: reveals its row when loaded, else reads it. Undefined clears. */
	async selectById<T>(
		descriptor: ListDescriptor<T, object, unknown>,
		id: string | undefined,
		stillWanted: () => boolean = () => true,
	): Promise<T | undefined> {
		if (!id) {
			this.select(descriptor, undefined);
			return undefined;
		}
		const provider = this.providerOf(descriptor);
		let record = provider.find(id);
		if (record !== undefined) {
			try {
				await this.viewOf(descriptor)?.view.reveal(provider.nodeOf(record), { select: true, focus: false });
			} catch {
				// Not rendered yet (view hidden): selecting the data is enough.
			}
		} else {
			record = await descriptor.target?.get(this.ctx, id, undefined);
			if (!stillWanted()) {
				// Another row was selected meanwhile: that selection stands.
				return this.selected(descriptor);
			}
		}
		this.select(descriptor, record);
		return record;
	}

	/** Reads the first page of `descriptor`'s list ahead, before its view asks (ListTree.readAhead). */
	readAhead(descriptor: AnyListDescriptor): void {
		this.providerOf(descriptor).readAhead();
	}

	/** Refreshes every view (the `cloudAgents.refresh` command). */
	async refreshAll(): Promise<void> {
		await Promise.all([...this.providers.values()].map((p) => p.refresh()));
	}

	/** Forgets every list (page size changed) so each reloads from page one. */
	resetAll(): void {
		for (const provider of this.providers.values()) {
			provider.reset();
		}
	}
}

/** The workspaceState key of the record selected in a list's view (by the list's key). */
function selectionKey(listKey: string): string {
	return `cloudAgents.selected.${listKey}`;
}
