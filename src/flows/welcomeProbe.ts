/**
 * The signed-out welcome view says whether the server answers: this probes it (HEAD /healthz only)
 * when the Agents view shows while signed out, and again when the URL or the token changes. Loaded
 * at activation (the welcome shows before any command runs); "Check Connection" is in platform.ts.
 */
import * as vscode from 'vscode';
import { SAFETY } from '../api';
import { CONTEXT_KEYS } from '../ids';
import { describeError } from '../messages/errors';
import type { Services } from '../views/actions';

/** The host shown for an API URL (no path, no credentials). */
export function hostOf(apiUrl: string): string {
	try {
		return new URL(apiUrl).host;
	} catch {
		return apiUrl;
	}
}

/** Sets the context key the signed-out welcome view reads: `reachable` or `unreachable`. */
export async function setReachability(reachable: boolean): Promise<void> {
	await vscode.commands.executeCommand('setContext', CONTEXT_KEYS.serverReachable, reachable ? 'reachable' : 'unreachable');
}

/** What the probe reads: the session, the log, and the Agents view (whose welcome shows while signed out). */
export interface WelcomeProbeDeps extends Pick<Services, 'session' | 'log'> {
	agentsView(this: void): vscode.TreeView<vscode.TreeItem> | undefined;
}

/** Starts probing for the signed-out welcome; the caller owns the disposables. */
export function registerWelcomeProbe(deps: WelcomeProbeDeps): vscode.Disposable[] {
	let probing: Promise<void> | undefined;
	const probeForWelcome = (): void => {
		const agentsView = deps.agentsView();
		if (deps.session.signedIn || probing || !agentsView?.visible) {
			return;
		}
		probing = deps.session.client
			.healthHead({ signal: AbortSignal.timeout(SAFETY.connectionCheckTimeoutMs) })
			.then(
				() => setReachability(true),
				(err: unknown) => {
					deps.log.info(`The service at ${hostOf(deps.session.apiUrl)} is not reachable: ${describeError(err)}`);
					return setReachability(false);
				},
			)
			.finally(() => {
				probing = undefined;
			});
	};
	return [
		deps.agentsView()?.onDidChangeVisibility(() => probeForWelcome()) ?? new vscode.Disposable(() => undefined),
		deps.session.onDidChange(() => {
			void vscode.commands.executeCommand('setContext', CONTEXT_KEYS.serverReachable, undefined).then(() => probeForWelcome());
		}),
	];
}
