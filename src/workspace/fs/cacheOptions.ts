/**
 * What the workspace cache (workspaceCache.ts) is built with: the client methods it calls and its
 * tuning, with the defaults. No `vscode` import.
 */
import { LIMITS } from '../../api';
import type { CloudAgentsClient } from '../../api';

/** The client methods this layer uses (a real `CloudAgentsClient` fits). */
export type WorkspaceApi = Pick<
	CloudAgentsClient,
	'listWorkspaceAll' | 'statWorkspace' | 'readWorkspaceFile' | 'readWorkspaceFileRest' | 'writeWorkspaceFile' | 'deleteWorkspacePath'
>;

/** Tuning of the cache; the defaults keep VS Code's call patterns at the request floors. */
export interface WorkspaceCacheOptions {
	/** A listing answers `stat` of folders and "not found" for missing names this long (default 30 s). */
	listTtlMs?: number;
	/** `readDirectory` reuses a listing this recent instead of asking again (default 2 s). */
	listReuseMs?: number;
	/**
	 * A file's size and mtime learned from a listing, read, stat or write answer its `stat` this
	 * long (default 1 s); after that `stat` asks the service, so a save sees the agent's changes.
	 */
	fileFreshMs?: number;
	/** A `stat` that must ask waits this long for a `readFile` of the same file to start, and shares it (default 25 ms). */
	coalesceMs?: number;
	/** Bytes per read request (1 to 1,048,576; default the maximum). */
	chunkLength?: number;
	/** Files larger than this many bytes are read only once approved (default 16 MiB). */
	largeFileBytes?: () => number;
	/** Clock (tests). */
	now?: () => number;
	/** Where dropped listing entries are reported (once per folder): the extension's log. */
	log?: { warn(message: string): void };
	/**
	 * False while no one is signed in: then every operation fails with `Unavailable` ("Signed out
	 * of Cloud Agents…") and sends nothing. Default: always signed in.
	 */
	signedIn?: () => boolean;
	/**
	 * Resolves once the sign-in state has been read (bounded by the caller), before `signedIn` is
	 * believed: a window that reloads restores its agent editors while activation still reads
	 * SecretStorage, and their reads failed with "Signed out" though a key was stored. Default: at once.
	 */
	sessionKnown?: () => Promise<void>;
	/** The service's `host[:port]`, named in the messages of `Unavailable` errors. Default: "the configured API URL". */
	serviceHost?: () => string;
}

/** The tuning a cache built without options gets. */
export const DEFAULTS = {
	listTtlMs: 30_000,
	listReuseMs: 2_000,
	fileFreshMs: 1_000,
	coalesceMs: 25,
	chunkLength: LIMITS.workspaceReadLength.max,
};
