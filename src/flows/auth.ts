import { CloudAgentsAuthProvider } from '../auth/authProvider';
import type { AuthFlows } from '../auth/authProvider';
import type { Session } from '../auth/session';
import type { DeploymentSessions } from '../auth/deploymentSessions';
import type { AddDeploymentArgs, AuthLogger, SignInArgs, SignOutArgs } from '../auth/signIn';
import type { FlowCommand } from '../views/registry';
import type { Registrations } from '../util/registrations';

/** What the auth commands need. */
export interface AuthCommandDeps {
	session: Session;
	log: AuthLogger;
	/** Every configured deployment's session (the commands ask which one when there are several). */
	deployments?: () => DeploymentSessions;
	/** The flows the commands run (loaded with the features on first use). */
	flows: AuthFlows;
}

/**
 * The Accounts-menu authentication provider, registered through `registrations` (VS Code's own call
 * unless given: the activation's stand-in in the extension); dispose it to remove it.
 */
export function authProvider(deps: AuthCommandDeps, registrations?: Registrations): CloudAgentsAuthProvider {
	return new CloudAgentsAuthProvider(deps.session, deps.log, deps.flows, registrations);
}

/**
 * `cloudAgents.signIn` (optional argument {@link SignInArgs}: `{apiKey}` signs in without asking,
 * `{method: 'device', openBrowser: false}` runs the device flow without the browser prompt,
 * `{deployment}` picks one of several deployments; resolves to whether a token is now stored),
 * `cloudAgents.signOut` (asks first; `{confirm: false}` does not) and `cloudAgents.addDeployment`
 * (asks a name and an API URL unless given, then signs in), for `registerFlows` (registered at
 * activation with the session's single "sign in again" prompt for a 401).
 */
export function authCommands(deps: AuthCommandDeps): FlowCommand[] {
	return [
		{ id: 'cloudAgents.signIn', run: (args?: SignInArgs) => deps.flows.signIn(deps, args) },
		{ id: 'cloudAgents.signOut', run: (args?: SignOutArgs) => deps.flows.signOut(deps, args) },
		{ id: 'cloudAgents.addDeployment', run: (args?: AddDeploymentArgs) => deps.flows.addDeployment(deps, args) },
	];
}
