import type * as vscode from 'vscode';
import type { CloudAgentsClient, Page } from '../api';
import type { CommandId, ViewId } from '../ids';

/**
 * What a list view (or a subtree under the rows of another list) is, as data: where its records
 * come from, how one record looks as a row, what a command run on it receives, and how the
 * palette finds one. `DescriptorTreeProvider` (listTree.ts) turns a descriptor into a tree with
 * loading, "Load more…", error and Retry rows and polling while visible; `CloudAgentViews`
 * (index.ts) creates a view for every descriptor of the registry (src/resources/index.ts) that names a
 * `viewId`; the command-target resolver (src/views/targets.ts) reads `target`.
 *
 * Type parameters: `T` the record, `F` the fields a command receives for a row (the row node
 * carries them as its own properties, and the resolver returns them), `P` the parent record
 * (`undefined` for a top-level list of its own).
 */
export interface ListDescriptor<T, F extends object = { record: T }, P = undefined> {
	/** Short name of the list: message-row ids (`<key>/error`), the test seam `_cloudAgents.views.rows`. */
	readonly key: string;
	/** The record kind: row ids (`<kind>/<parent key>/<key>`); by convention the `contextValue` prefix. */
	readonly kind: string;
	/** The contributed view id when the list is a view of its own (package.json `contributes.views`). */
	readonly viewId?: ViewId;
	/**
	 * The list's parent: `selection` — a view showing the records of the `of` record selected in
	 * its own view (Runs of the selected agent); `children` — rows nested under each row of `of`.
	 */
	readonly parent?: ParentSpec<P>;
	/**
	 * A view of group rows: its records are the groups (drawn by `row`), one per list named here,
	 * in this order; each list is a top-level list of its own (no parent, no `viewId`) shown under
	 * its group row (src/views/groupTree.ts). The Account view (lists/account.ts).
	 */
	readonly groups?: readonly AnyListDescriptor[];
	/**
	 * The records come from the parent record itself (a build's attempts), with no request: the
	 * list is read again whenever its parent's list has read that record again.
	 */
	readonly fromParent?: boolean;
	/** The group row's label when a row has several child lists (each under a group row). */
	title?(this: void): string;
	/** Commands of the list, registered from the descriptor: `refresh` re-reads, `loadMore` reads one page more. */
	readonly commands?: { readonly refresh?: CommandId; readonly loadMore?: CommandId };
	/** Where the records come from: a cursor-paged listing, or a whole (or growing) list. */
	readonly source: ListSource<T, P>;
	/** The stable key of a record (its id). */
	keyOf(this: void, item: T): string;
	/** The row of a record. Server text in it is made safe by the provider (`safeTreeItem`). */
	row(this: void, item: T, ctx: RowContext<P>): RowSpec;
	/**
	 * What a command run on the row receives (and the resolver returns): e.g. `{agentId, run}`.
	 * `parentKey` is the key of the parent record (the agent's id for a run), when the list has one.
	 */
	fields(this: void, item: T, parentKey: string | undefined): F;
	/** The record's name for titles and view descriptions; undefined when it has none. */
	name?(this: void, item: T): string | undefined;
	/** Whether the record is in motion: while one is, the list refreshes itself (only while visible). */
	isActive?(this: void, item: T): boolean;
	/** What of a record is compared between automatic refreshes to adapt the delay (default: all of it). */
	signature?(this: void, item: T): unknown;
	/**
	 * The order of the rows when it is not the service's (the Agents view: most recent activity
	 * first): applied to every record loaded after each read, ties in the service's order. The
	 * service's cursor still reads the next page; a record of a later page may so show above
	 * records read before it.
	 */
	order?(this: void, a: T, b: T): number;
	/** The row shown when the list is empty; none by default (a view's welcome content shows). */
	empty?(this: void): MessageSpec;
	/**
	 * The rows as last loaded, shown marked until the first answer when the view opens (src/views/rowCache.ts;
	 * top-level lists only): how a record is kept in globalState, and read back strictly (undefined
	 * for anything not accepted: globalState is outside our control too). Without it a list shows
	 * nothing before its first answer.
	 */
	readonly cache?: { store(this: void, item: T): unknown; restore(this: void, value: unknown): T | undefined };
	/**
	 * Read ahead (issue 44): signed in, the first page is read in the idle time after activation and
	 * its rows built, so the click that opens the container draws it at once. The lists of the views
	 * that show expanded then (package.json), top-level.
	 */
	readonly readAhead?: true;
	/** How a command run from the palette or a link finds a record of this kind (src/views/targets.ts). */
	readonly target?: TargetSpec<T, P>;
}

/** A descriptor of any record type (the registry holds these). */
export type AnyListDescriptor = ListDescriptor<unknown, object, unknown>;

/** The parent of a list: see `ListDescriptor.parent`. */
export type ParentSpec<P> =
	| {
			readonly as: 'selection';
			readonly of: ListDescriptor<P, object, unknown>;
			/** The short label of the row shown while nothing is selected ("Select an agent"). */
			selectLabel(this: void): string;
			/** Its tooltip: the whole sentence. */
			selectTooltip(this: void): string;
	  }
	| {
			readonly as: 'children';
			readonly of: ListDescriptor<P, object, unknown>;
	  };

/** Where a list's records come from. */
export type ListSource<T, P> =
	| {
			/** One page of a cursor-paginated listing; the provider walks the cursors (PageChain). */
			page(this: void, ctx: ListContext, request: PageRequest, parent: P): Promise<Page<T>>;
	  }
	| {
			/**
			 * The first `pages` pages at once (a listing with no cursor: a growing `limit`, or everything):
			 * "Load more…" asks again with one page more.
			 */
			list(this: void, ctx: ListContext, request: ListRequest, parent: P): Promise<{ items: T[]; more: boolean }>;
	  };

/** What `source.page` is asked for: where to start, how many, and when to stop. */
export interface PageRequest {
	/** The cursor of the previous page; undefined for the first page. */
	cursor: string | undefined;
	/** The page size (`cloudAgents.pageSize`). */
	limit: number;
	signal: AbortSignal;
}

/** What `source.list` is asked for. */
export interface ListRequest {
	/** How many pages the user asked for (1 + "Load more…" clicks). */
	pages: number;
	/** The page size (`cloudAgents.pageSize`). */
	pageSize: number;
	signal: AbortSignal;
}

/** What the descriptors' functions may use: the client, other lists' records, flags set from outside. */
export interface ListContext {
	/** The shared client (reads the token per request). */
	client(this: void): CloudAgentsClient;
	/** A record another list has loaded (by its descriptor and key): to show a name instead of an id. */
	lookup<U>(descriptor: ListDescriptor<U, object, unknown>, key: string): U | undefined;
	/** Whether a flag set from outside (`CloudAgentViews.setFlag`) holds for a row. */
	flag(this: void, name: string, key: string, parentKey: string | undefined): boolean;
}

/** What `row` receives besides the record. */
export interface RowContext<P> extends ListContext {
	/** The parent record (the selected agent of Runs; the row a subtree hangs under). */
	readonly parent: P;
	/** The parent record's key, when the list has a parent. */
	readonly parentKey: string | undefined;
}

/** A row as data. Label, description and tooltip may carry server text: the provider makes them safe. */
export interface RowSpec {
	label: string;
	description?: string;
	icon?: vscode.ThemeIcon;
	/**
	 * Plain text (never trusted Markdown). A function is called only when VS Code asks for the tooltip
	 * (hover: `resolveTreeItem`), for tooltips that format dates: the first `toLocaleString` of an
	 * extension host loads the locale data (about 100 ms here), which must not delay the first rows.
	 */
	tooltip?: string | (() => string);
	/** `<kind>:<state>[:<flag>]`, matched by `viewItem =~ /^<kind>:/` in package.json menus. */
	contextValue: string;
	/** The default action (a click). Without `arguments` the command receives the row itself. */
	command?: { command: CommandId; title: string; arguments?: unknown[] };
}

/** A row that is a message (the empty row): a short label, the sentence in the tooltip. */
export interface MessageSpec {
	label: string;
	tooltip?: string;
	icon?: vscode.ThemeIcon;
	command?: { command: CommandId; title: string; arguments?: unknown[] };
}

/**
 * How the resolver finds a record of this kind when a command is not run on a row: from an
 * automation object or a link (`{<idField>: id}` or the id as a string), or by a quick pick.
 */
export interface TargetSpec<T, P> {
	/** The member naming the record in an automation object (`agentId`, `runId`). */
	readonly idField: string;
	/** Reads one record by id (under the parent with key `parentKey`); undefined when it does not exist. */
	get(this: void, ctx: ListContext, id: string, parentKey: string | undefined): Promise<T | undefined>;
	/** The records the quick pick offers (bounded: one request or a bounded walk). */
	choices(this: void, ctx: ListContext, parentKey: string | undefined): Promise<T[]>;
	/** A quick-pick item's text (server text: made safe by the resolver). */
	pickText(this: void, item: T): { label: string | undefined; description?: string; detail?: string };
	/** The quick pick's placeholder (server text in it is shown as typed: `iconSafe`). */
	placeholder(this: void, parent: P | undefined): string;
	/** Whether the pick matches on the detail line (default true). */
	readonly matchOnDetail?: boolean;
	/** The message when `get` finds nothing (default: the record's absence is the service's 404). */
	notFound?(this: void, id: string): string;
	/** Whether a record named by id is taken from the loaded rows before it is read (default: always read). */
	readonly preferLoaded?: boolean;
	/** The globalState key of the ids used recently, most recent first: the pick lists them first. */
	readonly recentKey?: string;
	/** Which parents the pick offers when the parent is asked for first (only runtimes with SSH keys); default all. */
	parentFilter?(this: void, parent: P): boolean;
}
