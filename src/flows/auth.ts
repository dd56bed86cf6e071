import type * as vscode from 'vscode';
import { CloudAgentsAuthProvider } from '../auth/authProvider';
import type { AuthFlows } from '../auth/authProvider';
import type { Session } from '../auth/session';
import type { AuthLogger, SignInArgs, SignOutArgs } from '../auth/signIn';
import { commandRegistrar } from '../views/registry';

/** What the auth commands need. */
export interface AuthCommandDeps {
	session: Session;
	log: AuthLogger;
	/** The flows the commands run (loaded with the features on first use). */
	flows: AuthFlows;
}

/**
 * Registers `cloudAgents.signIn` (optional argument {@link SignInArgs}: `{apiKey}` signs in without
 * asking, `{method: 'device', openBrowser: false}` runs the device flow without the browser prompt;
 * resolves to whether a token is now stored), `cloudAgents.signOut` (asks first; `{confirm: false}`
 * does not) and the Accounts-menu
 * authentication provider. A 401 of a failed command goes to the session's single "sign in again"
 * prompt.
 */
export function registerAuth(deps: AuthCommandDeps): vscode.Disposable[] {
	const registerCommand = commandRegistrar(deps.log, { onUnauthorized: (err) => deps.session.reportError(err) });
	return [
		new CloudAgentsAuthProvider(deps.session, deps.log, deps.flows),
		registerCommand('cloudAgents.signIn', (args?: SignInArgs) => deps.flows.signIn(deps, args)),
		registerCommand('cloudAgents.signOut', (args?: SignOutArgs) => deps.flows.signOut(deps, args)),
	];
}
