/**
 * `vscode.FileSystemProvider` for `cloud-agent://agent-<base32 of the agent id>/<path>` (see
 * `agentUri.ts`; old `cloud-agent://<agentId>/<path>` links still work): an agent's remote workspace as a
 * folder. Every call goes through `WorkspaceCache` (few round trips) and every failure through
 * `toFileSystemError`; the provider shows no UI.
 */
import * as vscode from 'vscode';
import { isDeploymentIdShape, readDeployments } from '../../auth/deployments';
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

/**
 * The agent id and raw workspace path of a `cloud-agent:` URI of the default deployment. Throws a
 * FileSystemError: for an address of another deployment, one that names it (see
 * `refuseOtherDeployment`); FileNotFound when the URI names no agent.
 */
export function parseWorkspaceUri(uri: vscode.Uri): { agentId: string; path: string } {
	const agentId = agentIdOf(uri);
	if (agentId === undefined) {
		refuseOtherDeployment(uri);
		throw vscode.FileSystemError.FileNotFound(uri);
	}
	return { agentId, path: uri.path };
}

/**
 * Throws for the address of an agent of a deployment other than the default one, with a message
 * naming the deployment: one no longer configured (a restored tab or workspace file of a
 * deployment the person removed) by the id its address carries, a configured one by its name
 * (its workspaces are served from the default deployment's connection only, so never opened
 * there). Returns for any other URI.
 */
function refuseOtherDeployment(uri: vscode.Uri): void {
	const address = uri.scheme === FS_SCHEME ? parseAgentAuthority(uri.authority, isDeploymentIdShape) : undefined;
	if (address?.deploymentPart === undefined) {
		return;
	}
	const deployment = readDeployments().deployments.find((d) => !d.isDefault && d.id === address.deploymentPart);
	throw deployment === undefined
		? vscode.FileSystemError.Unavailable(
				vscode.l10n.t(
					'This address belongs to the deployment {0}, which is no longer configured. Add it to the setting {1} again to open it.',
					address.deploymentPart,
					'cloudAgents.deployments',
				),
			)
		: vscode.FileSystemError.Unavailable(
				vscode.l10n.t(
					'This address belongs to the deployment "{0}": only the default deployment\'s agent workspaces open in this version.',
					deployment.name,
				),
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
	private timer: ReturnType<typeof setTimeout> | undefined;

	constructor(private readonly cache: WorkspaceCache) {
		super();
		this.register(cache.onDidChange((changes) => this.fireSoon(changes)));
		this.register({ dispose: () => clearTimeout(this.timer) });
	}

	/**
	 * The URI of a path in an agent's workspace as this window spells it: with the authority of an
	 * open workspace folder of the agent, else of an old link VS Code used for it here, else the
	 * encoded one. So files opened by commands land in the folder the user has open.
	 */
	uriFor(agentId: string, path = ''): vscode.Uri {
		const uri = workspaceUri(agentId, path);
		const folder = (vscode.workspace.workspaceFolders ?? []).find((f) => agentIdOf(f.uri) === agentId);
		const old = [...(this.oldAuthorities.get(agentId) ?? [])].pop();
		const authority = folder?.uri.authority ?? old;
		return authority === undefined ? uri : uri.with({ authority });
	}

	/** Nothing to set up: changes arrive from our own operations and from followed runs (no polling). */
	watch(): vscode.Disposable {
		return new vscode.Disposable(() => undefined);
	}

	stat(uri: vscode.Uri): Promise<vscode.FileStat> {
		return this.call(uri, 'stat', async (agentId, path) => toFileStat(await this.cache.stat(agentId, path)));
	}

	readDirectory(uri: vscode.Uri): Promise<Array<[string, vscode.FileType]>> {
		return this.call(uri, 'readDirectory', async (agentId, path) =>
			(await this.cache.readDirectory(agentId, path)).map(([name, type]): [string, vscode.FileType] => [
				name,
				type === 'directory' ? vscode.FileType.Directory : vscode.FileType.File,
			]),
		);
	}

	readFile(uri: vscode.Uri): Promise<Uint8Array> {
		return this.call(uri, 'readFile', (agentId, path) => this.cache.readFile(agentId, path));
	}

	writeFile(uri: vscode.Uri, content: Uint8Array, options: { readonly create: boolean; readonly overwrite: boolean }): Promise<void> {
		return this.call(uri, 'writeFile', async (agentId, path) => {
			await this.cache.writeFile(agentId, path, content, { create: options.create, overwrite: options.overwrite });
		});
	}

	delete(uri: vscode.Uri, options: { readonly recursive: boolean }): Promise<void> {
		return this.call(uri, 'delete', (agentId, path) => this.cache.delete(agentId, path, { recursive: options.recursive }));
	}

	createDirectory(uri: vscode.Uri): Promise<void> {
		return this.call(uri, 'createDirectory', (agentId, path) => this.cache.createDirectory(agentId, path));
	}

	rename(oldUri: vscode.Uri, newUri: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
		return this.call(newUri, 'rename', (agentId, path) =>
			this.cache.rename(agentId, this.sameAgent(oldUri, agentId), path, { overwrite: options.overwrite }),
		);
	}

	copy(source: vscode.Uri, destination: vscode.Uri, options: { readonly overwrite: boolean }): Promise<void> {
		return this.call(destination, 'copy', (agentId, path) =>
			this.cache.copy(agentId, this.sameAgent(source, agentId), path, { overwrite: options.overwrite }),
		);
	}

	private sameAgent(uri: vscode.Uri, agentId: string): string {
		const other = parseWorkspaceUri(uri);
		if (other.agentId !== agentId) {
			throw vscode.FileSystemError.NoPermissions(vscode.l10n.t('Files can be moved or copied only within one agent workspace.'));
		}
		return other.path;
	}

	private async call<R>(uri: vscode.Uri, op: FsOperation, fn: (agentId: string, path: string) => Promise<R>): Promise<R> {
		try {
			const { agentId, path } = parseWorkspaceUri(uri);
			if (uri.authority !== encodeAgentAuthority(agentId)) {
				const seen = this.oldAuthorities.get(agentId) ?? new Set<string>();
				seen.delete(uri.authority);
				this.oldAuthorities.set(agentId, seen.add(uri.authority));
			}
			return await fn(agentId, path);
		} catch (err) {
			throw toFileSystemError(err, uri, op);
		}
	}

	private fireSoon(changes: WorkspaceChange[]): void {
		for (const c of changes) {
			const type =
				c.type === 'created'
					? vscode.FileChangeType.Created
					: c.type === 'deleted'
						? vscode.FileChangeType.Deleted
						: vscode.FileChangeType.Changed;
			const uri = workspaceUri(c.agentId, c.path);
			// A changed root (the folder became unavailable, is back, or must be listed again) is also
			// announced as created: VS Code's Explorer reads a folder it shows again only for a Deleted
			// item it shows, a Changed one while sorted by modification time, or a Created one it does
			// not have, and a root is never its own child. (Deleted would mark open editors as deleted.)
			const types = c.path === '' && type === vscode.FileChangeType.Changed ? [type, vscode.FileChangeType.Created] : [type];
			for (const t of types) {
				this.pending.push({ type: t, uri });
				for (const authority of this.oldAuthorities.get(c.agentId) ?? []) {
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
