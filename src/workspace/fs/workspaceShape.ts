/**
 * Whether a server reads our workspace operation shape (its body and result are "not shown" in the
 * service description): which paths are VS Code's probes, answered "not found" while the shape
 * differs, and when a 422 means the shape differs rather than a refusal about one path. No `vscode`.
 */
import { ApiError, WorkspaceInterfaceError } from '../../api';
import { normalizeWorkspacePath } from '../../util/paths';
import type { WorkspaceApi } from './cacheOptions';

/**
 * True for the paths VS Code and its extensions probe in every folder it opens: dot-folders and
 * below (`.vscode` settings, tasks, launch; `.github` agents, prompts and instructions; `.git`,
 * `.devcontainer`). While an agent's workspace interface differs they are answered "not found"
 * without a request; the folder's root carries the message.
 */
export function isConfigProbe(path: string): boolean {
	const first = path.replace(/^\/+/, '').split('/')[0] ?? '';
	return first.length > 1 && first.startsWith('.') && first !== '..';
}

function is422(err: unknown): err is ApiError {
	return err instanceof ApiError && err.status === 422;
}

function refused(err: ApiError): WorkspaceInterfaceError {
	return new WorkspaceInterfaceError(`the server refused a workspace operation as invalid (${err.message})`, err.requestId, err);
}

/**
 * Tells a 422 (the service's answer to a body it cannot validate) that means this server reads
 * another workspace operation shape, as a 400 does, from a 422 about one path: the shape differs
 * when the operation was on the workspace root, or when a listing of the root, which exists in
 * every workspace, is refused too.
 */
export class ShapeCheck {
	/** Checks of an agent's root on their way, shared by the operations that wait on one. */
	private readonly rootChecks = new Map<string, Promise<WorkspaceInterfaceError | undefined>>();

	constructor(private readonly getApi: () => WorkspaceApi) {}

	/** The interface error `err` stands for, or undefined when it is not one (any other failure, or a 422 about `path`). */
	async refusedShape(agentId: string, path: string, err: unknown): Promise<WorkspaceInterfaceError | undefined> {
		if (!is422(err)) {
			return undefined;
		}
		if (normalizeWorkspacePath(path) === '') {
			return refused(err);
		}
		// One check of the root at a time per agent: VS Code's probes of a new folder come together.
		let check = this.rootChecks.get(agentId);
		if (!check) {
			check = this.getApi()
				.listWorkspace(agentId, '', { limit: 1 })
				.then(
					() => undefined,
					(rootErr: unknown) =>
						rootErr instanceof WorkspaceInterfaceError ? rootErr : is422(rootErr) ? refused(rootErr) : undefined,
				)
				.finally(() => this.rootChecks.delete(agentId));
			this.rootChecks.set(agentId, check);
		}
		return check;
	}
}
