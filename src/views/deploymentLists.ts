/**
 * The lists of one deployment: a provider per list of the registry (src/resources/index.ts), with
 * the context their descriptors read (this deployment's client, its other lists' records, flags).
 * CloudAgentViews (index.ts) makes the default deployment's at activation, and one for each other
 * signed-in deployment (issue 47), whose rows its views show under that deployment's root row
 * (deploymentTree.ts).
 */
import type * as vscode from 'vscode';
import { ApiError } from '../api';
import type { CloudAgentsClient } from '../api';
import { Disposable } from '../util/lifecycle';
import type { Connectivity } from './connectivity';
import type { AnyListDescriptor, ListContext, ListDescriptor } from './descriptor';
import { DescriptorTreeProvider } from './listTree';
import type { ListHost } from './listTree';
import type { RowCache } from './rowCache';

/** What the views need from a deployment's session: sign-in state, its change event and its client. */
export interface ViewSession {
	readonly signedIn: boolean;
	readonly onDidChange: vscode.Event<void>;
	readonly client: CloudAgentsClient;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProvider = DescriptorTreeProvider<any, any, any>;

/** What a deployment's lists are made with. */
export interface DeploymentListsOptions {
	readonly session: ViewSession;
	readonly log: vscode.LogOutputChannel;
	/** Reports an error of a background read (the session's single 401 prompt). */
	readonly reportError: (err: unknown) => void;
	/**
	 * Every list of the extension, in the order of their views. Another deployment's are copies
	 * without a view id (deploymentViews.ts): the views' context keys ("empty", "waiting"), which
	 * their welcome content reads, are the default deployment's lists' to set.
	 */
	readonly lists: readonly AnyListDescriptor[];
	/** Whether this deployment's service answers. */
	readonly connectivity: Connectivity;
	/** The rows as last loaded (rowCache.ts); none without it. */
	readonly rowCache?: RowCache;
	/** A list following `of`'s selection found the selected record gone (404): the selection is dropped. */
	readonly onSelectedGone: (of: AnyListDescriptor) => void;
}

/** The providers of one deployment's lists (a subtree's rows are served by its parent's provider). */
export class DeploymentLists extends Disposable {
	/** The providers of the top-level lists, by the registry's descriptor. */
	readonly providers = new Map<AnyListDescriptor, AnyProvider>();
	/** The same providers by their list's key (a descriptor may be a copy: see esbuild.mjs). */
	readonly providersByKey = new Map<string, AnyProvider>();
	private readonly flags = new Map<string, (key: string, parentKey: string | undefined) => boolean>();
	/** What the descriptors' functions use: this deployment's client, its other lists' records, flags. */
	readonly ctx: ListContext;

	constructor(private readonly options: DeploymentListsOptions) {
		super();
		const { session, lists } = options;
		const host: ListHost = {
			get signedIn() {
				return session.signedIn;
			},
			onDidChange: session.onDidChange,
			log: options.log,
			reportError: options.reportError,
			connectivity: options.connectivity,
			rowCache: options.rowCache,
		};
		this.ctx = {
			client: (): CloudAgentsClient => session.client,
			lookup: <U>(descriptor: ListDescriptor<U, object, unknown>, key: string): U | undefined =>
				this.providersByKey.get(descriptor.key)?.find(key) as U | undefined,
			flag: (name, key, parentKey) => this.flags.get(name)?.(key, parentKey) ?? false,
		};
		for (const descriptor of lists) {
			if (descriptor.parent?.as === 'children' || descriptor.groups) {
				continue;
			}
			const children = lists.filter((d) => d.parent?.as === 'children' && d.parent.of.key === descriptor.key);
			const provider = this.register(new DescriptorTreeProvider(descriptor, this.hostOf(descriptor, host), this.ctx, children));
			this.providers.set(descriptor, provider);
			this.providersByKey.set(descriptor.key, provider);
		}
	}

	/**
	 * The host of a list: a list that follows another view's selection (Runs, Artifacts) drops that
	 * selection when its listing answers 404 (the agent was deleted meanwhile, here or elsewhere):
	 * "Select an agent" rather than "Could not load: agent … not found" (issue 42, item 6: a
	 * selection kept across a reload outlived its agent).
	 */
	private hostOf(descriptor: AnyListDescriptor, host: ListHost): ListHost {
		const of = descriptor.parent?.as === 'selection' ? descriptor.parent.of : undefined;
		if (!of) {
			return host;
		}
		// The host as it is (each member read from it when used, through the prototype), with its own
		// reportError: a 404 of the selected record drops the selection.
		const reportError = (err: unknown): void => {
			host.reportError(err);
			if (err instanceof ApiError && err.status === 404 && this.selected(of) !== undefined) {
				setTimeout(() => this.options.onSelectedGone(of), 0);
			}
		};
		return Object.setPrototypeOf({ reportError }, host) as ListHost;
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

	/** Sets a flag the rows read through `ctx.flag`. */
	setFlag(name: string, test: (key: string, parentKey: string | undefined) => boolean): void {
		this.flags.set(name, test);
	}

	/** The lists that follow the selection of `descriptor`'s view (Runs and Artifacts follow Agents), with their providers. */
	following(descriptor: { readonly key: string }): Array<[AnyListDescriptor, AnyProvider]> {
		return [...this.providers].filter(([d]) => d.parent?.as === 'selection' && d.parent.of.key === descriptor.key);
	}

	/** The record the lists following `descriptor`'s view show (the agent of Runs), if any. */
	selected<T>(descriptor: ListDescriptor<T, object, unknown>): T | undefined {
		return this.following(descriptor)[0]?.[1].parent as T | undefined;
	}

	/** Makes the lists following `descriptor`'s view show the records of `record` (or nothing). */
	setSelected<T>(descriptor: ListDescriptor<T, object, unknown>, record: T | undefined): void {
		for (const [, provider] of this.following(descriptor)) {
			provider.setParent(record);
		}
	}

	/** Re-reads the lists that follow the selection of `descriptor`'s view. */
	async refreshFollowing<T>(descriptor: ListDescriptor<T, object, unknown>): Promise<void> {
		await Promise.all(this.following(descriptor).map(([, provider]) => provider.refresh()));
	}
}
