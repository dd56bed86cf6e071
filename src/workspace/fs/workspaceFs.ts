/**
 * `vscode.FileSystemProvider` for `cloud-agent://agent-<base32 of the agent id>/<path>` (see
 * `agentUri.ts`; old `cloud-agent://<agentId>/<path>` links still work): an agent's remote workspace as a
 * folder. Every call goes through `WorkspaceCache` (few round trips) and every failure through
 * `toFileSystemError`; the provider shows no UI. An address of a deployment other than the default
 * one (`agent-<base32>.<deployment id>`) is served by that deployment's cache (`serve`), which asks
 * that deployment's service with its own session: the same agent id on two deployments is two
 * folders that never share a listing, a read or a change event.
 */
import * as vscode from 'vscode';
import { deploymentOfPart, isDeploymentIdShape, removedDeploymentMessage } from '../../auth/deployments';
import { FS_SCHEME } from '../../ids';
import { Disposable } from '../../util/lifecycle';
import { decodeAgentAuthority, encodeAgentAuthority, parseAgentAuthority } from './agentUri';
import { type FsOperation, toFileSystemError } from './errors';
import type { EntryStat, WorkspaceCache, WorkspaceChange } from './workspaceCache';

/**
 * The URI of a path in an agent's workspace (`path` relative to the root, `""` for the root). The
 * agent id is encoded in the authority so that its case survives (see `agentUri.ts`), followed by
 * `deploymentPart` for an agent of a deployment other than the default one (none for the default).
 */
export function workspaceUri(agentId: string, path = '', deploymentPart?: string): vscode.Uri {
	return vscode.Uri.from({
		scheme: FS_SCHEME,
		authority: encodeAgentAuthority(agentId, deploymentPart),
		path: `/${path.replace(/^\/+/, '')}`,
	});
}

/**
 * The agent id of a `cloud-agent:` URI (new or old form) of the default deployment, or undefined
 * for another scheme, an authority naming no agent, or an agent of another deployment (never taken
 * for the default deployment's agent of the same id).
 */
export function agentIdOf(uri: vscode.Uri): string | undefined {
	return uri.scheme === FS_SCHEME ? decodeAgentAuthority(uri.authority) : undefined;
}

/** An agent's workspace as an address names it: the agent, and the deployment part (undefined: the default deployment). */
export interface WorkspaceAddress {
	readonly agentId: string;
	readonly deploymentPart: string | undefined;
}

/**
 * The agent and deployment part of a `cloud-agent:` URI of any deployment (the part as VS Code
 * spells it: lower case), or undefined for another scheme or an authority naming no agent. Two
 * deployments' agents of the same id are two addresses.
 */
export function workspaceAddressOf(uri: vscode.Uri): WorkspaceAddress | undefined {
	return uri.scheme === FS_SCHEME ? parseAgentAuthority(uri.authority, isDeploymentIdShape) : undefined;
}

/** True when `a` and `b` name the same agent of the same deployment. */
export function sameAddress(a: WorkspaceAddress | undefined, b: WorkspaceAddress | undefined): boolean {
	return a !== undefined && b !== undefined && a.agentId === b.agentId && a.deploymentPart === b.deploymentPart;
}

/**
 * The agent id and raw workspace path of a `cloud-agent:` URI of the default deployment (what
 * Source Control and the review comments read: they work with the default deployment only). Throws
 * a FileSystemError: for an address of another deployment, one that names it (see
 * `refuseOtherDeployment`); FileNotFound when the URI names no agent.
 */
export function parseWorkspaceUri(uri: vscode.Uri): { agentId: string; path: string } {
	const agentId = agentIdOf(uri);
	if (agentId === undefined) {
		refuseOtherDeployment(uri, vscode.l10n.t("this works with the default deployment's agent workspaces only"));
		throw vscode.FileSystemError.FileNotFound(uri);
	}
	return { agentId, path: uri.path };
}

/**
 * Throws for the address of an agent of a deployment other than the default one, with a message
 * naming the deployment: one no longer configured (a restored tab or workspace file of a
 * deployment the person removed) by the id its address carries, a configured one by its name,
 * saying `why` it is not served here. Returns for any other URI.
 */
export function refuseOtherDeployment(uri: vscode.Uri, why: string): void {
	const part = workspaceAddressOf(uri)?.deploymentPart;
	const named = part === undefined ? undefined : deploymentOfPart(part);
	if (named === undefined) {
		return;
	}
	throw 'removed' in named
		? vscode.FileSystemError.Unavailable(removedDeploymentMessage(named.removed, 'address'))
		: vscode.FileSystemError.Unavailable(
				vscode.l10n.t('This address belongs to the deployment "{0}": {1}.', named.deployment.name, why),
			);
}

function toFileStat(s: EntryStat): vscode.FileStat {
	return {
		type: s.type === 'directory' ? vscode.FileType.Directory : vscode.FileType.File,
		ctime: s.mtime,
		mtime: s.mtime,
		size: s.size,
	};
}

/** The agent-workspace file system. */
export class WorkspaceFileSystemProvider extends Disposable implements vscode.FileSystemProvider {
	private readonly _onDidChangeFile = this.register(new vscode.EventEmitter<vscode.FileChangeEvent[]>());
	/**
	 * Our own writes and deletes, the agent's changes seen in followed runs, and each root whose
	 * workspace became unavailable or is back (batched).
	 */
	readonly onDidChangeFile = this._onDidChangeFile.event;
	private pending: vscode.FileChangeEvent[] = [];
	/** Per agent, the authorities VS Code used for it besides the encoded one (old links), so changes reach those URIs too. */
	private readonly oldAuthorities = new Map<string, Set<string>>();
	/** The caches of the deployments other than the default one, by the deployment part of their addresses. */
	private readonly others = new Map<string, WorkspaceCache>();
	private timer: ReturnType<typeof setTimeout> | undefined;

	/** @param cache the default deployment's: it serves the addresses without a deployment part */
	constructor(private readonly cache: WorkspaceCache) {
		super();
		this.register(cache.onDidChange((changes) => this.fireSoon(changes, undefined)));
		this.register({ dispose: () => clearTimeout(this.timer) });
	}

	/**
	 * Serves the addresses whose deployment part is `part` (a deployment other than the default one)
	 * from `cache`, until the result is disposed; until then, and after, such an address fails with
	 * an error that names its deployment.
	 */
	serve(part: string, cache: WorkspaceCache): vscode.Disposable {
		this.others.set(part, cache);
		const listener = cache.onDidChange((changes) => this.fireSoon(changes, part));
		return new vscode.Disposable(() => {
			listener.dispose();
			if (this.others.get(part) === cache) {
				this.others.delete(part);
			}
		});
	}

	/**
	 * The URI of a path in an agent's workspace as this window spells it: with the authority of an
	 * open workspace folder of the agent, else of an old link VS Code used for it here, else the
	 * encoded one. So files opened by commands land in the folder the user has open. `deploymentPart`:
	 * the agent's deployment's (undefined for the default deployment's agents).
	 */
	uriFor(agentId: string, path = '', deploymentPart?: string): vscode.Uri {
		const uri = workspaceUri(agentId, path, deploymentPart);
		const wanted = { agentId, deploymentPart };
		const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => sameAddress(workspaceAddressOf(f.uri), wanted));
		const old = deploymentPart === undefined ? [...(this.oldAuthorities.get(agentId) ?? [])].pop() : undefined;
		const authority = folder?.uri.authority ?? old;
		return authority === undefined ? uri : uri.with({ authority });
	}

	/** Nothing to set up: changes arrive from our own operations and from followed runs (no polling). */
	watch(): vscode.Disposable {
		return new vscode.Disposable(() => undefined);
	}

	stat(uri: vscode.Uri): Promise<vscode.FileStat> {
		return this.call(uri, 'stat', async (cache, agentId, path) => toFileStat(await cache.stat(agentId, path)));
	}

	readDirectory(uri: vscode.Uri): Promise<Array<[string, vscode.FileType]>> {
		return this.call(uri, 'readDirectory', async (cache, agentId, path) =>
			(await cache.readDirectory(agentId, path)).map(([name, type]): [string, vscode.FileType] => [
				name,
				type === 'directory' ? vscode.FileType.Directory : vscode.FileType.File,
			]),
		);
	}

	readFile(uri: vscode.Uri): Promise<Uint8Array> {
		return this.call(uri, 'readFile', (cache, agentId, path) => cache.readFile(agentId, path));
	}

	writeFile(uri: vscode.Uri, content: Uint8Array, options: { readonly create: boolean; readonly overwrite: boolean }): Promise<void> {
		return this.call(uri, 'writeFile', async (cache, agentId, path) => {
			await cache.writeFile(agentId, path, content, { create: options.create, overwrite: options.overwrite });
		});
	}

	delete(uri: vscode.Uri, options: { readonly recursive: boolean }): Promise<void> {
		return this.call(uri, 'delete', (cache, agentId, path) => cache.delete(agentId, path, { recursive: options.recursive }));
	}

	createDirectory(uri: vscode.Uri): Promise<void> {
		return this.call(uri, 'createDirectory', (cache, agentId, path) => cache.createDirectory(agentId, path));
	}

	rename(oldUri: vscode.Uri, newUri: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
		return this.call(newUri, 'rename', (cache, agentId, path) =>
			cache.rename(agentId, this.sameAgent(oldUri, newUri), path, { overwrite: options.overwrite }),
		);
	}

	copy(source: vscode.Uri, destination: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
		return this.call(destination, 'copy', (cache, agentId, path) =>
			cache.copy(agentId, this.sameAgent(source, destination), path, { overwrite: options.overwrite }),
		);
	}

	/** The raw path of `uri` when it is in the workspace `target` is in (same agent, same deployment). */
	private sameAgent(uri: vscode.Uri, target: vscode.Uri): string {
		const other = workspaceAddressOf(uri);
		if (other === undefined) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		if (!sameAddress(other, workspaceAddressOf(target))) {
			throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Files can be moved or copied only within one agent workspace.'));
		}
		return uri.path;
	}

	/**
	 * The cache that serves `uri`'s deployment and the agent it names. Throws a FileSystemError:
	 * FileNotFound when the URI names no agent; for a deployment this provider does not serve, one
	 * that names it (no longer configured, or not served here).
	 */
	private route(uri: vscode.Uri): { cache: WorkspaceCache; agentId: string } {
		const address = workspaceAddressOf(uri);
		if (address === undefined) {
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		const { agentId, deploymentPart } = address;
		if (deploymentPart === undefined) {
			if (uri.authority !== encodeAgentAuthority(agentId)) {
				const seen = this.oldAuthorities.get(agentId) ?? new Set<string>();
				seen.delete(uri.authority);
				this.oldAuthorities.set(agentId, seen.add(uri.authority));
			}
			return { cache: this.cache, agentId };
		}
		const cache = this.others.get(deploymentPart);
		if (cache === undefined) {
			refuseOtherDeployment(uri, vscode.l10n.t('its agent workspaces are not served in this window'));
			throw vscode.FileSystemError.FileNotFound(uri);
		}
		return { cache, agentId };
	}

	private async call<R>(
		uri: vscode.Uri,
		op: FsOperation,
		fn: (cache: WorkspaceCache, agentId: string, path: string) => Promise<R>,
	): Promise<R> {
		try {
			const { cache, agentId } = this.route(uri);
			return await fn(cache, agentId, uri.path);
		} catch (err) {
			throw toFileSystemError(err, uri, op);
		}
	}

	private fireSoon(changes: WorkspaceChange[], deploymentPart: string | undefined): void {
		for (const c of changes) {
			const type =
				c.type === 'created'
					? vscode.FileChangeType.Created
					: c.type === 'deleted'
						? vscode.FileChangeType.Deleted
						: vscode.FileChangeType.Changed;
			const uri = workspaceUri(c.agentId, c.path, deploymentPart);
			// A changed root (the folder became unavailable, is back, or must be listed again) is also
			// announced as created: VS Code's Explorer reads a folder it shows again only for a Deleted
			// item it shows, a Changed one while sorted by modification time, or a Created one it does
			// not have, and a root is never its own child. (Deleted would mark open editors as deleted.)
			const types = c.path === '' && type === vscode.FileChangeType.Changed ? [type, vscode.FileChangeType.Created] : [type];
			const old = deploymentPart === undefined ? (this.oldAuthorities.get(c.agentId) ?? []) : [];
			for (const t of types) {
				this.pending.push({ type: t, uri });
				for (const authority of old) {
					this.pending.push({ type: t, uri: uri.with({ authority }) });
				}
			}
		}
		// Batch like the memfs sample: one event per burst of changes.
		clearTimeout(this.timer);
		this.timer = setTimeout(() => {
			const events = this.pending;
			this.pending = [];
			this._onDidChangeFile.fire(events);
		}, 5);
	}
}
