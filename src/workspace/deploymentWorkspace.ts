/**
 * The agent workspaces of one deployment (src/auth/deployments.ts): its workspace cache, asking
 * its service through its own session, and what follows that session (signed in, signed out,
 * another URL) and that service's availability (retries while it cannot be reached). The workspace
 * feature (`workspaceFeature.ts`) holds one for the default deployment and one for each other
 * configured deployment; the `cloud-agent:` provider serves each one's addresses from its cache, so
 * the same agent id on two deployments never shares a listing, a read, a retry or a change.
 */
import * as vscode from 'vscode';
import type { CloudAgentsClient } from '../api';
import { SAFETY } from '../api';
import { type AvailabilityChange, type InterfaceDiffers, type LargeFileRefusal, WorkspaceCache } from './fs/workspaceCache';
import { workspaceAddressOf } from './fs/workspaceFs';
import { Disposable, whenRead } from '../util/lifecycle';

/** A deployment's connection (`Session`): its client, URL and sign-in state, and an event when URL or token change. */
export interface WorkspaceSession {
	readonly client: CloudAgentsClient;
	readonly apiUrl: string;
	readonly signedIn: boolean;
	/** Whether the sign-in state has been read (the first `onDidChange` has fired). */
	readonly initialized: boolean;
	readonly onDidChange: vscode.Event<void>;
}

/** Waits before asking an unreachable service again for an open agent folder: doubling from the first, up to the last. */
export const UNAVAILABLE_RETRY_MS = { first: 2_000, max: 30_000 } as const;

/** What one deployment's workspaces are built with. */
export interface DeploymentWorkspaceDeps {
	readonly session: WorkspaceSession;
	/** The deployment part of its addresses (src/auth/deployments.ts `addressPart`): undefined for the default deployment. */
	readonly deploymentPart: string | undefined;
	readonly log: { warn(message: string, ...args: unknown[]): void };
	/** Files larger than this many bytes are read only once approved. */
	readonly largeFileBytes: () => number;
	/** The URI of a path in an agent's workspace of this deployment, as the window spells it (the provider's `uriFor`). */
	readonly uriFor: (agentId: string, path: string, deploymentPart: string | undefined) => vscode.Uri;
	/** Told of a read refused as too large (to ask the person) and of a server whose workspace interface differs (to say so). */
	readonly notices: {
		largeFile(workspace: DeploymentWorkspace, refusal: LargeFileRefusal): void;
		interfaceDiffers(workspace: DeploymentWorkspace, e: InterfaceDiffers): void;
	};
}

/** `host[:port]` of an API URL, for messages; the URL itself when it does not parse. */
function hostOf(apiUrl: string): string {
	try {
		return new URL(apiUrl).host;
	} catch {
		return apiUrl;
	}
}

/** One deployment's agent workspaces: its cache and what keeps it in step with its session and service. */
export class DeploymentWorkspace extends Disposable {
	/** What the window knows about this deployment's agent workspaces (listings, stats, reads in flight). */
	readonly cache: WorkspaceCache;
	/** The deployment part of its addresses: undefined for the default deployment. */
	readonly deploymentPart: string | undefined;
	/** Sign-in state and API URL at the last session change (undefined before the sign-in state is read). */
	private sessionState: string | undefined;
	/** Per open agent folder whose service cannot be reached: the pending retry and the wait before it. */
	private readonly retries = new Map<string, { timer: ReturnType<typeof setTimeout>; waitMs: number }>();

	constructor(private readonly deps: DeploymentWorkspaceDeps) {
		super();
		const { session } = deps;
		this.deploymentPart = deps.deploymentPart;
		this.cache = new WorkspaceCache(() => session.client, {
			largeFileBytes: deps.largeFileBytes,
			log: deps.log,
			signedIn: () => session.signedIn,
			sessionKnown: () => whenRead(session, SAFETY.sessionReadMaxMs),
			serviceHost: () => hostOf(session.apiUrl),
		});
		if (session.initialized) {
			// Made after activation read the sign-in state: the next session change is a real one.
			this.sessionState = this.currentSessionState();
		}
		this.register(session.onDidChange(() => this.onSessionChange()));
		this.register(this.cache.onDidChangeAvailability((e) => this.onAvailabilityChange(e)));
		this.register({ dispose: () => this.stopRetries() });
		this.register(this.cache.onDidRefuseLargeFile((r) => deps.notices.largeFile(this, r)));
		this.register(this.cache.onDidDetectInterfaceDiffers((e) => deps.notices.interfaceDiffers(this, e)));
	}

	/** The client of this deployment's session. */
	get client(): CloudAgentsClient {
		return this.deps.session.client;
	}

	/** A `cloud-agent:` URI of a workspace path of this deployment, under the agent's workspace folder when the window has one. */
	uriFor(agentId: string, path = ''): vscode.Uri {
		return this.deps.uriFor(agentId, path, this.deploymentPart);
	}

	/** The agents of this window's `cloud-agent:` workspace folders of this deployment. */
	openAgentIds(): string[] {
		const ids: string[] = [];
		for (const folder of vscode.workspace.workspaceFolders ?? []) {
			const address = workspaceAddressOf(folder.uri);
			if (address !== undefined && address.deploymentPart === this.deploymentPart) {
				ids.push(address.agentId);
			}
		}
		return ids;
	}

	/** Lets an agent's (or every open agent folder's of this deployment) workspace operations reach the server again and refreshes its folder. */
	retryInterface(agentId?: string): void {
		for (const id of agentId !== undefined ? [agentId] : this.openAgentIds()) {
			if (this.cache.retryInterface(id)) {
				// A change of the root makes the Explorer list it again.
				this.cache.invalidate(id, '');
			}
		}
	}

	/** Agent folders of this deployment added to the window: one whose service could not be reached is asked again. */
	foldersAdded(agentIds: readonly string[]): void {
		for (const agentId of agentIds) {
			const reason = this.cache.unavailableError(agentId)?.reason;
			if (reason === 'unreachable' || reason === 'failing') {
				this.scheduleRetry(agentId, UNAVAILABLE_RETRY_MS.first);
			}
		}
	}

	/** The sign-in state and API URL now, as `sessionState` records them. */
	private currentSessionState(): string {
		return `${this.deps.session.signedIn}\n${this.deps.session.apiUrl}`;
	}

	/**
	 * Signed in, signed out or another API URL: the cache starts again (folders that showed an
	 * error read their agent again). On a sign-out, every open agent folder of this deployment fails
	 * with "Signed out…" at once; on a sign-in or another URL, each is listed again. The first
	 * change (activation reading the stored token) only records the state: a folder whose root
	 * fails while the window opens is dropped by VS Code ("Workspace does not exist"). One made
	 * after that change recorded the state when it was created.
	 */
	private onSessionChange(): void {
		const { signedIn } = this.deps.session;
		const state = this.currentSessionState();
		const changed = this.sessionState !== undefined && this.sessionState !== state;
		this.sessionState = state;
		this.stopRetries();
		this.cache.clear();
		if (!changed) {
			return;
		}
		const open = this.openAgentIds();
		if (signedIn) {
			for (const agentId of open) {
				this.cache.invalidate(agentId, '');
			}
		} else {
			this.cache.markSignedOut(open);
		}
	}

	/**
	 * While an open agent folder's service cannot be reached (no answer, 5xx, 429), asks it again
	 * after 2 s, 4 s, 8 s… up to 30 s; an answer brings the folder back. Signed out or a refused
	 * sign-in wait for the next sign-in instead.
	 */
	private onAvailabilityChange({ agentId, error }: AvailabilityChange): void {
		if (!error) {
			this.stopRetry(agentId);
			return;
		}
		if (error.reason === 'unreachable' || error.reason === 'failing') {
			this.scheduleRetry(agentId, UNAVAILABLE_RETRY_MS.first);
		}
	}

	private scheduleRetry(agentId: string, waitMs: number): void {
		if (this.retries.has(agentId) || !this.openAgentIds().includes(agentId)) {
			return;
		}
		const timer = setTimeout(() => {
			void this.cache.probe(agentId).then((back) => {
				if (this.retries.get(agentId)?.timer !== timer) {
					return; // Stopped meanwhile (a session change, the folder back, disposal).
				}
				this.retries.delete(agentId);
				if (!back && this.cache.unavailableError(agentId)) {
					this.scheduleRetry(agentId, Math.min(waitMs * 2, UNAVAILABLE_RETRY_MS.max));
				}
			});
		}, waitMs);
		this.retries.set(agentId, { timer, waitMs });
	}

	private stopRetry(agentId: string): void {
		const retry = this.retries.get(agentId);
		if (retry) {
			clearTimeout(retry.timer);
			this.retries.delete(agentId);
		}
	}

	private stopRetries(): void {
		for (const agentId of [...this.retries.keys()]) {
			this.stopRetry(agentId);
		}
	}
}

/**
 * What the workspace commands (open, go to file, search) use of one deployment's agent workspaces:
 * a `DeploymentWorkspace`, or the workspace feature itself for the default deployment's.
 */
export type AgentWorkspaces = Pick<DeploymentWorkspace, 'cache' | 'client' | 'uriFor' | 'retryInterface'> & {
	/** The deployment part of its addresses; undefined (or absent) for the default deployment. */
	readonly deploymentPart?: string;
};
